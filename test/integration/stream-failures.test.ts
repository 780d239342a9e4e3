/**
 * Issue 14: the consumer's own failures are visible locally, and a failure
 * loses nothing. When a session cannot be counted the handler logs "stream
 * consumer could not count a session's records; they will be delivered
 * again" with the sessionId and shardId, answers a batchItemFailure at that
 * session's first record of the batch, the poller reads the shard again from
 * it, and once the fault is gone the redelivery counts exactly. Each test owns
 * a `solo-…` organisation and its own poller over the real handler.
 */
import { ProvisionedThroughputExceededException } from "@aws-sdk/client-dynamodb";
import { UpdateCommand } from "@aws-sdk/lib-dynamodb";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { documentClient, tableName } from "../../functions/store/table/dynamo-client.js";
import { sessionKey } from "../../functions/store/table/keys.js";
import type { StreamBatchResponse } from "../../functions/stream/stream-consumer.js";
import type { LocalApi } from "../../local/http-adapter.js";
import { call, createTestSession, startTestApi, type TestKey } from "../support/fixtures.js";
import { expectExactDerivedData, storedRecord } from "../support/stream-recount.js";
import {
  apiGet,
  createSoloKey,
  isCountingWrite,
  runTable,
  type SoloConsumer,
  startSoloConsumer,
} from "../support/stream-solo.js";
import { workloadEvent } from "../support/stream-workload.js";

const FAILURE_LINE = "stream consumer could not count a session's records; they will be delivered again";

let api: LocalApi;
const consumers: SoloConsumer[] = [];

beforeAll(async () => {
  api = await startTestApi();
});
afterEach(() => {
  vi.restoreAllMocks();
});
afterAll(async () => {
  await Promise.allSettled(consumers.map((consumer) => consumer.stop()));
  await api.close();
});

/** The solo consumer of `owner`, keeping every answer of the real handler. */
async function answeringConsumer(owner: TestKey): Promise<{ consumer: SoloConsumer; answers: StreamBatchResponse[] }> {
  const answers: StreamBatchResponse[] = [];
  const consumer = await startSoloConsumer(owner.orgId, {
    startAt: "now",
    wrapper: async (event, _, real) => {
      const answer = await real(event);
      answers.push(answer);
      return answer;
    },
  });
  consumers.push(consumer);
  return { consumer, answers };
}

/** The structured log lines the consumer printed through console.error from now on. */
function captureErrorLines(): Record<string, unknown>[] {
  const lines: Record<string, unknown>[] = [];
  const original = console.error.bind(console);
  vi.spyOn(console, "error").mockImplementation((...args: unknown[]) => {
    for (const arg of args) {
      try {
        lines.push(JSON.parse(String(arg)) as Record<string, unknown>);
      } catch {
        original(...args);
      }
    }
  });
  return lines;
}

/** Events alternating between the sessions, one at a time (a known order in the stream). */
async function alternate(owner: TestKey, sessionIds: readonly string[], rounds: number): Promise<void> {
  for (let round = 0; round < rounds; round++) {
    for (const sessionId of sessionIds) {
      const response = await call(api, "POST", "/api/sdk/events", {
        key: owner.key,
        body: workloadEvent(sessionId, round),
      });
      expect(response.status).toBe(201);
    }
  }
}

function sequenceOfFirstRecord(consumer: SoloConsumer, sessionId: string, delivery = 0): string | undefined {
  return consumer.deliveries[delivery]?.Records.find(
    (record) => record.dynamodb?.Keys?.PK?.S === `SESSION#${sessionId}`,
  )?.dynamodb?.SequenceNumber;
}

/**
 * The delivery holding the session's first records: the poller reads the shared table's stream in batches of 100
 * records of every test file, so the organisation's records may span several deliveries (the session need not be in
 * the first). Checks that no delivery before it failed, that it failed at the session's first record, and that the
 * next delivery of its shard starts there again. Resolves with its shard.
 */
function expectFailedAtFirstRecordOf(consumer: SoloConsumer, answers: StreamBatchResponse[], sessionId: string) {
  const at = consumer.deliveries.findIndex((delivery) =>
    delivery.Records.some((record) => record.dynamodb?.Keys?.PK?.S === `SESSION#${sessionId}`),
  );
  expect(at, "a delivery holds the session's records").toBeGreaterThanOrEqual(0);
  expect(answers.slice(0, at).flatMap((answer) => answer.batchItemFailures)).toEqual([]);
  const first = sequenceOfFirstRecord(consumer, sessionId, at);
  expect(answers[at]?.batchItemFailures).toEqual([{ itemIdentifier: first }]);
  const shardId = consumer.deliveries[at]?.shardId;
  const again = consumer.deliveries.slice(at + 1).find((delivery) => delivery.shardId === shardId);
  expect(again?.Records[0]?.dynamodb?.SequenceNumber, "read again from the failed record").toBe(first);
  return shardId;
}

