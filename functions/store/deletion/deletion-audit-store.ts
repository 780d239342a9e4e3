/**
 * The organisation's deletion audit (issue 21): one item per session deletion or erasure request, in a
 * partition of its own (`DELETIONAUDIT#<orgId>`), so the functions that delete may add to it without any
 * access to the organisation's keys and members. Written in the deletion's own transaction (a session) or
 * with the job it starts (an erasure), so no deletion goes unrecorded.
 */
import type { DeletionAuditRecord } from "../../domain/deletion-audit.js";
import { defineEntity } from "../table/entity.js";
import { deletionAuditKey, deletionAuditPartition } from "../table/keys.js";
import { putIfAbsentItem, queryPage, type TransactItem } from "../table/table-operations.js";

export const DELETION_AUDIT_ENTITY = "deletionAudit";

const deletionAuditEntity = defineEntity<DeletionAuditRecord, DeletionAuditRecord>({
  tag: DELETION_AUDIT_ENTITY,
  fields: {
    id: "string",
    orgId: "string",
    environment: "string",
    action: "string",
    target: "string",
    at: "string",
  },
  key: (record) => deletionAuditKey(record.orgId, record.id),
  attributes: (record) => ({ ...record }),
});

/** The transaction item that records a deletion. */
export function deletionAuditPut(record: DeletionAuditRecord): TransactItem {
  return putIfAbsentItem(deletionAuditEntity.toItem(record));
}

/** The organisation's latest deletions, newest first (at most `limit`). */
export async function listDeletionAudit(orgId: string, limit: number): Promise<DeletionAuditRecord[]> {
  const page = await queryPage({
    KeyConditionExpression: "PK = :pk AND begins_with(SK, :audit)",
    ExpressionAttributeValues: { ":pk": deletionAuditPartition(orgId), ":audit": "AUDIT#" },
    ScanIndexForward: false,
    Limit: limit,
  });
  return page.items.map(deletionAuditEntity.fromItem);
}
