/**
 * Issue 33, scores on conversations, over HTTP against DynamoDB Local: a score names its session or its conversation
 * (never both, never neither); a conversation's scores are created, replaced by id, listed, shown on its page with
 * totals over its own and its runs' scores, deleted; another tenant's conversation is a 404 with nothing stored; a
 * feedback token cannot score a conversation; they are counted exactly once (equal to a recount); they go with the
 * conversation's last run (deletion, erasure). And the bound on scores per target: exactly LIMITS.scoresPerTarget
 * per session and per conversation, a replacement not counting again, a deletion freeing a place.
 */
import { randomUUID } from "node:crypto";
import { PutCommand, QueryCommand } from "@aws-sdk/lib-dynamodb";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ForbiddenError } from "../../functions/domain/errors.js";
import { newId } from "../../functions/domain/ids.js";
import { LIMITS } from "../../functions/domain/limits.js";
import { SCORE_COUNT_ENTITY } from "../../functions/store/scores/score-count.js";
import { recordScore } from "../../functions/store/scores/score-store.js";
import { documentClient, tableName } from "../../functions/store/table/dynamo-client.js";
import { conversationKey, scoreCountKey, sessionKey } from "../../functions/store/table/keys.js";
import type { LocalApi } from "../../local/http-adapter.js";
import {
  call,
  createTestKey,
  createTestSession,
  deletionWorker,
  startTestApi,
  type TestKey,
} from "../support/fixtures.js";
import { expectExactScoreRollups } from "../support/score-recount.js";
import { principalFor } from "../support/seed.js";

let api: LocalApi;
let owner: TestKey;

const SCOPES = ["sessions:write", "events:write", "scores:write", "read", "delete"] as const;

beforeAll(async () => {
  api = await startTestApi();
  owner = await createTestKey({ scopes: SCOPES });
});
afterAll(() => api.close());

type Item = Record<string, unknown>;

/** Every item of a partition (strongly consistent). */
async function partition(partitionKey: string): Promise<Item[]> {
  const items: Item[] = [];
  let startKey: Item | undefined;
  do {
    const page = await documentClient.send(
      new QueryCommand({
        TableName: tableName,
        KeyConditionExpression: "PK = :pk",
        ExpressionAttributeValues: { ":pk": partitionKey },
        ConsistentRead: true,
        ExclusiveStartKey: startKey,
      }),
    );
    items.push(...((page.Items ?? []) as Item[]));
    startKey = page.LastEvaluatedKey as Item | undefined;
  } while (startKey !== undefined);
  return items;
}

const conversationPartition = (key: TestKey, conversationId: string) =>
  conversationKey(key.orgId, "live", conversationId).PK;

async function scoresIn(partitionKey: string): Promise<Item[]> {
  return (await partition(partitionKey)).filter((item) => String(item.SK).startsWith("SCORE#"));
}

async function scoreCountIn(partitionKey: string): Promise<number | undefined> {
  const count = (await partition(partitionKey)).find((item) => item.SK === "SCORECOUNT");
  return count === undefined ? undefined : Number(count.scoreCount);
}

/** A conversation of `runs` runs (sessions of `agentName`), resolves with its id and its runs' ids. */
async function conversationOf(key: TestKey, agentName: string, runs = 1, userId = "user-1") {
  const conversationId = `chat-${randomUUID()}`;
  const sessions: string[] = [];
  for (let run = 0; run < runs; run++) {
    sessions.push(await createTestSession(api, key.key, { agentName, userId, conversationId }));
  }
  return { conversationId, sessions };
}

async function postScore(key: TestKey, body: Record<string, unknown>) {
  return call(api, "POST", "/api/sdk/scores", { key: key.key, body });
}

