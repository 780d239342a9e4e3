/**
 * BatchGetItem and BatchWriteItem with their unprocessed items retried: the
 * one copy of each loop. Reads fetch the items an index page names (the
 * indexes project keys only) and the sessions of a stream batch being
 * counted; writes put a batch of events or delete a session's events.
 */
import { BatchGetCommand, BatchWriteCommand } from "@aws-sdk/lib-dynamodb";
import { chunked } from "../events/event-batch-plan.js";
import { documentClient, tableName } from "./dynamo-client.js";
import type { Item } from "./entity.js";
import type { ItemKey } from "./keys.js";
import { backoff } from "./write-retry.js";

/** Keys per BatchGetItem request (DynamoDB's limit). */
const BATCH_GET_LIMIT = 100;
/** Attempts of one batch request before what it left unprocessed is given up. */
const MAX_ATTEMPTS = 8;

function identify(key: { PK?: unknown; SK?: unknown }): string {
  return `${String(key.PK)}\u0000${String(key.SK)}`;
}

/**
 * Fetches items by key (strongly consistent unless `consistent: false`), 100 keys per request, retrying unprocessed keys with
 * backoff; returns the items in the order of `keys`, missing ones left out. Throws when keys stay
 * unprocessed after MAX_ATTEMPTS.
 */
export async function batchGetItems(
  keys: readonly ItemKey[],
  options: { readonly consistent?: boolean } = {},
): Promise<Item[]> {
  const found = new Map<string, Item>();
  for (const group of chunked(keys, BATCH_GET_LIMIT)) {
    let pending: Item[] = group.map((key) => ({ PK: key.PK, SK: key.SK }));
    for (let attempt = 0; pending.length > 0; attempt++) {
      if (attempt === MAX_ATTEMPTS) throw new Error(`BatchGetItem left ${pending.length} keys unprocessed`);
      if (attempt > 0) await backoff(attempt + 2);
      const result = await documentClient.send(
        new BatchGetCommand({
          RequestItems: { [tableName]: { Keys: pending, ConsistentRead: options.consistent ?? true } },
        }),
      );
      for (const item of result.Responses?.[tableName] ?? []) found.set(identify(item), item);
      pending = result.UnprocessedKeys?.[tableName]?.Keys ?? [];
    }
  }
  return keys.flatMap((key): Item[] => {
    const item = found.get(identify(key));
    return item === undefined ? [] : [item];
  });
}

/** One request of a BatchWriteItem: a put of an item or a delete by key. */
export type WriteRequest =
  | { readonly PutRequest: { readonly Item: Item } }
  | { readonly DeleteRequest: { readonly Key: ItemKey } };

/** What a batch write could not do: the requests never processed and, if one was thrown, the last error. */
export interface WriteLeftovers {
  readonly unprocessed: readonly WriteRequest[];
  readonly error?: unknown;
}

/** Errors a repeat of the same request cannot cure. */
function isRetryable(error: unknown): boolean {
  const name = error instanceof Error ? error.name : "";
  return name !== "ValidationException" && name !== "AccessDeniedException";
}

async function writeChunk(chunk: readonly WriteRequest[]): Promise<WriteLeftovers> {
  let pending: readonly WriteRequest[] = chunk;
  let lastError: unknown;
  for (let attempt = 0; pending.length > 0 && attempt < MAX_ATTEMPTS; attempt++) {
    if (attempt > 0) await backoff(attempt + 2);
    try {
      const result = await documentClient.send(
        new BatchWriteCommand({ RequestItems: { [tableName]: pending.map((request) => ({ ...request })) } }),
      );
      pending = (result.UnprocessedItems?.[tableName] ?? []) as WriteRequest[];
      lastError = undefined;
    } catch (error) {
      lastError = error;
      if (!isRetryable(error)) break;
    }
  }
  return { unprocessed: pending, ...(lastError === undefined ? {} : { error: lastError }) };
}

/**
 * Writes `requests` with BatchWriteItem, 25 per request and the requests in parallel, retrying
 * unprocessed items (and throttling or transient errors) with backoff, at most MAX_ATTEMPTS per request.
 * Never throws for what it could not write: it resolves with the leftovers, for the caller to report.
 */
export async function writeAllWithRetry(requests: readonly WriteRequest[]): Promise<WriteLeftovers> {
  const outcomes = await Promise.all(chunked(requests).map(writeChunk));
  const unprocessed = outcomes.flatMap((outcome) => outcome.unprocessed);
  const failed = outcomes.find((outcome) => outcome.error !== undefined);
  return { unprocessed, ...(failed === undefined ? {} : { error: failed.error }) };
}

/** Deletes items by key (BatchWriteItem), throwing when any delete stays unprocessed. */
export async function deleteAll(keys: readonly ItemKey[]): Promise<void> {
  const { unprocessed, error } = await writeAllWithRetry(
    keys.map((key) => ({ DeleteRequest: { Key: { PK: key.PK, SK: key.SK } } })),
  );
  if (error !== undefined) throw error;
  if (unprocessed.length > 0) throw new Error(`BatchWriteItem left ${unprocessed.length} deletes unprocessed`);
}
