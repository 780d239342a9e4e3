/**
 * Scores (issue 33) over HTTP against DynamoDB Local: create, upsert by id, list, delete; each bad input a
 * field-level 400 with nothing stored; tenancy and scopes; scores removed with their session (deletion and
 * erasure); Idempotency-Key replays; batches of mixed valid and invalid scores.
 */
import { QueryCommand } from "@aws-sdk/lib-dynamodb";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { documentClient, tableName } from "../../functions/store/table/dynamo-client.js";
import { sessionKey } from "../../functions/store/table/keys.js";
import type { LocalApi } from "../../local/http-adapter.js";
import {
  call,
  createTestKey,
  createTestSession,
  createTestUser,
  deletionWorker,
  startTestApi,
  type TestKey,
} from "../support/fixtures.js";

let api: LocalApi;
let owner: TestKey;

const ALL_SCOPES = ["sessions:write", "events:write", "scores:write", "read", "delete"] as const;
const OTHER_SESSION = "ses_01KAZ3X8Q9M4T7V2N6P5R1S0WF";

beforeAll(async () => {
  api = await startTestApi();
  owner = await createTestKey({ scopes: ALL_SCOPES });
});
afterAll(() => api.close());

/** Every item of a session's partition, by sort key. */
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

async function firstEventOf(sessionId: string, key = owner.key): Promise<string> {
  const response = await call(api, "POST", "/api/sdk/events", { key, body: { sessionId, eventType: "tool_call" } });
  if (response.status !== 201) throw new Error(`event not created: ${response.text}`);
  return String(response.body.id);
}

const score = (sessionId: string, extra: Record<string, unknown> = {}) => ({
  sessionId,
  name: "helpfulness",
  value: 0.75,
  ...extra,
});