describe("scores on a conversation", () => {
  it("are created, replaced by id, listed, shown with the totals of its own and its runs' scores, and deleted", async () => {
    // Prepare
    const agentName = `conv-scores-${randomUUID().slice(0, 8)}`;
    const { conversationId, sessions } = await conversationOf(owner, agentName, 2);
    const id = newId("score");

    // Act
    const created = await postScore(owner, { id, conversationId, name: "resolved", value: false, comment: "no" });
    const replaced = await postScore(owner, { id, conversationId, name: "resolved", value: true });
    const other = await postScore(owner, { conversationId, name: "tone", value: "warm" });
    const runScores = await Promise.all([
      postScore(owner, { sessionId: sessions[0], name: "resolved", value: false }),
      postScore(owner, { sessionId: sessions[1], name: "helpfulness", value: 0.5 }),
      postScore(owner, { sessionId: sessions[1], name: "helpfulness", value: 1 }),
    ]);

    // Assess: the answers
    expect(created.status, created.text).toBe(201);
    expect(created.body).toMatchObject({
      id,
      sessionId: null,
      eventId: null,
      conversationId,
      name: "resolved",
      value: false,
      valueKind: "boolean",
      comment: "no",
      source: "api",
      author: { kind: "apiKey", id: owner.keyId },
    });
    expect(replaced.status, replaced.text).toBe(200);
    expect(replaced.body).toMatchObject({ id, conversationId, value: true, comment: null });
    expect(replaced.body.createdAt).toBe(created.body.createdAt);
    expect(other.status).toBe(201);
    expect(runScores.map((response) => response.status)).toEqual([201, 201, 201]);

    // Stored in the conversation's own partition, with its summary's expiry, counted once in its SCORECOUNT.
    const key = conversationPartition(owner, conversationId);
    const stored = await scoresIn(key);
    expect(stored.map((item) => item.SK).sort()).toEqual([`SCORE#${id}`, `SCORE#${other.body.id}`].sort());
    const summary = (await partition(key)).find((item) => item.SK === "CONVERSATION");
    for (const item of stored) {
      expect(item).toMatchObject({ conversationId, agentName, orgId: owner.orgId, ttl: summary?.ttl });
      expect(item.sessionId).toBeUndefined();
    }
    expect(await scoreCountIn(key)).toBe(2);

    // Listed, paged
    const firstPage = await call(api, "GET", `/api/sdk/conversations/${conversationId}/scores?limit=1`, {
      key: owner.key,
    });
    expect(firstPage.status).toBe(200);
    expect(firstPage.body.items).toHaveLength(1);
    const secondPage = await call(
      api,
      "GET",
      `/api/sdk/conversations/${conversationId}/scores?limit=1&cursor=${encodeURIComponent(String(firstPage.body.nextCursor))}`,
      { key: owner.key },
    );
    expect(secondPage.status).toBe(200);
    const listed = [...(firstPage.body.items as Item[]), ...(secondPage.body.items as Item[])].map((item) => item.id);
    expect(listed.sort()).toEqual([id, other.body.id].sort());

    // Its page: its own scores, and totals per name over its own and its runs' scores
    const page = await call(api, "GET", `/api/sdk/conversations/${conversationId}`, { key: owner.key });
    expect(page.status).toBe(200);
    expect((page.body.scores as Item[]).map((item) => item.id).sort()).toEqual([id, other.body.id].sort());
    expect(page.body.scoresTruncated).toBe(false);
    const totals = page.body.totals as { scores: Item[]; scoresComplete: boolean };
    expect(totals.scoresComplete).toBe(true);
    expect(totals.scores).toEqual([
      {
        name: "helpfulness",
        count: 2,
        numeric: expect.objectContaining({ count: 2, mean: 0.75 }),
        boolean: null,
        labels: [],
      },
      {
        name: "resolved",
        count: 2,
        numeric: null,
        boolean: { count: 2, trueCount: 1, trueShare: 0.5 },
        labels: [],
      },
      { name: "tone", count: 1, numeric: null, boolean: null, labels: [{ label: "warm", count: 1 }] },
    ]);

    // Deleted: 204, then 404; its place in the count freed
    const deleted = await call(api, "DELETE", `/api/sdk/conversations/${conversationId}/scores/${id}`, {
      key: owner.key,
    });
    expect(deleted.status).toBe(204);
    const again = await call(api, "DELETE", `/api/sdk/conversations/${conversationId}/scores/${id}`, {
      key: owner.key,
    });
    expect(again.status).toBe(404);
    expect(again.body.message).toBe(`Score ${id} not found in conversation ${conversationId}`);
    expect((await scoresIn(key)).map((item) => item.SK)).toEqual([`SCORE#${other.body.id}`]);
    expect(await scoreCountIn(key)).toBe(1);
  });

  it("of another tenant (organisation or environment) is a 404 on every route, with nothing stored", async () => {
    // Prepare
    const { conversationId } = await conversationOf(owner, "conv-tenancy");
    const mine = await postScore(owner, { conversationId, name: "resolved", value: true });
    expect(mine.status).toBe(201);
    const stranger = await createTestKey({ scopes: SCOPES });
    const testEnvironment = await createTestKey({ orgId: owner.orgId, scopes: SCOPES, environment: "test" });

    for (const other of [stranger, testEnvironment]) {
      // Act
      const written = await postScore(other, { conversationId, name: "resolved", value: false });
      const listed = await call(api, "GET", `/api/sdk/conversations/${conversationId}/scores`, { key: other.key });
      const removed = await call(
        api,
        "DELETE",
        `/api/sdk/conversations/${conversationId}/scores/${String(mine.body.id)}`,
        { key: other.key },
      );

      // Assess
      expect(written.status).toBe(404);
      expect(written.body.message).toBe(`Conversation ${conversationId} not found`);
      expect(listed.status).toBe(404);
      expect(removed.status).toBe(404);
      const theirs = conversationKey(other.orgId, other === stranger ? "live" : "test", conversationId).PK;
      expect(await partition(theirs)).toEqual([]);
    }
    const key = conversationPartition(owner, conversationId);
    expect((await scoresIn(key)).map((item) => item.id)).toEqual([mine.body.id]);
    expect(await scoreCountIn(key)).toBe(1);
  });

  it("is a 404 for an unknown conversation, storing nothing", async () => {
    const conversationId = `never-${randomUUID()}`;
    const response = await postScore(owner, { conversationId, name: "resolved", value: true });
    expect(response.status).toBe(404);
    expect(response.body.message).toBe(`Conversation ${conversationId} not found`);
    expect(await partition(conversationPartition(owner, conversationId))).toEqual([]);
  });

  it.each([
    [
      "both targets",
      { sessionId: "SESSION", conversationId: "CONVERSATION" },
      "conversationId",
      "Send either sessionId or conversationId, not both: a score has one target",
    ],
    ["neither target", {}, "sessionId", "Required: the score's target, sessionId (or conversationId)"],
    [
      "an event with a conversation",
      { conversationId: "CONVERSATION", eventId: "evt_01ARZ3NDEKTSV4RRFFQ69G5FAV" },
      "eventId",
      "Only with sessionId: a conversation's score has no event",
    ],
  ])(
    "refuses %s with a 400 naming the field, storing nothing (single and batch)",
    async (_case, target, path, message) => {
      // Prepare
      const { conversationId, sessions } = await conversationOf(owner, "conv-bad-target");
      const sessionId = sessions[0] as string;
      const body = JSON.parse(
        JSON.stringify({ name: "resolved", value: true, ...target })
          .replace('"SESSION"', JSON.stringify(sessionId))
          .replace('"CONVERSATION"', JSON.stringify(conversationId)),
      ) as Record<string, unknown>;

      // Act
      const single = await postScore(owner, body);
      const batch = await call(api, "POST", "/api/sdk/scores/batch", { key: owner.key, body: { scores: [body] } });

      // Assess
      expect(single.status).toBe(400);
      expect(single.body.issues).toContainEqual({ path, message });
      expect(batch.status).toBe(200);
      const [result] = batch.body.results as { status: number; error: { issues: unknown[] } }[];
      expect(result?.status).toBe(400);
      expect(result?.error.issues).toContainEqual({ path, message });
      expect(await scoresIn(conversationPartition(owner, conversationId))).toEqual([]);
      expect(await scoresIn(sessionKey(sessionId).PK)).toEqual([]);
    },
  );

  it("cannot be given with a feedback token: 403 from the store, and the public route takes no conversationId", async () => {
    // Prepare
    const { conversationId, sessions } = await conversationOf(owner, "conv-feedback");
    const tokenPrincipal = { ...principalFor(owner.orgId), feedbackTokenId: "fbt_01ARZ3NDEKTSV4RRFFQ69G5FAV" };
    const minted = await call(api, "POST", "/api/sdk/feedback-tokens", {
      key: owner.key,
      body: { sessionId: sessions[0] },
    });
    expect(minted.status).toBe(201);

    // Act
    const direct = await recordScore(
      tokenPrincipal,
      { conversationId, name: "thumbs", value: false },
      newId("score"),
    ).then(
      () => undefined,
      (error: unknown) => error,
    );
    const posted = await call(api, "POST", "/api/public/feedback", {
      key: String(minted.body.token),
      body: { name: "thumbs", value: false, conversationId },
    });

    // Assess
    expect(direct).toBeInstanceOf(ForbiddenError);
    expect((direct as ForbiddenError).message).toBe(
      "A feedback token is bound to one session: it cannot score a conversation",
    );
    expect(posted.status).toBe(400);
    expect(posted.body.message).toMatch(/conversationId/);
    expect(await scoresIn(conversationPartition(owner, conversationId))).toEqual([]);
    expect(await scoresIn(sessionKey(sessions[0] as string).PK)).toEqual([]);
  });
});

