/**
 * The read API on a seeded volume (2 organisations; ATS_TEST_SESSIONS
 * sessions each, default 150, × 8 events): paging under every supported
 * filter returns every item exactly once in order; stats equal a brute-force
 * recomputation from the raw items; no read issues a Scan; cursors cannot be
 * forged or moved between tenants; expired items are not returned.
 */
import { QueryCommand, UpdateCommand } from "@aws-sdk/lib-dynamodb";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { documentClient, tableName } from "../../functions/store/table/dynamo-client.js";
import { eventKey, sessionKey } from "../../functions/store/table/keys.js";
import type { LocalApi } from "../../local/http-adapter.js";
import { bruteForceStats, comparable } from "../support/brute-force-stats.js";
import { recordDynamoCommands } from "../support/dynamo-call-counter.js";
import {
  call,
  createTestKey,
  createTestSession,
  itemsOfOrganisation,
  scanTable,
  settleCounts,
  startTestApi,
  type TestKey,
} from "../support/fixtures.js";
import { recordModelCall } from "../support/model-calls.js";
import { AGENTS, seedTenant } from "../support/seed.js";

const SESSIONS = Number(process.env.ATS_TEST_SESSIONS ?? 150);
const DAYS = 12;

let api: LocalApi;
let orgA: TestKey;
let orgB: TestKey;
const counter = recordDynamoCommands();

type Item = Record<string, unknown>;

/**
 * One organisation's items, read once after counting settles and shared by the tests that only read them (each
 * read is a filtered scan of the shared table, which is large late in a full run); a test that changes an
 * organisation's items forgets them, so the next reader sees the change.
 */
const organisationItems = new Map<string, Promise<Item[]>>();
function itemsOf(orgId: string): Promise<Item[]> {
  let items = organisationItems.get(orgId);
  if (items === undefined) {
    items = itemsOfOrganisation(orgId);
    organisationItems.set(orgId, items);
  }
  return items;
}
function forgetItemsOf(orgId: string): void {
  organisationItems.delete(orgId);
}

async function rawItems(orgId: string, ofOrganisation?: Item[]): Promise<{ sessions: Item[]; events: Item[] }> {
  const items = (ofOrganisation ?? (await itemsOf(orgId))).filter(
    (item) => item.orgId === orgId && item.environment === "live",
  );
  return {
    sessions: items.filter((item) => item.entity === "session"),
    events: items.filter((item) => item.entity === "event"),
  };
}

/** Every item of one partition. */
async function wholePartition(partitionKey: string): Promise<Item[]> {
  const result = await documentClient.send(
    new QueryCommand({
      TableName: tableName,
      KeyConditionExpression: "PK = :pk",
      ExpressionAttributeValues: { ":pk": partitionKey },
      ConsistentRead: true,
    }),
  );
  return result.Items ?? [];
}

/** A stats period covering every seeded day. */
function period(): string {
  const to = new Date().toISOString().slice(0, 10);
  const from = new Date(Date.now() - (DAYS + 1) * 86_400_000).toISOString().slice(0, 10);
  return `from=${from}&to=${to}`;
}

const newestFirst = (a: Item, b: Item) =>
  `${String(b.createdAt)}#${String(b.id)}`.localeCompare(`${String(a.createdAt)}#${String(a.id)}`);

async function pageThrough(key: string, path: string, limit: number): Promise<string[]> {
  const ids: string[] = [];
  let cursor: string | null = null;
  do {
    const separator = path.includes("?") ? "&" : "?";
    const response = await call(
      api,
      "GET",
      `${path}${separator}limit=${limit}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`,
      { key },
    );
    expect(response.status).toBe(200);
    ids.push(...(response.body.items as { id: string }[]).map((item) => item.id));
    cursor = response.body.nextCursor as string | null;
  } while (cursor !== null);
  return ids;
}

beforeAll(async () => {
  api = await startTestApi();
  const scopes = ["sessions:write", "events:write", "read", "delete"] as const;
  orgA = await createTestKey({ scopes });
  orgB = await createTestKey({ scopes });
  const options = { sessions: SESSIONS, eventsPerSession: 8, users: 12, days: DAYS };
  await Promise.all([
    seedTenant({ ...options, orgId: orgA.orgId, seed: 1 }),
    seedTenant({ ...options, orgId: orgB.orgId, seed: 2 }),
  ]);
}, 600_000);
afterAll(() => api.close());

