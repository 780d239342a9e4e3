/**
 * A monitor's history and the evaluator's writes (issue 34).
 *
 * History: `MONITOR#<monitorId>` / `HISTORY#<evaluation minute>`, one entry per state change or renotification,
 * kept MONITOR_HISTORY_TTL_DAYS (DynamoDB TTL; a deleted monitor's entries expire the same way). The entry is put
 * with the state's change in ONE transaction: the put conditioned on `attribute_not_exists` (one entry per minute)
 * and the monitor's update on its state version, so two evaluations of one minute, or two evaluators at once, make
 * one change — and the notification is sent only by the one whose transaction succeeded. A monitor deleted
 * meanwhile fails the update's condition: nothing is written, nothing sent.
 */
import type { Environment } from "../../domain/api-key.js";
import type { HistoryEntry } from "../../domain/monitor.js";
import type { StoredMonitorState } from "../../domain/monitor-state-machine.js";
import { isConditionFailure } from "../table/condition-failure.js";
import { cursorScope, decodeCursor, encodeCursor } from "../table/cursor-signing.js";
import { defineEntity } from "../table/entity.js";
import { MONITOR_HISTORY_PREFIX, monitorHistoryKey, monitorHistoryPartition, monitorKey } from "../table/keys.js";
import { TTL_ATTRIBUTE } from "../table/table-definition.js";
import { ABSENT, getItem, queryPage, type TransactItem, transact, updateItem } from "../table/table-operations.js";

export const MONITOR_HISTORY_ENTITY = "monitorHistory";

/** How long a history entry is kept. */
export const MONITOR_HISTORY_TTL_DAYS = 400;

const historyEntity = defineEntity<HistoryEntry, { monitorId: string; orgId: string; entry: HistoryEntry }>({
  tag: MONITOR_HISTORY_ENTITY,
  fields: { id: "string", at: "string", from: "string", to: "string", kind: "string", notificationId: "string" },
  storageAttributes: ["orgId", "monitorId", TTL_ATTRIBUTE],
  key: ({ monitorId, entry }) => monitorHistoryKey(monitorId, entry.at),
  attributes: ({ monitorId, orgId, entry }) => ({
    orgId,
    monitorId,
    ...entry,
    [TTL_ATTRIBUTE]: Math.floor(Date.parse(entry.at) / 1000) + MONITOR_HISTORY_TTL_DAYS * 86_400,
  }),
});

/** Which monitor an evaluation writes, and the state version it read. */
export interface EvaluatedMonitor {
  readonly orgId: string;
  readonly environment: Environment;
  readonly monitorId: string;
  readonly stateVersion: number;
}

function stateUpdate(monitor: EvaluatedMonitor, state: StoredMonitorState): TransactItem {
  return {
    Update: {
      Key: monitorKey(monitor.orgId, monitor.environment, monitor.monitorId),
      UpdateExpression: "SET #state = :state, #stateVersion = :next",
      ConditionExpression: "attribute_exists(PK) AND #stateVersion = :read",
      ExpressionAttributeNames: { "#state": "state", "#stateVersion": "stateVersion" },
      ExpressionAttributeValues: { ":state": state, ":next": monitor.stateVersion + 1, ":read": monitor.stateVersion },
    },
  };
}

/**
 * Writes an evaluation: the new state, with its history entry when there is one, in one transaction. Resolves
 * false when another evaluation (or a change of the monitor, or its deletion) came first: nothing was written.
 */
export async function writeEvaluation(
  monitor: EvaluatedMonitor,
  state: StoredMonitorState,
  entry: HistoryEntry | undefined,
): Promise<boolean> {
  try {
    if (entry === undefined) {
      await updateItem(stateUpdate(monitor, state).Update as Parameters<typeof updateItem>[0]);
    } else {
      const item = historyEntity.toItem({ monitorId: monitor.monitorId, orgId: monitor.orgId, entry });
      await transact([{ Put: { Item: item, ConditionExpression: ABSENT } }, stateUpdate(monitor, state)]);
    }
    return true;
  } catch (error) {
    if (isConditionFailure(error)) return false;
    throw error;
  }
}

/** A page of a monitor's history, newest first (the caller has checked the monitor is the caller's). */
export async function listMonitorHistory(
  monitorId: string,
  page: { readonly limit: number; readonly cursor?: string | undefined },
): Promise<{ history: HistoryEntry[]; nextCursor: string | null }> {
  const scope = cursorScope(["monitorHistory", monitorId]);
  const result = await queryPage({
    KeyConditionExpression: "PK = :pk AND begins_with(SK, :prefix)",
    ExpressionAttributeValues: { ":pk": monitorHistoryPartition(monitorId), ":prefix": MONITOR_HISTORY_PREFIX },
    ScanIndexForward: false,
    Limit: page.limit,
    ConsistentRead: true,
    startKey: page.cursor === undefined ? undefined : await decodeCursor(page.cursor, scope),
  });
  return {
    history: result.items.map(historyEntity.fromItem),
    nextCursor: result.lastKey === undefined ? null : await encodeCursor(result.lastKey, scope),
  };
}

/** One history entry of a monitor, by its minute (strongly consistent: it was just written). */
export async function readHistoryEntry(monitorId: string, at: string): Promise<HistoryEntry | undefined> {
  const item = await getItem(monitorHistoryKey(monitorId, at), { consistent: true });
  return item === undefined ? undefined : historyEntity.fromItem(item);
}

/**
 * Marks the notification of the entry of minute `at` handed over (functions/domain/monitor-state-machine.ts
 * `pendingHandOver`); a no-op when another evaluation has already moved the state on.
 */
export async function markHandedOver(monitor: Omit<EvaluatedMonitor, "stateVersion">, at: string): Promise<void> {
  try {
    await updateItem({
      Key: monitorKey(monitor.orgId, monitor.environment, monitor.monitorId),
      UpdateExpression: "REMOVE #state.#pending",
      ConditionExpression: "#state.#pending = :at",
      ExpressionAttributeNames: { "#state": "state", "#pending": "pendingHandOver" },
      ExpressionAttributeValues: { ":at": at },
    });
  } catch (error) {
    if (!isConditionFailure(error)) throw error;
  }
}
