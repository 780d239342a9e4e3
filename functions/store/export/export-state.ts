/**
 * The export's state item `EXPORT` / `STATE` (issue 35; docs/data-model.md pattern 72): how far the committed runs'
 * changes reach (`changesThrough`, a minute), the last committed run, and the run lock — a lease (`lockOwner`,
 * `lockedUntil`) taken with a conditional update, so a scheduled run and an on-demand one never run at once, and a
 * run that died frees it when the lease ends.
 */
import { isConditionFailure } from "../table/condition-failure.js";
import { exportStateKey } from "../table/keys.js";
import { updateItem } from "../table/table-operations.js";

export interface ExportState {
  /** Changes of minutes before this one are in committed runs (absent before the first run). */
  readonly changesThrough?: string | undefined;
  readonly lastRunId?: string | undefined;
  readonly lastCommittedAt?: string | undefined;
}

/** Takes the run lock for `runId` until `untilMs`; undefined when another run holds it. */
export async function acquireExportLock(
  runId: string,
  nowMs: number,
  untilMs: number,
  organisations?: readonly string[],
): Promise<ExportState | undefined> {
  try {
    const attributes = await updateItem({
      Key: exportStateKey(organisations),
      UpdateExpression: "SET lockOwner = :run, lockedUntil = :until, entity = :entity",
      ConditionExpression: "attribute_not_exists(lockedUntil) OR lockedUntil < :now",
      ExpressionAttributeValues: { ":run": runId, ":until": untilMs, ":now": nowMs, ":entity": "exportState" },
      ReturnValues: "ALL_NEW",
    });
    return {
      changesThrough: typeof attributes?.changesThrough === "string" ? attributes.changesThrough : undefined,
      lastRunId: typeof attributes?.lastRunId === "string" ? attributes.lastRunId : undefined,
      lastCommittedAt: typeof attributes?.lastCommittedAt === "string" ? attributes.lastCommittedAt : undefined,
    };
  } catch (error) {
    if (isConditionFailure(error)) return undefined;
    throw error;
  }
}

/** Records a finished run (its changes reach `changesThrough`) and frees the lock, if `runId` still holds it. */
export async function commitExportState(
  runId: string,
  changesThrough: string,
  committed: { readonly runId: string; readonly at: string } | undefined,
  organisations?: readonly string[],
): Promise<void> {
  await updateItem({
    Key: exportStateKey(organisations),
    UpdateExpression:
      committed === undefined
        ? "SET changesThrough = :through REMOVE lockOwner, lockedUntil"
        : "SET changesThrough = :through, lastRunId = :last, lastCommittedAt = :at REMOVE lockOwner, lockedUntil",
    ConditionExpression: "lockOwner = :run",
    ExpressionAttributeValues: {
      ":run": runId,
      ":through": changesThrough,
      ...(committed === undefined ? {} : { ":last": committed.runId, ":at": committed.at }),
    },
  });
}

/** Frees the lock after a failed run (nothing recorded: the next run covers the same changes). */
export async function releaseExportLock(runId: string, organisations?: readonly string[]): Promise<void> {
  try {
    await updateItem({
      Key: exportStateKey(organisations),
      UpdateExpression: "REMOVE lockOwner, lockedUntil",
      ConditionExpression: "lockOwner = :run",
      ExpressionAttributeValues: { ":run": runId },
    });
  } catch (error) {
    if (!isConditionFailure(error)) throw error;
  }
}
