/**
 * A batch of the table's stream as Lambda delivers it (with a tumbling window: the shard id in every event), and each
 * record as the consumers read it (keys and images unmarshalled). Shared by the counting consumer
 * (stream-consumer.ts) and the export's (export-change-consumer.ts); small, so neither bundle carries the other.
 */
import type { AttributeValue } from "@aws-sdk/client-dynamodb";
import { unmarshall } from "@aws-sdk/util-dynamodb";
import type { DynamoDBBatchResponse, DynamoDBRecord } from "aws-lambda";
import type { ChangeRecord } from "../store/counting/stream-counting.js";

/** A stream event as Lambda delivers it with a tumbling window: the records of one shard, and its id. */
export interface StreamBatchEvent {
  readonly Records: readonly DynamoDBRecord[];
  readonly shardId?: string;
  readonly state?: Record<string, string>;
  readonly isFinalInvokeForWindow?: boolean;
}

/** With a tumbling window Lambda expects `state` in the answer; the consumer keeps none. */
export type StreamBatchResponse = DynamoDBBatchResponse & { state: Record<string, string> };

/** Marks of a stream without shard ids (no tumbling window) all live under this one name. */
export const SINGLE_SHARD = "stream";

export function changeRecordOf(record: DynamoDBRecord): ChangeRecord | undefined {
  const stream = record.dynamodb;
  const eventName = record.eventName;
  if (stream?.SequenceNumber === undefined || stream.Keys === undefined || eventName === undefined) return undefined;
  const image = (value: unknown) =>
    value === undefined ? undefined : unmarshall(value as Record<string, AttributeValue>);
  return {
    eventName,
    sequence: stream.SequenceNumber,
    keys: image(stream.Keys) ?? {},
    newImage: image(stream.NewImage),
    oldImage: image(stream.OldImage),
  };
}
