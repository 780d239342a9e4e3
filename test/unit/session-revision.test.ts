/**
 * A session's revision (functions/store/sessions/session-revision.ts): the transaction items that rename it, move it to
 * another agent, user or start day — with exactly what the stream consumer counted of it withdrawn from the old
 * rollups and added to the new — and the request's decision to revise (functions/otel/ingest-spans.ts
 * revisionFor), and the plan's pairing of model calls across requests (withoutRecordedPairs).
 */
import { describe, expect, it } from "vitest";
import { ValidationError } from "../../functions/domain/errors.js";
import {
  AGENT_CLAIM,
  type TracePlan,
  USER_CLAIM,
  withoutRecordedPairs,
} from "../../functions/domain/genai-trace-plan.js";
import type { Principal } from "../../functions/domain/principal.js";
import type { Session } from "../../functions/domain/session.js";
import { revisionFor } from "../../functions/otel/ingest-spans.js";
import type { TraceSession } from "../../functions/store/otel/trace-session-store.js";
import { planRevision, type SessionRevision } from "../../functions/store/sessions/session-revision.js";
import { toolMoveStep } from "../../functions/store/sessions/tool-move-record.js";
import {
  agentSummaryKey,
  rollupDayKey,
  rollupPartition,
  rollupToolKey,
  sessionKey,
  tenant,
} from "../../functions/store/table/keys.js";
import type { TransactItem } from "../../functions/store/table/table-operations.js";

const NOW = Date.UTC(2030, 0, 2, 12);
const TENANT = tenant("org-1", "live");
const PRINCIPAL: Principal = {
  keyId: "key_1",
  orgId: "org-1",
  environment: "live",
  scopes: ["events:write"],
  retentionDays: 90,
  rollupRetentionDays: 400,
};

/** The transaction items of a revision (without the caller's). */
function revisionItems(session: Session, revision: SessionRevision, nowMs: number) {
  return planRevision(PRINCIPAL, session, revision, nowMs).items;
}

/** A session counted under a stand-in agent and user: 3 events, 2 calls of one tool, its start. */
function counted(overrides: Partial<Session> = {}): Session {
  return {
    id: "ses_1",
    orgId: "org-1",
    environment: "live",
    name: "invoke_agent svc",
    agentName: "svc",
    userId: "anonymous",
    status: "active",
    eventCount: 3,
    eventCost: 0.5,
    toolCalls: { get_weather: 2 },
    toolErrors: {},
    createdAt: "2030-01-02T10:00:00.000Z",
    updatedAt: "2030-01-02T10:00:00.000Z",
    lastActivityAt: "2030-01-02T10:00:00.000Z",
    startCounted: true,
    outcomeCounted: false,
    countVersion: 4,
    rollupRetentionDays: 400,
    ...overrides,
  };
}

const keysOf = (items: ReturnType<typeof revisionItems>) => items.map((item) => item.Update?.Key);
const addOf = (items: ReturnType<typeof revisionItems>, key: { PK: string; SK: string }) => {
  const update = items.find((item) => item.Update?.Key?.PK === key.PK && item.Update?.Key?.SK === key.SK)?.Update;
  return update?.ExpressionAttributeValues;
};

