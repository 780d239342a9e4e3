/**
 * Issue 11, defects 1 and 9(b): client text used as keys of JavaScript objects. A tool named
 * `constructor` made ending a session a 500 every time, a late event so named left a DELETE half done and
 * an erasure job `running` forever; a failure reason holding `#TOOL#` was counted as a tool. Every name
 * now travels through the whole life of a session, and one session that cannot be deleted no longer
 * stalls an erasure job.
 */
import { PutCommand, UpdateCommand } from "@aws-sdk/lib-dynamodb";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { LIMITS } from "../../functions/domain/limits.js";
import { dayOf } from "../../functions/domain/rollup.js";
import { documentClient, tableName } from "../../functions/store/table/dynamo-client.js";
import {
  rollupDayKey,
  rollupFailureKey,
  rollupPartition,
  rollupToolKey,
  sessionKey,
  tenant,
} from "../../functions/store/table/keys.js";
import type { LocalApi } from "../../local/http-adapter.js";
import { bruteForceStats, comparable } from "../support/brute-force-stats.js";
import {
  call,
  createTestKey,
  createTestSession,
  deletionWorker,
  itemsOfSessions,
  settleCounts,
  startTestApi,
  storedEvents,
  storeUncountableDuration,
  type TestKey,
} from "../support/fixtures.js";

const NAMES = ["constructor", "__proto__", "toString", "hasOwnProperty", "valueOf", "toLocaleString", "~tilde"];
const ALL_SCOPES = ["sessions:write", "events:write", "read", "delete"] as const;

let api: LocalApi;

beforeAll(async () => {
  api = await startTestApi();
});
afterAll(() => api.close());

/** The agent's served stats and a recount from the raw items of `sessionIds`, the only sessions of `owner`'s organisation. */
async function statsAgainstRecount(owner: TestKey, agentName: string, sessionIds: readonly string[]) {
  const items = await itemsOfSessions(sessionIds);
  const response = await call(api, "GET", `/api/sdk/agents/${encodeURIComponent(agentName)}/stats`, { key: owner.key });
  expect(response.status).toBe(200);
  return {
    served: comparable(response.body as never),
    recount: bruteForceStats(
      items.filter((item) => item.entity === "session"),
      items.filter((item) => item.entity === "event"),
      (session) => session.agentName === agentName,
    ),
  };
}

