/**
 * Persistence of monitors (issue 34): one item each in the `MONITORS` partition (keys.ts monitorKey), with the
 * definition, the attributes the series consumer reads (`orgId`, `environment`, `monitorId`, `enabled`, `metric`,
 * `filters`), the state and its version (`stateVersion`: the evaluator's and the routes' writes are conditional
 * on it, so a change made between a read and a write is never lost).
 *
 * A tenant holds at most MONITOR_LIMITS.monitorsPerTenant monitors: counted on the organisation item
 * (`liveMonitorCount`, `testMonitorCount`), moved in the transaction that creates or deletes one, whose condition
 * refuses the 101st. Every change puts an audit record in the same transaction (alert-audit-store.ts).
 */
import type { Environment } from "../../domain/api-key.js";
import { ConflictError, NotFoundError } from "../../domain/errors.js";
import { newId } from "../../domain/ids.js";
import {
  INITIAL_MONITOR_STATE,
  MONITOR_FILTER_KEYS,
  MONITOR_LIMITS,
  type Monitor,
  type MonitorDefinition,
  type MonitorFilters,
} from "../../domain/monitor.js";
import type { StoredMonitorState } from "../../domain/monitor-state-machine.js";
import { isConditionFailure } from "../table/condition-failure.js";
import { defineEntity, type Item } from "../table/entity.js";
import {
  MONITORS_PARTITION,
  monitorKey,
  monitorOrganisationPrefix,
  monitorTenantPrefix,
  organisationKey,
} from "../table/keys.js";
import { ABSENT, getItem, queryAll, queryPages, type TransactItem, transact } from "../table/table-operations.js";
import { type AlertAuditActor, alertAuditPut } from "./alert-audit-store.js";

export const MONITOR_ENTITY = "monitor";

/** A stored monitor: the monitor, its organisation, its state as stored and the state's version. */
export interface StoredMonitor extends Omit<Monitor, "state"> {
  readonly orgId: string;
  readonly state: StoredMonitorState;
  readonly stateVersion: number;
}

/** The definition's fields, nothing else, without absent optional fields (for items and the audit). */
export function definitionOf(monitor: MonitorDefinition): MonitorDefinition {
  const filters: Record<string, string> = {};
  for (const key of MONITOR_FILTER_KEYS) {
    const value = monitor.filters[key];
    if (value !== undefined) filters[key] = value;
  }
  return {
    name: monitor.name,
    ...(monitor.description !== undefined && { description: monitor.description }),
    enabled: monitor.enabled,
    metric: monitor.metric,
    filters: filters as MonitorFilters,
    windowMinutes: monitor.windowMinutes,
    comparison: monitor.comparison,
    ...(monitor.warningThreshold !== undefined && { warningThreshold: monitor.warningThreshold }),
    alertThreshold: monitor.alertThreshold,
    minSessions: monitor.minSessions,
    noData: monitor.noData,
    renotifyMinutes: monitor.renotifyMinutes,
    notifyOnRecovery: monitor.notifyOnRecovery,
    destinationIds: [...monitor.destinationIds],
  };
}

const monitorEntity = defineEntity<StoredMonitor, StoredMonitor>({
  tag: MONITOR_ENTITY,
  fields: {
    orgId: "string",
    environment: "string",
    monitorId: "string",
    name: "string",
    enabled: "boolean",
    metric: "string",
    filters: "object",
    windowMinutes: "number",
    alertThreshold: "number",
    destinationIds: "array",
    state: "object",
    stateVersion: "number",
  },
  key: (monitor) => monitorKey(monitor.orgId, monitor.environment, monitor.id),
  attributes: (monitor) => ({
    orgId: monitor.orgId,
    environment: monitor.environment,
    monitorId: monitor.id,
    ...definitionOf(monitor),
    createdAt: monitor.createdAt,
    updatedAt: monitor.updatedAt,
    createdBy: monitor.createdBy,
    state: monitor.state,
    stateVersion: monitor.stateVersion,
  }),
  fromFields: (fields) => {
    const { monitorId, ...rest } = fields as Item & { monitorId: string };
    return { ...(rest as unknown as Omit<StoredMonitor, "id">), id: monitorId };
  },
});