describe("revisionItems", () => {
  it("moving the agent withdraws the counted start, events and tools from the old agent's day and summary and adds them to the new one's", () => {
    const items = revisionItems(counted(), { agentName: "weather-agent" }, NOW);

    const session = items[0]?.Update;
    expect(session?.Key).toEqual(sessionKey("ses_1"));
    expect(session?.UpdateExpression).toContain("ADD #countVersion :one");
    expect(session?.ConditionExpression).toContain("#countVersion = :version");
    expect(session?.ExpressionAttributeValues).toMatchObject({ ":version": 4, ":agentName": "weather-agent" });
    expect(session?.ExpressionAttributeValues?.[":GSI2PK"]).toBe(`${TENANT}#AGENT#weather-agent`);
    const oldDay = rollupDayKey(rollupPartition(TENANT, "AGENT", "svc"), "2030-01-02");
    const newDay = rollupDayKey(rollupPartition(TENANT, "AGENT", "weather-agent"), "2030-01-02");
    expect(addOf(items, oldDay)).toMatchObject({ ":sessions": -1, ":events": -3, ":eventCost": -0.5 });
    expect(addOf(items, newDay)).toMatchObject({ ":sessions": 1, ":events": 3, ":eventCost": 0.5 });
    expect(
      addOf(items, rollupToolKey(rollupPartition(TENANT, "AGENT", "svc"), "2030-01-02", "get_weather")),
    ).toMatchObject({
      ":calls": -2,
    });
    expect(addOf(items, agentSummaryKey(TENANT, "svc"))).toMatchObject({ ":sessionCount": -1 });
    expect(addOf(items, agentSummaryKey(TENANT, "weather-agent"))).toMatchObject({ ":sessionCount": 1 });
    // The user did not change: its rollups are not touched.
    expect(keysOf(items).some((key) => key?.PK.includes("#USER#"))).toBe(false);
  });

  it("moving the agent moves the session's model calls from the old agent's model items to the new one's", () => {
    const tally = [2, 0.5, 100, 20, 120, 0, 0, 0, 1];
    const session = counted({ modelUsage: [["__proto__", ...tally]], modelCalls: 2 });
    const items = revisionItems(session, { agentName: "weather-agent" }, NOW);

    const modelOf = (agent: string) =>
      addOf(items, { PK: rollupPartition(TENANT, "AGENT", agent), SK: "DAY#2030-01-02#MODEL#__proto__" });
    expect(modelOf("svc")).toMatchObject({ ":model": "__proto__", ":calls": -2, ":estimatedCost": -0.5 });
    expect(modelOf("weather-agent")).toMatchObject({ ":calls": 2, ":promptTokens": 100, ":unpricedCalls": 1 });
    // Models are counted per agent only: moving the user alone leaves them.
    const userMoved = revisionItems(session, { userId: "u-9" }, NOW);
    expect(keysOf(userMoved).some((itemKey) => itemKey?.SK.includes("#MODEL#"))).toBe(false);
  });

  it("a new start on another day moves both dimensions' day items; a new name alone changes the session only", () => {
    const moved = revisionItems(counted(), { createdAt: "2030-01-01T23:59:59.000Z" }, NOW);
    expect(keysOf(moved)).toEqual(
      expect.arrayContaining([
        rollupDayKey(rollupPartition(TENANT, "AGENT", "svc"), "2030-01-01"),
        rollupDayKey(rollupPartition(TENANT, "AGENT", "svc"), "2030-01-02"),
        rollupDayKey(rollupPartition(TENANT, "USER", "anonymous"), "2030-01-01"),
        rollupDayKey(rollupPartition(TENANT, "USER", "anonymous"), "2030-01-02"),
      ]),
    );
    expect(keysOf(moved)).not.toContainEqual(agentSummaryKey(TENANT, "svc"));
    const renamed = revisionItems(counted(), { name: "invoke_agent weather-agent" }, NOW);
    expect(renamed).toHaveLength(1);
    expect(renamed[0]?.Update?.UpdateExpression).not.toContain("countVersion");
  });

  it("a session nothing was counted of yet moves without touching any rollup (no empty day items)", () => {
    const fresh = counted({ eventCount: 0, eventCost: 0, toolCalls: {}, startCounted: false, countVersion: undefined });
    const items = revisionItems(fresh, { agentName: "weather-agent", userId: "u-1" }, NOW);
    expect(items).toHaveLength(1);
    expect(items[0]?.Update?.ConditionExpression).toContain("attribute_not_exists(#countVersion)");
  });

  it("an ended session moves its outcome too; a revision that changes nothing writes nothing", () => {
    const ended = counted({ status: "failed", outcomeCounted: true, failureReason: "timeout", durationMs: 900 });
    const items = revisionItems(ended, { userId: "u-1" }, NOW);
    expect(addOf(items, rollupDayKey(rollupPartition(TENANT, "USER", "anonymous"), "2030-01-02"))).toMatchObject({
      ":failed": -1,
    });
    expect(addOf(items, rollupDayKey(rollupPartition(TENANT, "USER", "u-1"), "2030-01-02"))).toMatchObject({
      ":failed": 1,
    });
    expect(revisionItems(counted(), { agentName: "svc", userId: "anonymous" }, NOW)).toEqual([]);
  });
});

/** The counters a transaction's items ADD to each rollup item, by `PK SK`, summed over `items`. */
function addsByItem(items: readonly TransactItem[]): Map<string, Record<string, number>> {
  const adds = new Map<string, Record<string, number>>();
  for (const item of items) {
    const update = item.Update;
    if (update === undefined || !String(update.Key?.PK).startsWith("ROLLUP#")) continue;
    const key = `${String(update.Key?.PK)} ${String(update.Key?.SK)}`;
    const sums = adds.get(key) ?? {};
    for (const [name, value] of Object.entries(update.ExpressionAttributeValues ?? {})) {
      if (typeof value === "number" && name !== ":ttl") sums[name] = (sums[name] ?? 0) + value;
    }
    adds.set(key, sums);
  }
  return adds;
}

