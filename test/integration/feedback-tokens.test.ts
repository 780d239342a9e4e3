/**
 * End-user feedback (issue 33) over HTTP against DynamoDB Local: a backend mints a feedback token with its API
 * key, a browser posts a thumbs-down with it (CORS), the key reads it back. Every refusal — expired, altered, of
 * another deployment, a name the token does not allow, a body naming another session, an API key on the feedback
 * route, the token on every other route — is a clear 4xx with nothing stored.
 */
import { randomBytes } from "node:crypto";
import { QueryCommand } from "@aws-sdk/lib-dynamodb";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { feedbackTokenKey } from "../../functions/auth/feedback-token-key.js";
import { type FeedbackTokenClaims, signFeedbackToken } from "../../functions/domain/feedback-token.js";
import { routes } from "../../functions/routes.js";
import { documentClient, tableName } from "../../functions/store/table/dynamo-client.js";
import { sessionKey } from "../../functions/store/table/keys.js";
import type { LocalApi } from "../../local/http-adapter.js";
import {
  call,
  createTestKey,
  createTestSession,
  deletionWorker,
  itemsOfOrganisation,
  settleCounts,
  startTestApi,
  type TestKey,
} from "../support/fixtures.js";

let api: LocalApi;
let owner: TestKey;

const ALL_SCOPES = ["sessions:write", "events:write", "scores:write", "read", "delete"] as const;
const FEEDBACK = "/api/public/feedback";
const THUMBS_DOWN = { name: "thumbs", value: false, comment: "It refunded the wrong order" };

beforeAll(async () => {
  api = await startTestApi();
  owner = await createTestKey({ scopes: ALL_SCOPES });
});
afterAll(() => api.close());

async function partitionOf(sessionId: string): Promise<Record<string, unknown>[]> {
  const result = await documentClient.send(
    new QueryCommand({
      TableName: tableName,
      KeyConditionExpression: "PK = :pk",
      ExpressionAttributeValues: { ":pk": sessionKey(sessionId).PK },
      ConsistentRead: true,
    }),
  );
  return result.Items ?? [];
}

async function scoreItems(sessionId: string): Promise<Record<string, unknown>[]> {
  return (await partitionOf(sessionId)).filter((item) => String(item.SK).startsWith("SCORE#"));
}

async function mint(body: Record<string, unknown>, key = owner.key) {
  return call(api, "POST", "/api/sdk/feedback-tokens", { key, body });
}

async function mintedToken(body: Record<string, unknown>): Promise<string> {
  const response = await mint(body);
  if (response.status !== 201) throw new Error(`token not minted: ${response.status} ${response.text}`);
  return String(response.body.token);
}

async function firstEventOf(sessionId: string): Promise<string> {
  const response = await call(api, "POST", "/api/sdk/events", {
    key: owner.key,
    body: { sessionId, eventType: "tool_call" },
  });
  if (response.status !== 201) throw new Error(`event not created: ${response.text}`);
  return String(response.body.id);
}

/** Claims of a token for the owner's session, as the service would mint them (for hand-made tokens). */
function claimsFor(sessionId: string, overrides: Partial<FeedbackTokenClaims> = {}): FeedbackTokenClaims {
  return {
    tokenId: "fbt_01KAZ3XD3E4F5G6H7J8K9M0NP1",
    orgId: owner.orgId,
    environment: "live",
    sessionId,
    expiresAt: Math.floor(Date.now() / 1000) + 600,
    retentionDays: 30,
    ...overrides,
  };
}

