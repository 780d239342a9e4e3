/**
 * Writing a stream batch's rollup shares: every change a batch counted adds
 * its share to its session's rollup items (functions/store/counting/rollup-store.ts
 * builds them as Update transaction items); here they are summed per item
 * across all the batch's sessions, generically (item key + attribute → one
 * ADD), and each distinct item is written once with a plain UpdateItem.
 *
 * Exactly once without transactions: each item carries, per stream shard, a
 * mark (`cm_<shard hash>` = the padded sequence of the last change it holds
 * from that shard, and the nonce of the write that set it). A change whose
 * session counters took it in this very batch ("applied now") is added; a
 * change whose session had already taken it ("applied before": a batch
 * delivered again, a consumer that died between the session writes and these)
 * is added only when it is above the item's mark. The first write assumes the
 * mark is below every such change and says so in its condition; when it is
 * not, the condition failure returns the item (ALL_OLD), the shares at or
 * below its mark are dropped and the write is tried again on that exact mark.
 * A retried request that had in fact been written finds its own nonce.
 *
 * Marks of shards that have not written to an item for longer than the
 * stream's 24-hour retention can never be needed again (no record at or below
 * them can be delivered any more): every write returns the item as it was
 * (ALL_OLD, no extra cost) and the next write of that item from this container
 * removes them, so long-lived items (agent summaries, busy days) keep few marks.
 */
import { createHash, randomBytes } from "node:crypto";
import { conditionFailureItem, isConditionFailure } from "../table/condition-failure.js";
import type { ItemKey } from "../table/keys.js";
import { type TransactItem, updateItem } from "../table/table-operations.js";
import { backoff } from "../table/write-retry.js";

/** What one Update of rollup-store.ts does to its item: descriptive attributes SET, counters ADDed. */
export interface RollupIncrement {
  readonly key: ItemKey;
  readonly set: Readonly<Record<string, unknown>>;
  readonly add: Readonly<Record<string, number>>;
}

const SET_CLAUSE = /^#(\w+) = :(\w+)$/;
const ADD_CLAUSE = /^#(\w+) :(\w+)$/;

/**
 * The increment an unconditional `SET #a = :a, … ADD #n :n, …` Update (table-operations.ts updateRequest with
 * `mayCreate`) stands for; throws for anything else (a condition, REMOVE, another expression), which a flush
 * could not merge.
 */
export function incrementOf(item: TransactItem): RollupIncrement {
  const update = item.Update;
  if (update === undefined || update.ConditionExpression !== undefined) {
    throw new Error("Only an unconditional Update can be merged into a rollup flush");
  }
  const names = update.ExpressionAttributeNames ?? {};
  const values = (update.ExpressionAttributeValues ?? {}) as Record<string, unknown>;
  const match = /^(?:SET (.+?))?\s*(?:ADD (.+))?$/.exec(update.UpdateExpression ?? "");
  if (match === null) throw new Error(`Not a rollup update: ${update.UpdateExpression}`);
  const parse = (clause: string | undefined, pattern: RegExp) =>
    (clause === undefined ? [] : clause.split(", ")).map((part) => {
      const found = pattern.exec(part);
      const name = found === null ? undefined : names[`#${found[1]}`];
      if (found === null || name === undefined) throw new Error(`Not a rollup update: ${update.UpdateExpression}`);
      return [name, values[`:${found[2]}`]] as const;
    });
  const add: Record<string, number> = {};
  for (const [name, value] of parse(match[2], ADD_CLAUSE)) {
    if (typeof value !== "number") throw new Error(`Rollup counter ${name} is not a number`);
    add[name] = value;
  }
  const key = update.Key as { PK: unknown; SK: unknown };
  return {
    key: { PK: String(key.PK), SK: String(key.SK) },
    set: Object.fromEntries(parse(match[1], SET_CLAUSE)),
    add,
  };
}