describe("POST /api/sdk/scores", () => {
  it("stores a numeric, boolean and categorical score with what counting needs, and shows them", async () => {
    // Prepare
    const sessionId = await createTestSession(api, owner.key, { agentName: "scored-agent" });
    const eventId = await firstEventOf(sessionId);

    // Act
    const numeric = await call(api, "POST", "/api/sdk/scores", {
      key: owner.key,
      body: score(sessionId, { eventId, comment: "good", source: "evaluator", dataType: "numeric" }),
    });
    const boolean = await call(api, "POST", "/api/sdk/scores", {
      key: owner.key,
      body: { sessionId, name: "resolved", value: true },
    });
    const label = await call(api, "POST", "/api/sdk/scores", {
      key: owner.key,
      body: { sessionId, name: "__proto__", value: "friendly", source: "end_user" },
    });

    // Assess
    expect([numeric.status, boolean.status, label.status]).toEqual([201, 201, 201]);
    expect(numeric.body).toMatchObject({
      sessionId,
      eventId,
      name: "helpfulness",
      value: 0.75,
      valueKind: "numeric",
      comment: "good",
      source: "evaluator",
      author: { kind: "apiKey", id: owner.keyId },
    });
    expect(boolean.body).toMatchObject({ value: true, valueKind: "boolean", source: "api", eventId: null });
    expect(label.body).toMatchObject({ name: "__proto__", value: "friendly", valueKind: "categorical" });
    const stored = await scoreItems(sessionId);
    const session = (await partitionOf(sessionId)).find((item) => item.SK === "SESSION");
    expect(stored).toHaveLength(3);
    for (const item of stored) {
      expect(item).toMatchObject({
        entity: "score",
        orgId: owner.orgId,
        environment: "live",
        agentName: "scored-agent",
        sessionDay: String(session?.createdAt).slice(0, 10),
      });
      // The session's TTL when the score was written: the session's only grows (its events extend it), so the
      // score never outlives it.
      expect(Number(item.ttl)).toBeLessThanOrEqual(Number(session?.ttl));
      expect(Number(item.ttl)).toBeGreaterThan(Date.now() / 1000 + 89 * 86_400);
    }
    const read = await call(api, "GET", `/api/sdk/sessions/${sessionId}`, { key: owner.key });
    expect(read.status).toBe(200);
    expect(read.body.scoresTruncated).toBe(false);
    expect((read.body.scores as { id: string }[]).map((entry) => entry.id)).toEqual(
      [numeric.body.id, boolean.body.id, label.body.id].sort(),
    );
  });

  it("replaces the score of the same client id (a retry or an edit), keeping createdAt: never a second score", async () => {
    // Prepare
    const sessionId = await createTestSession(api, owner.key);
    const id = "scr_01KAZ3XB1C2D3E4F5G6H7J8K9M";
    const first = await call(api, "POST", "/api/sdk/scores", {
      key: owner.key,
      body: score(sessionId, { id, comment: "first" }),
    });

    // Act
    const edit = await call(api, "POST", "/api/sdk/scores", {
      key: owner.key,
      body: score(sessionId, { id, value: 0.25 }),
    });

    // Assess
    expect(first.status).toBe(201);
    expect(edit.status).toBe(200);
    expect(edit.body).toMatchObject({ id, value: 0.25, comment: null, createdAt: first.body.createdAt });
    const stored = await scoreItems(sessionId);
    expect(stored).toHaveLength(1);
    expect(stored[0]).toMatchObject({ value: 0.25 });
    expect(stored[0]?.comment).toBeUndefined();
  });

  it("accepts scores on a session that ended", async () => {
    const sessionId = await createTestSession(api, owner.key);
    await call(api, "PATCH", `/api/sdk/sessions/${sessionId}`, { key: owner.key, body: { status: "completed" } });

    const response = await call(api, "POST", "/api/sdk/scores", { key: owner.key, body: score(sessionId) });

    expect(response.status).toBe(201);
  });

  const invalid: [string, Record<string, unknown>, string, string][] = [
    [
      "a value of the wrong kind",
      { value: "yes", dataType: "boolean" },
      "value",
      "Must be true or false (dataType is boolean)",
    ],
    [
      "a number for a label",
      { value: 3, dataType: "categorical" },
      "value",
      "Must be a label, a string (dataType is categorical)",
    ],
    [
      "an object value",
      { value: { score: 1 } },
      "value",
      "Must be a finite number, true or false, or a label of 1 to 200 characters",
    ],
    [
      "a null value",
      { value: null },
      "value",
      "Must be a finite number, true or false, or a label of 1 to 200 characters",
    ],
    [
      "a huge number",
      { value: 1e300 },
      "value",
      "Must be a number from -1000000000000000 to 1000000000000000, 0 or at least 1e-9 in magnitude",
    ],
    [
      "an empty label",
      { value: "" },
      "value",
      "Must be a finite number, true or false, or a label of 1 to 200 characters",
    ],
    [
      "a long label",
      { value: "x".repeat(201) },
      "value",
      "Must be a finite number, true or false, or a label of 1 to 200 characters",
    ],
    ["an empty name", { name: "" }, "name", "Must not be empty"],
    ["a long name", { name: "n".repeat(201) }, "name", "Must be at most 200 characters"],
    ["a long comment", { comment: "c".repeat(4001) }, "comment", "Must be at most 4000 characters"],
    ["an unknown source", { source: "robot" }, "source", "Must be one of: api, sdk, console, end_user, evaluator"],
    [
      "a malformed id",
      { id: "my-score" },
      "id",
      'Must be "scr_" followed by a ULID (26 characters of Crockford base32, upper case)',
    ],
    ["an unknown field", { rating: 5 }, "rating", "Unknown field"],
  ];

  it.each(invalid)("refuses %s with a field-level 400 and stores nothing", async (_case, change, path, message) => {
    const sessionId = await createTestSession(api, owner.key);

    const response = await call(api, "POST", "/api/sdk/scores", { key: owner.key, body: score(sessionId, change) });

    expect(response.status).toBe(400);
    expect(response.body).toMatchObject({ error: "Bad Request" });
    expect(response.body.issues).toContainEqual({ path, message });
    expect(await scoreItems(sessionId)).toEqual([]);
  });

  it("refuses a score of an unknown session (404), of another organisation's or environment's (403), storing nothing", async () => {
    // Prepare
    const stranger = await createTestKey({ scopes: ALL_SCOPES });
    const otherEnvironment = await createTestKey({ orgId: owner.orgId, environment: "test", scopes: ALL_SCOPES });
    const sessionId = await createTestSession(api, owner.key);

    // Act
    const unknown = await call(api, "POST", "/api/sdk/scores", { key: owner.key, body: score(OTHER_SESSION) });
    const foreign = await call(api, "POST", "/api/sdk/scores", { key: stranger.key, body: score(sessionId) });
    const environment = await call(api, "POST", "/api/sdk/scores", {
      key: otherEnvironment.key,
      body: score(sessionId),
    });
    const list = await call(api, "GET", `/api/sdk/sessions/${sessionId}/scores`, { key: stranger.key });

    // Assess
    expect(unknown.status).toBe(404);
    expect(unknown.body.message).toBe(`Session ${OTHER_SESSION} not found`);
    expect(foreign.status).toBe(403);
    expect(foreign.body.message).toBe(`This API key has no access to session ${sessionId}`);
    expect(environment.status).toBe(403);
    expect(list.status).toBe(403);
    expect(await scoreItems(sessionId)).toEqual([]);
  });

  it("refuses an eventId that is not an event of the session (404), storing nothing", async () => {
    const sessionId = await createTestSession(api, owner.key);
    const elsewhere = await createTestSession(api, owner.key);
    const eventId = await firstEventOf(elsewhere);

    const response = await call(api, "POST", "/api/sdk/scores", {
      key: owner.key,
      body: score(sessionId, { eventId }),
    });

    expect(response.status).toBe(404);
    expect(response.body.message).toBe(`Event ${eventId} not found in session ${sessionId}`);
    expect(await scoreItems(sessionId)).toEqual([]);
  });

  it("refuses a score on a deleted session (404)", async () => {
    const sessionId = await createTestSession(api, owner.key);
    expect((await call(api, "DELETE", `/api/sdk/sessions/${sessionId}`, { key: owner.key })).status).toBe(204);

    const response = await call(api, "POST", "/api/sdk/scores", { key: owner.key, body: score(sessionId) });

    expect(response.status).toBe(404);
    expect(await scoreItems(sessionId)).toEqual([]);
  });
});

