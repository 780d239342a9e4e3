/**
 * An external user's sessions by id, for erasure (docs/data-model.md pattern
 * 12): the user's partition of GSI3, one keys-only page at a time, so the
 * caller can delete as it reads.
 */
import type { Environment } from "../../domain/api-key.js";
import { sessionIdOfPartition, sessionTimelineKeys } from "../table/keys.js";
import { INDEXES } from "../table/table-definition.js";
import { queryPages } from "../table/table-operations.js";

/** Keys per index page. */
const PAGE_SIZE = 100;

/** The ids of the user's sessions in the tenant, page by page (the index is eventually consistent). */
export async function* sessionIdsOfUser(
  tenant: { readonly orgId: string; readonly environment: Environment },
  userId: string,
): AsyncGenerator<string> {
  const partition = sessionTimelineKeys({
    id: "",
    orgId: tenant.orgId,
    environment: tenant.environment,
    agentName: "",
    userId,
    createdAt: "",
  }).GSI3PK;
  const index = INDEXES.userSessions;
  for await (const page of queryPages({
    index,
    KeyConditionExpression: "#pk = :pk",
    ExpressionAttributeNames: { "#pk": index.partitionKey },
    ExpressionAttributeValues: { ":pk": partition },
    Limit: PAGE_SIZE,
  })) {
    for (const item of page.items) {
      const sessionId = sessionIdOfPartition(String(item.PK));
      if (sessionId !== undefined) yield sessionId;
    }
  }
}