/** One change's Updates of rollup items, and whether its session's counters took it in this batch. */
export interface RollupShare {
  /** The change's padded sequence number. */
  readonly sequence: string;
  readonly appliedNow: boolean;
  readonly updates: readonly TransactItem[];
}

interface Contribution {
  readonly sequence: string;
  readonly appliedNow: boolean;
  readonly add: Readonly<Record<string, number>>;
}

interface PendingItem {
  readonly key: ItemKey;
  set: Record<string, unknown>;
  readonly contributions: Contribution[];
}

/** The attribute holding a shard's mark on a rollup item: short, so that the marks of many shards stay small. */
export function rollupMarkAttribute(shardId: string): string {
  return `cm_${createHash("sha256").update(shardId).digest("hex").slice(0, 12)}`;
}

/** Sequences are padded to this width (functions/domain/session-counting.ts paddedSequence). */
const SEQUENCE_WIDTH = 40;
const MARK_PREFIX = "cm_";
/** A mark not rewritten for this long is past the stream's 24-hour retention (with an hour to spare). */
const STALE_MARK_SECONDS = 25 * 60 * 60;
/** Items whose stale marks this container will remove on their next write (bounded: forgotten when full). */
const staleMarks = new Map<string, string[]>();
const STALE_MARKS_KEPT = 10_000;

/** A mark's value: the padded sequence, the writing flush's nonce, and when it was written (epoch seconds). */
function markValue(sequence: string, nonce: string, nowSeconds: number): string {
  return `${sequence}.${nonce}.${nowSeconds}`;
}

/** The marks of `item` (as returned by a write) other than `own` that are past the stream's retention. */
export function staleMarksOf(item: Record<string, unknown>, own: string, nowSeconds: number): string[] {
  return Object.entries(item).flatMap(([name, value]) => {
    if (!name.startsWith(MARK_PREFIX) || name === own || typeof value !== "string") return [];
    const writtenAt = Number(value.split(".")[2]);
    return Number.isFinite(writtenAt) && nowSeconds - writtenAt > STALE_MARK_SECONDS ? [name] : [];
  });
}

function rememberStale(id: string, names: readonly string[]): void {
  if (names.length === 0) return;
  if (staleMarks.size >= STALE_MARKS_KEPT) staleMarks.clear();
  staleMarks.set(id, [...names]);
}
/** Rollup items written at once. */
const CONCURRENCY = 32;
/** Attempts per item (each after a condition failure that moved its mark, or a throttle). */
const ATTEMPTS = 8;

/** The shares summed per rollup item (key → descriptive attributes and its contributions). */
export function pendingItems(shares: readonly RollupShare[]): PendingItem[] {
  const items = new Map<string, PendingItem>();
  for (const share of shares) {
    for (const update of share.updates) {
      const increment = incrementOf(update);
      const id = `${increment.key.PK}\u0000${increment.key.SK}`;
      let pending = items.get(id);
      if (pending === undefined) {
        pending = { key: increment.key, set: {}, contributions: [] };
        items.set(id, pending);
      }
      pending.set = { ...pending.set, ...increment.set };
      pending.contributions.push({ sequence: share.sequence, appliedNow: share.appliedNow, add: increment.add });
    }
  }
  return [...items.values()];
}

function sum(contributions: readonly Contribution[]): Record<string, number> {
  const totals: Record<string, number> = {};
  for (const { add } of contributions) {
    for (const [name, value] of Object.entries(add)) totals[name] = (totals[name] ?? 0) + value;
  }
  return Object.fromEntries(Object.entries(totals).filter(([, value]) => value !== 0));
}