/** A stored monitor from its item (the evaluator reads pages of them). */
export function monitorFromItem(item: Item): StoredMonitor {
  return monitorEntity.fromItem(item);
}

/** The monitor as the routes answer it: no storage attributes, the state without when it last notified. */
export function monitorView(stored: StoredMonitor): Monitor {
  const { lastNotifiedAt: _lastNotifiedAt, pendingHandOver: _pendingHandOver, ...state } = stored.state;
  return {
    id: stored.id,
    environment: stored.environment,
    ...definitionOf(stored),
    createdAt: stored.createdAt,
    updatedAt: stored.updatedAt,
    createdBy: stored.createdBy,
    state,
  };
}

const COUNT_ATTRIBUTE: Readonly<Record<Environment, string>> = {
  live: "liveMonitorCount",
  test: "testMonitorCount",
};

/** The tenant's count of monitors moved by `delta`; an increase fails past the limit (or without the organisation). */
function monitorCountChange(orgId: string, environment: Environment, delta: 1 | -1): TransactItem {
  return {
    Update: {
      Key: organisationKey(orgId),
      UpdateExpression: "ADD #count :delta",
      ConditionExpression:
        delta > 0
          ? "attribute_exists(PK) AND (attribute_not_exists(#count) OR #count < :most)"
          : "attribute_exists(PK)",
      ExpressionAttributeNames: { "#count": COUNT_ATTRIBUTE[environment] },
      ExpressionAttributeValues: {
        ":delta": delta,
        ...(delta > 0 && { ":most": MONITOR_LIMITS.monitorsPerTenant }),
      },
    },
  };
}

function versionGuard(version: number) {
  return {
    ConditionExpression: "attribute_exists(PK) AND #stateVersion = :stateVersion",
    ExpressionAttributeNames: { "#stateVersion": "stateVersion" },
    ExpressionAttributeValues: { ":stateVersion": version },
  };
}

const ATTEMPTS = 3;

/** The definition's fields whose values differ (for the audit's `changed`). */
function changedFields(before: MonitorDefinition, after: MonitorDefinition): string[] {
  const names = new Set([...Object.keys(before), ...Object.keys(after)]) as Set<keyof MonitorDefinition>;
  return [...names].filter((name) => JSON.stringify(before[name]) !== JSON.stringify(after[name])).sort();
}

function notFound(monitorId: string): NotFoundError {
  return new NotFoundError(`No monitor ${monitorId} in this organisation and environment`);
}

/** Creates a monitor (never evaluated yet: ok, no figure); 409 past the tenant's limit. */
export async function createMonitor(
  orgId: string,
  environment: Environment,
  definition: MonitorDefinition,
  actor: AlertAuditActor,
  nowMs = Date.now(),
): Promise<StoredMonitor> {
  const at = new Date(nowMs).toISOString();
  const monitor: StoredMonitor = {
    id: newId("monitor", nowMs),
    orgId,
    environment,
    ...definitionOf(definition),
    createdAt: at,
    updatedAt: at,
    createdBy: actor.name,
    state: { ...INITIAL_MONITOR_STATE, lastNotifiedAt: null },
    stateVersion: 1,
  };
  try {
    await transact([
      { Put: { Item: monitorEntity.toItem(monitor), ConditionExpression: ABSENT } },
      monitorCountChange(orgId, environment, 1),
      alertAuditPut(orgId, {
        action: "monitor.created",
        subject: { kind: "monitor", id: monitor.id, name: monitor.name },
        actor,
        at,
        environment,
        after: definitionOf(monitor),
      }),
    ]);
  } catch (error) {
    if (isConditionFailure(error, 1)) {
      throw new ConflictError(
        `This organisation has ${MONITOR_LIMITS.monitorsPerTenant} monitors in ${environment}, the most allowed; delete one before adding another`,
      );
    }
    throw error;
  }
  return monitor;
}

/** One monitor of the tenant (strongly consistent), or undefined: another tenant's id is simply not found. */
export async function findMonitor(
  orgId: string,
  environment: Environment,
  monitorId: string,
): Promise<StoredMonitor | undefined> {
  const item = await getItem(monitorKey(orgId, environment, monitorId));
  return item === undefined ? undefined : monitorEntity.fromItem(item);
}

