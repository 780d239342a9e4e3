/**
 * Score rollup items (issue 33): `ROLLUP#<tenant>#AGENT#<agent>` / `DAY#<day>#SCORE#<name>`, one per agent, score
 * name and day, in the agent's rollup partition (so AgentStats' one Query reads them with the day's other items).
 * `name` is client text: it is in the sort key and the `name` attribute, never an attribute name. The item holds
 * `count`, `numericCount`, `sum`, `trueCount`, `falseCount`, the numeric bins (`z`, `p<i>`, `n<i>`,
 * score-bins.ts) and per label `l_<h>` (its count) and `t_<h>` (its text), `h` the first 16 hex digits of the
 * label's SHA-256: a label (`__proto__` included) is only ever a value. At most MAX_SCORE_LABELS_PER_DAY labels and
 * OTHER_LABEL, counted in `labelSlots`: a write that admits a label is conditional on `labelSlots` as read.
 *
 * Written only in transactions (the stream consumer's, score-stream-counting.ts; a score's deletion,
 * functions/store/scores/score-withdrawal.ts), never by rollup-flush.ts: the items carry no shard marks.
 */
import { createHash } from "node:crypto";
import { scoreBinOf } from "../../domain/score-bins.js";
import type { ScoreRow } from "../../domain/score-stats.js";
import { type PlaceTally, SCORE_COUNTERS } from "../../domain/score-tally.js";
import type { Item } from "../table/entity.js";
import { rollupPartition, rollupScoreKey } from "../table/keys.js";
import { type TransactItem, updateRequest } from "../table/table-operations.js";

export const SCORE_ROLLUP_KIND = "score";

const LABEL_COUNT = "l_";
const LABEL_TEXT = "t_";

function labelHash(label: string): string {
  return createHash("sha256").update(label).digest("hex").slice(0, 16);
}

/** The counter of a label (`l_<hash>`) and the attribute holding its text (`t_<hash>`). */
export function labelAttributes(label: string): { readonly count: string; readonly text: string } {
  const hash = labelHash(label);
  return { count: `${LABEL_COUNT}${hash}`, text: `${LABEL_TEXT}${hash}` };
}

/** The key of a place's item. */
export function scoreRollupKey(tenantPrefix: string, place: PlaceTally["place"]) {
  return rollupScoreKey(rollupPartition(tenantPrefix, "AGENT", place.agentName), place.day, place.name);
}

/** The labels a score rollup item counts (their texts). */
export function labelsOfItem(item: Item | undefined): Set<string> {
  const labels = new Set<string>();
  for (const [name, value] of Object.entries(item ?? {})) {
    if (name.startsWith(LABEL_TEXT) && typeof value === "string") labels.add(value);
  }
  return labels;
}

/** How many label slots an item has taken (`labelSlots`), 0 when it has none. */
export function labelSlotsOf(item: Item | undefined): number {
  return typeof item?.labelSlots === "number" ? item.labelSlots : 0;
}

/**
 * The transaction item adding `share` to its place's item (creating it if need be). With `slots`, the write admits
 * new labels: it sets `labelSlots` to `slots.next` on the condition that it is still `slots.read`.
 */
export function scoreRollupUpdate(
  tenantPrefix: string,
  share: PlaceTally,
  slots?: { readonly read: number; readonly next: number },
): TransactItem {
  const add: Record<string, number> = {};
  for (const [name, value] of Object.entries(share.tally.counters)) {
    if (!Number.isFinite(value)) throw new Error(`Score counter ${name} is not a finite number`);
    add[name] = value;
  }
  const set: Record<string, unknown> = {
    entity: "rollup",
    rollupKind: SCORE_ROLLUP_KIND,
    day: share.place.day,
    name: share.place.name,
    ttl: share.ttl,
  };
  for (const [label, value] of share.tally.labels) {
    const attributes = labelAttributes(label);
    add[attributes.count] = value;
    set[attributes.text] = label;
  }
  if (slots !== undefined) set.labelSlots = slots.next;
  const condition =
    slots === undefined
      ? undefined
      : slots.read === 0
        ? { expression: "attribute_not_exists(labelSlots) OR labelSlots = :slots", values: { ":slots": 0 } }
        : { expression: "labelSlots = :slots", values: { ":slots": slots.read } };
  return {
    Update: updateRequest(
      scoreRollupKey(tenantPrefix, share.place),
      { set, add },
      {
        allowed: [...Object.keys(set), ...Object.keys(add)],
        mayCreate: true,
        ...(condition === undefined ? {} : { condition }),
      },
    ),
  };
}

function num(value: unknown): number {
  return typeof value === "number" ? value : 0;
}

/** A score rollup item as its row: counters, occupied bins, labels with their counts (zeros left out). */
export function scoreRowOf(item: Item): ScoreRow {
  const bins = new Map<number, number>();
  const labels = new Map<string, number>();
  for (const [name, value] of Object.entries(item)) {
    const bin = scoreBinOf(name);
    if (bin !== undefined && typeof value === "number" && value !== 0) bins.set(bin, value);
    if (name.startsWith(LABEL_TEXT) && typeof value === "string") {
      const count = num(item[`${LABEL_COUNT}${name.slice(LABEL_TEXT.length)}`]);
      if (count !== 0) labels.set(value, count);
    }
  }
  const counters = Object.fromEntries(SCORE_COUNTERS.map((counter) => [counter, num(item[counter])])) as Record<
    (typeof SCORE_COUNTERS)[number],
    number
  >;
  return { day: String(item.day), name: String(item.name), ...counters, bins, labels };
}