describe("a move of a session of many tools (issue 30: 172 items in one transaction)", () => {
  // The review's session: 20 tools that succeeded and 20 that failed, counted under stand-ins: its calls hold the
  // 20 succeeding names and `(other)` (the cap), its errors the 20 failing names — 41 tool names.
  const succeeding = Array.from({ length: 20 }, (_, index) => `lookup_${index}`);
  const failing = Array.from({ length: 20 }, (_, index) => `flaky_${index}`);
  const many = counted({
    eventCount: 60,
    toolCalls: Object.fromEntries([...succeeding.map((name) => [name, 1]), ["(other)", 20]]),
    toolErrors: Object.fromEntries(failing.map((name) => [name, 1])),
    status: "failed",
    outcomeCounted: true,
    failureReason: "timeout",
    durationMs: 900,
  });
  const everything = { agentName: "weather-agent", userId: "u-1", createdAt: "2030-01-01T23:00:00.000Z" };

  it("no transaction holds more than 100 items; the tools left over are carried by the next steps, each once", () => {
    const plan = planRevision(PRINCIPAL, many, everything, NOW, 1);
    expect(plan.items.length + 1).toBeLessThanOrEqual(100);
    expect(plan.toolMove?.dimensions).toEqual(["AGENT", "USER"]);
    // 1 session + 1 caller's + 2 × 2 × (day, durations, failure) + 2 summaries = 16; 84 left: 21 tools of 4 items.
    expect(plan.items).toHaveLength(99);
    expect(plan.toolMove?.tools).toHaveLength(41 - 21);
    expect(plan.items[0]?.Update?.UpdateExpression).toContain("#toolMove = :toolMove");

    const steps: TransactItem[][] = [];
    const last: TransactItem = {
      ConditionCheck: { Key: { PK: "OTELTRACE#x", SK: "TRACE" }, ConditionExpression: "x" },
    };
    for (let move = plan.toolMove; move !== undefined; ) {
      const step = toolMoveStep(many, move, [last]);
      steps.push(step.items);
      move = step.next;
    }
    expect(steps).toHaveLength(1);
    for (const step of steps) expect(step.length).toBeLessThanOrEqual(100);
    expect(steps.at(-1)?.at(-1)).toBe(last);
    expect(steps[0]?.[0]?.Update?.UpdateExpression).toBe("REMOVE #toolMove");

    // Over all the transactions, every tool is withdrawn once from the old agent's and user's day and added once
    // to the new ones' — exactly what the one transaction of 180 items would have written.
    const adds = addsByItem([...plan.items, ...steps.flat()]);
    for (const [name, calls, errors] of [
      ...succeeding.map((name) => [name, 1, 0] as const),
      ["(other)", 20, 0] as const,
      ...failing.map((name) => [name, 0, 1] as const),
    ]) {
      for (const [dimension, from, to] of [
        ["AGENT", "svc", "weather-agent"],
        ["USER", "anonymous", "u-1"],
      ] as const) {
        const old = rollupToolKey(rollupPartition(TENANT, dimension, from), "2030-01-02", name);
        const fresh = rollupToolKey(rollupPartition(TENANT, dimension, to), "2030-01-01", name);
        expect(adds.get(`${old.PK} ${old.SK}`), `${name} out of ${from}`).toEqual(
          errors === 0 ? { ":calls": -calls } : { ":errors": -errors },
        );
        expect(adds.get(`${fresh.PK} ${fresh.SK}`), `${name} into ${to}`).toEqual(
          errors === 0 ? { ":calls": calls } : { ":errors": errors },
        );
      }
    }
    expect([...adds.keys()].filter((key) => key.includes("#TOOL#"))).toHaveLength(41 * 4);
  });

  it("a move that fits is one transaction, as before; a move is refused while an earlier one is under way", () => {
    const plan = planRevision(PRINCIPAL, many, { userId: "u-1" }, NOW, 1);
    expect(plan.toolMove).toBeUndefined();
    // 1 + 2 × (day, durations, failure, 41 tools) = 89, and the caller's.
    expect(plan.items).toHaveLength(89);
    expect(plan.items[0]?.Update?.ConditionExpression).toContain("attribute_not_exists(#toolMove)");
  });

  it("a new start is held to a new session's startedAt rules (400): within retention, at most 5 minutes ahead", () => {
    const tooOld = new Date(NOW - 91 * 24 * 60 * 60 * 1000).toISOString();
    const ahead = new Date(NOW + 6 * 60 * 1000).toISOString();
    expect(() => planRevision(PRINCIPAL, counted(), { createdAt: tooOld }, NOW)).toThrow(
      new ValidationError("Invalid startedAt: Must not be older than the retention window (90 days)", [
        { path: "startedAt", message: "Must not be older than the retention window (90 days)" },
      ]),
    );
    expect(() => planRevision(PRINCIPAL, counted(), { createdAt: "1970-01-02T00:00:00.000Z" }, NOW)).toThrow(
      "Invalid startedAt: Must not be older than the retention window (90 days)",
    );
    expect(() => planRevision(PRINCIPAL, counted(), { createdAt: ahead }, NOW)).toThrow(
      "Invalid startedAt: Must be at most 5 minutes in the future",
    );
    // The start as it is (not a move) and one within the bounds pass.
    expect(planRevision(PRINCIPAL, counted(), { createdAt: counted().createdAt }, NOW).items).toEqual([]);
    expect(planRevision(PRINCIPAL, counted(), { createdAt: new Date(NOW).toISOString() }, NOW).items).not.toEqual([]);
  });
});

