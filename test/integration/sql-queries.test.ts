/**
 * Issue 35, done when: the ten queries of docs/sql.md, read from the page itself, answer over the export what the
 * read API answers. Demo-like data is recorded through the real API (sessions with events, a tool that fails, priced,
 * reported and unpriced model calls, scores on sessions, an event and a conversation, a conversation of two runs,
 * several users and agents), counted, exported by the real exporter (runExport, scoped to this organisation) into the
 * test run's local S3, copied as `aws s3 sync` would (the run manifests and this organisation's files), and queried
 * through the code `npm run sql -- --dir … --org …` runs. Every expected figure is computed from the read API's answers, none is written
 * here. The organisation of the page's queries (`'dev'`) is replaced by this test's, as docs/sql.md tells a reader to.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runExport } from "../../functions/export/export-run.js";
import type { LocalApi } from "../../local/http-adapter.js";
import { type ExportDatabase, openExportDatabase, type QueryAnswer } from "../../local/sql/export-database.js";
import { plainDirectoryExportStore } from "../../local/sql/export-store.js";
import type { SqlValue } from "../../local/sql/sql-values.js";
import { copyOrganisationExport } from "../support/export-copy.js";
import { call, createTestKey, readAllEvents, settleCounts, startTestApi, type TestKey } from "../support/fixtures.js";
import { documentedQueries } from "../support/sql-doc-queries.js";

type Json = Record<string, unknown>;

let api: LocalApi;
let owner: TestKey;
let copy: string;
let database: ExportDatabase;
const queries = documentedQueries();
const runTimes = new Map<number, number>();

/** What the read API answers for the organisation: every session, its events and scores, every conversation. */
interface ReadApiView {
  readonly sessions: readonly Json[];
  readonly events: readonly Json[];
  readonly scores: readonly (Json & { agentName: string })[];
  readonly conversations: readonly Json[];
}
let view: ReadApiView;

async function ok(response: Promise<{ status: number; text: string; body: Json }>, status = 201): Promise<Json> {
  const answer = await response;
  if (answer.status !== status) throw new Error(`expected ${status}, got ${answer.status}: ${answer.text}`);
  return answer.body;
}

const post = (path: string, body: unknown, status = 201) =>
  ok(call(api, "POST", path, { key: owner.key, body }), status);
const patch = (id: string, body: unknown) =>
  ok(call(api, "PATCH", `/api/sdk/sessions/${id}`, { key: owner.key, body }), 200);
const read = (path: string) => ok(call(api, "GET", path, { key: owner.key, settle: false }), 200);

const startSession = async (agentName: string, userId: string, conversationId?: string) =>
  String((await post("/api/sdk/sessions", { name: `${agentName} run`, agentName, userId, conversationId })).id);