describe("scopes", () => {
  it("a key with only scores:write writes and deletes scores, and nothing else; a key without it is refused", async () => {
    // Prepare
    const sessionId = await createTestSession(api, owner.key);
    const scorer = await createTestKey({ orgId: owner.orgId, scopes: ["scores:write"] });
    const writer = await createTestKey({ orgId: owner.orgId, scopes: ["sessions:write", "events:write", "read"] });

    // Act
    const created = await call(api, "POST", "/api/sdk/scores", { key: scorer.key, body: score(sessionId) });
    const event = await call(api, "POST", "/api/sdk/events", {
      key: scorer.key,
      body: { sessionId, eventType: "thought" },
    });
    const session = await call(api, "POST", "/api/sdk/sessions", {
      key: scorer.key,
      body: { name: "n", agentName: "a", userId: "u" },
    });
    const read = await call(api, "GET", `/api/sdk/sessions/${sessionId}/scores`, { key: scorer.key });
    const refused = await call(api, "POST", "/api/sdk/scores", { key: writer.key, body: score(sessionId) });
    const deleted = await call(api, "DELETE", `/api/sdk/sessions/${sessionId}/scores/${String(created.body.id)}`, {
      key: scorer.key,
    });

    // Assess
    expect(created.status).toBe(201);
    expect([event.status, session.status, read.status]).toEqual([403, 403, 403]);
    expect(event.body.message).toBe('This API key has no access to this resource: it lacks the "events:write" scope');
    expect(refused.status).toBe(403);
    expect(refused.body.message).toBe('This API key has no access to this resource: it lacks the "scores:write" scope');
    expect(deleted.status).toBe(204);
    expect(await scoreItems(sessionId)).toEqual([]);
  });

  it("new keys receive scores:write by default", async () => {
    const user = await createTestUser(api, { orgId: owner.orgId, role: "owner" });

    const created = await call(api, "POST", "/api/keys", { key: user.token, body: { name: "default scopes" } });

    expect(created.status).toBe(201);
    expect(created.body.scopes).toEqual(["sessions:write", "events:write", "scores:write", "read"]);
  });

  it("a signed-in member gives scores as a user, with source console by default", async () => {
    const member = await createTestUser(api, { orgId: owner.orgId, role: "member" });
    const sessionId = await createTestSession(api, owner.key);

    const response = await call(api, "POST", "/api/sdk/scores", {
      key: member.token,
      headers: { "x-organization-id": owner.orgId, "x-environment": "live" },
      body: { sessionId, name: "correct", value: false },
    });

    expect(response.status).toBe(201);
    expect(response.body).toMatchObject({ source: "console", author: { kind: "user", id: member.userId } });
  });
});

