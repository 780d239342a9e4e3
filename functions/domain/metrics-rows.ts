/**
 * A metrics answer's rows from the counted items a plan read (metrics-plan.ts): grouped by time and the
 * dimensions asked for, each row's measures assembled exactly as the stats routes assemble them (assembleStats'
 * totals for the day measures — the days' duration bins merged for the percentiles —, assembleModels' totals,
 * assembleScoreStats' figures), sorted, and cut into pages. A row exists where something was counted. Pure.
 */
import type { SeriesTotals } from "./alert-series.js";
import { mergeDurationBins, percentileFromBins } from "./duration-bins.js";
import { type Measure, type MetricDimension, sourceOf } from "./metrics-measures.js";
import type { RollupPlan, SeriesPlan } from "./metrics-plan.js";
import { assembleModels, assembleStats, type DayRow, type ModelRow, type ToolRow, UNNAMED_MODEL } from "./rollup.js";
import { assembleScoreStats, type ScoreRow } from "./score-stats.js";

/** One answer row: its time and dimensions (as grouped), then each measure asked for. */
export type MetricsRow = {
  time?: string;
  agent?: string;
  user?: string;
  /** null: model calls without a model name. */
  model?: string | null;
  tool?: string;
} & { [M in Measure]?: number | null };

/** The rollup rows of one agent's or user's partition over the plan's days. */
export interface PartitionRollups {
  readonly name: string;
  readonly days: readonly DayRow[];
  readonly tools: readonly ToolRow[];
  readonly models: readonly ModelRow[];
  readonly scores: readonly ScoreRow[];
}

/** One agent's (or all agents') hourly series points. */
export interface PartitionSeries {
  /** The agent; undefined: all agents. */
  readonly agent: string | undefined;
  readonly points: readonly (SeriesTotals & { readonly start: Date })[];
}

interface Group {
  readonly time: string | undefined;
  readonly entity: string | undefined;
  readonly sub: string | null | undefined;
  days: DayRow[];
  tools: ToolRow[];
  models: ModelRow[];
  scores: ScoreRow[];
  series: SeriesTotals[];
}

/** Groups by (time, agent or user, model or tool), each created on its first item. */
class Groups {
  private readonly byKey = new Map<string, Group>();

  at(time: string | undefined, entity: string | undefined, sub: string | null | undefined): Group {
    const key = JSON.stringify([time ?? 0, entity ?? 0, sub === undefined ? 0 : sub]);
    let group = this.byKey.get(key);
    if (group === undefined) {
      group = { time, entity, sub, days: [], tools: [], models: [], scores: [], series: [] };
      this.byKey.set(key, group);
    }
    return group;
  }

  all(): Group[] {
    return [...this.byKey.values()];
  }
}

function round(value: number): number {
  return Math.round(value * 1e9) / 1e9;
}

function dayMeasures(days: readonly DayRow[]): Partial<Record<Measure, number | null>> {
  const { totals } = assembleStats(days, [], []);
  return {
    sessions: totals.sessions,
    completed: totals.completed,
    failed: totals.failed,
    successRate: totals.successRate,
    events: totals.events,
    eventCost: totals.eventCost,
    reportedCost: totals.reportedCost,
    promptTokens: totals.promptTokens,
    completionTokens: totals.completionTokens,
    totalTokens: totals.totalTokens,
    durationMean: totals.durationMs.mean,
    durationP50: totals.durationMs.p50,
    durationP95: totals.durationMs.p95,
    durationP99: totals.durationMs.p99,
  };
}

function toolMeasures(tools: readonly ToolRow[]): Partial<Record<Measure, number | null>> {
  let toolCalls = 0;
  let toolErrors = 0;
  for (const tool of tools) {
    toolCalls += tool.calls;
    toolErrors += tool.errors;
  }
  return { toolCalls, toolErrors };
}

function modelMeasures(models: readonly ModelRow[]): Partial<Record<Measure, number | null>> {
  const { totals } = assembleModels(models);
  return {
    modelCalls: totals.calls,
    modelCost: totals.estimatedCost,
    modelPromptTokens: totals.promptTokens,
    modelCompletionTokens: totals.completionTokens,
    modelTotalTokens: totals.totalTokens,
    modelCacheReadTokens: totals.cacheReadTokens,
    modelCacheWriteTokens: totals.cacheWriteTokens,
    modelReasoningTokens: totals.reasoningTokens,
    unpricedCalls: totals.unpricedCalls,
  };
}

function scoreMeasures(scores: readonly ScoreRow[]): Partial<Record<Measure, number | null>> {
  const figures = assembleScoreStats(scores).scores[0];
  return {
    scoreCount: figures?.count ?? 0,
    scoreMean: figures?.numeric?.mean ?? null,
    scoreP50: figures?.numeric?.p50 ?? null,
    scoreP90: figures?.numeric?.p90 ?? null,
    scoreP99: figures?.numeric?.p99 ?? null,
    scoreTrueShare: figures?.boolean?.trueShare ?? null,
  };
}

function seriesMeasures(points: readonly SeriesTotals[]): Partial<Record<Measure, number | null>> {
  const sum = (counter: "started" | "ended" | "failed" | "errors" | "cost" | "tokens") =>
    points.reduce((total, point) => total + point[counter], 0);
  const bins = mergeDurationBins(points.map((point) => point.durationBins));
  return {
    sessionsStarted: sum("started"),
    sessionsEnded: sum("ended"),
    sessionsEndedFailed: sum("failed"),
    errorEvents: sum("errors"),
    costAtTime: round(sum("cost")),
    tokensAtTime: sum("tokens"),
    endedDurationP50: percentileFromBins(bins, 0.5),
    endedDurationP95: percentileFromBins(bins, 0.95),
    endedDurationP99: percentileFromBins(bins, 0.99),
  };
}

