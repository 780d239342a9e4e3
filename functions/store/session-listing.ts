/**
 * Listing a tenant's sessions, newest first. Each supported filter
 * combination is a key condition on one index (docs/data-model.md, patterns
 * 7–11); the keys-only index page is then hydrated with BatchGetItem.
 */
import { QueryCommand } from "@aws-sdk/lib-dynamodb";
import { ValidationError } from "../domain/errors.js";
import type { Principal } from "../domain/principal.js";
import type { Session, SessionStatus } from "../domain/session.js";
import { batchGetItems } from "./batch-get.js";
import { cursorScope, decodeCursor, encodeCursor } from "./cursor-signing.js";
import { documentClient, tableName } from "./dynamo-client.js";
import type { ItemKey } from "./keys.js";
import { agentSortPrefix, sessionStatusPartition, sessionTimelineKeys } from "./keys.js";
import { isExpired } from "./retention.js";
import { sessionFromItem } from "./session-store.js";

export interface SessionFilters {
  readonly agentName?: string | undefined;
  readonly userId?: string | undefined;
  readonly status?: SessionStatus | undefined;
  readonly from?: string | undefined;
  readonly to?: string | undefined;
}

/** The filter combinations served by a key condition, as listed in the README. */
export const SUPPORTED_FILTER_SETS = [[], ["agentName"], ["userId"], ["status"], ["agentName", "status"]] as const;

interface IndexQuery {
  readonly indexName: string;
  readonly partitionAttribute: string;
  readonly sortAttribute: string;
  readonly partition: string;
  /** Sort-key prefix every item of this query shares (GSI5: the encoded agent name). */
  readonly prefix: string;
}

function indexQueryFor(principal: Principal, filters: SessionFilters): IndexQuery {
  const named = (["agentName", "userId", "status"] as const).filter((name) => filters[name] !== undefined);
  const key = named.join("+");
  const timeline = sessionTimelineKeys({
    id: "",
    orgId: principal.orgId,
    environment: principal.environment,
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
  switch (key) {
    case "":
      return index(1, timeline.GSI1PK);
    case "agentName":
      return index(2, timeline.GSI2PK);
    case "userId":
      return index(3, timeline.GSI3PK);
    case "status":
      return index(4, sessionStatusPartition(principal.orgId, principal.environment, filters.status ?? "active"));
    case "agentName+status":
      return index(
        5,
        sessionStatusPartition(principal.orgId, principal.environment, filters.status ?? "active"),
        agentSortPrefix(filters.agentName ?? ""),
      );
    default:
      throw new ValidationError(
        `Filtering by ${named.join(" and ")} together is not supported; use one of: none, agentName, userId, status, agentName with status`,
        [{ path: named.join(","), message: "Unsupported combination of filters" }],
      );
  }
}

export interface SessionPage {
  readonly items: Session[];
  readonly nextCursor: string | null;
}

export async function listSessions(
  principal: Principal,
  filters: SessionFilters,
  page: { readonly limit: number; readonly cursor?: string | undefined },
  nowMs = Date.now(),
): Promise<SessionPage> {
  const query = indexQueryFor(principal, filters);
  const scope = cursorScope(["sessions", principal.orgId, principal.environment, filters]);
  const startKey = page.cursor === undefined ? undefined : await decodeCursor(page.cursor, scope);
  // Sort keys are `<prefix><createdAt>#<id>`: "0" sorts before every timestamp, "~" after every id character.
  const lower = `${query.prefix}${filters.from ?? "0"}`;
  const upper = `${query.prefix}${filters.to === undefined ? "~" : `${filters.to}#~`}`;
  const result = await documentClient.send(
    new QueryCommand({
      TableName: tableName,
      IndexName: query.indexName,
      KeyConditionExpression: "#pk = :pk AND #sk BETWEEN :lower AND :upper",
      ExpressionAttributeNames: { "#pk": query.partitionAttribute, "#sk": query.sortAttribute },
      ExpressionAttributeValues: { ":pk": query.partition, ":lower": lower, ":upper": upper },
      ScanIndexForward: false,
      Limit: page.limit,
      ExclusiveStartKey: startKey,
    }),
  );
  const keys: ItemKey[] = (result.Items ?? []).map((entry) => ({ PK: String(entry.PK), SK: String(entry.SK) }));
  const items = (await batchGetItems(keys)).filter((item) => !isExpired(item, nowMs)).map(sessionFromItem);
  return {
    items,
    nextCursor: result.LastEvaluatedKey === undefined ? null : await encodeCursor(result.LastEvaluatedKey, scope),
  };
}
