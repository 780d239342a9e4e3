/**
 * Alert monitors over real HTTP and DynamoDB Local (issue 34): create, read, replace, delete with bad inputs (each a
 * field-level 400, nothing stored), roles, tenancy (another organisation's or environment's monitor is 404), the
 * limit and the audit; and the evaluation against data the stream consumer really counted: a failing agent's
 * monitor goes to alert, one history entry per minute however often (or however many evaluators) evaluate it,
 * renotifies, recovers, and a monitor deleted while it fires writes and sends nothing.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { evaluateMonitor, evaluateMonitors } from "../../functions/alerts/monitor-evaluation.js";
import { newId } from "../../functions/domain/ids.js";
import { getMonitor, listMonitors } from "../../functions/store/alerts/monitor-store.js";
import { organisationKey } from "../../functions/store/table/keys.js";
import { updateIfExists } from "../../functions/store/table/table-operations.js";
import type { LocalApi } from "../../local/http-adapter.js";
import {
  call,
  createTestKey,
  createTestSession,
  createTestUser,
  settleCounts,
  startTestApi,
  type TestKey,
  type TestUser,
} from "../support/fixtures.js";

let api: LocalApi;
let key: TestKey;
let owner: TestUser;
let admin: TestUser;
let member: TestUser;
let stranger: TestUser;

const MONITORS = "/api/alerts/monitors";
const agentName = `failing-agent-${Date.now()}`;

const definition = {
  name: "Failing agent",
  enabled: true,
  metric: "failure_rate",
  filters: { agent: agentName },
  windowMinutes: 15,
  comparison: "above",
  warningThreshold: 20,
  alertThreshold: 50,
  minSessions: 3,
  noData: "keep",
  renotifyMinutes: 5,
  notifyOnRecovery: true,
  destinationIds: [],
};

beforeAll(async () => {
  api = await startTestApi();
  key = await createTestKey({ scopes: ["sessions:write", "events:write", "read"] });
  owner = await createTestUser(api, { orgId: key.orgId, role: "owner" });
  admin = await createTestUser(api, { orgId: key.orgId, role: "admin" });
  member = await createTestUser(api, { orgId: key.orgId, role: "member" });
  stranger = await createTestUser(api);
  // The failing agent: three failed runs and one completed, ended now, counted once for the whole file.
  for (const status of ["failed", "failed", "failed", "completed"]) {
    const sessionId = await createTestSession(api, key.key, { agentName });
    const ended = await call(api, "PATCH", `/api/sdk/sessions/${sessionId}`, {
      key: key.key,
      body: { status, durationMs: 1000 },
    });
    if (ended.status !== 200) throw new Error(`session not ended: ${ended.text}`);
  }
  await settleCounts();
});
afterAll(() => api.close());

function create(user: TestUser, body: Record<string, unknown> = definition, headers: Record<string, string> = {}) {
  return call(api, "POST", MONITORS, { key: user.token, body, headers });
}

/** The history of a monitor, straight from its route. */
async function historyOf(monitorId: string): Promise<Record<string, unknown>[]> {
  const page = await call(api, "GET", `${MONITORS}/${monitorId}/history`, { key: member.token, settle: false });
  expect(page.status, page.text).toBe(200);
  return page.body.history as Record<string, unknown>[];
}

