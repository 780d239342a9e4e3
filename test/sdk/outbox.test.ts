/**
 * The SDK's queueing, batching, retry and idempotency logic, at the `fetch`
 * boundary (a scripted stand-in for the service): what requests leave the
 * process, in what order, with which keys, and what is reported.
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import { AgentTracker, MAX_EVENT_BYTES } from "../../sdk/src/index.js";
import { sentEvents, TEST_KEY, TEST_URL, scriptedTracker as tracker } from "./support/scripted-fetch.js";

const agent = { name: "run", agentName: "bot", userId: "u-1" };

afterEach(() => {
  vi.useRealTimers();
});

describe("order and batching", () => {
  it("sends each session's start, then its events in order, then its end — whatever the interleaving", async () => {
    const { ats, requests } = tracker();
    const first = await ats.startSession(agent);
    const second = await ats.startSession({ ...agent, name: "second" });
    for (let i = 0; i < 30; i++) {
      first.toolCall({ toolName: "step", toolInput: { i } });
      second.decision({ reasoning: `step ${i}`, confidence: 0.5 });
    }
    await first.end();
    second.stateChange({ to: "late" });
    await second.end({ success: false, failureReason: "gave up" });
    await ats.shutdown();

    for (const run of [first, second]) {
      const own = requests.filter(
        (request) =>
          request.path.endsWith(run.id) ||
          request.body.id === run.id ||
          (request.body.events as { sessionId: string }[] | undefined)?.some((event) => event.sessionId === run.id),
      );
      expect(own[0]?.path).toBe("/api/sdk/sessions");
      expect(own.at(-1)?.method).toBe("PATCH");
    }
    const firstEvents = sentEvents(requests).filter((event) => event.sessionId === first.id);
    expect(firstEvents.map((event) => (event.toolInput as { i: number }).i)).toEqual([...Array(30).keys()]);
    const secondEnd = requests.find((request) => request.path === `/api/sdk/sessions/${second.id}`);
    expect(secondEnd?.body).toMatchObject({ status: "failed", failureReason: "gave up" });
    expect(ats.stats()).toMatchObject({ eventsDelivered: 61, eventsFailed: 0, sessionsCreated: 2, sessionsEnded: 2 });
  });

  it("fills batches to maxBatchSize on flush: 250 events → 100 + 100 + 50", async () => {
    const { ats, requests } = tracker();
    const run = await ats.startSession(agent);
    for (let i = 0; i < 250; i++) run.toolCall({ toolName: "t", toolInput: { i } });
    await ats.flush();
    const batches = requests.filter((request) => request.path === "/api/sdk/events/batch");
    expect(batches.map((batch) => (batch.body.events as unknown[]).length)).toEqual([100, 100, 50]);
    await ats.shutdown();
  });

  it("keeps a session's events together: sessions recorded round-robin go out as per-session batches, maxConcurrency at once", async () => {
    let inFlight = 0;
    let mostInFlight = 0;
    const { ats, requests } = tracker(
      async (request) => {
        if (request.path !== "/api/sdk/events/batch") return undefined;
        inFlight++;
        mostInFlight = Math.max(mostInFlight, inFlight);
        await new Promise((resolve) => setTimeout(resolve, 20));
        inFlight--;
        return undefined;
      },
      { maxConcurrency: 4 },
    );
    const runs = await Promise.all(Array.from({ length: 20 }, (_, i) => ats.startSession({ ...agent, name: `r${i}` })));
    await ats.flush();
    for (let i = 0; i < 100; i++) for (const run of runs) run.toolCall({ toolName: "t", toolInput: { i } });
    await ats.shutdown();
    const batches = requests.filter((request) => request.path === "/api/sdk/events/batch");
    const sessionsPerBatch = batches.map(
      (batch) => new Set((batch.body.events as { sessionId: string }[]).map((e) => e.sessionId)).size,
    );
    // The first batch fills while the agent records (5 events of each session); once it is in flight the
    // sessions' events pile up and every later batch holds one session's.
    expect(sessionsPerBatch[0]).toBe(20);
    expect(sessionsPerBatch.slice(1).every((count) => count === 1)).toBe(true);
    expect(mostInFlight).toBe(4);
    for (const run of runs) {
      const steps = sentEvents(requests)
        .filter((event) => event.sessionId === run.id)
        .map((event) => (event.toolInput as { i: number }).i);
      expect(steps).toEqual([...Array(100).keys()]);
    }
  });

  it("cuts batches by bytes: 1 MiB events go at most 3 to a request, every body under 4 MiB", async () => {
    const { ats, requests } = tracker();
    const run = await ats.startSession(agent);
    const blob = "x".repeat(1024 * 1024);
    for (let i = 0; i < 7; i++) run.toolCall({ toolName: "upload", toolInput: { i, blob } });
    await ats.shutdown();
    const batches = requests.filter((request) => request.path === "/api/sdk/events/batch");
    expect(batches.map((batch) => (batch.body.events as unknown[]).length)).toEqual([3, 3, 1]);
    for (const batch of batches) expect(JSON.stringify(batch.body).length).toBeLessThan(4 * 1024 * 1024);
    expect(ats.stats().eventsDelivered).toBe(7);
  });

  it("sends a full batch at once in background mode, and a partial one only when the interval elapses", async () => {
    vi.useFakeTimers();
    // Small events, so no body reaches the gzip threshold (gzip runs on Node's thread pool, outside fake time).
    const { ats, requests } = tracker(undefined, { flushIntervalMs: 5_000, maxBatchSize: 4 });
    const run = await ats.startSession(agent);
    await vi.advanceTimersByTimeAsync(10);
    for (let i = 0; i < 6; i++) run.stateChange({});
    await vi.advanceTimersByTimeAsync(10);
    expect(sentEvents(requests)).toHaveLength(4);
    await vi.advanceTimersByTimeAsync(4_000);
    expect(sentEvents(requests)).toHaveLength(4);
    await vi.advanceTimersByTimeAsync(1_100);
    expect(sentEvents(requests)).toHaveLength(6);
    expect(requests.every((request) => request.headers["content-encoding"] === undefined)).toBe(true);
    await ats.shutdown();
  });

  it("immediate mode sends without waiting for an interval, and end resolves once the session is delivered", async () => {
    const { ats, requests } = tracker(undefined, { mode: "immediate", flushIntervalMs: 3_600_000 });
    const run = await ats.startSession(agent);
    run.toolCall({ toolName: "t" });
    await run.end();
    expect(requests.map((request) => request.method + request.path.replace(run.id, ":id"))).toEqual([
      "POST/api/sdk/sessions",
      "POST/api/sdk/events/batch",
      "PATCH/api/sdk/sessions/:id",
    ]);
    await ats.shutdown();
  });
});

describe("idempotency", () => {
  it("a batch retried after a 503 carries the same Idempotency-Key and the same event keys", async () => {
    let failures = 1;
    const { ats, requests } = tracker((request) =>
      request.path === "/api/sdk/events/batch" && failures-- > 0
        ? { status: 503, headers: { "retry-after": "0" } }
        : undefined,
    );
    const run = await ats.startSession(agent);
    for (let i = 0; i < 3; i++) run.toolCall({ toolName: "t" });
    await ats.shutdown();
    const batches = requests.filter((request) => request.path === "/api/sdk/events/batch");
    expect(batches).toHaveLength(2);
    expect(batches[1]?.headers["idempotency-key"]).toBe(batches[0]?.headers["idempotency-key"]);
    const keys = (batch: (typeof batches)[number]) => (batch.body.events as { id: string }[]).map((event) => event.id);
    expect(keys(batches[1] as never)).toEqual(keys(batches[0] as never));
    expect(new Set(keys(batches[0] as never)).size).toBe(3);
    expect(ats.stats()).toMatchObject({ eventsDelivered: 3, retries: 1 });
  });

  it("events the batch answered 503 for are resent alone, under a new request key but their own event ids", async () => {
    let first = true;
    const { ats, requests, errors } = tracker((request) => {
      if (request.path !== "/api/sdk/events/batch" || !first) return undefined;
      first = false;
      const events = request.body.events as unknown[];
      return {
        status: 200,
        body: {
          results: events.map((_, index) =>
            index === 1 ? { index, status: 503, error: { error: "Service Unavailable" } } : { index, status: 201 },
          ),
        },
      };
    });
    const run = await ats.startSession(agent);
    for (let i = 0; i < 3; i++) run.toolCall({ toolName: "t", toolInput: { i } });
    await ats.shutdown();
    const batches = requests.filter((request) => request.path === "/api/sdk/events/batch");
    expect(batches).toHaveLength(2);
    const firstEvents = batches[0]?.body.events as { id: string }[];
    const retried = batches[1]?.body.events as { id: string; toolInput: { i: number } }[];
    expect(retried.map((event) => event.toolInput.i)).toEqual([1]);
    expect(retried[0]?.id).toBe(firstEvents[1]?.id);
    expect(batches[1]?.headers["idempotency-key"]).not.toBe(batches[0]?.headers["idempotency-key"]);
    expect(errors).toEqual([]);
    expect(ats.stats().eventsDelivered).toBe(3);
  });

  it("every request has an Idempotency-Key and a session start carries the client's id", async () => {
    const { ats, requests } = tracker();
    const run = await ats.startSession(agent);
    run.error("boom");
    await run.end();
    await ats.shutdown();
    for (const request of requests) expect(request.headers["idempotency-key"]).toMatch(/^[0-9a-f-]{36}$/);
    expect(new Set(requests.map((request) => request.headers["idempotency-key"])).size).toBe(requests.length);
    expect(requests[0]?.body).toMatchObject({ id: run.id, name: "run", agentName: "bot", userId: "u-1" });
  });
});

describe("retries and refusals", () => {
  it("does not retry a 400: reports it with the service's message, once", async () => {
    const { ats, requests, errors } = tracker((request) => {
      if (request.path !== "/api/sdk/events/batch") return undefined;
      const events = request.body.events as unknown[];
      return {
        status: 200,
        body: {
          results: events.map((_, index) => ({
            index,
            status: 400,
            error: { error: "Bad Request", message: "Invalid event: confidence" },
          })),
        },
      };
    });
    const run = await ats.startSession(agent);
    run.decision({ confidence: 7 });
    await ats.shutdown();
    expect(requests.filter((request) => request.path === "/api/sdk/events/batch")).toHaveLength(1);
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatchObject({ code: "rejected", status: 400, lostEvents: 1 });
    expect(errors[0]?.message).toContain("Invalid event: confidence");
    expect(ats.stats()).toMatchObject({ eventsDelivered: 0, eventsFailed: 1 });
  });

  it("honours Retry-After of a 429: the retry waits at least that long (fake timers)", async () => {
    vi.useFakeTimers();
    let limited = true;
    const { ats, requests } = tracker((request) => {
      if (request.path !== "/api/sdk/sessions" || !limited) return undefined;
      limited = false;
      return { status: 429, headers: { "retry-after": "7" }, body: { error: "Too Many Requests", message: "limit" } };
    });
    await ats.startSession(agent);
    await vi.advanceTimersByTimeAsync(6_900);
    expect(requests).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(200);
    expect(requests).toHaveLength(2);
    await ats.shutdown();
  });

  it("backs off exponentially with jitter on network errors: retry n waits within [0, 250 ms · 2^n] (fake timers)", async () => {
    vi.useFakeTimers();
    vi.spyOn(Math, "random").mockReturnValue(0.999);
    const { ats, requests } = tracker((_request, index) => (index < 4 ? new TypeError("fetch failed") : undefined));
    await ats.startSession(agent);
    const times: number[] = [];
    for (let step = 0; step < 40 && requests.length < 5; step++) {
      await vi.advanceTimersByTimeAsync(100);
    }
    times.push(...requests.map((request) => request.at));
    const gaps = times.slice(1).map((time, i) => time - (times[i] as number));
    // With random ≈ 1 the waits sit at the ceilings 250, 500, 1000, 2000 (within a 100 ms step).
    expect(gaps.map((gap) => Math.round(gap / 250))).toEqual([1, 2, 4, 8]);
    vi.spyOn(Math, "random").mockRestore();
    await ats.shutdown();
  });

  it("gives up after maxRetries and says how many events that cost", async () => {
    const { ats, requests, errors } = tracker(
      (request) =>
        request.path === "/api/sdk/events/batch"
          ? { status: 500, body: { error: "Internal Server Error" } }
          : undefined,
      { maxRetries: 2 },
    );
    vi.spyOn(Math, "random").mockReturnValue(0);
    const run = await ats.startSession(agent);
    for (let i = 0; i < 4; i++) run.toolCall({ toolName: "t" });
    await ats.shutdown();
    vi.spyOn(Math, "random").mockRestore();
    expect(requests.filter((request) => request.path === "/api/sdk/events/batch")).toHaveLength(3);
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatchObject({ code: "retries_exhausted", lostEvents: 4, status: 500, attempts: 3 });
  });

  it("a session the service refuses drops its events with one report, and other sessions go on", async () => {
    const { ats, errors, requests } = tracker((request) =>
      request.path === "/api/sdk/sessions" && request.body.name === "bad"
        ? { status: 400, body: { error: "Bad Request", message: "Invalid body: name" } }
        : undefined,
    );
    const bad = await ats.startSession({ ...agent, name: "bad" });
    const good = await ats.startSession(agent);
    for (let i = 0; i < 5; i++) {
      bad.toolCall({ toolName: "t" });
      good.toolCall({ toolName: "t" });
    }
    await bad.end();
    await ats.shutdown();
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatchObject({ code: "session_not_created", sessionId: bad.id, status: 400 });
    expect(sentEvents(requests).every((event) => event.sessionId === good.id)).toBe(true);
    expect(ats.stats()).toMatchObject({ eventsDelivered: 5, eventsFailed: 5, sessionsFailed: 1 });
  });

  it("splits a batch the service answers 413 and delivers both halves", async () => {
    const { ats, requests } = tracker((request) =>
      request.path === "/api/sdk/events/batch" && (request.body.events as unknown[]).length > 2
        ? { status: 413, body: { error: "Payload Too Large" } }
        : undefined,
    );
    const run = await ats.startSession(agent);
    for (let i = 0; i < 8; i++) run.toolCall({ toolName: "t", toolInput: { i } });
    await ats.shutdown();
    const accepted = requests.filter((request) => ((request.body.events as unknown[] | undefined)?.length ?? 3) <= 2);
    expect(sentEvents(accepted).map((event) => (event.toolInput as { i: number }).i)).toEqual([...Array(8).keys()]);
    expect(ats.stats().eventsDelivered).toBe(8);
  });
});

describe("bounded memory and size limits", () => {
  it("past maxQueueSize drops the oldest events, counts them and reports once per burst", async () => {
    let release: () => void = () => {};
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const { ats, errors, requests } = tracker(
      async (request) => {
        if (request.path === "/api/sdk/sessions") await gate;
        return undefined;
      },
      { maxQueueSize: 10 },
    );
    const run = await ats.startSession(agent);
    for (let i = 0; i < 25; i++) run.toolCall({ toolName: "t", toolInput: { i } });
    await Promise.resolve();
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatchObject({ code: "queue_overflow", lostEvents: 15 });
    release();
    await ats.shutdown();
    expect(sentEvents(requests).map((event) => (event.toolInput as { i: number }).i)).toEqual(
      [...Array(10).keys()].map((i) => i + 15),
    );
    expect(ats.stats()).toMatchObject({ eventsRecorded: 25, eventsDropped: 15, eventsDelivered: 10 });
  });

  it("an event larger than the service accepts is reported with its field sizes, not cut and not sent", async () => {
    const { ats, errors, requests } = tracker();
    const run = await ats.startSession(agent);
    run.toolCall({ toolName: "dump", toolOutput: { data: "y".repeat(MAX_EVENT_BYTES) }, toolInput: { small: 1 } });
    run.toolCall({ toolName: "next" });
    await ats.shutdown();
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatchObject({ code: "event_too_large", lostEvents: 1 });
    const sizes = (errors[0] as unknown as { sizes: { fields: Record<string, number>; eventBytes: number } }).sizes;
    expect(sizes.fields.toolOutput).toBeGreaterThan(MAX_EVENT_BYTES);
    expect(sizes.fields.toolInput).toBeLessThan(20);
    expect(sentEvents(requests).map((event) => event.toolName)).toEqual(["next"]);
    expect(ats.stats()).toMatchObject({ eventsFailed: 1, eventsDelivered: 1 });
  });

  it("compresses bodies over 1 KiB with gzip and leaves small ones alone", async () => {
    const { ats, requests } = tracker();
    const run = await ats.startSession(agent);
    for (let i = 0; i < 50; i++)
      run.toolCall({ toolName: "search", toolInput: { query: "refund policy for damaged goods" } });
    await ats.shutdown();
    const [create, batch] = requests;
    expect(create?.headers["content-encoding"]).toBeUndefined();
    expect(batch?.headers["content-encoding"]).toBe("gzip");
    expect(batch?.wireBytes).toBeLessThan(JSON.stringify(batch?.body).length / 4);
    const stats = ats.stats();
    expect(stats.bytesSent).toBeLessThan(stats.bytesBeforeCompression);
  });
});

describe("masking and sampling", () => {
  it("mask redacts every event before it leaves the process; null drops it; a throwing mask drops, never sends unmasked", async () => {
    const { ats, requests, errors } = tracker(undefined, {
      mask: (event) => {
        if (event.toolName === "secret") return null;
        if (event.toolName === "broken") throw new Error("mask bug");
        return {
          ...event,
          toolInput: { redacted: true },
          reasoning: String(event.reasoning).replace(/\d{4}-\d{4}/g, "####"),
        };
      },
    });
    const run = await ats.startSession(agent);
    run.toolCall({ toolName: "pay", toolInput: { card: "4111-1111" }, reasoning: "card 4111-1111" });
    run.toolCall({ toolName: "secret", toolInput: { password: "hunter2" } });
    run.toolCall({ toolName: "broken", toolInput: { password: "hunter2" } });
    await ats.shutdown();
    const sent = sentEvents(requests);
    expect(sent).toHaveLength(1);
    expect(sent[0]).toMatchObject({ toolName: "pay", toolInput: { redacted: true }, reasoning: "card ####" });
    expect(JSON.stringify(requests.map((request) => request.body))).not.toContain("hunter2");
    expect(errors.map((error) => error.code)).toEqual(["usage"]);
    expect(ats.stats()).toMatchObject({ eventsMasked: 2, eventsDelivered: 1 });
  });

  it("sampleRate keeps or leaves out whole sessions: an unsampled run sends nothing at all", async () => {
    const { ats, requests } = tracker(undefined, { sampleRate: 0.5 });
    const runs = await Promise.all(Array.from({ length: 40 }, () => ats.startSession(agent)));
    for (const run of runs) {
      run.toolCall({ toolName: "t" });
      await run.end();
    }
    await ats.shutdown();
    const sampled = runs.filter((run) => run.sampled);
    expect(sampled.length).toBeGreaterThan(5);
    expect(sampled.length).toBeLessThan(35);
    const created = requests
      .filter((request) => request.path === "/api/sdk/sessions")
      .map((request) => request.body.id);
    expect(created.sort()).toEqual(sampled.map((run) => run.id).sort());
    expect(sentEvents(requests)).toHaveLength(sampled.length);
    expect(ats.stats().eventsSampledOut).toBe(40 - sampled.length);
  });
});

describe("never into the agent's code path", () => {
  it("a fetch that throws synchronously, an onError that throws, bad field values: no exception reaches the caller", async () => {
    const ats = new AgentTracker({
      apiKey: TEST_KEY,
      baseUrl: TEST_URL,
      maxRetries: 0,
      fetch: (() => {
        throw new Error("sync failure");
      }) as unknown as typeof fetch,
      onError: () => {
        throw new Error("handler bug");
      },
    });
    const run = await ats.startSession({
      name: "x",
      agentName: "y",
      userId: "z",
      metadata: { big: 10n, self: undefined },
    });
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    run.toolCall({ toolName: "t", toolInput: cyclic, toolOutput: () => 1 });
    run.decision({ confidence: Number.NaN, alternativesConsidered: [Symbol("s") as never] });
    run.error(null);
    await run.end();
    await run.end();
    const stats = await ats.shutdown({ timeoutMs: 2_000 });
    expect(stats.sessionsFailed).toBe(1);
  });
});
