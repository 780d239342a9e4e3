/**
 * Issue 34's "done when", end to end on the local stack: sessions of a failing agent recorded through the API,
 * counted by the stream consumer into the series, a monitor made through the console's routes, evaluated as the
 * one-minute schedule evaluates it, and its notifications arriving at a signed webhook, a Slack-shaped receiver
 * and the local EventBridge stand-in (the notifications file): it fires at the first evaluation after the sessions
 * end, once per minute whatever the number of evaluations, renotifies while it stays in alert, and recovers.
 *
 * Evaluations are called with the minutes the schedule would use (`now` after the sessions' end), not waited for;
 * the delay from a session's end to the notification, timer and stream included, is measured by `npm run bench`.
 */
import { mkdtempSync, readFileSync } from "node:fs";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { alertDeliveriesIdle } from "../../functions/alerts/delivery/delivery-queue.js";
import { verifyWebhookSignature } from "../../functions/alerts/delivery/webhook-signature.js";
import { evaluateMonitors } from "../../functions/alerts/monitor-evaluation.js";
import { evaluationNotificationId } from "../../functions/domain/monitor-notification.js";
import { writeEvaluation } from "../../functions/store/alerts/monitor-history-store.js";
import { getMonitor } from "../../functions/store/alerts/monitor-store.js";
import type { LocalApi } from "../../local/http-adapter.js";
import {
  call,
  createTestKey,
  createTestSession,
  createTestUser,
  settleCounts,
  startTestApi,
  type TestUser,
} from "../support/fixtures.js";

process.env.ALERT_DESTINATIONS_ALLOW_LOOPBACK = "true";
process.env.ALERT_DELIVERY_RETRY_DELAYS_MS = "20,20,20,20,20";
process.env.ATS_CONSOLE_URL = "http://127.0.0.1:5173";
const eventsFile = join(mkdtempSync(join(tmpdir(), "ats-alert-e2e-")), "notifications.jsonl");
process.env.SESSION_EVENTS_FILE = eventsFile;

interface Received {
  readonly path: string;
  readonly body: string;
  readonly signature: string | undefined;
}

let api: LocalApi;
let admin: TestUser;
let key: string;
let receiver: Server;
let receiverUrl: string;
const received: Received[] = [];

function receive(request: IncomingMessage, response: ServerResponse): void {
  const chunks: Buffer[] = [];
  request.on("data", (chunk: Buffer) => chunks.push(chunk));
  request.on("end", () => {
    received.push({
      path: request.url ?? "/",
      body: Buffer.concat(chunks).toString("utf8"),
      signature: request.headers["ats-signature"] as string | undefined,
    });
    response.writeHead(200, { "content-type": "text/plain" }).end("ok");
  });
}

beforeAll(async () => {
  api = await startTestApi();
  admin = await createTestUser(api, { role: "admin" });
  key = (await createTestKey({ orgId: admin.orgId, scopes: ["sessions:write", "events:write", "read"] })).key;
  receiver = createServer(receive);
  await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
  receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
});
afterAll(async () => {
  receiver.closeAllConnections();
  await new Promise((resolve) => receiver.close(resolve));
  await api.close();
});

const at = (path: string) => received.filter((request) => request.path === path);
const busEvents = () =>
  readFileSync(eventsFile, "utf8")
    .trim()
    .split("\n")
    .filter((line) => line !== "")
    .map((line) => JSON.parse(line) as { source: string; "detail-type": string; detail: Record<string, unknown> })
    .filter((event) => event.source === "ats.monitor");

async function evaluateAt(now: number): Promise<void> {
  await evaluateMonitors(new Date(now), { orgId: admin.orgId });
  await alertDeliveriesIdle();
}

