/** Item expiry for DynamoDB TTL, from an organisation's retention in days. */

export const DEFAULT_RETENTION_DAYS = 90;
export const DEFAULT_ROLLUP_RETENTION_DAYS = 400;

/** Whether an item with this TTL has expired (DynamoDB deletes lazily, so reads filter). */
export function isExpired(item: { readonly ttl?: unknown }, nowMs: number): boolean {
  return typeof item.ttl === "number" && item.ttl <= Math.floor(nowMs / 1000);
}

/** Epoch seconds at which an item written at `nowMs` expires. */
export function expiryEpochSeconds(nowMs: number, retentionDays: number): number {
  return Math.floor(nowMs / 1000) + Math.round(retentionDays * 24 * 60 * 60);
}
