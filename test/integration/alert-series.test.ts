/**
 * The alert series (issue 34) against DynamoDB Local: sessions and events of the test's own organisations, counted by
 * the real stream consumer, read back with readSeriesWindow / readSeriesHours for 5-minute, hour and multi-hour
 * windows and compared with a recount of what was stored; facets counted only when a monitor (an item written here
 * in the contract's format) watches them; a batch delivered again (after a failed flush, and after a success) counted
 * once; another tenant's series untouched.
 */
import { ProvisionedThroughputExceededException } from "@aws-sdk/client-dynamodb";
import { GetCommand, PutCommand, QueryCommand } from "@aws-sdk/lib-dynamodb";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import {
  SERIES_COUNTERS,
  type SeriesFacet,
  type SeriesQuery,
  type SeriesTotals,
} from "../../functions/domain/alert-series.js";
import { durationBin } from "../../functions/domain/duration-bins.js";
import { readSeriesHours, readSeriesWindow } from "../../functions/store/alerts/series-store.js";
import { documentClient, tableName } from "../../functions/store/table/dynamo-client.js";
import { MONITORS_PARTITION, sessionKey, tenantMonitorsPrefix } from "../../functions/store/table/keys.js";
import type { StreamBatchResponse } from "../../functions/stream/stream-consumer.js";
import type { LocalApi } from "../../local/http-adapter.js";
import {
  call,
  createTestKey,
  createTestSession,
  settleCounts,
  startTestApi,
  type TestKey,
} from "../support/fixtures.js";
import { createSoloKey, type SoloConsumer, startSoloConsumer } from "../support/stream-solo.js";

const HOUR = 3_600_000;
const MINUTE = 60_000;
const AGENT = "alert#agent";
const SECOND_AGENT = "__proto__";
const WATCHED_USER = "u#1";
const WATCHED_TOOL = `search#${"t".repeat(249)}`; // 256 characters
const WATCHED_MODEL = "__proto__";
const WATCHED_SCORE = "quality#1";
const WATCHED_LABEL = "friendly#1";
/** 30 more watched score names: 30 scores of them in one counting group would be 180 transaction items. */
const MANY = Array.from({ length: 30 }, (_, index) => `many#${index}`);

let api: LocalApi;
const consumers: SoloConsumer[] = [];
/** Three whole hours before the current one: every time the tests send lies after it and before now. */
const base = Math.floor(Date.now() / HOUR) * HOUR - 3 * HOUR;
const iso = (offsetMs: number) => new Date(base + offsetMs).toISOString();

beforeAll(async () => {
  api = await startTestApi();
});
afterAll(async () => {
  vi.restoreAllMocks();
  await Promise.allSettled(consumers.map((consumer) => consumer.stop()));
  await api.close();
});

/** A monitor item as the contract stores it (pk MONITORS, sk `<orgId>#<environment>#<monitorId>`). */
async function writeMonitor(orgId: string, monitorId: string, enabled: boolean, filters: Record<string, string>) {
  await documentClient.send(
    new PutCommand({
      TableName: tableName,
      Item: {
        PK: MONITORS_PARTITION,
        SK: `${tenantMonitorsPrefix(orgId, "live")}${monitorId}`,
        entity: "monitor",
        orgId,
        environment: "live",
        monitorId,
        enabled,
        metric: "failure_rate",
        filters,
      },
    }),
  );
}

async function watchEverything(orgId: string): Promise<void> {
  await writeMonitor(orgId, "mon_user", true, { agent: AGENT, user: WATCHED_USER });
  await writeMonitor(orgId, "mon_tool", true, { tool: WATCHED_TOOL });
  await writeMonitor(orgId, "mon_model", true, { model: WATCHED_MODEL });
  await writeMonitor(orgId, "mon_disabled", false, { tool: "other" });
  await writeMonitor(orgId, "mon_score", true, { score: WATCHED_SCORE });
  await writeMonitor(orgId, "mon_label", true, { score: "tone", label: WATCHED_LABEL });
  await Promise.all(MANY.map((score, index) => writeMonitor(orgId, `mon_many_${index}`, true, { score })));
}

