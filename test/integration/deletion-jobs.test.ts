/** Erasure jobs: one job per user while unfinished, and a crashed worker's job is resumed and finished exactly. */
import { describe, expect, it } from "vitest";
import { useLocalDeletionRunner } from "../../functions/deletion/deletion-dispatch.js";
import {
  createDeletionJob,
  getDeletionJob,
  jobCounterUpdate,
  messageOf,
} from "../../functions/store/deletion/deletion-job-store.js";
import { createEvent } from "../../functions/store/events/event-store.js";
import { ensureOrganisation } from "../../functions/store/members/organisation-store.js";
import { deleteSession } from "../../functions/store/sessions/session-deletion.js";
import { createSession } from "../../functions/store/sessions/session-store.js";
import { startLocalDeletionWorker } from "../../local/local-deletion-worker.js";
import { scanTable, uniqueOrgId } from "../support/fixtures.js";
import { principalFor } from "../support/seed.js";

async function userWithSessions(count: number) {
  const orgId = uniqueOrgId();
  await ensureOrganisation(orgId);
  const principal = principalFor(orgId);
  const ids: string[] = [];
  for (let index = 0; index < count; index++) {
    const session = await createSession(principal, { name: `s${index}`, agentName: "a", userId: "leaving" });
    await createEvent(principal, { sessionId: session.id, eventType: "error", estimatedCost: 0.5 });
    await createEvent(principal, { sessionId: session.id, eventType: "state_change" });
    ids.push(session.id);
  }
  return { principal, ids };
}

describe("deletion jobs", () => {
  it("a repeated request while the job is unfinished returns the same job", async () => {
    const { principal } = await userWithSessions(1);

    const first = await createDeletionJob(principal, "leaving");
    const second = await createDeletionJob(principal, "leaving");

    expect(first.created).toBe(true);
    expect(second.created).toBe(false);
    expect(second.job.jobId).toBe(first.job.jobId);
  });

  it("a job interrupted by a worker crash is resumed on restart and its counts stay exact", async () => {
    // Prepare: a job whose worker deleted one session, then died before finishing.
    const { principal, ids } = await userWithSessions(3);
    useLocalDeletionRunner(() => undefined); // the message is "lost" with the crashed worker
    const { job } = await createDeletionJob(principal, "leaving");
    await deleteSession(principal, String(ids[0]), { receipt: () => jobCounterUpdate(messageOf(job), 2) });
    expect((await getDeletionJob(principal, job.jobId)).deletedSessions).toBe(1);

    // Act: a new worker starts (as `npm start` does) and resumes unfinished jobs.
    const worker = await startLocalDeletionWorker();
    await worker.idle();
    worker.stop();

    // Assess
    expect(await getDeletionJob(principal, job.jobId)).toMatchObject({
      status: "completed",
      deletedSessions: 3,
      deletedEvents: 6,
    });
    const left = (await scanTable()).filter(
      (item) => item.orgId === principal.orgId && (item.entity === "session" || item.entity === "event"),
    );
    expect(left).toEqual([]);
  });
});