/** Records the organisation's demo-like history; answers the conversation's id. */
async function recordHistory(): Promise<string> {
  const chat = `chat-${owner.orgId}`;
  const first = await startSession("support-bot", "user-a", chat);
  const second = await startSession("support-bot", "user-a", chat);
  const triage = await startSession("triage-bot", "user-b");
  const reported = await startSession("triage-bot", "user-c");
  const silent = await startSession("support-bot", "user-b");
  const open = await startSession("support-bot", "user-c");
  const usage = (promptTokens: number, completionTokens: number, extra: Json = {}) => ({
    promptTokens,
    completionTokens,
    totalTokens: promptTokens + completionTokens,
    ...extra,
  });
  const batch = await post(
    "/api/sdk/events/batch",
    {
      events: [
        { sessionId: first, eventType: "tool_call", toolName: "search_docs", durationMs: 120 },
        { sessionId: first, eventType: "tool_call", toolName: "search_docs", durationMs: 80 },
        { sessionId: first, eventType: "error", toolName: "search_docs" },
        { sessionId: first, eventType: "llm_decision", model: "gpt-4o-mini", usage: usage(1000, 200), durationMs: 900 },
        {
          sessionId: second,
          eventType: "llm_decision",
          model: "claude-3-5-haiku",
          usage: usage(400, 50),
          estimatedCost: 0.01,
        },
        { sessionId: second, eventType: "tool_call", toolName: "refund", durationMs: 300 },
        {
          sessionId: second,
          eventType: "llm_decision",
          model: "gpt-4o-mini",
          usage: { promptTokens: 500, completionTokens: 100 }, // no total: counted as their sum
          durationMs: 450,
        },
        {
          sessionId: triage,
          eventType: "llm_decision",
          model: "in-house-model-x",
          usage: usage(50, 5),
          durationMs: 40,
        },
        { sessionId: triage, eventType: "tool_call", toolName: "lookup", durationMs: 60 },
        { sessionId: triage, eventType: "error", toolName: "lookup" },
        { sessionId: triage, eventType: "error", toolName: "lookup" },
        { sessionId: reported, eventType: "tool_call", toolName: "lookup", durationMs: 50 },
        {
          sessionId: open,
          eventType: "llm_decision",
          model: "gpt-4o-mini",
          usage: usage(2000, 10, { cacheReadTokens: 1500 }),
        },
        { sessionId: open, eventType: "state_change" },
      ],
    },
    200,
  );
  const results = batch.results as { status: number; id?: string }[];
  expect(results.map((result) => result.status)).toEqual(results.map(() => 201));
  await patch(first, { status: "completed" });
  await patch(second, { status: "failed", failureReason: "refund declined" });
  await patch(triage, { status: "failed", failureReason: "timeout" });
  await patch(reported, { status: "completed", estimatedCost: 0.2, totalTokens: 999 });
  await patch(silent, { status: "failed", failureReason: "timeout" });
  await post(
    "/api/sdk/scores/batch",
    {
      scores: [
        { sessionId: first, name: "helpfulness", value: 0.8 },
        { sessionId: triage, name: "helpfulness", value: 0.4 },
        { sessionId: reported, name: "helpfulness", value: 1 },
        { sessionId: second, name: "resolved", value: false },
        { sessionId: first, eventId: results[3]?.id, name: "tone", value: "friendly" },
        { conversationId: chat, name: "resolved", value: true },
      ],
    },
    200,
  );
  return chat;
}

/** Every session of the organisation, its events and scores, and its conversations, through the read API. */
async function readApiView(): Promise<ReadApiView> {
  const sessions = (await read("/api/sdk/sessions?limit=100")).items as Json[];
  const events: Json[] = [];
  const scores: (Json & { agentName: string })[] = [];
  for (const session of sessions) {
    events.push(...(await readAllEvents(api, owner.key, String(session.id))).events);
    const page = (await read(`/api/sdk/sessions/${session.id}/scores?limit=100`)).items as Json[];
    scores.push(...page.map((score) => ({ ...score, agentName: String(session.agentName) })));
  }
  const conversations = (await read("/api/sdk/conversations?limit=100")).items as Json[];
  for (const conversation of conversations) {
    const page = (await read(`/api/sdk/conversations/${conversation.id}/scores?limit=100`)).items as Json[];
    scores.push(...page.map((score) => ({ ...score, agentName: String(conversation.agentName) })));
  }
  return { sessions, events, scores, conversations };
}

beforeAll(async () => {
  api = await startTestApi();
  owner = await createTestKey({ scopes: ["sessions:write", "events:write", "scores:write", "read"] });
  await recordHistory();
  await settleCounts();
  view = await readApiView();
  // This organisation's changes, with the run's clock past the minute the markers settle in (as parquet-export does).
  const run = await runExport({ organisations: [owner.orgId], nowMs: Date.now() + 120_000 });
  expect(run.status).toBe("committed");
  copy = mkdtempSync(join(tmpdir(), "ats-sql-export-copy-"));
  await copyOrganisationExport(owner.orgId, copy);
  database = await openExportDatabase(plainDirectoryExportStore(copy), { orgId: owner.orgId });
}, 60_000);

afterAll(async () => {
  database?.close();
  if (copy !== undefined) rmSync(copy, { recursive: true, force: true });
  await api?.close();
  if (runTimes.size > 0)
    console.info(
      `docs/sql.md query times: ${[...runTimes].map(([number, ms]) => `#${number} ${ms.toFixed(1)} ms`).join(", ")}`,
    );
});

