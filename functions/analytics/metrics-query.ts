/**
 * A metrics query end to end (`POST /api/sdk/metrics`): plan it (a 400 for what the counted items cannot answer),
 * read the rollups or the hourly series it needs, assemble the rows, and answer one page of them. A cursor is an
 * offset in the sorted rows, signed and bound to the tenant and the query (a forged cursor, or one of another
 * query or tenant, is a 400).
 */

import { ValidationError } from "../domain/errors.js";
import type { MetricGranularity } from "../domain/metrics-measures.js";
import type { MetricsQuery } from "../domain/metrics-plan.js";
import { planMetricsQuery } from "../domain/metrics-plan.js";
import { type MetricsRow, pageOfRows, rollupMetricsRows, seriesMetricsRows } from "../domain/metrics-rows.js";
import { type MetricsTenant, readMetricsRollups, readMetricsSeries } from "../store/counting/metrics-reads.js";
import { cursorScope, decodeCursor, encodeCursor } from "../store/table/cursor-signing.js";

export interface MetricsRequest extends MetricsQuery {
  readonly limit: number;
  readonly cursor?: string | undefined;
}

export interface MetricsAnswer {
  readonly granularity: MetricGranularity;
  /** The first day (or hour start, ISO) covered. */
  readonly from: string;
  /** The last day (or hour start, ISO) covered, inclusive. */
  readonly to: string;
  readonly rows: MetricsRow[];
  readonly nextCursor: string | null;
  /** Agents of the tenant a tenant-wide answer leaves out (past the 100 with the most sessions). */
  readonly agentsWithoutStats: number;
}

async function offsetOf(cursor: string | undefined, scope: string): Promise<number> {
  if (cursor === undefined) return 0;
  const { o } = await decodeCursor(cursor, scope);
  if (typeof o !== "number" || !Number.isSafeInteger(o) || o < 0) {
    throw new ValidationError("Invalid cursor", [{ path: "cursor", message: "Invalid cursor" }]);
  }
  return o;
}

export async function runMetricsQuery(
  caller: MetricsTenant,
  request: MetricsRequest,
  nowMs = Date.now(),
): Promise<MetricsAnswer> {
  const { limit, cursor, ...query } = request;
  const plan = planMetricsQuery(query, nowMs);
  const scope = cursorScope(["metrics", caller.orgId, caller.environment, query]);
  const offset = await offsetOf(cursor, scope);
  let rows: MetricsRow[];
  let agentsWithoutStats: number;
  let period: { from: string; to: string };
  if (plan.kind === "rollup") {
    const read = await readMetricsRollups(caller, plan.scope, plan.fromDay, plan.toDay, plan.sources, nowMs);
    rows = rollupMetricsRows(plan, read.partitions);
    agentsWithoutStats = read.agentsWithoutStats;
    period = { from: plan.fromDay, to: plan.toDay };
  } else {
    const read = await readMetricsSeries(caller, plan.agents, plan.firstHourMs, plan.lastHourMs, nowMs);
    rows = seriesMetricsRows(plan, read.partitions);
    agentsWithoutStats = read.agentsWithoutStats;
    period = { from: new Date(plan.firstHourMs).toISOString(), to: new Date(plan.lastHourMs).toISOString() };
  }
  const page = pageOfRows(rows, offset, limit);
  return {
    granularity: query.granularity,
    ...period,
    rows: page.rows,
    nextCursor: page.nextOffset === undefined ? null : await encodeCursor({ o: page.nextOffset }, scope),
    agentsWithoutStats,
  };
}