describe("monitor routes", () => {
  it("creates, reads, lists, replaces and deletes a monitor, each change audited", async () => {
    const created = await create(admin, { ...definition, name: "CRUD", description: "what it is for" });
    expect(created.status, created.text).toBe(201);
    expect(created.headers.get("cache-control")).toBe("no-store");
    const id = String(created.body.id);
    expect(created.body).toEqual({
      ...definition,
      name: "CRUD",
      description: "what it is for",
      id: expect.stringMatching(/^mon_[0-9A-Z]{26}$/),
      environment: "live",
      createdAt: expect.stringMatching(/Z$/),
      updatedAt: expect.stringMatching(/Z$/),
      createdBy: admin.email,
      state: {
        status: "ok",
        since: null,
        figure: null,
        samples: 0,
        evaluatedAt: null,
        windowStart: null,
        windowEnd: null,
      },
    });
    const read = await call(api, "GET", `${MONITORS}/${id}`, { key: member.token, settle: false });
    expect(read.body).toEqual(created.body);
    const listed = await call(api, "GET", MONITORS, { key: member.token, settle: false });
    expect(listed.body.monitors).toContainEqual(created.body);

    const replaced = await call(api, "PUT", `${MONITORS}/${id}`, {
      key: admin.token,
      body: { ...definition, name: "CRUD", metric: "cost", filters: { model: "gpt-4o" }, warningThreshold: null },
    });
    expect(replaced.status, replaced.text).toBe(200);
    expect(replaced.body).toMatchObject({ metric: "cost", filters: { model: "gpt-4o" }, id, createdBy: admin.email });
    expect(replaced.body).not.toHaveProperty("description");
    expect(replaced.body).not.toHaveProperty("warningThreshold");

    const deleted = await call(api, "DELETE", `${MONITORS}/${id}`, { key: admin.token });
    expect(deleted.status).toBe(204);
    expect((await call(api, "GET", `${MONITORS}/${id}`, { key: member.token, settle: false })).status).toBe(404);
    expect((await call(api, "DELETE", `${MONITORS}/${id}`, { key: admin.token })).status).toBe(404);

    const audit = await call(api, "GET", "/api/alerts/audit?limit=3", { key: admin.token, settle: false });
    expect(audit.status, audit.text).toBe(200);
    const records = audit.body.audit as Record<string, unknown>[];
    expect(records.map((record) => [record.action, (record.subject as { id: string }).id])).toEqual([
      ["monitor.deleted", id],
      ["monitor.updated", id],
      ["monitor.created", id],
    ]);
    expect(records[1]).toMatchObject({
      environment: "live",
      subject: { kind: "monitor", id, name: "CRUD" },
      changed: ["description", "filters", "metric", "warningThreshold"],
      actor: admin.email,
      actorId: admin.userId,
      before: { metric: "failure_rate", description: "what it is for", warningThreshold: 20 },
      after: { metric: "cost", filters: { model: "gpt-4o" } },
    });
    expect(records[0]).not.toHaveProperty("after");
    expect(records[2]).not.toHaveProperty("before");
    const next = await call(
      api,
      "GET",
      `/api/alerts/audit?limit=1&cursor=${encodeURIComponent(String(audit.body.nextCursor))}`,
      {
        key: admin.token,
        settle: false,
      },
    );
    expect(next.status).toBe(200);
    expect((await call(api, "GET", "/api/alerts/audit", { key: member.token, settle: false })).status).toBe(403);
  });

  it("refuses bad definitions field by field and stores nothing", async () => {
    const outsider = await createTestUser(api, { role: "admin" });
    const cases: [Record<string, unknown>, string, string][] = [
      [{ windowMinutes: 7 }, "windowMinutes", "Must be a multiple of 5"],
      [{ warningThreshold: 60 }, "warningThreshold", "Must be below alertThreshold when the comparison is above"],
      [{ alertThreshold: 150, warningThreshold: null }, "alertThreshold", "Must be from 0 to 100 for failure_rate"],
      [{ filters: { tool: "search" } }, "filters.tool", "Not with failure_rate: tool filters tool_failure_rate"],
      [{ metric: "label_share", filters: { score: "verdict" } }, "filters.label", "Required by label_share"],
      [{ renotifyMinutes: 2 }, "renotifyMinutes", "Must be 0 (never) or an integer from 5 to 1440"],
      [{ filters: {} }, "filters.__proto__", "Unknown field"],
      [{ name: "x".repeat(101) }, "name", "Must be at most 100 characters"],
      [
        { destinationIds: [newId("alertDestination")] },
        "destinationIds.0",
        expect.stringContaining("in this organisation"),
      ],
    ];
    for (const [change, path, message] of cases) {
      const body = JSON.parse(JSON.stringify({ ...definition, ...change }));
      if (path === "filters.__proto__") body.filters = JSON.parse('{"__proto__":"x"}');
      const response = await create(outsider, body);
      expect(response.status, `${path}: ${response.text}`).toBe(400);
      expect(response.body.issues).toContainEqual({ path, message });
    }
    expect(await listMonitors(outsider.orgId, "live")).toEqual([]);
  });

  it("lets members read and admins write; another organisation's or environment's monitor is not found", async () => {
    expect((await create(member)).status).toBe(403);
    const created = await create(owner, { ...definition, name: "Tenancy", enabled: false });
    const id = String(created.body.id);
    for (const [method, path] of [
      ["GET", `${MONITORS}/${id}`],
      ["PUT", `${MONITORS}/${id}`],
      ["DELETE", `${MONITORS}/${id}`],
      ["GET", `${MONITORS}/${id}/history`],
      ["POST", `${MONITORS}/${id}/test`],
    ] as const) {
      const body = method === "PUT" ? { body: definition } : {};
      const foreign = await call(api, method, path, { key: stranger.token, settle: false, ...body });
      expect(foreign.status, `${method} ${path}`).toBe(404);
      const otherEnvironment = await call(api, method, path, {
        key: owner.token,
        headers: { "x-environment": "test" },
        settle: false,
        ...body,
      });
      expect(otherEnvironment.status, `${method} ${path} in test`).toBe(404);
    }
    const badHeader = await call(api, "GET", MONITORS, { key: member.token, headers: { "x-environment": "prod" } });
    expect(badHeader.status).toBe(400);
    expect(badHeader.body.message).toBe("Invalid X-Environment header: must be live or test");
    const inTest = await create(owner, { ...definition, enabled: false }, { "x-environment": "test" });
    expect(inTest.body.environment).toBe("test");
    const testList = await call(api, "GET", MONITORS, { key: member.token, headers: { "x-environment": "test" } });
    expect((testList.body.monitors as { id: string }[]).map((monitor) => monitor.id)).toEqual([inTest.body.id]);
    const tested = await call(api, "POST", `${MONITORS}/${id}/test`, { key: admin.token });
    expect(tested.status, tested.text).toBe(202);
    expect(tested.body).toEqual({ notificationId: expect.stringMatching(/^ntf_/), deliveries: [] });
  });

  it("refuses the 101st monitor of an organisation and environment with 409", async () => {
    const full = await createTestUser(api, { role: "admin" });
    await updateIfExists(
      organisationKey(full.orgId),
      { set: { liveMonitorCount: 100 } },
      { allowed: ["liveMonitorCount"] },
    );
    const refused = await create(full, { ...definition, enabled: false });
    expect(refused.status).toBe(409);
    expect(refused.body.message).toBe(
      "This organisation has 100 monitors in live, the most allowed; delete one before adding another",
    );
    expect(await listMonitors(full.orgId, "live")).toEqual([]);
    expect((await create(full, { ...definition, enabled: false }, { "x-environment": "test" })).status).toBe(201);
  });
});