describe.each(NAMES)("the name %j", (name) => {
  it("as tool, metric, metadata key and failure reason: a session ends, counts exactly, takes late events and is deleted whole", async () => {
    const owner = await createTestKey({ scopes: ALL_SCOPES });
    const agentName = `agent-${name}`;
    const created = await call(api, "POST", "/api/sdk/sessions", {
      key: owner.key,
      body: JSON.stringify({ name, agentName, userId: name, metadata: JSON.parse(`{${JSON.stringify(name)}:"kept"}`) }),
    });
    expect(created.status).toBe(201);
    const sessionId = String(created.body.id);
    // Tool calls only before the end: the session's toolErrors map does not hold the name (the 500 of issue 11).
    const events = [
      { sessionId, eventType: "tool_call", toolName: name },
      { sessionId, eventType: "tool_call", toolName: name },
    ];
    for (const event of events) {
      expect((await call(api, "POST", "/api/sdk/events", { key: owner.key, body: event })).status).toBe(201);
    }

    const ended = await call(api, "PATCH", `/api/sdk/sessions/${sessionId}`, {
      key: owner.key,
      body: JSON.stringify({
        status: "failed",
        failureReason: name,
        durationMs: 900,
        customMetrics: JSON.parse(`{${JSON.stringify(name)}:3}`),
      }),
    });
    const late = await call(api, "POST", "/api/sdk/events", {
      key: owner.key,
      body: { sessionId, eventType: "error", toolName: name },
    });
    const lateBatch = await call(api, "POST", "/api/sdk/events/batch", {
      key: owner.key,
      body: {
        events: [
          { sessionId, eventType: "tool_call", toolName: name },
          { sessionId, eventType: "error", toolName: name },
        ],
      },
    });
    const read = await call(api, "GET", `/api/sdk/sessions/${sessionId}`, { key: owner.key });
    const { served, recount } = await statsAgainstRecount(owner, agentName, [sessionId]);

    expect(ended.status).toBe(200);
    expect(late.status).toBe(201);
    expect(lateBatch.body.results).toMatchObject([{ status: 201 }, { status: 201 }]);
    expect(Object.entries(read.body.toolCalls as object)).toEqual([[name, 3]]);
    expect(Object.entries(read.body.toolErrors as object)).toEqual([[name, 2]]);
    expect(Object.entries(read.body.customMetrics as object)).toEqual([[name, 3]]);
    expect(Object.entries(read.body.metadata as object)).toEqual([[name, "kept"]]);
    expect(served).toEqual(recount);
    expect(served.topToolsByCalls).toEqual([{ toolName: name, calls: 3 }]);
    expect(served.topFailureReasons).toEqual([{ reason: name, count: 1 }]);

    const deleted = await call(api, "DELETE", `/api/sdk/sessions/${sessionId}`, { key: owner.key });
    expect(deleted.status).toBe(204);
    expect(await storedEvents(sessionId)).toEqual([]);
    expect((await call(api, "GET", `/api/sdk/sessions/${sessionId}`, { key: owner.key })).status).toBe(404);
    const afterDeletion = await statsAgainstRecount(owner, agentName, [sessionId]);
    expect(afterDeletion.served).toEqual(afterDeletion.recount);
  });

  it("as a tool called before the end: PATCH completed is a 200 and the stats are exact", async () => {
    const owner = await createTestKey({ scopes: ALL_SCOPES });
    const agentName = `completed-${name}`;
    const sessionId = await createTestSession(api, owner.key, { name: "s", agentName, userId: "u" });
    for (let index = 0; index < 2; index++) {
      const recorded = await call(api, "POST", "/api/sdk/events", {
        key: owner.key,
        body: { sessionId, eventType: "tool_call", toolName: name },
      });
      expect(recorded.status).toBe(201);
    }

    const ended = await call(api, "PATCH", `/api/sdk/sessions/${sessionId}`, {
      key: owner.key,
      body: { status: "completed", durationMs: 250 },
    });
    const { served, recount } = await statsAgainstRecount(owner, agentName, [sessionId]);

    expect(ended.status).toBe(200);
    expect(ended.body).toMatchObject({ status: "completed" });
    expect(served).toEqual(recount);
    expect(served.totals).toMatchObject({ sessions: 1, completed: 1 });
    expect(served.topToolsByCalls).toEqual([{ toolName: name, calls: 2 }]);
    expect(served.topToolsByErrors).toEqual([]);
  });

  it("as a late tool call: DELETE of the session is a 204 and leaves nothing", async () => {
    const owner = await createTestKey({ scopes: ALL_SCOPES });
    const agentName = `late-${name}`;
    const sessionId = await createTestSession(api, owner.key, { name: "s", agentName, userId: "u" });
    await call(api, "PATCH", `/api/sdk/sessions/${sessionId}`, { key: owner.key, body: { status: "completed" } });
    const late = await call(api, "POST", "/api/sdk/events", {
      key: owner.key,
      body: { sessionId, eventType: "tool_call", toolName: name },
    });
    expect(late.status).toBe(201);

    const deleted = await call(api, "DELETE", `/api/sdk/sessions/${sessionId}`, { key: owner.key });

    expect(deleted.status).toBe(204);
    expect(await storedEvents(sessionId)).toEqual([]);
    expect((await call(api, "GET", `/api/sdk/sessions/${sessionId}`, { key: owner.key })).status).toBe(404);
    const afterDeletion = await statsAgainstRecount(owner, agentName, [sessionId]);
    expect(afterDeletion.served).toEqual(afterDeletion.recount);
    expect(afterDeletion.served.totals).toMatchObject({ sessions: 0, completed: 0 });
    expect(afterDeletion.served.topToolsByCalls).toEqual([]);
  });

  it("as user id and late tool name: the user's erasure completes", async () => {
    const owner = await createTestKey({ scopes: ALL_SCOPES });
    const sessionIds: string[] = [];
    for (let index = 0; index < 2; index++) {
      const sessionId = await createTestSession(api, owner.key, { name: "s", agentName: "erased", userId: name });
      await call(api, "PATCH", `/api/sdk/sessions/${sessionId}`, { key: owner.key, body: { status: "completed" } });
      // Late: the name lands in toolCalls only, another tool in toolErrors (the erasure of issue 11 stalled here).
      await call(api, "POST", "/api/sdk/events", {
        key: owner.key,
        body: { sessionId, eventType: "tool_call", toolName: name },
      });
      await call(api, "POST", "/api/sdk/events", {
        key: owner.key,
        body: { sessionId, eventType: "error", toolName: "search" },
      });
      sessionIds.push(sessionId);
    }

    const accepted = await call(api, "DELETE", `/api/sdk/users/${encodeURIComponent(name)}`, { key: owner.key });
    await deletionWorker?.idle();
    const job = await call(api, "GET", `/api/sdk/deletions/${String(accepted.body.jobId)}`, { key: owner.key });

    expect(accepted.status).toBe(202);
    expect(job.body).toMatchObject({ status: "completed", deletedSessions: 2, deletedEvents: 4, failedSessions: 0 });
    for (const sessionId of sessionIds) expect(await storedEvents(sessionId)).toEqual([]);
  });
});

