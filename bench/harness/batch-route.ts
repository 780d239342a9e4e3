/**
 * The batch route's own ceiling, measured directly over HTTP, shared by the client benches (sdk-throughput.ts for
 * the TypeScript client, python-throughput.ts for the Python one): the tool call both clients record, the event as
 * they serialize it, N events cut into batches in stream order or per session with C in flight, and the events
 * stored for a set of sessions read back through the read API (no loss, no duplicate).
 */

/** One realistic small tool call (about 300 bytes of JSON once the SDK adds sessionId, occurredAt and its key). */
export function toolFields(index: number) {
  return {
    toolName: "search_orders",
    toolInput: { query: `status of the last order of customer ${index % 997}`, limit: 3 },
    toolOutput: {
      results: [{ orderId: `A-${100_000 + index}`, status: index % 7 === 0 ? "refunded" : "delivered", total: 42.5 }],
      tookMs: 12,
    },
  };
}

/** The event as the SDK serializes it (run.ts `emit` + agent-tracker.ts `record`). */
export function directEvent(sessionId: string, index: number): string {
  return JSON.stringify({
    sessionId,
    eventType: "tool_call",
    occurredAt: new Date().toISOString(),
    ...toolFields(index),
    idempotencyKey: crypto.randomUUID(),
  });
}

export interface DirectResult {
  readonly mode: "direct-stream" | "direct-session";
  readonly events: number;
  readonly seconds: number;
  readonly eventsPerSecond: number;
  readonly requests: number;
  readonly bodyBytes: number;
  readonly meanInFlight: number;
  readonly storedEvents: number;
}

/** Samples a number every few ms while `work` runs: the mean and the maximum. */
export async function sampled<T>(
  read: () => number,
  work: () => Promise<T>,
): Promise<{ value: T; mean: number; max: number; firstPositiveMs: number | undefined }> {
  const values: number[] = [];
  const started = performance.now();
  let firstPositiveMs: number | undefined;
  const timer = setInterval(() => {
    const value = read();
    values.push(value);
    if (value > 0 && firstPositiveMs === undefined) firstPositiveMs = performance.now() - started;
  }, 2);
  try {
    const value = await work();
    const mean = values.length === 0 ? Number.NaN : values.reduce((sum, v) => sum + v, 0) / values.length;
    return { value, mean, max: Math.max(0, ...values), firstPositiveMs };
  } finally {
    clearInterval(timer);
  }
}

/** What the direct runs need: the local API and key, and the clients' defaults they mirror. */
export interface BatchRouteSettings {
  readonly url: string;
  readonly key: string;
  readonly sessions: number;
  readonly concurrency: number;
  readonly batchSize: number;
}

/** The direct runs and the read-back against one local API. */
export function batchRoute(settings: BatchRouteSettings) {
  const { url, key } = settings;
  const SESSIONS = settings.sessions;
  const CONCURRENCY = settings.concurrency;
  const BATCH_SIZE = settings.batchSize;
  const api = { url };
  const call = async (method: string, path: string, body?: string, idempotencyKey?: string) => {
    const headers: Record<string, string> = { authorization: `Bearer ${key}` };
    if (body !== undefined) headers["content-type"] = "application/json";
    if (idempotencyKey !== undefined) headers["idempotency-key"] = idempotencyKey;
    const response = await fetch(`${api.url}${path}`, { method, headers, ...(body === undefined ? {} : { body }) });
    const text = await response.text();
    return { status: response.status, body: text === "" ? undefined : (JSON.parse(text) as unknown) };
  };

  /**
   * Events stored for the sessions, read back page by page (`fields=summary`): the sessions' `eventCount` is
   * counted from the table's stream, which this bench does not run.
   */
  const storedEventCount = async (sessionIds: readonly string[]): Promise<number> => {
    let total = 0;
    for (const id of sessionIds) {
      let cursor: string | undefined;
      do {
        const query = `limit=100&fields=summary${cursor === undefined ? "" : `&cursor=${encodeURIComponent(cursor)}`}`;
        const answer = await call("GET", `/api/sdk/sessions/${id}/events?${query}`);
        const page = answer.body as { items?: unknown[]; nextCursor?: string | null } | undefined;
        if (answer.status !== 200 || !Array.isArray(page?.items))
          throw new Error(`GET events of ${id}: ${answer.status}`);
        total += page.items.length;
        cursor = page.nextCursor ?? undefined;
      } while (cursor !== undefined);
    }
    return total;
  };

  /** C workers take the next batch until none is left. */
  async function inParallel(count: number, workers: number, task: (index: number) => Promise<void>): Promise<void> {
    let next = 0;
    await Promise.all(
      Array.from({ length: Math.min(workers, count) }, async () => {
        for (let index = next++; index < count; index = next++) await task(index);
      }),
    );
  }

  async function directRun(mode: "direct-stream" | "direct-session", events: number): Promise<DirectResult> {
    const sessionIds: string[] = Array.from({ length: SESSIONS }, () => "");
    await inParallel(SESSIONS, CONCURRENCY, async (index) => {
      const answer = await call(
        "POST",
        "/api/sdk/sessions",
        JSON.stringify({ name: `${mode} ${index}`, agentName: "bench-agent", userId: `user-${index}` }),
        crypto.randomUUID(),
      );
      const id = (answer.body as { id?: unknown } | undefined)?.id;
      if (answer.status !== 201 || typeof id !== "string") throw new Error(`session create: ${answer.status}`);
      sessionIds[index] = id;
    });
    const session = (index: number) => sessionIds[index % SESSIONS] as string;
    // The batches' event indexes: stream order cuts the round-robin stream; per session groups each session's.
    const batches: number[][] = [];
    if (mode === "direct-stream") {
      for (let start = 0; start < events; start += BATCH_SIZE)
        batches.push(Array.from({ length: Math.min(BATCH_SIZE, events - start) }, (_, i) => start + i));
    } else {
      const perSession = Array.from({ length: SESSIONS }, (_, s) =>
        Array.from({ length: events / SESSIONS }, (_, k) => s + k * SESSIONS),
      );
      for (let offset = 0; offset < events / SESSIONS; offset += BATCH_SIZE)
        for (const indexes of perSession) batches.push(indexes.slice(offset, offset + BATCH_SIZE));
    }
    let inFlight = 0;
    let bodyBytes = 0;
    const started = performance.now();
    const run = await sampled(
      () => inFlight,
      () =>
        inParallel(batches.length, CONCURRENCY, async (batchIndex) => {
          const indexes = batches[batchIndex] ?? [];
          const body = `{"events":[${indexes.map((index) => directEvent(session(index), index)).join(",")}]}`;
          bodyBytes += Buffer.byteLength(body);
          inFlight++;
          const answer = await call("POST", "/api/sdk/events/batch", body, crypto.randomUUID());
          inFlight--;
          const results = (answer.body as { results?: { status: number }[] } | undefined)?.results;
          if (answer.status !== 200 || results?.length !== indexes.length)
            throw new Error(`batch answered ${answer.status}: ${JSON.stringify(answer.body).slice(0, 300)}`);
          const refused = results.filter((result) => result.status !== 201);
          if (refused.length > 0)
            throw new Error(`batch: ${refused.length} events not stored: ${JSON.stringify(refused[0])}`);
        }),
    );
    const seconds = (performance.now() - started) / 1000;
    const storedEvents = await storedEventCount(sessionIds);
    return {
      mode,
      events,
      seconds,
      eventsPerSecond: events / seconds,
      requests: batches.length,
      bodyBytes,
      meanInFlight: run.mean,
      storedEvents,
    };
  }

  return { call, storedEventCount, directRun };
}
