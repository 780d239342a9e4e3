/**
 * OpenTelemetry sessions that move (issue 30, items 2 and 3 of the security review): a session whose children
 * named many tools moves to the agent and user its root names however many tools it holds (a move is a few
 * transactions of at most 100 items, functions/store/sessions/session-tool-move.ts), one trace's failure never
 * sinks the other traces of its export, and a late root dated out of bounds does not move the session's start.
 * Every count is compared with a recount of the stored items (test/support/stream-recount.ts).
 */
import { randomBytes, randomUUID } from "node:crypto";
import { DynamoDBServiceException } from "@aws-sdk/client-dynamodb";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { INCURABLE_TRACE_MESSAGE } from "../../functions/otel/trace-failures.js";
import { documentClient, tableName } from "../../functions/store/table/dynamo-client.js";
import type { LocalApi } from "../../local/http-adapter.js";
import { call, createTestKey, settleCounts, startTestApi, storedSession, type TestKey } from "../support/fixtures.js";
import { expectExactDerivedData, settledGet } from "../support/stream-recount.js";

let api: LocalApi;
beforeAll(async () => {
  api = await startTestApi();
});
afterAll(() => api.close());

type Json = Record<string, unknown>;

const hex = (bytes: number) => randomBytes(bytes).toString("hex");
const nanos = (ms: number) => `${BigInt(ms) * 1_000_000n}`;
const text = (key: string, value: string) => ({ key, value: { stringValue: value } });

const STATUS_ERROR = 2;

interface SpanInput {
  readonly traceId: string;
  readonly spanId?: string;
  readonly parentSpanId?: string;
  readonly name: string;
  readonly startMs: number;
  readonly endMs: number;
  readonly attributes?: readonly unknown[];
  readonly failed?: boolean;
}

/** A span of the OTLP JSON mapping. */
function spanOf(input: SpanInput) {
  return {
    traceId: input.traceId,
    spanId: input.spanId ?? hex(8),
    parentSpanId: input.parentSpanId ?? "",
    name: input.name,
    kind: 1,
    startTimeUnixNano: nanos(input.startMs),
    endTimeUnixNano: nanos(input.endMs),
    attributes: input.attributes ?? [],
    status: input.failed === true ? { code: STATUS_ERROR, message: `${input.name} failed` } : {},
  };
}

/** An OTLP JSON export of `spans` from the service `service` (the stand-in agent of its traces). */
function exportOf(service: string, spans: readonly unknown[]): string {
  return JSON.stringify({
    resourceSpans: [{ resource: { attributes: [text("service.name", service)] }, scopeSpans: [{ spans }] }],
  });
}

