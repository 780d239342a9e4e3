/** DELETE /api/sdk/users/{userId}: erase every session and event of an external user → 202 { jobId }. */
import { apiKeyRoute } from "../http/api-key-route.js";
import { namePathParameter } from "../http/path-parameters.js";
import { jsonResponse } from "../http/responses.js";
import { createDeletionJob, messageOf } from "../store/deletion/deletion-job-store.js";
import { dispatchDeletionJob } from "./deletion-dispatch.js";

export const handler = apiKeyRoute("DeleteUserData", {}, async ({ caller, pathParameters }) => {
  const { job } = await createDeletionJob(caller, namePathParameter(pathParameters, "userId"));
  // Dispatched on every request, new or repeated: running a job twice is harmless, and a
  // repeat re-queues a job whose first message was lost.
  await dispatchDeletionJob(messageOf(job));
  return jsonResponse(202, { jobId: job.jobId, status: job.status });
});
