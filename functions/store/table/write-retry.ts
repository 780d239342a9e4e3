/**
 * Retrying optimistic writes that lost a race: how long to wait (exponential
 * backoff with full jitter, so racing writers spread out instead of colliding
 * again) and which failures are races rather than refusals.
 */
import { TransactionCanceledException } from "@aws-sdk/client-dynamodb";

const BASE_DELAY_MS = 5;
const MAX_DELAY_MS = 200;

/** Waits a random time in [0, min(MAX, BASE × 2^attempt)). */
export function backoff(attempt: number): Promise<void> {
  const ceiling = Math.min(MAX_DELAY_MS, BASE_DELAY_MS * 2 ** attempt);
  return new Promise((resolve) => setTimeout(resolve, Math.random() * ceiling));
}

/**
 * Whether a transaction was cancelled only because another transaction was
 * working on one of its items at the same time (DynamoDB's `TransactionConflict`):
 * the very same write succeeds when tried again.
 */
export function isTransactionConflict(error: unknown): boolean {
  if (!(error instanceof TransactionCanceledException)) return false;
  const codes = (error.CancellationReasons ?? []).map((reason) => reason.Code ?? "None");
  return (
    codes.includes("TransactionConflict") && codes.every((code) => code === "None" || code === "TransactionConflict")
  );
}

/**
 * Whether a single-item write was refused because a transaction was working on the item at that moment
 * (DynamoDB's TransactionConflictException, e.g. the stream consumer counting a session's events while
 * the session is ended): the write succeeds when tried again.
 */
export function isWriteConflict(error: unknown): boolean {
  return error instanceof Error && error.name === "TransactionConflictException";
}
