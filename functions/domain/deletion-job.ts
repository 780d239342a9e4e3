/** Erasure of an external user's data: an asynchronous, resumable job. */

export type DeletionJobStatus = "queued" | "running" | "completed";

export interface DeletionJob {
  readonly jobId: string;
  readonly orgId: string;
  readonly environment: "live" | "test";
  readonly userId: string;
  readonly status: DeletionJobStatus;
  readonly deletedSessions: number;
  readonly deletedEvents: number;
  readonly createdAt: string;
  readonly completedAt?: string | undefined;
}

/** What the queue carries: enough to find the job again. */
export interface DeletionJobMessage {
  readonly jobId: string;
  readonly orgId: string;
  readonly environment: "live" | "test";
}
