/**
 * How a deletion made by DynamoDB TTL looks in the table's stream. Pure (no AWS SDK), so the CDK stack's
 * event-source filter (lib/constructs/stream-counting.ts) and the consumer recognise the same records.
 */
import type { DynamoDBRecord } from "aws-lambda";

/** The identity DynamoDB puts on the stream records of the deletions its TTL makes. */
export const TTL_DELETION_IDENTITY = { type: "Service", principalId: "dynamodb.amazonaws.com" } as const;

/** Whether a stream record is a deletion made by DynamoDB TTL (not by a request of the service). */
export function isTtlDeletion(record: DynamoDBRecord): boolean {
  return (
    record.eventName === "REMOVE" &&
    record.userIdentity?.type === TTL_DELETION_IDENTITY.type &&
    record.userIdentity.principalId === TTL_DELETION_IDENTITY.principalId
  );
}
