/**
 * The alerts audit (issue 34): every change of an organisation's monitors and destinations, one item each in the
 * organisation's partition, `ORG#<org>` / `AUDIT#ALERT#<auditId>` (ids sort by time, so a reverse Query is newest
 * first). Written in the same transaction as the change it records, so there is no change without its entry.
 */
import { newId } from "../../domain/ids.js";
import { defineEntity } from "../table/entity.js";
import { ALERT_AUDIT_PREFIX, alertAuditKey, organisationPartition } from "../table/keys.js";
import { ABSENT, type QueryPage, queryPage, type TransactItem } from "../table/table-operations.js";

export const ALERT_AUDIT_ENTITY = "alertAudit";

/** What was changed. */
export interface AlertAuditSubject {
  readonly kind: "monitor" | "destination";
  readonly id: string;
  readonly name: string;
}

/** One change: who did what to which monitor or destination, when, and the fields it changed (never a secret). */
export interface AlertAuditEntry {
  readonly id: string;
  /** e.g. `destination.created`, `destination.updated`, `destination.deleted`, `destination.secret_rotated`. */
  readonly action: string;
  readonly subject: AlertAuditSubject;
  readonly actor: string;
  readonly actorId: string | null;
  readonly at: string;
  /** Names of the fields the change set (for an update), else empty. */
  readonly changed: readonly string[];
}

export interface AlertAuditActor {
  readonly name: string;
  readonly id?: string | undefined;
}

const auditEntity = defineEntity<AlertAuditEntry, { orgId: string; entry: AlertAuditEntry }>({
  tag: ALERT_AUDIT_ENTITY,
  fields: { id: "string", action: "string", subject: "object", actor: "string", at: "string", changed: "array" },
  storageAttributes: ["orgId"],
  key: ({ orgId, entry }) => alertAuditKey(orgId, entry.id),
  attributes: ({ orgId, entry }) => ({ orgId, ...entry }),
});

/** The transaction item that records a change (put with the change itself). */
export function alertAuditPut(
  orgId: string,
  change: {
    action: string;
    subject: AlertAuditSubject;
    actor: AlertAuditActor;
    at: string;
    changed?: readonly string[];
  },
): TransactItem {
  const entry: AlertAuditEntry = {
    id: newId("audit", Date.parse(change.at)),
    action: change.action,
    subject: change.subject,
    actor: change.actor.name,
    actorId: change.actor.id ?? null,
    at: change.at,
    changed: [...(change.changed ?? [])],
  };
  return { Put: { Item: auditEntity.toItem({ orgId, entry }), ConditionExpression: ABSENT } };
}

/** One page of the organisation's alerts audit, newest first; `startKey` from the previous page. */
export async function listAlertAudit(
  orgId: string,
  limit: number,
  startKey?: Record<string, unknown>,
): Promise<{ entries: AlertAuditEntry[]; lastKey: QueryPage["lastKey"] }> {
  const page = await queryPage({
    KeyConditionExpression: "PK = :pk AND begins_with(SK, :prefix)",
    ExpressionAttributeValues: { ":pk": organisationPartition(orgId), ":prefix": ALERT_AUDIT_PREFIX },
    ScanIndexForward: false,
    Limit: limit,
    ConsistentRead: true,
    startKey,
  });
  return { entries: page.items.map(auditEntity.fromItem), lastKey: page.lastKey };
}