describe("rollup items say what they are", () => {
  it("a failure reason holding #TOOL# is a failure reason, not a tool", async () => {
    const owner = await createTestKey({ scopes: ALL_SCOPES });
    const sessionId = await createTestSession(api, owner.key, { name: "n", agentName: "separator-agent", userId: "u" });
    await call(api, "PATCH", `/api/sdk/sessions/${sessionId}`, {
      key: owner.key,
      body: { status: "failed", failureReason: "x#TOOL#y" },
    });

    const stats = await call(api, "GET", "/api/sdk/agents/separator-agent/stats", { key: owner.key });

    expect(stats.body.topToolsByCalls).toEqual([]);
    expect(stats.body.topToolsByErrors).toEqual([]);
    expect(stats.body.topFailureReasons).toEqual([{ reason: "x#TOOL#y", count: 1 }]);
  });
});

describe("rollup items written before rollupKind", () => {
  it("are read by the attribute their kind carries, not by parsing the sort key", async () => {
    const owner = await createTestKey({ scopes: ALL_SCOPES });
    const partition = rollupPartition(tenant(owner.orgId, "live"), "AGENT", "legacy-agent");
    const day = dayOf(new Date().toISOString());
    const common = { entity: "rollup", day, ttl: Math.floor(Date.now() / 1000) + 86_400 };
    const legacyItems = [
      { ...rollupDayKey(partition, day), ...common, sessions: 1, failed: 1 },
      { ...rollupToolKey(partition, day, "search"), ...common, toolName: "search", calls: 2, errors: 1 },
      { ...rollupFailureKey(partition, day, "x#TOOL#y"), ...common, reason: "x#TOOL#y", count: 1 },
    ];
    for (const item of legacyItems) await documentClient.send(new PutCommand({ TableName: tableName, Item: item }));

    const stats = await call(api, "GET", "/api/sdk/agents/legacy-agent/stats", { key: owner.key });

    expect(stats.status).toBe(200);
    expect(stats.body.days).toHaveLength(1);
    expect(stats.body.totals).toMatchObject({ sessions: 1, failed: 1 });
    expect(stats.body.topToolsByCalls).toEqual([{ toolName: "search", calls: 2 }]);
    expect(stats.body.topToolsByErrors).toEqual([{ toolName: "search", errors: 1 }]);
    expect(stats.body.topFailureReasons).toEqual([{ reason: "x#TOOL#y", count: 1 }]);
  });
});

