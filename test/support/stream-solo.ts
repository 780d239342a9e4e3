/**
 * A test's own stream consumer over its own `solo-…` organisation (the run's
 * shared consumer leaves those alone, test/support/shared-stream-consumer.ts):
 * the poller `npm start` runs (local/stream-poller.ts), driven by `drain()`,
 * handing the organisation's records — and nothing else — to the real
 * consumer (functions/stream/stream-consumer.ts) through a wrapper that may
 * crash, hang, redeliver or answer differently.
 */
import { randomUUID } from "node:crypto";
import type { DynamoDBRecord } from "aws-lambda";
import { inject } from "vitest";
import { documentClient, tableName } from "../../functions/store/table/dynamo-client.js";
import { sessionKey } from "../../functions/store/table/keys.js";
import { handler, type StreamBatchEvent, type StreamBatchResponse } from "../../functions/stream/stream-consumer.js";
import { createLocalDynamoClient } from "../../local/dynamo-endpoint.js";
import type { LocalApi } from "../../local/http-adapter.js";
import { type StreamPoller, startStreamPoller } from "../../local/stream-poller.js";
import { createTestKey, type TestKey } from "./fixtures.js";
import { rememberSecretsIn } from "./secrets-ledger.js";
import type { ApiGet, TableReader } from "./stream-recount.js";

/** The real consumer, as the wrapper gets it. */
export type Consume = (event: StreamBatchEvent) => Promise<StreamBatchResponse>;

/** A consumer wrapper: gets the organisation's records of one batch, its invocation number (1, 2, …) and the real handler. */
export type ConsumeWrapper = (
  event: StreamBatchEvent,
  invocation: number,
  real: Consume,
) => Promise<StreamBatchResponse>;

export interface SoloConsumer extends StreamPoller {
  /** Every batch handed to the wrapper (only the organisation's records), in order. */
  readonly deliveries: StreamBatchEvent[];
}

/** The run's table, read directly. */
export const runTable: TableReader = { client: documentClient, tableName };

/** A new `solo-…` organisation with a key of every scope the stream tests use (and `scores:write` when asked). */
export function createSoloKey(options: { readonly scores?: boolean } = {}): Promise<TestKey> {
  return createTestKey({
    orgId: `solo-${randomUUID().slice(0, 12)}`,
    scopes: [
      "sessions:write",
      "events:write",
      "read",
      "delete",
      ...(options.scores === true ? ["scores:write" as const] : []),
    ],
  });
}

function orgOf(record: DynamoDBRecord): string | undefined {
  return record.dynamodb?.NewImage?.orgId?.S ?? record.dynamodb?.OldImage?.orgId?.S;
}

/**
 * Starts a poller for the organisation's records. `startAt: "now"` must be started before any of its sessions
 * exist; `"oldest"` is a restarted consumer (reads the whole stream again, counting skips what was counted).
 */
export async function startSoloConsumer(
  orgId: string,
  options: { startAt: "now" | "oldest"; wrapper?: ConsumeWrapper },
): Promise<SoloConsumer> {
  const deliveries: StreamBatchEvent[] = [];
  let invocation = 0;
  const wrapper: ConsumeWrapper = options.wrapper ?? ((event, _n, real) => real(event));
  const client = createLocalDynamoClient(inject("dynamodbEndpoint"), inject("dynamodbCredentials"));
  const poller = await startStreamPoller(client, {
    endpoint: inject("dynamodbEndpoint"),
    credentials: inject("dynamodbCredentials"),
    tableName: inject("tableName"),
    startAt: options.startAt,
    intervalMs: 0,
    // Small batches, so that a workload spans several and the faults can hit a batch in the middle.
    batchSize: 100,
    consume: async (event) => {
      const records = event.Records.filter((record) => orgOf(record) === orgId);
      if (records.length === 0) return { state: {}, batchItemFailures: [] };
      const own = { ...event, Records: records };
      deliveries.push(own);
      invocation += 1;
      return wrapper(own, invocation, handler);
    },
  });
  return {
    deliveries,
    drain: () => poller.drain(),
    stop: async () => {
      await poller.stop();
      client.destroy();
    },
  };
}

/** GET on the API without waiting for any consumer (what a client sees now); 200 expected. */
export function apiGet(api: LocalApi, key: string): ApiGet {
  return async (path) => {
    const response = await fetch(`${api.url}${path}`, { headers: { authorization: `Bearer ${key}` } });
    const text = await response.text();
    rememberSecretsIn(text);
    if (response.status !== 200) throw new Error(`GET ${path} answered ${response.status}: ${text.slice(0, 300)}`);
    return JSON.parse(text) as Record<string, unknown>;
  };
}

/** The session ids among a batch's records, in the order of their first record. */
export function sessionsOf(event: StreamBatchEvent): string[] {
  const ids: string[] = [];
  for (const record of event.Records) {
    const pk = record.dynamodb?.Keys?.PK?.S;
    if (pk === undefined || !pk.startsWith("SESSION#")) continue;
    const id = pk.slice("SESSION#".length);
    if (!ids.includes(id)) ids.push(id);
  }
  return ids;
}

/** The batch with only the records of the given sessions. */
export function onlySessions(event: StreamBatchEvent, sessionIds: readonly string[]): StreamBatchEvent {
  return {
    ...event,
    Records: event.Records.filter((record) =>
      sessionIds.some((id) => record.dynamodb?.Keys?.PK?.S === `SESSION#${id}`),
    ),
  };
}

/** The consumer's counting write of a session: an UpdateItem of the session item that advances its count version. */
export function isCountingWrite(command: { input?: Record<string, unknown> }, sessionId: string): boolean {
  const key = command.input?.Key as { PK?: string; SK?: string } | undefined;
  const expression = command.input?.UpdateExpression;
  return (
    key?.PK === sessionKey(sessionId).PK &&
    key.SK === sessionKey(sessionId).SK &&
    typeof expression === "string" &&
    expression.includes("countVersion :one")
  );
}
