/**
 * Fault injection on a real process stack: a DEDICATED DynamoDB Local (temp
 * data directory, free port) and `local/start.ts` as a child process on it.
 * A bounded client sends every event with an Idempotency-Key and retries on
 * 5xx, 409 (the key is still held by an interrupted attempt), 429 and network
 * errors, with backoff, until the event is acknowledged. Then, through the
 * READ API, every acknowledged event must be stored exactly once: per session
 * the events list has distinct ids, equal to the acknowledged ones, and the
 * session's eventCount is their number.
 *
 *  1. DynamoDB outage: in the middle of 8 workers × 40 events, DynamoDB Local
 *     is stopped, kept down ~1.5 s and started again on the SAME port and data
 *     directory (the API process keeps running and must recover by itself).
 *  2. API crash: in the middle of 16 workers × 12 events, the API process is
 *     killed with SIGKILL and started again on the same DATA_DIR; clients move
 *     to the new URL. Requests the killed process had written but not yet
 *     answered are retried with their key; the test reports how many events
 *     were written by the killed process and acknowledged only after the
 *     restart (the crash landed between write and response for those). The
 *     kill cannot be timed to that window from outside, so that number may be
 *     0 on a given run; the deterministic version of the window (claim, write,
 *     die before answering, retry) is the store-level test in
 *     test/integration/idempotency.test.ts ("a request that crashed after
 *     writing its event is retried without a duplicate"), which this test
 *     complements with a real process death.
 *
 * Both interruptions leave idempotency claims "in flight" (their lock runs
 * IN_FLIGHT_LOCK_MS = 15 s), during which retries get 409; so each phase takes
 * ~20 s and the file ~50 s. Every process is killed by pid in afterAll, also after a failure.
 */
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it, type TestContext } from "vitest";
import { openProcessStack, type ProcessStack } from "../support/process-stack.js";
import { readJson } from "../support/stack-reads.js";

const TABLE_NAME = "ats-fault";
/** Bound on one phase (typically ~20 s, most of it the 15 s claim lock): every event must be acknowledged by then. */
const PHASE_DEADLINE_MS = 75_000;

let processes: ProcessStack;
/** The API's current base URL and key (clients read them on every attempt; a restart changes the URL). */
let stack: ProcessStack["access"];

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

beforeAll(async () => {
  processes = await openProcessStack({ prefix: "ats-fault-", tableName: TABLE_NAME });
  stack = processes.access;
}, 120_000);

afterAll(() => processes?.close());

// ---------------------------------------------------------------------------
// The retrying client.
// ---------------------------------------------------------------------------

interface Attempts {
  /** What the attempts before the acknowledgement got: "500", "409", "network", … (before / after the fault). */
  readonly retried: Map<string, number>;
  acknowledged: number;
  faultStarted: boolean;
}

function newAttempts(): Attempts {
  return { retried: new Map(), acknowledged: 0, faultStarted: false };
}

function note(attempts: Attempts, outcome: string): void {
  const label = `${outcome} ${attempts.faultStarted ? "after" : "before"} the fault`;
  attempts.retried.set(label, (attempts.retried.get(label) ?? 0) + 1);
}

/** Sends until the service acknowledges (2xx); retries 5xx, 409, 429 and network errors with backoff. */
async function untilAcknowledged(
  method: "POST",
  path: string,
  body: unknown,
  attempts: Attempts,
  deadline: number,
): Promise<{ body: Record<string, unknown>; sentAt: number }> {
  const key = randomUUID();
  const text = JSON.stringify(body);
  for (let attempt = 0; ; attempt++) {
    if (Date.now() > deadline) throw new Error(`${method} ${path} not acknowledged before the deadline`);
    let answer: { status: number; text: string } | undefined;
    const sentAt = Date.now();
    try {
      const response = await fetch(`${stack.apiUrl}${path}`, {
        method,
        headers: {
          authorization: `Bearer ${stack.apiKey}`,
          "content-type": "application/json",
          "idempotency-key": key,
        },
        body: text,
        signal: AbortSignal.timeout(5_000),
      });
      answer = { status: response.status, text: await response.text() };
    } catch {
      note(attempts, "network");
    }
    if (answer !== undefined && answer.status >= 200 && answer.status < 300) {
      attempts.acknowledged += 1;
      return { body: JSON.parse(answer.text) as Record<string, unknown>, sentAt };
    }
    if (answer !== undefined) {
      if (answer.status !== 409 && answer.status !== 429 && answer.status < 500) {
        throw new Error(`${method} ${path}: unexpected ${answer.status} ${answer.text.slice(0, 200)}`);
      }
      note(attempts, String(answer.status));
    }
    await sleep(Math.min(1_000, 25 * 2 ** Math.min(attempt, 6)) + Math.random() * 50);
  }
}

