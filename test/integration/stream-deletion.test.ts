/**
 * Issue 14: session deletion and user erasure racing new events, with the
 * run's shared stream consumer counting meanwhile. The intended invariant
 * (docs/read-api.md "Data lifecycle", docs/data-model.md "Deletion"): a deleted
 * session's contribution to the rollups is withdrawn — exactly what the
 * consumer had counted of it — and an event written to it after the deletion
 * is deleted by the consumer. So once everything settles: no event item of a
 * deleted session is left, every rollup and agent summary equals a
 * brute-force recount of the sessions and events still stored (nothing of a
 * deleted session counted, nothing withdrawn twice, no negative counter), and
 * no request answered 5xx.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { LocalApi } from "../../local/http-adapter.js";
import {
  call,
  createTestKey,
  createTestSession,
  settleCounts,
  startTestApi,
  type TestKey,
} from "../support/fixtures.js";
import { expectExactDerivedData, settledGet, storedRecord } from "../support/stream-recount.js";
import { runTable } from "../support/stream-solo.js";
import { workloadEvent } from "../support/stream-workload.js";

let api: LocalApi;

beforeAll(async () => {
  api = await startTestApi();
});
afterAll(() => api.close());

function deletionKey(): Promise<TestKey> {
  return createTestKey({ scopes: ["sessions:write", "events:write", "read", "delete"] });
}

/** `count` events at the sessions, round robin, singles and batches of 4 in parallel; resolves with the statuses. */
function eventsAt(owner: TestKey, sessionIds: readonly string[], count: number, offset: number): Promise<number[]> {
  return Promise.all(
    Array.from({ length: count }, async (_, index) => {
      const sessionId = sessionIds[index % sessionIds.length] as string;
      if (index % 3 !== 2) {
        const response = await call(api, "POST", "/api/sdk/events", {
          key: owner.key,
          body: workloadEvent(sessionId, offset + index),
        });
        return response.status;
      }
      const response = await call(api, "POST", "/api/sdk/events/batch", {
        key: owner.key,
        body: { events: Array.from({ length: 4 }, (_, n) => workloadEvent(sessionId, offset + index + n)) },
      });
      if (response.status !== 200) return response.status;
      return Math.max(...(response.body.results as { status: number }[]).map((result) => result.status));
    }),
  );
}

/**
 * DELETE a session until it is gone: a 409 says the consumer kept counting it, a 503 that the deletion ran out of
 * time on a loaded machine (it did at load 9 on 2 cores); both say retry, as documented.
 */
async function deleteUntilGone(owner: TestKey, sessionId: string): Promise<number[]> {
  const statuses: number[] = [];
  const deadline = Date.now() + 20_000;
  for (;;) {
    const response = await call(api, "DELETE", `/api/sdk/sessions/${sessionId}`, { key: owner.key });
    statuses.push(response.status);
    if (response.status === 204 || response.status === 404 || Date.now() > deadline) return statuses;
    expect([409, 503], response.text).toContain(response.status);
    if (response.status === 503) expect(response.headers.get("retry-after"), response.text).toBe("2");
  }
}

describe("deletion racing new events", () => {
  it("sessions deleted while events, batches and an end race them: no orphan, rollups exact, nothing negative", async () => {
    const owner = await deletionKey();
    const sessionIds = await Promise.all(
      ["del-u1", "del-u2", "del-u1", "del-u3"].map((userId, index) =>
        createTestSession(api, owner.key, { name: `del ${index}`, agentName: `del-agent-${index % 2}`, userId }),
      ),
    );
    const [kept, doomed, endedDoomed, alsoKept] = sessionIds as [string, string, string, string];
    expect(await eventsAt(owner, sessionIds, 24, 0)).toEqual(Array(24).fill(201));
    expect(
      (
        await call(api, "PATCH", `/api/sdk/sessions/${endedDoomed}`, {
          key: owner.key,
          body: { status: "failed", failureReason: "gone" },
        })
      ).status,
    ).toBe(200);
    await settleCounts(); // some of it counted before the race, the rest during it

    const [racing, deletions, end] = await Promise.all([
      eventsAt(owner, sessionIds, 60, 100),
      Promise.all([deleteUntilGone(owner, doomed), deleteUntilGone(owner, endedDoomed)]),
      call(api, "PATCH", `/api/sdk/sessions/${alsoKept}`, { key: owner.key, body: { status: "completed" } }),
    ]);

    expect(
      racing.every((status) => status === 201 || status === 404),
      `event statuses ${racing}`,
    ).toBe(true);
    for (const statuses of deletions) expect(statuses.at(-1)).toBe(204);
    expect(end.status).toBe(200);
    // A late straggler after the deletion: refused, or stored and then removed by the consumer.
    const straggler = await call(api, "POST", "/api/sdk/events", { key: owner.key, body: workloadEvent(doomed, 999) });
    expect([201, 404]).toContain(straggler.status);
    await settleCounts();
    const { sessions } = await expectExactDerivedData({
      reader: runTable,
      orgId: owner.orgId,
      sessionIds,
      get: settledGet(api, owner),
      agentNames: ["del-agent-0", "del-agent-1"],
      userIds: ["del-u1", "del-u2", "del-u3"],
    });
    expect(sessions.map((session) => session.id).sort()).toEqual([kept, alsoKept].sort());
    expect((await storedRecord(runTable, [doomed, endedDoomed])).events).toEqual([]);
  });

  it("a user's erasure racing events and a new session of the user: the job completes, rollups exact", async () => {
    const owner = await deletionKey();
    const erased = "erased-user";
    const before = await Promise.all(
      [erased, erased, "other-user"].map((userId, index) =>
        createTestSession(api, owner.key, { name: `erase ${index}`, agentName: "erase-agent", userId }),
      ),
    );
    expect(await eventsAt(owner, before, 18, 0)).toEqual(Array(18).fill(201));
    await call(api, "PATCH", `/api/sdk/sessions/${before[0]}`, { key: owner.key, body: { status: "completed" } });

    const erasure = await call(api, "DELETE", `/api/sdk/users/${erased}`, { key: owner.key });
    expect(erasure.status).toBe(202);
    const [racing, newSession] = await Promise.all([
      eventsAt(owner, before, 45, 100),
      createTestSession(api, owner.key, { name: "during erasure", agentName: "erase-agent", userId: erased }),
    ]);
    const afterwards = await eventsAt(owner, [newSession], 6, 200);

    expect(
      racing.every((status) => status === 201 || status === 404),
      `event statuses ${racing}`,
    ).toBe(true);
    expect(afterwards.every((status) => status === 201 || status === 404)).toBe(true);
    const jobPath = `/api/sdk/deletions/${String(erasure.body.jobId)}`;
    await expect
      .poll(async () => (await call(api, "GET", jobPath, { key: owner.key })).body.status, {
        timeout: 30_000,
        interval: 200,
      })
      .toBe("completed");
    await settleCounts();
    const sessionIds = [...before, newSession];
    const { sessions } = await expectExactDerivedData({
      reader: runTable,
      orgId: owner.orgId,
      sessionIds,
      get: settledGet(api, owner),
      agentNames: ["erase-agent"],
      userIds: [erased, "other-user"],
    });
    expect(sessions.map((session) => session.id)).not.toContain(before[0]);
    expect(sessions.map((session) => session.id)).not.toContain(before[1]);
    expect(sessions.map((session) => session.id)).toContain(before[2]);
  });
});
