/**
 * Telling a failed condition from any other failure: the one copy of the
 * check. Free of environment reads and of the table client, so the local
 * tools and the deployment function can use it too.
 */
import { ConditionalCheckFailedException, TransactionCanceledException } from "@aws-sdk/client-dynamodb";
import { unmarshall } from "@aws-sdk/util-dynamodb";
import type { Item } from "./entity.js";

/**
 * Whether `error` is a failed condition: a ConditionalCheckFailedException, or a transaction cancelled
 * because of one — of its item `index` when given (then only a transaction counts), of any item otherwise.
 */
export function isConditionFailure(error: unknown, index?: number): boolean {
  if (error instanceof ConditionalCheckFailedException) return index === undefined;
  if (!(error instanceof TransactionCanceledException)) return false;
  const reasons = error.CancellationReasons ?? [];
  if (index !== undefined) return reasons[index]?.Code === "ConditionalCheckFailed";
  return reasons.some((reason) => reason.Code === "ConditionalCheckFailed");
}

/**
 * The item as it was when a single-item write's condition failed (`ReturnValuesOnConditionCheckFailure:
 * ALL_OLD`), or undefined when `error` is not such a failure or carries no item.
 */
export function conditionFailureItem(error: unknown): Item | undefined {
  return error instanceof ConditionalCheckFailedException && error.Item !== undefined
    ? unmarshall(error.Item)
    : undefined;
}

/**
 * The item as it was when the condition of a transaction's item `index` failed (that item asked for
 * `ReturnValuesOnConditionCheckFailure: ALL_OLD`), or undefined when it was absent or `error` is no such failure.
 */
export function cancellationItem(error: unknown, index: number): Item | undefined {
  if (!(error instanceof TransactionCanceledException)) return undefined;
  const item = error.CancellationReasons?.[index]?.Item;
  return item === undefined ? undefined : unmarshall(item);
}
