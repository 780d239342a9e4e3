/**
 * Duration percentiles through the stats API (issue 25, from issue 24): sessions ended with durations spread
 * over 1 ms – 1 h answer p50/p95/p99 within 2 % of the exact percentiles, for the agent and the user, from the
 * fine bins the stream consumer counts into the day's duration item; a deletion withdraws its bin. A day
 * counted before the bins existed (coarse buckets only) is answered from its buckets and marked `coarse`,
 * and so is a period that holds it, also once one of its old sessions is deleted.
 */
import { PutCommand, QueryCommand, UpdateCommand } from "@aws-sdk/lib-dynamodb";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DURATION_RELATIVE_ACCURACY, durationBin, durationBinAttribute } from "../../functions/domain/duration-bins.js";
import { bucketAttribute, dayOf, durationBucket } from "../../functions/domain/rollup.js";
import { documentClient, tableName } from "../../functions/store/table/dynamo-client.js";
import { rollupDayKey, rollupDurationsKey, rollupPartition, tenant } from "../../functions/store/table/keys.js";
import type { LocalApi } from "../../local/http-adapter.js";
import { bruteForceStats, comparable } from "../support/brute-force-stats.js";
import { exactPercentile, seededRandom } from "../support/duration-samples.js";
import {
  call,
  createTestKey,
  createTestSession,
  settleCounts,
  startTestApi,
  type TestKey,
} from "../support/fixtures.js";

const ALL_SCOPES = ["sessions:write", "events:write", "read", "delete"] as const;
const TOLERANCE = DURATION_RELATIVE_ACCURACY + 5e-4;

let api: LocalApi;

beforeAll(async () => {
  api = await startTestApi();
});
afterAll(() => api.close());

interface Durations {
  p50: number | null;
  p95: number | null;
  p99: number | null;
  mean: number | null;
  precision: string;
}

/** Sessions of `agentName`/`userId` ended with `durations`, all at once; their ids in order. */
async function endedSessions(owner: TestKey, agentName: string, userId: string, durations: readonly number[]) {
  return Promise.all(
    durations.map(async (durationMs, index) => {
      const id = await createTestSession(api, owner.key, { name: `run ${index}`, agentName, userId });
      const ended = await call(api, "PATCH", `/api/sdk/sessions/${id}`, {
        key: owner.key,
        body: { status: "completed", success: true, durationMs },
      });
      expect(ended.status).toBe(200);
      return id;
    }),
  );
}

async function durationsOf(owner: TestKey, path: string): Promise<{ totals: Durations; days: Durations[] }> {
  const response = await call(api, "GET", path, { key: owner.key });
  expect(response.status, response.text.slice(0, 200)).toBe(200);
  const body = response.body as { totals: { durationMs: Durations }; days: { durationMs: Durations }[] };
  return { totals: body.totals.durationMs, days: body.days.map((day) => day.durationMs) };
}

function expectWithin(durations: Durations, exact: readonly number[]) {
  for (const [name, fraction] of [
    ["p50", 0.5],
    ["p95", 0.95],
    ["p99", 0.99],
  ] as const) {
    const truth = exactPercentile(exact, fraction);
    const answer = durations[name] ?? Number.NaN;
    expect(Math.abs(answer - truth) / truth, `${name}: ${answer} for exact ${truth}`).toBeLessThanOrEqual(TOLERANCE);
  }
}

async function partitionItems(partition: string): Promise<Record<string, unknown>[]> {
  const page = await documentClient.send(
    new QueryCommand({
      TableName: tableName,
      KeyConditionExpression: "PK = :pk",
      ExpressionAttributeValues: { ":pk": partition },
      ConsistentRead: true,
    }),
  );
  return page.Items ?? [];
}

