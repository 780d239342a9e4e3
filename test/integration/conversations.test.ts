/**
 * Conversations (issue 33) over HTTP against DynamoDB Local: runs naming a conversation, listed and read back
 * with their runs in order and totals equal to a recount of the runs; filters and signed cursors; another
 * tenant's conversation a 404; bad input a 400 with nothing stored; a deleted or erased run leaves its conversation.
 */
import { GetCommand, QueryCommand } from "@aws-sdk/lib-dynamodb";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { documentClient, tableName } from "../../functions/store/table/dynamo-client.js";
import { conversationKey, sessionKey } from "../../functions/store/table/keys.js";
import type { LocalApi } from "../../local/http-adapter.js";
import {
  call,
  createTestKey,
  createTestSession,
  deletionWorker,
  settleCounts,
  startTestApi,
  type TestKey,
} from "../support/fixtures.js";

let api: LocalApi;
let owner: TestKey;

const ALL_SCOPES = ["sessions:write", "events:write", "scores:write", "read", "delete"] as const;

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

async function summaryOf(key: TestKey, conversationId: string) {
  const result = await documentClient.send(
    new GetCommand({
      TableName: tableName,
      Key: conversationKey(key.orgId, "live", conversationId),
      ConsistentRead: true,
    }),
  );
  return result.Item;
}

/** A run of the conversation, ended with the given figures. */
async function endedRun(
  conversationId: string,
  end: Record<string, unknown>,
  extra: Record<string, unknown> = {},
  key = owner.key,
): Promise<string> {
  const id = await createTestSession(api, key, { conversationId, agentName: "chat-bot", ...extra });
  const ended = await call(api, "PATCH", `/api/sdk/sessions/${id}`, { key, body: end });
  if (ended.status !== 200) throw new Error(`run not ended: ${ended.text}`);
  return id;
}