describe("a user posts thumbs-down through a feedback token", () => {
  it("mints a token, posts the score with it from a browser, and the key reads it back", async () => {
    // Prepare
    const sessionId = await createTestSession(api, owner.key, { agentName: "support-bot" });
    const minted = await mint({ sessionId, expiresInSeconds: 900 });
    const token = String(minted.body.token);

    // Act
    const posted = await call(api, "POST", FEEDBACK, {
      key: token,
      headers: { origin: "https://shop.example" },
      body: THUMBS_DOWN,
    });
    const read = await call(api, "GET", `/api/sdk/sessions/${sessionId}/scores`, { key: owner.key });

    // Assess
    expect(minted.status).toBe(201);
    expect(token).toMatch(/^atsf_[\w-]+\.[\w-]{43}$/);
    expect(minted.body.tokenId).toMatch(/^fbt_[0-9A-HJKMNP-TV-Z]{26}$/);
    const expiresAt = Date.parse(String(minted.body.expiresAt));
    expect(expiresAt - Date.now()).toBeGreaterThan(890_000);
    expect(expiresAt - Date.now()).toBeLessThanOrEqual(900_000);
    expect(posted.status).toBe(201);
    expect(posted.headers.get("access-control-allow-origin")).toBe("*");
    expect(posted.headers.get("access-control-allow-credentials")).toBeNull();
    expect(posted.headers.get("cache-control")).toBe("no-store");
    expect(posted.body).toMatchObject({
      sessionId,
      eventId: null,
      name: "thumbs",
      value: false,
      valueKind: "boolean",
      comment: "It refunded the wrong order",
      source: "end_user",
      author: { kind: "feedbackToken", id: minted.body.tokenId },
    });
    expect(read.status).toBe(200);
    expect(read.body.items).toEqual([posted.body]);
    const [stored] = await scoreItems(sessionId);
    expect(stored).toMatchObject({ authorKind: "feedbackToken", authorId: minted.body.tokenId, source: "end_user" });
  });

  it("binds the score to the token's event, and allows only the token's names", async () => {
    // Prepare
    const sessionId = await createTestSession(api, owner.key);
    const eventId = await firstEventOf(sessionId);
    const token = await mintedToken({ sessionId, eventId, names: ["thumbs", "__proto__"] });

    // Act
    const allowed = await call(api, "POST", FEEDBACK, { key: token, body: THUMBS_DOWN });
    const proto = await call(api, "POST", FEEDBACK, { key: token, body: { name: "__proto__", value: "meh" } });
    const refused = await call(api, "POST", FEEDBACK, { key: token, body: { name: "helpfulness", value: 0 } });
    const constructorName = await call(api, "POST", FEEDBACK, { key: token, body: { name: "constructor", value: 1 } });

    // Assess
    expect(allowed.status).toBe(201);
    expect(allowed.body.eventId).toBe(eventId);
    expect(proto.status).toBe(201);
    expect(refused.status).toBe(403);
    expect(refused.body).toEqual({
      error: "Forbidden",
      message: 'This feedback token may not write a score named "helpfulness"',
    });
    expect(constructorName.status).toBe(403);
    expect((await scoreItems(sessionId)).map((item) => item.name).sort()).toEqual(["__proto__", "thumbs"]);
  });

  it("applies the organisation's limits on values as any score write does (400, nothing stored)", async () => {
    const sessionId = await createTestSession(api, owner.key);
    const token = await mintedToken({ sessionId });

    const response = await call(api, "POST", FEEDBACK, { key: token, body: { name: "thumbs", value: 1e300 } });

    expect(response.status).toBe(400);
    expect(response.headers.get("access-control-allow-origin")).toBe("*");
    expect(await scoreItems(sessionId)).toEqual([]);
  });
});

