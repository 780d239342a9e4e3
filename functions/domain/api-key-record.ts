import type { Environment } from "./api-key.js";
import type { Scope } from "./scopes.js";

/**
 * What authentication needs to know about a key, stored under the key's hash
 * so a request costs one read. Never holds the key itself.
 */
export interface ApiKeyCredential {
  readonly keyId: string;
  readonly orgId: string;
  readonly environment: Environment;
  readonly scopes: readonly Scope[];
  readonly retentionDays: number;
  /** Absent on keys created before rollups existed: DEFAULT_ROLLUP_RETENTION_DAYS applies. */
  readonly rollupRetentionDays?: number | undefined;
  /** The organisation's rate limit override (all its keys together), if any. */
  readonly rateLimitPerMinute?: number | undefined;
  /** The organisation's lower limit for any one key, if any. */
  readonly keyRateLimitPerMinute?: number | undefined;
  readonly revokedAt?: string | undefined;
  /** After this instant the key is refused (set when a key is rotated). */
  readonly expiresAt?: string | undefined;
}

/** The organisation's view of a key (listed in settings, never the secret). */
export interface ApiKeyRecord extends ApiKeyCredential {
  readonly name: string;
  /** Last four characters of the key. */
  readonly hint: string;
  readonly createdAt: string;
  readonly createdBy: string;
  readonly lastUsedAt?: string | undefined;
  /** The key this one replaced, or was replaced by, in a rotation. */
  readonly rotatedFrom?: string | undefined;
  readonly rotatedTo?: string | undefined;
}

export type ApiKeyStatus = "active" | "expiring" | "expired" | "revoked";

/** Whether the key may still be used at `nowMs`. */
export function isUsable(credential: ApiKeyCredential, nowMs: number): boolean {
  if (credential.revokedAt !== undefined) return false;
  return credential.expiresAt === undefined || Date.parse(credential.expiresAt) > nowMs;
}

export function keyStatus(credential: ApiKeyCredential, nowMs: number): ApiKeyStatus {
  if (credential.revokedAt !== undefined) return "revoked";
  if (credential.expiresAt === undefined) return "active";
  return Date.parse(credential.expiresAt) > nowMs ? "expiring" : "expired";
}

/** Default and maximum overlap of a rotated key with its replacement. */
export const ROTATION_OVERLAP = { defaultSeconds: 24 * 60 * 60, maxSeconds: 7 * 24 * 60 * 60 } as const;

/** `lastUsedAt` is written at most this often per key. */
export const LAST_USED_WRITE_INTERVAL_MS = 60_000;

export type AuditAction = "key.created" | "key.rotated" | "key.revoked";

/** One lifecycle action on a key: who did what, when. */
export interface AuditRecord {
  readonly id: string;
  readonly keyId: string;
  readonly action: AuditAction;
  readonly actor: string;
  readonly actorId?: string | undefined;
  readonly at: string;
  readonly details?: Readonly<Record<string, string | number>> | undefined;
}