describe("a conversation's runs", () => {
  it("lists its runs in the order they started, with totals equal to a recount of the runs", async () => {
    // Prepare
    const conversationId = `chat#${crypto.randomUUID()}%`;
    const first = await endedRun(
      conversationId,
      {
        status: "completed",
        estimatedCost: 0.01,
        totalTokens: 100,
        promptTokens: 80,
        completionTokens: 20,
        durationMs: 1000,
      },
      { startedAt: new Date(Date.now() - 60_000).toISOString() },
    );
    const second = await endedRun(
      conversationId,
      { status: "failed", failureReason: "timeout", estimatedCost: 0.02, durationMs: 3000 },
      { startedAt: new Date(Date.now() - 30_000).toISOString() },
    );
    const third = await createTestSession(api, owner.key, { conversationId, agentName: "chat-bot" });
    await call(api, "POST", "/api/sdk/events", {
      key: owner.key,
      body: {
        sessionId: third,
        eventType: "llm_decision",
        model: "gpt-4o",
        usage: { promptTokens: 10, completionTokens: 5 },
      },
    });
    await settleCounts();

    // Act
    const response = await call(api, "GET", `/api/sdk/conversations/${encodeURIComponent(conversationId)}`, {
      key: owner.key,
    });

    // Assess
    expect(response.status, response.text).toBe(200);
    const runs = response.body.runs as Record<string, unknown>[];
    expect(runs.map((run) => run.id)).toEqual([first, second, third]);
    expect(runs.every((run) => run.conversationId === conversationId)).toBe(true);
    expect(response.body).toMatchObject({ id: conversationId, agentName: "chat-bot", runCount: 3, nextCursor: null });
    const recount = (field: string) =>
      runs.reduce((sum, run) => sum + (typeof run[field] === "number" ? (run[field] as number) : 0), 0);
    const totals = response.body.totals as Record<string, unknown>;
    expect(totals).toMatchObject({ runs: 3, active: 1, completed: 1, failed: 1, durationCount: 2, complete: true });
    expect(totals.estimatedCost).toBeCloseTo(recount("estimatedCost"), 10);
    expect(totals.totalTokens).toBe(recount("totalTokens"));
    expect(totals.durationMs).toBe(4000);
    expect(totals.eventCount).toBe(recount("eventCount"));
    expect(totals.modelCalls).toBe(1);
  });

  it("pages its runs with a signed cursor; totals on the first page only", async () => {
    // Prepare
    const conversationId = `paged-${crypto.randomUUID()}`;
    const ids: string[] = [];
    for (let turn = 0; turn < 5; turn++) {
      ids.push(
        await createTestSession(api, owner.key, {
          conversationId,
          startedAt: new Date(Date.now() - 10_000 + turn * 1000).toISOString(),
        }),
      );
    }

    // Act
    const firstPage = await call(api, "GET", `/api/sdk/conversations/${conversationId}?limit=2`, { key: owner.key });
    const secondPage = await call(
      api,
      "GET",
      `/api/sdk/conversations/${conversationId}?limit=2&cursor=${encodeURIComponent(String(firstPage.body.nextCursor))}`,
      { key: owner.key },
    );
    const forged = await call(api, "GET", `/api/sdk/conversations/${conversationId}?limit=2&cursor=abc.def`, {
      key: owner.key,
    });

    // Assess
    expect((firstPage.body.runs as { id: string }[]).map((run) => run.id)).toEqual(ids.slice(0, 2));
    expect(firstPage.body.totals).toMatchObject({ runs: 5, active: 5 });
    expect((secondPage.body.runs as { id: string }[]).map((run) => run.id)).toEqual(ids.slice(2, 4));
    expect(secondPage.body.totals).toBeNull();
    expect(forged.status).toBe(400);
  });

  it("is a 404 for another organisation's or environment's conversation, and for an unknown one", async () => {
    // Prepare
    const conversationId = `private-${crypto.randomUUID()}`;
    await createTestSession(api, owner.key, { conversationId });
    const stranger = await createTestKey({ scopes: ALL_SCOPES });
    const testEnvironment = await createTestKey({ orgId: owner.orgId, scopes: ALL_SCOPES, environment: "test" });

    // Act
    const foreign = await call(api, "GET", `/api/sdk/conversations/${conversationId}`, { key: stranger.key });
    const otherEnvironment = await call(api, "GET", `/api/sdk/conversations/${conversationId}`, {
      key: testEnvironment.key,
    });
    const unknown = await call(api, "GET", "/api/sdk/conversations/never-named", { key: owner.key });
    const listed = await call(api, "GET", "/api/sdk/conversations", { key: stranger.key });

    // Assess
    expect(foreign.status).toBe(404);
    expect(foreign.body.message).toBe(`Conversation ${conversationId} not found`);
    expect(otherEnvironment.status).toBe(404);
    expect(unknown.status).toBe(404);
    expect(listed.body.items).toEqual([]);
  });

  it("takes the longest names in their costliest escaped form (agent and conversation of 256 '%' each)", async () => {
    // Prepare: escaped, each is 768 characters; both in one index sort key would pass DynamoDB's 1,024 bytes.
    const key = await createTestKey({ scopes: ALL_SCOPES });
    const longest = "%".repeat(256);

    // Act
    const created = await call(api, "POST", "/api/sdk/sessions", {
      key: key.key,
      body: { name: "n", agentName: longest, userId: longest, conversationId: longest },
    });
    const listed = await call(
      api,
      "GET",
      `/api/sdk/conversations?agentName=${encodeURIComponent(longest)}&userId=${encodeURIComponent(longest)}`,
      { key: key.key },
    );
    const read = await call(api, "GET", `/api/sdk/conversations/${encodeURIComponent(longest)}`, { key: key.key });

    // Assess
    expect(created.status, created.text).toBe(201);
    expect((listed.body.items as { id: string }[]).map((item) => item.id)).toEqual([longest]);
    expect(read.body).toMatchObject({ id: longest, runCount: 1 });
  });

  it("answers 400 to a bad conversationId and stores nothing", async () => {
    // Act
    const empty = await call(api, "POST", "/api/sdk/sessions", {
      key: owner.key,
      body: { name: "n", agentName: "a", userId: "u", conversationId: "" },
    });
    const long = await call(api, "POST", "/api/sdk/sessions", {
      key: owner.key,
      body: { name: "n", agentName: "a", userId: "u", conversationId: "x".repeat(257) },
    });
    const notText = await call(api, "POST", "/api/sdk/sessions", {
      key: owner.key,
      body: { name: "n", agentName: "a", userId: "u", conversationId: { __proto__: "x" } },
    });
    const longPath = await call(api, "GET", `/api/sdk/conversations/${"y".repeat(257)}`, { key: owner.key });

    // Assess
    expect(empty.status).toBe(400);
    expect(empty.body.issues).toEqual([{ path: "conversationId", message: expect.any(String) }]);
    expect(long.status).toBe(400);
    expect(notText.status).toBe(400);
    expect(longPath.status).toBe(400);
    expect(longPath.body.message).toBe("Invalid id in the path: must be 1 to 256 characters");
    expect(await summaryOf(owner, "")).toBeUndefined();
    expect(await summaryOf(owner, "x".repeat(257))).toBeUndefined();
  });

  it("returns the conversationId on the session's reads and repeats a start only with the same one", async () => {
    // Prepare
    const conversationId = `reads-${crypto.randomUUID()}`;
    const id =
      "ses_01KAZ3X8Q9M4T7V2N6P5R1S0WA".slice(0, 4) +
      crypto
        .randomUUID()
        .replaceAll("-", "")
        .slice(0, 26)
        .toUpperCase()
        .replace(/[ILOU]/g, "0");
    const start = { id, name: "n", agentName: "a", userId: "u", conversationId };

    // Act
    const created = await call(api, "POST", "/api/sdk/sessions", { key: owner.key, body: start });
    const repeated = await call(api, "POST", "/api/sdk/sessions", { key: owner.key, body: start });
    const otherConversation = await call(api, "POST", "/api/sdk/sessions", {
      key: owner.key,
      body: { ...start, conversationId: "another" },
    });
    const read = await call(api, "GET", `/api/sdk/sessions/${id}`, { key: owner.key });

    // Assess
    expect(created.status, created.text).toBe(201);
    expect(created.body.conversationId).toBe(conversationId);
    expect(repeated.status).toBe(201);
    expect(otherConversation.status).toBe(409);
    expect(read.body.conversationId).toBe(conversationId);
    expect((await summaryOf(owner, conversationId))?.runCount).toBe(1);
    expect(await summaryOf(owner, "another")).toBeUndefined();
  });
});

