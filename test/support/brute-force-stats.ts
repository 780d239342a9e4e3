/**
 * Stats recomputed from the raw session and event items, independently of
 * the rollups, to check what the stats routes answer.
 */
import { durationBin, durationBinValue } from "../../functions/domain/duration-bins.js";
import {
  assembleModels,
  type ModelRow,
  type ModelTally,
  modelUsageOf,
  OTHER_MODEL,
  OTHER_TOOL,
  UNNAMED_MODEL,
} from "../../functions/domain/rollup.js";
import { countersFromStored } from "../../functions/store/sessions/counter-keys.js";

type Item = Record<string, unknown>;

/**
 * The name an event's tool is counted under in its session's `counter` (`toolCalls`, `toolErrors`): each map keeps
 * at most 20 names (domain/rollup.ts MAX_TOOLS_PER_SESSION), the first counted; every event of a tool the map does
 * not name was counted as `(other)`, in the session and in its rollups alike. Which names came first depends on
 * the stream's order, so the stored map says it; a recount that finds a name the map lacks expects `(other)`, and
 * any error shows as a difference all the same.
 */
export function countedToolName(session: Item, counter: "toolCalls" | "toolErrors", toolName: string): string {
  return Object.hasOwn(countersFromStored(session[counter]), toolName) ? toolName : OTHER_TOOL;
}

interface Day {
  sessions: number;
  completed: number;
  failed: number;
  succeeded: number;
  reportedCost: number;
  eventCost: number;
  events: number;
  promptTokens: number;
  completionTokens: number;
  totalTokens: number;
  durations: number[];
}

function emptyDay(): Day {
  return {
    sessions: 0,
    completed: 0,
    failed: 0,
    succeeded: 0,
    reportedCost: 0,
    eventCost: 0,
    events: 0,
    promptTokens: 0,
    completionTokens: 0,
    totalTokens: 0,
    durations: [],
  };
}

/**
 * The exact nearest-rank percentile of the durations, as the fine bin holding it reads (to four significant
 * digits): what the stats routes answer for sessions counted with fine bins.
 */
function binnedPercentile(durations: readonly number[], fraction: number): number | null {
  if (durations.length === 0) return null;
  const sorted = [...durations].sort((a, b) => a - b);
  const value = sorted[Math.ceil(fraction * sorted.length) - 1] ?? 0;
  return Number(durationBinValue(durationBin(value)).toPrecision(4));
}

const toNinePlaces = (value: number) => Math.round(value * 1e9) / 1e9;

function summary(day: Day) {
  const ended = day.completed + day.failed;
  return {
    sessions: day.sessions,
    completed: day.completed,
    failed: day.failed,
    successRate: ended === 0 ? null : toNinePlaces(day.succeeded / ended),
    // The stats round both sums as the success rate (docs/read-api.md): summed in another order, they differ in
    // the last bits.
    reportedCost: toNinePlaces(day.reportedCost),
    eventCost: toNinePlaces(day.eventCost),
    events: day.events,
    promptTokens: day.promptTokens,
    completionTokens: day.completionTokens,
    totalTokens: day.totalTokens,
    p50: binnedPercentile(day.durations, 0.5),
    p95: binnedPercentile(day.durations, 0.95),
    p99: binnedPercentile(day.durations, 0.99),
    precision: "fine",
  };
}

const num = (value: unknown) => (typeof value === "number" ? value : 0);

