/**
 * What an export unit holds, read with time-indexed queries only (issue 35; docs/data-model.md pattern 71):
 * the tenant's sessions started in the hour from GSI1 (`<tenant>#SESSIONS`, sorted by `<createdAt>#<id>`), read
 * whole (strongly consistent BatchGetItem), then each one's events and scores (one paged Query of its partition,
 * `SK BETWEEN "EVENT#" AND "SCORE#~"`, strongly consistent); or the tenant's conversations started in the hour
 * (GSI1 `<tenant>#CONVERSATIONS`), each partition (its summary and its own scores) read with one Query. Items past
 * their `ttl` are left out, as the read API leaves them out. Nothing is ever scanned.
 */
import type { ExportUnit } from "../../domain/export-changes.js";
import { batchGetItems } from "../table/batch-operations.js";
import type { Item } from "../table/entity.js";
import { conversationListPartitions, sessionKey, tenant } from "../table/keys.js";
import { INDEXES } from "../table/table-definition.js";
import { queryPages } from "../table/table-operations.js";

/** Sessions (or conversations) whose partitions are read at once. */
const CONCURRENCY = 8;

function isLive(item: Item, nowMs: number): boolean {
  return !(typeof item.ttl === "number" && item.ttl * 1000 <= nowMs);
}

/** GSI1 keys of the tenant's partition entries whose sort key starts in the unit's hour, page by page. */
async function* hourKeys(partition: string, hour: string): AsyncGenerator<Item[]> {
  for await (const page of queryPages({
    index: INDEXES.tenantSessions,
    KeyConditionExpression: "GSI1PK = :pk AND GSI1SK BETWEEN :from AND :to",
    ExpressionAttributeValues: { ":pk": partition, ":from": `${hour}:`, ":to": `${hour}:~` },
  })) {
    yield page.items;
  }
}

async function partitionItems(partition: string, range: { from: string; to: string } | undefined, nowMs: number) {
  const items: Item[] = [];
  for await (const page of queryPages({
    KeyConditionExpression: range === undefined ? "PK = :pk" : "PK = :pk AND SK BETWEEN :from AND :to",
    ExpressionAttributeValues: {
      ":pk": partition,
      ...(range === undefined ? {} : { ":from": range.from, ":to": range.to }),
    },
    ConsistentRead: true,
  })) {
    for (const item of page.items) if (isLive(item, nowMs)) items.push(item);
  }
  return items;
}

/** A session of the unit with its events and scores (items as stored). */
export interface SessionPartition {
  readonly session: Item;
  readonly items: readonly Item[];
}

/** The unit's sessions, each with its events and scores, CONCURRENCY partitions at a time. */
export async function* sessionsOfUnit(unit: ExportUnit, nowMs = Date.now()): AsyncGenerator<SessionPartition> {
  const partition = `${tenant(unit.orgId, unit.environment)}#SESSIONS`;
  for await (const keys of hourKeys(partition, unit.hour)) {
    const sessions = (await batchGetItems(keys.map((key) => ({ PK: String(key.PK), SK: String(key.SK) }))))
      .filter((item) => item.entity === "session" && isLive(item, nowMs))
      // A session moved to another hour since the index page was read is exported with that hour.
      .filter((item) => typeof item.createdAt === "string" && item.createdAt.startsWith(`${unit.hour}:`));
    for (let start = 0; start < sessions.length; start += CONCURRENCY) {
      const slice = sessions.slice(start, start + CONCURRENCY);
      const read = await Promise.all(
        slice.map((session) =>
          partitionItems(sessionKey(String(session.id)).PK, { from: "EVENT#", to: "SCORE#~" }, nowMs),
        ),
      );
      for (let i = 0; i < slice.length; i++) yield { session: slice[i] as Item, items: read[i] as Item[] };
    }
  }
}

/** A conversation of the unit: its summary and its own scores. */
export interface ConversationPartition {
  readonly summary: Item;
  readonly scores: readonly Item[];
}

export async function* conversationsOfUnit(
  unit: ExportUnit,
  nowMs = Date.now(),
): AsyncGenerator<ConversationPartition> {
  const partition = conversationListPartitions(unit.orgId, unit.environment, "", "").all;
  for await (const keys of hourKeys(partition, unit.hour)) {
    for (let start = 0; start < keys.length; start += CONCURRENCY) {
      const read = await Promise.all(
        keys.slice(start, start + CONCURRENCY).map((key) => partitionItems(String(key.PK), undefined, nowMs)),
      );
      for (const items of read) {
        const summary = items.find((item) => item.SK === "CONVERSATION" && item.entity === "conversation");
        if (summary === undefined) continue;
        yield { summary, scores: items.filter((item) => item.entity === "score") };
      }
    }
  }
}