describe("GET /api/sdk/sessions/{id}/scores and DELETE …/scores/{scoreId}", () => {
  it("pages a session's scores oldest first and deletes one (404 for an unknown score)", async () => {
    // Prepare
    const sessionId = await createTestSession(api, owner.key);
    const ids: string[] = [];
    for (let index = 0; index < 3; index++) {
      const created = await call(api, "POST", "/api/sdk/scores", {
        key: owner.key,
        body: score(sessionId, { value: index }),
      });
      ids.push(String(created.body.id));
    }

    // Act
    const first = await call(api, "GET", `/api/sdk/sessions/${sessionId}/scores?limit=2`, { key: owner.key });
    const second = await call(
      api,
      "GET",
      `/api/sdk/sessions/${sessionId}/scores?limit=2&cursor=${encodeURIComponent(String(first.body.nextCursor))}`,
      { key: owner.key },
    );
    const deleted = await call(api, "DELETE", `/api/sdk/sessions/${sessionId}/scores/${ids[1]}`, { key: owner.key });
    const again = await call(api, "DELETE", `/api/sdk/sessions/${sessionId}/scores/${ids[1]}`, { key: owner.key });
    const malformed = await call(api, "DELETE", `/api/sdk/sessions/${sessionId}/scores/nope`, { key: owner.key });

    // Assess
    expect((first.body.items as { id: string }[]).map((item) => item.id)).toEqual(ids.slice(0, 2));
    expect(first.body.nextCursor).toEqual(expect.any(String));
    expect((second.body.items as { id: string }[]).map((item) => item.id)).toEqual(ids.slice(2));
    expect(deleted.status).toBe(204);
    expect(again.status).toBe(404);
    expect(again.body.message).toBe(`Score ${ids[1]} not found in session ${sessionId}`);
    expect(malformed.status).toBe(404);
    expect((await scoreItems(sessionId)).map((item) => item.id)).toEqual([ids[0], ids[2]]);
  });

  it("GET /api/sdk/sessions/{id} shows the first 20 scores and says when there are more", async () => {
    const sessionId = await createTestSession(api, owner.key);
    const scores = Array.from({ length: 21 }, (_, index) => score(sessionId, { value: index }));
    await call(api, "POST", "/api/sdk/scores/batch", { key: owner.key, body: { scores } });

    const read = await call(api, "GET", `/api/sdk/sessions/${sessionId}`, { key: owner.key });

    expect(read.body.scoresTruncated).toBe(true);
    expect(read.body.scores).toHaveLength(20);
  });
});

describe("scores go with their session", () => {
  it("DELETE /api/sdk/sessions/{id} removes its scores: nothing of the partition is left but the tombstone", async () => {
    const sessionId = await createTestSession(api, owner.key);
    await firstEventOf(sessionId);
    await call(api, "POST", "/api/sdk/scores", { key: owner.key, body: score(sessionId) });
    await call(api, "POST", "/api/sdk/scores", { key: owner.key, body: score(sessionId, { name: "other" }) });

    const response = await call(api, "DELETE", `/api/sdk/sessions/${sessionId}`, { key: owner.key });

    expect(response.status).toBe(204);
    expect((await partitionOf(sessionId)).map((item) => item.SK)).toEqual(["TOMBSTONE"]);
  });

  it("erasing a user removes the scores of their sessions", async () => {
    const userId = `leaving-${Date.now()}`;
    const sessionId = await createTestSession(api, owner.key, { userId });
    await call(api, "POST", "/api/sdk/scores", { key: owner.key, body: score(sessionId) });

    const accepted = await call(api, "DELETE", `/api/sdk/users/${userId}`, { key: owner.key });
    await deletionWorker?.idle();

    expect(accepted.status).toBe(202);
    expect((await partitionOf(sessionId)).map((item) => item.SK)).toEqual(["TOMBSTONE"]);
  });
});

