/**
 * A brute-force recount of scores (issue 33): the score items of the given sessions (and conversations), read one
 * partition at a time (no scan), grouped per agent, day and name as the stream consumer counts them, compared with the score
 * rollup items of those agents. Labels are compared exactly when a place holds at most MAX_SCORE_LABELS_PER_DAY of
 * them; otherwise the labels beyond the cap are compared as a total of `(other)` and the rest.
 */
import { QueryCommand } from "@aws-sdk/lib-dynamodb";
import { expect } from "vitest";
import { scoreBin } from "../../functions/domain/score-bins.js";
import { MAX_SCORE_LABELS_PER_DAY, OTHER_LABEL } from "../../functions/domain/score-tally.js";
import { scoreRowOf } from "../../functions/store/counting/score-rollup.js";
import { documentClient, tableName } from "../../functions/store/table/dynamo-client.js";
import { rollupPartition, tenant } from "../../functions/store/table/keys.js";

type Item = Record<string, unknown>;

async function queryAllItems(input: {
  KeyConditionExpression: string;
  FilterExpression?: string;
  ExpressionAttributeValues: Item;
}): Promise<Item[]> {
  const items: Item[] = [];
  let startKey: Item | undefined;
  do {
    const page = await documentClient.send(
      new QueryCommand({ ...input, TableName: tableName, ConsistentRead: true, ExclusiveStartKey: startKey }),
    );
    items.push(...((page.Items ?? []) as Item[]));
    startKey = page.LastEvaluatedKey as Item | undefined;
  } while (startKey !== undefined);
  return items;
}

/** The score items of the sessions (strongly consistent). */
export async function storedScores(sessionIds: readonly string[]): Promise<Item[]> {
  return storedScoresIn(sessionIds.map((sessionId) => `SESSION#${sessionId}`));
}

/** The score items of the partitions (sessions' or conversations', strongly consistent). */
export async function storedScoresIn(partitionKeys: readonly string[]): Promise<Item[]> {
  const pages = await Promise.all(
    partitionKeys.map((partitionKey) =>
      queryAllItems({
        KeyConditionExpression: "PK = :pk AND begins_with(SK, :scores)",
        ExpressionAttributeValues: { ":pk": partitionKey, ":scores": "SCORE#" },
      }),
    ),
  );
  return pages.flat();
}

/** An agent's score rollup items (strongly consistent). */
export async function scoreRollupItems(orgId: string, agentName: string): Promise<Item[]> {
  return queryAllItems({
    KeyConditionExpression: "PK = :pk AND begins_with(SK, :day)",
    FilterExpression: "rollupKind = :score",
    ExpressionAttributeValues: {
      ":pk": rollupPartition(tenant(orgId, "live"), "AGENT", agentName),
      ":day": "DAY#",
      ":score": "score",
    },
  });
}

/** What one place should hold, recounted. */
export interface Recounted {
  count: number;
  numericCount: number;
  sum: number;
  trueCount: number;
  falseCount: number;
  bins: Map<number, number>;
  labels: Map<string, number>;
}

/** Recounts the score items per `agent \0 day \0 name`. */
export function recountScores(scores: readonly Item[]): Map<string, Recounted> {
  const places = new Map<string, Recounted>();
  for (const score of scores) {
    const id = `${String(score.agentName)}\u0000${String(score.sessionDay)}\u0000${String(score.name)}`;
    const place = places.get(id) ?? {
      count: 0,
      numericCount: 0,
      sum: 0,
      trueCount: 0,
      falseCount: 0,
      bins: new Map<number, number>(),
      labels: new Map<string, number>(),
    };
    places.set(id, place);
    place.count += 1;
    if (typeof score.value === "number") {
      place.numericCount += 1;
      place.sum += score.value;
      const bin = scoreBin(score.value);
      place.bins.set(bin, (place.bins.get(bin) ?? 0) + 1);
    } else if (typeof score.value === "boolean") {
      if (score.value) place.trueCount += 1;
      else place.falseCount += 1;
    } else {
      const label = String(score.value);
      place.labels.set(label, (place.labels.get(label) ?? 0) + 1);
    }
  }
  return places;
}

/**
 * Asserts that the agents' score rollups equal a recount of the sessions' score items (every score counted, none
 * pending); resolves with the recount.
 */
export async function expectExactScoreRollups(options: {
  orgId: string;
  agentNames: readonly string[];
  sessionIds: readonly string[];
  /** Conversations' partitions whose own scores count too (`CONVERSATION#…`). */
  conversationPartitions?: readonly string[];
}): Promise<Map<string, Recounted>> {
  const scores = [
    ...(await storedScores(options.sessionIds)),
    ...(await storedScoresIn(options.conversationPartitions ?? [])),
  ];
  expect(scores.filter((score) => score.countPending === true).map((score) => score.SK)).toEqual([]);
  const recount = recountScores(scores);
  const stored = new Map<string, Recounted>();
  for (const agentName of options.agentNames) {
    for (const item of await scoreRollupItems(options.orgId, agentName)) {
      const row = scoreRowOf(item);
      if (row.count === 0 && row.labels.size === 0 && row.bins.size === 0) continue;
      stored.set(`${agentName}\u0000${row.day}\u0000${row.name}`, {
        count: row.count,
        numericCount: row.numericCount,
        sum: row.sum,
        trueCount: row.trueCount,
        falseCount: row.falseCount,
        bins: new Map(row.bins),
        labels: new Map(row.labels),
      });
    }
  }
  expect([...stored.keys()].sort()).toEqual([...recount.keys()].sort());
  for (const [place, expected] of recount) {
    const actual = stored.get(place);
    expect(actual, place).toBeDefined();
    if (actual === undefined) continue;
    expect({ ...actual, sum: undefined, labels: undefined }).toEqual({
      ...expected,
      sum: undefined,
      labels: undefined,
    });
    expect(actual.sum).toBeCloseTo(expected.sum, 9);
    if (expected.labels.size <= MAX_SCORE_LABELS_PER_DAY) expect(actual.labels).toEqual(expected.labels);
    else {
      const total = (labels: Map<string, number>) => [...labels.values()].reduce((sum, count) => sum + count, 0);
      // Past the cap: each label kept counts exactly, and the others' total is `(other)`'s.
      expect(actual.labels.size).toBeLessThanOrEqual(MAX_SCORE_LABELS_PER_DAY + 1);
      expect(total(actual.labels)).toBe(total(expected.labels));
      for (const [label, count] of actual.labels) {
        if (label !== OTHER_LABEL) expect(count, label).toBe(expected.labels.get(label));
      }
    }
  }
  return recount;
}
