/**
 * Issue 33: scores counted exactly once into their agent's score rollups. After scores are written, edited (in
 * place, to another kind, to another name), deleted through the API, with their session, and by a user's erasure,
 * the rollups equal a brute-force recount of the score items (test/support/score-recount.ts), and AgentStats shows
 * the same figures; a batch delivered twice, and a consumer that died after committing and was restarted from the
 * stream's oldest record, count nothing twice; labels are capped per name and day.
 */
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { newId } from "../../functions/domain/ids.js";
import { MAX_SCORE_LABELS_PER_DAY, OTHER_LABEL } from "../../functions/domain/score-tally.js";
import type { LocalApi } from "../../local/http-adapter.js";
import {
  call,
  createTestKey,
  createTestSession,
  deletionWorker,
  startTestApi,
  type TestKey,
} from "../support/fixtures.js";
import { expectExactScoreRollups, type Recounted } from "../support/score-recount.js";
import { type SoloConsumer, startSoloConsumer } from "../support/stream-solo.js";

let api: LocalApi;
const consumers: SoloConsumer[] = [];

beforeAll(async () => {
  api = await startTestApi();
});
afterAll(async () => {
  await Promise.allSettled(consumers.map((consumer) => consumer.stop()));
  await api.close();
});

const SCOPES = ["sessions:write", "events:write", "scores:write", "read", "delete"] as const;

async function scoreOf(owner: TestKey, sessionId: string, name: string, value: unknown, id = newId("score")) {
  const response = await call(api, "POST", "/api/sdk/scores", { key: owner.key, body: { id, sessionId, name, value } });
  expect(response.status, response.text).toBeLessThan(300);
  return id;
}

async function deleteScore(owner: TestKey, sessionId: string, scoreId: string) {
  const response = await call(api, "DELETE", `/api/sdk/sessions/${sessionId}/scores/${scoreId}`, { key: owner.key });
  expect(response.status, response.text).toBe(204);
}

/** A first round of scores of every kind and awkward names and labels on `sessions`; resolves with their ids. */
async function firstRound(owner: TestKey, sessions: readonly string[]): Promise<string[][]> {
  const values: [string, unknown][] = [
    ["helpfulness", 0.75],
    ["helpfulness", -2.5],
    ["helpfulness", 0],
    ["helpfulness", 1_000_000.125],
    ["__proto__", true],
    ["__proto__", false],
    ["correct", true],
    ["tone", "good"],
    ["tone", "__proto__"],
    ["tone", "constructor"],
  ];
  return Promise.all(
    sessions.map((sessionId, index) =>
      Promise.all(values.slice(index % 3).map(([name, value]) => scoreOf(owner, sessionId, name, value))),
    ),
  );
}

/** A recount place's figures as AgentStats shows them over the period (one day: the sessions start today). */
function expectedFigures(place: Recounted) {
  return {
    count: place.count,
    numericCount: place.numericCount,
    mean: place.numericCount === 0 ? null : place.sum / place.numericCount,
    trueCount: place.trueCount,
    booleanCount: place.trueCount + place.falseCount,
    labels: Object.fromEntries(place.labels),
  };
}

