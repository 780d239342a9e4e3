/**
 * Listing a tenant's sessions, newest first. Every combination of filters is
 * a key condition on one index (docs/data-model.md, patterns 7–11b); the
 * keys-only index page is then hydrated with BatchGetItem. Refinements (a
 * failure reason, a tool, a piece of the name) are checked on the sessions
 * read, within the same bounded number of index queries per page.
 */
import type { Principal } from "../../domain/principal.js";
import type { ScoreFilter } from "../../domain/score-filter.js";
import type { Session, SessionStatus } from "../../domain/session.js";
import { hasRefinements, matchesRefinements, type SessionRefinements } from "../../domain/session-refinements.js";
import { sessionsMatchingScore } from "../scores/score-filter-store.js";
import { batchGetItems } from "../table/batch-operations.js";
import { cursorScope, decodeCursor, encodeCursor } from "../table/cursor-signing.js";
import {
  agentSortPrefix,
  sessionStatusPartition,
  sessionTimelineKeys,
  sessionUserStatusPartition,
} from "../table/keys.js";
import { isExpired } from "../table/retention.js";
import { INDEXES, type IndexDefinition } from "../table/table-definition.js";
import { keyOf, queryPage } from "../table/table-operations.js";
import { sessionFromItem } from "./session-store.js";

export interface SessionFilters extends SessionRefinements {
  /** Its latest score of a name matches (one Query of the session's scores per session read). */
  readonly score?: ScoreFilter | undefined;
  readonly agentName?: string | undefined;
  readonly userId?: string | undefined;
  readonly status?: SessionStatus | undefined;
  readonly from?: string | undefined;
  readonly to?: string | undefined;
}

interface IndexQuery {
  readonly index: IndexDefinition;
  readonly partition: string;
  /** Sort-key prefix every item of this query shares (an encoded agent name), or "". */
  readonly prefix: string;
}

/**
 * The index and key condition serving a combination of filters: every combination of `agentName`,
 * `userId` and `status` is one key condition (docs/data-model.md, patterns 7–11b), so a page reads
 * only the sessions it returns.
 */
function indexQueryFor(principal: Principal, filters: SessionFilters): IndexQuery {
  const { orgId, environment } = principal;
  const timeline = sessionTimelineKeys({
    id: "",
    orgId,
    environment,
    agentName: filters.agentName ?? "",
    userId: filters.userId ?? "",
    createdAt: "",
  });
  const index = (definition: IndexDefinition, partition: string, prefix = "") => ({
    index: definition,
    partition,
    prefix,
  });
  const agent = filters.agentName === undefined ? "" : agentSortPrefix(filters.agentName);
  const { status, userId } = filters;
  if (userId !== undefined && status !== undefined) {
    // GSI7 by time, GSI8 by agent then time: one user's sessions in one status.
    return index(
      filters.agentName === undefined ? INDEXES.userStatusSessions : INDEXES.userStatusAgentSessions,
      sessionUserStatusPartition(orgId, environment, status, userId),
      agent,
    );
  }
  if (userId !== undefined)
    return filters.agentName === undefined
      ? index(INDEXES.userSessions, timeline.GSI3PK)
      : index(INDEXES.userAgentSessions, timeline.GSI6PK, agent);
  if (status !== undefined) {
    const partition = sessionStatusPartition(orgId, environment, status);
    return filters.agentName === undefined
      ? index(INDEXES.statusSessions, partition)
      : index(INDEXES.statusAgentSessions, partition, agent);
  }
  return filters.agentName === undefined
    ? index(INDEXES.tenantSessions, timeline.GSI1PK)
    : index(INDEXES.agentSessionsAndKeyIds, timeline.GSI2PK);
}

/**
 * Index queries one page may make at most: a page is filled up to `limit` sessions, reading further
 * only when sessions past their retention (not yet removed by TTL) were left out.
 */
export const MAX_QUERIES_PER_PAGE = 3;
/**
 * The same bound for a refined listing, whose sessions an index cannot pick out: a page reads at most this many
 * index pages of up to `limit` keys, and may hold fewer sessions than `limit` (even none) with a cursor to go on.
 */
export const MAX_QUERIES_PER_REFINED_PAGE = 5;
/**
 * The bound for a listing filtered by a score, whose every session read costs a Query of its scores: at most this
 * many index pages (so at most 2 × `limit` ≤ 200 sessions examined per request).
 */
export const MAX_QUERIES_PER_SCORED_PAGE = 2;

export interface SessionPage {
  readonly items: Session[];
  readonly nextCursor: string | null;
}

/**
 * One page of the tenant's sessions matching `filters`, newest first. Reads at most
 * MAX_QUERIES_PER_PAGE keys-only index pages of up to `limit` keys each, and the sessions they name
 * (BatchGetItem); a page holds fewer than `limit` sessions only when it is the last, or when that bound
 * was reached while expired sessions (or, refined, sessions not matching) were left out (the cursor then
 * continues).
 */
export async function listSessions(
  principal: Principal,
  filters: SessionFilters,
  page: { readonly limit: number; readonly cursor?: string | undefined },
  nowMs = Date.now(),
): Promise<SessionPage> {
  const query = indexQueryFor(principal, filters);
  const scope = cursorScope(["sessions", principal.orgId, principal.environment, filters]);
  let startKey = page.cursor === undefined ? undefined : await decodeCursor(page.cursor, scope);
  // Sort keys are `<prefix><createdAt>#<id>`: "0" sorts before every timestamp, "~" after every id character.
  const lower = `${query.prefix}${filters.from ?? "0"}`;
  const upper = `${query.prefix}${filters.to === undefined ? "~" : `${filters.to}#~`}`;
  const refined = hasRefinements(filters) || filters.score !== undefined;
  const maxQueries =
    filters.score !== undefined
      ? MAX_QUERIES_PER_SCORED_PAGE
      : refined
        ? MAX_QUERIES_PER_REFINED_PAGE
        : MAX_QUERIES_PER_PAGE;
  const items: Session[] = [];
  for (let queries = 0; queries < maxQueries && items.length < page.limit; queries++) {
    const result = await queryPage({
      index: query.index,
      KeyConditionExpression: "#pk = :pk AND #sk BETWEEN :lower AND :upper",
      ExpressionAttributeNames: { "#pk": query.index.partitionKey, "#sk": query.index.sortKey },
      ExpressionAttributeValues: { ":pk": query.partition, ":lower": lower, ":upper": upper },
      ScanIndexForward: false,
      Limit: page.limit - items.length,
      startKey,
    });
    const keys = result.items.map(keyOf);
    const sessions = (await batchGetItems(keys)).filter((item) => !isExpired(item, nowMs)).map(sessionFromItem);
    const refinedSessions = refined ? sessions.filter((session) => matchesRefinements(session, filters)) : sessions;
    if (filters.score === undefined) items.push(...refinedSessions);
    else {
      const matching = await sessionsMatchingScore(
        refinedSessions.map((session) => session.id),
        filters.score,
        nowMs,
      );
      items.push(...refinedSessions.filter((session) => matching.has(session.id)));
    }
    startKey = result.lastKey;
    if (startKey === undefined) break;
  }
  return { items, nextCursor: startKey === undefined ? null : await encodeCursor(startKey, scope) };
}
