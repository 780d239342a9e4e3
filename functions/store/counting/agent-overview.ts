/**
 * A tenant's agents over a period, for the console's overview and agents list: each agent's totals and last
 * active day, and the tenant's figures as the sum of its agents'. Reads one rollup Query per agent over the
 * period's days and one newest item of each agent's partition, O(agents × days); the agents with the most
 * sessions first, at most MAX_AGENTS_WITH_STATS of them (the others are listed without figures).
 */
import { assembleStats, type DayRow, type FailureRow, type ModelRow, type ToolRow } from "../../domain/rollup.js";
import { mergeDayRows } from "../../domain/rollup-merge.js";
import { type AgentSummary, lastRollupDay, listAgents, readModelRows, readRollupRows } from "./rollup-store.js";

/** Agents whose figures one request reads at most (two queries each). */
export const MAX_AGENTS_WITH_STATS = 100;
/** Agents read at the same time. */
export const CONCURRENT_AGENTS = 8;

type Stats = ReturnType<typeof assembleStats>;

export interface AgentOverview extends AgentSummary {
  /** The agent's totals over the period; absent for agents past MAX_AGENTS_WITH_STATS. */
  readonly totals?: Stats["totals"];
  /** The last UTC day the agent started a session, in or before the period; null when its rollups expired. */
  readonly lastActiveDay?: string | null;
}

export interface AgentsOverview extends Stats {
  readonly agents: AgentOverview[];
  /** Agents listed without figures (more than MAX_AGENTS_WITH_STATS): the tenant's figures leave them out. */
  readonly agentsWithoutStats: number;
}

/** `work` over `inputs`, at most `concurrency` at a time, results in the order of `inputs`. */
export async function mapConcurrently<T, R>(inputs: readonly T[], concurrency: number, work: (input: T) => Promise<R>) {
  const results: R[] = new Array(inputs.length);
  let next = 0;
  const worker = async () => {
    while (next < inputs.length) {
      const index = next++;
      results[index] = await work(inputs[index] as T);
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, inputs.length) }, worker));
  return results;
}

/** The agents whose figures a tenant-wide read sums: the MAX_AGENTS_WITH_STATS with the most sessions. */
export function busiest(agents: readonly AgentSummary[]): AgentSummary[] {
  return [...agents]
    .sort((a, b) => b.sessionCount - a.sessionCount || a.agentName.localeCompare(b.agentName))
    .slice(0, MAX_AGENTS_WITH_STATS);
}

/**
 * The tenant's per-model rows over a period: those of its agents with the most sessions (one Query each,
 * O(agents × days), as readAgentsOverview), and how many agents they leave out.
 */
export async function readTenantModelRows(
  tenantPrefix: string,
  fromDay: string,
  toDay: string,
  nowMs = Date.now(),
): Promise<{ rows: ModelRow[]; agentsWithoutStats: number }> {
  const agents = await listAgents(tenantPrefix, nowMs);
  const measured = busiest(agents);
  const read = await mapConcurrently(measured, CONCURRENT_AGENTS, (agent) =>
    readModelRows(tenantPrefix, agent.agentName, fromDay, toDay, nowMs),
  );
  return { rows: read.flat(), agentsWithoutStats: agents.length - measured.length };
}

export async function readAgentsOverview(
  tenantPrefix: string,
  fromDay: string,
  toDay: string,
  nowMs = Date.now(),
): Promise<AgentsOverview> {
  const agents = await listAgents(tenantPrefix, nowMs);
  const measured = busiest(agents);
  const read = await mapConcurrently(measured, CONCURRENT_AGENTS, async (agent) => {
    const [rows, lastActiveDay] = await Promise.all([
      readRollupRows(tenantPrefix, "AGENT", agent.agentName, fromDay, toDay, nowMs),
      lastRollupDay(tenantPrefix, "AGENT", agent.agentName, nowMs),
    ]);
    return { agent, rows, lastActiveDay };
  });
  const days: DayRow[] = [];
  const tools: ToolRow[] = [];
  const failures: FailureRow[] = [];
  const overview = new Map<string, AgentOverview>();
  for (const { agent, rows, lastActiveDay } of read) {
    days.push(...rows.days);
    tools.push(...rows.tools);
    failures.push(...rows.failures);
    const { totals } = assembleStats(rows.days, rows.tools, rows.failures);
    overview.set(agent.agentName, { ...agent, totals, lastActiveDay });
  }
  return {
    ...assembleStats(mergeDayRows(days), tools, failures),
    agents: agents.map((agent) => overview.get(agent.agentName) ?? agent),
    agentsWithoutStats: agents.length - measured.length,
  };
}
