/**
 * Alert destinations and delivery over real HTTP and DynamoDB Local: a receiver on 127.0.0.1 that verifies each
 * signature, a receiver answering 500 then 200 (retried, one success, the same notification id), a hanging one
 * (the timeout, counted as a failure), ten failures in a row turning a destination off, secret rotation, the test
 * route (webhook, Slack, EventBridge), and the routes' bad input, roles and tenancy. Retry waits are a few
 * milliseconds through ALERT_DELIVERY_RETRY_DELAYS_MS, the timeout 300 ms through ALERT_DELIVERY_TIMEOUT_MS.
 */
import { mkdtempSync, readFileSync } from "node:fs";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { alertDeliveriesIdle } from "../../functions/alerts/delivery/delivery-queue.js";
import {
  dispatchAlertNotification,
  dispatchAlertNotificationReporting,
} from "../../functions/alerts/delivery/notify.js";
import { verifyWebhookSignature } from "../../functions/alerts/delivery/webhook-signature.js";
import type { AlertNotification } from "../../functions/domain/alert-notification.js";
import { newId } from "../../functions/domain/ids.js";
import { listAlertAudit } from "../../functions/store/alerts/alert-audit-store.js";
import { readDestinationForDelivery } from "../../functions/store/alerts/alert-destination-store.js";
import type { LocalApi } from "../../local/http-adapter.js";
import { call, createTestUser, startTestApi, type TestUser } from "../support/fixtures.js";

process.env.ALERT_DESTINATIONS_ALLOW_LOOPBACK = "true";
process.env.ALERT_DELIVERY_RETRY_DELAYS_MS = "20,20,20,20,20";
process.env.ALERT_DELIVERY_TIMEOUT_MS = "300";
process.env.ATS_CONSOLE_URL = "http://127.0.0.1:5173";
const eventsFile = join(mkdtempSync(join(tmpdir(), "ats-alert-events-")), "notifications.jsonl");
process.env.SESSION_EVENTS_FILE = eventsFile;

interface Received {
  readonly path: string;
  readonly body: string;
  readonly signature: string | undefined;
  readonly notificationId: string | undefined;
}

let api: LocalApi;
let admin: TestUser;
let member: TestUser;
let stranger: TestUser;
let receiver: Server;
let receiverUrl: string;
const received: Received[] = [];
/** Answers per path, in order; the last repeats. `hang`: never answer. */
const scripts = new Map<string, Array<number | "hang">>();

function receive(request: IncomingMessage, response: ServerResponse): void {
  const chunks: Buffer[] = [];
  request.on("data", (chunk: Buffer) => chunks.push(chunk));
  request.on("end", () => {
    const path = request.url ?? "/";
    received.push({
      path,
      body: Buffer.concat(chunks).toString("utf8"),
      signature: request.headers["ats-signature"] as string | undefined,
      notificationId: request.headers["ats-notification-id"] as string | undefined,
    });
    const script = scripts.get(path) ?? [200];
    const answer = script.length > 1 ? script.shift() : script[0];
    if (answer === "hang") return;
    response.writeHead(answer ?? 200, { "content-type": "text/plain" }).end(answer === 200 ? "ok" : "upstream down");
  });
}

beforeAll(async () => {
  api = await startTestApi();
  admin = await createTestUser(api, { role: "admin" });
  member = await createTestUser(api, { orgId: admin.orgId, role: "member" });
  stranger = await createTestUser(api, { role: "admin" });
  receiver = createServer(receive);
  await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
  receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
});
afterAll(async () => {
  receiver.closeAllConnections();
  await new Promise((resolve) => receiver.close(resolve));
  await api.close();
});

const destinations = "/api/alerts/destinations";

async function create(user: TestUser, body: Record<string, unknown>) {
  return call(api, "POST", destinations, { key: user.token, body });
}

async function webhook(path: string): Promise<{ id: string; secret: string }> {
  const response = await create(admin, { name: `hook ${path}`, kind: "webhook", url: `${receiverUrl}${path}` });
  expect(response.status, response.text).toBe(201);
  return { id: String(response.body.id), secret: String(response.body.secret) };
}

function notification(overrides: Partial<AlertNotification> = {}): AlertNotification {
  return {
    notificationId: newId("alertNotification"),
    type: "monitor.state_changed",
    orgId: admin.orgId,
    environment: "live",
    monitor: {
      id: "mon_01KAZ4B6C8D0E2F4G6H8J0K2M4",
      name: "Checkout failures",
      metric: "failure_rate",
      filters: { agent: "checkout" },
      windowMinutes: 15,
      comparison: "above",
      warningThreshold: 2,
      alertThreshold: 5,
    },
    state: "alert",
    previousState: "ok",
    figure: 12.5,
    samples: 40,
    threshold: 5,
    windowStart: "2026-11-27T10:00:00.000Z",
    windowEnd: "2026-11-27T10:15:00.000Z",
    occurredAt: "2026-11-27T10:15:04.000Z",
    ...overrides,
  };
}

