/**
 * Fetches items by key with BatchGetItem: the second half of every index read
 * (the indexes project keys only). Retries unprocessed keys with backoff and
 * returns the items in the order of `keys` (missing ones left out).
 */
import { BatchGetCommand } from "@aws-sdk/lib-dynamodb";
import { documentClient, tableName } from "./dynamo-client.js";
import type { ItemKey } from "./keys.js";

const BATCH_LIMIT = 100;
const MAX_ATTEMPTS = 8;

type Item = Record<string, unknown>;

function identify(key: { PK?: unknown; SK?: unknown }): string {
  return `${String(key.PK)}\u0000${String(key.SK)}`;
}

export async function batchGetItems(keys: readonly ItemKey[]): Promise<Item[]> {
  const found = new Map<string, Item>();
  for (let start = 0; start < keys.length; start += BATCH_LIMIT) {
    let pending: Item[] = keys.slice(start, start + BATCH_LIMIT).map((key) => ({ PK: key.PK, SK: key.SK }));
    for (let attempt = 0; pending.length > 0; attempt++) {
      if (attempt === MAX_ATTEMPTS) throw new Error(`BatchGetItem left ${pending.length} keys unprocessed`);
      if (attempt > 0) await new Promise((resolve) => setTimeout(resolve, 25 * 2 ** attempt));
      const result = await documentClient.send(
        new BatchGetCommand({ RequestItems: { [tableName]: { Keys: pending, ConsistentRead: true } } }),
      );
      for (const item of result.Responses?.[tableName] ?? []) found.set(identify(item), item);
      pending = (result.UnprocessedKeys?.[tableName]?.Keys ?? []) as Item[];
    }
  }
  return keys.flatMap((key): Item[] => {
    const item = found.get(identify(key));
    return item === undefined ? [] : [item];
  });
}