describe("scores are counted exactly once into their agent's rollups", () => {
  it("after writes, edits, kind and name changes, API deletions, a session's deletion and a user's erasure", async () => {
    const owner = await createTestKey({ scopes: SCOPES });
    const agentA = `scores-a-${randomUUID().slice(0, 8)}`;
    const agentB = `scores-b-${randomUUID().slice(0, 8)}`;
    const leaving = `leaving-${randomUUID().slice(0, 8)}`;
    const [s1, s2, s3, s4] = await Promise.all([
      createTestSession(api, owner.key, { agentName: agentA }),
      createTestSession(api, owner.key, { agentName: agentA }),
      createTestSession(api, owner.key, { agentName: agentB, userId: leaving }),
      createTestSession(api, owner.key, { agentName: agentA }),
    ]);
    const sessions = [s1, s2, s3, s4] as string[];
    const ids = await firstRound(owner, sessions);
    // Counted (the read settles the consumer) before the edits and deletions, which must then move and withdraw it.
    const counted = await call(api, "GET", `/api/sdk/agents/${agentB}/stats`, { key: owner.key });
    expect(counted.status).toBe(200);
    expect((counted.body.scores as { count: number }[]).reduce((sum, entry) => sum + entry.count, 0)).toBe(
      ids[2]?.length,
    );

    const [first, second] = [ids[0] ?? [], ids[1] ?? []];
    await Promise.all([
      scoreOf(owner, s1 as string, "helpfulness", 0.5, first[0]), // an edit in place
      scoreOf(owner, s1 as string, "tone", "great", first[1]), // numeric → categorical, another name
      scoreOf(owner, s1 as string, "correct", false, first[6]), // boolean flipped
      scoreOf(owner, s1 as string, "helpfulness", 0.75, first[3]).then(() =>
        scoreOf(owner, s1 as string, "helpfulness", 0.25, first[3]),
      ), // edited twice before counting
      deleteScore(owner, s2 as string, second[0] as string),
      deleteScore(owner, s1 as string, first[7] as string),
      scoreOf(owner, s2 as string, "late", 3),
    ]);
    const deleted = await call(api, "DELETE", `/api/sdk/sessions/${s4}`, { key: owner.key });
    expect(deleted.status).toBe(204);
    const erased = await call(api, "DELETE", `/api/sdk/users/${leaving}`, { key: owner.key });
    expect(erased.status).toBe(202);
    await deletionWorker?.idle();

    const stats = await call(api, "GET", `/api/sdk/agents/${agentA}/stats`, { key: owner.key });
    const recount = await expectExactScoreRollups({
      orgId: owner.orgId,
      agentNames: [agentA, agentB],
      sessionIds: sessions,
    });
    expect([...recount.keys()].every((place) => place.startsWith(`${agentA}\u0000`))).toBe(true);

    // AgentStats shows the recount.
    expect(stats.status).toBe(200);
    const shown = stats.body.scores as {
      name: string;
      count: number;
      numeric: { count: number; mean: number } | null;
      boolean: { count: number; trueCount: number } | null;
      labels: { label: string; count: number }[];
    }[];
    const expected: Record<string, ReturnType<typeof expectedFigures>> = Object.fromEntries(
      [...recount].map(([place, figures]) => [place.split("\u0000")[2], expectedFigures(figures)]),
    );
    const actual = Object.fromEntries(
      shown.map((entry) => [
        entry.name,
        {
          count: entry.count,
          numericCount: entry.numeric?.count ?? 0,
          mean: entry.numeric?.mean ?? null,
          trueCount: entry.boolean?.trueCount ?? 0,
          booleanCount: entry.boolean?.count ?? 0,
          labels: Object.fromEntries(entry.labels.map(({ label, count }) => [label, count])),
        },
      ]),
    );
    expect(Object.keys(actual).sort()).toEqual(Object.keys(expected).sort());
    for (const [name, figures] of Object.entries(expected)) {
      const shownFigures = actual[name];
      expect({ ...shownFigures, mean: undefined }, name).toEqual({ ...figures, mean: undefined });
      if (figures.mean !== null) expect(shownFigures?.mean).toBeCloseTo(figures.mean, 9);
    }
    expect(stats.body.scoresTruncated).toBe(false);
    const agentBStats = await call(api, "GET", `/api/sdk/agents/${agentB}/stats`, { key: owner.key });
    expect(agentBStats.body.scores).toEqual([]);
  });

  it("caps labels per name and day: the rest count as (other), and a deletion withdraws from where it was counted", async () => {
    const owner = await createTestKey({ scopes: SCOPES });
    const agentName = `scores-labels-${randomUUID().slice(0, 8)}`;
    const sessionId = await createTestSession(api, owner.key, { agentName });
    const labels = Array.from({ length: MAX_SCORE_LABELS_PER_DAY + 3 }, (_, index) => `label-${index}`);
    const ids: string[] = [];
    for (const label of labels) ids.push(await scoreOf(owner, sessionId, "verdict", label));
    const before = await call(api, "GET", `/api/sdk/agents/${agentName}/stats`, { key: owner.key });
    const shownBefore = (before.body.scores as { labels: { label: string; count: number }[] }[])[0]?.labels ?? [];
    expect(shownBefore).toHaveLength(MAX_SCORE_LABELS_PER_DAY + 1);
    expect(shownBefore[0]).toEqual({ label: OTHER_LABEL, count: 3 });

    await deleteScore(owner, sessionId, ids.at(-1) as string);
    await deleteScore(owner, sessionId, ids[0] as string);

    const after = await call(api, "GET", `/api/sdk/agents/${agentName}/stats`, { key: owner.key });
    const shownAfter = (after.body.scores as { count: number; labels: { label: string; count: number }[] }[])[0];
    expect(shownAfter?.count).toBe(labels.length - 2);
    expect(shownAfter?.labels.find(({ label }) => label === OTHER_LABEL)).toEqual({ label: OTHER_LABEL, count: 2 });
    expect(shownAfter?.labels.find(({ label }) => label === "label-0")).toBeUndefined();
    await expectExactScoreRollups({ orgId: owner.orgId, agentNames: [agentName], sessionIds: [sessionId] });
  });
});

describe("a consumer that sees a batch again counts nothing twice", () => {
  async function soloOwner(): Promise<TestKey> {
    return createTestKey({ orgId: `solo-${randomUUID().slice(0, 12)}`, scopes: SCOPES });
  }

  it("every batch delivered twice, and a consumer that died after committing restarted from the oldest record", async () => {
    const owner = await soloOwner();
    const agentName = `scores-solo-${randomUUID().slice(0, 8)}`;
    const twice = await startSoloConsumer(owner.orgId, {
      startAt: "now",
      wrapper: async (event, _, real) => {
        expect((await real(event)).batchItemFailures).toEqual([]);
        return real(event);
      },
    });
    consumers.push(twice);
    const sessions = await Promise.all([1, 2].map(() => createTestSession(api, owner.key, { agentName })));
    const ids = await firstRound(owner, sessions);
    await twice.drain();
    await twice.stop();

    const first = ids[0] ?? [];
    await scoreOf(owner, sessions[0] as string, "helpfulness", 9.5, first[0]);
    await scoreOf(owner, sessions[0] as string, "tone", "bad", first[1]);
    await deleteScore(owner, sessions[1] as string, (ids[1] ?? [])[0] as string);
    // Dies after committing its first batch, before answering; a new poller reads the whole stream again.
    const dying = await startSoloConsumer(owner.orgId, {
      startAt: "now",
      wrapper: async (event, invocation, real) => {
        if (invocation === 1) await real(event);
        throw new Error("the consumer process died before answering");
      },
    });
    consumers.push(dying);
    await scoreOf(owner, sessions[1] as string, "helpfulness", -7);
    await expect(dying.drain()).rejects.toThrow("died");
    await dying.stop();
    const restarted = await startSoloConsumer(owner.orgId, { startAt: "oldest" });
    consumers.push(restarted);
    await restarted.drain();

    await expectExactScoreRollups({ orgId: owner.orgId, agentNames: [agentName], sessionIds: sessions });
    expect(twice.deliveries.length).toBeGreaterThanOrEqual(1);
  });
});