const at = (path: string) => received.filter((request) => request.path === path);

describe("delivery", () => {
  it("signs the webhook body, retries a 500, and delivers once with the same notification id", async () => {
    scripts.set("/flaky", [500, 200]);
    const { id, secret } = await webhook("/flaky");
    const sent = notification();

    await dispatchAlertNotification(sent, [id, id]);
    await alertDeliveriesIdle();

    const requests = at("/flaky");
    expect(requests).toHaveLength(2);
    for (const request of requests) {
      expect(request.notificationId).toBe(sent.notificationId);
      expect(verifyWebhookSignature(request.signature, request.body, secret)).toBe(true);
      expect(verifyWebhookSignature(request.signature, `${request.body} `, secret)).toBe(false);
    }
    const body = JSON.parse(requests[1]?.body ?? "{}") as Record<string, unknown>;
    expect(body).toEqual({
      ...sent,
      links: {
        monitor: `http://127.0.0.1:5173/alerts?monitor=${sent.monitor.id}`,
        sessions: "http://127.0.0.1:5173/sessions?agentName=checkout&status=failed&from=2026-11-27&to=2026-11-27",
      },
    });
    const stored = await readDestinationForDelivery(admin.orgId, id);
    expect(stored).toMatchObject({ consecutiveFailures: 0, lastError: null, enabled: true });
    expect(stored?.lastDeliveryAt).toEqual(expect.any(String));
  });

  it("gives up on a hanging receiver after the timeout and counts each attempt as a failure", async () => {
    scripts.set("/hang", ["hang"]);
    const { id } = await webhook("/hang");
    const started = Date.now();

    await dispatchAlertNotification(notification(), [id]);
    await alertDeliveriesIdle();

    expect(at("/hang")).toHaveLength(6);
    expect(Date.now() - started).toBeGreaterThanOrEqual(6 * 300);
    const stored = await readDestinationForDelivery(admin.orgId, id);
    expect(stored).toMatchObject({ consecutiveFailures: 6, enabled: true, lastError: "No answer within 0.3 s" });
  });

  it("turns a destination off after 10 failures in a row, with the reason; enabling it clears the count", async () => {
    scripts.set("/down", [503]);
    const { id } = await webhook("/down");

    await dispatchAlertNotification(notification(), [id]);
    await alertDeliveriesIdle();
    await dispatchAlertNotification(notification(), [id]);
    await alertDeliveriesIdle();

    expect(at("/down")).toHaveLength(10);
    const disabled = await call(api, "GET", `${destinations}/${id}`, { key: member.token, settle: false });
    expect(disabled.body).toMatchObject({
      enabled: false,
      consecutiveFailures: 10,
      disabledReason: "Disabled after 10 failed deliveries in a row; the last: HTTP 503: upstream down",
    });
    expect(await dispatchAlertNotificationReporting(notification(), [id])).toEqual([
      { destinationId: id, status: "disabled" },
    ]);
    await dispatchAlertNotification(notification(), [id]);
    await alertDeliveriesIdle();
    expect(at("/down")).toHaveLength(10);

    const enabled = await call(api, "PUT", `${destinations}/${id}`, {
      key: admin.token,
      body: { name: "hook /down", url: `${receiverUrl}/down`, enabled: true },
    });
    expect(enabled.status, enabled.text).toBe(200);
    expect(enabled.body).toMatchObject({ enabled: true, consecutiveFailures: 0, disabledReason: null });
  });

  it("skips a deleted destination, and says so to a caller that asks", async () => {
    const { id } = await webhook("/deleted");
    const kept = await webhook("/kept");
    expect((await call(api, "DELETE", `${destinations}/${id}`, { key: admin.token })).status).toBe(204);

    await dispatchAlertNotification(notification(), [id]);
    const reported = await dispatchAlertNotificationReporting(notification(), [id, kept.id]);
    await alertDeliveriesIdle();

    expect(at("/deleted")).toHaveLength(0);
    expect(at("/kept")).toHaveLength(1);
    expect(reported).toEqual([
      { destinationId: id, status: "missing" },
      { destinationId: kept.id, status: "queued" },
    ]);
  });

  it("checks the URL again at delivery: under the public rule a loopback http URL is refused", async () => {
    const { id } = await webhook("/rules");
    process.env.ALERT_DESTINATIONS_ALLOW_LOOPBACK = "false";
    try {
      const response = await call(api, "POST", `${destinations}/${id}/test`, { key: admin.token });
      expect(response.body).toEqual({ delivered: false, error: "Must be an https:// URL" });
    } finally {
      process.env.ALERT_DESTINATIONS_ALLOW_LOOPBACK = "true";
    }
    expect(at("/rules")).toHaveLength(0);
  });
});

