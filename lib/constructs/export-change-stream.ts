import type { Table } from "aws-cdk-lib/aws-dynamodb";
import { FilterCriteria, FilterRule, type Function as LambdaFunction } from "aws-cdk-lib/aws-lambda";
import type { Queue } from "aws-cdk-lib/aws-sqs";
import { Construct } from "constructs";
import { CONVERSATION_PARTITION_PREFIX, SESSION_PARTITION_PREFIX } from "../../functions/store/table/keys.js";
import { readTableStream } from "./stream-reader.js";

/** Properties of {@link ExportChangeStream}. */
export interface ExportChangeStreamProps {
  readonly table: Table;
  /** The export's stream reader (functions/stream/export-change-consumer.ts). */
  readonly marker: { readonly function: LambdaFunction };
  /** Where a batch that failed every retry is described (the counting consumer's failure queue, which alarms). */
  readonly failureQueue: Queue;
}

/**
 * The export's own event source mapping of the table's stream (the stream's second reader, of the two DynamoDB
 * allows per shard): every change of a session's or conversation's partition — what the counting consumer's filters
 * leave out too (a renamed or moved session, a deleted score, a conversation summary, a TTL expiry) — batched as the
 * counting consumer's are, a failing batch retried in halves and then described in the failure queue.
 */
export class ExportChangeStream extends Construct {
  constructor(scope: Construct, id: string, props: ExportChangeStreamProps) {
    super(scope, id);
    readTableStream(this, {
      table: props.table,
      reader: props.marker.function,
      failureQueue: props.failureQueue,
      filters: [
        FilterCriteria.filter({
          dynamodb: {
            Keys: {
              PK: {
                S: [
                  ...FilterRule.beginsWith(SESSION_PARTITION_PREFIX),
                  ...FilterRule.beginsWith(CONVERSATION_PARTITION_PREFIX),
                ],
              },
            },
          },
        }),
      ],
    });
  }
}
