/** How a key is shown to signed-in users: never the secret, always its status. */
import { type ApiKeyRecord, keyStatus } from "../domain/api-key-record.js";

export function apiKeyView(record: ApiKeyRecord, nowMs = Date.now()) {
  return {
    id: record.keyId,
    name: record.name,
    hint: record.hint,
    environment: record.environment,
    scopes: record.scopes,
    createdAt: record.createdAt,
    createdBy: record.createdBy,
    lastUsedAt: record.lastUsedAt ?? null,
    expiresAt: record.expiresAt ?? null,
    revokedAt: record.revokedAt ?? null,
    rotatedFrom: record.rotatedFrom ?? null,
    rotatedTo: record.rotatedTo ?? null,
    status: keyStatus(record, nowMs),
  };
}

/** The one response that carries the plaintext key: creation (and rotation). */
export function createdKeyView(record: ApiKeyRecord, plaintext: string) {
  return {
    id: record.keyId,
    name: record.name,
    key: plaintext,
    hint: record.hint,
    environment: record.environment,
    scopes: record.scopes,
    createdAt: record.createdAt,
    createdBy: record.createdBy,
  };
}
