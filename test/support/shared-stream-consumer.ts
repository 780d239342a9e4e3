/**
 * The test run's one stream consumer, as a child process of the global setup:
 * the poller `npm start` runs (local/stream-poller.ts) calling the service's
 * consumer module, reading the run's table stream from its oldest record —
 * like the single event source mapping on AWS, so no second consumer that
 * joined mid-stream ever counts a session (a consumer that starts mid-stream
 * could move a session's high-water mark past records it never saw).
 *
 * Records of organisations whose id starts with `solo-` are left alone: a
 * test that must control counting (crash it, redeliver, fail it) owns such an
 * organisation and runs its own consumer over it from before its first write.
 *
 * It serves `POST /drain` on 127.0.0.1 (204 once every record written before
 * the request is counted) and prints `{"drainUrl": …}` as its first line.
 * Configuration: the service environment (DYNAMODB_ENDPOINT, TABLE_NAME, the
 * local credentials), SESSION_EVENTS_FILE for the notifications.
 */
import { createServer } from "node:http";
import type { StreamBatchEvent } from "../../functions/stream/stream-consumer.js";
import { createLocalDynamoClient } from "../../local/dynamo-endpoint.js";
import { startStreamPoller } from "../../local/stream-poller.js";

/** Organisations whose records the shared consumer leaves to their own test's consumer. */
export const SOLO_ORGANISATION_PREFIX = "solo-";

function required(name: string): string {
  const value = process.env[name];
  if (value === undefined || value === "") throw new Error(`${name} is not set`);
  return value;
}

function isSoloRecord(record: StreamBatchEvent["Records"][number]): boolean {
  const orgId = record.dynamodb?.NewImage?.orgId?.S ?? record.dynamodb?.OldImage?.orgId?.S;
  return orgId?.startsWith(SOLO_ORGANISATION_PREFIX) === true;
}

const endpoint = required("DYNAMODB_ENDPOINT");
const credentials = { accessKeyId: required("AWS_ACCESS_KEY_ID"), secretAccessKey: required("AWS_SECRET_ACCESS_KEY") };
// Both of the stack's stream readers: counting and the export's change markers.
const { deployedStreamReaders } = await import("../../local/deployed-stream-readers.js");
const handler = await deployedStreamReaders();
const client = createLocalDynamoClient(endpoint, credentials);
const poller = await startStreamPoller(client, {
  endpoint,
  credentials,
  tableName: required("TABLE_NAME"),
  startAt: "oldest",
  intervalMs: 100,
  consume: (event) => handler({ ...event, Records: event.Records.filter((record) => !isSoloRecord(record)) }),
  onError: (error) => console.error("shared stream consumer: poll failed, retrying", error),
});

const server = createServer((request, response) => {
  if (request.method !== "POST" || request.url !== "/drain") {
    response.writeHead(404).end();
    return;
  }
  poller.drain().then(
    () => response.writeHead(204).end(),
    (error: unknown) => response.writeHead(500, { "content-type": "text/plain" }).end(String(error)),
  );
});
server.listen(0, "127.0.0.1", () => {
  const address = server.address();
  if (address === null || typeof address === "string") throw new Error("no port");
  console.log(JSON.stringify({ drainUrl: `http://127.0.0.1:${address.port}/drain` }));
});

async function stop(): Promise<void> {
  server.close();
  await poller.stop();
  client.destroy();
  process.exit(0);
}
process.once("SIGTERM", () => void stop());
process.once("SIGINT", () => void stop());