describe("a session deletion that fails part-way", () => {
  it("leaves the session and its events, and DELETE again finishes it", async () => {
    const owner = await createTestKey({ scopes: ALL_SCOPES });
    const sessionId = await createTestSession(api, owner.key, { name: "s", agentName: "retried", userId: "u" });
    await call(api, "POST", "/api/sdk/events", {
      key: owner.key,
      body: { sessionId, eventType: "tool_call", toolName: "search" },
    });
    await call(api, "PATCH", `/api/sdk/sessions/${sessionId}`, {
      key: owner.key,
      body: { status: "completed", durationMs: 100 },
    });
    // Its end counted into the rollups (the stream consumer), then a stored duration that is not a number:
    // the session's rollup withdrawal cannot be computed.
    await settleCounts();
    const storeDuration = (value: unknown) =>
      documentClient.send(
        new UpdateCommand({
          TableName: tableName,
          Key: sessionKey(sessionId),
          UpdateExpression: "SET durationMs = :value",
          ExpressionAttributeValues: { ":value": value },
        }),
      );
    await storeDuration("not a number");

    const failed = await call(api, "DELETE", `/api/sdk/sessions/${sessionId}`, { key: owner.key });

    expect(failed.status).toBe(500);
    expect(failed.body.error).toBe("Internal Server Error");
    expect(JSON.stringify(failed.body)).not.toContain("at ");
    expect(await storedEvents(sessionId)).toHaveLength(1);
    expect((await call(api, "GET", `/api/sdk/sessions/${sessionId}`, { key: owner.key })).status).toBe(200);

    await storeDuration(100);
    const retried = await call(api, "DELETE", `/api/sdk/sessions/${sessionId}`, { key: owner.key });

    expect(retried.status).toBe(204);
    expect(await storedEvents(sessionId)).toEqual([]);
    expect((await call(api, "GET", `/api/sdk/sessions/${sessionId}`, { key: owner.key })).status).toBe(404);
    const { served, recount } = await statsAgainstRecount(owner, "retried", [sessionId]);
    expect(served).toEqual(recount);
    expect(served.totals).toMatchObject({ sessions: 0, completed: 0 });
  });
});

describe("numbers that do not fit", () => {
  it.each([
    [
      "durationMs",
      { status: "completed", durationMs: Number.POSITIVE_INFINITY },
      { path: "durationMs", message: `Must be a number from 0 to ${LIMITS.maxDurationMs}` },
    ],
    [
      "a custom metric named __proto__",
      { status: "completed", customMetrics: { ["__proto__"]: Number.POSITIVE_INFINITY } },
      { path: "customMetrics.__proto__", message: "Must be a finite number" },
    ],
  ])("%s overflowing to Infinity is a 400 naming the field", async (_label, patch, issue) => {
    const owner = await createTestKey({ scopes: ALL_SCOPES });
    const sessionId = await createTestSession(api, owner.key, { name: "s", agentName: "a", userId: "u" });
    // 1e400 is valid JSON and parses to Infinity.
    const body = JSON.stringify(patch).replace("null", "1e400");

    const response = await call(api, "PATCH", `/api/sdk/sessions/${sessionId}`, { key: owner.key, body });

    expect(response.status).toBe(400);
    expect(response.body.issues).toEqual([issue]);
    expect(String(response.body.message)).toContain(issue.path);
    const read = await call(api, "GET", `/api/sdk/sessions/${sessionId}`, { key: owner.key });
    expect(read.body).toMatchObject({ status: "active", durationMs: null, customMetrics: null });
  });
});

describe("an erasure job never stalls on one session", () => {
  it("records a session it cannot delete, erases the others and finishes completed_with_errors", async () => {
    const owner = await createTestKey({ scopes: ALL_SCOPES });
    const sessionIds: string[] = [];
    for (let index = 0; index < 3; index++) {
      const sessionId = await createTestSession(api, owner.key, { name: "s", agentName: "a", userId: "stuck-user" });
      await call(api, "PATCH", `/api/sdk/sessions/${sessionId}`, {
        key: owner.key,
        body: { status: "completed", durationMs: 100 },
      });
      sessionIds.push(sessionId);
    }
    // A counted session whose stored duration is not a number: taking it out of its rollups cannot be computed.
    await settleCounts();
    const broken = String(sessionIds[1]);
    await storeUncountableDuration(broken);

    const accepted = await call(api, "DELETE", "/api/sdk/users/stuck-user", { key: owner.key });
    await deletionWorker?.idle();
    const job = await call(api, "GET", `/api/sdk/deletions/${String(accepted.body.jobId)}`, { key: owner.key });

    expect(job.body).toMatchObject({
      status: "completed_with_errors",
      deletedSessions: 2,
      failedSessions: 1,
      failures: [
        {
          sessionId: broken,
          message: "Could not be deleted (an internal error, logged with the job id); request the erasure again",
        },
      ],
    });
    expect((await call(api, "GET", `/api/sdk/sessions/${sessionIds[0]}`, { key: owner.key })).status).toBe(404);
    expect((await call(api, "GET", `/api/sdk/sessions/${sessionIds[2]}`, { key: owner.key })).status).toBe(404);
  });
});