describe("listing conversations", () => {
  it("filters by agent, user and period, newest first, with a signed cursor", async () => {
    // Prepare
    const key = await createTestKey({ scopes: ALL_SCOPES });
    const at = (minutesAgo: number) => new Date(Date.now() - minutesAgo * 60_000).toISOString();
    await createTestSession(api, key.key, {
      conversationId: "c-old",
      agentName: "bot-a",
      userId: "u1",
      startedAt: at(30),
    });
    await createTestSession(api, key.key, {
      conversationId: "c-mid",
      agentName: "bot-b",
      userId: "u1",
      startedAt: at(20),
    });
    await createTestSession(api, key.key, {
      conversationId: "c-new",
      agentName: "bot-a",
      userId: "u2",
      startedAt: at(10),
    });
    // A later run of c-old, by another agent: the conversation stays its first run's.
    await createTestSession(api, key.key, {
      conversationId: "c-old",
      agentName: "bot-b",
      userId: "u2",
      startedAt: at(5),
    });
    const list = async (query: string) => {
      const response = await call(api, "GET", `/api/sdk/conversations?${query}`, { key: key.key });
      expect(response.status, response.text).toBe(200);
      return response.body as { items: { id: string; runCount: number }[]; nextCursor: string | null };
    };

    // Act
    const all = await list("");
    const byAgent = await list("agentName=bot-a");
    const byUser = await list("userId=u1");
    const byUserAndAgent = await list("userId=u1&agentName=bot-b");
    const period = await list(`from=${encodeURIComponent(at(25))}&to=${encodeURIComponent(at(15))}`);
    const firstPage = await list("limit=2");
    const nextPage = await list(`limit=2&cursor=${encodeURIComponent(String(firstPage.nextCursor))}`);
    const otherFilters = await call(
      api,
      "GET",
      `/api/sdk/conversations?agentName=bot-b&cursor=${encodeURIComponent(String(firstPage.nextCursor))}`,
      { key: key.key },
    );

    // Assess
    expect(all.items.map((item) => item.id)).toEqual(["c-new", "c-mid", "c-old"]);
    expect(all.items.find((item) => item.id === "c-old")?.runCount).toBe(2);
    expect(byAgent.items.map((item) => item.id)).toEqual(["c-new", "c-old"]);
    expect(byUser.items.map((item) => item.id)).toEqual(["c-mid", "c-old"]);
    expect(byUserAndAgent.items.map((item) => item.id)).toEqual(["c-mid"]);
    expect(period.items.map((item) => item.id)).toEqual(["c-mid"]);
    expect(firstPage.items.map((item) => item.id)).toEqual(["c-new", "c-mid"]);
    expect(nextPage.items.map((item) => item.id)).toEqual(["c-old"]);
    expect(nextPage.nextCursor).toBeNull();
    expect(otherFilters.status).toBe(400);
  });
});

