/**
 * Runs before each test file: points the service modules at the run's
 * DynamoDB Local. Like ElectroDB's tests, it refuses any endpoint that is not
 * on this machine, so a test can never write to a real AWS table.
 */
import { inject } from "vitest";
import { configureServiceEnvironment } from "../../local/dynamo-endpoint.js";

const endpoint = inject("dynamodbEndpoint");
const { hostname } = new URL(endpoint);
if (hostname !== "127.0.0.1" && hostname !== "localhost") {
  throw new Error(`Tests only run against a local DynamoDB, not ${endpoint}`);
}
configureServiceEnvironment(endpoint, inject("tableName"));
// A short key cache keeps the revocation test quick; the bound itself is what it checks.
process.env.KEY_CACHE_TTL_SECONDS = "1";
