/**
 * POST /api/sdk/metrics over HTTP against DynamoDB Local: sessions, events and scores recorded through the API and
 * counted once (one drain), then the metrics answers compared with what the stats routes say for the same data —
 * per day and in total, per agent, per user, per model and per tool, a score name's figures —; the hourly series;
 * paging with signed cursors; the 400s (status and message); another organisation's data never counted.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { LocalApi } from "../../local/http-adapter.js";
import {
  type ApiResponse,
  call,
  createTestKey,
  createTestUser,
  settleCounts,
  startTestApi,
  type TestKey,
} from "../support/fixtures.js";

let api: LocalApi;
let owner: TestKey;
let other: TestKey;

const SCOPES = ["sessions:write", "events:write", "scores:write", "read"] as const;
const HOUR = 3_600_000;
const earlier = new Date(Date.now() - 26 * HOUR).toISOString();
const today = new Date().toISOString().slice(0, 10);
const from = new Date(Date.now() - 3 * 24 * HOUR).toISOString().slice(0, 10);
const period = `from=${from}&to=${today}`;

interface Run {
  readonly agentName: string;
  readonly userId: string;
  readonly startedAt?: string | undefined;
  readonly events: readonly Record<string, unknown>[];
  readonly end: Record<string, unknown>;
  readonly scores?: readonly Record<string, unknown>[];
}

/** A session through the API: started, its events, ended, its scores. */
async function record(key: string, run: Run): Promise<void> {
  const created = await call(api, "POST", "/api/sdk/sessions", {
    key,
    body: { name: "metrics run", agentName: run.agentName, userId: run.userId, startedAt: run.startedAt },
  });
  if (created.status !== 201) throw new Error(`session not created: ${created.text}`);
  const sessionId = String(created.body.id);
  const batch = await call(api, "POST", "/api/sdk/events/batch", {
    key,
    body: { events: run.events.map((event) => ({ sessionId, ...event })) },
  });
  if (batch.status !== 200) throw new Error(`events not created: ${batch.text}`);
  const ended = await call(api, "PATCH", `/api/sdk/sessions/${sessionId}`, { key, body: run.end });
  if (ended.status !== 200) throw new Error(`session not ended: ${ended.text}`);
  for (const score of run.scores ?? []) {
    const scored = await call(api, "POST", "/api/sdk/scores", { key, body: { sessionId, ...score } });
    if (scored.status !== 201) throw new Error(`score not created: ${scored.text}`);
  }
}

const lookup = { eventType: "tool_call", toolName: "lookup" };
const search = { eventType: "tool_call", toolName: "search" };
const lookupError = { eventType: "error", toolName: "lookup" };
const gptX = {
  eventType: "llm_decision",
  model: "gpt-x",
  usage: { promptTokens: 100, completionTokens: 20 },
  estimatedCost: 0.5,
};
const gptY = {
  eventType: "llm_decision",
  model: "gpt-y",
  usage: { promptTokens: 40, completionTokens: 10 },
  estimatedCost: 0.25,
};
const unnamed = { eventType: "llm_decision", usage: { promptTokens: 7, completionTokens: 3 }, estimatedCost: 0.01 };

const RUNS: readonly Run[] = [
  {
    agentName: "m-alpha",
    userId: "m-user-1",
    startedAt: earlier,
    events: [lookup, lookup, lookupError, gptX],
    end: { status: "completed", success: true, durationMs: 1200 },
    scores: [{ name: "quality", value: 0.8 }],
  },
  {
    agentName: "m-alpha",
    userId: "m-user-2",
    events: [search, gptY, gptX],
    end: { status: "failed", failureReason: "refund API down", durationMs: 5000 },
    scores: [
      { name: "quality", value: 0.4 },
      { name: "resolved", value: false },
    ],
  },
  {
    agentName: "m-alpha",
    userId: "m-user-1",
    events: [lookup, unnamed],
    end: { status: "completed", success: false, durationMs: 800, estimatedCost: 2 },
  },
  {
    agentName: "m-beta",
    userId: "m-user-1",
    events: [search, search, gptY],
    end: { status: "completed", success: true, durationMs: 300 },
    scores: [{ name: "quality", value: 1 }],
  },
];