/** The row of a group: its time and dimensions, then the measures asked for, in the order asked. */
function rowOf(
  group: Group,
  entityDimension: "agent" | "user" | undefined,
  subDimension: "model" | "tool" | undefined,
  measures: readonly Measure[],
): MetricsRow {
  const sources = new Set(measures.map(sourceOf));
  const figures = {
    ...(sources.has("day") ? dayMeasures(group.days) : {}),
    ...(sources.has("tool") ? toolMeasures(group.tools) : {}),
    ...(sources.has("model") ? modelMeasures(group.models) : {}),
    ...(sources.has("score") ? scoreMeasures(group.scores) : {}),
    ...(sources.has("series") ? seriesMeasures(group.series) : {}),
  };
  const row: MetricsRow = {};
  if (group.time !== undefined) row.time = group.time;
  if (entityDimension !== undefined && group.entity !== undefined) row[entityDimension] = group.entity;
  if (subDimension === "model" && group.sub !== undefined) row.model = group.sub;
  if (subDimension === "tool" && typeof group.sub === "string") row.tool = group.sub;
  for (const measure of measures) row[measure] = figures[measure] ?? null;
  return row;
}

function dimensionsOf(groupBy: readonly MetricDimension[]) {
  return {
    entity: groupBy.includes("agent") ? ("agent" as const) : groupBy.includes("user") ? ("user" as const) : undefined,
    sub: groupBy.includes("model") ? ("model" as const) : groupBy.includes("tool") ? ("tool" as const) : undefined,
  };
}

function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Rows by time, then agent or user, then model or tool (codepoint order; the calls without a model name last). */
function compareGroups(a: Group, b: Group): number {
  const sub = (group: Group) => (group.sub === null ? "\u{10FFFF}" : (group.sub ?? ""));
  return (
    compareText(a.time ?? "", b.time ?? "") ||
    compareText(a.entity ?? "", b.entity ?? "") ||
    compareText(sub(a), sub(b))
  );
}

/** Whether `name` passes a filter's list (no list: every name). */
function passes(filter: readonly string[] | undefined, name: string): boolean {
  return filter === undefined || filter.includes(name);
}

/** The rows of a day or total answer from the partitions' rollups. */
export function rollupMetricsRows(plan: RollupPlan, partitions: readonly PartitionRollups[]): MetricsRow[] {
  const { entity, sub } = dimensionsOf(plan.groupBy);
  const groups = new Groups();
  const timeOf = (day: string) => (plan.granularity === "day" ? day : undefined);
  for (const partition of partitions) {
    const entityName = entity === undefined ? undefined : partition.name;
    if (plan.sources.includes("day")) {
      for (const day of partition.days) groups.at(timeOf(day.day), entityName, undefined).days.push(day);
    }
    if (plan.sources.includes("tool")) {
      for (const tool of partition.tools) {
        if (!passes(plan.filters.tool, tool.toolName)) continue;
        groups.at(timeOf(tool.day), entityName, sub === "tool" ? tool.toolName : undefined).tools.push(tool);
      }
    }
    if (plan.sources.includes("model")) {
      for (const model of partition.models) {
        if (!passes(plan.filters.model, model.model)) continue;
        const modelName = model.model === UNNAMED_MODEL ? null : model.model;
        groups.at(timeOf(model.day), entityName, sub === "model" ? modelName : undefined).models.push(model);
      }
    }
    if (plan.sources.includes("score")) {
      for (const score of partition.scores) {
        if (score.name !== plan.filters.score) continue;
        groups.at(timeOf(score.day), entityName, undefined).scores.push(score);
      }
    }
  }
  return groups
    .all()
    .sort(compareGroups)
    .map((group) => rowOf(group, entity, sub, plan.measures));
}

function hasCounts(point: SeriesTotals): boolean {
  return (
    point.started !== 0 ||
    point.ended !== 0 ||
    point.failed !== 0 ||
    point.errors !== 0 ||
    point.cost !== 0 ||
    point.tokens !== 0 ||
    point.durationBins.size > 0
  );
}

/** The rows of an hour answer from the series read. */
export function seriesMetricsRows(plan: SeriesPlan, partitions: readonly PartitionSeries[]): MetricsRow[] {
  const { entity } = dimensionsOf(plan.groupBy);
  const groups = new Groups();
  for (const partition of partitions) {
    for (const point of partition.points) {
      if (!hasCounts(point)) continue;
      const agent = entity === undefined ? undefined : partition.agent;
      groups.at(point.start.toISOString(), agent, undefined).series.push(point);
    }
  }
  return groups
    .all()
    .sort(compareGroups)
    .map((group) => rowOf(group, entity, undefined, plan.measures));
}

/** One page of rows from `offset`, and the offset of the next page (undefined: none). */
export function pageOfRows(
  rows: readonly MetricsRow[],
  offset: number,
  limit: number,
): { rows: MetricsRow[]; nextOffset: number | undefined } {
  const page = rows.slice(offset, offset + limit);
  return { rows: page, nextOffset: offset + limit < rows.length ? offset + limit : undefined };
}
