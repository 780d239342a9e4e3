/**
 * A session's revision (functions/store/sessions/session-revision.ts): the transaction items that rename it, move it to
 * another agent, user or start day — with exactly what the stream consumer counted of it withdrawn from the old
 * rollups and added to the new — and the request's decision to revise (functions/otel/ingest-spans.ts
 * revisionFor), and the plan's pairing of model calls across requests (withoutRecordedPairs).
 */
import { describe, expect, it } from "vitest";
import {
  AGENT_CLAIM,
  type TracePlan,
  USER_CLAIM,
  withoutRecordedPairs,
} from "../../functions/domain/genai-trace-plan.js";
import type { Session } from "../../functions/domain/session.js";
import { revisionFor } from "../../functions/otel/ingest-spans.js";
import type { TraceSession } from "../../functions/store/otel/trace-session-store.js";
import { revisionItems } from "../../functions/store/sessions/session-revision.js";
import {
  agentSummaryKey,
  rollupDayKey,
  rollupPartition,
  rollupToolKey,
  sessionKey,
  tenant,
} from "../../functions/store/table/keys.js";

const NOW = Date.UTC(2030, 0, 2, 12);
const TENANT = tenant("org-1", "live");

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

function trace(overrides: Partial<TraceSession> = {}): TraceSession {
  return {
    sessionId: "ses_1",
    logSpans: new Set(),
    provisionalName: true,
    agentClaim: AGENT_CLAIM.serviceName,
    userClaim: USER_CLAIM.none,
    calls: new Map(),
    ...overrides,
  };
}

const start = {
  name: "invoke_agent weather-agent",
  agentName: "weather-agent",
  userId: "u-1",
  agentClaim: AGENT_CLAIM.rootSpan,
  userClaim: USER_CLAIM.rootSpan,
  conversationId: "c-1",
  metadata: { "otel.trace_id": "t", "gen_ai.request.model": "m" },
  startedAtMs: Date.parse("2030-01-02T09:59:59.000Z"),
  provisionalName: false,
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
    inference: calls.map((call) => ({ ...call, usage: { promptTokens: 1 } })),
  });

  it("drops a wrapper whose inner call was recorded, and an inner call whose wrapper was; keeps a recorded call's retry", () => {
    const recorded = new Map<string, string | undefined>([
      ["inner-1", "wrap-1"],
      ["wrap-2", "root"],
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