describe("duration percentiles", () => {
  it("are within 2 % of the exact p50/p95/p99 for the agent and the user; a deletion withdraws its bin", async () => {
    // Prepare: 60 sessions, log-uniform over 1 ms – 1 h (whole milliseconds, as clients send them).
    const owner = await createTestKey({ scopes: ALL_SCOPES });
    const random = seededRandom(25);
    const durations = Array.from({ length: 60 }, () =>
      Math.max(1, Math.round(Math.exp(random() * Math.log(3_600_000)))),
    );
    const ids = await endedSessions(owner, "timed-agent", "timed-user", durations);
    await settleCounts();

    // Act
    const agent = await durationsOf(owner, "/api/sdk/agents/timed-agent/stats");
    const user = await durationsOf(owner, "/api/sdk/users/timed-user/stats");

    // Assess: numbers, fine, within 2 %; the mean exact; the day item small (bins in their own item).
    for (const answer of [agent.totals, user.totals, ...agent.days]) {
      expect(answer.precision).toBe("fine");
      expectWithin(answer, durations);
    }
    const mean = durations.reduce((sum, duration) => sum + duration, 0) / durations.length;
    expect(agent.totals.mean).toBeCloseTo(mean, 6);
    const partition = rollupPartition(tenant(owner.orgId, "live"), "AGENT", "timed-agent");
    const items = await partitionItems(partition);
    const today = dayOf(new Date().toISOString());
    const dayItem = items.find((item) => item.SK === rollupDayKey(partition, today).SK);
    const binItem = items.find((item) => item.SK === rollupDurationsKey(partition, today).SK);
    expect(Object.keys(dayItem ?? {}).filter((name) => name.startsWith("b"))).toEqual([]);
    expect(binItem).toMatchObject({ rollupKind: "durations", day: today });
    const binned = Object.entries(binItem ?? {}).filter(([name]) => /^b\d+$/.test(name));
    expect(binned.reduce((sum, [, count]) => sum + Number(count), 0)).toBe(60);

    // Act: delete the longest session.
    const longest = durations.indexOf(Math.max(...durations));
    const deleted = await call(api, "DELETE", `/api/sdk/sessions/${ids[longest]}`, { key: owner.key });
    expect(deleted.status).toBe(204);
    const kept = durations.filter((_, index) => index !== longest);

    // Assess: its bin withdrawn, the rest still fine and within 2 %.
    const after = await durationsOf(owner, "/api/sdk/agents/timed-agent/stats");
    expect(after.totals.precision).toBe("fine");
    expectWithin(after.totals, kept);
    const binAfter = (await partitionItems(partition)).find(
      (item) => item.SK === rollupDurationsKey(partition, today).SK,
    );
    const longestBin = durationBinAttribute(durationBin(Math.max(...durations)));
    expect(Number(binAfter?.[longestBin] ?? 0)).toBe(Number(binItem?.[longestBin]) - 1);
  });

  it("answer a day counted before the fine bins from its coarse buckets, marked coarse, and fine days finely", async () => {
    // Prepare: today's sessions counted with bins, and yesterday's day item as counted before the bins existed.
    const owner = await createTestKey({ scopes: ALL_SCOPES });
    const durations = [800, 2_000, 3_000, 9_000, 45_000];
    await endedSessions(owner, "migrated-agent", "migrated-user", durations);
    await settleCounts();
    const partition = rollupPartition(tenant(owner.orgId, "live"), "AGENT", "migrated-agent");
    const today = dayOf(new Date().toISOString());
    const yesterday = dayOf(new Date(Date.now() - 86_400_000).toISOString());
    const old = [12_000, 14_000, 700_000];
    const coarse: Record<string, number> = {};
    for (const duration of old) {
      const name = bucketAttribute(durationBucket(duration));
      coarse[name] = (coarse[name] ?? 0) + 1;
    }
    await documentClient.send(
      new PutCommand({
        TableName: tableName,
        Item: {
          ...rollupDayKey(partition, yesterday),
          entity: "rollup",
          rollupKind: "day",
          day: yesterday,
          ttl: Math.floor(Date.now() / 1000) + 86_400,
          sessions: 3,
          completed: 3,
          durationCount: 3,
          durationSum: 726_000,
          ...coarse,
        },
      }),
    );

    // Act
    const both = await durationsOf(owner, `/api/sdk/agents/migrated-agent/stats?from=${yesterday}&to=${today}`);
    const todayOnly = await durationsOf(owner, `/api/sdk/agents/migrated-agent/stats?from=${today}&to=${today}`);

    // Assess: the old day and the period holding it as coarse upper bounds (30 s, 30 s, 30 min… of the
    // eight durations: p50 = 9 s → ≤ 10 s), marked; today fine.
    expect(both.days.map((day) => day.precision)).toEqual(["coarse", "fine"]);
    expect(both.days[0]).toEqual({ p50: 30_000, p95: 1_800_000, p99: 1_800_000, mean: 242_000, precision: "coarse" });
    expect(both.totals).toMatchObject({ p50: 10_000, p95: 1_800_000, p99: 1_800_000, precision: "coarse" });
    expect(todayOnly.totals.precision).toBe("fine");
    expectWithin(todayOnly.totals, durations);
  });

  it("stay coarse and exact when a session counted before the fine bins is deleted from its day", async () => {
    // Prepare: four sessions; the first as if counted before the bins existed (its bin taken back out).
    const owner = await createTestKey({ scopes: ALL_SCOPES });
    const durations = [1_500, 4_000, 20_000, 90_000];
    const ids = await endedSessions(owner, "old-session-agent", "old-session-user", durations);
    await settleCounts();
    const partition = rollupPartition(tenant(owner.orgId, "live"), "AGENT", "old-session-agent");
    const today = dayOf(new Date().toISOString());
    const bin = durationBinAttribute(durationBin(durations[0] ?? 0));
    await documentClient.send(
      new UpdateCommand({
        TableName: tableName,
        Key: rollupDurationsKey(partition, today),
        UpdateExpression: "ADD #bin :minusOne",
        ExpressionAttributeNames: { "#bin": bin },
        ExpressionAttributeValues: { ":minusOne": -1 },
      }),
    );
    expect((await durationsOf(owner, "/api/sdk/agents/old-session-agent/stats")).totals.precision).toBe("coarse");

    // Act: delete that old session (its withdrawal takes it out of the coarse bucket and the bins alike).
    const deleted = await call(api, "DELETE", `/api/sdk/sessions/${ids[0]}`, { key: owner.key });
    expect(deleted.status).toBe(204);

    // Assess: still coarse (the day holds an old count), and exactly the coarse answer for the three kept.
    const after = await durationsOf(owner, "/api/sdk/agents/old-session-agent/stats");
    expect(after.totals).toEqual({ p50: 30_000, p95: 120_000, p99: 120_000, mean: 38_000, precision: "coarse" });
  });
});

describe("the stats of sessions with durations", () => {
  it("equal a brute-force recount of the stored sessions (percentiles as their fine bin reads)", async () => {
    const owner = await createTestKey({ scopes: ALL_SCOPES });
    const durations = [0, 1, 37, 512, 6_400, 6_401, 75_000, 3_599_999];
    await endedSessions(owner, "recount-agent", "recount-user", durations);
    await settleCounts();
    const stats = await call(api, "GET", "/api/sdk/agents/recount-agent/stats", { key: owner.key });
    const sessions = durations.map((durationMs) => ({
      agentName: "recount-agent",
      createdAt: new Date().toISOString(),
      status: "completed",
      success: true,
      durationMs,
    }));
    expect(comparable(stats.body as never).totals).toEqual(bruteForceStats(sessions, [], () => true).totals);
  });
});
