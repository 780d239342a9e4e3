import type { Environment } from "./api-key.js";
import type { Scope } from "./scopes.js";

/** What the service keeps about an API key: never the key itself. */
export interface ApiKeyRecord {
  readonly keyId: string;
  readonly orgId: string;
  readonly environment: Environment;
  readonly name: string;
  /** Last four characters of the key. */
  readonly hint: string;
  readonly scopes: readonly Scope[];
  readonly retentionDays: number;
  readonly createdAt: string;
  readonly createdBy: string;
  readonly revokedAt?: string | undefined;
  /** After this instant the key is refused (set when a key is rotated). */
  readonly expiresAt?: string | undefined;
}

/** Whether the key may still be used at `nowMs`. */
export function isUsable(record: ApiKeyRecord, nowMs: number): boolean {
  if (record.revokedAt !== undefined) return false;
  return record.expiresAt === undefined || Date.parse(record.expiresAt) > nowMs;
}
