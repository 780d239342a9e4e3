/**
 * Listing a tenant's sessions, newest first. Every combination of filters is
 * a key condition on one index (docs/data-model.md, patterns 7–11b); the
 * keys-only index page is then hydrated with BatchGetItem.
 */
import { QueryCommand } from "@aws-sdk/lib-dynamodb";
import type { Principal } from "../domain/principal.js";
import type { Session, SessionStatus } from "../domain/session.js";
import { batchGetItems } from "./batch-get.js";
import { cursorScope, decodeCursor, encodeCursor } from "./cursor-signing.js";
import { documentClient, tableName } from "./dynamo-client.js";
import type { ItemKey } from "./keys.js";
import { agentSortPrefix, sessionStatusPartition, sessionTimelineKeys, sessionUserStatusPartition } from "./keys.js";
import { isExpired } from "./retention.js";
import { sessionFromItem } from "./session-store.js";

export interface SessionFilters {
  readonly agentName?: string | undefined;
  readonly userId?: string | undefined;
  readonly status?: SessionStatus | undefined;
  readonly from?: string | undefined;
  readonly to?: string | undefined;
}

interface IndexQuery {
  readonly indexName: string;
  readonly partitionAttribute: string;
  readonly sortAttribute: string;
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
  const index = (n: number, partition: string, prefix = "") => ({
    indexName: `GSI${n}`,
    partitionAttribute: `GSI${n}PK`,
    sortAttribute: `GSI${n}SK`,
    partition,
    prefix,
  });
  const agent = filters.agentName === undefined ? "" : agentSortPrefix(filters.agentName);
  const { status, userId } = filters;
  if (userId !== undefined && status !== undefined) {
    // GSI7 by time, GSI8 by agent then time: one user's sessions in one status.
    return index(
      filters.agentName === undefined ? 7 : 8,
      sessionUserStatusPartition(orgId, environment, status, userId),
      agent,
    );
  }
  if (userId !== undefined)
    return filters.agentName === undefined ? index(3, timeline.GSI3PK) : index(6, timeline.GSI6PK, agent);
  if (status !== undefined) {
    const partition = sessionStatusPartition(orgId, environment, status);
    return filters.agentName === undefined ? index(4, partition) : index(5, partition, agent);
  }
  return filters.agentName === undefined ? index(1, timeline.GSI1PK) : index(2, timeline.GSI2PK);
}

/**
 * Index queries one page may make at most: a page is filled up to `limit` sessions, reading further
 * only when sessions past their retention (not yet removed by TTL) were left out.
 */
export const MAX_QUERIES_PER_PAGE = 3;

export interface SessionPage {
  readonly items: Session[];
  readonly nextCursor: string | null;
}

/**
 * One page of the tenant's sessions matching `filters`, newest first. Reads at most
 * MAX_QUERIES_PER_PAGE keys-only index pages of up to `limit` keys each, and the sessions they name
 * (BatchGetItem); a page holds fewer than `limit` sessions only when it is the last, or when that bound
 * was reached while expired sessions were left out (the cursor then continues).
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
  const items: Session[] = [];
  for (let queries = 0; queries < MAX_QUERIES_PER_PAGE && items.length < page.limit; queries++) {
    const result = await documentClient.send(
      new QueryCommand({
        TableName: tableName,
        IndexName: query.indexName,
        KeyConditionExpression: "#pk = :pk AND #sk BETWEEN :lower AND :upper",
        ExpressionAttributeNames: { "#pk": query.partitionAttribute, "#sk": query.sortAttribute },
        ExpressionAttributeValues: { ":pk": query.partition, ":lower": lower, ":upper": upper },
        ScanIndexForward: false,
        Limit: page.limit - items.length,
        ExclusiveStartKey: startKey,
      }),
    );
    const keys: ItemKey[] = (result.Items ?? []).map((entry) => ({ PK: String(entry.PK), SK: String(entry.SK) }));
    items.push(...(await batchGetItems(keys)).filter((item) => !isExpired(item, nowMs)).map(sessionFromItem));
    startKey = result.LastEvaluatedKey;
    if (startKey === undefined) break;
  }
  return { items, nextCursor: startKey === undefined ? null : await encodeCursor(startKey, scope) };
}
