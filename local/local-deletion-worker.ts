/**
 * The local stand-in for the deletion queue and its worker: jobs run in this
 * process, one at a time, and unfinished jobs are resumed on start (as SQS
 * would redeliver them on AWS).
 */
import type { DeletionJobMessage } from "../functions/domain/deletion-job.js";

export interface LocalDeletionWorker {
  /** Resolves when every job handed over so far has finished. */
  idle(): Promise<void>;
  stop(): void;
}

/** Needs the service environment configured (see local-database.ts). */
export async function startLocalDeletionWorker(): Promise<LocalDeletionWorker> {
  const { useLocalDeletionRunner } = await import("../functions/deletion/deletion-dispatch.js");
  const { runDeletionJob } = await import("../functions/deletion/run-deletion-job.js");
  const { listPendingJobs } = await import("../functions/store/deletion/deletion-job-store.js");
  const { logError } = await import("../functions/runtime/log.js");

  let queue: Promise<void> = Promise.resolve();
  const run = (message: DeletionJobMessage) => {
    queue = queue.then(() =>
      runDeletionJob(message).catch((error: unknown) =>
        logError("local deletion job failed; it resumes on the next start", error, { jobId: message.jobId }),
      ),
    );
  };
  useLocalDeletionRunner(run);
  for (const message of await listPendingJobs()) run(message);
  return {
    idle: () => queue,
    stop: () => useLocalDeletionRunner(undefined),
  };
}
