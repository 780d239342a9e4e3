/**
 * `npm start`: the whole service on this machine. DynamoDB Local (or
 * DYNAMODB_ENDPOINT), the table, a development organisation and key, and the
 * API on http://127.0.0.1:$PORT through the Lambda handler modules.
 */

// First, for its side effect: the log level, before any service module reads it.
import "./start-logging.js";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { routes } from "../functions/routes.js";
import { ensureConsoleBuilt } from "./console-build.js";
import { consoleEndpoints } from "./console-endpoints.js";
import { DEV_USER_EMAIL, devUserToken, ensureDevKey } from "./dev-organisation.js";
import { startLocalApi } from "./http-adapter.js";
import { openLocalDatabase } from "./local-database.js";
import { startLocalDeletionWorker } from "./local-deletion-worker.js";
import { startLocalExporter } from "./local-exporter.js";
import { configureLocalIssuer, LocalIdentity } from "./local-identity.js";
import { startLocalMonitorEvaluator } from "./local-monitor-evaluator.js";
import { startLocalStreamConsumer } from "./local-stream-consumer.js";
import { LOCAL_EXPORT_BUCKET, s3Environment, startS3Local } from "./s3-local.js";
import { localJsonPath, REPOSITORY_ROOT, readLocalJson, readSettings, writeLocalJson } from "./settings.js";
import { claimStack, StackInUseError } from "./stack-lock.js";
import { LOG_REQUESTS_FLAG } from "./start-logging.js";

const startedAt = performance.now();
const settings = readSettings();
mkdirSync(settings.dataDirectory, { recursive: true });
// Before anything starts: a stack already on this DATA_DIR or PORT is named at once (stack-lock.ts).
const lock = await claimStack(settings).catch(function stackInUse(error: unknown): never {
  if (!(error instanceof StackInUseError)) throw error;
  console.error(error.message);
  process.exit(1);
});
const database = await openLocalDatabase(settings);
// Large event payloads go to S3: a local S3 (s3rver) under $DATA_DIR/s3 unless S3_ENDPOINT is given.
const s3 = process.env.S3_ENDPOINT
  ? undefined
  : await startS3Local({ dataDirectory: join(settings.dataDirectory, "s3") });
if (s3 !== undefined) Object.assign(process.env, s3Environment(s3));
// With an S3 of one's own (S3_ENDPOINT), the export goes to EXPORT_BUCKET there, `ats-export-local` unless it says.
process.env.EXPORT_BUCKET ??= LOCAL_EXPORT_BUCKET;
let api: Awaited<ReturnType<typeof startLocalApi>> | undefined;
let stopStreamConsumer: () => Promise<void> = async () => undefined;
let stopMonitorEvaluator: () => void = () => undefined;
let stopExporter: () => void = () => undefined;

async function shutDown(signal: string): Promise<void> {
  console.log(`\n${signal}: shutting down`);
  stopMonitorEvaluator();
  stopExporter();
  await api?.close();
  await stopStreamConsumer();
  await s3?.stop();
  await database.stop();
  lock.release();
  process.exit(0);
}
process.once("SIGINT", () => void shutDown("SIGINT"));
process.once("SIGTERM", () => void shutDown("SIGTERM"));