describe("the test route and secrets", () => {
  it("sends a signed test notification; after a rotation the old secret no longer verifies", async () => {
    const { id, secret } = await webhook("/rotated");
    const first = await call(api, "POST", `${destinations}/${id}/test`, { key: admin.token });
    expect(first.body).toEqual({ delivered: true, status: 200 });

    const rotated = await call(api, "POST", `${destinations}/${id}/rotate-secret`, { key: admin.token });
    expect(rotated.status, rotated.text).toBe(200);
    const newSecret = String(rotated.body.secret);
    expect(newSecret).toMatch(/^whsec_/);
    expect(newSecret).not.toBe(secret);
    await call(api, "POST", `${destinations}/${id}/test`, { key: admin.token });

    const [before, after] = at("/rotated");
    expect(JSON.parse(before?.body ?? "{}")).toMatchObject({ type: "monitor.test", orgId: admin.orgId });
    expect(verifyWebhookSignature(before?.signature, before?.body ?? "", secret)).toBe(true);
    expect(verifyWebhookSignature(after?.signature, after?.body ?? "", secret)).toBe(false);
    expect(verifyWebhookSignature(after?.signature, after?.body ?? "", newSecret)).toBe(true);
    const shown = await call(api, "GET", `${destinations}/${id}`, { key: admin.token, settle: false });
    expect(shown.text).not.toContain("whsec_");
  });

  it("sends a Slack message and an EventBridge event, and says what a failed test met", async () => {
    const slack = await create(admin, { name: "slack", kind: "slack", url: `${receiverUrl}/slack` });
    const bus = await create(admin, { name: "bus", kind: "eventbridge" });
    scripts.set("/refusing", [404]);
    const refusing = await webhook("/refusing");
    expect(slack.body.secret).toBeUndefined();

    const slackTest = await call(api, "POST", `${destinations}/${String(slack.body.id)}/test`, { key: admin.token });
    const busTest = await call(api, "POST", `${destinations}/${String(bus.body.id)}/test`, { key: admin.token });
    const refused = await call(api, "POST", `${destinations}/${refusing.id}/test`, { key: admin.token });

    expect(slackTest.body).toEqual({ delivered: true, status: 200 });
    const message = JSON.parse(at("/slack")[0]?.body ?? "{}") as { text: string; blocks: unknown[] };
    expect(message.text).toBe("[TEST] [ALERT] Test notification: failure_rate 7.5% above 5% over 15 minutes");
    expect(message.blocks).toHaveLength(3);
    expect(busTest.body).toEqual({ delivered: true });
    const events = readFileSync(eventsFile, "utf8")
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line));
    expect(events).toContainEqual(
      expect.objectContaining({
        source: "ats.monitor",
        "detail-type": "monitor.test",
        detail: expect.objectContaining({ orgId: admin.orgId, links: expect.any(Object) }),
      }),
    );
    expect(refused.body).toEqual({ delivered: false, status: 404, error: "HTTP 404: upstream down" });
    expect((await readDestinationForDelivery(admin.orgId, refusing.id))?.consecutiveFailures).toBe(0);
  });
});