describe("a conversation's scores counted and removed", () => {
  it("are counted exactly once under its agent and their day, equal to a recount, through edits and deletions", async () => {
    // Prepare
    const key = await createTestKey({ scopes: SCOPES });
    const agentName = `conv-count-${randomUUID().slice(0, 8)}`;
    const [first, second] = [await conversationOf(key, agentName, 2), await conversationOf(key, agentName)];
    const ids = [newId("score"), newId("score"), newId("score"), newId("score")];
    const values: [string, string, unknown][] = [
      [first.conversationId, "resolved", true],
      [first.conversationId, "__proto__", "constructor"],
      [second.conversationId, "resolved", false],
      [second.conversationId, "helpfulness", 0.25],
    ];

    // Act: written, counted (the read settles the consumer), then edited, retyped, deleted, added to
    for (const [index, [conversationId, name, value]] of values.entries()) {
      expect((await postScore(key, { id: ids[index], conversationId, name, value })).status).toBe(201);
    }
    expect((await call(api, "GET", `/api/sdk/agents/${agentName}/stats`, { key: key.key })).status).toBe(200);
    await Promise.all([
      postScore(key, { id: ids[0], conversationId: first.conversationId, name: "resolved", value: false }),
      postScore(key, { id: ids[3], conversationId: second.conversationId, name: "helpfulness", value: "high" }),
      call(api, "DELETE", `/api/sdk/conversations/${first.conversationId}/scores/${ids[1]}`, { key: key.key }),
      postScore(key, { conversationId: second.conversationId, name: "helpfulness", value: 1 }),
      postScore(key, { sessionId: first.sessions[0], name: "helpfulness", value: 0.5 }),
    ]);
    const stats = await call(api, "GET", `/api/sdk/agents/${agentName}/stats`, { key: key.key });

    // Assess
    const recount = await expectExactScoreRollups({
      orgId: key.orgId,
      agentNames: [agentName],
      sessionIds: [...first.sessions, ...second.sessions],
      conversationPartitions: [first.conversationId, second.conversationId].map((id) => conversationPartition(key, id)),
    });
    const today = new Date().toISOString().slice(0, 10);
    expect([...recount.keys()].sort()).toEqual(
      ["helpfulness", "resolved"].map((name) => `${agentName}\u0000${today}\u0000${name}`),
    );
    const shown = Object.fromEntries((stats.body.scores as { name: string; count: number }[]).map((s) => [s.name, s]));
    expect(shown.resolved?.count).toBe(2);
    expect(shown.helpfulness?.count).toBe(3);
  });

  it("go with its last run's deletion (withdrawn from the rollups), and not before", async () => {
    // Prepare
    const key = await createTestKey({ scopes: SCOPES });
    const agentName = `conv-delete-${randomUUID().slice(0, 8)}`;
    const { conversationId, sessions } = await conversationOf(key, agentName, 2);
    for (const value of [true, false, true]) {
      expect((await postScore(key, { conversationId, name: "resolved", value })).status).toBe(201);
    }
    expect((await postScore(key, { sessionId: sessions[0], name: "resolved", value: true })).status).toBe(201);
    const counted = await call(api, "GET", `/api/sdk/agents/${agentName}/stats`, { key: key.key });
    expect((counted.body.scores as { count: number }[])[0]?.count).toBe(4);
    const partitionKey = conversationPartition(key, conversationId);

    // Act: the first run goes (scores stay), then the last
    expect((await call(api, "DELETE", `/api/sdk/sessions/${sessions[0]}`, { key: key.key })).status).toBe(204);
    const afterFirst = await scoresIn(partitionKey);
    expect((await call(api, "DELETE", `/api/sdk/sessions/${sessions[1]}`, { key: key.key })).status).toBe(204);

    // Assess
    expect(afterFirst).toHaveLength(3);
    expect(await scoresIn(partitionKey)).toEqual([]);
    expect(await scoreCountIn(partitionKey)).toBeUndefined();
    expect(await scoreCountIn(sessionKey(sessions[0] as string).PK)).toBeUndefined();
    const gone = await postScore(key, { conversationId, name: "resolved", value: true });
    expect(gone.status).toBe(404);
    await expectExactScoreRollups({
      orgId: key.orgId,
      agentNames: [agentName],
      sessionIds: sessions,
      conversationPartitions: [partitionKey],
    });
    const stats = await call(api, "GET", `/api/sdk/agents/${agentName}/stats`, { key: key.key });
    expect(stats.body.scores).toEqual([]);
  });

  it("go with a user's erasure of their conversations", async () => {
    // Prepare
    const key = await createTestKey({ scopes: SCOPES });
    const agentName = `conv-erase-${randomUUID().slice(0, 8)}`;
    const userId = `leaving-${randomUUID().slice(0, 8)}`;
    const erased = await conversationOf(key, agentName, 2, userId);
    const kept = await conversationOf(key, agentName, 1, "staying");
    for (const conversationId of [erased.conversationId, kept.conversationId]) {
      expect((await postScore(key, { conversationId, name: "resolved", value: "yes" })).status).toBe(201);
    }

    // Act
    const accepted = await call(api, "DELETE", `/api/sdk/users/${userId}`, { key: key.key });
    await deletionWorker?.idle();

    // Assess
    expect(accepted.status).toBe(202);
    expect(await scoresIn(conversationPartition(key, erased.conversationId))).toEqual([]);
    expect(await scoreCountIn(conversationPartition(key, erased.conversationId))).toBeUndefined();
    expect(await scoresIn(conversationPartition(key, kept.conversationId))).toHaveLength(1);
    await expectExactScoreRollups({
      orgId: key.orgId,
      agentNames: [agentName],
      sessionIds: [...erased.sessions, ...kept.sessions],
      conversationPartitions: [erased.conversationId, kept.conversationId].map((id) => conversationPartition(key, id)),
    });
  });
});