beforeAll(async () => {
  api = await startTestApi();
  owner = await createTestKey({ scopes: SCOPES });
  other = await createTestKey({ scopes: SCOPES });
  await Promise.all(RUNS.map((run) => record(owner.key, run)));
  // Another organisation with an agent and a user of the same names: never in the owner's answers.
  await record(other.key, { ...(RUNS[0] as Run), startedAt: undefined, scores: [] });
  await record(other.key, { ...(RUNS[3] as Run), agentName: "m-alpha" });
  await settleCounts();
}, 60_000);
afterAll(() => api.close());

async function metrics(body: Record<string, unknown>, key = owner.key): Promise<ApiResponse> {
  return call(api, "POST", "/api/sdk/metrics", { key, body: { from, to: today, ...body } });
}

async function rowsOf(body: Record<string, unknown>, key = owner.key): Promise<Record<string, unknown>[]> {
  const response = await metrics(body, key);
  expect(response.status, response.text).toBe(200);
  return response.body.rows as Record<string, unknown>[];
}

async function get(path: string, key = owner.key): Promise<Record<string, unknown>> {
  const response = await call(api, "GET", path, { key });
  expect(response.status, response.text).toBe(200);
  return response.body;
}

type Summary = {
  sessions: number;
  completed: number;
  failed: number;
  successRate: number | null;
  events: number;
  eventCost: number;
  reportedCost: number;
  promptTokens: number;
  completionTokens: number;
  totalTokens: number;
  durationMs: { mean: number | null; p50: number | null; p95: number | null; p99: number | null };
};
const DAY_MEASURES = [
  "sessions",
  "completed",
  "failed",
  "successRate",
  "events",
  "eventCost",
  "reportedCost",
  "promptTokens",
  "completionTokens",
  "totalTokens",
  "durationMean",
  "durationP50",
  "durationP95",
  "durationP99",
];

/** A stats summary (AgentStats, UserStats: totals or a day) as the metrics measures name it. */
function asMeasures(summary: Summary): Record<string, unknown> {
  const { durationMs, ...counts } = summary;
  const measures: Record<string, unknown> = { ...counts };
  delete measures.day;
  return {
    ...measures,
    durationMean: durationMs.mean,
    durationP50: durationMs.p50,
    durationP95: durationMs.p95,
    durationP99: durationMs.p99,
  };
}

