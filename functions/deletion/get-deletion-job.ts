/** GET /api/sdk/deletions/{jobId}: progress of an erasure job. */
import { apiKeyRoute } from "../http/api-key-route.js";
import { jsonResponse } from "../http/responses.js";
import { getDeletionJob } from "../store/deletion/deletion-job-store.js";

export const handler = apiKeyRoute("GetDeletionJob", {}, async ({ caller, pathParameters }) => {
  const job = await getDeletionJob(caller, pathParameters.jobId ?? "");
  return jsonResponse(200, {
    jobId: job.jobId,
    userId: job.userId,
    status: job.status,
    deletedSessions: job.deletedSessions,
    deletedEvents: job.deletedEvents,
    failedSessions: job.failedSessions ?? 0,
    failures: job.failures ?? [],
    createdAt: job.createdAt,
    completedAt: job.completedAt ?? null,
  });
});