/** Stats of the sessions matching `belongs` (by agent or by user), from raw items. */
export function bruteForceStats(
  sessions: readonly Item[],
  events: readonly Item[],
  belongs: (session: Item) => boolean,
) {
  const days = new Map<string, Day>();
  const tools = new Map<string, { calls: number; errors: number }>();
  const failures = new Map<string, number>();
  const eventsBySession = new Map<string, Item[]>();
  for (const event of events) {
    const list = eventsBySession.get(String(event.sessionId)) ?? [];
    list.push(event);
    eventsBySession.set(String(event.sessionId), list);
  }
  for (const session of sessions.filter(belongs)) {
    const dayKey = String(session.createdAt).slice(0, 10);
    const day = days.get(dayKey) ?? emptyDay();
    days.set(dayKey, day);
    day.sessions += 1;
    // A session's events count from the moment they are stored (the stream consumer), ended or not.
    for (const event of eventsBySession.get(String(session.id)) ?? []) {
      day.events += 1;
      day.eventCost += num(event.estimatedCost);
      if (typeof event.toolName !== "string") continue;
      const counter = event.eventType === "tool_call" ? "toolCalls" : event.eventType === "error" ? "toolErrors" : null;
      if (counter === null) continue;
      const name = countedToolName(session, counter, event.toolName);
      const tool = tools.get(name) ?? { calls: 0, errors: 0 };
      if (counter === "toolCalls") tool.calls += 1;
      else tool.errors += 1;
      tools.set(name, tool);
    }
    if (session.status === "active") continue;
    if (session.status === "completed") day.completed += 1;
    if (session.status === "failed") {
      day.failed += 1;
      if (typeof session.failureReason === "string") {
        failures.set(session.failureReason, (failures.get(session.failureReason) ?? 0) + 1);
      }
    }
    if (session.success === true) day.succeeded += 1;
    day.reportedCost += num(session.estimatedCost);
    day.promptTokens += num(session.promptTokens);
    day.completionTokens += num(session.completionTokens);
    day.totalTokens += num(session.totalTokens);
    if (typeof session.durationMs === "number") day.durations.push(session.durationMs);
  }
  const total = emptyDay();
  for (const day of days.values()) {
    for (const key of Object.keys(total) as (keyof Day)[]) {
      if (key === "durations") total.durations.push(...day.durations);
      else total[key] += day[key];
    }
  }
  const byName = (a: [string, unknown], b: [string, unknown]) => a[0].localeCompare(b[0]);
  return {
    totals: summary(total),
    days: [...days.entries()].sort(byName).map(([day, counters]) => ({ day, ...summary(counters) })),
    topFailureReasons: [...failures]
      .sort((a, b) => b[1] - a[1] || byName(a, b))
      .slice(0, 10)
      .map(([reason, count]) => ({ reason, count })),
    topToolsByCalls: [...tools]
      .filter(([, counts]) => counts.calls > 0)
      .sort((a, b) => b[1].calls - a[1].calls || byName(a, b))
      .slice(0, 10)
      .map(([toolName, counts]) => ({ toolName, calls: counts.calls })),
    topToolsByErrors: [...tools]
      .filter(([, counts]) => counts.errors > 0)
      .sort((a, b) => b[1].errors - a[1].errors || byName(a, b))
      .slice(0, 10)
      .map(([toolName, counts]) => ({ toolName, errors: counts.errors })),
  };
}

type Durations = { p50: number | null; p95: number | null; p99: number | null; precision: string };

/** The stats route's answer reduced to the same shape (percentiles flattened). */
export function comparable(stats: {
  totals: Record<string, unknown> & { durationMs: Durations };
  days: (Record<string, unknown> & { durationMs: Durations })[];
  topFailureReasons: unknown;
  topToolsByCalls: unknown;
  topToolsByErrors: unknown;
}) {
  const flatten = ({ durationMs, ...rest }: Record<string, unknown> & { durationMs: Durations }) => ({
    ...rest,
    p50: durationMs.p50,
    p95: durationMs.p95,
    p99: durationMs.p99,
    precision: durationMs.precision,
  });
  return {
    totals: flatten(stats.totals),
    days: stats.days.filter((day) => day.sessions !== 0 || day.events !== 0).map(flatten),
    topFailureReasons: stats.topFailureReasons,
    topToolsByCalls: stats.topToolsByCalls,
    topToolsByErrors: stats.topToolsByErrors,
  };
}

/**
 * The name a session's model call is counted under, as for tools (countedToolName): its model when the session's
 * stored `modelUsage` lists it, `(other)` when not; the calls without a model under UNNAMED_MODEL.
 */
export function countedModelName(session: Item, model: unknown): string {
  if (typeof model !== "string") return UNNAMED_MODEL;
  return modelUsageOf(session.modelUsage).has(model) ? model : OTHER_MODEL;
}

/** What one stored event counts as a model call (events with `model` or `usage`), or undefined when none. */
export function modelCallOf(event: Item): ModelTally | undefined {
  const usage =
    typeof event.usage === "object" && event.usage !== null ? (event.usage as Record<string, unknown>) : undefined;
  if (typeof event.model !== "string" && usage === undefined) return undefined;
  const tokens = (field: string) => (typeof usage?.[field] === "number" ? (usage[field] as number) : 0);
  const derivedTotal =
    typeof usage?.totalTokens !== "number" &&
    typeof usage?.promptTokens === "number" &&
    typeof usage?.completionTokens === "number";
  return {
    calls: 1,
    estimatedCost: num(event.estimatedCost),
    promptTokens: tokens("promptTokens"),
    completionTokens: tokens("completionTokens"),
    totalTokens: derivedTotal ? tokens("promptTokens") + tokens("completionTokens") : tokens("totalTokens"),
    cacheReadTokens: tokens("cacheReadTokens"),
    cacheWriteTokens: tokens("cacheWriteTokens"),
    reasoningTokens: tokens("reasoningTokens"),
    unpricedCalls: event.costSource === "unpriced" ? 1 : 0,
  };
}

/** The models response recounted from the stored sessions and events (those of sessions matching `filter`). */
export function bruteForceModels(
  sessions: readonly Item[],
  events: readonly Item[],
  filter: (session: Item) => boolean,
): ReturnType<typeof assembleModels> {
  const byId = new Map(sessions.filter(filter).map((session) => [session.id, session]));
  const rows: ModelRow[] = [];
  for (const event of events) {
    const session = byId.get(event.sessionId);
    const tally = session === undefined ? undefined : modelCallOf(event);
    if (session === undefined || tally === undefined) continue;
    rows.push({ day: String(session.createdAt).slice(0, 10), model: countedModelName(session, event.model), ...tally });
  }
  return assembleModels(rows);
}
