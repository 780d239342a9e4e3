/**
 * Rollup items: per tenant, per agent and per external user, per UTC day.
 * Writers get transaction items (so a rollup changes in the same transaction
 * as the session that causes it); readers get a stats response from one
 * Query per dimension, O(days) items.
 */
import { QueryCommand } from "@aws-sdk/lib-dynamodb";
import {
  assembleStats,
  BUCKET_COUNT,
  bucketAttribute,
  DAY_COUNTERS,
  type DayCounters,
  type DayRow,
  type FailureRow,
  type ToolRow,
} from "../domain/rollup.js";
import { documentClient, tableName } from "./dynamo-client.js";
import {
  agentSummaryKey,
  agentSummaryPartition,
  type ItemKey,
  type RollupDimension,
  rollupDayKey,
  rollupDayRange,
  rollupFailureKey,
  rollupPartition,
  rollupToolKey,
} from "./keys.js";

export const ROLLUP_ENTITY = "rollup";
const MAX_REASON_KEY_LENGTH = 200;

type Item = Record<string, unknown>;

/** What a rollup item holds, stored on it (`rollupKind`): its sort key holds client text, so it is never parsed. */
export type RollupKind = "day" | "tool" | "failure" | "agentSummary";

/**
 * An Update transaction item that ADDs `counters` (zeros left out) and stamps descriptive attributes.
 * Counter names are ours (DAY_COUNTERS, `calls`, …), never client text; a value that is not a finite
 * number is a defect upstream and is refused here rather than written.
 */
