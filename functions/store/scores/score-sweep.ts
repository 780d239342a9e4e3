/**
 * Sweeping a target's scores: every `SCORE#` item of its partition deleted with the withdrawal of what was counted
 * of it (score-withdrawal.ts), then, with `andCount`, its SCORECOUNT (score-count.ts) — when the target itself goes.
 */

import { SCORE_PREFIX, scoreCountKey } from "../table/keys.js";
import { deleteItem, keyOf, queryPages } from "../table/table-operations.js";
import { deleteScoresWithdrawing } from "./score-withdrawal.js";

/** Deletes the scores of the partition (and its count); resolves with how many scores there were. */
export async function sweepScoresOf(partitionKey: string, options: { readonly andCount: boolean }): Promise<number> {
  let swept = 0;
  for await (const page of queryPages({
    KeyConditionExpression: "PK = :pk AND begins_with(SK, :prefix)",
    ExpressionAttributeValues: { ":pk": partitionKey, ":prefix": SCORE_PREFIX },
    ProjectionExpression: "PK, SK",
    ConsistentRead: true,
  })) {
    await deleteScoresWithdrawing(page.items.map(keyOf));
    swept += page.items.length;
  }
  if (options.andCount) await deleteItem(scoreCountKey(partitionKey));
  return swept;
}
