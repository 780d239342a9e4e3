/**
 * The route table's IAM grants are right: every route's handler (and the
 * deletion worker) is invoked in-process, as Lambda invokes it, through its
 * success paths, replays, paging and error paths, while a client middleware
 * records every item the request touches (test/support/table-access-recorder.ts).
 * Each access must be allowed by one of the route's own `tableGrants`
 * (action, `dynamodb:LeadingKeys` pattern, index, attributes) — exactly what
 * the stack's IAM statements allow on AWS, where anything else is an
 * AccessDenied.
 */
import { randomBytes, randomUUID } from "node:crypto";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { SQSEvent } from "aws-lambda";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { gatewayEvent, type LambdaHttpHandler, lambdaContext } from "../../bench/harness/gateway-event.js";
import { handler as alertDeliveryWorkerHandler } from "../../functions/alerts/delivery/delivery-worker.js";
import { evaluateMonitors } from "../../functions/alerts/monitor-evaluation.js";
import { useLocalDeletionRunner } from "../../functions/deletion/deletion-dispatch.js";
import { handler as deletionWorkerHandler } from "../../functions/deletion/deletion-worker.js";
import type { DeletionJobMessage } from "../../functions/domain/deletion-job.js";
import { newId } from "../../functions/domain/ids.js";
import { runExport } from "../../functions/export/export-run.js";
import { forgetOrganisationPrices } from "../../functions/pricing/organisation-prices.js";
import {
  alertDeliveryWorker,
  deletionWorker,
  exportChangeMarker,
  exportJob,
  monitorEvaluator,
  type RouteDefinition,
  type RouteId,
  routeById,
  routes,
  streamConsumer,
} from "../../functions/routes.js";
import { handler as markExportChanges } from "../../functions/stream/export-change-consumer.js";
import type { LocalApi } from "../../local/http-adapter.js";
import {
  call,
  createTestKey,
  createTestUser,
  identity,
  settleCounts,
  startTestApi,
  type TestKey,
  type TestUser,
} from "../support/fixtures.js";
import { createSoloKey, startSoloConsumer } from "../support/stream-solo.js";
import { deniedAccesses, recordTableAccesses } from "../support/table-access-recorder.js";

const recorder = recordTableAccesses();
const handlers = new Map<string, LambdaHttpHandler>();
const exercised = new Set<string>();
/** Per route, each action done and the kind of partition (the key's first segment) it touched. */
const touched = new Map<RouteId, Set<string>>();
const dispatched: DeletionJobMessage[] = [];

let api: LocalApi;
let sdk: TestKey;
let admin: TestUser;

beforeAll(async () => {
  api = await startTestApi();
  useLocalDeletionRunner((message) => void dispatched.push(message));
  sdk = await createTestKey({ scopes: ["sessions:write", "events:write", "scores:write", "read", "delete"] });
  admin = await createTestUser(api, { role: "admin" });
  for (const route of routes) {
    const module = (await import(`../../${route.entry}`)) as { handler: LambdaHttpHandler };
    handlers.set(route.id, module.handler);
  }
});
afterAll(() => api.close());

interface Call {
  readonly path: string;
  readonly pathParameters?: Record<string, string>;
  readonly query?: Record<string, string>;
  readonly body?: unknown;
  readonly token?: string;
  readonly headers?: Record<string, string>;
}

/**
 * Invokes a route's handler with only that request's accesses recorded, and
 * asserts the expected status and that every access is within the route's grants.
 */
async function invoke(routeId: RouteId, call: Call, expectedStatus: number): Promise<Record<string, unknown>> {
  const route: RouteDefinition = routeById(routeId);
  const handler = handlers.get(routeId);
  if (handler === undefined) throw new Error(`No handler for ${routeId}`);
  recorder.reset();
  const result = await handler(
    gatewayEvent(route, {
      path: call.path,
      ...(call.pathParameters === undefined ? {} : { pathParameters: call.pathParameters }),
      ...(call.query === undefined ? {} : { query: call.query }),
      headers: {
        "content-type": "application/json",
        authorization: `Bearer ${call.token ?? sdk.key}`,
        ...call.headers,
      },
      ...(call.body === undefined ? {} : { body: JSON.stringify(call.body) }),
    }),
    lambdaContext(route.id, 1024),
  );
  const accesses = recorder.accesses();
  expect(result.statusCode, `${routeId} ${call.path}: ${result.body}`).toBe(expectedStatus);
  expect(deniedAccesses(route.tableGrants, accesses).join("\n"), `${routeId}: accesses outside its grants`).toBe("");
  exercised.add(routeId);
  const kinds = touched.get(routeId) ?? new Set<string>();
  for (const access of accesses) kinds.add(`${access.action} ${access.partition?.split("#")[0]}`);
  touched.set(routeId, kinds);
  return result.body === undefined || result.body === "" ? {} : (JSON.parse(result.body) as Record<string, unknown>);
}

const today = new Date().toISOString().slice(0, 10);
const period = { from: new Date(Date.now() - 86_400_000).toISOString().slice(0, 10), to: today };

async function newSession(userId: string, agentName = "grants-agent", conversationId?: string): Promise<string> {
  const body = await invoke(
    "CreateSession",
    {
      path: "/api/sdk/sessions",
      body: { name: "grants", agentName, userId, ...(conversationId === undefined ? {} : { conversationId }) },
      headers: { "idempotency-key": randomUUID() },
    },
    201,
  );
  return String(body.id);
}

describe("the grant checker denies what IAM would deny", () => {
  const grants = routeById("UpdateSession").tableGrants;
  const access = { action: "dynamodb:UpdateItem", partition: "SESSION#ses_1", attributes: ["PK", "SK", "status"] };

  it("allows an action on a declared partition, and refuses another action, partition, index or a missing key", () => {
    expect(deniedAccesses(grants, [access])).toEqual([]);
    expect(deniedAccesses(grants, [{ ...access, action: "dynamodb:DeleteItem" }])).toHaveLength(1);
    expect(deniedAccesses(grants, [{ ...access, partition: "APIKEY#abc" }])).toHaveLength(1);
    expect(deniedAccesses(grants, [{ ...access, index: "GSI1" }])).toHaveLength(1);
    expect(deniedAccesses(grants, [{ ...access, partition: undefined }])).toHaveLength(1);
  });

  it("refuses an update of a key record beyond lastUsedAt, or one returning the whole item", () => {
    const stamp = { action: "dynamodb:UpdateItem", partition: "ORG#org-1", attributes: ["PK", "SK", "lastUsedAt"] };
    expect(deniedAccesses(grants, [stamp])).toEqual([]);
    expect(deniedAccesses(grants, [{ ...stamp, attributes: ["PK", "SK", "scopes"] }])).toHaveLength(1);
    expect(deniedAccesses(grants, [{ ...stamp, returnValues: "ALL_NEW" }])).toHaveLength(1);
  });
});

