/**
 * POST /api/sdk/metrics: a small, bounded query over the counted rollups — measures × dimensions × filters, at most
 * `limit` rows a page (docs/metrics.md). A read: it writes nothing, so it takes no `Idempotency-Key`.
 */
import { apiKeyOrUserReadRoute } from "../http/api-key-or-user-read-route.js";
import { jsonResponse } from "../http/responses.js";
import { metricsQueryBody } from "../schemas/metrics-schemas.js";
import { runMetricsQuery } from "./metrics-query.js";

export const handler = apiKeyOrUserReadRoute("QueryMetrics", { body: metricsQueryBody }, async ({ caller, body }) =>
  jsonResponse(200, await runMetricsQuery(caller, body)),
);
