/**
 * Counting scores from the table's stream (issue 33), exactly once per change. The score item is its own mark: it
 * records what was counted of it (`counted`) and a `countVersion` that every write bumps; a write by a request sets
 * `countPending`. For each score a batch names with `countPending`, the consumer reads the item strongly and, in one
 * TransactWriteItems, sets `counted` to what it holds now, removes `countPending`, bumps the version — on the
 * condition that the version is the one read — and ADDs the difference between the two counted states to the score
 * rollup items (score-rollup.ts). So:
 * - a batch delivered again, a consumer that died mid-batch, or two consumers: the second finds the score counted
 *   (no `countPending`, or a version moved on) and writes nothing;
 * - an edit moves the rollups by the difference (the replacement carries `counted` over, score-store.ts);
 * - a deleted score is gone when read: nothing is counted (its deletion withdrew what was, score-withdrawal.ts);
 * - the consumer's own update has no `countPending`: the stream filter drops it (lib/constructs/stream-counting.ts).
 * The state counted is the item's, not the record's image: records of one score are never counted one by one.
 * The same transaction adds watched score names and labels to the alert series (series-updates.ts), at the score's
 * creation time: exactly once with the score's own mark.
 */
import type { Environment } from "../../domain/api-key.js";
import {
  type CountedScore,
  countedLabel,
  countingChange,
  mergePlaceTallies,
  placeId,
  type ScorePlace,
} from "../../domain/score-tally.js";
import { scoreSeriesCounts } from "../../domain/series-counting.js";
import { watchedFacets } from "../alerts/watched-facets.js";
import { countedScoreOf, scoreTenantOf, scoreToCount, versionCondition } from "../scores/counted-score.js";
import { SCORE_ENTITY } from "../scores/score-item.js";
import { batchGetItems } from "../table/batch-operations.js";
import { isConditionFailure } from "../table/condition-failure.js";
import type { Item } from "../table/entity.js";
import { type ItemKey, isConversationPartition, sessionIdOfPartition } from "../table/keys.js";
import { type TransactItem, transact, updateRequest } from "../table/table-operations.js";
import { backoff, isTransactionConflict } from "../table/write-retry.js";
import { labelSlotsOf, labelsOfItem, scoreRollupKey, scoreRollupUpdate } from "./score-rollup.js";
import { type AgentSeriesCounts, mergedSeriesUpdates } from "./series-updates.js";
import type { ChangeRecord } from "./stream-counting.js";

/** Scores per transaction: each is one Update and at most two rollup items (≤ 30 + 60 = 90 of the 100 allowed); a group
 * whose watched scores add series items beyond 100 is split (countGroup). */
export const SCORES_PER_COUNT = 30;
const ATTEMPTS = 8;
/** DynamoDB's limit of items per TransactWriteItems. */
const MAX_TRANSACTION_ITEMS = 100;

/** A score a batch asks to count: its key and the sequence number of its first record in the batch. */
export interface ScoreToCount {
  readonly key: ItemKey;
  readonly sequence: string;
}

/** The scores of a batch with a change to count (INSERT or MODIFY by a request: `countPending`), first record each. */
export function scoresOfRecords(records: readonly ChangeRecord[]): ScoreToCount[] {
  const found = new Map<string, ScoreToCount>();
  for (const record of records) {
    if (record.eventName === "REMOVE" || record.newImage?.entity !== SCORE_ENTITY) continue;
    if (record.newImage.countPending !== true) continue;
    const key = { PK: String(record.keys.PK), SK: String(record.keys.SK) };
    // A session's score or a conversation's own score: in their target's partition.
    if (sessionIdOfPartition(key.PK) === undefined && !isConversationPartition(key.PK)) continue;
    const id = `${key.PK}\u0000${key.SK}`;
    if (!found.has(id)) found.set(id, { key, sequence: record.sequence });
  }
  return [...found.values()];
}

/** A score's counting write: what it counts now, and the condition that it is still the version read. */
function markUpdate(item: Item, counted: CountedScore): TransactItem {
  const condition = versionCondition(item);
  return {
    Update: updateRequest(
      { PK: String(item.PK), SK: String(item.SK) },
      { set: { counted }, add: { countVersion: 1 }, remove: ["countPending"] },
      {
        allowed: ["counted", "countVersion", "countPending"],
        condition: {
          expression: `countPending = :pending AND ${condition.expression}`,
          values: { ...condition.values, ":pending": true },
        },
      },
    ),
  };
}

