/**
 * Erasure jobs. A job item lives in its tenant's partition
 * (`DELETIONS#<tenant>` / `JOB#<id>`); while unfinished it is also listed
 * under `DELETIONS#PENDING` so a restarted worker can resume it, and an
 * `ACTIVE#<userId>` pointer makes a repeated request return the same job.
 */

import { deletionActorOf } from "../../domain/deletion-audit.js";
import {
  type DeletionFailure,
  type DeletionJob,
  type DeletionJobMessage,
  MAX_LISTED_FAILURES,
} from "../../domain/deletion-job.js";
import { NotFoundError } from "../../domain/errors.js";
import { isId, newId } from "../../domain/ids.js";
import type { Principal } from "../../domain/principal.js";
import { isConditionFailure } from "../table/condition-failure.js";
import { defineEntity } from "../table/entity.js";
import {
  activeDeletionKey,
  deletionFailureKey,
  deletionJobKey,
  PENDING_DELETIONS_PARTITION,
  pendingDeletionKey,
  tenant,
} from "../table/keys.js";
import {
  getItem,
  putIfAbsentItem,
  putItem,
  queryAll,
  type TransactItem,
  transact,
  updateIfExists,
  updateRequest,
} from "../table/table-operations.js";
import { backoff, isTransactionConflict } from "../table/write-retry.js";
import { deletionAuditPut } from "./deletion-audit-store.js";

export const DELETION_JOB_ENTITY = "deletionJob";
/** A session an erasure job counted as failed (recordJobFailure). */
export const DELETION_FAILURE_ENTITY = "deletionFailure";

/** The job item, in its tenant's partition. */
const deletionJobEntity = defineEntity<DeletionJob, DeletionJob>({
  tag: DELETION_JOB_ENTITY,
  fields: {
    jobId: "string",
    orgId: "string",
    environment: "string",
    userId: "string",
    status: "string",
    createdAt: "string",
  },
  key: (job) => deletionJobKey(tenant(job.orgId, job.environment), job.jobId),
  attributes: (job) => ({ ...job }),
});

/** The marker of an unfinished job under `DELETIONS#PENDING` (what a restarted worker resumes). */
const pendingDeletionEntity = defineEntity<DeletionJobMessage, DeletionJobMessage>({
  tag: "deletionPending",
  fields: { jobId: "string", orgId: "string", environment: "string" },
  key: (message) => pendingDeletionKey(message.jobId),
  attributes: (message) => ({ ...message }),
  fromFields: (fields) => ({
    jobId: String(fields.jobId),
    orgId: String(fields.orgId),
    environment: fields.environment === "test" ? "test" : "live",
  }),
});

/** The pointer from a user to their unfinished job (one job per user and tenant). */
const activeJobPointerEntity = defineEntity<{ readonly jobId: string }, DeletionJob>({
  tag: "deletionPointer",
  fields: { jobId: "string" },
  key: (job) => activeDeletionKey(tenant(job.orgId, job.environment), job.userId),
  attributes: (job) => ({ jobId: job.jobId }),
});

function jobKeyOf(message: DeletionJobMessage) {
  return deletionJobKey(tenant(message.orgId, message.environment), message.jobId);
}

/** Starts erasing a user's data, or returns the unfinished job already doing it (`created: false`). */
export async function createDeletionJob(
  principal: Principal,
  userId: string,
  nowMs = Date.now(),
): Promise<{ job: DeletionJob; created: boolean }> {
  const tenantPrefix = tenant(principal.orgId, principal.environment);
  const job: DeletionJob = {
    jobId: newId("deletionJob", nowMs),
    orgId: principal.orgId,
    environment: principal.environment,
    userId,
    status: "queued",
    deletedSessions: 0,
    deletedEvents: 0,
    createdAt: new Date(nowMs).toISOString(),
  };
  try {
    await transact([
      putIfAbsentItem(activeJobPointerEntity.toItem(job)),
      putItem(deletionJobEntity.toItem(job)),
      putItem(pendingDeletionEntity.toItem(messageOf(job))),
      deletionAuditPut({
        id: newId("audit", nowMs),
        orgId: principal.orgId,
        environment: principal.environment,
        action: "user.erasure.requested",
        target: userId,
        actor: deletionActorOf(principal),
        at: job.createdAt,
        jobId: job.jobId,
      }),
    ]);
    return { job, created: true };
  } catch (error) {
    if (!isConditionFailure(error, 0)) throw error;
    const pointer = await getItem(activeDeletionKey(tenantPrefix, userId));
    const jobId = pointer === undefined ? "" : activeJobPointerEntity.fromItem(pointer).jobId;
    return { job: await getDeletionJob(principal, jobId), created: false };
  }
}

export function messageOf(job: DeletionJob): DeletionJobMessage {
  return { jobId: job.jobId, orgId: job.orgId, environment: job.environment };
}