describe("GET /api/sdk/sessions", () => {
  it("pages through every supported filter: each session exactly once, newest first, never a Scan", async () => {
    const { sessions } = await rawItems(orgA.orgId);
    const sorted = [...sessions].sort(newestFirst);
    const middle = sorted[Math.floor(sorted.length / 3)] as Item;
    const late = sorted[Math.floor((2 * sorted.length) / 3)] as Item;
    const from = String(late.createdAt);
    const to = String(middle.createdAt);
    const cases: [string, (session: Item) => boolean][] = [
      ["", () => true],
      [`agentName=${AGENTS[0]}`, (s) => s.agentName === AGENTS[0]],
      ["userId=user-3", (s) => s.userId === "user-3"],
      ["status=active", (s) => s.status === "active"],
      ["status=failed", (s) => s.status === "failed"],
      [`agentName=${AGENTS[1]}&status=completed`, (s) => s.agentName === AGENTS[1] && s.status === "completed"],
      [`from=${from}&to=${to}`, (s) => String(s.createdAt) >= from && String(s.createdAt) <= to],
      [`agentName=${AGENTS[2]}&from=${from}`, (s) => s.agentName === AGENTS[2] && String(s.createdAt) >= from],
      [`status=completed&to=${to}`, (s) => s.status === "completed" && String(s.createdAt) <= to],
    ];
    counter.reset();
    for (const [query, matches] of cases) {
      const expected = sorted.filter(matches).map((session) => String(session.id));
      const ids = await pageThrough(orgA.key, `/api/sdk/sessions?${query}`, 17);
      expect(ids, query).toEqual(expected);
      expect(new Set(ids).size).toBe(ids.length);
    }
    expect(counter.commands()).not.toContain("ScanCommand");
    expect(counter.commands()).toContain("QueryCommand");
  });

  it("returns every stored field, newest first, and never another tenant's sessions", async () => {
    const response = await call(api, "GET", "/api/sdk/sessions?limit=5", { key: orgB.key });
    const items = response.body.items as Record<string, unknown>[];
    const { sessions } = await rawItems(orgB.orgId);
    expect(items.map((item) => item.id)).toEqual(
      [...sessions]
        .sort(newestFirst)
        .slice(0, 5)
        .map((s) => s.id),
    );
    expect(Object.keys(items[0] ?? {}).sort()).toEqual(
      [
        "agentName",
        "cacheReadTokens",
        "cacheWriteTokens",
        "completedAt",
        "completionTokens",
        "conversationId",
        "countsAsOf",
        "createdAt",
        "customMetrics",
        "durationMs",
        "environment",
        "estimatedCost",
        "eventCost",
        "eventCount",
        "failureReason",
        "id",
        "lastActivityAt",
        "metadata",
        "modelCalls",
        "name",
        "promptTokens",
        "reasoningTokens",
        "stale",
        "status",
        "success",
        "toolCalls",
        "toolErrors",
        "totalTokens",
        "unpricedCalls",
        "updatedAt",
        "userId",
      ].sort(),
    );
  });

  it("refuses a forged, foreign, re-filtered or malformed cursor with 400", async () => {
    const first = await call(api, "GET", "/api/sdk/sessions?limit=2", { key: orgA.key });
    const cursor = String(first.body.nextCursor);
    const [payload, signature] = cursor.split(".");
    const decoded = JSON.parse(Buffer.from(String(payload), "base64url").toString()) as { k: Record<string, string> };
    decoded.k.GSI1PK = String(decoded.k.GSI1PK).replace(orgA.orgId, orgB.orgId);
    const forged = `${Buffer.from(JSON.stringify(decoded)).toString("base64url")}.${signature}`;

    const attempts = [
      await call(api, "GET", `/api/sdk/sessions?cursor=${encodeURIComponent(forged)}`, { key: orgA.key }),
      await call(api, "GET", `/api/sdk/sessions?cursor=${encodeURIComponent(cursor)}`, { key: orgB.key }),
      await call(api, "GET", `/api/sdk/sessions?status=active&cursor=${encodeURIComponent(cursor)}`, { key: orgA.key }),
      await call(api, "GET", "/api/sdk/sessions?cursor=not-a-cursor", { key: orgA.key }),
    ];

    for (const response of attempts) {
      expect(response.status).toBe(400);
      expect(response.body.issues).toEqual([{ path: "cursor", message: "Invalid cursor" }]);
    }
  });

  it("serves every combination of agentName, userId and status (with from/to): full pages, exactly the matching sessions, one index query of `limit` keys per page", async () => {
    // Prepare: the seeded sessions, sorted as the API sorts them; a time range covering the middle third.
    const { sessions } = await rawItems(orgA.orgId);
    const sorted = [...sessions].sort(newestFirst);
    const from = String((sorted[Math.floor((2 * sorted.length) / 3)] as Item).createdAt);
    const to = String((sorted[Math.floor(sorted.length / 3)] as Item).createdAt);
    const values = { agentName: AGENTS[0], userId: "user-3", status: "completed" } as const;
    const names = ["agentName", "userId", "status"] as const;
    const combinations = [0, 1, 2, 3, 4, 5, 6, 7].map((bits) => names.filter((_, index) => bits & (1 << index)));
    const limit = 3;

    for (const combination of combinations) {
      for (const range of [{}, { from, to }]) {
        const filters: Record<string, string> = { ...range };
        for (const name of combination) filters[name] = values[name];
        const query = new URLSearchParams(filters).toString();
        const expected = sorted
          .filter((session) => combination.every((name) => session[name] === values[name]))
          .filter((session) => (range.from === undefined ? true : String(session.createdAt) >= range.from))
          .filter((session) => (range.to === undefined ? true : String(session.createdAt) <= range.to))
          .map((session) => String(session.id));

        // Act: page through, counting what each page reads.
        const ids: string[] = [];
        const pageSizes: number[] = [];
        const keysRead: number[] = [];
        let cursor: string | null = null;
        do {
          counter.reset();
          const cursorPart = cursor === null ? "" : `&cursor=${encodeURIComponent(cursor)}`;
          const response = await call(api, "GET", `/api/sdk/sessions?${query}&limit=${limit}${cursorPart}`, {
            key: orgA.key,
          });
          expect(response.status, query).toBe(200);
          const items = response.body.items as { id: string }[];
          ids.push(...items.map((item) => item.id));
          pageSizes.push(items.length);
          keysRead.push(counter.commands().filter((command) => command === "QueryCommand").length);
          cursor = response.body.nextCursor as string | null;
        } while (cursor !== null);

        // Assess: exactly the expected sessions in order; every page but the last full; one query per page.
        if (range.from === undefined) expect(expected.length, `${query}: the seed has matches`).toBeGreaterThan(limit);
        expect(ids, query).toEqual(expected);
        expect(
          pageSizes.slice(0, -1).every((size) => size === limit),
          query,
        ).toBe(true);
        expect(
          keysRead.every((queries) => queries === 1),
          query,
        ).toBe(true);
        expect(counter.commands()).not.toContain("ScanCommand");
      }
    }
  }, 120_000); // 160+ page requests in a row: the default 30 s ran out after 162 of them while other work ran (a clean-clone run)

  it("rejects bad parameters with 400 naming them", async () => {
    const parameters = await call(api, "GET", "/api/sdk/sessions?limit=500&from=yesterday&colour=red", {
      key: orgA.key,
    });

    expect(parameters.status).toBe(400);
    expect(parameters.body.issues).toEqual([
      { path: "from", message: "Must be an ISO 8601 timestamp, e.g. 2026-11-22T10:00:00Z" },
      { path: "limit", message: "Must be an integer from 1 to 100" },
      { path: "colour", message: "Unknown field" },
    ]);
  });

  it("refines by failure reason, tool called, tool failing and a piece of the name: exactly the matching sessions, newest first, across pages, never a Scan", async () => {
    // Prepare
    const { sessions, events } = await rawItems(orgA.orgId);
    const sessionsWith = (eventType: string, toolName: string) =>
      new Set(
        events
          .filter((event) => event.eventType === eventType && event.toolName === toolName)
          .map((event) => String(event.sessionId)),
      );
    const calledRefund = sessionsWith("tool_call", "refund");
    const emailErrors = sessionsWith("error", "send_email");
    const cases: { query: string; expected: Item[] }[] = [
      {
        query: `agentName=support-bot&status=failed&failureReason=${encodeURIComponent("tool timed out")}`,
        expected: sessions.filter(
          (session) =>
            session.agentName === "support-bot" &&
            session.status === "failed" &&
            session.failureReason === "tool timed out",
        ),
      },
      { query: "toolName=refund", expected: sessions.filter((session) => calledRefund.has(String(session.id))) },
      {
        query: "agentName=triage&toolError=send_email",
        expected: sessions.filter((session) => session.agentName === "triage" && emailErrors.has(String(session.id))),
      },
      {
        query: "nameContains=RUN%2012",
        expected: sessions.filter((session) => String(session.name).startsWith("run 12")),
      },
    ];
    counter.reset();

    // Act
    const listed: string[][] = [];
    for (const { query } of cases) listed.push(await pageThrough(orgA.key, `/api/sdk/sessions?${query}`, 7));

    // Assess
    cases.forEach(({ query, expected }, index) => {
      expect(expected.length, query).toBeGreaterThan(0);
      expect(listed[index], query).toEqual([...expected].sort(newestFirst).map((session) => session.id));
    });
    expect(counter.commands()).not.toContain("ScanCommand");
  });

  it("rejects bad refinements with 400 naming them", async () => {
    const response = await call(api, "GET", `/api/sdk/sessions?nameContains=&toolName=${"t".repeat(257)}`, {
      key: orgA.key,
    });

    expect(response.status).toBe(400);
    expect(response.body).toMatchObject({ error: "Bad Request" });
    expect(response.body.issues).toEqual([
      { path: "toolName", message: "Must be at most 256 characters" },
      { path: "nameContains", message: "Must not be empty" },
    ]);
  });
});

