/**
 * HTTP load with autocannon, in this process: a fixed number of keep-alive
 * connections, each sending its next request as soon as the previous answer
 * arrived (so "connections" is the number of requests in flight). Each
 * connection gets its own request generator (e.g. its own session, so two
 * in-flight requests never contend for one session item). Latency is kept
 * per response, so p95/p99 are exact rather than histogram buckets.
 */
import autocannon from "autocannon";
import { type LatencySummary, summarize } from "./stats.js";

export interface LoadRequest {
  readonly method: "GET" | "POST" | "PATCH";
  readonly path: string;
  readonly body?: string;
}

export interface LoadOptions {
  readonly url: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly connections: number;
  /** Run for this long… */
  readonly durationSeconds?: number;
  /** …or until this many responses (takes precedence). */
  readonly amount?: number;
  /** Called once per connection; returns that connection's request generator. */
  readonly connection: (index: number) => () => LoadRequest;
  /** The status every response must have. */
  readonly expectStatus: number;
  /** Looks into a response body; returns how many items inside it failed (batch results), 0 otherwise. */
  readonly inspect?: (status: number, body: string) => number;
}

export interface LoadResult {
  readonly connections: number;
  readonly responses: number;
  readonly seconds: number;
  readonly requestsPerSecond: number;
  readonly latency: LatencySummary;
  readonly failures: {
    readonly connectionErrors: number;
    readonly timeouts: number;
    readonly unexpectedStatus: number;
    readonly itemFailures: number;
  };
  /** Total of the failures above: the "error count" of the run. */
  readonly errorCount: number;
  readonly statusCounts: Readonly<Record<string, number>>;
}

export async function runLoad(options: LoadOptions): Promise<LoadResult> {
  const latencies: number[] = [];
  const statusCounts: Record<string, number> = {};
  let unexpectedStatus = 0;
  let itemFailures = 0;
  let connectionIndex = 0;

  const onResponse = (status: number, body: string) => {
    statusCounts[String(status)] = (statusCounts[String(status)] ?? 0) + 1;
    if (status !== options.expectStatus) {
      unexpectedStatus += 1;
      if (unexpectedStatus <= 3) process.stderr.write(`  unexpected ${status}: ${body.slice(0, 300)}\n`);
    }
    if (options.inspect !== undefined) itemFailures += options.inspect(status, body);
  };

  const headers = { ...options.headers };
  // autocannon's own `duration` is whole seconds; the rate needs the real elapsed time.
  const started = performance.now();
  let finishedAt = started;
  const result = await new Promise<autocannon.Result>((resolve, reject) => {
    const instance = autocannon(
      {
        url: options.url,
        connections: options.connections,
        ...(options.amount === undefined ? { duration: options.durationSeconds ?? 5 } : { amount: options.amount }),
        timeout: 10,
        headers,
        setupClient(client) {
          const next = options.connection(connectionIndex++);
          client.setRequests([
            {
              setupRequest(request) {
                const planned = next();
                return {
                  ...request,
                  method: planned.method,
                  path: planned.path,
                  headers,
                  ...(planned.body === undefined ? {} : { body: planned.body }),
                };
              },
              onResponse,
            },
          ]);
        },
      },
      (error: unknown, finished: autocannon.Result) => {
        finishedAt = performance.now();
        if (error) reject(error);
        else resolve(finished);
      },
    );
    instance.on("response", (_client, _status, _bytes, responseTime) => {
      latencies.push(responseTime);
    });
  });

  const failures = {
    connectionErrors: Math.max(0, result.errors - result.timeouts),
    timeouts: result.timeouts,
    unexpectedStatus,
    itemFailures,
  };
  const seconds = (finishedAt - started) / 1000;
  return {
    connections: options.connections,
    responses: latencies.length,
    seconds,
    requestsPerSecond: latencies.length / seconds,
    latency: summarize(latencies),
    failures,
    errorCount: failures.connectionErrors + failures.timeouts + failures.unexpectedStatus + failures.itemFailures,
    statusCounts,
  };
}
