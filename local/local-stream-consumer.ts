/**
 * `npm start`'s stream consumer: the poller of DynamoDB Local's stream
 * (stream-poller.ts) running the service's consumer module, reading from the
 * oldest record (counting skips what it counted before a restart), with
 * session notifications appended to `$DATA_DIR/session-notifications.jsonl`.
 * A failed poll is logged and retried on the next tick.
 */
import { join } from "node:path";
import { numberEnv } from "../functions/runtime/env.js";
import { logError } from "../functions/runtime/log.js";
import { createLocalDynamoClient } from "./dynamo-endpoint.js";
import type { LocalDatabase } from "./local-database.js";
import type { LocalSettings } from "./settings.js";
import { startStreamPoller } from "./stream-poller.js";

export async function startLocalStreamConsumer(database: LocalDatabase, settings: LocalSettings) {
  const intervalMs = numberEnv("STREAM_POLL_MS", 250);
  const notificationsFile = join(settings.dataDirectory, "session-notifications.jsonl");
  process.env.SESSION_EVENTS_FILE ??= notificationsFile;
  const client = createLocalDynamoClient(database.endpoint, database.credentials);
  const poller = await startStreamPoller(client, {
    endpoint: database.endpoint,
    credentials: database.credentials,
    tableName: settings.tableName,
    startAt: "oldest",
    intervalMs,
    onError: (error) => logError("stream poll failed; retrying on the next poll", error),
  });
  return {
    intervalMs,
    notificationsFile: process.env.SESSION_EVENTS_FILE,
    drain: () => poller.drain(),
    stop: async () => {
      await poller.stop();
      client.destroy();
    },
  };
}
