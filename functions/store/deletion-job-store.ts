/**
 * Erasure jobs. A job item lives in its tenant's partition
 * (`DELETIONS#<tenant>` / `JOB#<id>`); while unfinished it is also listed
 * under `DELETIONS#PENDING` so a restarted worker can resume it, and an
 * `ACTIVE#<userId>` pointer makes a repeated request return the same job.
 */
import { ConditionalCheckFailedException, TransactionCanceledException } from "@aws-sdk/client-dynamodb";
import { GetCommand, QueryCommand, TransactWriteCommand, UpdateCommand } from "@aws-sdk/lib-dynamodb";
import {
  type DeletionFailure,
  type DeletionJob,
  type DeletionJobMessage,
  MAX_LISTED_FAILURES,
} from "../domain/deletion-job.js";
import { NotFoundError } from "../domain/errors.js";
import { isId, newId } from "../domain/ids.js";
import type { Principal } from "../domain/principal.js";
import { documentClient, tableName } from "./dynamo-client.js";
import { deletionJobKey, type ItemKey, PENDING_DELETIONS_PARTITION, pendingDeletionKey, tenant } from "./keys.js";

export const DELETION_JOB_ENTITY = "deletionJob";

function activeJobKey(tenantPrefix: string, userId: string): ItemKey {
  return { PK: `DELETIONS#${tenantPrefix}`, SK: `ACTIVE#${userId}` };
}

function jobFromItem(item: Record<string, unknown>): DeletionJob {
  const { PK, SK, entity, ...job } = item;
  return job as unknown as DeletionJob;
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
    await documentClient.send(
      new TransactWriteCommand({
        TransactItems: [
          {
            Put: {
              TableName: tableName,
              Item: { ...activeJobKey(tenantPrefix, userId), entity: "deletionPointer", jobId: job.jobId },
              ConditionExpression: "attribute_not_exists(PK)",
            },
          },
          {
            Put: {
              TableName: tableName,
              Item: { ...deletionJobKey(tenantPrefix, job.jobId), entity: DELETION_JOB_ENTITY, ...job },
            },
          },
          {
            Put: {
              TableName: tableName,
              Item: { ...pendingDeletionKey(job.jobId), entity: "deletionPending", ...messageOf(job) },
            },
          },
        ],
      }),
    );
    return { job, created: true };
  } catch (error) {
    const taken =
      error instanceof TransactionCanceledException &&
      error.CancellationReasons?.[0]?.Code === "ConditionalCheckFailed";
    if (!taken) throw error;
    const pointer = await documentClient.send(
      new GetCommand({ TableName: tableName, Key: activeJobKey(tenantPrefix, userId), ConsistentRead: true }),
    );
    return { job: await getDeletionJob(principal, String(pointer.Item?.jobId)), created: false };
  }
}

export function messageOf(job: DeletionJob): DeletionJobMessage {
  return { jobId: job.jobId, orgId: job.orgId, environment: job.environment };
}

async function readJob(message: DeletionJobMessage): Promise<DeletionJob | undefined> {
  const result = await documentClient.send(
    new GetCommand({
      TableName: tableName,
      Key: deletionJobKey(tenant(message.orgId, message.environment), message.jobId),
      ConsistentRead: true,
    }),
  );
  return result.Item === undefined ? undefined : jobFromItem(result.Item);
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
    await documentClient.send(
      new UpdateCommand({
        TableName: tableName,
        Key: deletionJobKey(tenant(message.orgId, message.environment), message.jobId),
        UpdateExpression: "SET #status = :running",
        ConditionExpression: "NOT #status IN (:completed, :withErrors)",
        ExpressionAttributeNames: { "#status": "status" },
        ExpressionAttributeValues: {
          ":running": "running",
          ":completed": "completed",
          ":withErrors": "completed_with_errors",
        },
      }),
    );
  } catch (error) {
    if (!(error instanceof ConditionalCheckFailedException)) throw error;
  }
}

/** The transaction item that counts one deleted session (and its events) on the job. */
export function jobCounterUpdate(message: DeletionJobMessage, deletedEvents: number) {
  return {
    Update: {
      TableName: tableName,
      Key: deletionJobKey(tenant(message.orgId, message.environment), message.jobId),
      UpdateExpression: "ADD deletedSessions :one, deletedEvents :events",
      ExpressionAttributeValues: { ":one": 1, ":events": deletedEvents },
    },
  };
}

/**
 * Records on the job a session it could not delete: counted in `failedSessions`, and listed in
 * `failures` while fewer than MAX_LISTED_FAILURES are.
 */
export async function recordJobFailure(message: DeletionJobMessage, failure: DeletionFailure): Promise<void> {
  const key = deletionJobKey(tenant(message.orgId, message.environment), message.jobId);
  try {
    await documentClient.send(
      new UpdateCommand({
        TableName: tableName,
        Key: key,
        UpdateExpression:
          "ADD failedSessions :one SET failures = list_append(if_not_exists(failures, :none), :failure)",
        ConditionExpression: "attribute_not_exists(failures) OR size(failures) < :max",
        ExpressionAttributeValues: { ":one": 1, ":none": [], ":failure": [failure], ":max": MAX_LISTED_FAILURES },
      }),
    );
  } catch (error) {
    if (!(error instanceof ConditionalCheckFailedException)) throw error;
    await documentClient.send(
      new UpdateCommand({
        TableName: tableName,
        Key: key,
        UpdateExpression: "ADD failedSessions :one",
        ExpressionAttributeValues: { ":one": 1 },
      }),
    );
  }
}

/** Finishes the job: `completed`, or `completed_with_errors` when `failed` sessions could not be deleted. */
export async function completeJob(job: DeletionJob, failed = 0, nowMs = Date.now()): Promise<void> {
  const tenantPrefix = tenant(job.orgId, job.environment);
  await documentClient.send(
    new TransactWriteCommand({
      TransactItems: [
        {
          Update: {
            TableName: tableName,
            Key: deletionJobKey(tenantPrefix, job.jobId),
            UpdateExpression: "SET #status = :completed, completedAt = :now",
            ExpressionAttributeNames: { "#status": "status" },
            ExpressionAttributeValues: {
              ":completed": failed === 0 ? "completed" : "completed_with_errors",
              ":now": new Date(nowMs).toISOString(),
            },
          },
        },
        { Delete: { TableName: tableName, Key: pendingDeletionKey(job.jobId) } },
        { Delete: { TableName: tableName, Key: activeJobKey(tenantPrefix, job.userId) } },
      ],
    }),
  );
}

/** Unfinished jobs (to resume after a restart). */
export async function listPendingJobs(): Promise<DeletionJobMessage[]> {
  const result = await documentClient.send(
    new QueryCommand({
      TableName: tableName,
      KeyConditionExpression: "PK = :pk",
      ExpressionAttributeValues: { ":pk": PENDING_DELETIONS_PARTITION },
      ConsistentRead: true,
    }),
  );
  return (result.Items ?? []).map((item) => ({
    jobId: String(item.jobId),
    orgId: String(item.orgId),
    environment: item.environment === "test" ? "test" : "live",
  }));
}
