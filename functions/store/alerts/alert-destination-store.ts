/**
 * Persistence of an organisation's alert destinations, in the organisation's partition:
 * - one item each, `ORG#<org>` / `ALERTDEST#<destinationId>` (keys.ts alertDestinationKey), so the list is one Query;
 * - the organisation item `ORG#<org>` / `ORG` counts them (`alertDestinationCount`): a new destination and the count
 *   move together in one transaction whose condition refuses the 21st;
 * - every change by a person writes an alerts audit entry in the same transaction (alert-audit-store.ts);
 * - a webhook's signing secret is stored as is (delivery signs with it) in `signingSecret`, which no read but
 *   {@link readDestinationForDelivery} returns: the API shows it once, when created or rotated.
 * Changes by people are guarded by the item's `version`; delivery's bookkeeping (failures in a row, the last
 * delivery) does not move the version, so it never makes a person's change fail.
 */
import {
  DESTINATION_LIMITS,
  type Destination,
  type DestinationKind,
  disabledAfterFailures,
} from "../../domain/alert-destination.js";
import { ConflictError, NotFoundError } from "../../domain/errors.js";
import { newId } from "../../domain/ids.js";
import { isConditionFailure } from "../table/condition-failure.js";
import { defineEntity } from "../table/entity.js";
import {
  ALERT_DESTINATION_PREFIX,
  alertDestinationKey,
  organisationKey,
  organisationPartition,
} from "../table/keys.js";
import { ABSENT, getItem, queryAll, type TransactItem, transact, updateItem } from "../table/table-operations.js";
import { type AlertAuditActor, alertAuditPut } from "./alert-audit-store.js";

export const ALERT_DESTINATION_ENTITY = "alertDestination";

/** A destination as stored: what the API shows, plus the secret and the version. */
export interface StoredDestination extends Destination {
  readonly orgId: string;
  readonly createdBy: string;
  /** A webhook's signing secret; absent for Slack and EventBridge. */
  readonly signingSecret?: string | undefined;
  readonly version: number;
}

const destinationEntity = defineEntity<StoredDestination, { destination: StoredDestination }>({
  tag: ALERT_DESTINATION_ENTITY,
  fields: {
    orgId: "string",
    id: "string",
    name: "string",
    kind: "string",
    enabled: "boolean",
    consecutiveFailures: "number",
    createdAt: "string",
    updatedAt: "string",
    version: "number",
  },
  key: ({ destination }) => alertDestinationKey(destination.orgId, destination.id),
  attributes: ({ destination }) =>
    Object.fromEntries(Object.entries(destination).filter(([, value]) => value !== undefined)),
  fromFields: (fields) =>
    ({
      ...fields,
      url: fields.url ?? null,
      disabledReason: fields.disabledReason ?? null,
      lastDeliveryAt: fields.lastDeliveryAt ?? null,
      lastError: fields.lastError ?? null,
    }) as unknown as StoredDestination,
});

/** The API's view of a stored destination: no secret, no storage fields. */
export function destinationView(stored: StoredDestination): Destination {
  return {
    id: stored.id,
    name: stored.name,
    kind: stored.kind,
    url: stored.url,
    enabled: stored.enabled,
    disabledReason: stored.disabledReason,
    consecutiveFailures: stored.consecutiveFailures,
    lastDeliveryAt: stored.lastDeliveryAt,
    lastError: stored.lastError,
    createdAt: stored.createdAt,
    updatedAt: stored.updatedAt,
  };
}

function subjectOf(destination: Pick<StoredDestination, "id" | "name">) {
  return { kind: "destination" as const, id: destination.id, name: destination.name };
}

function notFound(orgId: string, destinationId: string): NotFoundError {
  return new NotFoundError(`No destination ${destinationId} in organisation ${orgId}`);
}

/** The organisation's count of destinations moved by `delta`; an increase fails past the limit. */
function destinationCountChange(orgId: string, delta: 1 | -1): TransactItem {
  return {
    Update: {
      Key: organisationKey(orgId),
      UpdateExpression: "ADD alertDestinationCount :delta",
      ConditionExpression:
        delta > 0
          ? "attribute_exists(PK) AND (attribute_not_exists(alertDestinationCount) OR alertDestinationCount < :most)"
          : "attribute_exists(PK)",
      ExpressionAttributeValues: {
        ":delta": delta,
        ...(delta > 0 && { ":most": DESTINATION_LIMITS.perOrganisation }),
      },
    },
  };
}

/** A stored destination with its secret, or undefined (delivery reads this; the API never shows the secret). */
export async function readDestinationForDelivery(
  orgId: string,
  destinationId: string,
): Promise<StoredDestination | undefined> {
  const item = await getItem(alertDestinationKey(orgId, destinationId));
  return item === undefined ? undefined : destinationEntity.fromItem(item);
}

/** A destination of the organisation; 404 when it has none of that id (another organisation's included). */
export async function getDestination(orgId: string, destinationId: string): Promise<StoredDestination> {
  const stored = await readDestinationForDelivery(orgId, destinationId);
  if (stored === undefined) throw notFound(orgId, destinationId);
  return stored;
}