async function readJob(message: DeletionJobMessage): Promise<DeletionJob | undefined> {
  const item = await getItem(jobKeyOf(message));
  return item === undefined ? undefined : deletionJobEntity.fromItem(item);
}

/** A job of the principal's tenant; other tenants' jobs are not found. */
export async function getDeletionJob(principal: Principal, jobId: string): Promise<DeletionJob> {
  const job = isId("deletionJob", jobId)
    ? await readJob({ jobId, orgId: principal.orgId, environment: principal.environment })
    : undefined;
  if (job === undefined) throw new NotFoundError(`Deletion job ${jobId} not found`);
  return job;
}

export async function findDeletionJob(message: DeletionJobMessage): Promise<DeletionJob | undefined> {
  return readJob(message);
}

export async function markRunning(message: DeletionJobMessage): Promise<void> {
  try {
    await updateIfExists(
      jobKeyOf(message),
      { set: { status: "running" } },
      {
        allowed: ["status"],
        condition: {
          expression: "NOT #status IN (:completed, :withErrors)",
          values: { ":completed": "completed", ":withErrors": "completed_with_errors" },
        },
      },
    );
  } catch (error) {
    if (!isConditionFailure(error)) throw error;
  }
}

/** The transaction item that counts one deleted session (and its events) on the job. */
export function jobCounterUpdate(message: DeletionJobMessage, deletedEvents: number): TransactItem {
  return {
    Update: updateRequest(
      jobKeyOf(message),
      { add: { deletedSessions: 1, deletedEvents } },
      { allowed: ["deletedSessions", "deletedEvents"], mayCreate: true },
    ),
  };
}

/** Tries of a failure's record that met another transaction on the job (a deletion counted at the same moment). */
const FAILURE_RECORD_TRIES = 5;

/**
 * Records on the job a session it could not delete: counted in `failedSessions`, and listed in `failures` while
 * fewer than MAX_LISTED_FAILURES are — once per session, in one transaction with the session's failure record
 * (deletionFailureKey), so a second run of the job failing on the same session (a redelivered message, two
 * workers at once) changes nothing.
 */
export async function recordJobFailure(message: DeletionJobMessage, failure: DeletionFailure): Promise<void> {
  const key = jobKeyOf(message);
  const record: TransactItem = {
    Put: {
      Item: {
        ...deletionFailureKey(tenant(message.orgId, message.environment), message.jobId, failure.sessionId),
        entity: DELETION_FAILURE_ENTITY,
        jobId: message.jobId,
        sessionId: failure.sessionId,
      },
      ConditionExpression: "attribute_not_exists(PK)",
    },
  };
  const listed: TransactItem = {
    Update: {
      Key: key,
      UpdateExpression: "ADD failedSessions :one SET failures = list_append(if_not_exists(failures, :none), :failure)",
      ConditionExpression: "attribute_not_exists(failures) OR size(failures) < :max",
      ExpressionAttributeValues: { ":one": 1, ":none": [], ":failure": [failure], ":max": MAX_LISTED_FAILURES },
    },
  };
  const counted: TransactItem = {
    Update: updateRequest(key, { add: { failedSessions: 1 } }, { allowed: ["failedSessions"], mayCreate: true }),
  };
  let update = listed;
  for (let attempt = 1; ; attempt++) {
    try {
      await transact([record, update]);
      return;
    } catch (error) {
      if (isConditionFailure(error, 0)) return;
      if (update === listed && isConditionFailure(error, 1)) update = counted;
      else if (!isTransactionConflict(error) || attempt >= FAILURE_RECORD_TRIES) throw error;
      else await backoff(attempt);
    }
  }
}

/** Finishes the job: `completed`, or `completed_with_errors` when `failed` sessions could not be deleted. */
export async function completeJob(job: DeletionJob, failed = 0, nowMs = Date.now()): Promise<void> {
  const tenantPrefix = tenant(job.orgId, job.environment);
  await transact([
    {
      Update: updateRequest(
        deletionJobEntity.key(job),
        {
          set: {
            status: failed === 0 ? "completed" : "completed_with_errors",
            completedAt: new Date(nowMs).toISOString(),
          },
        },
        { allowed: ["status", "completedAt"], mayCreate: true },
      ),
    },
    { Delete: { Key: pendingDeletionKey(job.jobId) } },
    { Delete: { Key: activeDeletionKey(tenantPrefix, job.userId) } },
  ]);
}

/** Unfinished jobs (to resume after a restart). */
export async function listPendingJobs(): Promise<DeletionJobMessage[]> {
  const items = await queryAll({
    KeyConditionExpression: "PK = :pk",
    ExpressionAttributeValues: { ":pk": PENDING_DELETIONS_PARTITION },
    ConsistentRead: true,
  });
  return items.map(pendingDeletionEntity.fromItem);
}