describe("POST /api/sdk/metrics answers what the stats routes say", () => {
  it("per agent, per day and in total, with tool calls and errors", async () => {
    const measures = [...DAY_MEASURES, "toolCalls", "toolErrors"];
    const byDay = await rowsOf({ measures, groupBy: ["agent"] });
    const totals = await rowsOf({ measures, groupBy: ["agent"], granularity: "total" });

    for (const agentName of ["m-alpha", "m-beta"]) {
      const stats = (await get(`/api/sdk/agents/${agentName}/stats?${period}`)) as {
        days: (Summary & { day: string })[];
        totals: Summary;
        topToolsByCalls: { calls: number }[];
        topToolsByErrors: { errors: number }[];
      };
      const toolCalls = stats.topToolsByCalls.reduce((sum, tool) => sum + tool.calls, 0);
      const toolErrors = stats.topToolsByErrors.reduce((sum, tool) => sum + tool.errors, 0);
      expect(
        byDay.filter((row) => row.agent === agentName).map(({ toolCalls: _c, toolErrors: _e, ...row }) => row),
      ).toEqual(stats.days.map((day) => ({ time: day.day, agent: agentName, ...asMeasures(day) })));
      expect(totals.find((row) => row.agent === agentName)).toEqual({
        agent: agentName,
        ...asMeasures(stats.totals),
        toolCalls,
        toolErrors,
      });
    }
    // Known figures, so that equality with the stats routes is not equality of two empty answers.
    expect(totals.map((row) => [row.agent, row.sessions, row.failed, row.toolCalls, row.toolErrors])).toEqual([
      ["m-alpha", 3, 1, 4, 1],
      ["m-beta", 1, 0, 2, 0],
    ]);
    expect(new Set(byDay.filter((row) => row.agent === "m-alpha").map((row) => row.time)).size).toBe(
      earlier.slice(0, 10) === today ? 1 : 2,
    );
  });

  it("for the tenant: the sum of its agents, per day, as GET /api/sdk/agents", async () => {
    const overview = (await get(`/api/sdk/agents?${period}`)) as {
      days: (Summary & { day: string })[];
      totals: Summary;
    };
    expect(await rowsOf({ measures: DAY_MEASURES })).toEqual(
      overview.days.map((day) => ({ time: day.day, ...asMeasures(day) })),
    );
    const [total] = await rowsOf({ measures: DAY_MEASURES, granularity: "total" });
    expect(total).toEqual(asMeasures(overview.totals));
    expect(total?.sessions).toBe(4);
  });

  it("per user, named, as the user stats", async () => {
    const users = ["m-user-1", "m-user-2"];
    const byDay = await rowsOf({ measures: DAY_MEASURES, groupBy: ["user"], filters: { user: users } });
    for (const userId of users) {
      const stats = (await get(`/api/sdk/users/${userId}/stats?${period}`)) as { days: (Summary & { day: string })[] };
      expect(byDay.filter((row) => row.user === userId)).toEqual(
        stats.days.map((day) => ({ time: day.day, user: userId, ...asMeasures(day) })),
      );
    }
    const totals = await rowsOf({
      measures: ["sessions", "toolCalls"],
      groupBy: ["user"],
      filters: { user: users },
      granularity: "total",
    });
    expect(totals).toEqual([
      { user: "m-user-1", sessions: 3, toolCalls: 5 },
      { user: "m-user-2", sessions: 1, toolCalls: 1 },
    ]);
  });

  it("per model, of an agent and of the tenant, as the models routes", async () => {
    const modelMeasures = {
      modelCalls: "calls",
      modelCost: "estimatedCost",
      modelPromptTokens: "promptTokens",
      modelCompletionTokens: "completionTokens",
      modelTotalTokens: "totalTokens",
      modelCacheReadTokens: "cacheReadTokens",
      modelCacheWriteTokens: "cacheWriteTokens",
      modelReasoningTokens: "reasoningTokens",
      unpricedCalls: "unpricedCalls",
    } as const;
    const asLine = (row: Record<string, unknown>) =>
      Object.fromEntries([
        ["model", row.model],
        ...Object.entries(modelMeasures).map(([measure, field]) => [field, row[measure]]),
      ]);
    const measures = Object.keys(modelMeasures);
    const byName = (a: Record<string, unknown>, b: Record<string, unknown>) =>
      String(a.model ?? "~").localeCompare(String(b.model ?? "~"));

    const agent = (await get(`/api/sdk/agents/m-alpha/models?${period}`)) as { models: Record<string, unknown>[] };
    const agentRows = await rowsOf({
      measures,
      groupBy: ["model"],
      filters: { agent: ["m-alpha"] },
      granularity: "total",
    });
    expect(agentRows.map(asLine).sort(byName)).toEqual([...agent.models].sort(byName));
    expect(agentRows.map((row) => [row.model, row.modelCalls])).toEqual([
      ["gpt-x", 2],
      ["gpt-y", 1],
      [null, 1],
    ]);

    const tenant = (await get(`/api/sdk/models?${period}`)) as { models: Record<string, unknown>[] };
    const tenantRows = await rowsOf({ measures, groupBy: ["model"], granularity: "total" });
    expect(tenantRows.map(asLine).sort(byName)).toEqual([...tenant.models].sort(byName));

    // Filtered to one model, per agent and day: the day's calls of that model only.
    const filtered = await rowsOf({
      measures: ["modelCalls"],
      groupBy: ["agent"],
      filters: { model: ["gpt-y"] },
      granularity: "total",
    });
    expect(filtered).toEqual([
      { agent: "m-alpha", modelCalls: 1 },
      { agent: "m-beta", modelCalls: 1 },
    ]);
  });

  it("per tool, and one score name's figures, as the agent stats", async () => {
    const tools = await rowsOf({
      measures: ["toolCalls", "toolErrors"],
      groupBy: ["agent", "tool"],
      granularity: "total",
    });
    const stats = (await get(`/api/sdk/agents/m-alpha/stats?${period}`)) as {
      topToolsByCalls: { toolName: string; calls: number }[];
      scores: {
        name: string;
        count: number;
        numeric: { mean: number; p50: number; p90: number; p99: number } | null;
      }[];
    };
    expect(
      tools.filter((row) => row.agent === "m-alpha").map((row) => ({ toolName: row.tool, calls: row.toolCalls })),
    ).toEqual([...stats.topToolsByCalls].sort((a, b) => a.toolName.localeCompare(b.toolName)));
    expect(tools).toContainEqual({ agent: "m-alpha", tool: "lookup", toolCalls: 3, toolErrors: 1 });

    const scores = await rowsOf({
      measures: ["scoreCount", "scoreMean", "scoreP50", "scoreP90", "scoreP99", "scoreTrueShare"],
      groupBy: ["agent"],
      filters: { score: "quality" },
      granularity: "total",
    });
    const quality = stats.scores.find((score) => score.name === "quality");
    expect(scores.find((row) => row.agent === "m-alpha")).toEqual({
      agent: "m-alpha",
      scoreCount: quality?.count,
      scoreMean: quality?.numeric?.mean,
      scoreP50: quality?.numeric?.p50,
      scoreP90: quality?.numeric?.p90,
      scoreP99: quality?.numeric?.p99,
      scoreTrueShare: null,
    });
    expect(scores.map((row) => [row.agent, row.scoreCount, row.scoreMean])).toEqual([
      ["m-alpha", 2, 0.6],
      ["m-beta", 1, 1],
    ]);
  });

  it("by hour from the hourly series: started at their start, ended at their end", async () => {
    const body = {
      granularity: "hour",
      from: new Date(Date.now() - 30 * HOUR).toISOString(),
      to: new Date().toISOString(),
      measures: [
        "sessionsStarted",
        "sessionsEnded",
        "sessionsEndedFailed",
        "errorEvents",
        "costAtTime",
        "endedDurationP99",
      ],
    };
    const all = await rowsOf(body);
    const perAgent = await rowsOf({ ...body, groupBy: ["agent"] });
    const sum = (rows: Record<string, unknown>[], measure: string) =>
      rows.reduce((total, row) => total + Number(row[measure]), 0);
    expect([
      sum(all, "sessionsStarted"),
      sum(all, "sessionsEnded"),
      sum(all, "sessionsEndedFailed"),
      sum(all, "errorEvents"),
    ]).toEqual([4, 4, 1, 1]);
    expect(sum(perAgent, "sessionsStarted")).toBe(4);
    expect(perAgent.filter((row) => row.agent === "m-beta").map((row) => row.sessionsStarted)).toEqual([1]);
    // The earlier session started in its own hour, 26 hours ago.
    const startHour = new Date(Math.floor(Date.parse(earlier) / HOUR) * HOUR).toISOString();
    expect(all.find((row) => row.time === startHour)?.sessionsStarted).toBe(1);
    expect(sum(all, "costAtTime")).toBeCloseTo(0.5 * 2 + 0.25 * 2 + 0.01, 9);
  });
});

