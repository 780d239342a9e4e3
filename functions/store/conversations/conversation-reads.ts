/**
 * Reading conversations (issue 33), every read bounded and by key: a tenant's conversations newest first
 * (the summaries' listing indexes, docs/data-model.md patterns 51–51c), one conversation's summary (52) and
 * its runs in order (53: the memberships on GSI1, keys only, then the sessions by BatchGetItem).
 */
import { type Conversation, type ConversationTotals, conversationTotals } from "../../domain/conversation.js";
import { NotFoundError } from "../../domain/errors.js";
import type { Principal } from "../../domain/principal.js";
import type { Session } from "../../domain/session.js";
import { sessionFromItem } from "../sessions/session-store.js";
import { batchGetItems } from "../table/batch-operations.js";
import { cursorScope, decodeCursor, encodeCursor } from "../table/cursor-signing.js";
import type { Item } from "../table/entity.js";
import {
  agentSortPrefix,
  conversationKey,
  conversationListPartitions,
  conversationRunsPartition,
  sessionIdOfPartition,
  sessionKey,
} from "../table/keys.js";
import { isExpired } from "../table/retention.js";
import { INDEXES, type IndexDefinition } from "../table/table-definition.js";
import { getItem, keyOf, queryPage } from "../table/table-operations.js";
import { conversationFromItem, isShownSummary } from "./conversation-items.js";

export interface ConversationFilters {
  readonly agentName?: string | undefined;
  readonly userId?: string | undefined;
  readonly from?: string | undefined;
  readonly to?: string | undefined;
}

/** Index queries one listing page may make at most (then it ends with a cursor), as for sessions. */
export const MAX_CONVERSATION_QUERIES_PER_PAGE = 3;

/** The most runs a conversation's totals are summed over (its first ones); beyond, the totals say so. */
export const MAX_TOTALLED_RUNS = 200;

export interface ConversationPage {
  readonly items: Conversation[];
  readonly nextCursor: string | null;
}

function listingQuery(principal: Principal, filters: ConversationFilters) {
  const partitions = conversationListPartitions(
    principal.orgId,
    principal.environment,
    filters.agentName ?? "",
    filters.userId ?? "",
  );
  const agent = filters.agentName === undefined ? "" : agentSortPrefix(filters.agentName);
  const at = (index: IndexDefinition, partition: string, prefix = "") => ({ index, partition, prefix });
  if (filters.userId !== undefined) {
    return filters.agentName === undefined
      ? at(INDEXES.userSessions, partitions.user)
      : at(INDEXES.userAgentSessions, partitions.user, agent);
  }
  return filters.agentName === undefined
    ? at(INDEXES.tenantSessions, partitions.all)
    : at(INDEXES.agentSessionsAndKeyIds, partitions.agent);
}

/**
 * One page of the tenant's conversations, newest first by their first run's start, filtered by agent and/or
 * external user (the first run's) and a period of that start: one key condition per combination. Reads at most
 * MAX_CONVERSATION_QUERIES_PER_PAGE keys-only index pages of up to `limit` keys and the summaries they name;
 * conversations past their retention or with every run deleted are left out.
 */
export async function listConversations(
  principal: Principal,
  filters: ConversationFilters,
  page: { readonly limit: number; readonly cursor?: string | undefined },
  nowMs = Date.now(),
): Promise<ConversationPage> {
  const query = listingQuery(principal, filters);
  const scope = cursorScope(["conversations", principal.orgId, principal.environment, filters]);
  let startKey = page.cursor === undefined ? undefined : await decodeCursor(page.cursor, scope);
  const lower = `${query.prefix}${filters.from ?? "0"}`;
  const upper = `${query.prefix}${filters.to === undefined ? "~" : `${filters.to}#~`}`;
  const items: Conversation[] = [];
  for (let queries = 0; queries < MAX_CONVERSATION_QUERIES_PER_PAGE && items.length < page.limit; queries++) {
    const result = await queryPage({
      index: query.index,
      KeyConditionExpression: "#pk = :pk AND #sk BETWEEN :lower AND :upper",
      ExpressionAttributeNames: { "#pk": query.index.partitionKey, "#sk": query.index.sortKey },
      ExpressionAttributeValues: { ":pk": query.partition, ":lower": lower, ":upper": upper },
      ScanIndexForward: false,
      Limit: page.limit - items.length,
      startKey,
    });
    const summaries = await batchGetItems(result.items.map(keyOf), { consistent: false });
    items.push(
      ...summaries.filter((item) => !isExpired(item, nowMs) && isShownSummary(item)).map(conversationFromItem),
    );
    startKey = result.lastKey;
    if (startKey === undefined) break;
  }
  return { items, nextCursor: startKey === undefined ? null : await encodeCursor(startKey, scope) };
}