/** A documented query with this test's organisation in place of `dev`, run as `npm run sql` runs it. */
async function runDocumented(number: number): Promise<Json[]> {
  const query = queries.find((candidate) => candidate.number === number);
  if (query === undefined) throw new Error(`docs/sql.md has no query ${number}`);
  const sql = query.sql.replaceAll("org = 'dev'", `org = '${owner.orgId}'`);
  expect(sql).not.toContain("'dev'");
  const started = performance.now();
  const answer = await database.query(sql);
  runTimes.set(number, performance.now() - started);
  expect(answer.truncated).toBe(false);
  return objects(answer);
}

const objects = (answer: QueryAnswer): Json[] =>
  answer.rows.map((row) => Object.fromEntries(answer.columns.map((name, index) => [name, row[index] ?? null])));

// What the read API says, in the shapes of the queries' rows.
const num = (value: unknown): number => (typeof value === "number" ? value : 0);
const round = (value: number, digits: number) => Math.round(value * 10 ** digits) / 10 ** digits;
const sumOrNull = (values: readonly unknown[]): number | null =>
  values.some((value) => typeof value === "number") ? values.reduce<number>((sum, value) => sum + num(value), 0) : null;
const usageOf = (event: Json, field: string): unknown => (event.usage as Json | null)?.[field] ?? null;
/** A call's total tokens as a session counts them: its total, else its prompt and completion tokens' sum. */
const totalTokensOf = (event: Json): number | null => {
  const [total, prompt, completion] = ["totalTokens", "promptTokens", "completionTokens"].map((f) => usageOf(event, f));
  if (typeof total === "number") return total;
  return typeof prompt === "number" && typeof completion === "number" ? prompt + completion : null;
};
/** `2026-11-27T14:05:00.120Z` as `npm run sql` and Athena print a timestamp: `2026-11-27 14:05:00.120`. */
const sqlTimestamp = (iso: unknown) => String(iso).replace("T", " ").replace(/Z$/, "");

function groupBy<T>(items: readonly T[], keyOf: (item: T) => string): Map<string, T[]> {
  const groups = new Map<string, T[]>();
  for (const item of items) groups.set(keyOf(item), [...(groups.get(keyOf(item)) ?? []), item]);
  return groups;
}

/** Compares rows, numbers within the rounding of the query (costs 6 digits, rates 4). */
function expectRows(actual: Json[], expected: Json[]): void {
  expect(actual.map((row) => Object.keys(row))).toEqual(expected.map((row) => Object.keys(row)));
  expected.forEach((row, index) => {
    for (const [column, value] of Object.entries(row)) {
      const got = actual[index]?.[column];
      if (typeof value === "number" && !Number.isInteger(value))
        expect(got, `row ${index} ${column}`).toBeCloseTo(value, 5);
      else expect(got, `row ${index} ${column}`).toEqual(value);
    }
  });
}

const byText = (a: SqlValue, b: SqlValue) => (String(a) < String(b) ? -1 : String(a) > String(b) ? 1 : 0);
const descNullsLast = (a: number | null, b: number | null) => (a === b ? 0 : a === null ? 1 : b === null ? -1 : b - a);