describe("GET /api/sdk/sessions/:id and /events", () => {
  it("returns the session with its counters; events oldest first, filtered and paged", async () => {
    const { sessions, events } = await rawItems(orgA.orgId);
    const session = sessions.find((item) => item.eventCount === 8 && item.status !== "active") as Item;
    const own = events
      .filter((event) => event.sessionId === session.id)
      .sort((a, b) => String(a.id).localeCompare(String(b.id)));

    const detail = await call(api, "GET", `/api/sdk/sessions/${String(session.id)}`, { key: orgA.key });
    const all = await pageThrough(orgA.key, `/api/sdk/sessions/${String(session.id)}/events`, 3);
    const toolCalls = await call(
      api,
      "GET",
      `/api/sdk/sessions/${String(session.id)}/events?eventType=tool_call&fields=summary`,
      {
        key: orgA.key,
      },
    );
    const unsure = await call(
      api,
      "GET",
      `/api/sdk/sessions/${String(session.id)}/events?eventType=llm_decision&maxConfidence=0.5`,
      { key: orgA.key },
    );

    expect(detail.status).toBe(200);
    expect(detail.body).toMatchObject({ id: session.id, eventCount: 8, eventCost: session.eventCost, stale: false });
    expect(all).toEqual(own.map((event) => event.id));
    const calls = toolCalls.body.items as Record<string, unknown>[];
    expect(calls.map((event) => event.id)).toEqual(own.filter((e) => e.eventType === "tool_call").map((e) => e.id));
    expect(calls.every((event) => !("toolInput" in event) && !("toolOutput" in event))).toBe(true);
    expect((unsure.body.items as { id: string }[]).map((event) => event.id)).toEqual(
      own.filter((e) => e.eventType === "llm_decision" && Number(e.confidence) <= 0.5).map((e) => e.id),
    );
  });

  it("answers 403 for another organisation's session and 404 for an unknown one", async () => {
    const { sessions } = await rawItems(orgA.orgId);
    const id = String(sessions[0]?.id);
    expect((await call(api, "GET", `/api/sdk/sessions/${id}`, { key: orgB.key })).status).toBe(403);
    expect((await call(api, "GET", `/api/sdk/sessions/${id}/events`, { key: orgB.key })).status).toBe(403);
    expect((await call(api, "GET", "/api/sdk/sessions/ses_01JAAAAAAAAAAAAAAAAAAAAAAA", { key: orgA.key })).status).toBe(
      404,
    );
  });

  it("reports an active session idle for over an hour as stale", async () => {
    const { sessions } = await rawItems(orgA.orgId);
    const idle = sessions.find(
      (item) => item.status === "active" && Date.now() - Date.parse(String(item.lastActivityAt)) > 3_600_000,
    );
    const response = await call(api, "GET", `/api/sdk/sessions/${String(idle?.id)}`, { key: orgA.key });
    expect(response.body.stale).toBe(true);
  });

  it("does not return items whose TTL has passed (DynamoDB deletes them lazily)", async () => {
    const { sessions, events } = await rawItems(orgB.orgId);
    const session = sessions.find((item) => Number(item.eventCount) > 1) as Item;
    const event = events.find((item) => item.sessionId === session.id) as Item;
    const past = Math.floor(Date.now() / 1000) - 60;
    await documentClient.send(
      new UpdateCommand({
        TableName: tableName,
        Key: eventKey(String(session.id), String(event.id)),
        UpdateExpression: "SET #ttl = :past",
        ExpressionAttributeNames: { "#ttl": "ttl" },
        ExpressionAttributeValues: { ":past": past },
      }),
    );
    forgetItemsOf(orgB.orgId);
    const eventsAfter = await pageThrough(orgB.key, `/api/sdk/sessions/${String(session.id)}/events`, 50);
    expect(eventsAfter).not.toContain(event.id);

    await documentClient.send(
      new UpdateCommand({
        TableName: tableName,
        Key: sessionKey(String(session.id)),
        UpdateExpression: "SET #ttl = :past",
        ExpressionAttributeNames: { "#ttl": "ttl" },
        ExpressionAttributeValues: { ":past": past },
      }),
    );
    expect((await call(api, "GET", `/api/sdk/sessions/${String(session.id)}`, { key: orgB.key })).status).toBe(404);
    expect(await pageThrough(orgB.key, "/api/sdk/sessions", 100)).not.toContain(session.id);
  });
});

