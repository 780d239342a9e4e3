/**
 * Issue 14, derived data exactly once, with the run's shared stream consumer
 * (settleCounts): once ingestion stops, every session counter, day rollup and
 * agent summary equals a brute-force recount of the stored events
 * (test/support/stream-recount.ts) — after a mixed workload, after 120 events
 * racing on an active and then an ended session, and after retries that must
 * not double count. Refusals (404, 403) stay synchronous and write nothing.
 */
import { randomUUID } from "node:crypto";
import { UpdateCommand } from "@aws-sdk/lib-dynamodb";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { newId } from "../../functions/domain/ids.js";
import { MAX_MODELS_PER_SESSION, OTHER_MODEL } from "../../functions/domain/rollup.js";
import { eventKey } from "../../functions/store/table/keys.js";
import type { LocalApi } from "../../local/http-adapter.js";
import {
  call,
  createTestKey,
  createTestSession,
  settleCounts,
  startTestApi,
  type TestKey,
} from "../support/fixtures.js";
import { type ModelCall, recordModelCall } from "../support/model-calls.js";
import { expectExactDerivedData, settledGet, storedRecord } from "../support/stream-recount.js";
import { runTable } from "../support/stream-solo.js";

let api: LocalApi;

beforeAll(async () => {
  api = await startTestApi();
});
afterAll(() => api.close());

const TOOLS = ["search", "__proto__", "constructor", "toString", "hasOwnProperty", "a#TOOL#b", "~tilde"] as const;
/** Costs exact in binary, so sums do not depend on the order of addition. */
const COSTS = [0.25, 0.5, 0.125, 1.5, undefined] as const;

/** The i-th event of a mix: tool calls and errors of awkward tool names, decisions, state changes, costs. */
function mixedEvent(sessionId: string, index: number): Record<string, unknown> {
  const cost = COSTS[index % COSTS.length];
  const kind = index % 4;
  const event: Record<string, unknown> = {
    sessionId,
    eventType: kind === 0 ? "tool_call" : kind === 1 ? "error" : kind === 2 ? "llm_decision" : "state_change",
    ...(cost === undefined ? {} : { estimatedCost: cost }),
  };
  if (kind <= 1 || index % 7 === 0) event.toolName = TOOLS[index % TOOLS.length];
  return event;
}

const MODELS = ["gpt-4o", "__proto__", "constructor", "claude-sonnet-4", undefined] as const;

/** The i-th model call of a mix: awkward model names, calls without one, priced, reported and unpriced costs. */
function mixedModelCall(index: number): ModelCall {
  const model = MODELS[index % MODELS.length];
  const source = (["table", "reported", "unpriced"] as const)[index % 3] ?? "table";
  return {
    ...(model === undefined ? {} : { model }),
    usage: {
      promptTokens: 100 + index,
      ...(index % 2 === 0 ? { completionTokens: 10 * index } : { totalTokens: 500 }),
      ...(index % 3 === 0 ? { cacheReadTokens: 40, reasoningTokens: 3 } : {}),
    },
    ...(source === "unpriced" ? {} : { estimatedCost: 0.25 * (index % 4) }),
    costSource: source,
  };
}

async function post(owner: TestKey, path: string, body: unknown, headers: Record<string, string> = {}) {
  return call(api, "POST", path, { key: owner.key, body, headers });
}