describe("refusals: a clear 4xx, nothing stored", () => {
  it("refuses a body that names a session, an event, a source or an id (the token's are used, never the body's)", async () => {
    const sessionId = await createTestSession(api, owner.key);
    const otherSession = await createTestSession(api, owner.key);
    const token = await mintedToken({ sessionId });

    const answers = await Promise.all(
      [
        { sessionId: otherSession },
        { eventId: "evt_01KAZ3X9B2C3D4E5F6G7H8J9KM" },
        { source: "evaluator" },
        { id: "scr_01KAZ3XB1C2D3E4F5G6H7J8K9M" },
      ].map((extra) => call(api, "POST", FEEDBACK, { key: token, body: { ...THUMBS_DOWN, ...extra } })),
    );

    for (const answer of answers) {
      expect(answer.status).toBe(400);
      expect(String(answer.body.message)).toMatch(/^Invalid request body: /);
      expect(answer.headers.get("access-control-allow-origin")).toBe("*");
    }
    expect(await scoreItems(sessionId)).toEqual([]);
    expect(await scoreItems(otherSession)).toEqual([]);
  });

  it("refuses an expired token, an altered one and one of another deployment with 401", async () => {
    // Prepare
    const sessionId = await createTestSession(api, owner.key);
    const key = await feedbackTokenKey();
    const expired = signFeedbackToken(claimsFor(sessionId, { expiresAt: Math.floor(Date.now() / 1000) - 1 }), key);
    const valid = await mintedToken({ sessionId });
    const [payload = "", signature = ""] = valid.split(".");
    // Another session written into a genuine token's payload, its signature kept.
    const decoded = JSON.parse(Buffer.from(payload.slice(5), "base64url").toString("utf8")) as Record<string, unknown>;
    const otherSession = await createTestSession(api, owner.key);
    const altered = `atsf_${Buffer.from(JSON.stringify({ ...decoded, s: otherSession })).toString("base64url")}.${signature}`;
    const foreignDeployment = signFeedbackToken(claimsFor(sessionId), randomBytes(32));

    // Act
    const answers = {
      expired: await call(api, "POST", FEEDBACK, { key: expired, body: THUMBS_DOWN }),
      altered: await call(api, "POST", FEEDBACK, { key: altered, body: THUMBS_DOWN }),
      foreignDeployment: await call(api, "POST", FEEDBACK, { key: foreignDeployment, body: THUMBS_DOWN }),
      truncated: await call(api, "POST", FEEDBACK, { key: valid.slice(0, -2), body: THUMBS_DOWN }),
      huge: await call(api, "POST", FEEDBACK, { key: `atsf_${"A".repeat(5000)}.x`, body: THUMBS_DOWN }),
      missing: await call(api, "POST", FEEDBACK, { body: THUMBS_DOWN }),
    };

    // Assess
    expect(answers.expired.status).toBe(401);
    expect(answers.expired.body).toEqual({
      error: "Unauthorized",
      message: "Feedback token expired: ask the application for a new one",
    });
    for (const refused of [answers.altered, answers.foreignDeployment, answers.truncated, answers.huge]) {
      expect(refused.status).toBe(401);
      expect(refused.body).toEqual({
        error: "Unauthorized",
        message: "Invalid feedback token: it is malformed, altered or not from this deployment",
      });
      expect(refused.headers.get("access-control-allow-origin")).toBe("*");
    }
    expect(answers.missing.status).toBe(401);
    expect(String(answers.missing.body.message)).toMatch(/^Missing feedback token/);
    expect(await scoreItems(sessionId)).toEqual([]);
    expect(await scoreItems(otherSession)).toEqual([]);
  });

  it("refuses a token whose session was deleted (404) or that another tenant's key minted for it (403 at minting)", async () => {
    const sessionId = await createTestSession(api, owner.key);
    const token = await mintedToken({ sessionId });
    const stranger = await createTestKey({ scopes: ALL_SCOPES });
    await call(api, "DELETE", `/api/sdk/sessions/${sessionId}`, { key: owner.key });

    const afterDeletion = await call(api, "POST", FEEDBACK, { key: token, body: THUMBS_DOWN });
    const foreignMint = await mint({ sessionId: await createTestSession(api, owner.key) }, stranger.key);
    const unknownMint = await mint({ sessionId: "ses_01KAZ3X8Q9M4T7V2N6P5R1S0WF" });

    expect(afterDeletion.status).toBe(404);
    expect(afterDeletion.body.message).toBe(`Session ${sessionId} not found`);
    expect((await partitionOf(sessionId)).map((item) => item.SK)).toEqual(["TOMBSTONE"]);
    expect(foreignMint.status).toBe(403);
    expect(unknownMint.status).toBe(404);
  });

  it("refuses a token for a session of another environment of the same organisation (the tenant is the token's)", async () => {
    const testKey = await createTestKey({ orgId: owner.orgId, scopes: ALL_SCOPES, environment: "test" });
    const liveSession = await createTestSession(api, owner.key);
    const key = await feedbackTokenKey();
    const testToken = signFeedbackToken(claimsFor(liveSession, { environment: "test" }), key);

    const response = await call(api, "POST", FEEDBACK, { key: testToken, body: THUMBS_DOWN });
    const minted = await mint({ sessionId: liveSession }, testKey.key);

    expect(response.status).toBe(403);
    expect(minted.status).toBe(403);
    expect(await scoreItems(liveSession)).toEqual([]);
  });

  it("minting: bounded lifetime and names, the scores:write scope, and nothing stored", async () => {
    const sessionId = await createTestSession(api, owner.key);
    const reader = await createTestKey({ orgId: owner.orgId, scopes: ["read"] });
    const before = await itemsOfOrganisation(owner.orgId);

    const tooLong = await mint({ sessionId, expiresInSeconds: 86_401 });
    const tooMany = await mint({ sessionId, names: Array.from({ length: 11 }, (_, index) => `n${index}`) });
    const longName = await mint({ sessionId, names: ["x".repeat(201)] });
    const withoutScope = await mint({ sessionId }, reader.key);
    const tooLarge = await mint({ sessionId, names: Array(10).fill("y".repeat(200)) });
    const longest = await mint({ sessionId, expiresInSeconds: 86_400, names: Array(10).fill("y".repeat(98)) });
    const after = await itemsOfOrganisation(owner.orgId);

    expect(tooLong.status).toBe(400);
    expect(tooLong.body.issues).toEqual([{ path: "expiresInSeconds", message: "Must be an integer from 1 to 86400" }]);
    expect(tooMany.status).toBe(400);
    expect(tooMany.body.issues).toEqual([{ path: "names", message: "Must hold at most 10 names" }]);
    expect(longName.status).toBe(400);
    expect(tooLarge.status).toBe(400);
    expect(tooLarge.body.issues).toEqual([
      { path: "names", message: "Must be at most 1024 bytes together (as a JSON array in UTF-8)" },
    ]);
    expect(withoutScope.status).toBe(403);
    expect(longest.status).toBe(201);
    expect(String(longest.body.token).length).toBeLessThanOrEqual(4096);
    const stamps = (items: Record<string, unknown>[]) => items.map(({ lastUsedAt: _stamp, ...item }) => item);
    expect(stamps(after)).toEqual(stamps(before));
  });
});

