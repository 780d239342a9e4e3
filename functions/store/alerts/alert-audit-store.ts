/**
 * The alerts audit (issue 34): every change of an organisation's monitors and destinations, one item each in the
 * organisation's partition, `ORG#<org>` / `AUDIT#ALERT#<auditId>` (ids sort by time, so a reverse Query is newest
 * first). Written in the same transaction as the change it records, so there is no change without its entry.
 *
 * One shape for both writers (the destinations' store and the monitors'): what changed (`subject`), who, when, the
 * names of the fields changed; a monitor's entry also says its environment and its definition before and after
 * (destinations' hold a secret's existence only, so they record no before/after).
 */
import type { Environment } from "../../domain/api-key.js";
import { newId } from "../../domain/ids.js";
import { cursorScope, decodeCursor, encodeCursor } from "../table/cursor-signing.js";
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
  /** `monitor.created|updated|deleted`, `destination.created|updated|deleted|secret_rotated`. */
  readonly action: string;
  readonly subject: AlertAuditSubject;
  readonly actor: string;
  readonly actorId: string | null;
  readonly at: string;
  /** Names of the fields the change set (for an update), else empty. */
  readonly changed: readonly string[];
  /** A monitor's environment (destinations belong to the organisation: absent). */
  readonly environment?: Environment | undefined;
  /** A monitor's definition before the change (absent when created) and after it (absent when deleted). */
  readonly before?: object | undefined;
  readonly after?: object | undefined;
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
  attributes: ({ orgId, entry }) => ({
    orgId,
    ...Object.fromEntries(Object.entries(entry).filter(([, value]) => value !== undefined)),
  }),
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
    environment?: Environment;
    before?: object;
    after?: object;
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
    environment: change.environment,
    before: change.before,
    after: change.after,
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

/** A page of the audit as `GET /api/alerts/audit` answers it: signed cursors, scoped to the organisation. */
export async function alertAuditPage(
  orgId: string,
  page: { readonly limit: number; readonly cursor?: string | undefined },
): Promise<{ audit: AlertAuditEntry[]; nextCursor: string | null }> {
  const scope = cursorScope(["alertAudit", orgId]);
  const startKey = page.cursor === undefined ? undefined : await decodeCursor(page.cursor, scope);
  const { entries, lastKey } = await listAlertAudit(orgId, page.limit, startKey);
  return { audit: entries, nextCursor: lastKey === undefined ? null : await encodeCursor(lastKey, scope) };
}
