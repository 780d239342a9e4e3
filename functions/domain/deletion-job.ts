/** Erasure of an external user's data: an asynchronous, resumable job. */

/** `completed_with_errors`: finished, but some sessions could not be deleted (listed in `failures`). */
export type DeletionJobStatus = "queued" | "running" | "completed" | "completed_with_errors";

/** The most failed sessions a job lists (all are counted in `failedSessions`). */
export const MAX_LISTED_FAILURES = 20;

/** A session an erasure job could not delete, and why. */
export interface DeletionFailure {
  readonly sessionId: string;
  readonly message: string;
}

export interface DeletionJob {
  readonly jobId: string;
  readonly orgId: string;
  readonly environment: "live" | "test";
  readonly userId: string;
  readonly status: DeletionJobStatus;
  readonly deletedSessions: number;
  readonly deletedEvents: number;
  /** Sessions that could not be deleted (the job went on with the others). */
  readonly failedSessions?: number | undefined;
  readonly failures?: readonly DeletionFailure[] | undefined;
  readonly createdAt: string;
  readonly completedAt?: string | undefined;
}

/** What the queue carries: enough to find the job again. */
export interface DeletionJobMessage {
  readonly jobId: string;
  readonly orgId: string;
  readonly environment: "live" | "test";
}
