/**
 * Issue 14: the stream consumer killed mid-batch, a batch delivered twice, a
 * batch delivered again from a middle record — derived data still equals a
 * brute-force recount, nothing counted twice. Each test owns a `solo-…`
 * organisation (the run's shared consumer leaves it alone) and drives its own
 * poller (local/stream-poller.ts) over the real consumer handler, with a
 * wrapper that injects the fault; the restart is a NEW poller reading the
 * stream from its oldest record, as `npm start` does after a crash.
 */
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { documentClient } from "../../functions/store/table/dynamo-client.js";
import { handler, type StreamBatchEvent } from "../../functions/stream/stream-consumer.js";
import type { LocalApi } from "../../local/http-adapter.js";
import { call, startTestApi, type TestKey } from "../support/fixtures.js";
import { expectExactDerivedData, storedRecord } from "../support/stream-recount.js";
import {
  apiGet,
  type ConsumeWrapper,
  createSoloKey,
  onlySessions,
  runTable,
  type SoloConsumer,
  sessionsOf,
  startSoloConsumer,
} from "../support/stream-solo.js";
import { recordWorkload, type Send } from "../support/stream-workload.js";

let api: LocalApi;
const consumers: SoloConsumer[] = [];

beforeAll(async () => {
  api = await startTestApi();
});
afterAll(async () => {
  await Promise.allSettled(consumers.map((consumer) => consumer.stop()));
  await api.close();
});

function sender(owner: TestKey): Send {
  return async (method, path, body) => {
    const response = await call(api, method, path, { key: owner.key, body });
    return { status: response.status, body: response.body };
  };
}

async function solo(orgId: string, startAt: "now" | "oldest", wrapper?: ConsumeWrapper): Promise<SoloConsumer> {
  const consumer = await startSoloConsumer(orgId, { startAt, ...(wrapper === undefined ? {} : { wrapper }) });
  consumers.push(consumer);
  return consumer;
}

/** 6 sessions × 24 events (+ ends, + 3 late events each): ~170 stream records, two batches or more. */
const WORKLOAD = { sessions: 6, eventsPerSession: 24, late: 3 } as const;

async function expectExact(owner: TestKey, sessionIds: readonly string[]) {
  return expectExactDerivedData({ reader: runTable, orgId: owner.orgId, sessionIds, get: apiGet(api, owner.key) });
}

/** Events counted so far over the sessions (what the consumer committed before it died). */
async function countedEvents(sessionIds: readonly string[]): Promise<number> {
  const { sessions } = await storedRecord(runTable, sessionIds);
  return sessions.reduce((sum, session) => sum + (typeof session.eventCount === "number" ? session.eventCount : 0), 0);
}

class ConsumerDied extends Error {}

describe("a consumer killed mid-batch and restarted counts everything exactly once", () => {
  const crashes: [string, (event: StreamBatchEvent) => StreamBatchEvent][] = [
    ["half of the batch's sessions committed", (event) => onlySessions(event, sessionsOf(event).slice(0, 3))],
    ["every session committed, the answer lost", (event) => event],
    ["nothing committed", (event) => onlySessions(event, [])],
  ];
  it.each(crashes)("dies on its 2nd batch (%s); a new poller from the oldest record finishes", async (_, committed) => {
    const owner = await createSoloKey();
    const dying = await solo(owner.orgId, "now", async (event, invocation, real) => {
      if (invocation !== 2) return real(event);
      const part = committed(event);
      if (part.Records.length > 0) expect((await real(part)).batchItemFailures).toEqual([]);
      throw new ConsumerDied("the consumer process died before answering");
    });
    const { sessionIds, events } = await recordWorkload(sender(owner), WORKLOAD);

    await expect(dying.drain()).rejects.toBeInstanceOf(ConsumerDied);
    const countedAtCrash = await countedEvents(sessionIds);
    expect(dying.deliveries.length).toBe(2);
    expect(countedAtCrash).toBeLessThanOrEqual(events);
    await dying.stop();

    const restarted = await solo(owner.orgId, "oldest");
    await restarted.drain();

    const recount = await expectExact(owner, sessionIds);
    expect(recount.events).toHaveLength(events);
    expect(await countedEvents(sessionIds)).toBe(events);
  });

  it("a zombie that never answered wakes up after the restart counted everything, and counts nothing twice", async () => {
    const owner = await createSoloKey();
    let wake: () => void = () => undefined;
    const woken = new Promise<void>((resolve) => {
      wake = resolve;
    });
    const zombie = await solo(owner.orgId, "now", async (event, invocation, real) => {
      if (invocation !== 2) return real(event);
      await real(onlySessions(event, sessionsOf(event).slice(0, 2)));
      await woken; // hangs: no answer while the restarted consumer runs
      return real(event); // then the whole batch, already counted by the restart
    });
    const { sessionIds, events } = await recordWorkload(sender(owner), WORKLOAD);

    const zombieDrain = zombie.drain();
    await expect.poll(() => zombie.deliveries.length, { timeout: 10_000 }).toBe(2);
    const restarted = await solo(owner.orgId, "oldest");
    await restarted.drain();
    await expectExact(owner, sessionIds);
    wake();
    await zombieDrain;

    const recount = await expectExact(owner, sessionIds);
    expect(recount.events).toHaveLength(events);
  });
});