describe("paging and tenancy", () => {
  it("pages through the rows with signed cursors bound to the query", async () => {
    const query = { measures: ["toolCalls"], groupBy: ["agent", "tool"], granularity: "total" };
    const all = await rowsOf(query);
    expect(all.length).toBe(3);
    const paged: Record<string, unknown>[] = [];
    let cursor: string | undefined;
    do {
      const page = await metrics({ ...query, limit: 1, ...(cursor === undefined ? {} : { cursor }) });
      expect(page.status, page.text).toBe(200);
      paged.push(...(page.body.rows as Record<string, unknown>[]));
      cursor = page.body.nextCursor === null ? undefined : String(page.body.nextCursor);
    } while (cursor !== undefined);
    expect(paged).toEqual(all);

    const first = await metrics({ ...query, limit: 1 });
    const foreign = await metrics({ ...query, measures: ["toolErrors"], limit: 1, cursor: first.body.nextCursor });
    expect(foreign.status).toBe(400);
    expect(foreign.body.message).toBe(
      "Invalid cursor: pass back the nextCursor of the previous page of the same query unchanged",
    );
    const otherTenant = await metrics({ ...query, limit: 1, cursor: first.body.nextCursor }, other.key);
    expect(otherTenant.status).toBe(400);
    const forged = await metrics({ ...query, limit: 1, cursor: `${String(first.body.nextCursor)}x` });
    expect(forged.status).toBe(400);
  });

  it("answers a signed-in member of the organisation (the console) exactly as its key", async () => {
    const member = await createTestUser(api, { orgId: owner.orgId, role: "member" });
    const body = { from, to: today, measures: ["sessions", "durationP50"], groupBy: ["agent"] };
    const byUser = await call(api, "POST", "/api/sdk/metrics", {
      key: member.token,
      headers: { "x-organization-id": owner.orgId, "x-environment": "live" },
      body,
    });
    expect(byUser.status, byUser.text).toBe(200);
    expect(byUser.body).toEqual((await metrics(body)).body);
    const testEnvironment = await call(api, "POST", "/api/sdk/metrics", {
      key: member.token,
      headers: { "x-organization-id": owner.orgId, "x-environment": "test" },
      body,
    });
    expect(testEnvironment.body.rows).toEqual([]);
  });

  it("never counts another organisation's data", async () => {
    const mine = await rowsOf({ measures: ["sessions", "toolCalls"], groupBy: ["agent"], granularity: "total" });
    const theirs = await rowsOf(
      { measures: ["sessions", "toolCalls"], groupBy: ["agent"], granularity: "total" },
      other.key,
    );
    expect(mine).toEqual([
      { agent: "m-alpha", sessions: 3, toolCalls: 4 },
      { agent: "m-beta", sessions: 1, toolCalls: 2 },
    ]);
    expect(theirs).toEqual([{ agent: "m-alpha", sessions: 2, toolCalls: 4 }]);
    const theirUser = await rowsOf(
      { measures: ["sessions"], filters: { user: ["m-user-2"] }, granularity: "total" },
      other.key,
    );
    expect(theirUser).toEqual([]);
  });
});