function read(path: string): Promise<Record<string, unknown>> {
  return readJson(stack, path);
}

interface ListedEvent {
  readonly id: string;
  readonly createdAt: string;
}

async function listEvents(sessionId: string): Promise<ListedEvent[]> {
  const events: ListedEvent[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < 100; page++) {
    const query = `limit=100&fields=summary${cursor === undefined ? "" : `&cursor=${encodeURIComponent(cursor)}`}`;
    const body = await read(`/api/sdk/sessions/${sessionId}/events?${query}`);
    events.push(...(body.items as ListedEvent[]));
    if (body.nextCursor === null) return events;
    cursor = String(body.nextCursor);
  }
  throw new Error("event listing did not end");
}

interface Acknowledged {
  readonly id: string;
  readonly sessionId: string;
  readonly firstSentAt: number;
  /** When the attempt that got the acknowledgement was sent. */
  readonly acknowledgedAttemptSentAt: number;
  readonly acknowledgedAt: number;
}

/**
 * `workers` concurrent clients, each sending `perWorker` events into one of
 * `sessions` sessions; `fault` runs once `triggerAt` events are acknowledged.
 */
async function runLoad(options: {
  workers: number;
  perWorker: number;
  sessions: number;
  triggerAt: number;
  fault: () => Promise<void>;
}): Promise<{ sessionIds: string[]; acknowledged: Acknowledged[]; attempts: Attempts; timing: string }> {
  const startedAt = Date.now();
  const deadline = startedAt + PHASE_DEADLINE_MS;
  let faultAt = 0;
  const attempts = newAttempts();
  const sessionIds: string[] = [];
  for (let index = 0; index < options.sessions; index++) {
    const session = await untilAcknowledged(
      "POST",
      "/api/sdk/sessions",
      { name: `fault run ${index}`, agentName: "fault-agent", userId: `fault-user-${index}` },
      attempts,
      deadline,
    );
    sessionIds.push(String(session.body.id));
  }
  const acknowledged: Acknowledged[] = [];
  let faultDone: Promise<void> | undefined;
  const worker = async (workerIndex: number) => {
    const sessionId = sessionIds[workerIndex % sessionIds.length] ?? "";
    for (let sequence = 0; sequence < options.perWorker; sequence++) {
      const firstSentAt = Date.now();
      const event = await untilAcknowledged(
        "POST",
        "/api/sdk/events",
        {
          sessionId,
          eventType: sequence % 5 === 4 ? "llm_decision" : "tool_call",
          toolName: `tool-${sequence % 3}`,
          toolInput: { worker: workerIndex, sequence },
          estimatedCost: 0.01,
        },
        attempts,
        deadline,
      );
      acknowledged.push({
        id: String(event.body.id),
        sessionId,
        firstSentAt,
        acknowledgedAttemptSentAt: event.sentAt,
        acknowledgedAt: Date.now(),
      });
      if (faultDone === undefined && acknowledged.length >= options.triggerAt) {
        faultAt = Date.now();
        attempts.faultStarted = true;
        faultDone = options.fault();
      }
    }
  };
  await Promise.all(Array.from({ length: options.workers }, (_, index) => worker(index)));
  await faultDone;
  const seconds = (ms: number) => (ms / 1000).toFixed(1);
  const timing = `fault after ${seconds(faultAt - startedAt)} s, all acknowledged ${seconds(Date.now() - faultAt)} s later`;
  return { sessionIds, acknowledged, attempts, timing };
}

