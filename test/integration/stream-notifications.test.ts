/**
 * Issue 14, session notifications (docs/notifications.md): ending a
 * session produces one session.completed / session.failed notification (here
 * the local form: JSON lines appended to SESSION_EVENTS_FILE) with the
 * documented detail; a batch delivered again or a consumer restarted from the
 * oldest record adds none, and a consumer that dies between publishing and
 * committing publishes again only the very same notification (same
 * notificationId, same detail). The test owns a `solo-…` organisation and
 * runs its own consumer in this process.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ProvisionedThroughputExceededException } from "@aws-sdk/client-dynamodb";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { documentClient } from "../../functions/store/table/dynamo-client.js";
import type { LocalApi } from "../../local/http-adapter.js";
import { call, createTestSession, startTestApi, type TestKey } from "../support/fixtures.js";
import {
  apiGet,
  createSoloKey,
  isCountingWrite,
  type SoloConsumer,
  startSoloConsumer,
} from "../support/stream-solo.js";
import { workloadEvent } from "../support/stream-workload.js";

let api: LocalApi;
const consumers: SoloConsumer[] = [];
const directory = mkdtempSync(join(tmpdir(), "ats-notifications-"));
const file = join(directory, "session-notifications.jsonl");
const previousFile = process.env.SESSION_EVENTS_FILE;

beforeAll(async () => {
  process.env.SESSION_EVENTS_FILE = file;
  api = await startTestApi();
});
afterAll(async () => {
  vi.restoreAllMocks();
  await Promise.allSettled(consumers.map((consumer) => consumer.stop()));
  await api.close();
  if (previousFile === undefined) delete process.env.SESSION_EVENTS_FILE;
  else process.env.SESSION_EVENTS_FILE = previousFile;
  rmSync(directory, { recursive: true, force: true });
});

interface Notification {
  readonly source: string;
  readonly "detail-type": string;
  readonly detail: Record<string, unknown>;
}

function notificationsOf(orgId: string): Notification[] {
  if (!existsSync(file)) return [];
  return readFileSync(file, "utf8")
    .split("\n")
    .filter((line) => line !== "")
    .map((line) => JSON.parse(line) as Notification)
    .filter((notification) => notification.detail.orgId === orgId);
}

async function consumerOf(owner: TestKey, startAt: "now" | "oldest" = "now", twice = false): Promise<SoloConsumer> {
  const consumer = await startSoloConsumer(owner.orgId, {
    startAt,
    ...(twice
      ? {
          wrapper: async (event, _, real) => {
            await real(event);
            return real(event);
          },
        }
      : {}),
  });
  consumers.push(consumer);
  return consumer;
}

async function record(owner: TestKey, sessionId: string, events: number, from = 0): Promise<void> {
  for (let index = from; index < from + events; index++) {
    const response = await call(api, "POST", "/api/sdk/events", {
      key: owner.key,
      body: workloadEvent(sessionId, index),
    });
    expect(response.status).toBe(201);
  }
}

async function end(owner: TestKey, sessionId: string, body: Record<string, unknown>): Promise<void> {
  const response = await call(api, "PATCH", `/api/sdk/sessions/${sessionId}`, { key: owner.key, body });
  expect(response.status).toBe(200);
}

describe("session notifications", () => {
  it("one per ended session, with the documented detail (counts at the end, late events not included)", async () => {
    const owner = await createSoloKey();
    const consumer = await consumerOf(owner);
    const completed = await createTestSession(api, owner.key, { name: "ok run", agentName: "n-agent", userId: "n-1" });
    const failed = await createTestSession(api, owner.key, { name: "bad run", agentName: "n-agent", userId: "n-2" });
    const active = await createTestSession(api, owner.key, { name: "open run", agentName: "n-agent", userId: "n-3" });
    await record(owner, completed, 4); // costs 0.25 + 0.5 + 0.125 + none
    await record(owner, failed, 2);
    await record(owner, active, 2);
    await end(owner, completed, {
      status: "completed",
      estimatedCost: 1.5,
      durationMs: 5_400,
      promptTokens: 1_200,
      completionTokens: 300,
      totalTokens: 1_500,
    });
    await end(owner, failed, { status: "failed", failureReason: "rate limited by the model" });
    await record(owner, completed, 3, 10); // late: after the end, in the same stream batch
    await record(owner, failed, 1, 10);

    await consumer.drain();

    const sessions = await Promise.all(
      [completed, failed].map((id) => apiGet(api, owner.key)(`/api/sdk/sessions/${id}`)),
    );
    const notifications = notificationsOf(owner.orgId);
    expect(notifications).toHaveLength(2);
    expect(notifications).toEqual(
      expect.arrayContaining([
        {
          source: "agent-tracking",
          "detail-type": "session.completed",
          detail: {
            notificationId: `${completed}:completed`,
            sessionId: completed,
            orgId: owner.orgId,
            environment: "live",
            name: "ok run",
            agentName: "n-agent",
            userId: "n-1",
            status: "completed",
            success: true,
            failureReason: null,
            estimatedCost: 1.5,
            durationMs: 5_400,
            promptTokens: 1_200,
            completionTokens: 300,
            totalTokens: 1_500,
            cacheReadTokens: null,
            cacheWriteTokens: null,
            reasoningTokens: null,
            modelCalls: 0,
            unpricedCalls: 0,
            eventCount: 4,
            eventCost: 0.875,
            createdAt: sessions[0]?.createdAt,
            completedAt: sessions[0]?.completedAt,
          },
        },
        {
          source: "agent-tracking",
          "detail-type": "session.failed",
          detail: {
            notificationId: `${failed}:failed`,
            sessionId: failed,
            orgId: owner.orgId,
            environment: "live",
            name: "bad run",
            agentName: "n-agent",
            userId: "n-2",
            status: "failed",
            success: false,
            failureReason: "rate limited by the model",
            // Nothing reported at the end: the events' cost (the read API's rule), and no tokens (no model call).
            estimatedCost: 0.75,
            durationMs: null,
            promptTokens: null,
            completionTokens: null,
            totalTokens: null,
            cacheReadTokens: null,
            cacheWriteTokens: null,
            reasoningTokens: null,
            modelCalls: 0,
            unpricedCalls: 0,
            eventCount: 2,
            eventCost: 0.75,
            createdAt: sessions[1]?.createdAt,
            completedAt: sessions[1]?.completedAt,
          },
        },
      ]),
    );
    // The late events are counted on the session, just not in the notification of its end.
    expect(sessions.map((session) => session.eventCount)).toEqual([7, 3]);
  });

  it("a session that reported no totals carries its model calls' cost and tokens as the read API shows them, late calls left out", async () => {
    const owner = await createSoloKey();
    const consumer = await consumerOf(owner);
    const sessionId = await createTestSession(api, owner.key, { agentName: "m-agent", userId: "m-1" });
    const modelCall = (model: string, usage: Record<string, number>) =>
      call(api, "POST", "/api/sdk/events", {
        key: owner.key,
        body: { sessionId, eventType: "llm_decision", model, usage },
      });
    // Before the end: a priced call with cache reads, and a call of a model no price covers.
    expect(
      (await modelCall("gpt-4o-mini", { promptTokens: 1_000, completionTokens: 200, cacheReadTokens: 400 })).status,
    ).toBe(201);
    expect((await modelCall(`unknown-${owner.orgId}`, { promptTokens: 50, completionTokens: 5 })).status).toBe(201);
    await end(owner, sessionId, { status: "completed" });
    // After the end, in the same stream batch: counted on the session, not in the notification.
    expect((await modelCall("gpt-4o-mini", { promptTokens: 7, completionTokens: 7 })).status).toBe(201);

    await consumer.drain();

    const [notification] = notificationsOf(owner.orgId);
    const events = (await apiGet(api, owner.key)(`/api/sdk/sessions/${sessionId}/events?limit=10`)).items as {
      estimatedCost: number | null;
      usage: { promptTokens?: number } | null;
    }[];
    const beforeEnd = events.filter((event) => event.usage?.promptTokens !== 7);
    expect(beforeEnd).toHaveLength(2);
    const cost = beforeEnd.reduce((sum, event) => sum + (event.estimatedCost ?? 0), 0);
    expect(cost).toBeGreaterThan(0);
    expect(notification?.detail).toMatchObject({
      estimatedCost: expect.closeTo(cost, 9),
      promptTokens: 1_050,
      completionTokens: 205,
      totalTokens: 1_255,
      cacheReadTokens: 400,
      cacheWriteTokens: null,
      reasoningTokens: null,
      modelCalls: 2,
      unpricedCalls: 1,
      eventCount: 2,
    });
    const session = await apiGet(api, owner.key)(`/api/sdk/sessions/${sessionId}`);
    expect(session).toMatchObject({ modelCalls: 3, promptTokens: 1_057 });
  });

  it("redelivery adds none; a crash between publishing and committing repeats only the same notification", async () => {
    const owner = await createSoloKey();
    const twice = await consumerOf(owner, "now", true);
    const delivered = await createTestSession(api, owner.key, { agentName: "r-agent", userId: "r-1" });
    const crashed = await createTestSession(api, owner.key, { agentName: "r-agent", userId: "r-2" });
    await record(owner, delivered, 3);
    await record(owner, crashed, 3);
    await end(owner, delivered, { status: "completed", durationMs: 100 });
    await end(owner, crashed, { status: "failed", failureReason: "crash" });
    // The counting write of `crashed` fails once, after its notification was published.
    let failOnce = true;
    const send = documentClient.send.bind(documentClient);
    vi.spyOn(documentClient, "send").mockImplementation(((command: { input?: Record<string, unknown> }) => {
      if (failOnce && isCountingWrite(command, crashed)) {
        failOnce = false;
        return Promise.reject(new ProvisionedThroughputExceededException({ message: "injected", $metadata: {} }));
      }
      return send(command as never);
    }) as never);

    await twice.drain(); // every batch delivered twice; `crashed` fails once and is delivered again
    vi.restoreAllMocks();
    const restarted = await consumerOf(owner, "oldest");
    await restarted.drain();

    expect(failOnce).toBe(false);
    const notifications = notificationsOf(owner.orgId);
    const of = (id: string) => notifications.filter((notification) => notification.detail.sessionId === id);
    expect(of(delivered)).toHaveLength(1);
    expect(of(delivered)[0]?.detail.notificationId).toBe(`${delivered}:completed`);
    expect(of(crashed).length).toBeGreaterThanOrEqual(1);
    expect(new Set(of(crashed).map((notification) => JSON.stringify(notification))).size).toBe(1);
    expect(of(crashed)[0]?.detail).toMatchObject({ notificationId: `${crashed}:failed`, eventCount: 3 });
  });
});