async function send(owner: TestKey, method: string, path: string, body: Record<string, unknown>) {
  const response = await call(api, method, path, { key: owner.key, body });
  expect(response.status, response.text).toBeLessThan(300);
}

/** Three sessions over three hours: starts, tool calls and errors, model calls, a completed and a failed end. */
async function writeWorkload(owner: TestKey): Promise<string[]> {
  const first = await createTestSession(api, owner.key, {
    agentName: AGENT,
    userId: WATCHED_USER,
    startedAt: iso(7 * MINUTE),
  });
  const event = (sessionId: string, body: Record<string, unknown>) =>
    send(owner, "POST", "/api/sdk/events", { sessionId, ...body });
  await event(first, { eventType: "tool_call", toolName: WATCHED_TOOL, occurredAt: iso(8 * MINUTE) });
  await event(first, { eventType: "error", toolName: WATCHED_TOOL, occurredAt: iso(9 * MINUTE) });
  await event(first, { eventType: "tool_call", toolName: "other", occurredAt: iso(9 * MINUTE), estimatedCost: 0.5 });
  await event(first, {
    eventType: "llm_decision",
    model: WATCHED_MODEL,
    usage: { promptTokens: 100, completionTokens: 20 },
    estimatedCost: 0.25,
    occurredAt: iso(HOUR + 2 * MINUTE),
  });
  await send(owner, "PATCH", `/api/sdk/sessions/${first}`, {
    status: "completed",
    completedAt: iso(HOUR + 15 * MINUTE),
    durationMs: 4_000,
  });
  const second = await createTestSession(api, owner.key, {
    agentName: AGENT,
    userId: "u-2",
    startedAt: iso(HOUR + 40 * MINUTE),
  });
  await event(second, { eventType: "error", occurredAt: iso(HOUR + 41 * MINUTE) });
  await event(second, {
    eventType: "llm_decision",
    model: "unwatched-model",
    usage: { totalTokens: 50 },
    estimatedCost: 0.1,
    occurredAt: iso(2 * HOUR + 5 * MINUTE),
  });
  await send(owner, "PATCH", `/api/sdk/sessions/${second}`, {
    status: "failed",
    failureReason: "boom",
    completedAt: iso(2 * HOUR + 30 * MINUTE),
    durationMs: 90_000,
  });
  const third = await createTestSession(api, owner.key, {
    agentName: SECOND_AGENT,
    userId: WATCHED_USER,
    startedAt: iso(2 * HOUR + 10 * MINUTE),
  });
  // No occurredAt: counted at its acknowledgement (now).
  await event(third, { eventType: "tool_call", toolName: WATCHED_TOOL });
  const score = (sessionId: string, name: string, value: unknown) =>
    send(owner, "POST", "/api/sdk/scores", { sessionId, name, value });
  await score(first, WATCHED_SCORE, 0.75);
  await score(third, WATCHED_SCORE, 0.5);
  await score(first, "tone", WATCHED_LABEL);
  await score(second, "tone", "rude");
  await score(second, "unwatched", 1);
  const scores = MANY.map((name, index) => ({ sessionId: first, name, value: index }));
  await send(owner, "POST", "/api/sdk/scores/batch", { scores });
  return [first, second, third];
}

/** One count of the recount: which series it goes to and when. */
interface Fact {
  readonly atMs: number;
  readonly agent: string;
  readonly facet: SeriesFacet;
  readonly counters: Partial<Record<Exclude<keyof SeriesTotals, "durationBins">, number>>;
  readonly bin?: number;
}

