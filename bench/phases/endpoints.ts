/**
 * Phase 2: the endpoints through the local server (a child process running
 * local/http-adapter.ts), loaded with autocannon from this process: first one
 * connection (sequential latency), then a fixed number of connections for a
 * fixed time (throughput and latency under load). Then the memory run: the
 * server's RSS before and after BENCH_RSS_SECONDS of POST /api/sdk/events.
 */

import { type LoadResult, runLoad } from "../harness/load.js";
import { type Operation, urlOf } from "../harness/operations.js";
import type { BenchServer, ServerMemory } from "../harness/server-process.js";

export interface EndpointResult {
  readonly routeId: string;
  readonly label: string;
  readonly eventsPerRequest: number;
  readonly warmUpErrors: number;
  readonly sequential: LoadResult;
  readonly concurrent: LoadResult;
  /** Events stored per second under load (event routes). */
  readonly eventsPerSecond: number | undefined;
}

/** Seconds of the memory run's load before its start figure is taken. */
export const MEMORY_WARM_UP_SECONDS = 5;

export interface MemoryRun {
  readonly seconds: number;
  /** The warm-up load before the start figure (its errors count as the run's). */
  readonly warmUp: LoadResult;
  readonly connections: number;
  readonly route: string;
  /** Right after the server started listening, before any request. */
  readonly idle: ServerMemory;
  readonly atStart: ServerMemory;
  readonly atEnd: ServerMemory;
  readonly load: LoadResult;
}

export interface EndpointSettings {
  readonly connections: number;
  readonly durationSeconds: number;
  readonly samples: number;
  readonly batchSamples: number;
  /** Batches run for a number of requests rather than a time: this many per connection. */
  readonly batchRounds: number;
  readonly warmUp: number;
}

function loadOf(server: BenchServer, operation: Operation, key: string) {
  return (connections: number, bound: { amount: number } | { durationSeconds: number }) =>
    runLoad({
      url: server.url,
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      connections,
      ...bound,
      expectStatus: operation.expectStatus,
      ...(operation.inspect === undefined ? {} : { inspect: operation.inspect }),
      connection: (lane) => {
        const next = operation.lane(lane);
        return () => {
          const planned = next();
          return {
            method: operation.route.method as "GET" | "POST" | "PATCH",
            path: urlOf(planned),
            ...(planned.body === undefined ? {} : { body: planned.body }),
          };
        };
      },
    });
}

/** One endpoint over HTTP: a sequential run and a run under load, callable separately. */
export interface EndpointRunner {
  sequential(): Promise<{ readonly warmUpErrors: number; readonly result: LoadResult }>;
  concurrent(): Promise<LoadResult>;
}

export function endpointRunner(options: {
  readonly server: BenchServer;
  readonly operation: Operation;
  readonly key: string;
  readonly settings: EndpointSettings;
}): EndpointRunner {
  const { operation, settings } = options;
  const load = loadOf(options.server, operation, options.key);
  // Operations that use up a supply (sessions to complete) stop before it runs dry:
  // each connection may build one request ahead of the last answer.
  const cap = (wanted: number, connections: number) =>
    operation.remaining === undefined ? wanted : Math.min(wanted, operation.remaining() - connections - 2);
  return {
    async sequential() {
      const samples = operation.eventsPerRequest > 1 ? settings.batchSamples : settings.samples;
      const warmUp = await load(1, { amount: cap(settings.warmUp, 1) });
      const result = await load(1, { amount: cap(samples, 1) });
      return { warmUpErrors: warmUp.errorCount, result };
    },
    concurrent() {
      // Time-bounded runs drop the answers still in flight at the end; a batch is slow enough for that
      // to matter, so batches run a fixed number of requests (every one answered) instead.
      if (operation.remaining !== undefined)
        return load(settings.connections, { amount: cap(Number.MAX_SAFE_INTEGER, settings.connections) });
      if (operation.eventsPerRequest > 1)
        return load(settings.connections, { amount: settings.connections * settings.batchRounds });
      return load(settings.connections, { durationSeconds: settings.durationSeconds });
    },
  };
}

export async function measureMemory(options: {
  readonly server: BenchServer;
  readonly operation: Operation;
  readonly key: string;
  readonly connections: number;
  readonly seconds: number;
}): Promise<MemoryRun> {
  const load0 = loadOf(options.server, options.operation, options.key);
  // A short run of the same load first, so the start figure is a warm server's (the run may follow idle time).
  const warmUp = await load0(options.connections, { durationSeconds: MEMORY_WARM_UP_SECONDS });
  const atStart = await options.server.memory();
  const load = await load0(options.connections, { durationSeconds: options.seconds });
  const atEnd = await options.server.memory();
  return {
    seconds: options.seconds,
    connections: options.connections,
    route: options.operation.label,
    idle: options.server.startMemory,
    warmUp,
    atStart,
    atEnd,
    load,
  };
}
