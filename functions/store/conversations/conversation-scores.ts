/**
 * A conversation's scores as its page shows them (issue 33): its own first scores, and the score totals over its own
 * scores and its runs' scores — bounded: the conversation's partition and its first MAX_SCORED_RUNS runs' partitions,
 * at most SCORES_TOTALLED_PER_TARGET scores of each (one Query each, eventually consistent, projected to name and
 * value), so a read makes at most 1 + MAX_SCORED_RUNS queries of at most that many items. Past either bound the
 * totals say they are incomplete (`scoresComplete: false`).
 */
import type { Conversation } from "../../domain/conversation.js";
import { type NamedValue, type ScoreTotal, scoreTotalsOf } from "../../domain/conversation-score-totals.js";
import { LIMITS } from "../../domain/limits.js";
import type { Principal } from "../../domain/principal.js";
import type { Score } from "../../domain/score.js";
import { firstScoresOf } from "../scores/score-store.js";
import { conversationKey, SCORE_PREFIX, sessionKey } from "../table/keys.js";
import { queryPage } from "../table/table-operations.js";

/** Runs whose scores the totals include (the first ones, in order of their start). */
export const MAX_SCORED_RUNS = 20;
/** Scores read per target (the conversation, each run) for the totals. */
export const SCORES_TOTALLED_PER_TARGET = 100;

export interface ConversationScores {
  /** Its own first scores, oldest first, and whether it has more. */
  readonly scores: Score[];
  readonly truncated: boolean;
  /** On the first page only: per name over what was read, and whether that was every score of it and its runs. */
  readonly totals?: { readonly byName: ScoreTotal[]; readonly complete: boolean } | undefined;
}

/** A target's first SCORES_TOTALLED_PER_TARGET scores (name and value), and whether that is all of them. */
async function namedValuesOf(partitionKey: string, nowMs: number): Promise<{ values: NamedValue[]; all: boolean }> {
  const page = await queryPage({
    KeyConditionExpression: "PK = :pk AND begins_with(SK, :scores)",
    FilterExpression: "attribute_not_exists(#ttl) OR #ttl > :now",
    ProjectionExpression: "#name, #value",
    ExpressionAttributeNames: { "#name": "name", "#value": "value", "#ttl": "ttl" },
    ExpressionAttributeValues: { ":pk": partitionKey, ":scores": SCORE_PREFIX, ":now": Math.floor(nowMs / 1000) },
    Limit: SCORES_TOTALLED_PER_TARGET,
    ConsistentRead: false,
  });
  const values = page.items.flatMap((item) => {
    const { name, value } = item;
    if (typeof name !== "string") return [];
    if (typeof value !== "number" && typeof value !== "boolean" && typeof value !== "string") return [];
    return [{ name, value }];
  });
  return { values, all: page.lastKey === undefined };
}

/**
 * The conversation's first scores and, when `totalledRunIds` is given (the first page's runs totalled, in order), the
 * score totals over its own scores and its first MAX_SCORED_RUNS runs' scores.
 */
export async function conversationScoresOf(
  principal: Principal,
  conversation: Conversation,
  totalledRunIds: readonly string[] | undefined,
  nowMs = Date.now(),
): Promise<ConversationScores> {
  const partition = conversationKey(principal.orgId, principal.environment, conversation.id).PK;
  const scoredRuns = (totalledRunIds ?? []).slice(0, MAX_SCORED_RUNS);
  const targets = totalledRunIds === undefined ? [] : [partition, ...scoredRuns.map((id) => sessionKey(id).PK)];
  const [own, read] = await Promise.all([
    firstScoresOf(partition, LIMITS.sessionScoresShown, nowMs),
    Promise.all(targets.map((key) => namedValuesOf(key, nowMs))),
  ]);
  if (totalledRunIds === undefined) return { scores: own.scores, truncated: own.truncated };
  const { totals, truncated } = scoreTotalsOf(read.flatMap(({ values }) => values));
  const complete =
    read.every(({ all }) => all) &&
    totalledRunIds.length <= MAX_SCORED_RUNS &&
    conversation.runCount <= MAX_SCORED_RUNS;
  return {
    scores: own.scores,
    truncated: own.truncated,
    totals: { byName: totals, complete: complete && !truncated },
  };
}