describe("the token is never stored", () => {
  it("minting ignores Idempotency-Key: no idempotency record holds the token, a retry mints another", async () => {
    const sessionId = await createTestSession(api, owner.key);
    const headers = { "idempotency-key": `mint-${sessionId}` };
    const before = await itemsOfOrganisation(owner.orgId);

    const first = await call(api, "POST", "/api/sdk/feedback-tokens", { key: owner.key, headers, body: { sessionId } });
    const retry = await call(api, "POST", "/api/sdk/feedback-tokens", { key: owner.key, headers, body: { sessionId } });
    const after = await itemsOfOrganisation(owner.orgId);
    const records = await documentClient.send(
      new QueryCommand({
        TableName: tableName,
        KeyConditionExpression: "PK = :pk",
        ExpressionAttributeValues: { ":pk": `IDEMPOTENCY#ORG#${owner.orgId}#ENV#live#REQUEST#mint-${sessionId}` },
        ConsistentRead: true,
      }),
    );

    expect([first.status, retry.status]).toEqual([201, 201]);
    expect(retry.headers.get("idempotent-replayed")).toBeNull();
    expect(retry.body.tokenId).not.toBe(first.body.tokenId);
    expect(records.Items ?? []).toEqual([]);
    const stamps = (items: Record<string, unknown>[]) => items.map(({ lastUsedAt: _stamp, ...item }) => item);
    expect(stamps(after)).toEqual(stamps(before));
    expect(JSON.stringify(after)).not.toContain("atsf_");
  });
});

