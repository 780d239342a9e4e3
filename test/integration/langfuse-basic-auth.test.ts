/**
 * Basic authentication on Langfuse's trace path (`POST /api/public/otel/v1/traces`), against the local stack:
 * an API key as the password is accepted there and nowhere else; malformed credentials, a revoked key, a key
 * of no known environment and Basic on any other route are JSON 401s that store nothing and echo no key.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BASIC_INVALID } from "../../functions/auth/basic-credentials.js";
import { revokeApiKey } from "../../functions/store/keys/api-key-store.js";
import type { LocalApi } from "../../local/http-adapter.js";
import { call, createTestKey, startTestApi, type TestKey, tenantSessionCount } from "../support/fixtures.js";

const LANGFUSE_PATH = "/api/public/otel/v1/traces";
const INVALID = {
  error: "Unauthorized",
  message: "Invalid API key: the key is malformed, unknown, expired or revoked",
};
const KEY_NOT_BEARER = {
  error: "Unauthorized",
  message:
    "Invalid API key header: send your API key as Authorization: Bearer <API key> (the word Bearer, a space, then the key, ats_live_… or ats_test_…)",
};

let api: LocalApi;
let owner: TestKey;
beforeAll(async () => {
  [api, owner] = await Promise.all([startTestApi(), createTestKey()]);
});
afterAll(async () => {
  await api.close();
});

const basic = (credentials: string) => `Basic ${Buffer.from(credentials, "utf8").toString("base64")}`;
const now = () => `${Date.now()}000000`;

/** One finished root span: an OTLP JSON export of one trace. */
function oneSpan(name: string) {
  const traceId = Buffer.from(crypto.getRandomValues(new Uint8Array(16))).toString("hex");
  return {
    resourceSpans: [
      {
        scopeSpans: [
          {
            scope: { name: "langfuse-sdk" },
            spans: [
              {
                traceId,
                spanId: "1111111111111111",
                name,
                kind: 1,
                startTimeUnixNano: now(),
                endTimeUnixNano: now(),
                attributes: [{ key: "langfuse.observation.type", value: { stringValue: "agent" } }],
              },
            ],
          },
        ],
      },
    ],
  };
}

function post(path: string, authorization: string | undefined, body: unknown = oneSpan("agent")) {
  return call(api, "POST", path, { body, headers: authorization === undefined ? {} : { authorization } });
}

describe("Basic authentication on Langfuse's trace path", () => {
  it("takes an API key as the password, whatever the user name; Bearer too", async () => {
    for (const authorization of [basic(`pk-lf-anything:${owner.key}`), basic(`:${owner.key}`), `Bearer ${owner.key}`]) {
      const response = await post(LANGFUSE_PATH, authorization);
      expect(response.status, response.text).toBe(200);
      expect(response.body).toEqual({});
    }
  });

  it.each([
    ["malformed base64", "Basic %%%"],
    ["no colon", basic("ats_live_no_colon_here")],
    ["an empty password", basic("pk-lf-1234:")],
    ["nothing after Basic", "Basic"],
  ])("answers %s with a JSON 401 and stores nothing", async (_case, header) => {
    const before = await tenantSessionCount(owner.orgId);
    const response = await post(LANGFUSE_PATH, header);
    expect(response.status).toBe(401);
    expect(response.headers.get("content-type")).toContain("application/json");
    expect(response.body).toEqual({ error: "Unauthorized", message: BASIC_INVALID });
    // Both ways of sending the key are offered, the way RFC 9110 lists challenges.
    expect(response.headers.get("www-authenticate")).toBe('Bearer, Basic realm="ats", charset="UTF-8"');
    // A refused export creates no session in the key's tenant (nor anywhere: its credential names none).
    expect(await tenantSessionCount(owner.orgId)).toBe(before);
  });

  it("answers an unknown key, a key with its environment changed, and a revoked key with 401, echoing none", async () => {
    const other = await createTestKey({ environment: "test" });
    const retagged = other.key.replace(/^ats_test_/, "ats_live_");
    const unknown = `${owner.key.slice(0, -4)}AAAA`;
    for (const key of [retagged, unknown]) {
      const response = await post(LANGFUSE_PATH, basic(`pk:${key}`));
      expect(response.status).toBe(401);
      expect(response.body).toEqual(INVALID);
      expect(response.text).not.toContain(key);
      expect(response.headers.get("www-authenticate")).toBe('Bearer, Basic realm="ats", charset="UTF-8"');
    }
    const revoked = await createTestKey();
    expect((await post(LANGFUSE_PATH, basic(`pk:${revoked.key}`))).status).toBe(200);
    await revokeApiKey(revoked.orgId, revoked.keyId, { name: "tests" });
    await new Promise((resolve) => setTimeout(resolve, 1_100)); // KEY_CACHE_TTL_SECONDS=1 in tests
    const response = await post(LANGFUSE_PATH, basic(`pk:${revoked.key}`));
    expect(response.status).toBe(401);
    expect(response.body).toEqual(INVALID);
  });

  it("a key of another environment lands in its own environment's tenant", async () => {
    const testKey = await createTestKey({ orgId: owner.orgId, environment: "test" });
    const response = await post(LANGFUSE_PATH, basic(`pk:${testKey.key}`), oneSpan("test-env-agent"));
    expect(response.status).toBe(200);
    const live = await call(api, "GET", "/api/sdk/sessions?agentName=test-env-agent", { key: owner.key });
    const test = await call(api, "GET", "/api/sdk/sessions?agentName=test-env-agent", { key: testKey.key });
    expect([live.body.items, (test.body.items as unknown[]).length]).toEqual([[], 1]);
  });

  it.each([
    ["POST", "/api/otel/v1/traces"],
    ["POST", "/api/otel/v1/logs"],
    ["POST", "/api/sdk/events"],
    ["GET", "/api/sdk/sessions"],
  ])("refuses Basic credentials on %s %s (Bearer only there)", async (method, path) => {
    const response = await call(api, method, path, {
      ...(method === "GET" ? {} : { body: oneSpan("x") }),
      headers: { authorization: basic(`pk:${owner.key}`) },
    });
    expect(response.status).toBe(401);
    expect(response.body).toMatchObject({ error: "Unauthorized" });
    expect(response.text).not.toContain(owner.key);
    expect(response.headers.get("www-authenticate")).toBe("Bearer");
    if (method === "POST") expect(response.body).toEqual(KEY_NOT_BEARER);
  });
});
