/**
 * The development organisation of `npm start`, and its API key. The key is
 * created (and shown) once; later starts reuse the key saved in local.json
 * for as long as it still authenticates.
 */
import type { ApiKeyRecord } from "../functions/domain/api-key-record.js";

export const DEV_ORGANISATION = "dev";

export interface DevKey {
  readonly apiKey: string;
  /** True when the key was created by this start (and must be shown). */
  readonly created: boolean;
}

/** Needs the service environment configured (see local-database.ts). */
export async function ensureDevKey(savedKey: string | undefined): Promise<DevKey> {
  const { hashApiKey, parseApiKey } = await import("../functions/domain/api-key.js");
  const { isUsable } = await import("../functions/domain/api-key-record.js");
  const { createApiKey, findApiKeyByHash } = await import("../functions/store/api-key-store.js");
  const { ensureOrganisation } = await import("../functions/store/organisation-store.js");
  const { DEFAULT_SCOPES } = await import("../functions/domain/scopes.js");

  if (savedKey !== undefined && parseApiKey(savedKey) !== undefined) {
    const record: ApiKeyRecord | undefined = await findApiKeyByHash(hashApiKey(savedKey));
    if (record !== undefined && isUsable(record, Date.now())) return { apiKey: savedKey, created: false };
  }
  const organisation = await ensureOrganisation(DEV_ORGANISATION);
  const { plaintext } = await createApiKey({
    orgId: organisation.orgId,
    environment: "live",
    name: "local development",
    scopes: DEFAULT_SCOPES,
    retentionDays: organisation.retentionDays,
    createdBy: "npm start",
  });
  return { apiKey: plaintext, created: true };
}