describe("the token does nothing else; the feedback route takes nothing else", () => {
  it("refuses an API key and an access-token-like credential on the feedback route (401, nothing stored)", async () => {
    const sessionId = await createTestSession(api, owner.key);

    const withKey = await call(api, "POST", FEEDBACK, { key: owner.key, body: { ...THUMBS_DOWN } });

    expect(withKey.status).toBe(401);
    expect(withKey.body.message).toBe(
      "This route takes a feedback token (atsf_…), minted by POST /api/sdk/feedback-tokens; API keys and access tokens are refused here",
    );
    expect(await scoreItems(sessionId)).toEqual([]);
  });

  const otherRoutes = routes.filter((route) => route.auth.kind !== "feedbackToken" && route.auth.kind !== "public");

  it.each(otherRoutes.map((route) => [route.id, route] as const))(
    "refuses the token on %s with 401, session unchanged",
    async (_id, route) => {
      const sessionId = await createTestSession(api, owner.key);
      const token = await mintedToken({ sessionId });
      await settleCounts();
      const before = await partitionOf(sessionId);
      const path = route.path
        .replace("{id}", sessionId)
        .replace("{scoreId}", "scr_01KAZ3XB1C2D3E4F5G6H7J8K9M")
        .replace(/\{\w+\}/g, "x");
      const body = route.method === "GET" || route.method === "DELETE" ? undefined : { sessionId, ...THUMBS_DOWN };

      const response = await call(api, route.method, path, {
        key: token,
        headers: { "x-organization-id": owner.orgId },
        ...(body === undefined ? {} : { body }),
      });

      expect(response.status).toBe(401);
      expect(response.headers.get("access-control-allow-origin")).toBeNull();
      expect(await partitionOf(sessionId)).toEqual(before);
    },
  );
});

describe("CORS on the feedback route only", () => {
  it("answers the preflight with what a browser may send", async () => {
    const response = await call(api, "OPTIONS", FEEDBACK, {
      headers: {
        origin: "https://shop.example",
        "access-control-request-method": "POST",
        "access-control-request-headers": "authorization, content-type",
      },
    });

    expect(response.status).toBe(204);
    expect(response.headers.get("access-control-allow-origin")).toBe("*");
    expect(response.headers.get("access-control-allow-methods")).toBe("POST, OPTIONS");
    expect(response.headers.get("access-control-allow-headers")).toBe("authorization, content-type");
    expect(response.headers.get("access-control-allow-credentials")).toBeNull();
  });

  const corsFree = routes.filter((route) => route.id !== "PostFeedback" && route.id !== "FeedbackPreflight");

  it.each(corsFree.map((route) => [route.id, route] as const))("sends no CORS header on %s", async (_id, route) => {
    const path = route.path.replace(/\{\w+\}/g, "x");

    const response = await call(api, route.method, path, {
      headers: { origin: "https://shop.example" },
      ...(route.method === "GET" || route.method === "DELETE" ? {} : { body: {} }),
    });

    const cors = [...response.headers.keys()].filter((name) => name.startsWith("access-control-"));
    expect(cors).toEqual([]);
  });

  it("has no preflight on another route (no CORS header, no route)", async () => {
    const response = await call(api, "OPTIONS", "/api/sdk/scores", { headers: { origin: "https://shop.example" } });

    expect(response.status).toBe(405);
    expect(response.headers.get("access-control-allow-origin")).toBeNull();
  });
});

describe("erasure", () => {
  it("erasing a user removes the scores they gave through a feedback token on their sessions", async () => {
    const userId = `leaving-${Date.now()}`;
    const sessionId = await createTestSession(api, owner.key, { userId });
    const token = await mintedToken({ sessionId });
    const posted = await call(api, "POST", FEEDBACK, { key: token, body: THUMBS_DOWN });

    const accepted = await call(api, "DELETE", `/api/sdk/users/${userId}`, { key: owner.key });
    await deletionWorker?.idle();
    const afterErasure = await call(api, "POST", FEEDBACK, { key: token, body: THUMBS_DOWN });

    expect(posted.status).toBe(201);
    expect(accepted.status).toBe(202);
    expect((await partitionOf(sessionId)).map((item) => item.SK)).toEqual(["TOMBSTONE"]);
    expect(afterErasure.status).toBe(404);
    expect((await partitionOf(sessionId)).map((item) => item.SK)).toEqual(["TOMBSTONE"]);
  });
});