describe("a monitor on a failing agent", () => {
  it("fires at the next evaluation to a signed webhook, Slack and EventBridge, once a minute; renotifies; recovers", async () => {
    // Prepare: the three destinations and the monitor, through the console's routes.
    const hook = await call(api, "POST", "/api/alerts/destinations", {
      key: admin.token,
      body: { name: "on-call hook", kind: "webhook", url: `${receiverUrl}/hook` },
    });
    const slack = await call(api, "POST", "/api/alerts/destinations", {
      key: admin.token,
      body: { name: "team channel", kind: "slack", url: `${receiverUrl}/slack` },
    });
    const bus = await call(api, "POST", "/api/alerts/destinations", {
      key: admin.token,
      body: { name: "bus", kind: "eventbridge" },
    });
    expect([hook.status, slack.status, bus.status]).toEqual([201, 201, 201]);
    const secret = String(hook.body.secret);
    const agent = `checkout-${admin.orgId.slice(-6)}`;
    const created = await call(api, "POST", "/api/alerts/monitors", {
      key: admin.token,
      headers: { "x-environment": "live" },
      body: {
        name: "Checkout failing",
        enabled: true,
        metric: "failure_rate",
        filters: { agent },
        windowMinutes: 15,
        comparison: "above",
        warningThreshold: 20,
        alertThreshold: 50,
        minSessions: 3,
        noData: "ok",
        renotifyMinutes: 5,
        notifyOnRecovery: true,
        destinationIds: [hook.body.id, slack.body.id, bus.body.id],
      },
    });
    expect(created.status, created.text).toBe(201);
    const monitorId = String(created.body.id);

    // Act: four runs of the agent end, three of them failed (75 %); counted; the next minute's evaluation.
    for (const status of ["failed", "failed", "completed", "failed"]) {
      const sessionId = await createTestSession(api, key, { agentName: agent });
      const ended = await call(api, "PATCH", `/api/sdk/sessions/${sessionId}`, { key, body: { status } });
      expect(ended.status, ended.text).toBe(200);
    }
    const lastEnd = Date.now();
    await settleCounts();
    const firstMinute = lastEnd + 60_000;
    await evaluateAt(firstMinute);
    await evaluateAt(firstMinute + 5_000); // the same minute again: nothing more

    // Assess: one notification at each destination, the webhook's signed; the state says it was handed over.
    expect((await getMonitor(admin.orgId, "live", monitorId)).state.pendingHandOver).toBeUndefined();
    const [hooked] = at("/hook");
    expect(at("/hook")).toHaveLength(1);
    expect(verifyWebhookSignature(hooked?.signature, hooked?.body ?? "", secret)).toBe(true);
    const payload = JSON.parse(hooked?.body ?? "{}") as Record<string, unknown>;
    expect(payload).toMatchObject({
      type: "monitor.state_changed",
      orgId: admin.orgId,
      environment: "live",
      state: "alert",
      previousState: "ok",
      figure: 75,
      samples: 4,
      threshold: 50,
      monitor: { id: monitorId, name: "Checkout failing", metric: "failure_rate", filters: { agent } },
      links: { monitor: expect.stringContaining(monitorId), sessions: expect.stringContaining("status=failed") },
    });
    // The window holds the sessions' end: judged at the first evaluation after it, not minutes later.
    expect(Date.parse(String(payload.windowEnd))).toBeGreaterThan(lastEnd);
    expect(Date.parse(String(payload.windowStart))).toBeLessThan(lastEnd - 60_000);
    expect(at("/slack")).toHaveLength(1);
    expect((JSON.parse(at("/slack")[0]?.body ?? "{}") as { text: string }).text).toContain("Checkout failing");
    expect(busEvents()).toEqual([
      expect.objectContaining({
        "detail-type": "monitor.state_changed",
        detail: expect.objectContaining({ notificationId: payload.notificationId, state: "alert" }),
      }),
    ]);

    // Act: still failing five minutes on (renotify), then the window has moved past the runs (no data → ok).
    await evaluateAt(firstMinute + 5 * 60_000);
    await evaluateAt(firstMinute + 30 * 60_000);

    // Assess
    const types = at("/hook").map((request) => JSON.parse(request.body) as { type: string; state: string });
    expect(types.map(({ type, state }) => `${type} ${state}`)).toEqual([
      "monitor.state_changed alert",
      "monitor.renotify alert",
      "monitor.state_changed ok",
    ]);
    for (const request of at("/hook"))
      expect(verifyWebhookSignature(request.signature, request.body, secret)).toBe(true);
    expect(at("/slack")).toHaveLength(3);
    expect(busEvents()).toHaveLength(3);
    const history = await call(api, "GET", `/api/alerts/monitors/${monitorId}/history`, {
      key: admin.token,
      headers: { "x-environment": "live" },
    });
    expect(history.status).toBe(200);
    expect((history.body.history as { kind: string; to: string }[]).map(({ kind, to }) => `${kind} ${to}`)).toEqual([
      "change ok",
      "renotify alert",
      "change alert",
    ]);
  });

  it("hands over, at the next evaluation, a notification an evaluator wrote but stopped before sending", async () => {
    // Prepare: a webhook and a monitor whose data is gone by now (no data keeps the state).
    const hook = await call(api, "POST", "/api/alerts/destinations", {
      key: admin.token,
      body: { name: "left behind", kind: "webhook", url: `${receiverUrl}/left` },
    });
    const created = await call(api, "POST", "/api/alerts/monitors", {
      key: admin.token,
      headers: { "x-environment": "live" },
      body: {
        name: "Left behind",
        enabled: true,
        metric: "failure_rate",
        filters: { agent: `quiet-${admin.orgId.slice(-6)}` },
        windowMinutes: 15,
        comparison: "above",
        alertThreshold: 50,
        minSessions: 1,
        noData: "keep",
        renotifyMinutes: 0,
        notifyOnRecovery: true,
        destinationIds: [hook.body.id],
      },
    });
    expect(created.status, created.text).toBe(201);
    const monitorId = String(created.body.id);
    // What an evaluation writes before it hands its notification over — and then the evaluator stops.
    const stored = await getMonitor(admin.orgId, "live", monitorId);
    const minute = new Date(Math.floor(Date.now() / 60_000) * 60_000).toISOString();
    const window = { windowStart: new Date(Date.parse(minute) - 14 * 60_000).toISOString(), windowEnd: minute };
    const notificationId = evaluationNotificationId(monitorId, minute);
    const written = await writeEvaluation(
      { orgId: admin.orgId, environment: "live", monitorId, stateVersion: stored.stateVersion },
      {
        ...stored.state,
        status: "alert",
        since: minute,
        figure: 100,
        samples: 1,
        evaluatedAt: minute,
        ...window,
        lastNotifiedAt: minute,
        pendingHandOver: minute,
      },
      {
        id: minute,
        at: minute,
        from: "ok",
        to: "alert",
        kind: "change",
        figure: 100,
        samples: 1,
        threshold: 50,
        ...window,
        notificationId,
      },
    );
    expect(written).toBe(true);

    // Act: the next minutes' evaluations.
    await evaluateAt(Date.parse(minute) + 60_000);
    await evaluateAt(Date.parse(minute) + 2 * 60_000);

    // Assess: the left notification, once, with the id its history entry names; nothing pending any more.
    const left = at("/left");
    expect(left).toHaveLength(1);
    expect(JSON.parse(left[0]?.body ?? "{}")).toMatchObject({
      notificationId,
      type: "monitor.state_changed",
      state: "alert",
    });
    expect((await getMonitor(admin.orgId, "live", monitorId)).state.pendingHandOver).toBeUndefined();
  });
});