describe("a run leaving its conversation", () => {
  it("is withdrawn when its session is deleted, and the conversation goes with its last run", async () => {
    // Prepare
    const conversationId = `deleted-${crypto.randomUUID()}`;
    const kept = await createTestSession(api, owner.key, { conversationId });
    const deleted = await createTestSession(api, owner.key, { conversationId });

    // Act
    const first = await call(api, "DELETE", `/api/sdk/sessions/${deleted}`, { key: owner.key });
    const afterOne = await call(api, "GET", `/api/sdk/conversations/${conversationId}`, { key: owner.key });
    await call(api, "DELETE", `/api/sdk/sessions/${kept}`, { key: owner.key });
    const afterAll = await call(api, "GET", `/api/sdk/conversations/${conversationId}`, { key: owner.key });

    // Assess
    expect(first.status).toBe(204);
    expect(afterOne.body).toMatchObject({ runCount: 1, totals: { runs: 1 } });
    expect((afterOne.body.runs as { id: string }[]).map((run) => run.id)).toEqual([kept]);
    expect(await partitionOf(deleted)).toEqual([expect.objectContaining({ SK: "TOMBSTONE" })]);
    expect(afterAll.status).toBe(404);
  });

  it("is withdrawn by an external user's erasure", async () => {
    // Prepare
    const key = await createTestKey({ scopes: ALL_SCOPES });
    const userId = `erased-${crypto.randomUUID()}`;
    const conversationId = "erased-chat";
    const run = await createTestSession(api, key.key, { conversationId, userId });
    await createTestSession(api, key.key, { conversationId, userId: "someone-else" });

    // Act
    const accepted = await call(api, "DELETE", `/api/sdk/users/${userId}`, { key: key.key });
    await deletionWorker?.idle();
    const after = await call(api, "GET", `/api/sdk/conversations/${conversationId}`, { key: key.key });

    // Assess
    expect(accepted.status).toBe(202);
    expect(await partitionOf(run)).toEqual([expect.objectContaining({ SK: "TOMBSTONE" })]);
    expect(after.body).toMatchObject({ runCount: 1 });
    expect((after.body.runs as { userId: string }[]).map((item) => item.userId)).toEqual(["someone-else"]);
  });
});