function addUpdate(key: ItemKey, counters: Record<string, number>, attributes: Item) {
  const names: Record<string, string> = {};
  const values: Record<string, unknown> = {};
  const adds: string[] = [];
  const sets: string[] = [];
  for (const [name, value] of Object.entries(counters)) {
    if (typeof value !== "number" || !Number.isFinite(value)) {
      throw new Error(`Rollup counter ${name} of ${key.PK} / ${key.SK} is not a finite number: ${String(value)}`);
    }
    if (value === 0) continue;
    names[`#${name}`] = name;
    values[`:${name}`] = value;
    adds.push(`#${name} :${name}`);
  }
  for (const [name, value] of Object.entries(attributes)) {
    names[`#${name}`] = name;
    values[`:${name}`] = value;
    sets.push(`#${name} = :${name}`);
  }
  const expression = [adds.length > 0 ? `ADD ${adds.join(", ")}` : "", `SET ${sets.join(", ")}`].join(" ").trim();
  return {
    Update: {
      TableName: tableName,
      Key: key,
      UpdateExpression: expression,
      ExpressionAttributeNames: names,
      ExpressionAttributeValues: values,
    },
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
  readonly failure?: { readonly reason: string; readonly count: number };
}

const DIMENSIONS: readonly { dimension: RollupDimension; value: (target: RollupTarget) => string }[] = [
  { dimension: "AGENT", value: (target) => target.agentName },
  { dimension: "USER", value: (target) => target.userId },
];

/** Transaction items applying `change` to the agent's and the user's day. */
export function rollupUpdates(target: RollupTarget, change: RollupChange) {
  return DIMENSIONS.flatMap(({ dimension, value }) => {
    const partition = rollupPartition(target.tenant, dimension, value(target));
    const common = { entity: ROLLUP_ENTITY, day: target.day, ttl: target.ttl };
    const items = [
      addUpdate(rollupDayKey(partition, target.day), change.counters as Record<string, number>, {
        ...common,
        rollupKind: "day" satisfies RollupKind,
      }),
    ];
    for (const [toolName, counts] of Object.entries(change.tools ?? {})) {
      if (counts.calls === 0 && counts.errors === 0) continue;
      items.push(
        addUpdate(
          rollupToolKey(partition, target.day, toolName),
          { calls: counts.calls, errors: counts.errors },
          { ...common, rollupKind: "tool" satisfies RollupKind, toolName },
        ),
      );
    }
    if (change.failure !== undefined) {
      const { count } = change.failure;
      // Key attributes are bounded (1 KB); a longer reason is grouped by its first characters.
      const reason = [...change.failure.reason].slice(0, MAX_REASON_KEY_LENGTH).join("");
      items.push(
        addUpdate(
          rollupFailureKey(partition, target.day, reason),
          { count },
          { ...common, rollupKind: "failure" satisfies RollupKind, reason },
        ),
      );
    }
    return items;
  });
}

/** The transaction item counting a session in (or, with -1, out of) its agent's summary. */
export function agentSummaryUpdate(tenantPrefix: string, agentName: string, delta: 1 | -1, ttl: number) {
  return addUpdate(
    agentSummaryKey(tenantPrefix, agentName),
    { sessionCount: delta },
    { entity: ROLLUP_ENTITY, rollupKind: "agentSummary" satisfies RollupKind, agentName, ttl },
  );
}

async function queryAll(input: { partition: string; from?: string; to?: string }): Promise<Item[]> {
  const items: Item[] = [];
  let startKey: Item | undefined;
  do {
    const page = await documentClient.send(
      new QueryCommand({
        TableName: tableName,
        KeyConditionExpression: input.from === undefined ? "PK = :pk" : "PK = :pk AND SK BETWEEN :from AND :to",
        ExpressionAttributeValues: {
          ":pk": input.partition,
          ...(input.from === undefined ? {} : { ":from": input.from, ":to": input.to }),
        },
        ExclusiveStartKey: startKey,
      }),
    );
    items.push(...(page.Items ?? []));
    startKey = page.LastEvaluatedKey;
  } while (startKey !== undefined);
  return items;
}

function notExpired(item: Item, nowSeconds: number): boolean {
  return typeof item.ttl !== "number" || item.ttl > nowSeconds;
}

function num(value: unknown): number {
  return typeof value === "number" ? value : 0;
}

/**
 * What a rollup item holds: its `rollupKind`, or for an item written before that attribute existed, the
 * descriptive attribute only that kind carries (`toolName`, `reason`). Never the sort key, which holds
 * client text (a failure reason may contain `#TOOL#`).
 */
function rollupKindOf(item: Item): RollupKind {
  if (item.rollupKind === "day" || item.rollupKind === "tool" || item.rollupKind === "failure") return item.rollupKind;
  if (item.rollupKind === "agentSummary") return "agentSummary";
  if (Object.hasOwn(item, "toolName")) return "tool";
  if (Object.hasOwn(item, "reason")) return "failure";
  return "day";
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
  const range = rollupDayRange(fromDay, toDay);
  const items = (await queryAll({ partition: rollupPartition(tenantPrefix, dimension, value), ...range })).filter(
    (item) => notExpired(item, nowMs / 1000),
  );
  const days: DayRow[] = [];
  const tools: ToolRow[] = [];
  const failures: FailureRow[] = [];
  for (const item of items) {
    const day = String(item.day);
    const kind = rollupKindOf(item);
    if (kind === "tool") {
      tools.push({ day, toolName: String(item.toolName), calls: num(item.calls), errors: num(item.errors) });
    } else if (kind === "failure") {
      failures.push({ day, reason: String(item.reason), count: num(item.count) });
    } else {
      const counters = Object.fromEntries(DAY_COUNTERS.map((counter) => [counter, num(item[counter])]));
      days.push({
        day,
        ...(counters as Record<(typeof DAY_COUNTERS)[number], number>),
        histogram: Array.from({ length: BUCKET_COUNT }, (_, index) => num(item[bucketAttribute(index)])),
      });
    }
  }
  return assembleStats(days, tools, failures);
}

/** The tenant's agents with their session counts, by name. */
export async function listAgents(tenantPrefix: string, nowMs = Date.now()) {
  const items = await queryAll({ partition: agentSummaryPartition(tenantPrefix) });
  return items
    .filter((item) => notExpired(item, nowMs / 1000) && num(item.sessionCount) > 0)
    .map((item) => ({ agentName: String(item.agentName), sessionCount: num(item.sessionCount) }));
}