/** The organisation's destinations, oldest first (one Query, bounded by the limit whatever the table holds). */
export async function listDestinations(orgId: string): Promise<StoredDestination[]> {
  const items = await queryAll(
    {
      KeyConditionExpression: "PK = :pk AND begins_with(SK, :prefix)",
      ExpressionAttributeValues: { ":pk": organisationPartition(orgId), ":prefix": ALERT_DESTINATION_PREFIX },
      ConsistentRead: true,
    },
    { limit: DESTINATION_LIMITS.perOrganisation },
  );
  return items.map(destinationEntity.fromItem);
}

/** Which of `ids` are destinations of the organisation (for a monitor's `destinationIds`). */
export async function existingDestinationIds(orgId: string, ids: readonly string[]): Promise<Set<string>> {
  if (ids.length === 0) return new Set();
  const known = new Set((await listDestinations(orgId)).map((destination) => destination.id));
  return new Set(ids.filter((id) => known.has(id)));
}

export interface NewDestination {
  readonly name: string;
  readonly kind: DestinationKind;
  readonly url: string | null;
  /** A webhook's signing secret (made by the caller, shown once). */
  readonly signingSecret?: string | undefined;
}

/** Creates a destination (audited); 409 past {@link DESTINATION_LIMITS.perOrganisation}. */
export async function createDestination(
  orgId: string,
  input: NewDestination,
  actor: AlertAuditActor,
  nowMs = Date.now(),
): Promise<StoredDestination> {
  const at = new Date(nowMs).toISOString();
  const destination: StoredDestination = {
    orgId,
    id: newId("alertDestination", nowMs),
    name: input.name,
    kind: input.kind,
    url: input.url,
    enabled: true,
    disabledReason: null,
    consecutiveFailures: 0,
    lastDeliveryAt: null,
    lastError: null,
    createdAt: at,
    updatedAt: at,
    createdBy: actor.name,
    signingSecret: input.signingSecret,
    version: 1,
  };
  try {
    await transact([
      { Put: { Item: destinationEntity.toItem({ destination }), ConditionExpression: ABSENT } },
      destinationCountChange(orgId, 1),
      alertAuditPut(orgId, { action: "destination.created", subject: subjectOf(destination), actor, at }),
    ]);
  } catch (error) {
    if (isConditionFailure(error, 1)) {
      throw new ConflictError(
        `Organisation ${orgId} has ${DESTINATION_LIMITS.perOrganisation} destinations, the most allowed; delete one before adding another`,
      );
    }
    throw error;
  }
  return destination;
}

function changedConcurrently(destinationId: string): ConflictError {
  return new ConflictError(`Destination ${destinationId} was changed by another request; reload it and retry`);
}

/** Runs a version-guarded change of a destination: 404 when gone, 409 when changed meanwhile. */
async function changeDestination(
  orgId: string,
  destinationId: string,
  change: (stored: StoredDestination) => { update: NonNullable<TransactItem["Update"]>; audit: TransactItem },
): Promise<void> {
  const stored = await getDestination(orgId, destinationId);
  const { update, audit } = change(stored);
  try {
    await transact([{ Update: update }, audit]);
  } catch (error) {
    if (isConditionFailure(error, 0)) {
      if ((await readDestinationForDelivery(orgId, destinationId)) === undefined) throw notFound(orgId, destinationId);
      throw changedConcurrently(destinationId);
    }
    throw error;
  }
}

export interface DestinationChanges {
  readonly name: string;
  readonly url: string | null;
  readonly enabled: boolean;
}

/**
 * Sets a destination's name, URL and whether it is enabled (audited). Enabling a disabled destination clears its
 * failure count and the reason it was disabled. Returns the destination as stored after the change.
 */
export async function updateDestination(
  orgId: string,
  destinationId: string,
  changes: DestinationChanges,
  actor: AlertAuditActor,
  nowMs = Date.now(),
): Promise<StoredDestination> {
  const at = new Date(nowMs).toISOString();
  let updated: StoredDestination | undefined;
  await changeDestination(orgId, destinationId, (stored) => {
    const reEnabled = changes.enabled && !stored.enabled;
    const changed = (["name", "url", "enabled"] as const).filter((field) => stored[field] !== changes[field]);
    updated = {
      ...stored,
      ...changes,
      updatedAt: at,
      version: stored.version + 1,
      ...(reEnabled && { consecutiveFailures: 0, disabledReason: null }),
    };
    return {
      update: {
        Key: alertDestinationKey(orgId, destinationId),
        UpdateExpression: `SET #name = :name, #url = :url, #enabled = :enabled, #updatedAt = :at, #version = :next${reEnabled ? ", #failures = :zero, #reason = :null" : ""}`,
        ConditionExpression: "attribute_exists(PK) AND #version = :version",
        ExpressionAttributeNames: {
          "#name": "name",
          "#url": "url",
          "#enabled": "enabled",
          "#updatedAt": "updatedAt",
          "#version": "version",
          ...(reEnabled && { "#failures": "consecutiveFailures", "#reason": "disabledReason" }),
        },
        ExpressionAttributeValues: {
          ":name": changes.name,
          ":url": changes.url,
          ":enabled": changes.enabled,
          ":at": at,
          ":next": stored.version + 1,
          ":version": stored.version,
          ...(reEnabled && { ":zero": 0, ":null": null }),
        },
      },
      audit: alertAuditPut(orgId, {
        action: "destination.updated",
        subject: subjectOf({ id: destinationId, name: changes.name }),
        actor,
        at,
        changed,
      }),
    };
  });
  if (updated === undefined) throw new Error("The change did not run");
  return updated;
}

