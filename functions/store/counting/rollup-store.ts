/**
 * Rollup items: per tenant, per agent and per external user, per UTC day.
 * Writers get transaction items (so a rollup changes in the same transaction
 * as the session that causes it); readers get a stats response from one
 * Query per dimension, O(days) items.
 *
 * Each kind of item (day, tool, failure reason, agent summary) is an entity:
 * its key from keys.ts, the descriptive attributes every ADD stamps on it, and
 * a checked `fromItem` for the readers.
 */
import { type DurationBins, durationBinOf } from "../../domain/duration-bins.js";
import {
  assembleStats,
  BUCKET_COUNT,
  bucketAttribute,
  DAY_COUNTERS,
  type DayCounter,
  type DayCounters,
  type DayRow,
  type FailureRow,
  isZeroTally,
  MODEL_COUNTERS,
  type ModelCounter,
  type ModelRow,
  type ModelTallies,
  type ToolRow,
} from "../../domain/rollup.js";
import { assembleScoreStats, type ScoreRow } from "../../domain/score-stats.js";
import { failureReasonGroup } from "../../domain/session-refinements.js";
import { defineEntity, type Entity, type Item } from "../table/entity.js";
import {
  agentSummaryKey,
  agentSummaryPartition,
  type RollupDimension,
  rollupDayKey,
  rollupDayRange,
  rollupDurationsKey,
  rollupFailureKey,
  rollupModelKey,
  rollupPartition,
  rollupToolKey,
} from "../table/keys.js";
import { queryAll, queryPage, type TransactItem, updateRequest } from "../table/table-operations.js";
import { SCORE_ROLLUP_KIND, scoreRowOf } from "./score-rollup.js";

export const ROLLUP_ENTITY = "rollup";

/** What a rollup item holds, stored on it (`rollupKind`): its sort key holds client text, so it is never parsed. */
export type RollupKind = "day" | "durations" | "tool" | "failure" | "model" | "agentSummary";

/** Where a day's items live and when they expire. */
interface RollupDay {
  /** The rollup partition (keys.ts rollupPartition). */
  readonly partition: string;
  /** UTC day, `yyyy-mm-dd`. */
  readonly day: string;
  /** Epoch seconds at which the item expires. */
  readonly ttl: number;
}

/** Attributes of a rollup item that no reader's row carries. */
const ROLLUP_STORAGE = ["ttl", "rollupKind"];

/** A counter never added is absent from its item (an item is made by its first ADD): 0. */
function num(value: unknown): number {
  return typeof value === "number" ? value : 0;
}

/** A day's counters (`DAY#<day>`); only `day`, stamped by every ADD, is required. */
const dayRollupEntity = defineEntity<DayRow, RollupDay>({
  tag: ROLLUP_ENTITY,
  fields: { day: "string" },
  storageAttributes: ROLLUP_STORAGE,
  key: ({ partition, day }) => rollupDayKey(partition, day),
  attributes: ({ day, ttl }) => ({ day, ttl, rollupKind: "day" satisfies RollupKind }),
  fromFields: (fields) => {
    const counters = Object.fromEntries(DAY_COUNTERS.map((counter) => [counter, num(fields[counter])]));
    return {
      day: String(fields.day),
      ...(counters as Record<DayCounter, number>),
      histogram: Array.from({ length: BUCKET_COUNT }, (_, index) => num(fields[bucketAttribute(index)])),
      durationBins: new Map(),
    };
  },
});

/** A day's fine duration bins, the counted (`b<bin>`) ones only (`DAY#<day>#DUR`). */
export interface DurationsRow {
  readonly day: string;
  readonly bins: DurationBins;
}

const durationsRollupEntity = defineEntity<DurationsRow, RollupDay>({
  tag: ROLLUP_ENTITY,
  fields: { day: "string" },
  storageAttributes: ROLLUP_STORAGE,
  key: ({ partition, day }) => rollupDurationsKey(partition, day),
  attributes: ({ day, ttl }) => ({ day, ttl, rollupKind: "durations" satisfies RollupKind }),
  fromFields: (fields) => {
    const bins = new Map<number, number>();
    for (const [name, value] of Object.entries(fields)) {
      const bin = durationBinOf(name);
      if (bin !== undefined && typeof value === "number" && value !== 0) bins.set(bin, value);
    }
    return { day: String(fields.day), bins };
  },
});

