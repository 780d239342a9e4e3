/**
 * The alerts' audit in the organisation's partition (`ORG#<org>` / `AUDIT#ALERT#<auditId>`, as the prices' audit):
 * each change's record is put in the change's own transaction, and read newest first, a page at a time.
 */
import type { AlertAuditRecord } from "../../domain/alert-audit.js";
import { newId } from "../../domain/ids.js";
import { cursorScope, decodeCursor, encodeCursor } from "../table/cursor-signing.js";
import { defineEntity } from "../table/entity.js";
import { ALERT_AUDIT_PREFIX, alertAuditKey, organisationPartition } from "../table/keys.js";
import { ABSENT, queryPage, type TransactItem } from "../table/table-operations.js";

export const ALERT_AUDIT_ENTITY = "alertAudit";

const auditEntity = defineEntity<AlertAuditRecord, { orgId: string; audit: AlertAuditRecord }>({
  tag: ALERT_AUDIT_ENTITY,
  fields: { id: "string", action: "string", targetId: "string", actor: "string", at: "string" },
  storageAttributes: ["orgId"],
  key: ({ orgId, audit }) => alertAuditKey(orgId, audit.id),
  attributes: ({ orgId, audit }) => ({ orgId, ...audit }),
});

/** The transaction item that records a change (its id from the change's time, so the audit sorts by time). */
export function alertAuditPut(orgId: string, change: Omit<AlertAuditRecord, "id">): TransactItem {
  const audit: AlertAuditRecord = { id: newId("audit", Date.parse(change.at)), ...change };
  return { Put: { Item: auditEntity.toItem({ orgId, audit }), ConditionExpression: ABSENT } };
}

/** A page of the organisation's alerts audit, newest first. */
export async function listAlertAudit(
  orgId: string,
  page: { readonly limit: number; readonly cursor?: string | undefined },
): Promise<{ audit: AlertAuditRecord[]; nextCursor: string | null }> {
  const scope = cursorScope(["alertAudit", orgId]);
  const result = await queryPage({
    KeyConditionExpression: "PK = :pk AND begins_with(SK, :prefix)",
    ExpressionAttributeValues: { ":pk": organisationPartition(orgId), ":prefix": ALERT_AUDIT_PREFIX },
    ScanIndexForward: false,
    Limit: page.limit,
    ConsistentRead: true,
    startKey: page.cursor === undefined ? undefined : await decodeCursor(page.cursor, scope),
  });
  return {
    audit: result.items.map(auditEntity.fromItem),
    nextCursor: result.lastKey === undefined ? null : await encodeCursor(result.lastKey, scope),
  };
}
