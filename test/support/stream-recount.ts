/**
 * Exactly-once checks of derived data (issue 14): everything the stream
 * consumer maintains — session counters, day rollups (agent and user), agent
 * summaries — compared with a brute-force recount of the session and event
 * items actually stored. Works on any table (the run's, or a dedicated
 * DynamoDB Local of a fault test) and any API (in-process or a child).
 */
import type { DynamoDBDocumentClient } from "@aws-sdk/lib-dynamodb";
import { QueryCommand } from "@aws-sdk/lib-dynamodb";
import { expect } from "vitest";
import { EVENT_USAGE_ATTRIBUTES } from "../../functions/domain/session-totals.js";
import { countersFromStored } from "../../functions/store/sessions/counter-keys.js";
import { agentSummaryPartition, rollupPartition, sessionKey, tenant } from "../../functions/store/table/keys.js";
import type { LocalApi } from "../../local/http-adapter.js";
import { bruteForceModels, bruteForceStats, comparable, countedToolName, modelCallOf } from "./brute-force-stats.js";
import { call, type TestKey } from "./fixtures.js";

type Item = Record<string, unknown>;

/** A table to read raw items from. */
export interface TableReader {
  readonly client: DynamoDBDocumentClient;
  readonly tableName: string;
}

/** Reads a JSON answer of the API (status 200 expected) at `path`. */
export type ApiGet = (path: string) => Promise<Record<string, unknown>>;

async function queryAll(reader: TableReader, partition: string): Promise<Item[]> {
  const items: Item[] = [];
  let startKey: Item | undefined;
  do {
    const page = await reader.client.send(
      new QueryCommand({
        TableName: reader.tableName,
        KeyConditionExpression: "PK = :pk",
        ExpressionAttributeValues: { ":pk": partition },
        ConsistentRead: true,
        ExclusiveStartKey: startKey,
      }),
    );
    items.push(...(page.Items ?? []));
    startKey = page.LastEvaluatedKey;
  } while (startKey !== undefined);
  return items;
}

/** Every item of the given sessions' partitions: the sessions that still exist, and every event item left. */
export async function storedRecord(
  reader: TableReader,
  sessionIds: readonly string[],
): Promise<{ sessions: Item[]; events: Item[] }> {
  const items = (await Promise.all(sessionIds.map((id) => queryAll(reader, sessionKey(id).PK)))).flat();
  return {
    sessions: items.filter((item) => item.entity === "session"),
    events: items.filter((item) => item.entity === "event"),
  };
}

const num = (value: unknown) => (typeof value === "number" ? value : 0);

/** A session's counters as stored, and the same recounted from its stored events. */
export function sessionCounters(session: Item, events: readonly Item[]) {
  const own = events.filter((event) => event.sessionId === session.id);
  const recount = {
    eventCount: own.length,
    eventCost: own.reduce((sum, event) => sum + num(event.estimatedCost), 0),
    toolCalls: Object.create(null) as Record<string, number>,
    toolErrors: Object.create(null) as Record<string, number>,
    countsAsOf: own.reduce<string | null>(
      (newest, event) => (newest === null || String(event.createdAt) > newest ? String(event.createdAt) : newest),
      null,
    ),
    // Model calls: how many, the unpriced ones, and the usage sums per token type (as the session item holds them).
    modelCalls: 0,
    unpricedCalls: 0,
    usage: Object.fromEntries(Object.values(EVENT_USAGE_ATTRIBUTES).map((attribute) => [attribute, 0])),
  };
  for (const event of own) {
    const call = modelCallOf(event);
    if (call === undefined) continue;
    recount.modelCalls += 1;
    recount.unpricedCalls += call.unpricedCalls;
    for (const [field, attribute] of Object.entries(EVENT_USAGE_ATTRIBUTES)) {
      recount.usage[attribute] = (recount.usage[attribute] ?? 0) + call[field as keyof typeof EVENT_USAGE_ATTRIBUTES];
    }
  }
  for (const event of own) {
    if (typeof event.toolName !== "string") continue;
    const counter = event.eventType === "tool_call" ? "toolCalls" : event.eventType === "error" ? "toolErrors" : null;
    if (counter === null) continue;
    const name = countedToolName(session, counter, event.toolName);
    recount[counter][name] = (recount[counter][name] ?? 0) + 1;
  }
  const stored = {
    eventCount: num(session.eventCount),
    eventCost: num(session.eventCost),
    toolCalls: countersFromStored(session.toolCalls),
    toolErrors: countersFromStored(session.toolErrors),
    countsAsOf: typeof session.countsAsOf === "string" ? session.countsAsOf : null,
    modelCalls: num(session.modelCalls),
    unpricedCalls: num(session.unpricedCalls),
    usage: Object.fromEntries(
      Object.values(EVENT_USAGE_ATTRIBUTES).map((attribute) => [attribute, num(session[attribute])]),
    ),
  };
  return { stored, recount };
}