/** A tool's calls and errors on a day (`DAY#<day>#TOOL#<toolName>`). */
const toolRollupEntity = defineEntity<ToolRow, RollupDay & { readonly toolName: string }>({
  tag: ROLLUP_ENTITY,
  fields: { day: "string", toolName: "string" },
  storageAttributes: ROLLUP_STORAGE,
  key: ({ partition, day, toolName }) => rollupToolKey(partition, day, toolName),
  attributes: ({ day, ttl, toolName }) => ({ day, ttl, rollupKind: "tool" satisfies RollupKind, toolName }),
  fromFields: (fields) => ({
    day: String(fields.day),
    toolName: String(fields.toolName),
    calls: num(fields.calls),
    errors: num(fields.errors),
  }),
});

/** A failure reason's count on a day (`DAY#<day>#FAIL#<reason>`). */
const failureRollupEntity = defineEntity<FailureRow, RollupDay & { readonly reason: string }>({
  tag: ROLLUP_ENTITY,
  fields: { day: "string", reason: "string" },
  storageAttributes: ROLLUP_STORAGE,
  key: ({ partition, day, reason }) => rollupFailureKey(partition, day, reason),
  attributes: ({ day, ttl, reason }) => ({ day, ttl, rollupKind: "failure" satisfies RollupKind, reason }),
  fromFields: (fields) => ({ day: String(fields.day), reason: String(fields.reason), count: num(fields.count) }),
});

/**
 * A model's calls on a day of an agent (`DAY#<day>#MODEL#<model>`), like a tool's: its name (client text,
 * `__proto__` included, at most 256 characters; `""` for the calls without a model) is in the sort key and the
 * `model` attribute, never an attribute name; its counters are MODEL_COUNTERS. Each item is small (< 0.5 KB) and
 * each write of it a handful of ADDs, however many models an agent calls; a session adds to at most
 * MAX_MODELS_PER_SESSION + 2 of them per day (rollup.ts), which keeps its deletion within one transaction.
 */
const modelRollupEntity = defineEntity<ModelRow, RollupDay & { readonly model: string }>({
  tag: ROLLUP_ENTITY,
  fields: { day: "string", model: "string" },
  storageAttributes: ROLLUP_STORAGE,
  key: ({ partition, day, model }) => rollupModelKey(partition, day, model),
  attributes: ({ day, ttl, model }) => ({ day, ttl, rollupKind: "model" satisfies RollupKind, model }),
  fromFields: (fields) => ({
    day: String(fields.day),
    model: String(fields.model),
    ...(Object.fromEntries(MODEL_COUNTERS.map((counter) => [counter, num(fields[counter])])) as Record<
      ModelCounter,
      number
    >),
  }),
});

/** The model items of one day adding `models` (models whose counts are all 0 left out). */
function modelItems(day: RollupDay, models: ModelTallies): TransactItem[] {
  return [...models]
    .filter(([, tally]) => !isZeroTally(tally))
    .map(([model, tally]) => addUpdate(modelRollupEntity, { ...day, model }, tally, MODEL_COUNTERS));
}

/** An agent of a tenant with its session count. */
export interface AgentSummary {
  readonly agentName: string;
  readonly sessionCount: number;
}

/** The tenant's agent summary (`ROLLUP#<tenant>#AGENTS` / `AGENT#<name>`). */
const agentSummaryEntity = defineEntity<
  AgentSummary,
  { readonly tenant: string; readonly agentName: string; readonly ttl: number }
>({
  tag: ROLLUP_ENTITY,
  fields: { agentName: "string" },
  storageAttributes: ROLLUP_STORAGE,
  key: ({ tenant, agentName }) => agentSummaryKey(tenant, agentName),
  attributes: ({ agentName, ttl }) => ({ rollupKind: "agentSummary" satisfies RollupKind, agentName, ttl }),
  fromFields: (fields) => ({ agentName: String(fields.agentName), sessionCount: num(fields.sessionCount) }),
});

/** The counters a day item ADDs: DAY_COUNTERS and the duration histogram's buckets. */
const DAY_COUNTER_ATTRIBUTES: readonly string[] = [
  ...DAY_COUNTERS,
  ...Array.from({ length: BUCKET_COUNT }, (_, index) => bucketAttribute(index)),
];

/**
 * An Update transaction item that ADDs `counters` (zeros left out) to the entity's item, creating it if
 * need be, and SETs its tag and descriptive attributes. Counter names are ours, never client text: one
 * outside `allowedCounters` is refused (DisallowedAttributeError), and so is a value that is not a finite
 * number — a defect upstream, never written.
 */