describe("evaluation of counted data", () => {
  // The runs ended before the test: a `now` six minutes ahead (a whole minute) puts them inside
  // [floor5(now) - 15 min, floor5(now)) for every `now` below.
  let base = 0;
  const at = (minutes: number, seconds = 0) => new Date(base + minutes * 60_000 + seconds * 1000);
  beforeAll(() => {
    base = Math.floor((Date.now() + 6 * 60_000) / 60_000) * 60_000;
  });

  it("puts the failing agent's monitor in alert once per minute, renotifies, recovers; a deleted monitor stays silent", async () => {
    const created = await create(admin);
    expect(created.status, created.text).toBe(201);
    const id = String(created.body.id);

    const first = await evaluateMonitors(at(0), { orgId: key.orgId });
    expect(first).toMatchObject({ evaluated: 1, written: 1, transitions: 1, notified: 1, failed: 0 });
    const monitor = await call(api, "GET", `${MONITORS}/${id}`, { key: member.token, settle: false });
    expect(monitor.body.state).toMatchObject({ status: "alert", figure: 75, samples: 4 });
    const [change] = await historyOf(id);
    expect(change).toMatchObject({
      from: "ok",
      to: "alert",
      kind: "change",
      figure: 75,
      samples: 4,
      threshold: 50,
      notificationId: expect.stringMatching(/^ntf_/),
    });

    // The same minute again, and later in it: nothing changes, nothing is written or sent.
    const again = await evaluateMonitors(at(0, 30), { orgId: key.orgId });
    expect(again).toMatchObject({ evaluated: 1, written: 0, transitions: 0, notified: 0 });
    expect(await historyOf(id)).toHaveLength(1);

    // Two evaluators at once, when a renotification is due: one entry, one notification.
    const [one, two] = await Promise.all([
      evaluateMonitors(at(5), { orgId: key.orgId }),
      evaluateMonitors(at(5), { orgId: key.orgId }),
    ]);
    expect((one?.notified ?? 0) + (two?.notified ?? 0)).toBe(1);
    const history = await historyOf(id);
    expect(history.map((entry) => entry.kind)).toEqual(["renotify", "change"]);

    // A higher threshold: the same 75 % is a recovery, notified.
    const raised = await call(api, "PUT", `${MONITORS}/${id}`, {
      key: admin.token,
      body: { ...definition, warningThreshold: 80, alertThreshold: 90 },
    });
    expect(raised.status, raised.text).toBe(200);
    const recovered = await evaluateMonitors(at(6), { orgId: key.orgId });
    expect(recovered).toMatchObject({ transitions: 1, notified: 1 });
    expect((await historyOf(id))[0]).toMatchObject({ from: "alert", to: "ok", threshold: null, figure: 75 });

    // Back to the old thresholds, deleted between the read and the write: the write fails, nothing is sent.
    await call(api, "PUT", `${MONITORS}/${id}`, { key: admin.token, body: definition });
    const firing = await getMonitor(key.orgId, "live", id);
    expect((await call(api, "DELETE", `${MONITORS}/${id}`, { key: admin.token })).status).toBe(204);
    expect(await evaluateMonitor(firing, at(7))).toMatchObject({ outcome: "superseded" });
    expect((await call(api, "GET", `${MONITORS}/${id}`, { key: member.token, settle: false })).status).toBe(404);
  });

  it("previews the figure of the last 72 hours from the hourly series", async () => {
    const preview = await call(api, "POST", `${MONITORS}/preview`, {
      key: member.token,
      body: { ...definition, windowMinutes: 60, minSessions: 0 },
    });
    expect(preview.status, preview.text).toBe(200);
    const points = preview.body.points as { end: string; figure: number | null; samples: number }[];
    expect(points).toHaveLength(72);
    expect(preview.body).not.toHaveProperty("note");
    // The runs ended in the current hour, which no whole-hour window holds yet.
    expect(points.every((point) => point.samples === 0 && point.figure === null)).toBe(true);
    const quarter = await call(api, "POST", `${MONITORS}/preview`, { key: member.token, body: definition });
    expect(quarter.body.note).toBe(
      "Previewed over 1-hour windows (the series' hourly points); the monitor itself is evaluated over exactly 15 minutes",
    );
  });
});