/** `count` events of a session of another organisation, in one batch request. */
async function writeOtherOrganisationsEvents(count: number): Promise<void> {
  const other = await createSoloKey();
  const sessionId = await createTestSession(api, other.key, { agentName: "filler", userId: "filler" });
  const events = Array.from({ length: count }, (_, index) => workloadEvent(sessionId, index));
  const response = await call(api, "POST", "/api/sdk/events/batch", { key: other.key, body: { events } });
  expect(response.status).toBe(200);
}

describe("a session that cannot be counted", () => {
  it("an uncountable session item: logged with sessionId and shardId, failed at its first record, counted once repaired", async () => {
    const owner = await createSoloKey();
    const { consumer, answers } = await answeringConsumer(owner);
    const healthy = await createTestSession(api, owner.key, { agentName: "fail-agent", userId: "f-1" });
    // Another organisation's 100 events between the two sessions: the broken session's records come in a later
    // delivery than the healthy one's, whatever else the suite writes meanwhile (the case a busy stream makes).
    await writeOtherOrganisationsEvents(100);
    const broken = await createTestSession(api, owner.key, { agentName: "fail-agent", userId: "f-2" });
    // Its tool counters are no map: the counting update's `toolCalls.<tool> = …` is refused by DynamoDB.
    await documentClient.send(
      new UpdateCommand({
        TableName: tableName,
        Key: sessionKey(broken),
        UpdateExpression: "SET toolCalls = :text",
        ExpressionAttributeValues: { ":text": "not a map" },
      }),
    );
    await alternate(owner, [healthy, broken], 6);
    const lines = captureErrorLines();

    await consumer.drain();

    const shardId = expectFailedAtFirstRecordOf(consumer, answers, broken);
    expect(consumer.deliveries[0]?.Records.some((record) => record.dynamodb?.Keys?.PK?.S === `SESSION#${broken}`)).toBe(
      false,
    );
    const failure = lines.find((line) => line.message === FAILURE_LINE);
    expect(failure, "the failure log line").toMatchObject({ level: "ERROR", sessionId: broken, shardId });
    expect(lines.filter((line) => line.message === FAILURE_LINE).every((line) => line.sessionId === broken)).toBe(true);
    const { sessions } = await storedRecord(runTable, [healthy, broken]);
    expect(sessions.map((session) => [session.id, session.eventCount ?? 0])).toEqual(
      expect.arrayContaining([
        [healthy, 6],
        [broken, 0],
      ]),
    );

    await documentClient.send(
      new UpdateCommand({
        TableName: tableName,
        Key: sessionKey(broken),
        UpdateExpression: "SET toolCalls = :none",
        ExpressionAttributeValues: { ":none": {} },
      }),
    );
    await consumer.drain();
    await consumer.drain(); // a redelivery of what was counted already changes nothing

    const recount = await expectExactDerivedData({
      reader: runTable,
      orgId: owner.orgId,
      sessionIds: [healthy, broken],
      get: apiGet(api, owner.key),
    });
    expect(recount.events).toHaveLength(12);
  });

  it("a DynamoDB error (throttling) on one session's counting write: logged, failed at its first record, delivered again once the fault is gone", async () => {
    const owner = await createSoloKey();
    const { consumer, answers } = await answeringConsumer(owner);
    const throttled = await createTestSession(api, owner.key, { agentName: "throttle-agent", userId: "t-1" });
    const other = await createTestSession(api, owner.key, { agentName: "throttle-agent", userId: "t-2" });
    await alternate(owner, [throttled, other], 5);
    let faulty = true;
    const send = documentClient.send.bind(documentClient);
    vi.spyOn(documentClient, "send").mockImplementation(((command: { input?: Record<string, unknown> }) => {
      if (faulty && isCountingWrite(command, throttled)) {
        return Promise.reject(
          new ProvisionedThroughputExceededException({ message: "injected throttling", $metadata: {} }),
        );
      }
      return send(command as never);
    }) as never);
    const lines = captureErrorLines();

    await consumer.drain();

    expect(lines.filter((line) => line.message === FAILURE_LINE).map((line) => line.sessionId)).toContain(throttled);
    expectFailedAtFirstRecordOf(consumer, answers, throttled);

    faulty = false;
    await consumer.drain();

    const recount = await expectExactDerivedData({
      reader: runTable,
      orgId: owner.orgId,
      sessionIds: [throttled, other],
      get: apiGet(api, owner.key),
    });
    expect(recount.events).toHaveLength(10);
  });
});
