/**
 * The counted items a metrics query reads (functions/domain/metrics-plan.ts), never a scan:
 * - day or total: one rollup Query per agent or user partition (readRollupRows, O(days) items each), for the
 *   agents or users named, else for the tenant's busiest agents (at most MAX_AGENTS_WITH_STATS, the agent summary
 *   read first, as GET /api/sdk/agents reads them), CONCURRENT_AGENTS at a time;
 * - hour: one series Query per agent named (or per busiest agent), or one of the all-agents series
 *   (readSeriesHours, ≤ 168 items each).
 * Every key is built from the caller's tenant: another tenant's items cannot be named.
 */
import type { Environment } from "../../domain/api-key.js";
import type { MeasureSource } from "../../domain/metrics-measures.js";
import type { RollupScope } from "../../domain/metrics-plan.js";
import type { PartitionRollups, PartitionSeries } from "../../domain/metrics-rows.js";
import { readSeriesHours } from "../alerts/series-store.js";
import { tenant } from "../table/keys.js";
import { busiest, CONCURRENT_AGENTS, mapConcurrently } from "./agent-overview.js";
import { listAgents, type ReadableRollupKind, readRollupRows } from "./rollup-store.js";
import { SCORE_ROLLUP_KIND } from "./score-rollup.js";

export interface MetricsTenant {
  readonly orgId: string;
  readonly environment: Environment;
}

/** What was read, and how many of the tenant's agents a tenant-wide read left out (past the busiest). */
export interface MetricsRead<T> {
  readonly partitions: readonly T[];
  readonly agentsWithoutStats: number;
}

/** The agents named, or the tenant's busiest agents and how many others it has. */
async function agentsOf(
  caller: MetricsTenant,
  named: readonly string[] | undefined,
  nowMs: number,
): Promise<{ agents: readonly string[]; agentsWithoutStats: number }> {
  if (named !== undefined) return { agents: named, agentsWithoutStats: 0 };
  const all = await listAgents(tenant(caller.orgId, caller.environment), nowMs);
  const measured = busiest(all);
  return { agents: measured.map((agent) => agent.agentName), agentsWithoutStats: all.length - measured.length };
}

/** The rollup items each source of measures is counted in. */
const KINDS_OF_SOURCE: Readonly<Record<Exclude<MeasureSource, "series">, readonly ReadableRollupKind[]>> = {
  day: ["day", "durations"],
  tool: ["tool"],
  model: ["model"],
  score: [SCORE_ROLLUP_KIND],
};

/** The rollup rows of the scope's partitions over `fromDay`…`toDay` (inclusive), of the kinds `sources` need. */
export async function readMetricsRollups(
  caller: MetricsTenant,
  scope: RollupScope,
  fromDay: string,
  toDay: string,
  sources: readonly MeasureSource[],
  nowMs = Date.now(),
): Promise<MetricsRead<PartitionRollups>> {
  const kinds = sources.flatMap((source) => (source === "series" ? [] : KINDS_OF_SOURCE[source]));
  const tenantPrefix = tenant(caller.orgId, caller.environment);
  const { names, agentsWithoutStats } =
    scope.dimension === "USER"
      ? { names: scope.users, agentsWithoutStats: 0 }
      : await agentsOf(caller, scope.agents, nowMs).then(({ agents, agentsWithoutStats }) => ({
          names: agents,
          agentsWithoutStats,
        }));
  const partitions = await mapConcurrently(names, CONCURRENT_AGENTS, async (name) => {
    const rows = await readRollupRows(tenantPrefix, scope.dimension, name, fromDay, toDay, nowMs, kinds);
    return { name, days: rows.days, tools: rows.tools, models: rows.models, scores: rows.scores };
  });
  return { partitions, agentsWithoutStats };
}

/** The hourly series of everything from the hour starting `firstHourMs` to the one starting `lastHourMs`. */
export async function readMetricsSeries(
  caller: MetricsTenant,
  agents: readonly string[] | "busiest" | "all",
  firstHourMs: number,
  lastHourMs: number,
  nowMs = Date.now(),
): Promise<MetricsRead<PartitionSeries>> {
  const window = { start: new Date(firstHourMs), end: new Date(lastHourMs + 60 * 60 * 1000) };
  const read = async (agent: string | undefined): Promise<PartitionSeries> => ({
    agent,
    points: await readSeriesHours(
      { orgId: caller.orgId, environment: caller.environment, agent, facet: { kind: "none" }, ...window },
      nowMs,
    ),
  });
  if (agents === "all") return { partitions: [await read(undefined)], agentsWithoutStats: 0 };
  const chosen = await agentsOf(caller, agents === "busiest" ? undefined : agents, nowMs);
  const partitions = await mapConcurrently(chosen.agents, CONCURRENT_AGENTS, read);
  return { partitions, agentsWithoutStats: chosen.agentsWithoutStats };
}