/** Replaces a webhook's signing secret (audited); the old one no longer signs anything. */
export async function rotateSigningSecret(
  orgId: string,
  destinationId: string,
  secret: string,
  actor: AlertAuditActor,
  nowMs = Date.now(),
): Promise<void> {
  const at = new Date(nowMs).toISOString();
  await changeDestination(orgId, destinationId, (stored) => ({
    update: {
      Key: alertDestinationKey(orgId, destinationId),
      UpdateExpression: "SET #secret = :secret, #updatedAt = :at, #version = :next",
      ConditionExpression: "attribute_exists(PK) AND #version = :version",
      ExpressionAttributeNames: { "#secret": "signingSecret", "#updatedAt": "updatedAt", "#version": "version" },
      ExpressionAttributeValues: {
        ":secret": secret,
        ":at": at,
        ":next": stored.version + 1,
        ":version": stored.version,
      },
    },
    audit: alertAuditPut(orgId, { action: "destination.secret_rotated", subject: subjectOf(stored), actor, at }),
  }));
}

/** Deletes a destination (audited); 404 when there is none. Monitors naming it keep the id; delivery skips it. */
export async function deleteDestination(
  orgId: string,
  destinationId: string,
  actor: AlertAuditActor,
  nowMs = Date.now(),
): Promise<void> {
  const stored = await getDestination(orgId, destinationId);
  const at = new Date(nowMs).toISOString();
  try {
    await transact([
      { Delete: { Key: alertDestinationKey(orgId, destinationId), ConditionExpression: "attribute_exists(PK)" } },
      destinationCountChange(orgId, -1),
      alertAuditPut(orgId, { action: "destination.deleted", subject: subjectOf(stored), actor, at }),
    ]);
  } catch (error) {
    if (isConditionFailure(error, 0)) throw notFound(orgId, destinationId);
    throw error;
  }
}

/** A delivery arrived: the failure count starts afresh. Nothing happens to a destination deleted meanwhile. */
export async function recordDeliverySuccess(orgId: string, destinationId: string, at: string): Promise<void> {
  try {
    await updateItem({
      Key: alertDestinationKey(orgId, destinationId),
      UpdateExpression: "SET consecutiveFailures = :zero, lastDeliveryAt = :at, lastError = :null",
      ConditionExpression: "attribute_exists(PK)",
      ExpressionAttributeValues: { ":zero": 0, ":at": at, ":null": null },
    });
  } catch (error) {
    if (!isConditionFailure(error)) throw error;
  }
}

/**
 * A delivery failed: one more failure in a row, the error kept; at {@link DESTINATION_LIMITS.failuresBeforeDisabling}
 * the destination is turned off with the reason. Resolves with whether it is (now) disabled.
 */
export async function recordDeliveryFailure(
  orgId: string,
  destinationId: string,
  error: string,
  at: string,
): Promise<{ disabled: boolean }> {
  const lastError = error.slice(0, DESTINATION_LIMITS.errorLength);
  const key = alertDestinationKey(orgId, destinationId);
  let failures: number;
  try {
    const after = await updateItem({
      Key: key,
      UpdateExpression: "ADD consecutiveFailures :one SET lastError = :error, lastFailureAt = :at",
      ConditionExpression: "attribute_exists(PK)",
      ExpressionAttributeValues: { ":one": 1, ":error": lastError, ":at": at },
      // UPDATED_NEW: the delivery worker may touch only its bookkeeping attributes, never read the item back whole.
      ReturnValues: "UPDATED_NEW",
    });
    failures = Number(after?.consecutiveFailures ?? 0);
  } catch (failure) {
    if (isConditionFailure(failure)) return { disabled: true };
    throw failure;
  }
  if (failures < DESTINATION_LIMITS.failuresBeforeDisabling) return { disabled: false };
  try {
    await updateItem({
      Key: key,
      UpdateExpression: "SET enabled = :false, disabledReason = :reason",
      ConditionExpression: "attribute_exists(PK) AND enabled = :true AND consecutiveFailures >= :most",
      ExpressionAttributeValues: {
        ":false": false,
        ":true": true,
        ":reason": disabledAfterFailures(lastError),
        ":most": DESTINATION_LIMITS.failuresBeforeDisabling,
      },
    });
  } catch (failure) {
    if (!isConditionFailure(failure)) throw failure;
  }
  return { disabled: true };
}