function trace(overrides: Partial<TraceSession> = {}): TraceSession {
  return {
    sessionId: "ses_1",
    logSpans: new Set(),
    provisionalName: true,
    agentClaim: AGENT_CLAIM.serviceName,
    userClaim: USER_CLAIM.none,
    calls: new Map(),
    movePending: false,
    ...overrides,
  };
}

const start = {
  traceId: "t",
  name: "invoke_agent weather-agent",
  agentName: "weather-agent",
  userId: "u-1",
  agentClaim: AGENT_CLAIM.rootSpan,
  userClaim: USER_CLAIM.rootSpan,
  conversationId: "c-1",
  metadata: { "otel.trace_id": "t", "gen_ai.request.model": "m" },
  startedAtMs: Date.parse("2030-01-02T09:59:59.000Z"),
  provisionalName: false,
  genericRoot: false,
};

describe("revisionFor (what a request's spans change of a stored trace's session)", () => {
  it("the root: stronger claims move agent and user; name, start and metadata are the root's, awaiting_root gone", () => {
    const session = counted({ metadata: { "otel.trace_id": "t", "otel.awaiting_root": true, resource: { a: 1 } } });
    expect(revisionFor(start, true, trace(), session)).toEqual({
      session: {
        agentName: "weather-agent",
        userId: "u-1",
        name: "invoke_agent weather-agent",
        createdAt: "2030-01-02T09:59:59.000Z",
        metadata: { "otel.trace_id": "t", resource: { a: 1 }, "gen_ai.request.model": "m" },
      },
      agentClaim: AGENT_CLAIM.rootSpan,
      userClaim: USER_CLAIM.rootSpan,
      conversationId: "c-1",
      rootArrived: true,
    });
  });

  it("a weaker or equal claim changes nothing; a stronger one alone moves only what it names", () => {
    const named = trace({
      agentClaim: AGENT_CLAIM.rootSpan,
      userClaim: USER_CLAIM.anySpan,
      provisionalName: false,
      conversationId: "c",
    });
    expect(
      revisionFor(
        { ...start, agentClaim: AGENT_CLAIM.agentSpan, userClaim: USER_CLAIM.anySpan },
        false,
        named,
        counted(),
      ),
    ).toBeUndefined();
    expect(revisionFor({ ...start, agentClaim: AGENT_CLAIM.anySpan }, false, named, counted())?.session).toEqual({
      agentName: undefined,
      userId: "u-1",
      name: undefined,
      createdAt: undefined,
      metadata: undefined,
    });
  });
});

