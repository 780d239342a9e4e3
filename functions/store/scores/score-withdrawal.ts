/**
 * Deleting scores and withdrawing, in the same transaction, exactly what the stream consumer counted of them (their
 * `counted` record): a score deleted through the API, and a session's scores swept with its deletion (which an
 * erasure job makes too). Each delete is conditional on the score's count version as read, so the consumer cannot
 * count it in between (a failed condition reads again); a score the consumer has not counted yet is deleted with
 * nothing to withdraw, and the consumer, reading it afterwards, finds it gone and counts nothing.
 */
import { countingChange, mergePlaceTallies } from "../../domain/score-tally.js";
import { scoreRollupUpdate } from "../counting/score-rollup.js";
import { batchGetItems } from "../table/batch-operations.js";
import { isConditionFailure } from "../table/condition-failure.js";
import type { Item } from "../table/entity.js";
import type { ItemKey } from "../table/keys.js";
import { type TransactItem, transact } from "../table/table-operations.js";
import { backoff, isTransactionConflict } from "../table/write-retry.js";
import { countedScoreOf, scoreTenantOf, versionCondition } from "./counted-score.js";
import { SCORE_ENTITY } from "./score-item.js";

/** Scores per transaction: each is one Delete and at most one rollup item (≤ 2 × 40 = 80 of the 100 allowed). */
export const SCORES_PER_DELETION = 40;
const ATTEMPTS = 8;

/** The transaction deleting `items` (score items as read, of one tenant or several) with their withdrawal. */
function deletionItems(items: readonly Item[]): TransactItem[] {
  const deletes: TransactItem[] = items.map((item) => {
    const condition = versionCondition(item);
    return {
      Delete: {
        Key: { PK: String(item.PK), SK: String(item.SK) },
        ConditionExpression: `#entity = :score AND ${condition.expression}`,
        ExpressionAttributeNames: { "#entity": "entity" },
        ExpressionAttributeValues: { ":score": SCORE_ENTITY, ...condition.values },
      },
    };
  });
  const byTenant = new Map<string, Item[]>();
  for (const item of items) {
    const tenantPrefix = scoreTenantOf(item);
    byTenant.set(tenantPrefix, [...(byTenant.get(tenantPrefix) ?? []), item]);
  }
  const withdrawals = [...byTenant].flatMap(([tenantPrefix, scores]) =>
    mergePlaceTallies(scores.flatMap((item) => countingChange(countedScoreOf(item), undefined))).map((share) =>
      scoreRollupUpdate(tenantPrefix, share),
    ),
  );
  return [...deletes, ...withdrawals];
}

/**
 * Deletes the score items at `keys` (any that are not scores, or are gone, are left alone) with their withdrawal,
 * 40 per transaction; resolves with how many were deleted. Rejects when a group kept changing (the caller's
 * request fails and may be repeated: what was deleted stays deleted and withdrawn).
 */
export async function deleteScoresWithdrawing(keys: readonly ItemKey[]): Promise<number> {
  let deleted = 0;
  for (let start = 0; start < keys.length; start += SCORES_PER_DELETION) {
    const group = keys.slice(start, start + SCORES_PER_DELETION);
    for (let attempt = 0; ; attempt++) {
      const items = (await batchGetItems(group, { consistent: true })).filter((item) => item.entity === SCORE_ENTITY);
      if (items.length === 0) break;
      try {
        await transact(deletionItems(items));
        deleted += items.length;
        break;
      } catch (error) {
        if (!isConditionFailure(error) && !isTransactionConflict(error)) throw error;
        if (attempt + 1 >= ATTEMPTS) throw error;
        await backoff(attempt + 1);
      }
    }
  }
  return deleted;
}