/** The transaction counting the pending scores among `items` (read strongly), or undefined when none is. */
async function countingTransaction(items: readonly Item[], nowMs: number): Promise<TransactItem[] | undefined> {
  const pending = items.flatMap((item) => {
    const now = item.entity === SCORE_ENTITY && item.countPending === true ? scoreToCount(item, nowMs) : undefined;
    return now === undefined ? [] : [{ item, now, tenantPrefix: scoreTenantOf(item) }];
  });
  if (pending.length === 0) return undefined;
  // Labels are bounded per place: the places a label goes to are read, and a new label takes a free slot or `(other)`.
  const labelled = pending.filter(({ now }) => now.valueKind === "categorical");
  const placeKeys = new Map<string, ItemKey>();
  for (const { now, tenantPrefix } of labelled) {
    placeKeys.set(`${tenantPrefix}\u0000${placeId(now)}`, scoreRollupKey(tenantPrefix, now));
  }
  const places = new Map<string, Item>();
  for (const item of await batchGetItems([...placeKeys.values()], { consistent: true })) {
    places.set(`${String(item.PK)}\u0000${String(item.SK)}`, item);
  }
  const placeOf = (tenantPrefix: string, score: ScorePlace) => {
    const key = scoreRollupKey(tenantPrefix, score);
    return `${key.PK}\u0000${key.SK}`;
  };
  const admitted = new Map<string, Set<string>>();
  const updates: TransactItem[] = [];
  const sharesByTenant = new Map<string, ReturnType<typeof countingChange>>();
  const seriesByTenant = new Map<string, AgentSeriesCounts[]>();
  for (const { item, now, tenantPrefix } of pending) {
    let counted = now;
    if (now.valueKind === "categorical" && typeof now.value === "string") {
      const place = placeOf(tenantPrefix, now);
      const added = admitted.get(place) ?? new Set<string>();
      admitted.set(place, added);
      counted = { ...now, value: countedLabel(now.value, labelsOfItem(places.get(place)), added) };
    }
    updates.push(markUpdate(item, counted));
    const before = countedScoreOf(item);
    const shares = sharesByTenant.get(tenantPrefix) ?? [];
    shares.push(...countingChange(before, counted));
    sharesByTenant.set(tenantPrefix, shares);
    // The alert series of watched score names and labels, at the score's creation (an edit moves it in place).
    const watched = await watchedFacets(String(item.orgId), item.environment as Environment);
    const createdAt = Date.parse(String(item.createdAt));
    const atMs = Number.isFinite(createdAt) ? createdAt : nowMs;
    const series = seriesByTenant.get(tenantPrefix) ?? [];
    if (before !== undefined)
      series.push({ agent: before.agentName, counts: scoreSeriesCounts(before, -1, atMs, watched) });
    series.push({ agent: counted.agentName, counts: scoreSeriesCounts(counted, 1, atMs, watched) });
    seriesByTenant.set(tenantPrefix, series);
  }
  for (const [tenantPrefix, series] of seriesByTenant)
    updates.push(...mergedSeriesUpdates(tenantPrefix, series, nowMs));
  for (const [tenantPrefix, shares] of sharesByTenant) {
    for (const share of mergePlaceTallies(shares)) {
      const place = placeOf(tenantPrefix, share.place);
      const added = admitted.get(place)?.size ?? 0;
      const read = labelSlotsOf(places.get(place));
      updates.push(scoreRollupUpdate(tenantPrefix, share, added > 0 ? { read, next: read + added } : undefined));
    }
  }
  return updates;
}

/**
 * Counts the scores of a batch, 30 per transaction. Resolves with the sequence number of the first score's record
 * that could not be counted (it and every later record of the shard are delivered again), or undefined.
 */
export async function countScores(
  scores: readonly ScoreToCount[],
  onFailure: (error: unknown) => void,
  nowMs = Date.now(),
): Promise<string | undefined> {
  for (let start = 0; start < scores.length; start += SCORES_PER_COUNT) {
    const group = scores.slice(start, start + SCORES_PER_COUNT);
    try {
      await countGroup(
        group.map(({ key }) => key),
        nowMs,
      );
    } catch (error) {
      onFailure(error);
      return group[0]?.sequence;
    }
  }
  return undefined;
}

async function countGroup(keys: readonly ItemKey[], nowMs: number): Promise<void> {
  for (let attempt = 0; ; attempt++) {
    const transaction = await countingTransaction(await batchGetItems(keys, { consistent: true }), nowMs);
    if (transaction === undefined) return;
    if (transaction.length > MAX_TRANSACTION_ITEMS && keys.length > 1) {
      // Watched scores' series items made it too large: half the scores at a time (one score is at most 11 items).
      const half = Math.ceil(keys.length / 2);
      await countGroup(keys.slice(0, half), nowMs);
      await countGroup(keys.slice(half), nowMs);
      return;
    }
    try {
      await transact(transaction);
      return;
    } catch (error) {
      // A score written, deleted or counted meanwhile, a label slot taken, or another transaction on an item: again.
      if (!isConditionFailure(error) && !isTransactionConflict(error)) throw error;
      if (attempt + 1 >= ATTEMPTS) throw error;
      await backoff(attempt + 1);
    }
  }
}