describe("derived data equals a brute-force recount once ingestion stops", () => {
  it("mixed singles, batches, awkward tool names, costs, completed and failed ends and late events", async () => {
    const owner = await createTestKey();
    const specs = [
      { agentName: "recount-a", userId: "u-1", end: { status: "completed", durationMs: 900, estimatedCost: 2.5 } },
      {
        agentName: "recount-a",
        userId: "__proto__",
        end: { status: "failed", failureReason: "tool crashed", durationMs: 70_000, totalTokens: 40 },
      },
      { agentName: "constructor", userId: "u-1", end: { status: "failed", failureReason: "tool crashed" } },
      { agentName: "constructor", userId: "u-2", end: { status: "completed", success: false, promptTokens: 7 } },
      { agentName: "recount-a", userId: "u-2", end: undefined },
    ];
    const sessionIds = await Promise.all(
      specs.map((spec, index) =>
        createTestSession(api, owner.key, { name: `mixed ${index}`, agentName: spec.agentName, userId: spec.userId }),
      ),
    );

    // Before the end: singles and batches racing each other on every session.
    const before = sessionIds.flatMap((sessionId) => [
      ...Array.from({ length: 6 }, (_, index) => post(owner, "/api/sdk/events", mixedEvent(sessionId, index))),
      post(owner, "/api/sdk/events/batch", {
        events: Array.from({ length: 9 }, (_, index) => mixedEvent(sessionId, 10 + index)),
      }),
    ]);
    for (const response of await Promise.all(before)) expect(response.status).toBeLessThan(300);
    // Model calls racing them; the last session calls more models than a session counts by name.
    const modelEvents = await Promise.all([
      ...sessionIds.flatMap((sessionId) =>
        Array.from({ length: 6 }, (_, index) => recordModelCall(owner.orgId, sessionId, mixedModelCall(index))),
      ),
      ...Array.from({ length: MAX_MODELS_PER_SESSION + 3 }, (_, index) =>
        recordModelCall(owner.orgId, sessionIds[4] as string, { model: `model-${index}`, usage: { promptTokens: 1 } }),
      ),
    ]);
    const ends = await Promise.all(
      specs.map((spec, index) =>
        spec.end === undefined
          ? undefined
          : call(api, "PATCH", `/api/sdk/sessions/${sessionIds[index]}`, { key: owner.key, body: spec.end }),
      ),
    );
    for (const end of ends) if (end !== undefined) expect(end.status).toBe(200);
    // After the end: late singles and batches.
    const late = sessionIds.flatMap((sessionId) => [
      post(owner, "/api/sdk/events", mixedEvent(sessionId, 40)),
      post(owner, "/api/sdk/events/batch", {
        events: Array.from({ length: 5 }, (_, index) => mixedEvent(sessionId, 41 + index)),
      }),
    ]);
    for (const response of await Promise.all(late)) expect(response.status).toBeLessThan(300);

    await settleCounts();
    const { sessions, events } = await expectExactDerivedData({
      reader: runTable,
      orgId: owner.orgId,
      sessionIds,
      get: settledGet(api, owner),
    });
    expect(sessions).toHaveLength(5);
    expect(events).toHaveLength(5 * (6 + 9 + 1 + 5 + 6) + MAX_MODELS_PER_SESSION + 3);
    const crowded = await settledGet(api, owner)(`/api/sdk/agents/recount-a/models`);
    expect((crowded.models as { model: string | null }[]).map((line) => line.model)).toContain(OTHER_MODEL);
    // A model call replaced by another (a MODIFY of the event item): counted out of the old model, into the new.
    await runTable.client.send(
      new UpdateCommand({
        TableName: runTable.tableName,
        Key: eventKey(sessionIds[0] as string, modelEvents[0] as string),
        UpdateExpression: "SET #model = :model, #usage = :usage, costSource = :unpriced REMOVE estimatedCost",
        ExpressionAttributeNames: { "#model": "model", "#usage": "usage" },
        ExpressionAttributeValues: {
          ":model": "replacement-model",
          ":usage": { promptTokens: 9 },
          ":unpriced": "unpriced",
        },
      }),
    );
    await settleCounts();
    await expectExactDerivedData({ reader: runTable, orgId: owner.orgId, sessionIds, get: settledGet(api, owner) });
    // The awkward names really were counted under their own names.
    const first = await settledGet(api, owner)(`/api/sdk/sessions/${sessionIds[0]}`);
    expect(Object.keys(first.toolCalls as object)).toEqual(expect.arrayContaining(["constructor", "search"]));
    expect(Object.keys(first.toolErrors as object)).toEqual(expect.arrayContaining(["__proto__", "toString"]));
  });
});

describe("no valid event is refused because others raced it", () => {
  it("60 concurrent events on an active session and 60 on the same session once ended: 120 × 201, counted exactly", async () => {
    const owner = await createTestKey();
    const sessionId = await createTestSession(api, owner.key, { agentName: "racing-agent", userId: "racer" });
    const burst = (offset: number) =>
      Promise.all(
        Array.from({ length: 60 }, (_, index) => post(owner, "/api/sdk/events", mixedEvent(sessionId, offset + index))),
      );

    const active = await burst(0);
    const ended = await call(api, "PATCH", `/api/sdk/sessions/${sessionId}`, {
      key: owner.key,
      body: { status: "completed", durationMs: 3_000 },
    });
    const lateOnes = await burst(60);

    expect(active.map((response) => response.status)).toEqual(Array(60).fill(201));
    expect(ended.status).toBe(200);
    expect(lateOnes.map((response) => response.status)).toEqual(Array(60).fill(201));
    await settleCounts();
    const { events } = await expectExactDerivedData({
      reader: runTable,
      orgId: owner.orgId,
      sessionIds: [sessionId],
      get: settledGet(api, owner),
    });
    expect(events).toHaveLength(120);
    const session = await settledGet(api, owner)(`/api/sdk/sessions/${sessionId}`);
    expect(session.eventCount).toBe(120);
    const stats = await settledGet(api, owner)("/api/sdk/agents/racing-agent/stats");
    expect((stats.totals as Record<string, unknown>).events).toBe(120);
  });
});