/** The recount of the sessions as stored: the rules of the contract, applied to every item of their partitions. */
async function recount(sessionIds: readonly string[]): Promise<Fact[]> {
  const facts: Fact[] = [];
  for (const sessionId of sessionIds) {
    const session = (
      await documentClient.send(
        new GetCommand({ TableName: tableName, Key: sessionKey(sessionId), ConsistentRead: true }),
      )
    ).Item as Record<string, unknown>;
    const agent = String(session.agentName);
    const user = String(session.userId);
    const sessionFacets: SeriesFacet[] = [{ kind: "none" }, { kind: "user", user }];
    const at = (value: unknown) => Date.parse(String(value));
    for (const facet of sessionFacets) {
      facts.push({ atMs: at(session.createdAt), agent, facet, counters: { started: 1 } });
      if (session.status === "completed" || session.status === "failed") {
        facts.push({
          atMs: at(session.completedAt),
          agent,
          facet,
          counters: { ended: 1, failed: session.status === "failed" ? 1 : 0 },
          bin: durationBin(Number(session.durationMs)),
        });
      }
    }
    const events = await documentClient.send(
      new QueryCommand({
        TableName: tableName,
        KeyConditionExpression: "PK = :pk",
        ExpressionAttributeValues: { ":pk": sessionKey(sessionId).PK },
        ConsistentRead: true,
      }),
    );
    for (const item of events.Items ?? []) {
      if (item.entity === "score") {
        const atMs = at(item.createdAt);
        const value = typeof item.value === "number" ? item.value : item.value === true ? 1 : 0;
        facts.push({
          atMs,
          agent,
          facet: { kind: "score", score: String(item.name) },
          counters: { scoreCount: 1, scoreSum: value },
        });
        if (typeof item.value === "string") {
          facts.push({
            atMs,
            agent,
            facet: { kind: "label", score: String(item.name), label: item.value },
            counters: { labelCount: 1 },
          });
        }
        continue;
      }
      if (item.entity !== "event") continue;
      const atMs = at(item.occurredAt ?? item.createdAt);
      const usage = (item.usage ?? {}) as Record<string, number>;
      const modelCall = item.model !== undefined || item.usage !== undefined;
      const tokens = modelCall ? (usage.totalTokens ?? (usage.promptTokens ?? 0) + (usage.completionTokens ?? 0)) : 0;
      const cost = typeof item.estimatedCost === "number" ? item.estimatedCost : 0;
      for (const facet of sessionFacets) {
        facts.push({ atMs, agent, facet, counters: { errors: item.eventType === "error" ? 1 : 0, cost, tokens } });
      }
      if (typeof item.toolName === "string") {
        facts.push({
          atMs,
          agent,
          facet: { kind: "tool", tool: item.toolName },
          counters: { calls: item.eventType === "tool_call" ? 1 : 0, callErrors: item.eventType === "error" ? 1 : 0 },
        });
      }
      if (typeof item.model === "string") {
        facts.push({ atMs, agent, facet: { kind: "model", model: item.model }, counters: { calls: 1, cost, tokens } });
      }
    }
  }
  return facts;
}

function sameFacet(a: SeriesFacet, b: SeriesFacet): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

/** The totals the recount gives a series over [startMs, endMs). */
function expected(facts: readonly Fact[], query: Omit<SeriesQuery, "start" | "end">, startMs: number, endMs: number) {
  const totals: Record<string, number> = {};
  const bins = new Map<number, number>();
  for (const fact of facts) {
    if (fact.atMs < startMs || fact.atMs >= endMs || !sameFacet(fact.facet, query.facet)) continue;
    if (query.agent !== undefined && fact.agent !== query.agent) continue;
    for (const [name, value] of Object.entries(fact.counters)) totals[name] = (totals[name] ?? 0) + (value ?? 0);
    if (fact.bin !== undefined) bins.set(fact.bin, (bins.get(fact.bin) ?? 0) + 1);
  }
  return { totals, bins };
}

