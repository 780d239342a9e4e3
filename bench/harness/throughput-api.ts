/**
 * What the throughput benches (sdk-throughput.ts, otel-throughput.ts) share: their positive-integer knobs,
 * and the local API in this process with an organisation whose rate limit never bounds the run and one of
 * its keys. The service modules are imported here, after bench-database.ts pointed them at DynamoDB Local.
 */

/** A positive integer from the environment variable `name`, else `fallback`. */
export function integerSetting(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === "") return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value <= 0) throw new Error(`${name} must be a positive integer, got "${raw}"`);
  return value;
}

export interface ThroughputApi {
  readonly url: string;
  /** A key of `orgId` in `live` with the default scopes. */
  readonly key: string;
  readonly close: () => Promise<void>;
}

export async function startThroughputApi(orgId: string, keyName: string): Promise<ThroughputApi> {
  const { routes } = await import("../../functions/routes.js");
  const { startLocalApi } = await import("../../local/http-adapter.js");
  const { REPOSITORY_ROOT } = await import("../../local/settings.js");
  const { ensureOrganisation, updateOrganisationSettings } = await import(
    "../../functions/store/members/organisation-store.js"
  );
  const { createApiKey } = await import("../../functions/store/keys/api-key-store.js");
  const { DEFAULT_SCOPES } = await import("../../functions/domain/scopes.js");

  await ensureOrganisation(orgId);
  // Keys copy the organisation's limit when created: raise it first, so 429s never bound the run.
  await updateOrganisationSettings(orgId, { rateLimitPerMinute: 1_000_000 });
  const key = (
    await createApiKey({ orgId, environment: "live", name: keyName, scopes: DEFAULT_SCOPES }, { name: "bench" })
  ).plaintext;
  const api = await startLocalApi({ routes, root: REPOSITORY_ROOT });
  if (new URL(api.url).hostname !== "127.0.0.1") {
    await api.close();
    throw new Error(`refusing a non-local API ${api.url}`);
  }
  return { url: api.url, key, close: () => api.close() };
}
