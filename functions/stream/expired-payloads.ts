/**
 * Offloaded payloads go when their session goes, expiry included (issue 21). DynamoDB TTL deletes an
 * expired session item without the service's knowing; its stream record — a REMOVE whose `userIdentity`
 * is the DynamoDB service — is the signal. A session marked `hasPayloads` (set by counting when one of its
 * events offloaded a field) then has every object under its payload prefix deleted, so nothing the
 * retention removed outlives it in S3, where no erasure could find it any more. The bucket's lifecycle
 * rules stay as the backstop (payloads of sessions counted before the mark existed).
 *
 * On AWS the event source mapping passes only such records of marked sessions
 * (lib/constructs/stream-counting.ts); locally every record reaches the consumer, and this module picks.
 */
import type { AttributeValue } from "@aws-sdk/client-dynamodb";
import { unmarshall } from "@aws-sdk/util-dynamodb";
import type { DynamoDBRecord } from "aws-lambda";
import type { SessionLocation } from "../store/payloads/payload-layout.js";
import { deletePayloadsOf } from "../store/payloads/payload-store.js";
import { isTtlDeletion } from "./ttl-deletion.js";

/** The payload location of a session item that TTL removed while marked `hasPayloads`, else undefined. */
export function expiredSessionPayloads(record: DynamoDBRecord): SessionLocation | undefined {
  const oldImage = record.dynamodb?.OldImage;
  if (!isTtlDeletion(record) || oldImage === undefined) return undefined;
  const item = unmarshall(oldImage as Record<string, AttributeValue>);
  if (item.entity !== "session" || item.hasPayloads !== true) return undefined;
  const { orgId, environment, id } = item;
  if (typeof orgId !== "string" || typeof environment !== "string" || typeof id !== "string") return undefined;
  return { orgId, environment, sessionId: id };
}

/**
 * Deletes the payloads of every marked session the batch's TTL removals name, in order. Resolves with the
 * sequence number of the first record whose payloads could not be deleted (the stream delivers it again;
 * deleting twice is harmless), or undefined.
 */
export async function deleteExpiredPayloads(
  records: readonly DynamoDBRecord[],
  onFailure: (location: SessionLocation, error: unknown) => void,
): Promise<string | undefined> {
  for (const record of records) {
    const location = expiredSessionPayloads(record);
    if (location === undefined) continue;
    try {
      await deletePayloadsOf(location);
    } catch (error) {
      onFailure(location, error);
      return record.dynamodb?.SequenceNumber;
    }
  }
  return undefined;
}