async function postTraces(body: string, key: string): Promise<{ status: number; body: Json }> {
  const response = await fetch(`${api.url}/api/otel/v1/traces`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${key}` },
    body,
  });
  return { status: response.status, body: (await response.json()) as Json };
}

/** A tool call span of `traceId` under `root`, failing when `failed`. */
function toolSpan(traceId: string, root: string, tool: string, startMs: number, failed = false) {
  return spanOf({
    traceId,
    parentSpanId: root,
    name: `execute_tool ${tool}`,
    startMs,
    endMs: startMs + 50,
    attributes: [text("gen_ai.operation.name", "execute_tool"), text("gen_ai.tool.name", tool)],
    failed,
  });
}

/** A root `invoke_agent` span naming the agent and the user. */
function rootSpan(traceId: string, spanId: string, agent: string, user: string, startMs: number, endMs: number) {
  return spanOf({
    traceId,
    spanId,
    name: `invoke_agent ${agent}`,
    startMs,
    endMs,
    attributes: [
      text("gen_ai.operation.name", "invoke_agent"),
      text("gen_ai.agent.name", agent),
      text("user.id", user),
    ],
  });
}

async function sessionsOf(owner: TestKey): Promise<Json[]> {
  const response = await call(api, "GET", "/api/sdk/sessions?limit=100", { key: owner.key });
  expect(response.status).toBe(200);
  return response.body.items as Json[];
}

/** The session of a trace through the read API (GET /api/sdk/sessions/{id}). */
async function sessionOfTrace(owner: TestKey, traceId: string): Promise<Json> {
  const matching = (await sessionsOf(owner)).filter(
    (session) => (session.metadata as Json | null)?.["otel.trace_id"] === traceId,
  );
  expect(matching).toHaveLength(1);
  const response = await call(api, "GET", `/api/sdk/sessions/${String(matching[0]?.id)}`, { key: owner.key });
  expect(response.status).toBe(200);
  return response.body;
}

/** Whether a command seen by the document client's middleware is a TransactWriteItems (as sent, or marshalled). */
function isTransactWrite(context: { commandName?: string }): boolean {
  return context.commandName === "TransactWriteCommand" || context.commandName === "TransactWriteItemsCommand";
}

/** The item counts of the TransactWriteItems the service sends while `work` runs. */
async function transactionSizes(work: () => Promise<void>): Promise<number[]> {
  const sizes: number[] = [];
  const recording =
    (next: (args: { input: { TransactItems?: unknown[] } }) => Promise<unknown>, context: { commandName?: string }) =>
    async (args: { input: { TransactItems?: unknown[] } }) => {
      if (isTransactWrite(context)) sizes.push(args.input.TransactItems?.length ?? 0);
      return next(args);
    };
  documentClient.middlewareStack.add(recording as never, { step: "initialize", name: "transactionSizes" });
  try {
    await work();
  } finally {
    documentClient.middlewareStack.remove("transactionSizes");
  }
  return sizes;
}

/**
 * The review's session: 20 tools that succeed and 20 that fail, exported without a root (so counted under the
 * stand-ins: the service, anonymous), as the session read says it before its root arrives.
 */
async function manyToolsSession(owner: TestKey) {
  const id = randomUUID().slice(0, 8);
  const service = `tools-service-${id}`;
  const base = Date.now() - 10 * 60_000;
  const traceId = hex(16);
  const root = hex(8);
  const succeeding = Array.from({ length: 20 }, (_, index) => `lookup_${index}`);
  const failing = Array.from({ length: 20 }, (_, index) => `flaky_${index}`);
  // Counted in order, so that the calls' 20 names are the succeeding tools and the failing ones go to `(other)`.
  const first = await postTraces(
    exportOf(
      service,
      succeeding.map((tool, index) => toolSpan(traceId, root, tool, base + 1_000 + index)),
    ),
    owner.key,
  );
  expect(first).toEqual({ status: 200, body: {} });
  await settleCounts();
  const second = await postTraces(
    exportOf(
      service,
      failing.map((tool, index) => toolSpan(traceId, root, tool, base + 2_000 + index, true)),
    ),
    owner.key,
  );
  expect(second).toEqual({ status: 200, body: {} });
  const before = await sessionOfTrace(owner, traceId);
  expect(before).toMatchObject({ agentName: service, userId: "anonymous", status: "active", eventCount: 60 });
  expect(Object.keys(before.toolCalls as Json).sort()).toEqual([...succeeding, "(other)"].sort());
  expect(Object.keys(before.toolErrors as Json).sort()).toEqual([...failing].sort());
  return { id, service, base, traceId, root, before };
}

describe("a move of a session of many tools", () => {
  // The review's reproduction: 20 tools that succeed and 20 that fail, counted under the stand-ins (the service,
  // anonymous) before the root names the agent and the user. The session's counters hold 41 tool names (20 calls
  // by name and `(other)`, 20 errors by name): moving them under both the agent and the user took 172 items in
  // one transaction, which DynamoDB refuses (over 100), and the export answered 503 for ever — losing the other
  // trace of the same export with it.
  it("moves to the root's agent and user (2xx), every count equal to a recount; another trace of the export lands whole", async () => {
    const owner = await createTestKey();
    const { id, service, base, traceId, root, before } = await manyToolsSession(owner);

    // The root arrives with a second, new trace in the same export.
    const other = hex(16);
    const otherRoot = hex(8);
    const sizes = await transactionSizes(async () => {
      const last = await postTraces(
        exportOf(service, [
          rootSpan(traceId, root, `agent-${id}`, `user-${id}`, base, base + 60_000),
          rootSpan(other, otherRoot, `other-agent-${id}`, `other-user-${id}`, base, base + 30_000),
          toolSpan(other, otherRoot, "lookup_0", base + 100),
        ]),
        owner.key,
      );
      expect(last).toEqual({ status: 200, body: {} });
    });
    // The move's own transaction: the session, the trace record, 4 day items, 2 agent summaries and 23 of the 41
    // tools (4 items each); then the other 18 tools with the session and the record's mark: 1 + 72 + 1.
    // (Every other transaction of the export starts a trace's session: 2 items.)
    expect(sizes.filter((size) => size > 2).sort((a, b) => a - b)).toEqual([74, 100]);

    const moved = await sessionOfTrace(owner, traceId);
    expect(moved).toMatchObject({
      agentName: `agent-${id}`,
      userId: `user-${id}`,
      status: "completed",
      createdAt: new Date(base).toISOString(),
      eventCount: 60,
      toolCalls: before.toolCalls,
      toolErrors: before.toolErrors,
    });
    expect(moved.metadata).not.toHaveProperty(["otel.awaiting_root"]);
    const landed = await sessionOfTrace(owner, other);
    expect(landed).toMatchObject({
      agentName: `other-agent-${id}`,
      userId: `other-user-${id}`,
      status: "completed",
      eventCount: 1,
      toolCalls: { lookup_0: 1 },
    });
    await expectExactDerivedData({
      reader: { client: documentClient, tableName },
      orgId: owner.orgId,
      sessionIds: [String(moved.id), String(landed.id)],
      get: settledGet(api, owner),
      agentNames: [service],
      userIds: ["anonymous"],
    });
  });
});

/** Fails every TransactWriteItems whose input (as JSON) `matches`, with `error`, while `work` runs. */
async function failingCommand<T>(matches: (input: string) => boolean, error: () => Error, work: () => Promise<T>) {
  const failing =
    (next: (args: { input: unknown }) => Promise<unknown>, context: { commandName?: string }) =>
    async (args: { input: unknown }) => {
      if (isTransactWrite(context) && matches(JSON.stringify(args.input))) throw error();
      return next(args);
    };
  documentClient.middlewareStack.add(failing as never, { step: "initialize", name: "failingCommand" });
  try {
    return await work();
  } finally {
    documentClient.middlewareStack.remove("failingCommand");
  }
}

/**
 * Fails every TransactWriteItems that writes the record of trace `traceId` with `error` while `work` runs (the
 * trace's session start: alone, or in one transaction with other traces').
 */
function failingTrace<T>(traceId: string, error: () => Error, work: () => Promise<T>): Promise<T> {
  return failingCommand((input) => input.includes(traceId), error, work);
}

/** Two new traces of one export, each a root and a tool call. */
function twoTraces(id: string) {
  const base = Date.now() - 5 * 60_000;
  const traces = ["first", "second"].map((which) => ({ traceId: hex(16), root: hex(8), tool: hex(8), which }));
  const spans = traces.flatMap(({ traceId, root, tool, which }) => [
    rootSpan(traceId, root, `${which}-agent-${id}`, `${which}-user-${id}`, base, base + 10_000),
    { ...toolSpan(traceId, root, "lookup", base + 100), spanId: tool },
  ]);
  return { traces: traces as [(typeof traces)[0], (typeof traces)[0]], body: exportOf(`isolation-${id}`, spans) };
}

describe("a move cut short (the request failed between its transactions)", () => {
  /** Fails the move's second transaction (the one that finishes it) with DynamoDB unavailable. */
  const cutShort = <T>(work: () => Promise<T>) =>
    failingCommand(
      (input) => input.includes("REMOVE #toolMove"),
      () =>
        new DynamoDBServiceException({
          name: "InternalServerError",
          $fault: "server",
          $metadata: { httpStatusCode: 500 },
          message: "Internal server error",
        }),
      work,
    );

  it("is finished by the exporter's retry (the trace record marks it): 503, then 200, every count equal to a recount", async () => {
    const owner = await createTestKey();
    const { id, service, base, traceId, root } = await manyToolsSession(owner);
    const rootExport = exportOf(service, [rootSpan(traceId, root, `agent-${id}`, `user-${id}`, base, base + 60_000)]);
    const failed = await cutShort(() => postTraces(rootExport, owner.key));
    expect(failed.status).toBe(503);
    const halfway = await sessionOfTrace(owner, traceId);
    expect(halfway).toMatchObject({ agentName: `agent-${id}`, userId: `user-${id}`, status: "active" });
    expect((await storedSession(String(halfway.id)))?.toolMove).toMatchObject({ done: 0 });

    expect(await postTraces(rootExport, owner.key)).toEqual({ status: 200, body: {} });
    const session = await storedSession(String(halfway.id));
    expect(session?.toolMove).toBeUndefined();
    expect(session?.status).toBe("completed");
    await expectExactDerivedData({
      reader: { client: documentClient, tableName },
      orgId: owner.orgId,
      sessionIds: [String(halfway.id)],
      get: settledGet(api, owner),
      agentNames: [service],
      userIds: ["anonymous"],
    });
  });

  it("is finished by the session's deletion before it withdraws the session: every rollup back to nothing", async () => {
    const owner = await createTestKey({ scopes: ["events:write", "read", "delete"] });
    const { id, service, base, traceId, root } = await manyToolsSession(owner);
    const rootExport = exportOf(service, [rootSpan(traceId, root, `agent-${id}`, `user-${id}`, base, base + 60_000)]);
    expect((await cutShort(() => postTraces(rootExport, owner.key))).status).toBe(503);
    const halfway = await sessionOfTrace(owner, traceId);
    const deleted = await call(api, "DELETE", `/api/sdk/sessions/${String(halfway.id)}`, { key: owner.key });
    expect(deleted.status).toBe(204);
    await expectExactDerivedData({
      reader: { client: documentClient, tableName },
      orgId: owner.orgId,
      sessionIds: [String(halfway.id)],
      get: settledGet(api, owner),
      agentNames: [service, `agent-${id}`],
      userIds: ["anonymous", `user-${id}`],
    });
  });
});

describe("one trace's failure never sinks the others of its export", () => {
  it("a failure no retry cures (DynamoDB refuses the write as invalid) refuses that trace's spans (200, partialSuccess); the other trace is stored whole", async () => {
    const owner = await createTestKey();
    const id = randomUUID().slice(0, 8);
    const { traces, body } = twoTraces(id);
    const [failing, landing] = traces;
    const refused = new DynamoDBServiceException({
      name: "ValidationException",
      $fault: "client",
      $metadata: { httpStatusCode: 400 },
      message: "Member must have length less than or equal to 100",
    });
    const response = await failingTrace(
      failing.traceId,
      () => refused,
      () => postTraces(body, owner.key),
    );

    expect(response.status).toBe(200);
    const partial = response.body.partialSuccess as Json;
    expect(partial.rejectedSpans).toBe("2");
    expect(
      [failing.root, failing.tool].map((span) => `2 spans refused: span ${span}: ${INCURABLE_TRACE_MESSAGE}`),
    ).toContain(partial.errorMessage);
    expect(INCURABLE_TRACE_MESSAGE).toBe(
      "The service could not store this trace (its failure is logged for the service's operators); a retry would fail the same way",
    );
    const sessions = await sessionsOf(owner);
    expect(sessions).toHaveLength(1);
    const landed = await sessionOfTrace(owner, landing.traceId);
    expect(landed).toMatchObject({
      agentName: `second-agent-${id}`,
      userId: `second-user-${id}`,
      status: "completed",
      eventCount: 1,
      toolCalls: { lookup: 1 },
    });
    await expectExactDerivedData({
      reader: { client: documentClient, tableName },
      orgId: owner.orgId,
      sessionIds: [String(landed.id)],
      get: settledGet(api, owner),
    });
  });

  it("a failure a retry may cure answers 503 after the other trace is stored whole; the retry stores the first, nothing twice", async () => {
    const owner = await createTestKey();
    const id = randomUUID().slice(0, 8);
    const { traces, body } = twoTraces(id);
    const [failing, landing] = traces;
    const outage = () =>
      new DynamoDBServiceException({
        name: "InternalServerError",
        $fault: "server",
        $metadata: { httpStatusCode: 500 },
        message: "Internal server error",
      });
    const response = await failingTrace(failing.traceId, outage, () => postTraces(body, owner.key));

    expect(response).toEqual({
      status: 503,
      body: {
        error: "Service Unavailable",
        message: "The export could not be stored now; retry after the Retry-After delay",
      },
    });
    expect(await sessionOfTrace(owner, landing.traceId)).toMatchObject({ status: "completed", eventCount: 1 });
    expect(await sessionsOf(owner)).toHaveLength(1);

    expect(await postTraces(body, owner.key)).toEqual({ status: 200, body: {} });
    const sessions = await sessionsOf(owner);
    expect(sessions).toHaveLength(2);
    for (const { traceId, which } of traces) {
      expect(await sessionOfTrace(owner, traceId)).toMatchObject({
        agentName: `${which}-agent-${id}`,
        status: "completed",
        eventCount: 1,
      });
    }
    await expectExactDerivedData({
      reader: { client: documentClient, tableName },
      orgId: owner.orgId,
      sessionIds: sessions.map((session) => String(session.id)),
      get: settledGet(api, owner),
    });
  });
});

describe("a late root dated out of bounds", () => {
  // A session started from its children awaits its root; the root's start becomes the session's. A root dated
  // before the organisation's retention (1970) or more than 5 minutes ahead (2500) is refused as the first span
  // of a new trace with that start is (partialSuccess, the same message): the session keeps its start, its agent
  // and user, and stays active, awaiting a root.
  it.each([
    // The review's roots: one started in 1970 and ended now (a run of 56 years), one of a minute in 2500.
    [
      "1970",
      Date.UTC(1970, 0, 2),
      Date.now() - 30_000,
      "Invalid startedAt: Must not be older than the retention window (90 days)",
    ],
    [
      "2500",
      Date.UTC(2500, 0, 1),
      Date.UTC(2500, 0, 1, 0, 1),
      "Invalid startedAt: Must be at most 5 minutes in the future",
    ],
  ])(
    "dated %s: refused like a new trace of that start; the session's start, duration and status stay",
    async (_year, rootStart, rootEnd, message) => {
      const owner = await createTestKey();
      const id = randomUUID().slice(0, 8);
      const service = `late-root-${id}`;
      const childStart = Date.now() - 60_000;
      const traceId = hex(16);
      const root = hex(8);
      const children = exportOf(service, [toolSpan(traceId, root, "lookup", childStart)]);
      expect(await postTraces(children, owner.key)).toEqual({ status: 200, body: {} });

      const late = exportOf(service, [rootSpan(traceId, root, `agent-${id}`, `user-${id}`, rootStart, rootEnd)]);
      expect(await postTraces(late, owner.key)).toEqual({
        status: 200,
        body: { partialSuccess: { rejectedSpans: "1", errorMessage: `1 span refused: span ${root}: ${message}` } },
      });
      const session = await sessionOfTrace(owner, traceId);
      expect(session).toMatchObject({
        name: `invoke_agent ${service}`,
        agentName: service,
        userId: "anonymous",
        status: "active",
        createdAt: new Date(childStart).toISOString(),
        completedAt: null,
        durationMs: null,
        eventCount: 1,
        metadata: { "otel.awaiting_root": true, "otel.trace_id": traceId },
      });
      // The same root as the first span of a new trace: the same refusal, nothing stored.
      const fresh = hex(16);
      const freshRoot = hex(8);
      const first = exportOf(service, [rootSpan(fresh, freshRoot, `agent-${id}`, `user-${id}`, rootStart, rootEnd)]);
      expect(await postTraces(first, owner.key)).toEqual({
        status: 200,
        body: { partialSuccess: { rejectedSpans: "1", errorMessage: `1 span refused: span ${freshRoot}: ${message}` } },
      });
      expect((await sessionsOf(owner)).map((listed) => listed.id)).toEqual([session.id]);
      await expectExactDerivedData({
        reader: { client: documentClient, tableName },
        orgId: owner.orgId,
        sessionIds: [String(session.id)],
        get: settledGet(api, owner),
      });
    },
  );
});