async function flushItem(markAttribute: string, item: PendingItem, nonce: string, nowSeconds: number): Promise<void> {
  const id = `${item.key.PK}\u0000${item.key.SK}`;
  const removals = staleMarks.get(id) ?? [];
  const sequences = item.contributions.map((contribution) => contribution.sequence);
  const last = sequences.reduce((highest, sequence) => (sequence > highest ? sequence : highest));
  const before = item.contributions.filter((contribution) => !contribution.appliedNow);
  const bound = before.reduce(
    (lowest, contribution) => (contribution.sequence < lowest ? contribution.sequence : lowest),
    last,
  );
  /** The mark the item holds, once a failed condition told it (undefined: none); null before that. */
  let known: string | undefined | null = null;
  for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
    const markSequence = typeof known === "string" ? known.slice(0, SEQUENCE_WIDTH) : undefined;
    const kept =
      markSequence === undefined
        ? item.contributions
        : item.contributions.filter((contribution) => contribution.appliedNow || contribution.sequence > markSequence);
    const newMark = markSequence !== undefined && markSequence > last ? markSequence : last;
    if (kept.length === 0 && newMark === markSequence) return;
    const names: Record<string, string> = { "#mark": markAttribute };
    const values: Record<string, unknown> = { ":mark": markValue(newMark, nonce, nowSeconds) };
    const sets = ["#mark = :mark"];
    Object.entries(item.set).forEach(([name, value], index) => {
      names[`#s${index}`] = name;
      values[`:s${index}`] = value;
      sets.push(`#s${index} = :s${index}`);
    });
    const adds = Object.entries(sum(kept)).map(([name, value], index) => {
      names[`#a${index}`] = name;
      values[`:a${index}`] = value;
      return `#a${index} :a${index}`;
    });
    let condition: string;
    if (known === null) {
      condition = "attribute_not_exists(#mark) OR #mark < :bound";
      values[":bound"] = bound;
    } else if (known === undefined) condition = "attribute_not_exists(#mark)";
    else {
      condition = "#mark = :expected";
      values[":expected"] = known;
    }
    const removes = removals.map((name, index) => {
      names[`#r${index}`] = name;
      return `#r${index}`;
    });
    try {
      const old = await updateItem({
        Key: { PK: item.key.PK, SK: item.key.SK },
        UpdateExpression:
          `SET ${sets.join(", ")}` +
          (adds.length === 0 ? "" : ` ADD ${adds.join(", ")}`) +
          (removes.length === 0 ? "" : ` REMOVE ${removes.join(", ")}`),
        ConditionExpression: condition,
        ExpressionAttributeNames: names,
        ExpressionAttributeValues: values,
        ReturnValues: "ALL_OLD",
        ReturnValuesOnConditionCheckFailure: "ALL_OLD",
      });
      staleMarks.delete(id);
      rememberStale(
        id,
        staleMarksOf(old ?? {}, markAttribute, nowSeconds).filter((name) => !removals.includes(name)),
      );
      return;
    } catch (error) {
      if (!isConditionFailure(error)) {
        if (attempt + 1 >= ATTEMPTS) throw error;
        await backoff(attempt + 1);
        continue;
      }
      const mark = conditionFailureItem(error)?.[markAttribute];
      // Our own write, sent again by a retry after its answer was lost: done.
      if (typeof mark === "string" && mark.split(".")[1] === nonce) return;
      known = typeof mark === "string" ? mark : undefined;
    }
  }
  throw new Error(`Rollup item ${item.key.PK} / ${item.key.SK} kept changing while it was flushed`);
}

/**
 * Writes the shares of one batch of one shard: each distinct rollup item once (32 at a time). Rejects when
 * an item could not be written; the batch is then delivered again and the items written are recognised by
 * their marks.
 */
export async function flushRollups(shardId: string, shares: readonly RollupShare[]): Promise<number> {
  const items = pendingItems(shares);
  const markAttribute = rollupMarkAttribute(shardId);
  const nonce = randomBytes(6).toString("hex");
  const nowSeconds = Math.floor(Date.now() / 1000);
  for (let start = 0; start < items.length; start += CONCURRENCY) {
    const outcomes = await Promise.allSettled(
      items.slice(start, start + CONCURRENCY).map((item) => flushItem(markAttribute, item, nonce, nowSeconds)),
    );
    const failure = outcomes.find((outcome) => outcome.status === "rejected");
    if (failure !== undefined) throw failure.reason;
  }
  return items.length;
}
