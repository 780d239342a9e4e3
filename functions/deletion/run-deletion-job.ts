/**
 * Runs an erasure job to completion: every session of the user in the
 * tenant is deleted (with its events and rollup contribution, counted on the
 * job in the same transaction). Safe to run again at any point: deleted
 * sessions are gone, so a resumed or duplicated run only finishes the rest.
 * One session that cannot be deleted never stalls the job: after a few tries
 * it is recorded on the job (`failedSessions`, `failures`) and the job goes
 * on with the others, finishing `completed_with_errors`.
 */
import type { DeletionJobMessage } from "../domain/deletion-job.js";
import { AtsError, NotFoundError } from "../domain/errors.js";
import type { Principal } from "../domain/principal.js";
import { logError } from "../runtime/log.js";
import {
  completeJob,
  findDeletionJob,
  jobCounterUpdate,
  markRunning,
  recordJobFailure,
} from "../store/deletion/deletion-job-store.js";
import { deleteSession } from "../store/sessions/session-deletion.js";
import { sessionIdsOfUser } from "../store/sessions/user-sessions.js";
import { DEFAULT_RETENTION_DAYS, DEFAULT_ROLLUP_RETENTION_DAYS } from "../store/table/retention.js";
import { backoff } from "../store/table/write-retry.js";

/** Tries per session before it is recorded as failed (throttling and races usually pass on a retry). */
const TRIES_PER_SESSION = 3;

type Outcome = "deleted" | "gone" | { readonly failure: unknown };

async function deleteWithRetries(
  principal: Principal,
  message: DeletionJobMessage,
  sessionId: string,
): Promise<Outcome> {
  let failure: unknown;
  for (let attempt = 0; attempt < TRIES_PER_SESSION; attempt++) {
    try {
      await deleteSession(principal, sessionId, {
        receipt: (_session, deletedEvents) => jobCounterUpdate(message, deletedEvents),
      });
      return "deleted";
    } catch (error) {
      if (error instanceof NotFoundError) return "gone";
      failure = error;
      await backoff(attempt + 4);
    }
  }
  return { failure };
}

export async function runDeletionJob(message: DeletionJobMessage): Promise<void> {
  const job = await findDeletionJob(message);
  if (job === undefined || job.status === "completed" || job.status === "completed_with_errors") return;
  await markRunning(message);
  const principal: Principal = {
    keyId: `deletion:${job.jobId}`,
    orgId: job.orgId,
    environment: job.environment,
    scopes: ["delete"],
    retentionDays: DEFAULT_RETENTION_DAYS,
    rollupRetentionDays: DEFAULT_ROLLUP_RETENTION_DAYS,
  };
  // The index is eventually consistent: repeat passes until one deletes nothing more.
  const failed = new Set<string>();
  for (let found = true; found; ) {
    found = false;
    for await (const sessionId of sessionIdsOfUser(principal, job.userId)) {
      if (failed.has(sessionId)) continue;
      const outcome = await deleteWithRetries(principal, message, sessionId);
      if (outcome === "deleted") found = true;
      if (typeof outcome !== "object") continue;
      failed.add(sessionId);
      logError("erasure job could not delete a session", outcome.failure, { jobId: job.jobId, sessionId });
      await recordJobFailure(message, {
        sessionId,
        message:
          outcome.failure instanceof AtsError
            ? outcome.failure.message
            : "Could not be deleted (an internal error, logged with the job id); request the erasure again",
      });
    }
  }
  // A run resumed after a redelivery keeps the failures an earlier run recorded in the final status.
  await completeJob(job, (job.failedSessions ?? 0) + failed.size);
}
