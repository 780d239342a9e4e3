/**
 * Runs an erasure job to completion: every session of the user in the
 * tenant is deleted (with its events and rollup contribution, counted on the
 * job in the same transaction). Safe to run again at any point: deleted
 * sessions are gone, so a resumed or duplicated run only finishes the rest.
 */
import { QueryCommand } from "@aws-sdk/lib-dynamodb";
import type { DeletionJobMessage } from "../domain/deletion-job.js";
import { NotFoundError } from "../domain/errors.js";
import type { Principal } from "../domain/principal.js";
import { completeJob, findDeletionJob, jobCounterUpdate, markRunning } from "../store/deletion-job-store.js";
import { documentClient, tableName } from "../store/dynamo-client.js";
import { sessionTimelineKeys } from "../store/keys.js";
import { DEFAULT_RETENTION_DAYS, DEFAULT_ROLLUP_RETENTION_DAYS } from "../store/retention.js";
import { deleteSession } from "../store/session-deletion.js";

/** The user's session ids, one keys-only index page at a time (GSI3, docs/data-model.md pattern 12). */
async function* sessionIdsOfUser(principal: Principal, userId: string): AsyncGenerator<string> {
  const partition = sessionTimelineKeys({
    id: "",
    orgId: principal.orgId,
    environment: principal.environment,
    agentName: "",
    userId,
    createdAt: "",
  }).GSI3PK;
  let startKey: Record<string, unknown> | undefined;
  do {
    const page = await documentClient.send(
      new QueryCommand({
        TableName: tableName,
        IndexName: "GSI3",
        KeyConditionExpression: "GSI3PK = :pk",
        ExpressionAttributeValues: { ":pk": partition },
        ExclusiveStartKey: startKey,
        Limit: 100,
      }),
    );
    for (const item of page.Items ?? []) yield String(item.PK).slice("SESSION#".length);
    startKey = page.LastEvaluatedKey;
  } while (startKey !== undefined);
}

export async function runDeletionJob(message: DeletionJobMessage): Promise<void> {
  const job = await findDeletionJob(message);
  if (job === undefined || job.status === "completed") return;
  await markRunning(message);
  const principal: Principal = {
    keyId: `deletion:${job.jobId}`,
    orgId: job.orgId,
    environment: job.environment,
    scopes: ["delete"],
    retentionDays: DEFAULT_RETENTION_DAYS,
    rollupRetentionDays: DEFAULT_ROLLUP_RETENTION_DAYS,
  };
  // The index is eventually consistent: repeat passes until one finds nothing left to delete.
  for (let found = true; found; ) {
    found = false;
    for await (const sessionId of sessionIdsOfUser(principal, job.userId)) {
      try {
        await deleteSession(principal, sessionId, {
          receipt: (session) => jobCounterUpdate(message, session.eventCount),
        });
        found = true;
      } catch (error) {
        if (!(error instanceof NotFoundError)) throw error;
      }
    }
  }
  await completeJob(job);
}