function addUpdate<Input>(
  entity: Entity<unknown, Input>,
  input: Input,
  counters: Readonly<Record<string, number | undefined>>,
  allowedCounters: readonly string[],
): TransactItem {
  const key = entity.key(input);
  const add: Record<string, number> = {};
  for (const [name, value] of Object.entries(counters)) {
    if (typeof value !== "number" || !Number.isFinite(value)) {
      throw new Error(`Rollup counter ${name} of ${key.PK} / ${key.SK} is not a finite number: ${String(value)}`);
    }
    if (value !== 0) add[name] = value;
  }
  const set = entity.attributesOf(input);
  return {
    Update: updateRequest(key, { set, add }, { allowed: [...Object.keys(set), ...allowedCounters], mayCreate: true }),
  };
}

export interface RollupTarget {
  readonly tenant: string;
  readonly agentName: string;
  readonly userId: string;
  /** UTC day the session started. */
  readonly day: string;
  /** Epoch seconds at which the rollup items expire. */
  readonly ttl: number;
}

export interface RollupChange {
  readonly counters: DayCounters;
  readonly tools?: Readonly<Record<string, { readonly calls: number; readonly errors: number }>>;
  /** Per model, what the change adds to the agent's day (models are not counted per external user). */
  readonly models?: ModelTallies;
  readonly failure?: { readonly reason: string; readonly count: number };
}

type Counters = Record<string, number | undefined>;

/** A change's counters split between the day item and its duration item (the fine bins, `b<bin>`). */
function splitBins(counters: DayCounters): { dayCounters: Counters; bins: Counters } {
  const dayCounters: Counters = {};
  const bins: Counters = {};
  for (const [name, value] of Object.entries(counters)) {
    if (durationBinOf(name) === undefined) dayCounters[name] = value;
    else bins[name] = value;
  }
  return { dayCounters, bins };
}

/** The tool items of one day adding `tools` (tools whose calls and errors are both 0 left out). */
function toolItems(day: RollupDay, tools: NonNullable<RollupChange["tools"]>): TransactItem[] {
  return Object.entries(tools)
    .filter(([, counts]) => counts.calls !== 0 || counts.errors !== 0)
    .map(([toolName, counts]) =>
      addUpdate(toolRollupEntity, { ...day, toolName }, { calls: counts.calls, errors: counts.errors }, [
        "calls",
        "errors",
      ]),
    );
}

const DIMENSIONS: readonly { dimension: RollupDimension; value: (target: RollupTarget) => string }[] = [
  { dimension: "AGENT", value: (target) => target.agentName },
  { dimension: "USER", value: (target) => target.userId },
];

/**
 * Transaction items applying `change` to the agent's and the user's day (or only to the `dimensions` named): the
 * day item, its duration item when the change moves a fine bin, its tool and failure items, and the agent's
 * model items when the change counts model calls.
 */
export function rollupUpdates(
  target: RollupTarget,
  change: RollupChange,
  dimensions: readonly RollupDimension[] = ["AGENT", "USER"],
): TransactItem[] {
  return DIMENSIONS.filter(({ dimension }) => dimensions.includes(dimension)).flatMap(({ dimension, value }) => {
    const day: RollupDay = {
      partition: rollupPartition(target.tenant, dimension, value(target)),
      day: target.day,
      ttl: target.ttl,
    };
    const { dayCounters, bins } = splitBins(change.counters);
    const items = [addUpdate(dayRollupEntity, day, dayCounters, DAY_COUNTER_ATTRIBUTES)];
    if (Object.values(bins).some((count) => count !== 0)) {
      // A value that is not a finite number is refused by addUpdate, as on the day item.
      items.push(addUpdate(durationsRollupEntity, day, bins, Object.keys(bins)));
    }
    items.push(...toolItems(day, change.tools ?? {}));
    if (dimension === "AGENT" && change.models !== undefined) items.push(...modelItems(day, change.models));
    if (change.failure !== undefined) {
      const { count } = change.failure;
      // Key attributes are bounded (1 KB); a longer reason is grouped by its first characters.
      const reason = failureReasonGroup(change.failure.reason);
      items.push(addUpdate(failureRollupEntity, { ...day, reason }, { count }, ["count"]));
    }
    return items;
  });
}

/**
 * Transaction items adding `tools` to the agent's and the user's day (or only to the `dimensions` named), without
 * the day item: per-tool shares moved apart from the rest of a change (session-tool-move.ts).
 */