describe("analytics", () => {
  it("lists the agents with their session counts", async () => {
    const { sessions } = await rawItems(orgA.orgId);
    const response = await call(api, "GET", "/api/sdk/agents", { key: orgA.key });
    const expected = AGENTS.map((agentName) => ({
      agentName,
      sessionCount: sessions.filter((session) => session.agentName === agentName).length,
    })).filter((agent) => agent.sessionCount > 0);
    expect(response.body.items).toEqual(expect.arrayContaining(expected));
    expect((response.body.items as unknown[]).length).toBe(expected.length);
  });

  it("with a period, lists each agent's totals and last active day, and the organisation's figures as their sum: equal to a brute-force recomputation", async () => {
    // Prepare
    const { sessions, events } = await rawItems(orgA.orgId);
    counter.reset();

    // Act
    const response = await call(api, "GET", `/api/sdk/agents?${period()}`, { key: orgA.key });

    // Assess
    expect(response.status).toBe(200);
    expect(comparable(response.body as never)).toEqual(bruteForceStats(sessions, events, () => true));
    const items = response.body.items as {
      agentName: string;
      totals: Record<string, unknown>;
      lastActiveDay: string;
    }[];
    expect(items.map((item) => item.agentName).sort()).toEqual(
      [...new Set(sessions.map((session) => String(session.agentName)))].sort(),
    );
    for (const item of items) {
      const mine = (session: Item) => session.agentName === item.agentName;
      const empty = { days: [], topFailureReasons: [], topToolsByCalls: [], topToolsByErrors: [] };
      expect(comparable({ totals: item.totals, ...empty } as never).totals, item.agentName).toEqual(
        bruteForceStats(sessions, events, mine).totals,
      );
      const newestDay = sessions
        .filter(mine)
        .map((session) => String(session.createdAt).slice(0, 10))
        .sort()
        .at(-1);
      expect(item.lastActiveDay, item.agentName).toBe(newestDay);
    }
    expect(response.body).toMatchObject({ agentsWithoutStats: 0 });
    expect(counter.commands()).not.toContain("ScanCommand");
  });

  it("refuses a period that ends before it starts with 400 naming the parameter", async () => {
    const response = await call(api, "GET", "/api/sdk/agents?from=2026-11-22&to=2026-11-01", { key: orgA.key });

    expect(response.status).toBe(400);
    expect(response.body).toMatchObject({ error: "Bad Request" });
    expect(response.body.issues).toEqual([{ path: "to", message: "Must not be before from" }]);
  });

  it("per-agent and per-user stats equal a brute-force recomputation from the raw items", async () => {
    const { sessions, events } = await rawItems(orgA.orgId);
    counter.reset();
    for (const agentName of AGENTS) {
      const response = await call(api, "GET", `/api/sdk/agents/${agentName}/stats?${period()}`, { key: orgA.key });
      expect(response.status).toBe(200);
      expect(comparable(response.body as never), agentName).toEqual(
        bruteForceStats(sessions, events, (session) => session.agentName === agentName),
      );
    }
    const user = await call(api, "GET", `/api/sdk/users/user-5/stats?${period()}`, { key: orgA.key });
    expect(comparable(user.body as never)).toEqual(bruteForceStats(sessions, events, (s) => s.userId === "user-5"));
    expect(counter.commands()).not.toContain("ScanCommand");
  });
});