/** Every acknowledged event is listed exactly once, and eventCount agrees; returns the listed events. */
async function expectExactlyOnce(sessionIds: readonly string[], acknowledged: readonly Acknowledged[]) {
  const listedById = new Map<string, ListedEvent>();
  for (const sessionId of sessionIds) {
    const expected = acknowledged.filter((event) => event.sessionId === sessionId).map((event) => event.id);
    const listed = await listEvents(sessionId);
    const ids = listed.map((event) => event.id);
    expect(new Set(ids).size, `distinct event ids of ${sessionId}`).toBe(ids.length);
    expect(new Set(expected).size, `distinct acknowledged ids of ${sessionId}`).toBe(expected.length);
    expect([...ids].sort(), `events of ${sessionId}`).toEqual([...expected].sort());
    // Counted by the child's stream consumer a moment after acknowledgement (it polls every 250 ms).
    await expect
      .poll(async () => (await read(`/api/sdk/sessions/${sessionId}`)).eventCount, {
        timeout: 30_000,
        interval: 200,
        message: `eventCount of ${sessionId}`,
      })
      .toBe(expected.length);
    for (const event of listed) listedById.set(event.id, event);
  }
  return listedById;
}

function describeAttempts(attempts: Attempts): string {
  const retried = [...attempts.retried].map(([outcome, count]) => `${outcome}×${count}`).join(", ");
  return `${attempts.acknowledged} requests acknowledged; retried attempts: ${retried || "none"}`;
}

describe("fault injection (dedicated DynamoDB Local and API process)", () => {
  it("a DynamoDB Local outage mid-load loses and duplicates nothing that was acknowledged", async (context: TestContext) => {
    let outage = { stoppedAt: 0, restartedAt: 0 };
    const workers = 8;
    const perWorker = 40;
    const { sessionIds, acknowledged, attempts, timing } = await runLoad({
      workers,
      perWorker,
      sessions: 4,
      triggerAt: 160, // of 320
      fault: async () => {
        const stoppedAt = Date.now();
        await processes.stopDynamo();
        await sleep(1_500);
        await processes.startDynamo();
        outage = { stoppedAt, restartedAt: Date.now() };
      },
    });

    expect(outage.stoppedAt).toBeGreaterThan(0);
    expect(acknowledged).toHaveLength(workers * perWorker);
    await expectExactlyOnce(sessionIds, acknowledged);
    const duringOutage = acknowledged.filter(
      (event) => event.firstSentAt <= outage.restartedAt && event.acknowledgedAt >= outage.stoppedAt,
    ).length;
    await context.annotate(
      `${acknowledged.length} events acknowledged = ${acknowledged.length} stored, no duplicates; ` +
        `${duringOutage} of them were in flight during the outage (stop, 1.5 s down, start: ${((outage.restartedAt - outage.stoppedAt) / 1000).toFixed(1)} s); ` +
        `${describeAttempts(attempts)}; ${timing}`,
    );
  }, 120_000);

  it("an API process killed mid-load (SIGKILL) and restarted: retried requests write no duplicate", async (context: TestContext) => {
    let killedAt = 0;
    let restartedAt = 0;
    const workers = 16;
    const perWorker = 12;
    const { sessionIds, acknowledged, attempts, timing } = await runLoad({
      workers,
      perWorker,
      sessions: 4,
      triggerAt: 96, // of 192
      fault: async () => {
        killedAt = Date.now();
        await processes.killApi("SIGKILL");
        await processes.startApi();
        restartedAt = Date.now();
      },
    });

    expect(killedAt).toBeGreaterThan(0);
    expect(acknowledged).toHaveLength(workers * perWorker);
    const listed = await expectExactlyOnce(sessionIds, acknowledged);
    // Written by the killed process (createdAt before the kill), acknowledged only by a retry sent to the new one.
    const writtenBeforeCrashAnsweredAfter = acknowledged.filter((event) => {
      const stored = listed.get(event.id);
      return (
        stored !== undefined && event.acknowledgedAttemptSentAt > killedAt && Date.parse(stored.createdAt) < killedAt
      );
    }).length;
    await context.annotate(
      `${acknowledged.length} events acknowledged = ${acknowledged.length} stored, no duplicates; ` +
        `${writtenBeforeCrashAnsweredAfter} written by the killed process and acknowledged only by a retry to the restarted one ` +
        `(restart took ${((restartedAt - killedAt) / 1000).toFixed(1)} s); ` +
        `${describeAttempts(attempts)}; ${timing}`,
    );
  }, 120_000);
});
