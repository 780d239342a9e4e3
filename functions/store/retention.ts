/** Item expiry for DynamoDB TTL, from an organisation's retention in days. */

export const DEFAULT_RETENTION_DAYS = 90;

/** Epoch seconds at which an item written at `nowMs` expires. */
export function expiryEpochSeconds(nowMs: number, retentionDays: number): number {
  return Math.floor(nowMs / 1000) + Math.round(retentionDays * 24 * 60 * 60);
}