describe("a batch delivered again counts once", () => {
  it("every batch delivered twice (the same records, the same shard)", async () => {
    const owner = await createSoloKey();
    const twice = await solo(owner.orgId, "now", async (event, _, real) => {
      expect((await real(event)).batchItemFailures).toEqual([]);
      return real(event);
    });
    const { sessionIds, events } = await recordWorkload(sender(owner), WORKLOAD);

    await twice.drain();

    expect(twice.deliveries.length).toBeGreaterThanOrEqual(2);
    const recount = await expectExact(owner, sessionIds);
    expect(recount.events).toHaveLength(events);
  });

  it("a batch answered with a failure at a middle record is read again from it; bisected halves again count nothing", async () => {
    const owner = await createSoloKey();
    let failedAt: string | undefined;
    const partial = await solo(owner.orgId, "now", async (event, invocation, real) => {
      const answer = await real(event);
      if (invocation !== 1) return answer;
      failedAt = event.Records[Math.floor(event.Records.length / 2)]?.dynamodb?.SequenceNumber;
      return { ...answer, batchItemFailures: [{ itemIdentifier: String(failedAt) }] };
    });
    const { sessionIds, events } = await recordWorkload(sender(owner), WORKLOAD);

    await partial.drain();

    expect(failedAt).toBeDefined();
    expect(partial.deliveries[1]?.Records[0]?.dynamodb?.SequenceNumber, "redelivered from the failed record").toBe(
      failedAt,
    );
    await expectExact(owner, sessionIds);
    // As Lambda's bisect-on-error would: each half of the first batch, then the whole batch, again.
    const first = partial.deliveries[0] as StreamBatchEvent;
    const middle = Math.floor(first.Records.length / 2);
    for (const again of [
      { ...first, Records: first.Records.slice(0, middle) },
      { ...first, Records: first.Records.slice(middle) },
      first,
    ]) {
      expect((await handler(again)).batchItemFailures).toEqual([]);
    }
    const recount = await expectExact(owner, sessionIds);
    expect(recount.events).toHaveLength(events);
  });
});

describe("a batch delivered again after its session moved (OpenTelemetry)", () => {
  it("shares its rollups never got go where the session was counted then: the move withdrew them from there", async () => {
    const owner = await createSoloKey();
    const traceId = randomBytes(16).toString("hex");
    const root = randomBytes(8).toString("hex");
    const start = Date.now() - 60_000;
    const nanos = (ms: number) => `${BigInt(ms) * 1_000_000n}`;
    const text = (key: string, value: string) => ({ key, value: { stringValue: value } });
    const span = (spanId: string, parentSpanId: string, name: string, attributes: unknown[]) => ({
      traceId,
      spanId,
      parentSpanId,
      name,
      startTimeUnixNano: nanos(start + (parentSpanId === "" ? 0 : 100)),
      endTimeUnixNano: nanos(start + (parentSpanId === "" ? 5_000 : 200)),
      attributes,
    });
    const exportSpans = async (spans: unknown[]) => {
      const body = {
        resourceSpans: [
          { resource: { attributes: [text("service.name", "stand-in-service")] }, scopeSpans: [{ spans }] },
        ],
      };
      const response = await call(api, "POST", "/api/otel/v1/traces", { key: owner.key, body });
      expect(response.status).toBe(200);
    };
    let moved = false;
    const consumer = await solo(owner.orgId, "now", async (event, invocation, real) => {
      if (invocation !== 1) return real(event);
      // The first batch's session counters are written, its rollup writes are not (the consumer died between).
      const send = documentClient.send.bind(documentClient);
      const spy = vi.spyOn(documentClient, "send").mockImplementation(((command: {
        input?: Record<string, unknown>;
      }) => {
        const key = command.input?.Key as { PK?: unknown } | undefined;
        if (typeof key?.PK === "string" && key.PK.startsWith("ROLLUP#")) {
          return Promise.reject(new ConsumerDied("the consumer died before its rollup writes"));
        }
        return send(command as never);
      }) as never);
      let answer: Awaited<ReturnType<typeof real>>;
      try {
        answer = await real(event);
      } finally {
        spy.mockRestore();
      }
      // Before the batch comes again, the root names the real agent and user: the session moves.
      await exportSpans([
        span(root, "", "invoke_agent real-agent", [
          text("gen_ai.operation.name", "invoke_agent"),
          text("gen_ai.agent.name", "real-agent"),
          text("user.id", "real-user"),
        ]),
      ]);
      moved = true;
      return { ...answer, batchItemFailures: [{ itemIdentifier: String(event.Records[0]?.dynamodb?.SequenceNumber) }] };
    });
    await exportSpans([
      span(randomBytes(8).toString("hex"), root, "chat m", [
        text("gen_ai.operation.name", "chat"),
        { key: "gen_ai.usage.input_tokens", value: { intValue: "12" } },
      ]),
      span(randomBytes(8).toString("hex"), root, "execute_tool lookup", [
        text("gen_ai.operation.name", "execute_tool"),
      ]),
    ]);

    await consumer.drain(); // ends at the failed batch
    await consumer.drain(); // delivers it again, then the root's records

    expect(moved).toBe(true);
    expect(consumer.deliveries[1]?.Records[0]?.dynamodb?.SequenceNumber, "the first batch again").toBe(
      consumer.deliveries[0]?.Records[0]?.dynamodb?.SequenceNumber,
    );
    const sessions = (await apiGet(api, owner.key)("/api/sdk/sessions")).items as {
      id: string;
      agentName: string;
    }[];
    expect(sessions.map((session) => session.agentName)).toEqual(["real-agent"]);
    const { sessions: stored } = await storedRecord(runTable, [String(sessions[0]?.id)]);
    expect(stored[0]?.countMoves, "the move recorded where the session was counted").toHaveLength(1);
    await expectExactDerivedData({
      reader: runTable,
      orgId: owner.orgId,
      sessionIds: sessions.map((session) => session.id),
      get: apiGet(api, owner.key),
      agentNames: ["stand-in-service", "real-agent"],
      userIds: ["anonymous", "real-user"],
    });
  });
});