/** Numeric attributes below zero of the tenant's rollup items of these agents and users, and its agent summaries. */
async function negativeRollupCounters(
  reader: TableReader,
  orgId: string,
  agentNames: readonly string[],
  userIds: readonly string[],
): Promise<string[]> {
  const prefix = tenant(orgId, "live");
  const partitions = [
    agentSummaryPartition(prefix),
    ...agentNames.map((name) => rollupPartition(prefix, "AGENT", name)),
    ...userIds.map((id) => rollupPartition(prefix, "USER", id)),
  ];
  const items = (await Promise.all(partitions.map((partition) => queryAll(reader, partition)))).flat();
  return items.flatMap((item) =>
    Object.entries(item)
      .filter(([name, value]) => name !== "ttl" && typeof value === "number" && value < 0)
      .map(([name, value]) => `${String(item.PK)} ${String(item.SK)} ${name}=${String(value)}`),
  );
}

/**
 * Asserts that every counter and rollup of the given sessions (those still stored) equals a brute-force recount
 * of the stored items; `agentNames`/`userIds` add dimensions to check whose sessions may all be gone (deleted).
 * Resolves with what was recounted.
 */
export async function expectExactDerivedData(options: {
  readonly reader: TableReader;
  readonly orgId: string;
  readonly sessionIds: readonly string[];
  readonly get: ApiGet;
  readonly agentNames?: readonly string[];
  readonly userIds?: readonly string[];
}): Promise<{ sessions: Item[]; events: Item[] }> {
  const { sessions, events } = await storedRecord(options.reader, options.sessionIds);
  const sessionIdsStored = new Set(sessions.map((session) => String(session.id)));
  const orphans = events.filter((event) => !sessionIdsStored.has(String(event.sessionId)));
  expect(
    orphans.map((event) => `${String(event.sessionId)}/${String(event.id)}`),
    "event items of sessions that no longer exist",
  ).toEqual([]);
  for (const session of sessions) {
    const { stored, recount } = sessionCounters(session, events);
    const { countsAsOf, ...counters } = stored;
    const { countsAsOf: newestEvent, ...recounted } = recount;
    expect(counters, `counters of session ${String(session.id)}`).toEqual(recounted);
    // countsAsOf only moves forward: at least the newest stored event's acknowledgement (a concurrent retry
    // that overwrote a keyed event may have left an older createdAt on the item than one counted before).
    if (newestEvent !== null) {
      expect(
        (countsAsOf ?? "") >= newestEvent,
        `countsAsOf ${countsAsOf} of session ${String(session.id)} before its newest event (${newestEvent})`,
      ).toBe(true);
    }
    expect(session.startCounted, `start of ${String(session.id)} counted`).toBe(true);
    expect(session.outcomeCounted === true, `outcome of ${String(session.id)} counted`).toBe(
      session.status !== "active",
    );
  }
  const agentNames = [...new Set([...(options.agentNames ?? []), ...sessions.map((s) => String(s.agentName))])];
  const userIds = [...new Set([...(options.userIds ?? []), ...sessions.map((s) => String(s.userId))])];
  for (const agentName of agentNames) {
    const served = await options.get(`/api/sdk/agents/${encodeURIComponent(agentName)}/stats`);
    expect(comparable(served as never), `stats of agent ${agentName}`).toEqual(
      bruteForceStats(sessions, events, (session) => session.agentName === agentName),
    );
  }
  for (const agentName of agentNames) {
    const served = await options.get(`/api/sdk/agents/${encodeURIComponent(agentName)}/models`);
    const { models, totals } = served as Record<string, unknown>;
    expect({ models, totals }, `models of agent ${agentName}`).toEqual(
      bruteForceModels(sessions, events, (session) => session.agentName === agentName),
    );
  }
  for (const userId of userIds) {
    const served = await options.get(`/api/sdk/users/${encodeURIComponent(userId)}/stats`);
    expect(comparable(served as never), `stats of user ${userId}`).toEqual(
      bruteForceStats(sessions, events, (session) => session.userId === userId),
    );
  }
  const listed = new Map(
    ((await options.get("/api/sdk/agents")).items as { agentName: string; sessionCount: number }[]).map((agent) => [
      agent.agentName,
      agent.sessionCount,
    ]),
  );
  for (const agentName of agentNames) {
    const count = sessions.filter((session) => session.agentName === agentName).length;
    expect(listed.get(agentName), `agent summary of ${agentName}`).toBe(count === 0 ? undefined : count);
  }
  expect(
    await negativeRollupCounters(options.reader, options.orgId, agentNames, userIds),
    "negative rollup counters",
  ).toEqual([]);
  return { sessions, events };
}

/** GET through the fixtures with `owner`'s key (each read settles the shared consumer first); the body of a 200. */
export function settledGet(api: LocalApi, owner: TestKey): ApiGet {
  return async (path) => {
    const response = await call(api, "GET", path, { key: owner.key });
    expect(response.status, `GET ${path}: ${response.text.slice(0, 200)}`).toBe(200);
    return response.body;
  };
}