describe("Idempotency-Key and batches", () => {
  it("a retry with the same Idempotency-Key replays the answer and stores one score", async () => {
    const sessionId = await createTestSession(api, owner.key);
    const headers = { "idempotency-key": `score-${sessionId}` };

    const first = await call(api, "POST", "/api/sdk/scores", { key: owner.key, headers, body: score(sessionId) });
    const retry = await call(api, "POST", "/api/sdk/scores", { key: owner.key, headers, body: score(sessionId) });

    expect(first.status).toBe(201);
    expect(retry.status).toBe(201);
    expect(retry.headers.get("idempotent-replayed")).toBe("true");
    expect(retry.body.id).toBe(first.body.id);
    expect(await scoreItems(sessionId)).toHaveLength(1);
  });

  it("stores every valid score of a batch and reports each invalid or foreign one", async () => {
    // Prepare
    const sessionId = await createTestSession(api, owner.key);
    const stranger = await createTestKey({ scopes: ALL_SCOPES });
    const foreign = await createTestSession(api, stranger.key);
    const scores = [
      score(sessionId),
      score(sessionId, { value: "yes", dataType: "numeric" }),
      score(foreign),
      score(OTHER_SESSION),
      { sessionId, name: "resolved", value: true, id: "scr_01KAZ3XB1C2D3E4F5G6H7J8K9N" },
      "not a score",
    ];

    // Act
    const response = await call(api, "POST", "/api/sdk/scores/batch", { key: owner.key, body: { scores } });

    // Assess
    expect(response.status).toBe(200);
    const results = response.body.results as { index: number; status: number; id?: string; error?: unknown }[];
    expect(results.map((result) => [result.index, result.status])).toEqual([
      [0, 201],
      [1, 400],
      [2, 403],
      [3, 404],
      [4, 201],
      [5, 400],
    ]);
    expect(results[1]?.error).toMatchObject({
      error: "Bad Request",
      issues: [{ path: "value", message: "Must be a number (dataType is numeric)" }],
    });
    expect((await scoreItems(sessionId)).map((item) => item.id).sort()).toEqual(
      [results[0]?.id, "scr_01KAZ3XB1C2D3E4F5G6H7J8K9N"].sort(),
    );
    expect(await scoreItems(foreign)).toEqual([]);
  });

  it("writes the same score twice in a batch one after the other (the later replaces), and concurrent replacements all succeed", async () => {
    // Prepare
    const sessionId = await createTestSession(api, owner.key);
    const id = "scr_01KAZ3XB1C2D3E4F5G6H7J8K9P";
    const other = "scr_01KAZ3XB1C2D3E4F5G6H7J8K9Q";

    // Act
    const batch = await call(api, "POST", "/api/sdk/scores/batch", {
      key: owner.key,
      body: { scores: [score(sessionId, { id, value: 1 }), score(sessionId, { id, value: 2 })] },
    });
    const concurrent = await Promise.all(
      [1, 2, 3, 4, 5].map((value) =>
        call(api, "POST", "/api/sdk/scores", { key: owner.key, body: score(sessionId, { id: other, value }) }),
      ),
    );

    // Assess
    expect((batch.body.results as { status: number }[]).map((result) => result.status)).toEqual([201, 200]);
    expect(concurrent.map((response) => response.status).sort()).toEqual([200, 200, 200, 200, 201]);
    const stored = await scoreItems(sessionId);
    expect(stored.map((item) => [item.id, item.value])).toContainEqual([id, 2]);
    expect(stored).toHaveLength(2);
  });

  it("refuses an empty batch and one of more than 100 scores", async () => {
    const sessionId = await createTestSession(api, owner.key);

    const empty = await call(api, "POST", "/api/sdk/scores/batch", { key: owner.key, body: { scores: [] } });
    const large = await call(api, "POST", "/api/sdk/scores/batch", {
      key: owner.key,
      body: { scores: Array.from({ length: 101 }, () => score(sessionId)) },
    });

    expect(empty.status).toBe(400);
    expect(empty.body.issues).toContainEqual({ path: "scores", message: "Must hold at least one score" });
    expect(large.status).toBe(400);
    expect(large.body.issues).toContainEqual({ path: "scores", message: "Must hold at most 100 scores" });
    expect(await scoreItems(sessionId)).toEqual([]);
  });

  it("a batch retried with the same Idempotency-Key stores its scores once", async () => {
    const sessionId = await createTestSession(api, owner.key);
    const headers = { "idempotency-key": `batch-${sessionId}` };
    const body = { scores: [score(sessionId), score(sessionId, { name: "second" })] };

    await call(api, "POST", "/api/sdk/scores/batch", { key: owner.key, headers, body });
    const retry = await call(api, "POST", "/api/sdk/scores/batch", { key: owner.key, headers, body });

    expect(retry.headers.get("idempotent-replayed")).toBe("true");
    expect(await scoreItems(sessionId)).toHaveLength(2);
  });
});
