/**
 * The bound on scores per target (LIMITS.scoresPerTarget): a small counter item in the target's own partition
 * (`<PK>` / `SCORECOUNT`, keys.ts scoreCountKey), moved in the very transactions that add and delete scores, so the
 * bound is exact under any concurrency:
 * - a new score's transaction ADDs 1 on the condition that the count is below the limit (a replacement by id does
 *   not count again);
 * - a deletion's transaction (score-withdrawal.ts) ADDs minus the scores it deletes that were counted here (the
 *   score item's `inScoreCount`: scores written before the count existed are not in it);
 * - the target's deletion deletes it last (session-deletion.ts, conversation-score-sweep.ts); otherwise it carries
 *   its scores' TTL and expires with them.
 */
import { LIMITS } from "../../domain/limits.js";
import { scoreCountKey } from "../table/keys.js";
import type { TransactItem } from "../table/table-operations.js";

export const SCORE_COUNT_ENTITY = "scoreCount";

/** The Update counting one new score into its target's count, refused (condition) when the target is full. */
export function scoreCountAdd(partitionKey: string, ttl: number): TransactItem {
  return {
    Update: {
      Key: scoreCountKey(partitionKey),
      UpdateExpression: "SET #entity = :entity, #ttl = :ttl ADD scoreCount :one",
      ConditionExpression: "attribute_not_exists(scoreCount) OR scoreCount < :limit",
      ExpressionAttributeNames: { "#entity": "entity", "#ttl": "ttl" },
      ExpressionAttributeValues: {
        ":entity": SCORE_COUNT_ENTITY,
        ":ttl": ttl,
        ":one": 1,
        ":limit": LIMITS.scoresPerTarget,
      },
    },
  };
}

/**
 * The Update taking `deleted` scores out of their target's count. Unconditional (a deletion must never fail on the
 * count); should the count be gone already, the item it makes again carries the scores' TTL and expires.
 */
export function scoreCountWithdraw(partitionKey: string, deleted: number, ttl: number | undefined): TransactItem {
  return {
    Update: {
      Key: scoreCountKey(partitionKey),
      UpdateExpression: `SET #entity = :entity${ttl === undefined ? "" : ", #ttl = if_not_exists(#ttl, :ttl)"} ADD scoreCount :minus`,
      ExpressionAttributeNames: { "#entity": "entity", ...(ttl === undefined ? {} : { "#ttl": "ttl" }) },
      ExpressionAttributeValues: {
        ":entity": SCORE_COUNT_ENTITY,
        ":minus": -deleted,
        ...(ttl === undefined ? {} : { ":ttl": ttl }),
      },
    },
  };
}