export function toolRollupUpdates(
  target: RollupTarget,
  tools: NonNullable<RollupChange["tools"]>,
  dimensions: readonly RollupDimension[],
): TransactItem[] {
  return DIMENSIONS.filter(({ dimension }) => dimensions.includes(dimension)).flatMap(({ dimension, value }) =>
    toolItems(
      { partition: rollupPartition(target.tenant, dimension, value(target)), day: target.day, ttl: target.ttl },
      tools,
    ),
  );
}

/** The transaction item counting a session in (or, with -1, out of) its agent's summary. */
export function agentSummaryUpdate(tenantPrefix: string, agentName: string, delta: 1 | -1, ttl: number): TransactItem {
  const summary = { tenant: tenantPrefix, agentName, ttl };
  return addUpdate(agentSummaryEntity, summary, { sessionCount: delta }, ["sessionCount"]);
}

function notExpired(item: Item, nowSeconds: number): boolean {
  return typeof item.ttl !== "number" || item.ttl > nowSeconds;
}

/**
 * What a rollup item holds: its `rollupKind`, or for an item written before that attribute existed, the
 * descriptive attribute only that kind carries (`toolName`, `reason`). Never the sort key, which holds
 * client text (a failure reason may contain `#TOOL#`).
 */
function rollupKindOf(item: Item): RollupKind {
  if (
    item.rollupKind === "day" ||
    item.rollupKind === "durations" ||
    item.rollupKind === "tool" ||
    item.rollupKind === "failure" ||
    item.rollupKind === "model"
  ) {
    return item.rollupKind;
  }
  if (item.rollupKind === "agentSummary") return "agentSummary";
  if (Object.hasOwn(item, "toolName")) return "tool";
  if (Object.hasOwn(item, "reason")) return "failure";
  return "day";
}

/** An item of a day-rollup partition as the row of its kind (checked: ItemShapeError when it is none). */
export type RollupRow =
  | { readonly kind: "day"; readonly row: DayRow }
  | { readonly kind: "durations"; readonly row: DurationsRow }
  | { readonly kind: "tool"; readonly row: ToolRow }
  | { readonly kind: "failure"; readonly row: FailureRow }
  | { readonly kind: "model"; readonly row: ModelRow };

export function rollupRowOf(item: Item): RollupRow {
  const kind = rollupKindOf(item);
  if (kind === "tool") return { kind, row: toolRollupEntity.fromItem(item) };
  if (kind === "failure") return { kind, row: failureRollupEntity.fromItem(item) };
  if (kind === "durations") return { kind, row: durationsRollupEntity.fromItem(item) };
  if (kind === "model") return { kind, row: modelRollupEntity.fromItem(item) };
  return { kind: "day", row: dayRollupEntity.fromItem(item) };
}

/** An agent summary item as the agent and its session count (checked). */
export function agentSummaryOf(item: Item): AgentSummary {
  return agentSummaryEntity.fromItem(item);
}

/** The day, tool, failure, model and score rows of one agent or user over the days `fromDay`…`toDay` (inclusive). */
export interface RollupRows {
  readonly days: DayRow[];
  readonly tools: ToolRow[];
  readonly failures: FailureRow[];
  /** Per model and day (agents only). */
  readonly models: ModelRow[];
  /** Per score name and day (agents only: score-rollup.ts). */
  readonly scores: ScoreRow[];
}

/** Stats of one agent or user over the days `fromDay`…`toDay` (inclusive). */
export async function readStats(
  tenantPrefix: string,
  dimension: RollupDimension,
  value: string,
  fromDay: string,
  toDay: string,
  nowMs = Date.now(),
) {
  const { days, tools, failures, scores } = await readRollupRows(tenantPrefix, dimension, value, fromDay, toDay, nowMs);
  return { ...assembleStats(days, tools, failures), ...(dimension === "AGENT" ? assembleScoreStats(scores) : {}) };
}

/**
 * The `rollupKind`s a read may be limited to (`score`: score-rollup.ts); an item written before the attribute existed
 * (a day, tool or failure item) is read whatever the kinds.
 */
export type ReadableRollupKind = Exclude<RollupKind, "agentSummary"> | typeof SCORE_ROLLUP_KIND;

/**
 * The rollup rows of one agent or user over the days `fromDay`…`toDay` (inclusive): one Query, O(days). With
 * `kinds`, only items of those kinds are returned (a filter: the Query reads the same items, but returns and parses
 * only those asked for).
 */