function expectTotals(actual: SeriesTotals, wanted: ReturnType<typeof expected>, what: string): void {
  const { durationBins, cost, ...rest } = actual;
  const counters = Object.fromEntries(
    SERIES_COUNTERS.filter((name) => name !== "cost").map((name) => [name, rest[name]]),
  );
  const { cost: wantedCost = 0, ...wantedCounters } = wanted.totals;
  const nonZero = Object.fromEntries(Object.entries(counters).filter(([, value]) => value !== 0));
  const wantedNonZero = Object.fromEntries(Object.entries(wantedCounters).filter(([, value]) => value !== 0));
  expect(nonZero, what).toEqual(wantedNonZero);
  expect(cost, what).toBeCloseTo(wantedCost, 9);
  expect(new Map(durationBins), what).toEqual(wanted.bins);
}

/** Every series the tests compare: all agents and each agent, each facet watched or not. */
function seriesOf(orgId: string): Omit<SeriesQuery, "start" | "end">[] {
  const facets: SeriesFacet[] = [
    { kind: "none" },
    { kind: "user", user: WATCHED_USER },
    { kind: "tool", tool: WATCHED_TOOL },
    { kind: "model", model: WATCHED_MODEL },
    { kind: "score", score: WATCHED_SCORE },
    // A label share reads its score's count too: the label monitor watches the score name.
    { kind: "score", score: "tone" },
    { kind: "label", score: "tone", label: WATCHED_LABEL },
  ];
  return [undefined, AGENT, SECOND_AGENT].flatMap((agent) =>
    facets.map((facet) => ({ orgId, environment: "live" as const, agent, facet })),
  );
}

/** Facts of facets no enabled monitor watches are not counted: the recount leaves them out too. */
function watchedOnly(facts: readonly Fact[]): Fact[] {
  return facts.filter(
    ({ facet }) =>
      facet.kind === "none" ||
      (facet.kind === "user" && facet.user === WATCHED_USER) ||
      (facet.kind === "tool" && facet.tool === WATCHED_TOOL) ||
      (facet.kind === "model" && facet.model === WATCHED_MODEL) ||
      (facet.kind === "score" && (facet.score === WATCHED_SCORE || facet.score === "tone")) ||
      (facet.kind === "label" && facet.score === "tone" && facet.label === WATCHED_LABEL),
  );
}

const nowWindowEnd = () => Math.floor(Date.now() / (5 * MINUTE)) * 5 * MINUTE + 5 * MINUTE;

/** Compares every series over 5-minute, hour, off-hour and multi-hour windows, and hour by hour. */
async function expectSeriesMatch(orgId: string, facts: readonly Fact[]): Promise<void> {
  const end = nowWindowEnd();
  const windows: [number, number][] = [
    [base + 5 * MINUTE, base + 10 * MINUTE],
    [base + HOUR, base + 2 * HOUR],
    [base + 30 * MINUTE, base + HOUR + 35 * MINUTE],
    [base, end],
  ];
  // Read in parallel (DynamoDB Local answers them side by side), compared in order.
  const reads = await Promise.all(
    seriesOf(orgId).map(async (query) => ({
      query,
      windows: await Promise.all(
        windows.map(([start, stop]) => readSeriesWindow({ ...query, start: new Date(start), end: new Date(stop) })),
      ),
      points: await readSeriesHours({ ...query, start: new Date(base), end: new Date(end) }),
    })),
  );
  for (const { query, windows: read, points } of reads) {
    read.forEach((window, index) => {
      const [start, stop] = windows[index] as [number, number];
      const what = `${query.agent ?? "(all)"} ${JSON.stringify(query.facet)} ${new Date(start).toISOString()}…${new Date(stop).toISOString()}`;
      expectTotals(window, expected(facts, query, start, stop), what);
      expect(window.start.getTime()).toBe(start);
    });
    expect(points.length).toBe(Math.ceil((end - base) / HOUR));
    for (const point of points) {
      const from = point.start.getTime();
      expectTotals(point, expected(facts, query, from, from + HOUR), `hour ${point.start.toISOString()}`);
    }
  }
}

