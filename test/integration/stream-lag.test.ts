/**
 * Issue 14, lag visibility: the read API's session says how far counting has
 * got (`countsAsOf`, the acknowledgement time of the newest event counted) —
 * null before anything is counted, behind while events wait in the stream,
 * caught up once they are counted — and a session's end yields exact rollups
 * once its acknowledged events are counted. The test owns a `solo-…`
 * organisation and decides when its consumer runs (drain()).
 */
import { PutCommand } from "@aws-sdk/lib-dynamodb";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { documentClient, tableName } from "../../functions/store/table/dynamo-client.js";
import type { LocalApi } from "../../local/http-adapter.js";
import { call, createTestSession, startTestApi, type TestKey } from "../support/fixtures.js";
import { expectExactDerivedData, storedRecord } from "../support/stream-recount.js";
import { apiGet, createSoloKey, runTable, type SoloConsumer, startSoloConsumer } from "../support/stream-solo.js";
import { workloadEvent } from "../support/stream-workload.js";

let api: LocalApi;
const consumers: SoloConsumer[] = [];

beforeAll(async () => {
  api = await startTestApi();
});
afterAll(async () => {
  await Promise.allSettled(consumers.map((consumer) => consumer.stop()));
  await api.close();
});

async function soloWithConsumer(): Promise<{ owner: TestKey; consumer: SoloConsumer }> {
  const owner = await createSoloKey();
  const consumer = await startSoloConsumer(owner.orgId, { startAt: "now" });
  consumers.push(consumer);
  return { owner, consumer };
}

async function postEvents(owner: TestKey, sessionId: string, from: number, count: number): Promise<string[]> {
  const acknowledged: string[] = [];
  for (let index = from; index < from + count; index++) {
    const response = await call(api, "POST", "/api/sdk/events", {
      key: owner.key,
      body: workloadEvent(sessionId, index),
    });
    expect(response.status).toBe(201);
    acknowledged.push(String(response.body.createdAt));
  }
  return acknowledged;
}

const newest = (times: readonly string[]) => [...times].sort().at(-1);

describe("countsAsOf says how far counting has got", () => {
  it("null before counting, behind while events wait, the newest acknowledgement once counted", async () => {
    const { owner, consumer } = await soloWithConsumer();
    const get = apiGet(api, owner.key);
    const sessionId = await createTestSession(api, owner.key, { agentName: "lag-agent", userId: "lag-user" });
    const first = await postEvents(owner, sessionId, 0, 3);

    const before = await get(`/api/sdk/sessions/${sessionId}`);
    expect(before).toMatchObject({ eventCount: 0, countsAsOf: null });

    await consumer.drain();
    const counted = await get(`/api/sdk/sessions/${sessionId}`);
    expect(counted).toMatchObject({ eventCount: 3, countsAsOf: newest(first) });

    const second = await postEvents(owner, sessionId, 3, 2);
    const behind = await get(`/api/sdk/sessions/${sessionId}`);
    expect(behind).toMatchObject({ eventCount: 3, countsAsOf: newest(first) });
    expect(String(behind.countsAsOf) < String(newest(second))).toBe(true);

    await consumer.drain();
    expect(await get(`/api/sdk/sessions/${sessionId}`)).toMatchObject({ eventCount: 5, countsAsOf: newest(second) });
  });

  it("a session's end: rollups exact once its acknowledged events are counted", async () => {
    const { owner, consumer } = await soloWithConsumer();
    const get = apiGet(api, owner.key);
    const sessionId = await createTestSession(api, owner.key, { agentName: "end-agent", userId: "end-user" });
    await postEvents(owner, sessionId, 0, 7);
    const ended = await call(api, "PATCH", `/api/sdk/sessions/${sessionId}`, {
      key: owner.key,
      body: { status: "failed", failureReason: "the tool timed out", durationMs: 4_000, estimatedCost: 0.5 },
    });
    expect(ended.status).toBe(200);
    expect(((await get("/api/sdk/agents/end-agent/stats")).totals as Record<string, unknown>).events).toBe(0);

    await consumer.drain();

    await expectExactDerivedData({ reader: runTable, orgId: owner.orgId, sessionIds: [sessionId], get });
    const stats = await get("/api/sdk/agents/end-agent/stats");
    expect(stats.totals).toMatchObject({ sessions: 1, failed: 1, events: 7 });
    expect(stats.topFailureReasons).toEqual([{ reason: "the tool timed out", count: 1 }]);
  });

  it("an event overwritten by a racing retry with a later acknowledgement moves countsAsOf, counting it once", async () => {
    const { owner, consumer } = await soloWithConsumer();
    const get = apiGet(api, owner.key);
    const sessionId = await createTestSession(api, owner.key, { agentName: "overwrite-agent", userId: "o" });
    const batch = await call(api, "POST", "/api/sdk/events/batch", {
      key: owner.key,
      body: {
        events: [{ ...workloadEvent(sessionId, 0), idempotencyKey: "step-1", occurredAt: new Date().toISOString() }],
      },
    });
    expect((batch.body.results as { status: number }[])[0]?.status).toBe(201);
    await consumer.drain();
    // What a concurrent retry of the same keyed batch does: BatchWriteItem puts the same event again, acknowledged later.
    const [stored] = (await storedRecord(runTable, [sessionId])).events;
    const later = new Date(Date.parse(String(stored?.createdAt)) + 7).toISOString();
    await documentClient.send(new PutCommand({ TableName: tableName, Item: { ...stored, createdAt: later } }));

    await consumer.drain();

    expect(await get(`/api/sdk/sessions/${sessionId}`)).toMatchObject({ eventCount: 1, countsAsOf: later });
    await expectExactDerivedData({ reader: runTable, orgId: owner.orgId, sessionIds: [sessionId], get });
  });
});
