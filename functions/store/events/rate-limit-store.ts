/**
 * Rate-limit windows (keys.ts `rateLimitWindowKey`): one item per bucket and
 * one-minute window, a counter `used` that only grows, on the condition that
 * it stays within the limit. The limiter (functions/ratelimit/) decides what
 * to take; this module takes it: one conditional UpdateItem.
 */

import { conditionFailureItem, isConditionFailure } from "../table/condition-failure.js";
import { rateLimitWindowKey } from "../table/keys.js";
import { updateItem } from "../table/table-operations.js";

export const RATE_LIMIT_WINDOW_ENTITY = "rateLimitWindow";

/** How long a window's item is kept after it was first written. */
const WINDOW_TTL_SECONDS = 3 * 60;

/** The outcome of one attempt: tokens granted and the window's count after it, or the count that refused it. */
export type WindowTake =
  | { readonly granted: true; readonly used: number }
  | { readonly granted: false; readonly used: number | undefined };

/**
 * Adds `tokens` to the window's count if it stays within `limit` (one conditional UpdateItem); a refusal
 * reports the count as stored (ReturnValuesOnConditionCheckFailure: no read).
 */
export async function takeWindowTokens(
  bucket: string,
  window: number,
  tokens: number,
  limit: number,
  nowMs: number,
): Promise<WindowTake> {
  try {
    const attributes = await updateItem({
      Key: rateLimitWindowKey(bucket, window),
      UpdateExpression: "ADD used :n SET #ttl = if_not_exists(#ttl, :ttl), entity = :entity",
      ConditionExpression: "attribute_not_exists(used) OR used <= :ceiling",
      ExpressionAttributeNames: { "#ttl": "ttl" },
      ExpressionAttributeValues: {
        ":n": tokens,
        ":ceiling": limit - tokens,
        ":ttl": Math.floor(nowMs / 1000) + WINDOW_TTL_SECONDS,
        ":entity": RATE_LIMIT_WINDOW_ENTITY,
      },
      ReturnValues: "UPDATED_NEW",
      ReturnValuesOnConditionCheckFailure: "ALL_OLD",
    });
    return { granted: true, used: Number(attributes?.used ?? tokens) };
  } catch (error) {
    if (!isConditionFailure(error)) throw error;
    const stored = conditionFailureItem(error)?.used;
    return { granted: false, used: stored === undefined ? undefined : Number(stored) };
  }
}