describe("the routes", () => {
  it("refuses bad input field by field and stores nothing", async () => {
    const user = await createTestUser(api, { role: "admin" });
    const cases: Array<[Record<string, unknown>, Array<{ path: string; message: string }>]> = [
      [
        { name: "", kind: "pager" },
        [
          { path: "name", message: "Must not be empty" },
          { path: "kind", message: "Must be one of: webhook, slack, eventbridge" },
        ],
      ],
      [{ name: "x", kind: "webhook" }, [{ path: "url", message: "Required for a webhook destination" }]],
      [
        { name: "x", kind: "eventbridge", url: "https://1.1.1.1/" },
        [{ path: "url", message: "An eventbridge destination has no URL" }],
      ],
      [
        { name: "x", kind: "slack", url: "ftp://hooks.example.com/" },
        [{ path: "url", message: "Must be an https:// URL, or http:// to a loopback host" }],
      ],
      [
        { name: "x", kind: "webhook", url: "https://10.0.0.7/hook" },
        [{ path: "url", message: "The host 10.0.0.7 resolves to 10.0.0.7, which is not a public address" }],
      ],
      [
        { name: "x", kind: "webhook", url: "https://[::ffff:169.254.169.254]/latest" },
        [
          {
            path: "url",
            message: "The host ::ffff:a9fe:a9fe resolves to ::ffff:a9fe:a9fe, which is not a public address",
          },
        ],
      ],
      [
        { name: "x", kind: "webhook", url: "http://user:pw@127.0.0.1/" },
        [{ path: "url", message: "Must not carry a user name or password" }],
      ],
      [{ name: "x", kind: "eventbridge", enabled: false }, [{ path: "enabled", message: "Unknown field" }]],
    ];
    const prototypeKey = await call(api, "POST", destinations, {
      key: user.token,
      body: '{"name":"x","kind":"eventbridge","__proto__":{"enabled":false}}',
    });
    expect(prototypeKey.status).toBe(400);
    expect(prototypeKey.body.issues).toEqual([{ path: "__proto__", message: "Unknown field" }]);
    for (const [body, issues] of cases) {
      const response = await create(user, body);
      expect(response.status, JSON.stringify(body)).toBe(400);
      expect(response.body.issues, JSON.stringify(body)).toEqual(issues);
    }
    const list = await call(api, "GET", destinations, { key: user.token, settle: false });
    expect(list.body).toEqual({ destinations: [] });
  });

  it("lets members read and only admins write; another organisation's destination is not found", async () => {
    const created = await create(admin, { name: "ours", kind: "eventbridge" });
    const id = String(created.body.id);

    expect((await create(member, { name: "mine", kind: "eventbridge" })).status).toBe(403);
    const listed = await call(api, "GET", destinations, { key: member.token, settle: false });
    expect(listed.status).toBe(200);
    expect((listed.body.destinations as Array<{ id: string }>).map((each) => each.id)).toContain(id);
    expect((await call(api, "POST", `${destinations}/${id}/test`, { key: member.token })).status).toBe(403);

    const foreign = [
      await call(api, "GET", `${destinations}/${id}`, { key: stranger.token, settle: false }),
      await call(api, "PUT", `${destinations}/${id}`, {
        key: stranger.token,
        body: { name: "taken", enabled: false },
      }),
      await call(api, "DELETE", `${destinations}/${id}`, { key: stranger.token }),
      await call(api, "POST", `${destinations}/${id}/rotate-secret`, { key: stranger.token }),
      await call(api, "GET", `${destinations}/not-an-id`, { key: admin.token, settle: false }),
    ];
    for (const response of foreign) expect(response.status, response.text).toBe(404);
    expect(foreign[0]?.body.message).toBe(`No destination ${id} in organisation ${stranger.orgId}`);
    expect((await readDestinationForDelivery(admin.orgId, id))?.name).toBe("ours");

    const rotateBus = await call(api, "POST", `${destinations}/${id}/rotate-secret`, { key: admin.token });
    expect(rotateBus.status).toBe(409);
    expect(rotateBus.body.message).toBe(
      `Destination ${id} is a eventbridge destination: only a webhook has a signing secret`,
    );
  });

  it("keeps at most 20 destinations per organisation and audits every change", async () => {
    const user = await createTestUser(api, { role: "admin" });
    const ids: string[] = [];
    for (let index = 0; index < 20; index++) {
      const response = await create(user, { name: `bus ${index}`, kind: "eventbridge" });
      expect(response.status, response.text).toBe(201);
      ids.push(String(response.body.id));
    }
    const refused = await create(user, { name: "one too many", kind: "eventbridge" });
    expect(refused.status).toBe(409);
    expect(refused.body.message).toBe(
      `Organisation ${user.orgId} has 20 destinations, the most allowed; delete one before adding another`,
    );
    await call(api, "PUT", `${destinations}/${ids[0]}`, { key: user.token, body: { name: "renamed", enabled: true } });
    await call(api, "DELETE", `${destinations}/${ids[1]}`, { key: user.token });
    expect((await create(user, { name: "room again", kind: "eventbridge" })).status).toBe(201);

    const { entries } = await listAlertAudit(user.orgId, 5);
    expect(entries.map((entry) => [entry.action, entry.subject.name, entry.changed])).toEqual([
      ["destination.created", "room again", []],
      ["destination.deleted", "bus 1", []],
      ["destination.updated", "renamed", ["name"]],
      ["destination.created", "bus 19", []],
      ["destination.created", "bus 18", []],
    ]);
    expect(entries[0]?.actorId).toBe(user.userId);
  });
});
