/**
 * Turns an `Authorization` header into a Principal. Malformed keys (wrong
 * shape or checksum) are refused without touching the database; known keys
 * are cached per container for at most `KEY_CACHE_TTL_SECONDS` (default 10),
 * which bounds how long a revoked key can keep working on a warm container.
 */
import { hashApiKey, parseApiKey } from "../domain/api-key.js";
import { type ApiKeyRecord, isUsable } from "../domain/api-key-record.js";
import { UnauthorizedError } from "../domain/errors.js";
import type { Principal } from "../domain/principal.js";
import { numberEnv } from "../runtime/env.js";
import { findApiKeyByHash } from "../store/api-key-store.js";

const cacheTtlMs = numberEnv("KEY_CACHE_TTL_SECONDS", 10) * 1000;
const CACHE_MAX_ENTRIES = 1000;

interface CachedKey {
  readonly record: ApiKeyRecord;
  readonly fetchedAt: number;
}

const cache = new Map<string, CachedKey>();

const MISSING = "Missing API key: send the header Authorization: Bearer <API key>";
const INVALID = "Invalid API key: the key is malformed, unknown, expired or revoked";

function bearerToken(authorization: string | undefined): string {
  if (authorization === undefined || authorization.trim() === "") throw new UnauthorizedError(MISSING);
  const match = /^Bearer +(\S+)\s*$/i.exec(authorization.trim());
  if (!match?.[1]) throw new UnauthorizedError(INVALID);
  return match[1];
}

async function lookUp(keyHash: string, nowMs: number): Promise<ApiKeyRecord | undefined> {
  const cached = cache.get(keyHash);
  if (cached !== undefined && nowMs - cached.fetchedAt < cacheTtlMs) return cached.record;
  const record = await findApiKeyByHash(keyHash);
  cache.delete(keyHash);
  if (record !== undefined && cacheTtlMs > 0) {
    if (cache.size >= CACHE_MAX_ENTRIES) {
      const oldest = cache.keys().next().value;
      if (oldest !== undefined) cache.delete(oldest);
    }
    cache.set(keyHash, { record, fetchedAt: nowMs });
  }
  return record;
}

export async function authenticate(authorization: string | undefined, nowMs = Date.now()): Promise<Principal> {
  const token = bearerToken(authorization);
  const environment = parseApiKey(token);
  if (environment === undefined) throw new UnauthorizedError(INVALID);
  const record = await lookUp(hashApiKey(token), nowMs);
  if (record === undefined || !isUsable(record, nowMs) || record.environment !== environment) {
    throw new UnauthorizedError(INVALID);
  }
  return {
    keyId: record.keyId,
    orgId: record.orgId,
    environment: record.environment,
    scopes: record.scopes,
    retentionDays: record.retentionDays,
  };
}
