/**
 * `npm run bench:read`: p50/p95 latency of the read routes on a seeded
 * volume (default 2 organisations × 1,000 sessions × 20 events, seeded
 * through the store layer so rollups are real), through the local stack on
 * DynamoDB Local, next to a raw Query of the same index page in the same run.
 * Bounded: BENCH_SESSIONS / BENCH_EVENTS / BENCH_SAMPLES scale it down.
 */
import { QueryCommand } from "@aws-sdk/lib-dynamodb";
import { startBenchDatabase } from "./bench-database.js";
import { measure as measureTiming } from "./timing.js";

const SESSIONS = Number(process.env.BENCH_SESSIONS ?? 1000);
const EVENTS = Number(process.env.BENCH_EVENTS ?? 20);
const SAMPLES = Number(process.env.BENCH_SAMPLES ?? 200);
const TABLE = "ats-bench-read";

const sample = (label: string, operation: (index: number) => Promise<void>) =>
  measureTiming(label, operation, { samples: SAMPLES, warmUp: 20 });

const dynamo = await startBenchDatabase(TABLE);
try {
  const { seedTenant } = await import("../test/support/seed.js");
  const { documentClient } = await import("../functions/store/table/dynamo-client.js");
  const { routes } = await import("../functions/routes.js");
  const { startLocalApi } = await import("../local/http-adapter.js");
  const { REPOSITORY_ROOT } = await import("../local/settings.js");
  const { ensureOrganisation } = await import("../functions/store/members/organisation-store.js");
  const { createApiKey } = await import("../functions/store/keys/api-key-store.js");

  const seedStarted = performance.now();
  const keys: string[] = [];
  for (const [index, orgId] of ["bench-a", "bench-b"].entries()) {
    await ensureOrganisation(orgId);
    keys.push(
      (await createApiKey({ orgId, environment: "live", name: "bench", scopes: ["read"] }, { name: "bench" }))
        .plaintext,
    );
    await seedTenant({ orgId, sessions: SESSIONS, eventsPerSession: EVENTS, users: 50, days: 30, seed: index + 1 });
  }
  const seedSeconds = (performance.now() - seedStarted) / 1000;

  const api = await startLocalApi({ routes, root: REPOSITORY_ROOT });
  const get = async (path: string) => {
    const response = await fetch(`${api.url}${path}`, { headers: { authorization: `Bearer ${keys[0]}` } });
    await response.arrayBuffer();
    if (response.status !== 200) throw new Error(`GET ${path} answered ${response.status}`);
  };
  const results = [
    await sample("raw Query GSI1, 50 keys (floor)", async () => {
      await documentClient.send(
        new QueryCommand({
          TableName: TABLE,
          IndexName: "GSI1",
          KeyConditionExpression: "GSI1PK = :pk",
          ExpressionAttributeValues: { ":pk": "ORG#bench-a#ENV#live#SESSIONS" },
          ScanIndexForward: false,
          Limit: 50,
        }),
      );
    }),
    await sample("GET /api/sdk/sessions?limit=50", () => get("/api/sdk/sessions?limit=50")),
    await sample("GET /api/sdk/sessions?agentName=…&status=completed", () =>
      get("/api/sdk/sessions?agentName=support-bot&status=completed&limit=50"),
    ),
    await sample("GET /api/sdk/agents/:name/stats (30 days)", () => get("/api/sdk/agents/support-bot/stats")),
    await sample("GET /api/sdk/users/:id/stats (30 days)", () => get("/api/sdk/users/user-7/stats")),
  ];
  await api.close();

  console.log(
    `\nSeeded 2 organisations × ${SESSIONS} sessions × ${EVENTS} events in ${seedSeconds.toFixed(0)} s; ${SAMPLES} sequential requests per row\n`,
  );
  console.log("| operation | p50 ms | p95 ms |");
  console.log("|---|---:|---:|");
  for (const { label, p50, p95 } of results) console.log(`| ${label} | ${p50.toFixed(2)} | ${p95.toFixed(2)} |`);
} finally {
  await dynamo.stop();
}