describe("refusals stay synchronous, retries never double count", () => {
  it("an unknown session is 404 and another tenant's session 403, on the single and the batch route, writing nothing", async () => {
    const owner = await createTestKey();
    const stranger = await createTestKey();
    const sessionId = await createTestSession(api, owner.key, { agentName: "guarded", userId: "g" });
    const unknownId = newId("session");
    const event = (id: string) => ({ sessionId: id, eventType: "tool_call", toolName: "x", estimatedCost: 0.5 });

    const unknownSingle = await post(owner, "/api/sdk/events", event(unknownId));
    const foreignSingle = await post(stranger, "/api/sdk/events", event(sessionId));
    const unknownBatch = await post(owner, "/api/sdk/events/batch", { events: [event(unknownId)] });
    const foreignBatch = await post(stranger, "/api/sdk/events/batch", { events: [event(sessionId)] });

    expect(unknownSingle.status).toBe(404);
    expect(foreignSingle.status).toBe(403);
    expect(unknownBatch.status).toBe(200);
    expect((unknownBatch.body.results as { status: number }[]).map((result) => result.status)).toEqual([404]);
    expect(foreignBatch.status).toBe(200);
    expect((foreignBatch.body.results as { status: number }[]).map((result) => result.status)).toEqual([403]);
    await settleCounts();
    expect((await storedRecord(runTable, [sessionId, unknownId])).events).toEqual([]);
    await expectExactDerivedData({
      reader: runTable,
      orgId: owner.orgId,
      sessionIds: [sessionId],
      get: settledGet(api, owner),
    });
    expect((await settledGet(api, owner)(`/api/sdk/sessions/${sessionId}`)).eventCount).toBe(0);
  });

  it("Idempotency-Key retries, client event ids (single and batch, also concurrent) and batch keys count once", async () => {
    const owner = await createTestKey();
    const sessionId = await createTestSession(api, owner.key, { agentName: "retrying-agent", userId: "r" });
    const keyed = mixedEvent(sessionId, 0);
    const headerKey = randomUUID();
    const clientId = newId("event");
    const withId = { ...mixedEvent(sessionId, 1), id: clientId };
    const batchId = newId("event");
    const batchEvents = [
      { ...mixedEvent(sessionId, 4), id: batchId },
      { ...mixedEvent(sessionId, 5), idempotencyKey: "step-5", occurredAt: new Date().toISOString() },
    ];

    const first = await post(owner, "/api/sdk/events", keyed, { "idempotency-key": headerKey });
    const again = await post(owner, "/api/sdk/events", keyed, { "idempotency-key": headerKey });
    const concurrent = await Promise.all(Array.from({ length: 8 }, () => post(owner, "/api/sdk/events", withId)));
    const batches = await Promise.all(
      Array.from({ length: 4 }, () => post(owner, "/api/sdk/events/batch", { events: batchEvents })),
    );
    const batchThenSingle = await post(owner, "/api/sdk/events", batchEvents[0]);

    expect([first.status, again.status]).toEqual([201, 201]);
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(again.body.id).toBe(first.body.id);
    expect(concurrent.map((response) => [response.status, response.body.id])).toEqual(Array(8).fill([201, clientId]));
    for (const batch of batches) {
      expect((batch.body.results as { status: number }[]).map((result) => result.status)).toEqual([201, 201]);
    }
    expect(batchThenSingle.status).toBe(201);
    await settleCounts();
    const { events } = await expectExactDerivedData({
      reader: runTable,
      orgId: owner.orgId,
      sessionIds: [sessionId],
      get: settledGet(api, owner),
    });
    expect(events.map((event) => event.id).sort()).toEqual(
      [
        String(first.body.id),
        clientId,
        batchId,
        String((batches[0]?.body.results as { id: string }[] | undefined)?.[1]?.id),
      ].sort(),
    );
    expect((await settledGet(api, owner)(`/api/sdk/sessions/${sessionId}`)).eventCount).toBe(4);
  });
});