/** Each of the MANY watched score names counted once (30 scores at once: 180 transaction items, split). */
async function expectManyScores(orgId: string): Promise<void> {
  const manyWindows = await Promise.all(
    MANY.flatMap((score) =>
      [undefined, AGENT].map((agent) =>
        readSeriesWindow({
          orgId: orgId,
          environment: "live",
          agent,
          facet: { kind: "score", score },
          start: new Date(base),
          end: new Date(nowWindowEnd()),
        }),
      ),
    ),
  );
  manyWindows.forEach((window, index) => {
    const score = Math.floor(index / 2);
    expect({ count: window.scoreCount, sum: window.scoreSum }, `many#${score}`).toEqual({ count: 1, sum: score });
  });
}

describe("alert series", () => {
  it("count starts, ends, errors, cost, tokens and the watched tool, model and user by time, per agent and for all", async () => {
    // Prepare
    const owner = await createTestKey({ scopes: ["sessions:write", "events:write", "scores:write", "read"] });
    await watchEverything(owner.orgId);

    // Act
    const sessions = await writeWorkload(owner);
    await settleCounts();

    // Assess
    const facts = await recount(sessions);
    expect(facts.some((fact) => fact.facet.kind === "tool" && fact.facet.tool === "other")).toBe(true);
    await expectSeriesMatch(owner.orgId, watchedOnly(facts));
    const unwatched = [
      { kind: "tool", tool: "other" },
      { kind: "model", model: "unwatched-model" },
      { kind: "user", user: "u-2" },
      { kind: "score", score: "unwatched" },
      { kind: "label", score: "tone", label: "rude" },
    ] as const;
    for (const facet of unwatched) {
      const window = await readSeriesWindow({
        orgId: owner.orgId,
        environment: "live",
        facet,
        start: new Date(base),
        end: new Date(nowWindowEnd()),
      });
      expect(window.itemsRead, JSON.stringify(facet)).toBe(0);
    }
    const otherEnvironment = await readSeriesWindow({
      orgId: owner.orgId,
      environment: "test",
      facet: { kind: "none" },
      start: new Date(base),
      end: new Date(nowWindowEnd()),
    });
    expect(otherEnvironment.itemsRead).toBe(0);
    await expectManyScores(owner.orgId);
  });

  it("count a batch delivered again once: after a failed read of the monitors, and after a success", async () => {
    // Prepare: the monitors' first read fails, so the first delivery counts the sessions but not their rollups.
    const owner = await createSoloKey({ scores: true });
    await watchEverything(owner.orgId);
    const answers: StreamBatchResponse[] = [];
    const consumer = await startSoloConsumer(owner.orgId, {
      startAt: "now",
      wrapper: async (event, _, real) => {
        for (let delivery = 0; delivery < 3; delivery++) answers.push(await real(event));
        return answers.at(-1) as StreamBatchResponse;
      },
    });
    consumers.push(consumer);
    const send = documentClient.send.bind(documentClient);
    let failed = 0;
    const transactionSizes: number[] = [];
    vi.spyOn(documentClient, "send").mockImplementation(((command: { input?: Record<string, unknown> }) => {
      const items = command.input?.TransactItems;
      if (Array.isArray(items)) transactionSizes.push(items.length);
      const values = command.input?.ExpressionAttributeValues as Record<string, unknown> | undefined;
      if (failed === 0 && values?.[":pk"] === MONITORS_PARTITION) {
        failed += 1;
        return Promise.reject(new ProvisionedThroughputExceededException({ message: "throttled", $metadata: {} }));
      }
      return send(command as never);
    }) as typeof documentClient.send);

    // Act
    const sessions = await writeWorkload(owner);
    await consumer.drain();
    vi.restoreAllMocks();

    // Assess
    expect(failed).toBe(1);
    expect(answers[0]?.batchItemFailures.length).toBe(1);
    expect(Math.max(...transactionSizes)).toBeLessThanOrEqual(100);
    await expectSeriesMatch(owner.orgId, watchedOnly(await recount(sessions)));
    await expectManyScores(owner.orgId);
  });
});