export async function getMonitor(orgId: string, environment: Environment, monitorId: string): Promise<StoredMonitor> {
  const monitor = await findMonitor(orgId, environment, monitorId);
  if (monitor === undefined) throw notFound(monitorId);
  return monitor;
}

/** The tenant's monitors (one Query of its prefix; the count caps what there is), oldest first. */
export async function listMonitors(orgId: string, environment: Environment): Promise<StoredMonitor[]> {
  const items = await queryAll(
    {
      KeyConditionExpression: "PK = :pk AND begins_with(SK, :prefix)",
      ExpressionAttributeValues: { ":pk": MONITORS_PARTITION, ":prefix": monitorTenantPrefix(orgId, environment) },
      ConsistentRead: true,
    },
    { limit: MONITOR_LIMITS.monitorsPerTenant },
  );
  return items.map(monitorEntity.fromItem);
}

/**
 * Replaces a monitor's definition (its state stays: the next evaluation judges it by the new definition); audited.
 * The write is conditional on the state's version, and retried on the new state when the evaluator wrote between.
 */
export async function replaceMonitor(
  orgId: string,
  environment: Environment,
  monitorId: string,
  definition: MonitorDefinition,
  actor: AlertAuditActor,
  nowMs = Date.now(),
): Promise<StoredMonitor> {
  for (let attempt = 1; ; attempt++) {
    const existing = await getMonitor(orgId, environment, monitorId);
    const at = new Date(nowMs).toISOString();
    const replaced: StoredMonitor = {
      ...existing,
      ...definitionOf(definition),
      description: definition.description,
      warningThreshold: definition.warningThreshold,
      updatedAt: at,
      stateVersion: existing.stateVersion + 1,
    };
    try {
      await transact([
        { Put: { Item: monitorEntity.toItem(replaced), ...versionGuard(existing.stateVersion) } },
        alertAuditPut(orgId, {
          action: "monitor.updated",
          subject: { kind: "monitor", id: monitorId, name: replaced.name },
          actor,
          at,
          changed: changedFields(definitionOf(existing), definitionOf(replaced)),
          environment,
          before: definitionOf(existing),
          after: definitionOf(replaced),
        }),
      ]);
      return replaced;
    } catch (error) {
      if (!isConditionFailure(error, 0)) throw error;
      if (attempt >= ATTEMPTS) {
        throw new ConflictError(`Monitor ${monitorId} was changed by another request; reload it and retry`);
      }
    }
  }
}

/** Deletes a monitor (its history expires on its own); audited. 404 when there is none. */
export async function deleteMonitor(
  orgId: string,
  environment: Environment,
  monitorId: string,
  actor: AlertAuditActor,
  nowMs = Date.now(),
): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    const existing = await getMonitor(orgId, environment, monitorId);
    try {
      await transact([
        { Delete: { Key: monitorKey(orgId, environment, monitorId), ...versionGuard(existing.stateVersion) } },
        monitorCountChange(orgId, environment, -1),
        alertAuditPut(orgId, {
          action: "monitor.deleted",
          subject: { kind: "monitor", id: monitorId, name: existing.name },
          actor,
          at: new Date(nowMs).toISOString(),
          environment,
          before: definitionOf(existing),
        }),
      ]);
      return;
    } catch (error) {
      if (!isConditionFailure(error, 0)) throw error;
      if (attempt >= ATTEMPTS) {
        throw new ConflictError(`Monitor ${monitorId} was changed by another request; reload it and retry`);
      }
    }
  }
}

/**
 * Every monitor of every tenant, a page at a time (the evaluator's one paged Query of `MONITORS`); with `orgId`,
 * that organisation's only (both environments).
 */
export async function* monitorPages(options: { readonly pageSize?: number; readonly orgId?: string } = {}) {
  const organisationPrefix = options.orgId === undefined ? undefined : monitorOrganisationPrefix(options.orgId);
  for await (const page of queryPages({
    KeyConditionExpression: organisationPrefix === undefined ? "PK = :pk" : "PK = :pk AND begins_with(SK, :prefix)",
    ExpressionAttributeValues: {
      ":pk": MONITORS_PARTITION,
      ...(organisationPrefix === undefined ? {} : { ":prefix": organisationPrefix }),
    },
    Limit: options.pageSize ?? 100,
  })) {
    yield page.items.map(monitorEntity.fromItem);
  }
}
