/** Bearer API-key authentication (spec section 5): 401s, 403 for a missing scope, revocation, key storage. */
import { createHash } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { generateApiKey } from "../../functions/domain/api-key.js";
import { revokeApiKey } from "../../functions/store/keys/api-key-store.js";
import type { LocalApi } from "../../local/http-adapter.js";
import {
  call,
  createTestKey,
  createTestSession,
  createTestUser,
  itemsOfOrganisation,
  scanTable,
  startTestApi,
} from "../support/fixtures.js";

const MISSING = { error: "Unauthorized", message: "Missing API key: send the header Authorization: Bearer <API key>" };
const INVALID = {
  error: "Unauthorized",
  message: "Invalid API key: the key is malformed, unknown, expired or revoked",
};
const KEY_NOT_BEARER = {
  error: "Unauthorized",
  message:
    "Invalid API key header: send your API key as Authorization: Bearer <API key> (the word Bearer, a space, then the key, ats_live_… or ats_test_…)",
};
const validSession = { name: "n", agentName: "a", userId: "u" };

let api: LocalApi;

beforeAll(async () => {
  api = await startTestApi();
});
afterAll(() => api.close());

describe("API key authentication", () => {
  it("answers a request without a key with 401 and a WWW-Authenticate challenge", async () => {
    const response = await call(api, "POST", "/api/sdk/sessions", { body: validSession });
    expect(response.status).toBe(401);
    expect(response.body).toEqual(MISSING);
    expect(response.headers.get("www-authenticate")).toBe("Bearer");
  });

  it.each([
    [
      "a key with one character changed (checksum)",
      (key: string) => `Bearer ${key.slice(0, 20)}${key[20] === "a" ? "b" : "a"}${key.slice(21)}`,
    ],
    ["a truncated key", (key: string) => `Bearer ${key.slice(0, -1)}`],
    ["a foreign prefix", (key: string) => `Bearer sk_live_${key.slice(9)}`],
    ["a well-formed key that was never issued", () => `Bearer ${generateApiKey("live").plaintext}`],
  ])("refuses %s with 401", async (_label, header) => {
    const { key } = await createTestKey();
    const response = await call(api, "POST", "/api/sdk/sessions", {
      body: validSession,
      headers: { authorization: header(key) },
    });
    expect(response.status).toBe(401);
    expect(response.body).toEqual(INVALID);
  });

  it.each([
    ["a bare key (no Bearer)", (key: string) => key],
    ["a key with the Basic scheme", (key: string) => `Basic ${key}`],
    ["a key with the Token scheme", (key: string) => `Token ${key}`],
    ["a key after a colon-less Bearer", (key: string) => `Bearer:${key}`],
  ])("refuses %s with 401 saying how to send an API key", async (_label, header) => {
    const { key } = await createTestKey();
    const response = await call(api, "POST", "/api/sdk/sessions", {
      body: validSession,
      headers: { authorization: header(key) },
    });
    expect(response.status).toBe(401);
    expect(response.body).toEqual(KEY_NOT_BEARER);
  });

  it("checks the key before the body: a bad body without a key is 401, not 400", async () => {
    const response = await call(api, "POST", "/api/sdk/events", { body: "{not json" });
    expect(response.status).toBe(401);
    expect(response.body).toEqual(MISSING);
  });

  it.each([
    ["POST", "/api/sdk/sessions"],
    ["PATCH", "/api/sdk/sessions/ses_01JAAAAAAAAAAAAAAAAAAAAAAA"],
    ["POST", "/api/sdk/events"],
  ])("protects %s %s", async (method, path) => {
    const response = await call(api, method, path, { body: {} });
    expect(response.status).toBe(401);
  });

  it("refuses a revoked key with 401 once the key cache bound has passed, and stores nothing", async () => {
    const owner = await createTestKey();
    expect((await call(api, "POST", "/api/sdk/sessions", { key: owner.key, body: validSession })).status).toBe(201);
    await revokeApiKey(owner.orgId, owner.keyId, { name: "tests" });
    await new Promise((resolve) => setTimeout(resolve, 1_100)); // KEY_CACHE_TTL_SECONDS=1 in tests
    const before = await itemsOfOrganisation(owner.orgId);

    const response = await call(api, "POST", "/api/sdk/sessions", { key: owner.key, body: validSession });

    expect(response.status).toBe(401);
    expect(response.body).toEqual(INVALID);
    expect((await itemsOfOrganisation(owner.orgId)).length).toBe(before.length);
  });

  it("answers a key without the route's scope with 403 naming the scope, and writes nothing", async () => {
    const owner = await createTestKey();
    const sessionId = await createTestSession(api, owner.key);
    const sessionsOnly = await createTestKey({ orgId: owner.orgId, scopes: ["sessions:write"] });

    const response = await call(api, "POST", "/api/sdk/events", {
      key: sessionsOnly.key,
      body: { sessionId, eventType: "error" },
    });

    expect(response.status).toBe(403);
    expect(response.body).toEqual({
      error: "Forbidden",
      message: 'This API key has no access to this resource: it lacks the "events:write" scope',
    });
    expect((await itemsOfOrganisation(owner.orgId)).filter((item) => item.entity === "event")).toHaveLength(0);
  });

  it("stores only a SHA-256 hash of each key, never the key", async () => {
    const owner = await createTestKey();

    const items = await scanTable();

    const serialized = JSON.stringify(items);
    expect(serialized).not.toContain(owner.key);
    expect(serialized).not.toContain(owner.key.slice(9, 41));
    const credential = items.find((item) => item.entity === "apiKeyCredential" && item.keyId === owner.keyId);
    expect(credential?.PK).toBe(`APIKEY#${createHash("sha256").update(owner.key).digest("hex")}`);
  });
});

