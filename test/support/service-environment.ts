/**
 * Runs before each test file: points the service modules at the run's
 * DynamoDB Local. Like ElectroDB's tests, it refuses any endpoint that is not
 * on this machine, so a test can never write to a real AWS table.
 */
import { afterAll, expect, inject } from "vitest";
import { configureServiceEnvironment } from "../../local/dynamo-endpoint.js";
import { responseLeaks } from "./response-audit.js";
import { readLedger, SECRET_PATTERN } from "./secrets-ledger.js";

const endpoint = inject("dynamodbEndpoint");
const { hostname } = new URL(endpoint);
if (hostname !== "127.0.0.1" && hostname !== "localhost") {
  throw new Error(`Tests only run against a local DynamoDB, not ${endpoint}`);
}
configureServiceEnvironment(endpoint, inject("tableName"), inject("dynamodbCredentials"));
Object.assign(process.env, inject("s3Environment"));
// A short key cache keeps the revocation test quick; the bound itself is what it checks.
process.env.KEY_CACHE_TTL_SECONDS = "1";

// Every secret the tests handle goes to the run's ledger (checked against the
// whole table after the suite), and everything this file logs is captured:
// no key or token may ever appear in a log line.
process.env.ATS_TEST_SECRETS_LEDGER = inject("secretsLedger");
const logged: string[] = [];
for (const method of ["log", "info", "warn", "error", "debug"] as const) {
  const original = console[method].bind(console);
  console[method] = (...args: unknown[]) => {
    logged.push(args.map((arg) => (typeof arg === "string" ? arg : JSON.stringify(arg))).join(" "));
    original(...args);
  };
}
afterAll(() => {
  const secrets = readLedger(inject("secretsLedger"));
  const leaks = logged.filter(
    (line) => secrets.some((secret) => line.includes(secret)) || new RegExp(SECRET_PATTERN.source).test(line),
  );
  expect(leaks, "log lines containing an API key or access token").toEqual([]);
  expect(responseLeaks, "API responses carrying the local stack's DynamoDB or S3 credential").toEqual([]);
});