describe("refusals: status and message", () => {
  it.each([
    [
      { measures: ["sessions"], groupBy: ["model"] },
      "Invalid metrics query: per model only modelCalls, modelCost, modelPromptTokens, modelCompletionTokens, modelTotalTokens, modelCacheReadTokens, modelCacheWriteTokens, modelReasoningTokens, unpricedCalls are counted; sessions is not: drop model from groupBy and filters, or ask for that measure in another query",
      "measures",
    ],
    [
      { measures: ["sessions"], groupBy: ["user"] },
      "Invalid metrics query: grouping by user needs the users named in filters.user (at most 20): the rollups keep no list of a tenant's users",
      "filters.user",
    ],
    [
      { measures: ["modelCalls"], filters: { user: ["m-user-1"] } },
      "Invalid metrics query: modelCalls is counted per agent only, not per user",
      "measures",
    ],
    [
      { granularity: "hour", measures: ["sessions"] },
      "Invalid metrics query: sessions is counted per day: at granularity hour the measures are the hourly series' (sessionsStarted, sessionsEnded, sessionsEndedFailed, errorEvents, costAtTime, tokensAtTime, endedDurationP50, endedDurationP95, endedDurationP99); use granularity day or total for the others",
      "measures",
    ],
    [
      { from: "2025-01-01", measures: ["sessions"] },
      `Invalid metrics query: a query covers at most 400 days (this one ${(Date.parse(today) - Date.parse("2025-01-01")) / 86_400_000 + 1}): narrow from and to`,
      "from",
    ],
    [{ measures: ["sessions", "bogus"] }, "Invalid request body: measures.1", "measures.1"],
    [{ measures: ["sessions"], limit: 1001 }, "Invalid request body: limit", "limit"],
  ])("%j", async (body, message, path) => {
    const response = await metrics(body);
    expect(response.status).toBe(400);
    expect(response.body.message).toBe(message);
    expect((response.body.issues as { path: string }[])[0]?.path).toBe(path);
  });

  it("refuses a key without the read scope and takes no Idempotency-Key (nothing is stored)", async () => {
    const writer = await createTestKey({ orgId: owner.orgId, scopes: ["sessions:write"] });
    expect((await metrics({ measures: ["sessions"] }, writer.key)).status).toBe(403);
    const first = await call(api, "POST", "/api/sdk/metrics", {
      key: owner.key,
      body: { measures: ["sessions"], granularity: "total" },
      headers: { "idempotency-key": "metrics-1" },
    });
    const again = await call(api, "POST", "/api/sdk/metrics", {
      key: owner.key,
      body: { measures: ["failed"], granularity: "total" },
      headers: { "idempotency-key": "metrics-1" },
    });
    expect([first.status, again.status]).toEqual([200, 200]);
    expect(again.headers.get("idempotent-replayed")).toBeNull();
    expect(Object.keys((again.body.rows as Record<string, unknown>[])[0] ?? {})).toEqual(["failed"]);
  });
});