describe("a credential sent without the Bearer scheme: the 401 says how to send it, on each kind of route", () => {
  const API_KEY_HERE = "API keys are not accepted here: sign in and send your access token";
  const TOKEN_NOT_BEARER = "Invalid Authorization header: sign in and send Authorization: Bearer <access token>";
  const EITHER_NOT_BEARER =
    "Invalid Authorization header: send Authorization: Bearer <API key>, or Bearer <access token> with X-Organization-Id";
  const sent: Record<string, (secrets: { key: string; token: string }) => string> = {
    "a bare API key": ({ key }) => key,
    "an API key with Basic": ({ key }) => `Basic ${key}`,
    "a bare access token": ({ token }) => token,
    "an access token with Basic": ({ token }) => `Basic ${token}`,
    "Basic credentials": () => "Basic dXNlcjpwYXNz",
  };
  const expected: readonly (readonly [string, string, string, keyof typeof sent, string])[] = [
    ["apiKey", "POST", "/api/sdk/sessions", "a bare API key", KEY_NOT_BEARER.message],
    ["apiKey", "POST", "/api/sdk/sessions", "an API key with Basic", KEY_NOT_BEARER.message],
    ["apiKey", "POST", "/api/sdk/sessions", "a bare access token", KEY_NOT_BEARER.message],
    ["apiKey", "POST", "/api/sdk/sessions", "Basic credentials", KEY_NOT_BEARER.message],
    ["apiKeyOrUser", "GET", "/api/sdk/sessions", "a bare API key", KEY_NOT_BEARER.message],
    ["apiKeyOrUser", "GET", "/api/sdk/sessions", "an API key with Basic", KEY_NOT_BEARER.message],
    ["apiKeyOrUser", "GET", "/api/sdk/sessions", "a bare access token", EITHER_NOT_BEARER],
    ["apiKeyOrUser", "GET", "/api/sdk/sessions", "an access token with Basic", EITHER_NOT_BEARER],
    ["apiKeyOrUser", "GET", "/api/sdk/sessions", "Basic credentials", EITHER_NOT_BEARER],
    ["user", "GET", "/api/keys", "a bare API key", API_KEY_HERE],
    ["user", "GET", "/api/keys", "an API key with Basic", API_KEY_HERE],
    ["user", "GET", "/api/keys", "a bare access token", TOKEN_NOT_BEARER],
    ["user", "GET", "/api/keys", "Basic credentials", TOKEN_NOT_BEARER],
    ["signedIn", "GET", "/api/me", "a bare API key", API_KEY_HERE],
    ["signedIn", "GET", "/api/me", "an API key with Basic", API_KEY_HERE],
    ["signedIn", "GET", "/api/me", "a bare access token", TOKEN_NOT_BEARER],
    ["signedIn", "GET", "/api/me", "Basic credentials", TOKEN_NOT_BEARER],
  ];

  it.each(expected)("%s route %s %s, %s → 401 “%s”", async (_kind, method, path, credential, message) => {
    const { key, orgId } = await createTestKey({ scopes: ["sessions:write", "read"] });
    const { token } = await createTestUser(api, { orgId, role: "owner" });
    const authorization = sent[credential]?.({ key, token }) ?? "";

    const response = await call(api, method, path, {
      ...(method === "POST" ? { body: validSession } : {}),
      headers: { authorization, "x-organization-id": orgId },
    });

    expect(response.status).toBe(401);
    expect(response.body).toEqual({ error: "Unauthorized", message });
    expect(response.headers.get("www-authenticate")).toBe("Bearer");
  });
});
