/**
 * Test fixtures on the run's DynamoDB Local: organisations with their own
 * keys (unique ids per call, so tests never depend on each other), the local
 * API over real HTTP, and raw table reads for asserting what was stored.
 */
import { randomUUID } from "node:crypto";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { GetCommand, QueryCommand, ScanCommand, UpdateCommand } from "@aws-sdk/lib-dynamodb";
import { inject } from "vitest";
import type { Environment } from "../../functions/domain/api-key.js";
import type { Role } from "../../functions/domain/membership.js";
import type { Scope } from "../../functions/domain/scopes.js";
import { routes } from "../../functions/routes.js";
import { createApiKey } from "../../functions/store/keys/api-key-store.js";
import { putMembership } from "../../functions/store/members/membership-store.js";
import { ensureOrganisation } from "../../functions/store/members/organisation-store.js";
import { documentClient, tableName } from "../../functions/store/table/dynamo-client.js";
import { sessionKey, tenant } from "../../functions/store/table/keys.js";
import { INDEXES } from "../../functions/store/table/table-definition.js";
import { type LocalApi, startLocalApi } from "../../local/http-adapter.js";
import { type LocalDeletionWorker, startLocalDeletionWorker } from "../../local/local-deletion-worker.js";
import { configureLocalIssuer, LocalIdentity } from "../../local/local-identity.js";
import { REPOSITORY_ROOT } from "../../local/settings.js";
import { auditResponses } from "./response-audit.js";
import { rememberSecretsIn } from "./secrets-ledger.js";

export interface TestKey {
  readonly orgId: string;
  readonly keyId: string;
  readonly key: string;
}

export function uniqueOrgId(): string {
  return `org-${randomUUID().slice(0, 12)}`;
}

export async function createTestKey(
  options: { orgId?: string; scopes?: readonly Scope[]; environment?: Environment } = {},
): Promise<TestKey> {
  const organisation = await ensureOrganisation(options.orgId ?? uniqueOrgId());
  const { record, plaintext } = await createApiKey(
    {
      orgId: organisation.orgId,
      environment: options.environment ?? "live",
      name: "test key",
      scopes: options.scopes ?? ["sessions:write", "events:write", "read"],
    },
    { name: "tests" },
  );
  rememberSecretsIn(plaintext);
  return { orgId: organisation.orgId, keyId: record.keyId, key: plaintext };
}

/**
 * Counts everything written to the table so far into sessions, rollups and summaries (what the stream
 * consumer does a moment after each write): asks the run's one stream consumer (test/support/shared-stream-consumer.ts)
 * to drain. Reads through {@link call} and {@link storedSession} settle first.
 */
export async function settleCounts(): Promise<void> {
  const response = await fetch(inject("streamDrainUrl"), { method: "POST" });
  if (response.status !== 204) throw new Error(`the stream consumer could not drain: ${await response.text()}`);
}

/** The in-process deletion worker of this test file (as `npm start` runs it). */
export let deletionWorker: LocalDeletionWorker | undefined;

/** The directory of the local issuer of the test run (its signing key and users.json). */
export const identityDirectory = mkdtempSync(join(tmpdir(), "ats-identity-"));

/** The local issuer of the test run (its signing key lives in a temporary directory). */
export const identity = LocalIdentity.open(identityDirectory);

/**
 * The local API over real HTTP, serving the local issuer's JWKS, with the
 * key-management handlers pointed at that issuer and the members routes at
 * its user directory (`LOCAL_IDENTITY_DIR`).
 */
export async function startTestApi(): Promise<LocalApi> {
  deletionWorker ??= await startLocalDeletionWorker();
  const api = await startLocalApi({
    routes,
    root: REPOSITORY_ROOT,
    documents: { "/.well-known/jwks.json": () => identity.jwks() },
  });
  const dynamodb = inject("dynamodbCredentials");
  auditResponses(api.server, [
    dynamodb.accessKeyId,
    dynamodb.secretAccessKey,
    inject("s3Environment").S3_SECRET_ACCESS_KEY ?? "",
  ]);
  configureLocalIssuer(api.url);
  process.env.LOCAL_IDENTITY_DIR = identityDirectory;
  return api;
}

export interface TestUser {
  readonly userId: string;
  readonly email: string;
  readonly orgId: string;
  readonly role: Role;
  /** An access token issued by the local issuer of `api`. */
  readonly token: string;
}

