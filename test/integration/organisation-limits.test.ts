/**
 * Issue 11, defects 7, 8 and 9(a): the organisation's rate limit holds across all its keys (it was per
 * key: three keys tripled it), an organisation holds at most LIMITS.activeKeysPerOrganisation active
 * keys, unknown keys are cached (each cost a consistent read), and settings reach every key (the update
 * did not page).
 */

import { DeleteCommand, GetCommand, PutCommand, UpdateCommand } from "@aws-sdk/lib-dynamodb";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { authenticateApiKey } from "../../functions/auth/api-key-authenticator.js";
import { generateApiKey, hashApiKey } from "../../functions/domain/api-key.js";
import { LIMITS } from "../../functions/domain/limits.js";
import { ensureOrganisation, updateOrganisationSettings } from "../../functions/store/members/organisation-store.js";
import { documentClient, tableName } from "../../functions/store/table/dynamo-client.js";
import { apiKeyCredentialKey, apiKeyRecordKey, organisationKey } from "../../functions/store/table/keys.js";
import type { LocalApi } from "../../local/http-adapter.js";
import { recordDynamoCommands } from "../support/dynamo-call-counter.js";
import {
  type ApiResponse,
  call,
  createTestKey,
  createTestUser,
  startTestApi,
  type TestKey,
  uniqueOrgId,
} from "../support/fixtures.js";

const CACHE_TTL_MS = Number(process.env.KEY_CACHE_TTL_SECONDS) * 1000;

let api: LocalApi;

beforeAll(async () => {
  api = await startTestApi();
});
afterAll(() => api.close());

/** Waits for a fresh one-minute window when fewer than 15 s of the current one are left. */
async function withinOneWindow(): Promise<void> {
  const intoMinute = Date.now() % 60_000;
  if (intoMinute > 45_000) await new Promise((resolve) => setTimeout(resolve, 60_000 - intoMinute + 100));
}

const createSession = (key: TestKey): Promise<ApiResponse> =>
  call(api, "POST", "/api/sdk/sessions", { key: key.key, body: { name: "n", agentName: "a", userId: "u" } });

describe("rate limits per organisation and per key", () => {
  it("three keys of one organisation share its limit: the seventh request of the minute is 429", async () => {
    const orgId = uniqueOrgId();
    await ensureOrganisation(orgId);
    await updateOrganisationSettings(orgId, { rateLimitPerMinute: 6 });
    const keys = [await createTestKey({ orgId }), await createTestKey({ orgId }), await createTestKey({ orgId })];
    await withinOneWindow();

    const statuses: number[] = [];
    let refused: ApiResponse | undefined;
    for (let round = 0; round < 3; round++) {
      for (const key of keys) {
        const response = await createSession(key);
        statuses.push(response.status);
        if (response.status === 429) refused = response;
      }
    }

    expect(statuses).toEqual([201, 201, 201, 201, 201, 201, 429, 429, 429]);
    expect(refused?.body).toEqual({
      error: "Too Many Requests",
      message: expect.stringMatching(
        /^Rate limit of 6 requests per minute for this organisation reached; retry in \d+ s$/,
      ),
    });
    expect(refused?.headers.get("ratelimit-limit")).toBe("6");
    expect(refused?.headers.get("ratelimit-remaining")).toBe("0");
  });

  it("a lower per-key limit refuses one key while the organisation's other keys go on", async () => {
    const orgId = uniqueOrgId();
    await ensureOrganisation(orgId);
    await updateOrganisationSettings(orgId, { rateLimitPerMinute: 100, keyRateLimitPerMinute: 3 });
    const busy = await createTestKey({ orgId });
    const quiet = await createTestKey({ orgId });
    await withinOneWindow();

    const busyStatuses: number[] = [];
    let refused: ApiResponse | undefined;
    for (let attempt = 0; attempt < 4; attempt++) {
      const response = await createSession(busy);
      busyStatuses.push(response.status);
      if (response.status === 429) refused = response;
    }
    const other = await createSession(quiet);

    expect(busyStatuses).toEqual([201, 201, 201, 429]);
    expect(refused?.body.message).toMatch(
      /^Rate limit of 3 requests per minute for this API key reached; retry in \d+ s$/,
    );
    expect(other.status).toBe(201);
    expect(other.headers.get("ratelimit-limit")).toBe("3");
  });
});

describe("active keys per organisation", () => {
  it(`the key past ${LIMITS.activeKeysPerOrganisation} active ones is 409; revoking one frees a slot; rotating needs none`, async () => {
    const owner = await createTestUser(api, { role: "owner" });
    for (let index = 0; index < LIMITS.activeKeysPerOrganisation; index++) await createTestKey({ orgId: owner.orgId });

    const refused = await call(api, "POST", "/api/keys", { key: owner.token, body: { name: "one too many" } });
    const listed = await call(api, "GET", "/api/keys", { key: owner.token });
    const [first, second] = listed.body.items as { id: string }[];
    const rotated = await call(api, "POST", `/api/keys/${first?.id}/rotate`, { key: owner.token, body: {} });
    const revoked = await call(api, "DELETE", `/api/keys/${second?.id}`, { key: owner.token });
    const created = await call(api, "POST", "/api/keys", { key: owner.token, body: { name: "in a freed slot" } });
    const refusedAgain = await call(api, "POST", "/api/keys", { key: owner.token, body: { name: "full again" } });
    // The key replaced by the rotation stopped counting then: revoking it frees nothing.
    const revokedRotated = await call(api, "DELETE", `/api/keys/${first?.id}`, { key: owner.token });
    const stillFull = await call(api, "POST", "/api/keys", { key: owner.token, body: { name: "still full" } });

    expect(refused.status).toBe(409);
    expect(refused.body).toEqual({
      error: "Conflict",
      message: `Organisation ${owner.orgId} has ${LIMITS.activeKeysPerOrganisation} active API keys, the most allowed; revoke one before creating another`,
    });
    expect((listed.body.items as unknown[]).length).toBe(LIMITS.activeKeysPerOrganisation);
    expect(rotated.status).toBe(201);
    expect(revoked.status).toBe(204);
    expect(created.status).toBe(201);
    expect(refusedAgain.status).toBe(409);
    expect(revokedRotated.status).toBe(204);
    expect(stillFull.status).toBe(409);
  });
});