describe("the ten queries of docs/sql.md over the export equal the read API", () => {
  it("has ten queries, each naming the organisation and the environment for every table it reads", () => {
    expect(queries.map((query) => query.number)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    for (const query of queries) {
      const tables = [...query.sql.matchAll(/\b(?:FROM|JOIN) (sessions|events|scores|conversations)\b/g)].length;
      const filters = [...query.sql.matchAll(/org = 'dev' AND (?:\w+\.)?env = 'live'/g)].length;
      expect(filters, query.title).toBe(tables);
      expect(query.sql, query.title).not.toMatch(/::|GROUP BY ALL|count_if|FILTER \(/i);
    }
  });

  it("reads the organisation's whole history from the export", async () => {
    expect(database.warnings).toEqual([]);
    const counts = await database.query(
      "SELECT (SELECT count(*) FROM sessions) AS s, (SELECT count(*) FROM events) AS e, (SELECT count(*) FROM scores) AS sc, (SELECT count(*) FROM conversations) AS c",
    );
    expect(counts.rows).toEqual([
      [view.sessions.length, view.events.length, view.scores.length, view.conversations.length],
    ]);
  });

  it("1. failure rate by tool", async () => {
    const tools = new Map<string, { calls: number; errors: number }>();
    for (const session of view.sessions) {
      for (const [tool, calls] of Object.entries(session.toolCalls as Record<string, number>))
        tools.set(tool, { calls: (tools.get(tool)?.calls ?? 0) + calls, errors: tools.get(tool)?.errors ?? 0 });
      for (const [tool, errors] of Object.entries(session.toolErrors as Record<string, number>))
        tools.set(tool, { calls: tools.get(tool)?.calls ?? 0, errors: (tools.get(tool)?.errors ?? 0) + errors });
    }
    const expected = [...tools]
      .map(([tool, { calls, errors }]) => ({
        tool_name: tool,
        calls,
        errors,
        failure_rate: calls === 0 ? null : round(errors / calls, 4),
      }))
      .sort(
        (a, b) =>
          descNullsLast(a.failure_rate, b.failure_rate) || b.calls - a.calls || byText(a.tool_name, b.tool_name),
      );
    expect(expected.length).toBeGreaterThanOrEqual(3);
    expectRows(await runDocumented(1), expected);
  });

  it("2. cost per conversation by model", async () => {
    const expected = view.conversations.flatMap((conversation) => {
      const runs = new Set(view.sessions.filter((s) => s.conversationId === conversation.id).map((s) => s.id));
      const calls = view.events.filter((event) => runs.has(event.sessionId) && event.model !== null);
      return [...groupBy(calls, (event) => String(event.model))].map(([model, events]) => {
        const cost = sumOrNull(events.map((event) => event.estimatedCost));
        return {
          conversation_id: conversation.id,
          agent_name: conversation.agentName,
          run_count: conversation.runCount,
          model,
          model_calls: events.length,
          total_tokens: sumOrNull(events.map(totalTokensOf)),
          cost_usd: cost === null ? null : round(cost, 6),
        };
      });
    });
    expected.sort(
      (a, b) =>
        descNullsLast(a.cost_usd, b.cost_usd) ||
        byText(String(a.conversation_id), String(b.conversation_id)) ||
        byText(a.model, b.model),
    );
    expect(expected.length).toBe(2);
    expectRows(await runDocumented(2), expected);
  });

  it("3. slowest steps", async () => {
    const agentOf = new Map(view.sessions.map((session) => [session.id, session.agentName]));
    const expected = view.events
      .filter((event) => typeof event.durationMs === "number")
      .sort((a, b) => num(b.durationMs) - num(a.durationMs) || byText(String(a.id), String(b.id)))
      .slice(0, 20)
      .map((event) => ({
        event_id: event.id,
        session_id: event.sessionId,
        agent_name: agentOf.get(event.sessionId),
        event_type: event.eventType,
        tool_name: event.toolName ?? null,
        model: event.model ?? null,
        duration_ms: event.durationMs,
      }));
    expect(expected.length).toBe(8);
    expectRows(await runDocumented(3), expected);
  });

  it("4. users with most failures", async () => {
    const expected = [...groupBy(view.sessions, (session) => String(session.userId))]
      .map(([user, sessions]) => {
        const failed = sessions.filter((session) => session.status === "failed").length;
        return { user_id: user, sessions: sessions.length, failed, failure_rate: round(failed / sessions.length, 4) };
      })
      .filter((row) => row.failed > 0)
      .sort((a, b) => b.failed - a.failed || byText(a.user_id, b.user_id));
    expect(expected.length).toBe(2);
    expectRows(await runDocumented(4), expected);
  });

  it("5. cost per agent per day", async () => {
    const expected = [...groupBy(view.sessions, (s) => `${String(s.createdAt).slice(0, 10)}|${String(s.agentName)}`)]
      .map(([group, sessions]) => {
        const cost = sumOrNull(sessions.map((session) => session.estimatedCost));
        return {
          day: group.split("|")[0],
          agent_name: group.split("|")[1],
          sessions: sessions.length,
          model_calls: sessions.reduce((sum, session) => sum + num(session.modelCalls), 0),
          cost_usd: cost === null ? null : round(cost, 6),
        };
      })
      .sort(
        (a, b) =>
          byText(String(a.day), String(b.day)) ||
          descNullsLast(a.cost_usd, b.cost_usd) ||
          byText(String(a.agent_name), String(b.agent_name)),
      );
    expectRows(await runDocumented(5), expected);
  });

  it("6. token use by model", async () => {
    const calls = view.events.filter((event) => event.model !== null);
    const expected = [...groupBy(calls, (event) => String(event.model))]
      .map(([model, events]) => {
        const cost = sumOrNull(events.map((event) => event.estimatedCost));
        return {
          model,
          model_calls: events.length,
          prompt_tokens: sumOrNull(events.map((event) => usageOf(event, "promptTokens"))),
          completion_tokens: sumOrNull(events.map((event) => usageOf(event, "completionTokens"))),
          total_tokens: sumOrNull(events.map(totalTokensOf)),
          cache_read_tokens: sumOrNull(events.map((event) => usageOf(event, "cacheReadTokens"))),
          cost_usd: cost === null ? null : round(cost, 6),
          unpriced_calls: events.filter((event) => event.costSource === "unpriced").length,
        };
      })
      .sort((a, b) => descNullsLast(a.total_tokens, b.total_tokens) || byText(a.model, b.model));
    expect(expected.map((row) => row.model).sort()).toEqual(["claude-3-5-haiku", "gpt-4o-mini", "in-house-model-x"]);
    expect(expected.find((row) => row.model === "in-house-model-x")?.unpriced_calls).toBe(1);
    expectRows(await runDocumented(6), expected);
  });

  it("7. sessions per day with failure rate", async () => {
    const expected = [...groupBy(view.sessions, (session) => String(session.createdAt).slice(0, 10))]
      .map(([day, sessions]) => {
        const failed = sessions.filter((session) => session.status === "failed").length;
        return { day, sessions: sessions.length, failed, failure_rate: round(failed / sessions.length, 4) };
      })
      .sort((a, b) => byText(a.day, b.day));
    expectRows(await runDocumented(7), expected);
  });

  it("8. top failure reasons", async () => {
    const failed = view.sessions.filter((session) => session.status === "failed");
    const expected = [...groupBy(failed, (session) => String(session.failureReason ?? "(none given)"))]
      .map(([reason, sessions]) => ({
        reason,
        sessions: sessions.length,
        agents: new Set(sessions.map((session) => session.agentName)).size,
      }))
      .sort((a, b) => b.sessions - a.sessions || byText(a.reason, b.reason))
      .slice(0, 10);
    expect(expected[0]).toEqual({ reason: "timeout", sessions: 2, agents: 2 });
    expectRows(await runDocumented(8), expected);
  });

  it("9. score averages by agent", async () => {
    const groups = groupBy(
      view.scores,
      (score) => `${score.agentName}|${String(score.name)}|${String(score.valueKind)}`,
    );
    const expected = [...groups]
      .map(([group, scores]) => {
        const [agent, name, kind] = group.split("|");
        const numbers = scores.map((score) => score.value).filter((value) => typeof value === "number");
        const booleans = scores.map((score) => score.value).filter((value) => typeof value === "boolean");
        return {
          agent_name: agent,
          score_name: name,
          value_kind: kind,
          scores: scores.length,
          mean_value: numbers.length === 0 ? null : round(numbers.reduce((a, b) => a + b, 0) / numbers.length, 4),
          share_true: booleans.length === 0 ? null : round(booleans.filter(Boolean).length / booleans.length, 4),
        };
      })
      .sort(
        (a, b) =>
          byText(String(a.agent_name), String(b.agent_name)) ||
          byText(String(a.score_name), String(b.score_name)) ||
          byText(String(a.value_kind), String(b.value_kind)),
      );
    expect(view.scores).toHaveLength(6);
    expectRows(await runDocumented(9), expected);
  });

  it("10. most expensive sessions", async () => {
    const expected = view.sessions
      .filter((session) => typeof session.estimatedCost === "number")
      .sort((a, b) => num(b.estimatedCost) - num(a.estimatedCost) || byText(String(a.id), String(b.id)))
      .slice(0, 10)
      .map((session) => ({
        session_id: session.id,
        agent_name: session.agentName,
        user_id: session.userId,
        status: session.status,
        cost_usd: round(num(session.estimatedCost), 6),
        total_tokens: session.totalTokens ?? null,
        event_count: session.eventCount,
        created_at: sqlTimestamp(session.createdAt),
      }));
    expect(expected[0]?.cost_usd).toBe(0.2);
    expectRows(await runDocumented(10), expected);
  });
});