/** A signed-in user with a role in an organisation (created if needed). */
export async function createTestUser(api: LocalApi, options: { orgId?: string; role?: Role } = {}): Promise<TestUser> {
  const organisation = await ensureOrganisation(options.orgId ?? uniqueOrgId());
  const user = identity.ensureUser(`${randomUUID().slice(0, 8)}@example.com`);
  const role = options.role ?? "owner";
  await putMembership({ orgId: organisation.orgId, userId: user.userId, email: user.email, role });
  const token = identity.issueAccessToken(user, api.url);
  rememberSecretsIn(token);
  return { ...user, orgId: organisation.orgId, role, token };
}

export interface ApiResponse {
  readonly status: number;
  readonly headers: Headers;
  readonly body: Record<string, unknown>;
  readonly text: string;
}

export interface RequestOptions {
  /** An API key or an access token, sent as `Authorization: Bearer …`. */
  readonly key?: string;
  /** A value to send as JSON, or a raw string or bytes (e.g. a gzip body) sent as is. */
  readonly body?: unknown;
  readonly headers?: Record<string, string>;
  /** A GET first waits for the stream consumer to count every earlier write (default); false sends at once. */
  readonly settle?: boolean;
}

export async function call(
  api: LocalApi,
  method: string,
  path: string,
  options: RequestOptions = {},
): Promise<ApiResponse> {
  // Reads see what the stream consumer has counted of every write before them.
  if (method === "GET" && options.settle !== false) await settleCounts();
  const headers: Record<string, string> = { "content-type": "application/json", ...options.headers };
  if (options.key !== undefined) headers.authorization = `Bearer ${options.key}`;
  const body =
    options.body === undefined
      ? undefined
      : typeof options.body === "string" || options.body instanceof Uint8Array
        ? options.body
        : JSON.stringify(options.body);
  const response = await fetch(`${api.url}${path}`, { method, headers, ...(body === undefined ? {} : { body }) });
  const text = await response.text();
  rememberSecretsIn(text);
  let parsed: Record<string, unknown> = {};
  try {
    parsed = JSON.parse(text) as Record<string, unknown>;
  } catch {
    // Left empty: the assertion on `text` or the JSON content type will say what went wrong.
  }
  return { status: response.status, headers: response.headers, body: parsed, text };
}

/** Every event of a session through the read API, following cursors, with each page's size in bytes. */
export async function readAllEvents(
  api: LocalApi,
  key: string,
  sessionId: string,
): Promise<{ events: Record<string, unknown>[]; pageBytes: number[] }> {
  const events: Record<string, unknown>[] = [];
  const pageBytes: number[] = [];
  let cursor: string | null = null;
  do {
    const query: string = cursor === null ? "" : `?cursor=${encodeURIComponent(cursor)}`;
    const response = await call(api, "GET", `/api/sdk/sessions/${sessionId}/events${query}`, { key });
    if (response.status !== 200) throw new Error(`Reading events answered ${response.status}: ${response.text}`);
    events.push(...(response.body.items as Record<string, unknown>[]));
    pageBytes.push(Buffer.byteLength(response.text));
    cursor = response.body.nextCursor as string | null;
  } while (cursor !== null);
  return { events, pageBytes };
}

export async function createTestSession(
  api: LocalApi,
  key: string,
  overrides: Record<string, unknown> = {},
): Promise<string> {
  const response = await call(api, "POST", "/api/sdk/sessions", {
    key,
    body: { name: "test run", agentName: "test-agent", userId: "user-1", ...overrides },
  });
  if (response.status !== 201) throw new Error(`session not created: ${response.status} ${response.text}`);
  return String(response.body.id);
}

/** The session item exactly as stored (strongly consistent). */
export async function storedSession(sessionId: string): Promise<Record<string, unknown> | undefined> {
  await settleCounts();
  const result = await documentClient.send(
    new GetCommand({ TableName: tableName, Key: sessionKey(sessionId), ConsistentRead: true }),
  );
  return result.Item;
}

/**
 * Makes a counted, ended session undeletable: its stored duration no longer a number, so taking it out of its
 * rollups cannot be computed and every try of its deletion fails (an erasure job's stuck session).
 */