/** A conversation of the principal's tenant: 404 when unknown, expired, with every run deleted, or another tenant's. */
export async function getConversation(
  principal: Principal,
  conversationId: string,
  nowMs = Date.now(),
): Promise<Conversation> {
  // The tenant is part of the key: another tenant's conversation of this id is simply not found here.
  const item = await getItem(conversationKey(principal.orgId, principal.environment, conversationId));
  if (item === undefined || isExpired(item, nowMs) || !isShownSummary(item)) {
    throw new NotFoundError(`Conversation ${conversationId} not found`);
  }
  return conversationFromItem(item);
}

export interface ConversationRunsPage {
  /** The runs of the page, oldest first (the conversation's turns in order). */
  readonly runs: Session[];
  readonly nextCursor: string | null;
  /** On the first page only: the totals over the conversation's first MAX_TOTALLED_RUNS runs, and whether that is all. */
  readonly totals?:
    | {
        readonly figures: ConversationTotals;
        readonly complete: boolean;
        /** The runs summed, in order of their start (their scores are totalled too, conversation-scores.ts). */
        readonly sessionIds: readonly string[];
      }
    | undefined;
}

/** The sessions named by membership keys, in their order (expired ones left out). */
async function sessionsOf(memberships: readonly Item[], nowMs: number): Promise<Session[]> {
  const keys = memberships.flatMap((membership) => {
    const sessionId = sessionIdOfPartition(String(membership.PK));
    return sessionId === undefined ? [] : [sessionKey(sessionId)];
  });
  const items = await batchGetItems(keys, { consistent: false });
  return items.filter((item) => !isExpired(item, nowMs)).map(sessionFromItem);
}

/**
 * A page of a conversation's runs in order of their start (`limit` ≤ 100). The first page (no cursor) also sums
 * the conversation's first MAX_TOTALLED_RUNS runs, in the same read: one keys-only query of at most that many
 * memberships and the sessions they name; its first `limit` runs are the page. A later page reads its runs only.
 */
export async function listConversationRuns(
  principal: Principal,
  conversationId: string,
  page: { readonly limit: number; readonly cursor?: string | undefined },
  nowMs = Date.now(),
): Promise<ConversationRunsPage> {
  const scope = cursorScope(["conversation-runs", principal.orgId, principal.environment, conversationId]);
  const startKey = page.cursor === undefined ? undefined : await decodeCursor(page.cursor, scope);
  const totalling = startKey === undefined;
  const index = INDEXES.tenantSessions;
  const result = await queryPage({
    index,
    KeyConditionExpression: "#pk = :pk",
    ExpressionAttributeNames: { "#pk": index.partitionKey },
    ExpressionAttributeValues: {
      ":pk": conversationRunsPartition(principal.orgId, principal.environment, conversationId),
    },
    ScanIndexForward: true,
    // One more than is summed: whether the totals are complete is then known without another read.
    Limit: totalling ? MAX_TOTALLED_RUNS + 1 : page.limit,
    startKey,
  });
  const memberships = result.items;
  const pageMemberships = memberships.slice(0, page.limit);
  const lastOfPage = pageMemberships.at(-1);
  const nextKey = memberships.length > page.limit && lastOfPage !== undefined ? lastOfPage : result.lastKey;
  const totalled = memberships.slice(0, MAX_TOTALLED_RUNS);
  const sessions = await sessionsOf(totalling ? totalled : pageMemberships, nowMs);
  const pageIds = new Set(pageMemberships.map((membership) => String(membership.PK)));
  const runs = sessions.filter((session) => pageIds.has(sessionKey(session.id).PK));
  return {
    runs,
    nextCursor: nextKey === undefined ? null : await encodeCursor(indexCursorKey(nextKey), scope),
    ...(totalling
      ? {
          totals: {
            figures: conversationTotals(sessions),
            complete: memberships.length <= MAX_TOTALLED_RUNS && result.lastKey === undefined,
            sessionIds: sessions.map((session) => session.id),
          },
        }
      : {}),
  };
}

/** The exclusive start key of a keys-only GSI1 query: the table's and the index's keys of an item it returned. */
function indexCursorKey(item: Item): Item {
  return { PK: item.PK, SK: item.SK, GSI1PK: item.GSI1PK, GSI1SK: item.GSI1SK };
}