describe("model calls by model, and session totals", () => {
  const zero = {
    calls: 0,
    estimatedCost: 0,
    promptTokens: 0,
    completionTokens: 0,
    totalTokens: 0,
    cacheReadTokens: 0,
    cacheWriteTokens: 0,
    reasoningTokens: 0,
    unpricedCalls: 0,
  };

  it("serves per-model figures per agent and for the organisation, never another's; sessions apply the totals rule; a deletion withdraws its calls", async () => {
    // Prepare: two agents; costs exact in binary.
    const owner = await createTestKey({ scopes: ["sessions:write", "events:write", "read", "delete"] });
    const [first, second, third] = await Promise.all([
      createTestSession(api, owner.key, { agentName: "models-a" }),
      createTestSession(api, owner.key, { agentName: "models-a" }),
      createTestSession(api, owner.key, { agentName: "models-b" }),
    ]);
    const s1 = first as string;
    const s2 = second as string;
    await Promise.all([
      recordModelCall(owner.orgId, s1, {
        model: "gpt-4o",
        usage: { promptTokens: 100, completionTokens: 20 },
        estimatedCost: 0.5,
        costSource: "table",
      }),
      recordModelCall(owner.orgId, s1, {
        model: "__proto__",
        usage: { promptTokens: 10, completionTokens: 5, totalTokens: 15 },
        costSource: "unpriced",
      }),
      recordModelCall(owner.orgId, s1, {
        usage: { promptTokens: 7, totalTokens: 7 },
        estimatedCost: 0.25,
        costSource: "reported",
      }),
      recordModelCall(owner.orgId, s2, {
        model: "gpt-4o",
        usage: { promptTokens: 200, completionTokens: 40, cacheReadTokens: 50 },
        estimatedCost: 1,
        costSource: "table",
      }),
      recordModelCall(owner.orgId, third as string, {
        model: "constructor",
        usage: { completionTokens: 9, reasoningTokens: 5 },
        estimatedCost: 0.125,
        costSource: "organisation",
      }),
    ]);
    const reported = await call(api, "PATCH", `/api/sdk/sessions/${s2}`, {
      key: owner.key,
      body: { status: "completed", estimatedCost: 3, promptTokens: 999 },
    });
    expect(reported.status).toBe(200);
    await settleCounts();

    // Act
    const agentA = await call(api, "GET", `/api/sdk/agents/models-a/models?${period()}`, { key: owner.key });
    const organisation = await call(api, "GET", `/api/sdk/models?${period()}`, { key: owner.key });

    // Assess
    const gpt = { ...zero, model: "gpt-4o", calls: 2, estimatedCost: 1.5, promptTokens: 300, completionTokens: 60 };
    const gptLine = { ...gpt, totalTokens: 360, cacheReadTokens: 50 };
    const protoLine = {
      ...zero,
      model: "__proto__",
      calls: 1,
      promptTokens: 10,
      completionTokens: 5,
      totalTokens: 15,
      unpricedCalls: 1,
    };
    const unnamedLine = { ...zero, model: null, calls: 1, estimatedCost: 0.25, promptTokens: 7, totalTokens: 7 };
    const constructorLine = {
      ...zero,
      model: "constructor",
      calls: 1,
      estimatedCost: 0.125,
      completionTokens: 9,
      totalTokens: 0,
      reasoningTokens: 5,
    };
    expect(agentA.status).toBe(200);
    expect(agentA.body.agentName).toBe("models-a");
    expect(agentA.body.models).toEqual([gptLine, protoLine, unnamedLine]);
    expect(agentA.body.totals).toEqual({
      ...zero,
      calls: 4,
      estimatedCost: 1.75,
      promptTokens: 317,
      completionTokens: 65,
      totalTokens: 382,
      cacheReadTokens: 50,
      unpricedCalls: 1,
    });
    expect(organisation.status).toBe(200);
    expect(organisation.body.models).toEqual([gptLine, constructorLine, protoLine, unnamedLine]);
    expect(organisation.body).toMatchObject({ agentsWithoutStats: 0, totals: { calls: 5, estimatedCost: 1.875 } });
    // Another organisation's key sees nothing of this one (it has sessions of its own, no model calls).
    const foreign = await call(api, "GET", `/api/sdk/models?${period()}`, { key: orgB.key });
    expect(foreign.body).toMatchObject({ models: [], totals: zero, agentsWithoutStats: 0 });
    const foreignAgent = await call(api, "GET", "/api/sdk/agents/models-a/models", { key: orgB.key });
    expect(foreignAgent.body).toMatchObject({ models: [], totals: zero });

    // The totals rule: the client's figures when it reported them, else the sums over the events.
    const sessionOne = await call(api, "GET", `/api/sdk/sessions/${s1}`, { key: owner.key });
    expect(sessionOne.body).toMatchObject({
      estimatedCost: 0.75,
      promptTokens: 117,
      completionTokens: 25,
      totalTokens: 142,
      // No call of the session reported these types: unknown, not 0.
      cacheReadTokens: null,
      reasoningTokens: null,
      modelCalls: 3,
      unpricedCalls: 1,
    });
    const listed = await call(api, "GET", "/api/sdk/sessions?agentName=models-a", { key: owner.key });
    const sessionTwo = (listed.body.items as { id: string }[]).find((item) => item.id === s2);
    expect(sessionTwo).toMatchObject({
      estimatedCost: 3,
      promptTokens: 999,
      completionTokens: 40,
      totalTokens: 240,
      cacheReadTokens: 50,
      eventCost: 1,
      modelCalls: 1,
    });

    // A deleted session's model calls are withdrawn from its agent's day.
    expect((await call(api, "DELETE", `/api/sdk/sessions/${s1}`, { key: owner.key })).status).toBe(204);
    const afterDeletion = await call(api, "GET", `/api/sdk/agents/models-a/models?${period()}`, { key: owner.key });
    expect(afterDeletion.body.models).toEqual([
      {
        ...zero,
        model: "gpt-4o",
        calls: 1,
        estimatedCost: 1,
        promptTokens: 200,
        completionTokens: 40,
        totalTokens: 240,
        cacheReadTokens: 50,
      },
    ]);
  });

  it("refuses a bad period with 400 naming the parameter, as the stats routes", async () => {
    const reversed = await call(api, "GET", "/api/sdk/models?from=2026-11-22&to=2026-11-01", { key: orgA.key });
    expect(reversed.status).toBe(400);
    expect(reversed.body.issues).toEqual([{ path: "to", message: "Must not be before from" }]);
    const long = await call(api, "GET", "/api/sdk/agents/a/models?from=2024-01-01&to=2026-01-01", { key: orgA.key });
    expect(long.status).toBe(400);
    expect(long.body.issues).toEqual([{ path: "from", message: "Must be at most 366 days before to" }]);
  });
});

