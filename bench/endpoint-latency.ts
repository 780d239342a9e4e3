/**
 * `npm run bench:latency`: p50/p95 latency of each SDK endpoint through the
 * local stack, next to a raw DynamoDB PutItem and GetItem against the same
 * DynamoDB Local in the same run (so the ratio, not the absolute number, is
 * what carries across machines). Bounded: a fixed number of sequential
 * requests per operation.
 */
import { randomUUID } from "node:crypto";
import { GetCommand, PutCommand } from "@aws-sdk/lib-dynamodb";
import { startBenchDatabase } from "./bench-database.js";
import { measure as measureTiming } from "./timing.js";

const SAMPLES = Number(process.env.BENCH_SAMPLES ?? 300);
const WARM_UP = 30;
const TABLE = "ats-bench";

const sample = (label: string, operation: (index: number) => Promise<void>) =>
  measureTiming(label, operation, { samples: SAMPLES, warmUp: WARM_UP });

const dynamo = await startBenchDatabase(TABLE);
try {
  const { documentClient } = await import("../functions/store/table/dynamo-client.js");
  const { routes } = await import("../functions/routes.js");
  const { startLocalApi } = await import("../local/http-adapter.js");
  const { REPOSITORY_ROOT } = await import("../local/settings.js");
  const { ensureOrganisation } = await import("../functions/store/members/organisation-store.js");
  const { createApiKey } = await import("../functions/store/keys/api-key-store.js");
  const { DEFAULT_SCOPES } = await import("../functions/domain/scopes.js");

  await ensureOrganisation("bench");
  const { plaintext: key } = await createApiKey(
    { orgId: "bench", environment: "live", name: "bench", scopes: DEFAULT_SCOPES },
    { name: "bench" },
  );
  const api = await startLocalApi({ routes, root: REPOSITORY_ROOT });
  const headers = { authorization: `Bearer ${key}`, "content-type": "application/json" };
  const post = async (path: string, body: unknown, method = "POST") => {
    const response = await fetch(`${api.url}${path}`, { method, headers, body: JSON.stringify(body) });
    const json = (await response.json()) as { id?: string };
    if (response.status >= 300) throw new Error(`${method} ${path} answered ${response.status}`);
    return json;
  };

  const session = await post("/api/sdk/sessions", { name: "bench", agentName: "bench", userId: "bench" });
  const sessionIds: string[] = [];
  const eventBody = {
    sessionId: session.id,
    eventType: "tool_call",
    toolName: "search",
    toolInput: { query: "refund policy" },
    toolOutput: { hits: 3 },
    estimatedCost: 0.001,
  };

  const results = [
    await sample("raw PutItem (event-shaped item)", async () => {
      await documentClient.send(
        new PutCommand({ TableName: TABLE, Item: { PK: `RAW#${randomUUID()}`, SK: "RAW", ...eventBody } }),
      );
    }),
    await sample("raw GetItem (consistent)", async () => {
      await documentClient.send(
        new GetCommand({ TableName: TABLE, Key: { PK: `SESSION#${session.id}`, SK: "SESSION" }, ConsistentRead: true }),
      );
    }),
    await sample("POST /api/sdk/sessions", async (index) => {
      const created = await post("/api/sdk/sessions", { name: "bench", agentName: "bench", userId: `u-${index}` });
      if (index >= 0 && created.id) sessionIds.push(created.id);
    }),
    await sample("POST /api/sdk/events", async () => {
      await post("/api/sdk/events", eventBody);
    }),
    await sample("PATCH /api/sdk/sessions/:id", async (index) => {
      const id = index >= 0 ? sessionIds[index] : session.id;
      await post(`/api/sdk/sessions/${id}`, { status: "completed", durationMs: 1000 }, "PATCH");
    }),
  ];
  await api.close();

  const floor = results[0]?.p50 ?? Number.NaN;
  console.log(
    `\n${SAMPLES} sequential requests per operation (after ${WARM_UP} warm-up), DynamoDB Local, one process\n`,
  );
  console.log("| operation | p50 ms | p95 ms | p50 ÷ raw PutItem p50 |");
  console.log("|---|---:|---:|---:|");
  for (const { label, p50, p95 } of results) {
    console.log(`| ${label} | ${p50.toFixed(2)} | ${p95.toFixed(2)} | ${(p50 / floor).toFixed(2)} |`);
  }
} finally {
  await dynamo.stop();
}