export async function readRollupRows(
  tenantPrefix: string,
  dimension: RollupDimension,
  value: string,
  fromDay: string,
  toDay: string,
  nowMs = Date.now(),
  kinds?: readonly ReadableRollupKind[],
): Promise<RollupRows> {
  const range = rollupDayRange(fromDay, toDay);
  const kindValues = Object.fromEntries((kinds ?? []).map((kind, index) => [`:kind${index}`, kind]));
  const items = await queryAll({
    KeyConditionExpression: "PK = :pk AND SK BETWEEN :from AND :to",
    ...(kinds === undefined
      ? {}
      : {
          FilterExpression: `attribute_not_exists(rollupKind) OR rollupKind IN (${Object.keys(kindValues).join(", ")})`,
        }),
    ExpressionAttributeValues: {
      ":pk": rollupPartition(tenantPrefix, dimension, value),
      ":from": range.from,
      ":to": range.to,
      ...kindValues,
    },
  });
  const days: DayRow[] = [];
  const tools: ToolRow[] = [];
  const failures: FailureRow[] = [];
  const models: ModelRow[] = [];
  const scores: ScoreRow[] = [];
  const bins = new Map<string, DurationBins>();
  for (const item of items) {
    if (!notExpired(item, nowMs / 1000)) continue;
    if (item.rollupKind === SCORE_ROLLUP_KIND) {
      scores.push(scoreRowOf(item));
      continue;
    }
    const found = rollupRowOf(item);
    if (found.kind === "tool") tools.push(found.row);
    else if (found.kind === "failure") failures.push(found.row);
    else if (found.kind === "durations") bins.set(found.row.day, found.row.bins);
    else if (found.kind === "model") models.push(found.row);
    else if (found.kind === "day") days.push(found.row);
  }
  // Written in the same transaction as its day item's durationCount, a duration item never stands alone.
  for (const day of days) day.durationBins = bins.get(day.day) ?? new Map();
  return { days, tools, failures, models, scores };
}

/**
 * An agent's per-model rows over the days `fromDay`…`toDay` (inclusive): one Query of its rollup partition, only
 * the model items returned (a filter on `rollupKind`), O(days × models).
 */
export async function readModelRows(
  tenantPrefix: string,
  agentName: string,
  fromDay: string,
  toDay: string,
  nowMs = Date.now(),
): Promise<ModelRow[]> {
  const range = rollupDayRange(fromDay, toDay);
  const items = await queryAll({
    KeyConditionExpression: "PK = :pk AND SK BETWEEN :from AND :to",
    FilterExpression: "rollupKind = :model",
    ExpressionAttributeValues: {
      ":pk": rollupPartition(tenantPrefix, "AGENT", agentName),
      ":from": range.from,
      ":to": range.to,
      ":model": "model" satisfies RollupKind,
    },
  });
  return items.flatMap((item) => {
    if (!notExpired(item, nowMs / 1000)) return [];
    const found = rollupRowOf(item);
    return found.kind === "model" ? [found.row] : [];
  });
}

/**
 * The last UTC day on which one agent or user started a session (or had one counted), whatever the period: the
 * newest item of its rollup partition (a day's tool and failure items sort after the day). One item read.
 */
export async function lastRollupDay(
  tenantPrefix: string,
  dimension: RollupDimension,
  value: string,
  nowMs = Date.now(),
): Promise<string | null> {
  const range = rollupDayRange("0000-01-01", "9999-12-31");
  const page = await queryPage({
    KeyConditionExpression: "PK = :pk AND SK BETWEEN :from AND :to",
    ExpressionAttributeValues: {
      ":pk": rollupPartition(tenantPrefix, dimension, value),
      ":from": range.from,
      ":to": range.to,
    },
    ScanIndexForward: false,
    Limit: 1,
  });
  const item = page.items[0];
  if (item === undefined || !notExpired(item, nowMs / 1000)) return null;
  return typeof item.day === "string" ? item.day : null;
}

/** The tenant's agents with their session counts, by name. */
export async function listAgents(tenantPrefix: string, nowMs = Date.now()): Promise<AgentSummary[]> {
  const items = await queryAll({
    KeyConditionExpression: "PK = :pk",
    ExpressionAttributeValues: { ":pk": agentSummaryPartition(tenantPrefix) },
  });
  return items
    .filter((item) => notExpired(item, nowMs / 1000))
    .map(agentSummaryOf)
    .filter((summary) => summary.sessionCount > 0);
}