describe("deletion", () => {
  it("DELETE /api/sdk/sessions/:id removes the session, its events and its rollup contribution", async () => {
    const { sessions } = await rawItems(orgA.orgId);
    const victim = sessions.find((item) => item.status === "failed" && Number(item.eventCount) > 0) as Item;

    const response = await call(api, "DELETE", `/api/sdk/sessions/${String(victim.id)}`, { key: orgA.key });

    expect(response.status).toBe(204);
    forgetItemsOf(orgA.orgId);
    const after = await rawItems(orgA.orgId);
    expect(after.sessions.map((s) => s.id)).not.toContain(victim.id);
    expect(after.events.filter((event) => event.sessionId === victim.id)).toEqual([]);
    const agentName = String(victim.agentName);
    const stats = await call(api, "GET", `/api/sdk/agents/${agentName}/stats?${period()}`, { key: orgA.key });
    expect(comparable(stats.body as never)).toEqual(
      bruteForceStats(after.sessions, after.events, (session) => session.agentName === agentName),
    );
    expect((await call(api, "DELETE", `/api/sdk/sessions/${String(victim.id)}`, { key: orgA.key })).status).toBe(404);
  });

  it("DELETE /api/sdk/users/:userId erases the user's data asynchronously; rollups corrected; other tenants untouched", async () => {
    // One organisation's items per read (the shared table is large by the time this file runs late in a full run:
    // five whole-table scans here took this test past its 30 s timeout on a loaded machine).
    const orgItemsBefore = await itemsOf(orgA.orgId);
    const before = await rawItems(orgA.orgId, orgItemsBefore);
    const userId = "user-7";
    const owned = before.sessions.filter((session) => session.userId === userId);
    const otherOrgBefore = (await rawItems(orgB.orgId)).sessions.filter((s) => s.userId === userId).length;
    // A session of the user deleted earlier (the test above picks its victim among all sessions) left its own.
    const earlierTombstones = orgItemsBefore
      .filter((item) => item.userId === userId && item.entity === "sessionTombstone")
      .map((item) => item.id);

    const accepted = await call(api, "DELETE", `/api/sdk/users/${userId}`, { key: orgA.key });
    expect(accepted.status).toBe(202);
    const jobId = String(accepted.body.jobId);
    let job: Record<string, unknown> = {};
    for (let attempt = 0; attempt < 200 && job.status !== "completed"; attempt++) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      job = (await call(api, "GET", `/api/sdk/deletions/${jobId}`, { key: orgA.key })).body;
    }

    expect(job).toMatchObject({
      jobId,
      status: "completed",
      deletedSessions: owned.length,
      deletedEvents: owned.reduce((sum, session) => sum + Number(session.eventCount), 0),
    });
    const ownedIds = new Set(owned.map((session) => session.id));
    const orgItemsAfter = await scanTable(orgA.orgId);
    const remaining = orgItemsAfter.filter((item) => item.userId === userId);
    // The job, and per erased session a counting tombstone (marks and where it was counted, no content) that
    // DynamoDB TTL removes within two days (functions/store/sessions/session-tombstone.ts).
    const tombstones = remaining.filter((item) => item.entity === "sessionTombstone");
    expect(remaining.filter((item) => item.entity !== "sessionTombstone").map((item) => item.entity)).toEqual([
      "deletionJob",
    ]);
    expect(tombstones.map((item) => item.id).sort()).toEqual([...ownedIds, ...earlierTombstones].sort());
    for (const tombstone of tombstones) {
      expect(Number(tombstone.ttl)).toBeLessThanOrEqual(Date.now() / 1000 + 2 * 24 * 3600 + 60);
      expect(Object.keys(tombstone)).not.toEqual(expect.arrayContaining(["name"]));
      expect(Object.keys(tombstone)).not.toEqual(expect.arrayContaining(["metadataJson"]));
    }
    // Nothing but the counting tombstone (checked above) is left in an erased session's partition.
    const leftInPartitions = await Promise.all([...ownedIds].map((id) => wholePartition(sessionKey(String(id)).PK)));
    expect(leftInPartitions.flat().filter((item) => item.entity !== "sessionTombstone")).toEqual([]);
    expect(leftInPartitions.flat().length).toBe(ownedIds.size);
    forgetItemsOf(orgB.orgId);
    expect((await rawItems(orgB.orgId)).sessions.filter((s) => s.userId === userId).length).toBe(otherOrgBefore);
    const after = await rawItems(orgA.orgId, orgItemsAfter);
    const userStats = await call(api, "GET", `/api/sdk/users/${userId}/stats?${period()}`, { key: orgA.key });
    expect((userStats.body.totals as { sessions: number }).sessions).toBe(0);
    for (const agentName of AGENTS) {
      const stats = await call(api, "GET", `/api/sdk/agents/${agentName}/stats?${period()}`, { key: orgA.key });
      expect(comparable(stats.body as never)).toEqual(
        bruteForceStats(after.sessions, after.events, (s) => s.agentName === agentName),
      );
    }
    const again = await call(api, "DELETE", `/api/sdk/users/${userId}`, { key: orgA.key });
    expect(again.status).toBe(202);
    expect(again.body.jobId).not.toBe(jobId);
  });
});
