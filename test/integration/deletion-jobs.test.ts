import { DeleteCommand } from "@aws-sdk/lib-dynamodb";
import { describe, expect, it } from "vitest";
import { useLocalDeletionRunner } from "../../functions/deletion/deletion-dispatch.js";
import { runDeletionJob } from "../../functions/deletion/run-deletion-job.js";
import {
  createDeletionJob,
  getDeletionJob,
  jobCounterUpdate,
  messageOf,
} from "../../functions/store/deletion/deletion-job-store.js";
import { createEvent } from "../../functions/store/events/event-store.js";
import { ensureOrganisation } from "../../functions/store/members/organisation-store.js";
import { deleteSession } from "../../functions/store/sessions/session-deletion.js";
import { createSession, updateSession } from "../../functions/store/sessions/session-store.js";
import { documentClient, tableName } from "../../functions/store/table/dynamo-client.js";
import { startLocalDeletionWorker } from "../../local/local-deletion-worker.js";
import { scanTable, settleCounts, storedEvents, storeUncountableDuration, uniqueOrgId } from "../support/fixtures.js";
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

  it("runs of one job at once (a redelivered message, a second worker) count a session none can delete once", async () => {
    // Prepare: three ended sessions, counted; one of them whose stored duration is not a number, so taking it
    // out of its rollups cannot be computed and its deletion fails every time.
    const { principal, ids } = await userWithSessions(3);
    for (const id of ids) await updateSession(principal, id, { status: "completed", durationMs: 100 });
    await settleCounts();
    const broken = String(ids[1]);
    await storeUncountableDuration(broken);
    useLocalDeletionRunner(() => undefined);
    const { job } = await createDeletionJob(principal, "leaving");

    // Act: three runs of the job at once (each fails on the broken session; a run resumed after a crash that
    // recorded it is the same).
    await Promise.all([1, 2, 3].map(() => runDeletionJob(messageOf(job))));

    // Assess: the broken session counted and listed once, the others deleted once.
    expect(await getDeletionJob(principal, job.jobId)).toMatchObject({
      status: "completed_with_errors",
      deletedSessions: 2,
      deletedEvents: 4,
      failedSessions: 1,
      failures: [{ sessionId: broken }],
    });
  });

  it("a run after a crash half-way through a session's events counts every event the session held", async () => {
    // Prepare: a counted session whose first event a crashed run already deleted (its transaction never ran).
    const { principal, ids } = await userWithSessions(2);
    await settleCounts();
    const halfDeleted = String(ids[0]);
    const [firstEvent] = await storedEvents(halfDeleted);
    await documentClient.send(
      new DeleteCommand({ TableName: tableName, Key: { PK: firstEvent?.PK, SK: firstEvent?.SK } }),
    );
    useLocalDeletionRunner(() => undefined);
    const { job } = await createDeletionJob(principal, "leaving");

    // Act
    await runDeletionJob(messageOf(job));

    // Assess: both sessions with both their events (the stream counted two on each).
    expect(await getDeletionJob(principal, job.jobId)).toMatchObject({
      status: "completed",
      deletedSessions: 2,
      deletedEvents: 4,
    });
  });
});