try {
  const devKey = await ensureDevKey(readLocalJson(settings)?.apiKey);
  await startLocalDeletionWorker();
  const streamConsumer = await startLocalStreamConsumer(database, settings);
  stopStreamConsumer = () => streamConsumer.stop();
  // The alert monitors, evaluated every minute as the EventBridge rule does on AWS.
  const monitorEvaluator = await startLocalMonitorEvaluator();
  stopMonitorEvaluator = () => monitorEvaluator.stop();
  // The Parquet export, hourly (ATS_EXPORT_INTERVAL_MS) as the stack's schedule runs it; `npm run export` runs it now.
  const exporter = await startLocalExporter();
  stopExporter = () => exporter.stop();
  const identity = LocalIdentity.open(join(settings.dataDirectory, "identity"));
  const consoleBuild = await ensureConsoleBuilt(REPOSITORY_ROOT);
  if (consoleBuild.state === "failed")
    console.error(`${consoleBuild.output.trim()}\nThe console did not build (above).`);
  api = await startLocalApi({
    routes,
    root: REPOSITORY_ROOT,
    port: settings.port,
    documents: { "/.well-known/jwks.json": () => identity.jwks() },
    localEndpoints: consoleEndpoints(identity),
    consoleDirectory: consoleBuild.directory,
  });
  lock.announce(api.url);
  // Alert deliveries run in this process on timers (no ALERT_DELIVERY_QUEUE_URL); a local receiver on 127.0.0.1 may
  // get webhooks over plain http (docs/alert-destinations.md "SSRF rules"); links point at this server's console.
  process.env.ALERT_DESTINATIONS_ALLOW_LOOPBACK ??= "true";
  process.env.ATS_CONSOLE_URL ??= api.url;
  configureLocalIssuer(api.url, identity);
  const userToken = await devUserToken(identity, api.url);
  writeLocalJson(settings, {
    apiUrl: api.url,
    apiKey: devKey.apiKey,
    userToken,
    dynamodbEndpoint: database.endpoint,
    tableName: settings.tableName,
  });
  const readyMs = Math.round(performance.now() - startedAt);
  const keyLine = devKey.created
    ? `  API key:   ${devKey.apiKey}\n             (shown once; also saved in ${localJsonPath(settings)})`
    : `  API key:   saved in ${localJsonPath(settings)} (created on first start)`;
  console.log(
    [
      "",
      "Agent Tracking Service (local)",
      consoleBuild.state === "failed"
        ? "  Console:   not built (npm run web:build failed, see above); the API runs without it"
        : `  Console:   ${api.url}/ — sign in as ${DEV_USER_EMAIL}`,
      `  API:       ${api.url}`,
      keyLine,
      `  User:      ${DEV_USER_EMAIL}, owner of organisation "dev" (access token in local.json, valid 1 hour;`,
      "             npm run users -- token --email <e> --org <org> for others)",
      `  DynamoDB:  ${database.endpoint}${database.started ? " (DynamoDB Local, data in $DATA_DIR/dynamodb)" : ""}`,
      `  Table:     ${settings.tableName}${database.tableCreated ? " (created)" : ""}`,
      `  S3:        ${process.env.S3_ENDPOINT} bucket ${process.env.PAYLOAD_BUCKET} (payloads over 32 KiB)`,
      `  Export:    Parquet to bucket ${process.env.EXPORT_BUCKET} every ${Math.round(exporter.periodMs / 60_000)} min; npm run export runs it now, npm run sql -- "SELECT …" queries it`,
      `  Counting:  the table's stream, polled every ${streamConsumer.intervalMs} ms; session notifications in ${streamConsumer.notificationsFile}`,
      `  Ready in ${readyMs} ms. Ctrl-C stops everything.${process.env.LOG_LEVEL === "WARN" ? ` Request log off (npm start -- ${LOG_REQUESTS_FLAG} shows it).` : ""}`,
      "",
      "  In another terminal (the SDKs, the curl examples and `npm run demo` read these):",
      `    export ATS_BASE_URL=${api.url}`,
      `    export ATS_API_KEY=$(node -p 'require("${localJsonPath(settings)}").apiKey')`,
      `    curl -X POST "$ATS_BASE_URL/api/sdk/sessions" -H "Authorization: Bearer $ATS_API_KEY" \\`,
      `         -H 'Content-Type: application/json' -d '{"name":"demo","agentName":"my-agent","userId":"user-1"}'`,
      "",
    ].join("\n"),
  );
} catch (error) {
  console.error(error instanceof Error ? error.message : error);
  await api?.close();
  await s3?.stop();
  await database.stop();
  process.exit(1);
}
