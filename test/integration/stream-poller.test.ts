/**
 * The local poller (local/stream-poller.ts) on a table of its own in the run's
 * DynamoDB Local, so the test alone writes to its stream: a batch the consumer
 * fails (a batchItemFailure) or dies on (throws) is delivered again from the
 * failed record — also when it is the very first record a poller started
 * "now" reads, before it has accepted anything.
 */
import { randomUUID } from "node:crypto";
import { DeleteTableCommand, PutItemCommand } from "@aws-sdk/client-dynamodb";
import { afterAll, describe, expect, inject, it } from "vitest";
import type { StreamBatchEvent, StreamBatchResponse } from "../../functions/stream/stream-consumer.js";
import { createLocalDynamoClient } from "../../local/dynamo-endpoint.js";
import { type StreamPoller, startStreamPoller } from "../../local/stream-poller.js";
import { ensureTable } from "../../local/table-setup.js";

const client = createLocalDynamoClient(inject("dynamodbEndpoint"), inject("dynamodbCredentials"));
const tables: string[] = [];
const pollers: StreamPoller[] = [];

afterAll(async () => {
  await Promise.allSettled(pollers.map((poller) => poller.stop()));
  for (const table of tables) await client.send(new DeleteTableCommand({ TableName: table }));
  client.destroy();
});

async function ownTable(): Promise<string> {
  const name = `ats-poller-${randomUUID().slice(0, 8)}`;
  await ensureTable(client, name);
  tables.push(name);
  return name;
}

async function put(table: string, ids: readonly string[]): Promise<void> {
  for (const id of ids) {
    await client.send(new PutItemCommand({ TableName: table, Item: { PK: { S: `ITEM#${id}` }, SK: { S: "ITEM" } } }));
  }
}

function idsOf(event: StreamBatchEvent): string[] {
  return event.Records.map((record) => String(record.dynamodb?.Keys?.PK?.S).slice("ITEM#".length));
}

async function poller(
  table: string,
  consume: (event: StreamBatchEvent, call: number) => Promise<StreamBatchResponse>,
): Promise<StreamPoller> {
  let calls = 0;
  const started = await startStreamPoller(client, {
    endpoint: inject("dynamodbEndpoint"),
    credentials: inject("dynamodbCredentials"),
    tableName: table,
    startAt: "now",
    intervalMs: 0,
    consume: (event) => consume(event, ++calls),
  });
  pollers.push(started);
  return started;
}

const accepted: StreamBatchResponse = { state: {}, batchItemFailures: [] };

describe("the local stream poller delivers a failed record again", () => {
  it("a batchItemFailure at the very first record it reads", async () => {
    const table = await ownTable();
    const delivered: string[][] = [];
    const started = await poller(table, async (event, call) => {
      delivered.push(idsOf(event));
      if (call > 1) return accepted;
      return { state: {}, batchItemFailures: [{ itemIdentifier: String(event.Records[0]?.dynamodb?.SequenceNumber) }] };
    });
    await put(table, ["a", "b", "c"]);

    await started.drain(); // ends on the failure: nothing was accepted
    await started.drain(); // the next poll

    expect(delivered).toEqual([
      ["a", "b", "c"],
      ["a", "b", "c"],
    ]);
  });

  it("a batchItemFailure at a middle record", async () => {
    const table = await ownTable();
    const delivered: string[][] = [];
    const started = await poller(table, async (event, call) => {
      delivered.push(idsOf(event));
      if (call > 1) return accepted;
      return { state: {}, batchItemFailures: [{ itemIdentifier: String(event.Records[1]?.dynamodb?.SequenceNumber) }] };
    });
    await put(table, ["a", "b", "c"]);

    await started.drain();

    expect(delivered).toEqual([
      ["a", "b", "c"],
      ["b", "c"],
    ]);
  });

  it("a consumer that dies (throws) on its first batch gets the same records on the next poll", async () => {
    const table = await ownTable();
    const delivered: string[][] = [];
    const started = await poller(table, async (event, call) => {
      delivered.push(idsOf(event));
      if (call === 1) throw new Error("the consumer died");
      return accepted;
    });
    await put(table, ["a", "b"]);

    await expect(started.drain()).rejects.toThrow("the consumer died");
    await put(table, ["c"]);
    await started.drain();

    expect(delivered[0]).toEqual(["a", "b"]);
    expect(delivered.slice(1).flat()).toEqual(["a", "b", "c"]);
  });
});