describe("active keys of organisations older than the count", () => {
  it("are counted from their records on the first creation or revocation", async () => {
    // Prepare: a full organisation whose item has no count, as before the cap existed.
    const owner = await createTestUser(api, { role: "owner" });
    const keys: TestKey[] = [];
    for (let index = 0; index < LIMITS.activeKeysPerOrganisation; index++) {
      keys.push(await createTestKey({ orgId: owner.orgId }));
    }
    await documentClient.send(
      new UpdateCommand({
        TableName: tableName,
        Key: organisationKey(owner.orgId),
        UpdateExpression: "REMOVE activeKeyCount",
      }),
    );

    // Act: revoke one key, then create two.
    const revoked = await call(api, "DELETE", `/api/keys/${keys[0]?.keyId}`, { key: owner.token });
    const created = await call(api, "POST", "/api/keys", { key: owner.token, body: { name: "in the freed slot" } });
    const refused = await call(api, "POST", "/api/keys", { key: owner.token, body: { name: "one too many" } });

    // Assess
    expect(revoked.status).toBe(204);
    expect(created.status).toBe(201);
    expect(refused.status).toBe(409);
    expect(refused.body.message).toBe(
      `Organisation ${owner.orgId} has ${LIMITS.activeKeysPerOrganisation} active API keys, the most allowed; revoke one before creating another`,
    );
  });
});

describe("unknown keys", () => {
  it("are looked up once per cache period, not once per request", async () => {
    const counter = recordDynamoCommands();
    const unknown = generateApiKey("live").plaintext;
    const t0 = Date.now();
    counter.reset();

    for (let attempt = 0; attempt < 20; attempt++) {
      await expect(authenticateApiKey(`Bearer ${unknown}`, t0 + attempt)).rejects.toThrow("Invalid API key");
    }
    const reads = counter.commands().filter((command) => command === "GetItemCommand").length;
    await expect(authenticateApiKey(`Bearer ${unknown}`, t0 + CACHE_TTL_MS)).rejects.toThrow("Invalid API key");
    const readsAfterBound = counter.commands().filter((command) => command === "GetItemCommand").length;

    expect(reads).toBe(1);
    expect(readsAfterBound).toBe(2);
  });

  it("that start to exist after a lookup found them missing work once the cache period has passed", async () => {
    // Prepare: a real key whose credential is taken away, looked up (and found missing), then put back,
    // as if the key had been created just after someone presented it.
    const { orgId, key } = await createTestKey();
    const credentialKey = apiKeyCredentialKey(hashApiKey(key));
    const stored = await documentClient.send(new GetCommand({ TableName: tableName, Key: credentialKey }));
    await documentClient.send(new DeleteCommand({ TableName: tableName, Key: credentialKey }));
    const t0 = Date.now();
    await expect(authenticateApiKey(`Bearer ${key}`, t0)).rejects.toThrow("Invalid API key");
    await documentClient.send(new PutCommand({ TableName: tableName, Item: stored.Item }));

    // Act and assess: still refused from the cache within the period, accepted once it has passed.
    await expect(authenticateApiKey(`Bearer ${key}`, t0 + CACHE_TTL_MS - 1)).rejects.toThrow("Invalid API key");
    const principal = await authenticateApiKey(`Bearer ${key}`, t0 + CACHE_TTL_MS);
    expect(principal.orgId).toBe(orgId);
  });

  it("keep at most a bounded number of entries (the oldest are dropped first)", async () => {
    const counter = recordDynamoCommands();
    const t0 = Date.now();
    const first = generateApiKey("live").plaintext;
    await expect(authenticateApiKey(`Bearer ${first}`, t0)).rejects.toThrow("Invalid API key");
    for (let index = 0; index < 1_000; index++) {
      await expect(authenticateApiKey(`Bearer ${generateApiKey("live").plaintext}`, t0)).rejects.toThrow();
    }
    counter.reset();

    await expect(authenticateApiKey(`Bearer ${first}`, t0)).rejects.toThrow("Invalid API key");

    expect(counter.commands().filter((command) => command === "GetItemCommand")).toHaveLength(1);
  });
});

describe("organisation settings", () => {
  it("reach every key's credential, past DynamoDB's 1 MB query page", async () => {
    // Prepare: 25 keys whose records are padded to 45 KB each, so the organisation's keys span two pages.
    const orgId = uniqueOrgId();
    await ensureOrganisation(orgId);
    const keys: TestKey[] = [];
    for (let index = 0; index < 25; index++) keys.push(await createTestKey({ orgId }));
    for (const key of keys) {
      await documentClient.send(
        new UpdateCommand({
          TableName: tableName,
          Key: apiKeyRecordKey(orgId, key.keyId),
          UpdateExpression: "SET padding = :padding",
          ExpressionAttributeValues: { ":padding": "p".repeat(45_000) },
        }),
      );
    }

    // Act
    await updateOrganisationSettings(orgId, { retentionDays: 12 });

    // Assess: every key, the last ones included, carries the new retention.
    for (const key of keys) {
      const principal = await authenticateApiKey(`Bearer ${key.key}`, Date.now() + 10 * CACHE_TTL_MS);
      expect(principal.retentionDays).toBe(12);
    }
  });
});