export async function storeUncountableDuration(sessionId: string): Promise<void> {
  await documentClient.send(
    new UpdateCommand({
      TableName: tableName,
      Key: sessionKey(sessionId),
      UpdateExpression: "SET durationMs = :text",
      ExpressionAttributeValues: { ":text": "not a number" },
    }),
  );
}

/** Every event item stored in a session's partition. */
export async function storedEvents(sessionId: string): Promise<Record<string, unknown>[]> {
  const result = await documentClient.send(
    new QueryCommand({
      TableName: tableName,
      KeyConditionExpression: "PK = :pk AND begins_with(SK, :events)",
      ExpressionAttributeValues: { ":pk": sessionKey(sessionId).PK, ":events": "EVENT#" },
      ConsistentRead: true,
    }),
  );
  return result.Items ?? [];
}

/** Every item of the table, or those of one organisation (test-only: the service itself never scans). */
export async function scanTable(orgId?: string): Promise<Record<string, unknown>[]> {
  const items: Record<string, unknown>[] = [];
  // One organisation's items are filtered by DynamoDB Local itself: the suite's shared table holds tens of MB by
  // its end (large payloads, log records), and shipping all of it to each caller made every such read slower the
  // later its file ran (a file of 23 s alone took 173 s in a full run).
  const filter =
    orgId === undefined ? {} : { FilterExpression: "orgId = :orgId", ExpressionAttributeValues: { ":orgId": orgId } };
  let startKey: Record<string, unknown> | undefined;
  do {
    const page = await documentClient.send(
      new ScanCommand({ TableName: tableName, ExclusiveStartKey: startKey, ...filter }),
    );
    items.push(...(page.Items ?? []));
    startKey = page.LastEvaluatedKey;
  } while (startKey !== undefined);
  return items;
}

/**
 * Every item of the given sessions' partitions (each session, its events and its scores), once the stream consumer
 * has counted everything: read by key, so its cost does not grow with the shared table as a scan's does. For a
 * recount over sessions a test created itself.
 */
export async function itemsOfSessions(sessionIds: readonly string[]): Promise<Record<string, unknown>[]> {
  await settleCounts();
  const partitions = await Promise.all(
    sessionIds.map(async (sessionId) => {
      const items: Record<string, unknown>[] = [];
      let startKey: Record<string, unknown> | undefined;
      do {
        const page = await documentClient.send(
          new QueryCommand({
            TableName: tableName,
            KeyConditionExpression: "PK = :pk",
            ExpressionAttributeValues: { ":pk": sessionKey(sessionId).PK },
            ExclusiveStartKey: startKey,
            ConsistentRead: true,
          }),
        );
        items.push(...(page.Items ?? []));
        startKey = page.LastEvaluatedKey;
      } while (startKey !== undefined);
      return items;
    }),
  );
  return partitions.flat();
}

/**
 * How many sessions the tenant has, from its sessions index (GSI1 `<tenant>#SESSIONS`, keys only): a read by key,
 * whose cost does not grow with the shared table, for "a refused export created no session".
 */
export async function tenantSessionCount(orgId: string, environment: Environment = "live"): Promise<number> {
  let count = 0;
  let startKey: Record<string, unknown> | undefined;
  do {
    const page = await documentClient.send(
      new QueryCommand({
        TableName: tableName,
        IndexName: INDEXES.tenantSessions.indexName,
        KeyConditionExpression: "#pk = :pk",
        ExpressionAttributeNames: { "#pk": INDEXES.tenantSessions.partitionKey },
        ExpressionAttributeValues: { ":pk": `${tenant(orgId, environment)}#SESSIONS` },
        Select: "COUNT",
        ExclusiveStartKey: startKey,
      }),
    );
    count += page.Count ?? 0;
    startKey = page.LastEvaluatedKey;
  } while (startKey !== undefined);
  return count;
}

/**
 * Items of the table that belong to one organisation: its data, as a request may change it. Settled first: the
 * stream consumer would otherwise change the session items between two snapshots. Without the export's change
 * markers: its stream reader puts one per unit and minute a batch touched, so the echo of the counting consumer's own
 * write of a session marks the unit again in a later minute, whenever that batch comes (as rate-limit windows and
 * idempotency records, left out of http-fuzz's snapshots, they are bookkeeping, not what a request changed).
 */
export async function itemsOfOrganisation(orgId: string): Promise<Record<string, unknown>[]> {
  await settleCounts();
  return (await scanTable(orgId)).filter((item) => item.entity !== "exportChange");
}