describe(`at most ${LIMITS.scoresPerTarget} scores per target`, () => {
  /** Writes `count` new scores to the target through the batch route; resolves with their ids. */
  async function fill(key: TestKey, target: Record<string, unknown>, count: number): Promise<string[]> {
    const ids: string[] = [];
    for (let start = 0; start < count; start += LIMITS.batchScores) {
      const scores = Array.from({ length: Math.min(LIMITS.batchScores, count - start) }, (_, offset) => ({
        ...target,
        name: "bulk",
        value: start + offset,
      }));
      const response = await call(api, "POST", "/api/sdk/scores/batch", { key: key.key, body: { scores } });
      expect(response.status).toBe(200);
      const results = response.body.results as { status: number; id?: string }[];
      expect(results.filter((result) => result.status !== 201)).toEqual([]);
      ids.push(...results.map((result) => String(result.id)));
    }
    return ids;
  }

  // Each target starts from a count item set to all but its last 20 places, filled through the API (a fill of all
  // 1,000 took 19–28 s per target; the count moves the same way at every place).
  it.each([
    ["session", "Session", LIMITS.scoresPerTarget - 20],
    ["conversation", "Conversation", LIMITS.scoresPerTarget - 20],
  ] as const)(
    "holds exactly the limit on a %s: the next is a 409 naming it, a replacement passes, a deletion frees a place",
    async (kind, label, seeded) => {
      // Prepare
      const key = await createTestKey({ scopes: SCOPES });
      const { conversationId, sessions } = await conversationOf(key, `limit-${kind}`);
      const sessionId = sessions[0] as string;
      const target = kind === "session" ? { sessionId } : { conversationId };
      const targetId = kind === "session" ? sessionId : conversationId;
      const partitionKey = kind === "session" ? sessionKey(sessionId).PK : conversationPartition(key, conversationId);
      if (seeded > 0) {
        await documentClient.send(
          new PutCommand({
            TableName: tableName,
            Item: { ...scoreCountKey(partitionKey), entity: SCORE_COUNT_ENTITY, scoreCount: seeded },
          }),
        );
      }
      const ids = await fill(key, target, LIMITS.scoresPerTarget - seeded);

      // Act
      const over = await postScore(key, { ...target, name: "one more", value: 1 });
      const overInBatch = await call(api, "POST", "/api/sdk/scores/batch", {
        key: key.key,
        body: { scores: [{ ...target, name: "one more", value: 2 }] },
      });
      const replacement = await postScore(key, { ...target, id: ids[0], name: "bulk", value: -1 });
      const deletePath =
        kind === "session"
          ? `/api/sdk/sessions/${sessionId}/scores/${ids[1]}`
          : `/api/sdk/conversations/${conversationId}/scores/${ids[1]}`;
      const deleted = await call(api, "DELETE", deletePath, { key: key.key });
      const freed = await postScore(key, { ...target, name: "one more", value: 3 });
      const overAgain = await postScore(key, { ...target, name: "one more", value: 4 });

      // Assess
      const message = `${label} ${targetId} has ${LIMITS.scoresPerTarget} scores, the most a session or conversation may hold; delete one, or replace one by sending its id`;
      expect(over.status).toBe(409);
      expect(over.body.message).toBe(message);
      expect((overInBatch.body.results as { status: number; error: { message: string } }[])[0]).toMatchObject({
        status: 409,
        error: { message },
      });
      expect(replacement.status).toBe(200);
      expect(deleted.status).toBe(204);
      expect(freed.status).toBe(201);
      expect(overAgain.status).toBe(409);
      const stored = await scoresIn(partitionKey);
      expect(stored).toHaveLength(LIMITS.scoresPerTarget - seeded);
      expect(stored.filter((item) => item.name === "one more").map((item) => item.value)).toEqual([3]);
      expect(await scoreCountIn(partitionKey)).toBe(LIMITS.scoresPerTarget);
    },
    240_000,
  );
});