describe("every table access of every route is within the route's declared grants", () => {
  it("SDK writes: sessions, events, batches, replays, late events, refusals", async () => {
    const idempotencyKey = randomUUID();
    const first = await invoke(
      "CreateSession",
      {
        path: "/api/sdk/sessions",
        body: { name: "grants", agentName: "grants-agent", userId: "grants-user" },
        headers: { "idempotency-key": idempotencyKey },
      },
      201,
    );
    const sessionId = String(first.id);
    await invoke(
      "CreateSession",
      {
        path: "/api/sdk/sessions",
        body: { name: "grants", agentName: "grants-agent", userId: "grants-user" },
        headers: { "idempotency-key": idempotencyKey },
      },
      201,
    );
    // A client id: created, a repeat answered from the refused Put's item (no read), a different start 409.
    const clientStart = {
      id: newId("session"),
      name: "grants",
      agentName: "grants-agent",
      userId: "grants-user",
      startedAt: new Date(Date.now() - 86_400_000).toISOString(),
    };
    await invoke("CreateSession", { path: "/api/sdk/sessions", body: clientStart }, 201);
    await invoke("CreateSession", { path: "/api/sdk/sessions", body: clientStart }, 201);
    await invoke("CreateSession", { path: "/api/sdk/sessions", body: { ...clientStart, name: "other" } }, 409);
    await invoke(
      "CreateEvent",
      {
        path: "/api/sdk/events",
        body: { sessionId, eventType: "tool_call", toolName: "search", estimatedCost: 0.25 },
        headers: { "idempotency-key": randomUUID() },
      },
      201,
    );
    // A model call priced at ingest: the organisation's own prices read first (not cached yet in this process).
    const modelCall = { model: "gpt-4o-mini", usage: { promptTokens: 100, completionTokens: 20 } };
    forgetOrganisationPrices(sdk.orgId);
    await invoke(
      "CreateEvent",
      { path: "/api/sdk/events", body: { sessionId, eventType: "llm_decision", ...modelCall } },
      201,
    );
    forgetOrganisationPrices(sdk.orgId);
    await invoke(
      "CreateEventBatch",
      { path: "/api/sdk/events/batch", body: { events: [{ sessionId, eventType: "llm_decision", ...modelCall }] } },
      200,
    );
    // A refused write releases its Idempotency-Key record.
    await invoke(
      "CreateEvent",
      {
        path: "/api/sdk/events",
        body: { sessionId: `ses_${"0".repeat(26)}`, eventType: "state_change" },
        headers: { "idempotency-key": randomUUID() },
      },
      404,
    );
    const batch = {
      events: [
        { sessionId, eventType: "tool_call", toolName: "lookup", idempotencyKey: `grants-${sessionId}-1` },
        { sessionId, eventType: "error", toolName: "lookup", idempotencyKey: `grants-${sessionId}-2` },
      ],
    };
    const batchKey = randomUUID();
    await invoke(
      "CreateEventBatch",
      { path: "/api/sdk/events/batch", body: batch, headers: { "idempotency-key": batchKey } },
      200,
    );
    await invoke("CreateEventBatch", { path: "/api/sdk/events/batch", body: batch }, 200);
    await invoke(
      "UpdateSession",
      {
        path: `/api/sdk/sessions/${sessionId}`,
        pathParameters: { id: sessionId },
        body: { status: "failed", failureReason: "grants failure" },
        headers: { "idempotency-key": randomUUID() },
      },
      200,
    );
    // Late events (after the end) fold into the rollups.
    await invoke(
      "CreateEvent",
      { path: "/api/sdk/events", body: { sessionId, eventType: "tool_call", toolName: "late" } },
      201,
    );
    await invoke(
      "CreateEventBatch",
      { path: "/api/sdk/events/batch", body: { events: [{ sessionId, eventType: "tool_call", toolName: "later" }] } },
      200,
    );
    const active = await newSession("grants-user");
    await invoke(
      "UpdateSession",
      { path: `/api/sdk/sessions/${active}`, pathParameters: { id: active }, body: { durationMs: 5 } },
      200,
    );
  });

  it("OTLP exports: a whole trace, a trace whose root comes later (moved to its agent and user), retries, log records before and after their spans, refusals, the deletion of a traced session", async () => {
    const hex = (bytes: number) => randomBytes(bytes).toString("hex");
    const start = Date.now() - 10_000;
    const nanos = (ms: number) => `${BigInt(ms) * 1_000_000n}`;
    const text = (key: string, value: string) => ({ key, value: { stringValue: value } });
    const int = (key: string, value: number) => ({ key, value: { intValue: String(value) } });
    const span = (traceId: string, spanId: string, parent: string, name: string, attributes: unknown[]) => ({
      traceId,
      spanId,
      parentSpanId: parent,
      name,
      startTimeUnixNano: nanos(start + (parent === "" ? 0 : 100)),
      endTimeUnixNano: nanos(start + (parent === "" ? 5_000 : 900)),
      attributes,
      status: { code: name.startsWith("execute_tool") ? 2 : 0, message: "tool failed" },
    });
    const root = (traceId: string, spanId: string) =>
      span(traceId, spanId, "", "invoke_agent grants-otel", [
        text("gen_ai.operation.name", "invoke_agent"),
        text("gen_ai.agent.name", "grants-otel-agent"),
        text("user.id", "grants-otel-user"),
      ]);
    const children = (traceId: string, rootId: string) => [
      span(traceId, hex(8), rootId, "chat gpt-4o", [
        text("gen_ai.operation.name", "chat"),
        text("gen_ai.request.model", "gpt-4o"),
        int("gen_ai.usage.input_tokens", 120),
        int("gen_ai.usage.output_tokens", 30),
      ]),
      span(traceId, hex(8), rootId, "execute_tool search_docs", [
        text("gen_ai.operation.name", "execute_tool"),
        text("gen_ai.tool.name", "search_docs"),
        text("gen_ai.tool.call.arguments", '{"query":"refund"}'),
      ]),
    ];
    const exportOf = (spans: unknown[]) => ({
      resourceSpans: [{ resource: { attributes: [text("service.name", "grants-otel")] }, scopeSpans: [{ spans }] }],
    });
    const exportTraces = (body: unknown, expected: Record<string, unknown> = {}) =>
      invoke("ExportTraces", { path: "/api/otel/v1/traces", body }, 200).then((answer) =>
        expect(answer).toEqual(expected),
      );

    // A whole trace: its record and session created together, events written, usage recorded, the session ended.
    const whole = hex(16);
    const wholeRoot = hex(8);
    const wholeExport = exportOf([root(whole, wholeRoot), ...children(whole, wholeRoot)]);
    await exportTraces(wholeExport);
    // The exporter's retry: events found (replays), the ended session left as it is.
    await exportTraces(wholeExport);

    // Children first (a session with a stand-in name, usage recorded), the root in a second export (named, ended).
    const late = hex(16);
    const lateRoot = hex(8);
    await exportTraces(exportOf(children(late, lateRoot)));
    await exportTraces(exportOf(children(late, lateRoot)));
    // Counted under the stand-in agent and user first, so the root's arrival moves those counts.
    await settleCounts();
    await exportTraces(exportOf([root(late, lateRoot)]));

    // GenAI log records: before their span (a placeholder trace record), then after it (attached to its event).
    const logged = hex(16);
    const loggedRoot = hex(8);
    const loggedChat = hex(8);
    const record = (spanId: string, eventName: string, body: unknown) => ({
      timeUnixNano: nanos(start + 200),
      attributes: [text("event.name", eventName)],
      body,
      traceId: logged,
      spanId,
    });
    const logsOf = (records: unknown[]) => ({ resourceLogs: [{ scopeLogs: [{ logRecords: records }] }] });
    const exportLogs = (body: unknown, expected: Record<string, unknown> = {}) =>
      invoke("ExportLogs", { path: "/api/otel/v1/logs", body }, 200).then((answer) => expect(answer).toEqual(expected));
    await exportLogs(
      logsOf([record(loggedChat, "gen_ai.user.message", { kvlistValue: { values: [text("content", "Refund?")] } })]),
    );
    const chatOf = (traceId: string, rootId: string) => ({
      ...(children(traceId, rootId)[0] as object),
      spanId: loggedChat,
    });
    await exportTraces(exportOf([root(logged, loggedRoot), chatOf(logged, loggedRoot)]));
    await exportLogs(
      logsOf([
        record(loggedChat, "gen_ai.choice", { kvlistValue: { values: [text("finish_reason", "stop")] } }),
        { ...record(loggedChat, "app.log", { stringValue: "not a GenAI event" }) },
      ]),
      { partialSuccess: { rejectedLogRecords: "1", errorMessage: expect.stringContaining("GenAI") } },
    );
    await invoke("ExportLogs", { path: "/api/otel/v1/logs", body: { resourceLogs: "no" } }, 400);

    // A traced session deleted takes its trace record with it.
    const sessions = await invoke(
      "ListSessions",
      { path: "/api/sdk/sessions", query: { agentName: "grants-otel-agent" } },
      200,
    );
    const traced = String((sessions.items as { id: string }[])[0]?.id);
    await invoke("DeleteSession", { path: `/api/sdk/sessions/${traced}`, pathParameters: { id: traced } }, 204);

    // Refused spans (partialSuccess) and a refused envelope store nothing of theirs.
    await exportTraces(exportOf([{ ...root(hex(16), hex(8)), spanId: "not-an-id" }]), {
      partialSuccess: { rejectedSpans: "1", errorMessage: expect.stringContaining("spanId") },
    });
    await invoke("ExportTraces", { path: "/api/otel/v1/traces", body: { resourceSpans: "no" } }, 400);
    // Langfuse's path: the same export, within the same grants.
    const langfuse = hex(16);
    const langfuseRoot = hex(8);
    await invoke(
      "ExportLangfuseTraces",
      {
        path: "/api/public/otel/v1/traces",
        body: exportOf([root(langfuse, langfuseRoot), ...children(langfuse, langfuseRoot)]),
      },
      200,
    );
    await invoke(
      "ExportTraces",
      { path: "/api/otel/v1/traces", body: "x", headers: { "content-type": "text/plain" } },
      415,
    );

    // Every write path ran: trace record and session created together, usage recorded, events put (each a
    // conditional PutItem: their ids are derived from their spans), the session ended and renamed.
    expect([...(touched.get("ExportTraces") ?? [])].sort()).toEqual(
      expect.arrayContaining([
        "dynamodb:BatchGetItem SESSION",
        "dynamodb:GetItem OTELTRACE",
        "dynamodb:PutItem OTELTRACE",
        "dynamodb:PutItem SESSION",
        "dynamodb:UpdateItem OTELTRACE",
        "dynamodb:UpdateItem SESSION",
        "dynamodb:UpdateItem ROLLUP",
        "dynamodb:Query OTELLOG",
      ]),
    );
    expect([...(touched.get("ExportLogs") ?? [])].sort()).toEqual(
      expect.arrayContaining([
        "dynamodb:BatchWriteItem OTELLOG",
        "dynamodb:Query OTELLOG",
        "dynamodb:GetItem OTELLOG",
        "dynamodb:UpdateItem OTELLOG",
        "dynamodb:UpdateItem OTELTRACE",
        "dynamodb:GetItem SESSION",
        "dynamodb:PutItem SESSION",
      ]),
    );
    expect([...(touched.get("DeleteSession") ?? [])]).toEqual(
      expect.arrayContaining(["dynamodb:GetItem OTELTRACE", "dynamodb:DeleteItem OTELTRACE"]),
    );
  });

  it("SDK reads: sessions with every filter and paging cursors, events, agents and stats", async () => {
    const sessionId = await newSession("grants-reader", "grants-reading-agent");
    await newSession("grants-reader", "grants-reading-agent");
    for (const eventType of ["state_change", "state_change"]) {
      await invoke("CreateEvent", { path: "/api/sdk/events", body: { sessionId, eventType } }, 201);
    }
    const withOutput = await invoke(
      "CreateEvent",
      { path: "/api/sdk/events", body: { sessionId, eventType: "tool_call", toolOutput: { ok: true } } },
      201,
    );
    const eventId = String(withOutput.id);
    await invoke(
      "GetEventField",
      {
        path: `/api/sdk/sessions/${sessionId}/events/${eventId}/toolOutput`,
        pathParameters: { id: sessionId, eventId, field: "toolOutput" },
      },
      200,
    );
    await invoke(
      "GetSession",
      { path: `/api/sdk/sessions/${sessionId}`, pathParameters: { id: sessionId }, token: sdk.key },
      200,
    );
    const filters: Record<string, string>[] = [
      {},
      { agentName: "grants-reading-agent" },
      { userId: "grants-reader" },
      { status: "active" },
      { status: "active", agentName: "grants-reading-agent" },
      { agentName: "grants-reading-agent", userId: "grants-reader" },
      { userId: "grants-reader", status: "active" },
      { agentName: "grants-reading-agent", userId: "grants-reader", status: "active" },
      { from: `${period.from}T00:00:00Z`, to: new Date().toISOString() },
      // Refinements: checked on the sessions a page reads, within the same grants.
      { agentName: "grants-reading-agent", nameContains: "session", toolName: "lookup" },
      { status: "active", failureReason: "timeout", toolError: "lookup" },
    ];
    for (const filter of filters) {
      const page = await invoke("ListSessions", { path: "/api/sdk/sessions", query: { ...filter, limit: "1" } }, 200);
      if (typeof page.nextCursor === "string") {
        await invoke(
          "ListSessions",
          { path: "/api/sdk/sessions", query: { ...filter, limit: "1", cursor: page.nextCursor } },
          200,
        );
      }
    }
    const events = await invoke(
      "ListEvents",
      { path: `/api/sdk/sessions/${sessionId}/events`, pathParameters: { id: sessionId }, query: { limit: "1" } },
      200,
    );
    expect(events.nextCursor).toEqual(expect.any(String));
    await invoke(
      "ListEvents",
      {
        path: `/api/sdk/sessions/${sessionId}/events`,
        pathParameters: { id: sessionId },
        query: { limit: "1", cursor: String(events.nextCursor) },
      },
      200,
    );
    await invoke("ListAgents", { path: "/api/sdk/agents" }, 200);
    // With a period: each agent's rollups over it and its newest rollup item.
    await invoke("ListAgents", { path: "/api/sdk/agents", query: period }, 200);
    await invoke(
      "AgentStats",
      {
        path: "/api/sdk/agents/grants-reading-agent/stats",
        pathParameters: { agentName: "grants-reading-agent" },
        query: period,
      },
      200,
    );
    await invoke("ListModels", { path: "/api/sdk/models", query: period }, 200);
    await invoke(
      "AgentModels",
      {
        path: "/api/sdk/agents/grants-reading-agent/models",
        pathParameters: { agentName: "grants-reading-agent" },
        query: period,
      },
      200,
    );
    await invoke(
      "UserStats",
      { path: "/api/sdk/users/grants-reader/stats", pathParameters: { userId: "grants-reader" }, query: period },
      200,
    );
    // Metrics: the tenant's busiest agents' rollups (agent summary + each agent's partition), a user's, the hourly
    // series (all agents, and per agent), and a second page through the signed cursor.
    const metrics = (body: Record<string, unknown>) => invoke("QueryMetrics", { path: "/api/sdk/metrics", body }, 200);
    const firstPage = await metrics({ ...period, measures: ["sessions", "toolCalls"], groupBy: ["agent"], limit: 1 });
    if (typeof firstPage.nextCursor === "string") {
      await metrics({
        ...period,
        measures: ["sessions", "toolCalls"],
        groupBy: ["agent"],
        limit: 1,
        cursor: firstPage.nextCursor,
      });
    }
    await metrics({
      ...period,
      measures: ["modelCalls"],
      groupBy: ["model"],
      filters: { agent: ["grants-reading-agent"] },
    });
    await metrics({ ...period, measures: ["scoreCount"], filters: { score: "grants-score" } });
    await metrics({
      ...period,
      measures: ["sessions", "toolErrors"],
      groupBy: ["user"],
      filters: { user: ["grants-reader"] },
    });
    await metrics({ granularity: "hour", measures: ["sessionsStarted", "endedDurationP95"] });
    await metrics({ granularity: "hour", measures: ["sessionsStarted"], groupBy: ["agent"] });
  });

  it("scores: create, replace, on an event, a batch, list and page, the session with its scores, delete, refusals", async () => {
    const sessionId = await newSession("grants-scored");
    const event = await invoke(
      "CreateEvent",
      { path: "/api/sdk/events", body: { sessionId, eventType: "tool_call" } },
      201,
    );
    const id = newId("score");
    const scorePath = "/api/sdk/scores";
    const headers = { "idempotency-key": randomUUID() };
    await invoke("CreateScore", { path: scorePath, body: { id, sessionId, name: "q", value: 1 }, headers }, 201);
    await invoke("CreateScore", { path: scorePath, body: { id, sessionId, name: "q", value: 1 }, headers }, 201);
    await invoke("CreateScore", { path: scorePath, body: { id, sessionId, name: "q", value: 2 } }, 200);
    await invoke(
      "CreateScore",
      { path: scorePath, body: { sessionId, eventId: String(event.id), name: "q", value: true } },
      201,
    );
    await invoke(
      "CreateScore",
      { path: scorePath, body: { sessionId, eventId: newId("event"), name: "q", value: true } },
      404,
    );
    await invoke("CreateScore", { path: scorePath, body: { sessionId: newId("session"), name: "q", value: 1 } }, 404);
    await invoke(
      "CreateScoreBatch",
      {
        path: "/api/sdk/scores/batch",
        body: {
          scores: [
            { sessionId, name: "b", value: "x" },
            { sessionId, name: "" },
          ],
        },
        headers: { "idempotency-key": randomUUID() },
      },
      200,
    );
    const page = await invoke(
      "ListScores",
      { path: `/api/sdk/sessions/${sessionId}/scores`, pathParameters: { id: sessionId }, query: { limit: "1" } },
      200,
    );
    await invoke(
      "ListScores",
      {
        path: `/api/sdk/sessions/${sessionId}/scores`,
        pathParameters: { id: sessionId },
        query: { cursor: String(page.nextCursor) },
      },
      200,
    );
    await invoke("GetSession", { path: `/api/sdk/sessions/${sessionId}`, pathParameters: { id: sessionId } }, 200);
    const scorePathOf = (scoreId: string) => ({
      path: `/api/sdk/sessions/${sessionId}/scores/${scoreId}`,
      pathParameters: { id: sessionId, scoreId },
    });
    await invoke("DeleteScore", scorePathOf(id), 204);
    await invoke("DeleteScore", scorePathOf(id), 404);
    await invoke("DeleteSession", { path: `/api/sdk/sessions/${sessionId}`, pathParameters: { id: sessionId } }, 204);
  });

  it("conversations: runs joining one, the listing with every filter and its cursor, one with its runs", async () => {
    const first = await newSession("grants-talker", "grants-chat-agent", "grants-chat");
    await newSession("grants-talker", "grants-chat-agent", "grants-chat");
    await newSession("grants-talker", "grants-chat-agent", "grants-other-chat");
    const filters: Record<string, string>[] = [
      {},
      { agentName: "grants-chat-agent" },
      { userId: "grants-talker" },
      { agentName: "grants-chat-agent", userId: "grants-talker" },
      { from: `${period.from}T00:00:00Z`, to: new Date().toISOString() },
    ];
    for (const filter of filters) {
      const page = await invoke(
        "ListConversations",
        { path: "/api/sdk/conversations", query: { ...filter, limit: "1" } },
        200,
      );
      if (typeof page.nextCursor === "string") {
        await invoke(
          "ListConversations",
          { path: "/api/sdk/conversations", query: { ...filter, limit: "1", cursor: page.nextCursor } },
          200,
        );
      }
    }
    const conversation = { path: "/api/sdk/conversations/grants-chat", pathParameters: { id: "grants-chat" } };
    const page = await invoke("GetConversation", { ...conversation, query: { limit: "1" } }, 200);
    expect(page.nextCursor).toEqual(expect.any(String));
    await invoke("GetConversation", { ...conversation, query: { limit: "1", cursor: String(page.nextCursor) } }, 200);
    await invoke("DeleteSession", { path: `/api/sdk/sessions/${first}`, pathParameters: { id: first } }, 204);
    expect([...(touched.get("DeleteSession") ?? [])]).toEqual(
      expect.arrayContaining(["dynamodb:UpdateItem CONVERSATION"]),
    );
  });

  it("conversation scores: create, a batch, list and page, the conversation with its scores and totals, delete, the last run's deletion", async () => {
    const conversationId = `grants-scored-chat-${randomUUID().slice(0, 8)}`;
    const run = await newSession("grants-scorer", "grants-chat-agent", conversationId);
    await invoke("CreateScore", { path: "/api/sdk/scores", body: { sessionId: run, name: "q", value: 1 } }, 201);
    const id = newId("score");
    const scorePath = "/api/sdk/scores";
    await invoke("CreateScore", { path: scorePath, body: { id, conversationId, name: "q", value: 1 } }, 201);
    await invoke("CreateScore", { path: scorePath, body: { id, conversationId, name: "q", value: 2 } }, 200);
    await invoke("CreateScore", { path: scorePath, body: { conversationId: "grants-none", name: "q", value: 1 } }, 404);
    await invoke(
      "CreateScoreBatch",
      {
        path: "/api/sdk/scores/batch",
        body: {
          scores: [
            { conversationId, name: "b", value: "x" },
            { conversationId, name: "c", value: true },
          ],
        },
      },
      200,
    );
    const listPath = {
      path: `/api/sdk/conversations/${conversationId}/scores`,
      pathParameters: { id: conversationId },
    };
    const page = await invoke("ListConversationScores", { ...listPath, query: { limit: "1" } }, 200);
    await invoke("ListConversationScores", { ...listPath, query: { cursor: String(page.nextCursor) } }, 200);
    const shown = await invoke(
      "GetConversation",
      { path: `/api/sdk/conversations/${conversationId}`, pathParameters: { id: conversationId } },
      200,
    );
    expect((shown.totals as { scores: unknown[] }).scores).toHaveLength(3);
    const scorePathOf = (scoreId: string) => ({
      path: `/api/sdk/conversations/${conversationId}/scores/${scoreId}`,
      pathParameters: { id: conversationId, scoreId },
    });
    await invoke("DeleteConversationScore", scorePathOf(id), 204);
    await invoke("DeleteConversationScore", scorePathOf(id), 404);
    await invoke("DeleteSession", { path: `/api/sdk/sessions/${run}`, pathParameters: { id: run } }, 204);
    expect([...(touched.get("DeleteSession") ?? [])]).toEqual(
      expect.arrayContaining(["dynamodb:Query CONVERSATION", "dynamodb:DeleteItem CONVERSATION"]),
    );
  });

  it("SDK deletions: a session, a user's data (the route, the job status, the worker)", async () => {
    const sessionId = await newSession("grants-deleted");
    await invoke("CreateEvent", { path: "/api/sdk/events", body: { sessionId, eventType: "state_change" } }, 201);
    await invoke("DeleteSession", { path: `/api/sdk/sessions/${sessionId}`, pathParameters: { id: sessionId } }, 204);

    const erased = await newSession("grants-erased", "grants-agent", "grants-erased-chat");
    await invoke(
      "CreateEvent",
      { path: "/api/sdk/events", body: { sessionId: erased, eventType: "state_change" } },
      201,
    );
    const accepted = await invoke(
      "DeleteUserData",
      { path: "/api/sdk/users/grants-erased", pathParameters: { userId: "grants-erased" } },
      202,
    );
    const jobId = String(accepted.jobId);
    // A repeated request finds the unfinished job and hands it over again.
    const repeated = await invoke(
      "DeleteUserData",
      { path: "/api/sdk/users/grants-erased", pathParameters: { userId: "grants-erased" } },
      202,
    );
    expect(repeated.jobId).toBe(jobId);
    await invoke("GetDeletionJob", { path: `/api/sdk/deletions/${jobId}`, pathParameters: { jobId } }, 200);

    expect(dispatched).toHaveLength(2);
    recorder.reset();
    const event = { Records: [{ messageId: "m-1", body: JSON.stringify(dispatched[0]) }] } as unknown as SQSEvent;
    const result = await deletionWorkerHandler(event);
    expect(result.batchItemFailures).toEqual([]);
    expect(recorder.accesses().length).toBeGreaterThan(0);
    expect(deniedAccesses(deletionWorker.tableGrants, recorder.accesses()).join("\n"), "DeletionWorker").toBe("");
    const job = await invoke("GetDeletionJob", { path: `/api/sdk/deletions/${jobId}`, pathParameters: { jobId } }, 200);
    expect(JSON.stringify(job)).toContain("completed");
  });

  it("key management by a signed-in admin: create, list, rotate, audit, revoke; and the public document", async () => {
    const created = await invoke(
      "CreateApiKey",
      { path: "/api/keys", token: admin.token, body: { name: "grants" } },
      201,
    );
    const keyId = String(created.id);
    await invoke("ListApiKeys", { path: "/api/keys", token: admin.token }, 200);
    const rotated = await invoke(
      "RotateApiKey",
      { path: `/api/keys/${keyId}/rotate`, pathParameters: { id: keyId }, token: admin.token },
      201,
    );
    await invoke(
      "ListApiKeyAudit",
      { path: `/api/keys/${keyId}/audit`, pathParameters: { id: keyId }, token: admin.token },
      200,
    );
    const next = String(rotated.id);
    await invoke("RevokeApiKey", { path: `/api/keys/${next}`, pathParameters: { id: next }, token: admin.token }, 204);
    await invoke("OpenApiDocument", { path: "/api/openapi.json" }, 200);
  });

  it("end-user feedback: a token minted, a score posted with it, refusals, and the CORS preflight", async () => {
    const sessionId = await newSession("grants-feedback");
    const tokens = "/api/sdk/feedback-tokens";
    const minted = await invoke("CreateFeedbackToken", { path: tokens, body: { sessionId, names: ["thumbs"] } }, 201);
    await invoke("CreateFeedbackToken", { path: tokens, body: { sessionId: newId("session") } }, 404);
    const token = String(minted.token);
    const feedback = "/api/public/feedback";
    await invoke("PostFeedback", { path: feedback, token, body: { name: "thumbs", value: false } }, 201);
    await invoke("PostFeedback", { path: feedback, token, body: { name: "other", value: false } }, 403);
    await invoke("PostFeedback", { path: feedback, body: { name: "thumbs", value: false } }, 401);
    await invoke("FeedbackPreflight", { path: feedback }, 204);
  });

  it("organisation prices by a signed-in admin: set, change, list, the table, the audit, delete", async () => {
    const model = { model: "grants-model" };
    const rates = { effectiveFrom: "2026-12-01", input: 1, output: 2 };
    await invoke(
      "PutOrganisationPrice",
      { path: "/api/prices/grants-model", pathParameters: model, token: admin.token, body: rates },
      200,
    );
    await invoke(
      "PutOrganisationPrice",
      { path: "/api/prices/grants-model", pathParameters: model, token: admin.token, body: { ...rates, input: 3 } },
      200,
    );
    await invoke("ListOrganisationPrices", { path: "/api/prices", token: admin.token }, 200);
    await invoke("GetPriceTable", { path: "/api/prices/table", token: admin.token }, 200);
    await invoke("ListPriceAudit", { path: "/api/prices/audit", token: admin.token }, 200);
    await invoke(
      "DeleteOrganisationPrice",
      {
        path: "/api/prices/grants-model",
        pathParameters: model,
        query: { effectiveFrom: "2026-12-01" },
        token: admin.token,
      },
      204,
    );
  });

  it("alert destinations by a signed-in admin: create, list, read, change, test, rotate, delete; and the delivery worker", async () => {
    const path = "/api/alerts/destinations";
    const bus = await invoke(
      "CreateAlertDestination",
      { path, token: admin.token, body: { name: "g", kind: "eventbridge" } },
      201,
    );
    // A loopback URL, allowed by the local rule when created and refused at delivery under the public rule: no
    // request leaves the machine.
    process.env.ALERT_DESTINATIONS_ALLOW_LOOPBACK = "true";
    const hook = await invoke(
      "CreateAlertDestination",
      { path, token: admin.token, body: { name: "g", kind: "webhook", url: "http://127.0.0.1:9/grants" } },
      201,
    );
    delete process.env.ALERT_DESTINATIONS_ALLOW_LOOPBACK;
    const ids = [String(bus.id), String(hook.id)];
    const one = (id: string, suffix = "") => ({
      path: `${path}/${id}${suffix}`,
      pathParameters: { destinationId: id },
      token: admin.token,
    });
    await invoke("ListAlertDestinations", { path, token: admin.token }, 200);
    await invoke("GetAlertDestination", one(ids[0] ?? ""), 200);
    await invoke("UpdateAlertDestination", { ...one(ids[0] ?? ""), body: { name: "g2", enabled: false } }, 200);
    await invoke("UpdateAlertDestination", { ...one(ids[0] ?? ""), body: { name: "g2", enabled: true } }, 200);
    await invoke("RotateAlertDestinationSecret", one(ids[1] ?? "", "/rotate-secret"), 200);
    const eventsFile = join(mkdtempSync(join(tmpdir(), "ats-grants-alerts-")), "events.jsonl");
    process.env.SESSION_EVENTS_FILE = eventsFile;
    try {
      await invoke("TestAlertDestination", one(ids[0] ?? "", "/test"), 200);
      // The worker: a delivery that arrives (success kept) and the last attempt of one that fails (failure kept).
      const job = (destinationId: string, attempt: number) => ({
        notification: {
          notificationId: newId("alertNotification"),
          type: "monitor.test",
          orgId: admin.orgId,
          environment: "live",
          monitor: {
            id: "mon_grants",
            name: "g",
            metric: "cost",
            filters: {},
            windowMinutes: 5,
            comparison: "above",
            warningThreshold: null,
            alertThreshold: 1,
          },
          state: "alert",
          previousState: "ok",
          figure: 2,
          samples: 1,
          threshold: 1,
          windowStart: "2026-11-27T10:00:00.000Z",
          windowEnd: "2026-11-27T10:05:00.000Z",
          occurredAt: "2026-11-27T10:05:01.000Z",
        },
        destinationId,
        attempt,
      });
      recorder.reset();
      const event = {
        Records: [
          { messageId: "a-1", body: JSON.stringify(job(ids[0] ?? "", 1)) },
          // The last attempt, refused by the URL rule: a failure recorded, nothing queued after it.
          { messageId: "a-2", body: JSON.stringify(job(ids[1] ?? "", 6)) },
        ],
      } as unknown as SQSEvent;
      const result = await alertDeliveryWorkerHandler(event);
      expect(result.batchItemFailures).toEqual([]);
      expect(recorder.accesses().filter((access) => access.action === "dynamodb:UpdateItem")).toHaveLength(2);
      expect(
        deniedAccesses(alertDeliveryWorker.tableGrants, recorder.accesses()).join("\n"),
        "AlertDeliveryWorker",
      ).toBe("");
    } finally {
      delete process.env.SESSION_EVENTS_FILE;
    }
    for (const id of ids) await invoke("DeleteAlertDestination", one(id), 204);
  });

  it("score configurations by a signed-in admin: set, replace, list (token and key), a score that breaks one, delete", async () => {
    const scoreAdmin = await createTestUser(api, { orgId: sdk.orgId, role: "admin" });
    const name = { name: "grants-config" };
    const path = "/api/sdk/score-configs/grants-config";
    await invoke(
      "PutScoreConfig",
      { path, pathParameters: name, token: scoreAdmin.token, body: { dataType: "boolean" } },
      200,
    );
    await invoke(
      "PutScoreConfig",
      { path, pathParameters: name, token: scoreAdmin.token, body: { dataType: "numeric", min: 0, max: 1 } },
      200,
    );
    const tenantHeaders = { "x-organization-id": sdk.orgId, "x-environment": "live" };
    await invoke(
      "ListScoreConfigs",
      { path: "/api/sdk/score-configs", token: scoreAdmin.token, headers: tenantHeaders },
      200,
    );
    await invoke("ListScoreConfigs", { path: "/api/sdk/score-configs" }, 200);
    const sessionId = await newSession("grants-configured");
    await invoke("CreateScore", { path: "/api/sdk/scores", body: { sessionId, name: "grants-config", value: 2 } }, 400);
    await invoke("DeleteScoreConfig", { path, pathParameters: name, token: scoreAdmin.token }, 204);
    await invoke("DeleteScoreConfig", { path, pathParameters: name, token: scoreAdmin.token }, 404);
  });

  it("the console: reads and a deletion with a user's access token, GET /api/me, invitations, members list/change/remove", async () => {
    const tenantHeaders = { "x-organization-id": sdk.orgId, "x-environment": "live" };
    const owner = await createTestUser(api, { orgId: sdk.orgId, role: "owner" });
    const reader = await createTestUser(api, { orgId: sdk.orgId, role: "member" });
    const sessionId = await newSession("grants-console", "grants-console-agent");
    await newSession("grants-console", "grants-console-agent");
    for (const eventType of ["state_change", "state_change"]) {
      await invoke("CreateEvent", { path: "/api/sdk/events", body: { sessionId, eventType } }, 201);
    }
    const toolCall = await invoke(
      "CreateEvent",
      {
        path: "/api/sdk/events",
        body: { sessionId, eventType: "tool_call", toolName: "export", toolOutput: { page: "p".repeat(40_000) } },
      },
      201,
    );
    const asReader = { token: reader.token, headers: tenantHeaders };
    const eventId = String(toolCall.id);
    await invoke(
      "GetEventField",
      {
        path: `/api/sdk/sessions/${sessionId}/events/${eventId}/toolOutput`,
        pathParameters: { id: sessionId, eventId, field: "toolOutput" },
        ...asReader,
      },
      200,
    );
    await invoke(
      "GetSession",
      { path: `/api/sdk/sessions/${sessionId}`, pathParameters: { id: sessionId }, ...asReader },
      200,
    );
    const page = await invoke(
      "ListSessions",
      { path: "/api/sdk/sessions", query: { agentName: "grants-console-agent", limit: "1" }, ...asReader },
      200,
    );
    await invoke(
      "ListSessions",
      {
        path: "/api/sdk/sessions",
        query: { agentName: "grants-console-agent", limit: "1", cursor: String(page.nextCursor) },
        ...asReader,
      },
      200,
    );
    const events = await invoke(
      "ListEvents",
      {
        path: `/api/sdk/sessions/${sessionId}/events`,
        pathParameters: { id: sessionId },
        query: { limit: "1" },
        ...asReader,
      },
      200,
    );
    await invoke(
      "ListEvents",
      {
        path: `/api/sdk/sessions/${sessionId}/events`,
        pathParameters: { id: sessionId },
        query: { limit: "1", cursor: String(events.nextCursor) },
        ...asReader,
      },
      200,
    );
    await invoke("ListAgents", { path: "/api/sdk/agents", ...asReader }, 200);
    await invoke(
      "AgentStats",
      {
        path: "/api/sdk/agents/grants-console-agent/stats",
        pathParameters: { agentName: "grants-console-agent" },
        query: period,
        ...asReader,
      },
      200,
    );
    await invoke("ListModels", { path: "/api/sdk/models", query: period, ...asReader }, 200);
    await invoke(
      "AgentModels",
      {
        path: "/api/sdk/agents/grants-console-agent/models",
        pathParameters: { agentName: "grants-console-agent" },
        query: period,
        ...asReader,
      },
      200,
    );
    await invoke(
      "UserStats",
      {
        path: "/api/sdk/users/grants-console/stats",
        pathParameters: { userId: "grants-console" },
        query: period,
        ...asReader,
      },
      200,
    );
    // Refusals: a member may not delete (403), a user of no organisation reads nothing (403).
    await invoke(
      "DeleteSession",
      { path: `/api/sdk/sessions/${sessionId}`, pathParameters: { id: sessionId }, ...asReader },
      403,
    );
    await invoke(
      "GetSession",
      {
        path: `/api/sdk/sessions/${sessionId}`,
        pathParameters: { id: sessionId },
        token: admin.token,
        headers: tenantHeaders,
      },
      403,
    );
    await invoke(
      "DeleteSession",
      {
        path: `/api/sdk/sessions/${sessionId}`,
        pathParameters: { id: sessionId },
        token: owner.token,
        headers: tenantHeaders,
      },
      204,
    );

    await invoke("GetMe", { path: "/api/me", token: owner.token }, 200);
    const asOwner = { token: owner.token, headers: { "x-organization-id": sdk.orgId } };
    await invoke("ListDeletionAudit", { path: "/api/audit/deletions", ...asOwner }, 200);
    // The export's runs (the export bucket, not the table), and a cursor checked against the cursor secret.
    await invoke("ListExports", { path: "/api/exports", ...asOwner }, 200);
    await invoke("ListExports", { path: "/api/exports", query: { cursor: "not.a-cursor" }, ...asOwner }, 400);
    // Invitations: created (a new person, then an existing user), refused (already invited, already a member),
    // listed, revoked, declined and accepted (the membership written with the invitation consumed).
    const invite = (email: string, status: number) =>
      invoke("CreateInvitation", { path: "/api/invitations", body: { email, role: "member" }, ...asOwner }, status);
    const inviteeEmail = `grants-${randomUUID().slice(0, 8)}@example.com`;
    const invited = await invite(inviteeEmail, 201);
    const userId = String(invited.userId);
    await invite(inviteeEmail, 409);
    await invite(reader.email, 409);
    await invoke("ListInvitations", { path: "/api/invitations", ...asOwner }, 200);
    const invitee = identity.findUser(inviteeEmail);
    if (invitee === undefined) throw new Error("the invited person is not in the local directory");
    const asInvitee = { token: identity.issueAccessToken(invitee, api.url) };
    await invoke("GetMe", { path: "/api/me", ...asInvitee }, 200);
    const invitation = { pathParameters: { orgId: sdk.orgId }, ...asInvitee };
    const decisions = {
      accept: `/api/me/invitations/${sdk.orgId}/accept`,
      decline: `/api/me/invitations/${sdk.orgId}/decline`,
    };
    await invoke(
      "RevokeInvitation",
      { path: `/api/invitations/${userId}`, pathParameters: { userId }, ...asOwner },
      204,
    );
    await invoke(
      "RevokeInvitation",
      { path: `/api/invitations/${userId}`, pathParameters: { userId }, ...asOwner },
      404,
    );
    await invoke("AcceptInvitation", { path: decisions.accept, ...invitation }, 404);
    await invite(inviteeEmail, 201);
    await invoke("DeclineInvitation", { path: decisions.decline, ...invitation }, 204);
    await invoke("DeclineInvitation", { path: decisions.decline, ...invitation }, 404);
    await invite(inviteeEmail, 201);
    await invoke("AcceptInvitation", { path: decisions.accept, ...invitation }, 201);
    await invoke("AcceptInvitation", { path: decisions.accept, ...invitation }, 404);
    await invoke("ListMembers", { path: "/api/members", ...asOwner }, 200);
    await invoke(
      "UpdateMember",
      { path: `/api/members/${userId}`, pathParameters: { userId }, body: { role: "owner" }, ...asOwner },
      200,
    );
    // Demoting an owner while another owner remains: the guard's condition check.
    await invoke(
      "UpdateMember",
      { path: `/api/members/${userId}`, pathParameters: { userId }, body: { role: "admin" }, ...asOwner },
      200,
    );
    await invoke("RemoveMember", { path: `/api/members/${userId}`, pathParameters: { userId }, ...asOwner }, 204);
    await invoke("RemoveMember", { path: `/api/members/${userId}`, pathParameters: { userId }, ...asOwner }, 404);
    // The last owner: refused before any write.
    const sole = await createTestUser(api, { role: "owner" });
    await invoke(
      "RemoveMember",
      {
        path: `/api/members/${sole.userId}`,
        pathParameters: { userId: sole.userId },
        token: sole.token,
        headers: { "x-organization-id": sole.orgId },
      },
      409,
    );
  });

  it("refusals and replays: unknown keys, other tenants' sessions, repeated Idempotency-Keys, unknown API keys", async () => {
    const other = await createTestKey({
      environment: "test",
      scopes: ["sessions:write", "events:write", "read", "delete"],
    });
    const sessionId = await newSession("grants-refusals");
    const unknownKey = `ats_live_${"A".repeat(38)}`;
    await invoke(
      "GetSession",
      { path: `/api/sdk/sessions/${sessionId}`, pathParameters: { id: sessionId }, token: unknownKey },
      401,
    );
    await invoke(
      "GetSession",
      { path: `/api/sdk/sessions/${sessionId}`, pathParameters: { id: sessionId }, token: other.key },
      403,
    );
    await invoke(
      "ListEvents",
      { path: `/api/sdk/sessions/${sessionId}/events`, pathParameters: { id: sessionId }, token: other.key },
      403,
    );
    await invoke(
      "DeleteSession",
      { path: `/api/sdk/sessions/${sessionId}`, pathParameters: { id: sessionId }, token: other.key },
      403,
    );
    await invoke("ListSessions", { path: "/api/sdk/sessions", query: { cursor: "forged.cursor" } }, 400);
    for (const repeat of [1, 2]) {
      const idempotencyKey = `grants-update-${sessionId}`;
      await invoke(
        "UpdateSession",
        {
          path: `/api/sdk/sessions/${sessionId}`,
          pathParameters: { id: sessionId },
          body: { status: "completed" },
          headers: { "idempotency-key": idempotencyKey },
        },
        200,
      );
      await invoke(
        "CreateEvent",
        {
          path: "/api/sdk/events",
          body: { sessionId, eventType: "llm_decision" },
          headers: { "idempotency-key": `grants-event-${sessionId}` },
        },
        201,
      );
      expect(repeat).toBeGreaterThan(0);
    }
    await invoke(
      "GetDeletionJob",
      { path: "/api/sdk/deletions/del_unknown", pathParameters: { jobId: "del_unknown" } },
      404,
    );
    const unknownId = `key_${"0".repeat(26)}`;
    for (const [routeId, path] of [
      ["RotateApiKey", `/api/keys/${unknownId}/rotate`],
      ["RevokeApiKey", `/api/keys/${unknownId}`],
      ["ListApiKeyAudit", `/api/keys/${unknownId}/audit`],
    ] as const) {
      await invoke(routeId, { path, pathParameters: { id: unknownId }, token: admin.token }, 404);
    }
    await invoke(
      "CreateApiKey",
      { path: "/api/keys", token: admin.token, body: { name: "t", environment: "test" } },
      201,
    );
  });

  it("the stream consumer: sessions, events, ends, a deleted session's tombstone and its orphaned events", async () => {
    const owner = await createSoloKey({ scores: true });
    const consumer = await startSoloConsumer(owner.orgId, { startAt: "now" });
    try {
      const send = async (method: string, path: string, body: unknown, status: number) => {
        const response = await call(api, method, path, { key: owner.key, body });
        expect(response.status, response.text).toBe(status);
        return response.body;
      };
      const sessionIds: string[] = [];
      for (const name of ["grants-counted", "grants-deleted"]) {
        const session = await send("POST", "/api/sdk/sessions", { agentName: "grants-agent", userId: "u", name }, 201);
        sessionIds.push(String(session.id));
      }
      for (const sessionId of sessionIds) {
        await send(
          "POST",
          "/api/sdk/events/batch",
          {
            events: [
              { sessionId, eventType: "tool_call", toolName: "lookup" },
              { sessionId, eventType: "error" },
            ],
          },
          200,
        );
      }
      await send("PATCH", `/api/sdk/sessions/${sessionIds[0]}`, { status: "completed", success: true }, 200);
      // A conversation's own score, counted from its partition.
      const conversationId = `grants-counted-chat-${randomUUID().slice(0, 8)}`;
      await send(
        "POST",
        "/api/sdk/sessions",
        { agentName: "grants-agent", userId: "u", name: "grants-chat", conversationId },
        201,
      );
      await send("POST", "/api/sdk/scores", { conversationId, name: "counted", value: true }, 201);
      await consumer.drain();
      // Deleted after counting, before its next events are counted: they are orphans, its tombstone is read.
      await send("POST", "/api/sdk/events", { sessionId: sessionIds[1], eventType: "state_change" }, 201);
      await send("DELETE", `/api/sdk/sessions/${sessionIds[1]}`, undefined, 204);

      recorder.reset();
      await consumer.drain();
      expect(recorder.accesses().length).toBeGreaterThan(0);
    } finally {
      await consumer.stop();
    }
    expect(deniedAccesses(streamConsumer.tableGrants, recorder.accesses()).join("\n"), "StreamConsumer").toBe("");

    // The export's stream reader over the same batches: the units' places read, the markers written.
    recorder.reset();
    for (const delivery of consumer.deliveries) {
      expect((await markExportChanges(delivery)).batchItemFailures).toEqual([]);
    }
    expect(recorder.accesses().length).toBeGreaterThan(0);
    expect(deniedAccesses(exportChangeMarker.tableGrants, recorder.accesses()).join("\n"), "ExportChangeMarker").toBe(
      "",
    );

    // The Parquet export of what was marked: its lock and state, the markers, the units' reads.
    recorder.reset();
    const exported = await runExport({ organisations: [owner.orgId] });
    expect(exported.status).toBe("committed");
    expect(deniedAccesses(exportJob.tableGrants, recorder.accesses()).join("\n"), "ExportJob").toBe("");
  });

  it("monitors by a signed-in admin: create, list, read, preview, replace, test, history, audit, delete; the evaluator", async () => {
    const monitorAdmin = await createTestUser(api, { role: "admin" });
    const token = monitorAdmin.token;
    const definition = {
      name: "grants monitor",
      enabled: true,
      metric: "label_share",
      filters: { agent: "grants-agent", score: "verdict", label: "wrong" },
      windowMinutes: 60,
      comparison: "above",
      alertThreshold: 10,
      minSessions: 0,
      noData: "alert",
      renotifyMinutes: 5,
      notifyOnRecovery: true,
      destinationIds: [],
    };
    const path = "/api/alerts/monitors";
    const created = await invoke("CreateMonitor", { path, token, body: definition }, 201);
    await invoke(
      "CreateMonitor",
      { path, token, body: { ...definition, destinationIds: [newId("alertDestination")] } },
      400,
    );
    const monitorId = String(created.id);
    const one = { path: `${path}/${monitorId}`, pathParameters: { monitorId }, token };
    await invoke("ListMonitors", { path, token }, 200);
    await invoke("GetMonitor", one, 200);
    await invoke("PreviewMonitor", { path: `${path}/preview`, token, body: definition }, 200);
    await invoke("ReplaceMonitor", { ...one, body: { ...definition, metric: "cost", filters: {} } }, 200);
    await invoke("TestMonitor", { ...one, path: `${one.path}/test` }, 202);

    recorder.reset();
    const report = await evaluateMonitors(new Date(), { orgId: monitorAdmin.orgId });
    expect(report.evaluated).toBe(1);
    expect(recorder.accesses().length).toBeGreaterThan(0);
    expect(deniedAccesses(monitorEvaluator.tableGrants, recorder.accesses()).join("\n"), "MonitorEvaluator").toBe("");

    await invoke("ListMonitorHistory", { ...one, path: `${one.path}/history`, query: { limit: "1" } }, 200);
    await invoke("ListAlertAudit", { path: "/api/alerts/audit", token, query: { limit: "1" } }, 200);
    await invoke("DeleteMonitor", one, 204);
    await invoke("DeleteMonitor", one, 404);
  });

  it("covered every route of the route table", () => {
    expect([...exercised].sort()).toEqual(routes.map((route) => route.id).sort());
  });
});