describe("revisionFor: a root that names a workflow, not an agent, in either order of arrival", () => {
  /** What the agents SDK's spans without their root say: the agent span names the agent (a provisional name). */
  const children = {
    ...start,
    name: "invoke_agent Weather assistant",
    agentName: "Weather assistant",
    agentClaim: AGENT_CLAIM.agentSpan,
    provisionalName: true,
  };
  /** What the SDK's root alone says: the default workflow name (generic), the service as the stand-in agent. */
  const genericRoot = {
    ...start,
    name: "invoke_agent svc",
    agentName: "svc",
    agentClaim: AGENT_CLAIM.serviceName,
    genericRoot: true,
  };
  /** A root named by the workflow name the user chose: a claim by its name only. */
  const chosenRoot = {
    ...start,
    name: "Trip planning",
    agentName: "Trip planning",
    agentClaim: AGENT_CLAIM.rootName,
  };

  it("children first, the generic root last: the agent stays, the session is named after it", () => {
    const stored = trace({ agentClaim: AGENT_CLAIM.agentSpan, userClaim: USER_CLAIM.rootSpan });
    const session = counted({ name: "invoke_agent Weather assistant", agentName: "Weather assistant" });
    const revision = revisionFor(genericRoot, true, stored, session);
    expect(revision?.session).toMatchObject({
      agentName: undefined,
      name: "invoke_agent Weather assistant",
      createdAt: "2030-01-02T09:59:59.000Z",
    });
    expect(revision).toMatchObject({ agentClaim: AGENT_CLAIM.agentSpan, rootArrived: true });
  });

  it("the generic root first, the agent span later: the session moves to the agent and its name follows", () => {
    const stored = trace({ agentClaim: AGENT_CLAIM.serviceName, provisionalName: false });
    const revision = revisionFor(children, false, stored, counted({ name: "invoke_agent svc", agentName: "svc" }));
    expect(revision?.session).toMatchObject({ agentName: "Weather assistant", name: "invoke_agent Weather assistant" });
    expect(revision).toMatchObject({ agentClaim: AGENT_CLAIM.agentSpan, rootArrived: false });
    // Nothing named the agent before: the trace's stand-in name follows it too.
    const unnamed = trace({ agentClaim: AGENT_CLAIM.none, provisionalName: false });
    const bare = counted({ name: "trace t", agentName: "unknown_service" });
    expect(revisionFor(children, false, unnamed, bare)?.session.name).toBe("invoke_agent Weather assistant");
  });

  it("a workflow name the user chose stays the session's name in either order; the agent span names the agent", () => {
    const childrenFirst = trace({ agentClaim: AGENT_CLAIM.agentSpan, userClaim: USER_CLAIM.rootSpan });
    const provisional = counted({ name: "invoke_agent Weather assistant", agentName: "Weather assistant" });
    expect(revisionFor(chosenRoot, true, childrenFirst, provisional)?.session).toMatchObject({
      agentName: undefined,
      name: "Trip planning",
    });
    const rootFirst = trace({ agentClaim: AGENT_CLAIM.rootName, provisionalName: false });
    const named = counted({ name: "Trip planning", agentName: "Trip planning" });
    expect(revisionFor(children, false, rootFirst, named)?.session).toMatchObject({
      agentName: "Weather assistant",
      name: undefined,
    });
  });

  it("a root's own name is never replaced by a later claim, even one of an agent span", () => {
    const stored = trace({ agentClaim: AGENT_CLAIM.serviceName, provisionalName: false });
    const named = counted({ name: "nightly batch", agentName: "svc" });
    expect(revisionFor(children, false, stored, named)?.session).toMatchObject({
      agentName: "Weather assistant",
      name: undefined,
    });
  });
});

describe("withoutRecordedPairs (a model call and its wrapper in different requests)", () => {
  const plan = (calls: { spanId: string; parentSpanId?: string }[]): TracePlan => ({
    traceId: "t",
    spanIds: calls.map((call) => call.spanId),
    start: { ...start, provisionalName: true },
    events: calls.map((call) => ({
      spanId: call.spanId,
      idempotencyKey: `otel:${call.spanId}:0`,
      event: { eventType: "llm_decision", occurredAt: "2030-01-02T10:00:00.000Z" },
    })),
    inference: calls.map((call) => ({ ...call, startMs: 0, endMs: 1, usage: { promptTokens: 1 } })),
  });

  it("drops a wrapper whose inner call was recorded, and an inner call whose wrapper was; keeps a recorded call's retry", () => {
    const recorded = new Map([
      ["inner-1", { parentSpanId: "wrap-1" }],
      ["wrap-2", { parentSpanId: "root" }],
    ]);
    const revised = withoutRecordedPairs(
      plan([
        { spanId: "wrap-1", parentSpanId: "root" },
        { spanId: "inner-2", parentSpanId: "wrap-2" },
        { spanId: "inner-1", parentSpanId: "wrap-1" },
        { spanId: "other", parentSpanId: "root" },
      ]),
      recorded,
    );
    expect(revised.inference.map((call) => call.spanId)).toEqual(["inner-1", "other"]);
    expect(revised.events.map((planned) => planned.spanId)).toEqual(["inner-1", "other"]);
  });
});
