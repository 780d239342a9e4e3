/**
 * Deleting scores and withdrawing, in the same transaction, exactly what the stream consumer counted of them (their
 * `counted` record) and their place in their target's SCORECOUNT (score-count.ts): a score deleted through the API,
 * a session's scores swept with its deletion (which an erasure job makes too), a conversation's swept when its last
 * run goes. Each delete is conditional on the score's count version as read, so the consumer cannot
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
import { scoreCountWithdraw } from "./score-count.js";
import { IN_SCORE_COUNT_ATTRIBUTE, SCORE_ENTITY } from "./score-item.js";

/**
 * Scores per transaction: each is one Delete and at most one rollup item, and each group is of one target, whose
 * SCORECOUNT is one Update more (≤ 2 × 40 + 1 = 81 of the 100 allowed).
 */
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
  return [...deletes, ...withdrawals, ...countWithdrawals(items)];
}

/** Per target partition, the scores deleted that its SCORECOUNT holds, taken out of it. */
function countWithdrawals(items: readonly Item[]): TransactItem[] {
  const byPartition = new Map<string, { deleted: number; ttl: number | undefined }>();
  for (const item of items) {
    if (item[IN_SCORE_COUNT_ATTRIBUTE] !== true) continue;
    const partition = String(item.PK);
    const seen = byPartition.get(partition);
    const ttl = typeof item.ttl === "number" ? item.ttl : undefined;
    byPartition.set(partition, { deleted: (seen?.deleted ?? 0) + 1, ttl: seen?.ttl ?? ttl });
  }
  return [...byPartition].map(([partition, { deleted, ttl }]) => scoreCountWithdraw(partition, deleted, ttl));
}

/** `keys` in groups of at most SCORES_PER_DELETION, each group of one partition (one target). */
function groupsOfOneTarget(keys: readonly ItemKey[]): ItemKey[][] {
  const byPartition = new Map<string, ItemKey[]>();
  for (const key of keys) byPartition.set(key.PK, [...(byPartition.get(key.PK) ?? []), key]);
  return [...byPartition.values()].flatMap((partitionKeys) => {
    const groups: ItemKey[][] = [];
    for (let start = 0; start < partitionKeys.length; start += SCORES_PER_DELETION) {
      groups.push(partitionKeys.slice(start, start + SCORES_PER_DELETION));
    }
    return groups;
  });
}

/**
 * Deletes the score items at `keys` (any that are not scores, or are gone, are left alone) with their withdrawal,
 * 40 per transaction; resolves with how many were deleted. Rejects when a group kept changing (the caller's
 * request fails and may be repeated: what was deleted stays deleted and withdrawn).
 */
export async function deleteScoresWithdrawing(keys: readonly ItemKey[]): Promise<number> {
  let deleted = 0;
  for (const group of groupsOfOneTarget(keys)) {
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
