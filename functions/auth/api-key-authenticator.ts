/**
 * Turns an `Authorization` header into a Principal. Malformed keys (wrong
 * shape or checksum) are refused without touching the database; known keys
 * are cached per container for at most `KEY_CACHE_TTL_SECONDS` (default 10),
 * which bounds how long a revoked or expired key can keep working on a warm
 * container. Unknown keys are cached too, for the same time and in a map of
 * the same bound: the checksum is public, so well-formed unknown keys are cheap
 * to mint, and each would otherwise cost a consistent read. A key created
 * after a lookup found it missing works after at most that bound.
 */
import { hashApiKey, parseApiKey } from "../domain/api-key.js";
import { type ApiKeyCredential, isUsable, LAST_USED_WRITE_INTERVAL_MS } from "../domain/api-key-record.js";
import { UnauthorizedError } from "../domain/errors.js";
import type { Principal } from "../domain/principal.js";
import { numberEnv } from "../runtime/env.js";
import { findCredential, recordKeyUse } from "../store/keys/api-key-store.js";
import { DEFAULT_ROLLUP_RETENTION_DAYS } from "../store/table/retention.js";
import { basicPassword, isBasic } from "./basic-credentials.js";
import { bearerToken } from "./bearer-token.js";

const cacheTtlMs = numberEnv("KEY_CACHE_TTL_SECONDS", 10) * 1000;
const CACHE_MAX_ENTRIES = 1000;

interface CachedCredential {
  readonly credential: ApiKeyCredential;
  readonly fetchedAt: number;
}

const cache = new Map<string, CachedCredential>();
/** Hashes of keys found missing, with when (insertion order = age, oldest dropped first). */
const unknownKeys = new Map<string, number>();

function remember<T>(map: Map<string, T>, key: string, value: T): void {
  map.delete(key);
  if (map.size >= CACHE_MAX_ENTRIES) {
    const oldest = map.keys().next().value;
    if (oldest !== undefined) map.delete(oldest);
  }
  map.set(key, value);
}
/** When this container last stamped `lastUsedAt` for each key id. */
const lastUseWrites = new Map<string, number>();

const MISSING = "Missing API key: send the header Authorization: Bearer <API key>";
const INVALID = "Invalid API key: the key is malformed, unknown, expired or revoked";
/** The header is there but not `Bearer <key>` (a bare key, `Basic …`): say how to send one. */
const API_KEY_NOT_BEARER =
  "Invalid API key header: send your API key as Authorization: Bearer <API key> (the word Bearer, a space, then the key, ats_live_… or ats_test_…)";

async function lookUp(keyHash: string, nowMs: number): Promise<ApiKeyCredential | undefined> {
  const cached = cache.get(keyHash);
  if (cached !== undefined && nowMs - cached.fetchedAt < cacheTtlMs) return cached.credential;
  const missingSince = unknownKeys.get(keyHash);
  if (missingSince !== undefined && nowMs - missingSince < cacheTtlMs) return undefined;
  const credential = await findCredential(keyHash);
  cache.delete(keyHash);
  unknownKeys.delete(keyHash);
  if (cacheTtlMs > 0) {
    if (credential === undefined) remember(unknownKeys, keyHash, nowMs);
    else remember(cache, keyHash, { credential, fetchedAt: nowMs });
  }
  return credential;
}

async function noteUse(credential: ApiKeyCredential, nowMs: number): Promise<void> {
  const last = lastUseWrites.get(credential.keyId);
  if (last !== undefined && nowMs - last < LAST_USED_WRITE_INTERVAL_MS) return;
  lastUseWrites.set(credential.keyId, nowMs);
  if (lastUseWrites.size > CACHE_MAX_ENTRIES) lastUseWrites.clear();
  await recordKeyUse(credential.orgId, credential.keyId, nowMs);
}

/** How a route takes its API key: as a bearer token, or also as the password of Basic credentials (Langfuse's exporter). */
export interface ApiKeySchemes {
  readonly basic?: boolean;
}

/** The API key of the header, by the schemes the route accepts (a 401 saying how to send one otherwise). */
function apiKeyToken(authorization: string | undefined, schemes: ApiKeySchemes): string {
  if (schemes.basic === true && authorization !== undefined && isBasic(authorization)) {
    return basicPassword(authorization);
  }
  return bearerToken(authorization, { missing: MISSING, notBearer: API_KEY_NOT_BEARER, invalid: INVALID });
}

export async function authenticateApiKey(
  authorization: string | undefined,
  nowMs = Date.now(),
  schemes: ApiKeySchemes = {},
): Promise<Principal> {
  try {
    return await authenticated(authorization, nowMs, schemes);
  } catch (error) {
    // A route that also takes Basic credentials says so in its refusal (its challenges name both schemes).
    if (schemes.basic !== true || !(error instanceof UnauthorizedError)) throw error;
    throw new UnauthorizedError(error.message, { cause: error, schemes: ["bearer", "basic"] });
  }
}

async function authenticated(authorization: string | undefined, nowMs: number, schemes: ApiKeySchemes) {
  const token = apiKeyToken(authorization, schemes);
  const environment = parseApiKey(token);
  if (environment === undefined) throw new UnauthorizedError(INVALID);
  const credential = await lookUp(hashApiKey(token), nowMs);
  if (credential === undefined || !isUsable(credential, nowMs) || credential.environment !== environment) {
    throw new UnauthorizedError(INVALID);
  }
  await noteUse(credential, nowMs);
  return {
    keyId: credential.keyId,
    orgId: credential.orgId,
    environment: credential.environment,
    scopes: credential.scopes,
    retentionDays: credential.retentionDays,
    rollupRetentionDays: credential.rollupRetentionDays ?? DEFAULT_ROLLUP_RETENTION_DAYS,
    rateLimitPerMinute: credential.rateLimitPerMinute,
    keyRateLimitPerMinute: credential.keyRateLimitPerMinute,
  };
}
