/**
 * A session recorded from an OpenTelemetry trace takes the trace's record (trace-session-store.ts) with it
 * when it is deleted: otherwise later spans of the trace would find the record and be refused as the
 * session's ("session not found") for as long as the record lives.
 */
import type { Session } from "../../domain/session.js";
import { otelTraceKey } from "../table/keys.js";
import { getItem, type TransactItem } from "../table/table-operations.js";

/** The trace id a session recorded from a trace names in its metadata. */
const TRACE_ID_KEY = "otel.trace_id";

/**
 * The transaction items deleting a session's trace record with the session, when it has one that is still
 * its own (its metadata names the trace; the record may since have been deleted or, past its expiry, be
 * another session's).
 */
export async function traceRecordDeletion(session: Session): Promise<TransactItem[]> {
  const traceId = session.metadata?.[TRACE_ID_KEY];
  if (typeof traceId !== "string" || !/^[0-9a-f]{32}$/.test(traceId)) return [];
  const key = otelTraceKey(session.orgId, session.environment, traceId);
  const item = await getItem(key, { consistent: true });
  if (item?.sessionId !== session.id) return [];
  return [
    {
      Delete: {
        Key: key,
        // Gone meanwhile (its TTL) is fine; another session's it never is.
        ConditionExpression: "attribute_not_exists(PK) OR sessionId = :sessionId",
        ExpressionAttributeValues: { ":sessionId": session.id },
      },
    },
  ];
}
