/** The tracker's options: defaults, environment variables and the checks that make misuse fail at construction. */
import type { AtsError } from "./errors.js";
import { AtsConfigurationError } from "./errors.js";
import type { TrackedEvent } from "./event-types.js";
import { environmentVariable } from "./platform.js";

/** Options of `new AgentTracker(…)`; every one but the key and URL has a default. */
export interface AgentTrackerOptions {
  /** `ats_live_…` (or another environment's key); defaults to `ATS_API_KEY`. */
  apiKey?: string;
  /** The service's URL, e.g. `https://abc.execute-api.eu-west-1.amazonaws.com`; defaults to `ATS_BASE_URL`. */
  baseUrl?: string;
  /** Told of every event that could not be delivered, and why. Defaults to a `console.warn` per problem. */
  onError?: (error: AtsError) => void;
  /** Retries of one request after network errors, 5xx, 429, 408 (default 10: rides out about a minute of outage). */
  maxRetries?: number;
  /** How long events may wait to fill a batch in background mode (default 1000 ms). */
  flushIntervalMs?: number;
  /** Events per batch request, 1–100 (default 100). */
  maxBatchSize?: number;
  /** Events kept waiting at most; past it the oldest are dropped and reported (default 10,000). */
  maxQueueSize?: number;
  /** `background` (default) sends on an interval; `immediate` sends at once — for Lambda and short scripts. */
  mode?: "background" | "immediate";
  /** Runs on every event before it leaves the process; return the event to send (changed or not) or `null` to drop it. */
  mask?: (event: TrackedEvent) => TrackedEvent | null | undefined;
  /** Fraction of sessions recorded, 0–1, decided by session id (default 1). */
  sampleRate?: number;
  /** Requests in flight at once (default 4). */
  maxConcurrency?: number;
  /** Per-request timeout (default 30,000 ms). */
  requestTimeoutMs?: number;
  /** `fetch` to use (default: the global one). */
  fetch?: typeof fetch;
}

export interface ResolvedOptions {
  readonly apiKey: string;
  readonly baseUrl: string;
  readonly onError: (error: AtsError) => void;
  readonly maxRetries: number;
  readonly flushIntervalMs: number;
  readonly maxBatchSize: number;
  readonly maxQueueSize: number;
  readonly immediate: boolean;
  readonly mask: ((event: TrackedEvent) => TrackedEvent | null | undefined) | undefined;
  readonly sampleRate: number;
  readonly maxConcurrency: number;
  readonly requestTimeoutMs: number;
  readonly fetch: typeof fetch;
}

const API_KEY_PATTERN = /^ats_[a-z]+_[A-Za-z0-9_-]{8,}$/;

function integerOption(name: string, value: number | undefined, fallback: number, min: number, max: number): number {
  if (value === undefined) return fallback;
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new AtsConfigurationError(`${name} must be an integer from ${min} to ${max} (got ${String(value)})`);
  }
  return value;
}

function baseUrlOption(value: string | undefined): string {
  if (value === undefined) {
    throw new AtsConfigurationError("No base URL: pass baseUrl or set ATS_BASE_URL (e.g. http://127.0.0.1:3000)");
  }
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new AtsConfigurationError(`baseUrl is not a URL: ${JSON.stringify(value)}`);
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") {
    throw new AtsConfigurationError(`baseUrl must be http(s), not ${url.protocol}`);
  }
  if (url.search !== "" || url.hash !== "" || url.username !== "" || url.password !== "") {
    throw new AtsConfigurationError("baseUrl must not carry credentials, a query or a fragment");
  }
  return url.href.replace(/\/+$/, "");
}

function apiKeyOption(value: string | undefined): string {
  if (value === undefined) {
    throw new AtsConfigurationError("No API key: pass apiKey or set ATS_API_KEY (keys look like ats_live_…)");
  }
  if (!API_KEY_PATTERN.test(value)) {
    throw new AtsConfigurationError("apiKey does not look like an ats key (ats_<environment>_<secret>)");
  }
  return value;
}

function warnToConsole(error: AtsError): void {
  console.warn(`[@ats/client] ${error.code}: ${error.message}`);
}

export function resolveOptions(options: AgentTrackerOptions): ResolvedOptions {
  const sampleRate = options.sampleRate ?? 1;
  if (typeof sampleRate !== "number" || !(sampleRate >= 0 && sampleRate <= 1)) {
    throw new AtsConfigurationError(`sampleRate must be a number from 0 to 1 (got ${String(sampleRate)})`);
  }
  const mode = options.mode ?? "background";
  if (mode !== "background" && mode !== "immediate") {
    throw new AtsConfigurationError(`mode must be "background" or "immediate" (got ${String(mode)})`);
  }
  const fetchFunction = options.fetch ?? globalThis.fetch;
  if (typeof fetchFunction !== "function") {
    throw new AtsConfigurationError("No fetch on this platform: pass options.fetch");
  }
  for (const [name, value] of [
    ["onError", options.onError],
    ["mask", options.mask],
  ] as const) {
    if (value !== undefined && typeof value !== "function")
      throw new AtsConfigurationError(`${name} must be a function`);
  }
  return {
    apiKey: apiKeyOption(options.apiKey ?? environmentVariable("ATS_API_KEY")),
    baseUrl: baseUrlOption(options.baseUrl ?? environmentVariable("ATS_BASE_URL")),
    onError: options.onError ?? warnToConsole,
    maxRetries: integerOption("maxRetries", options.maxRetries, 10, 0, 100),
    flushIntervalMs: integerOption("flushIntervalMs", options.flushIntervalMs, 1000, 1, 3_600_000),
    maxBatchSize: integerOption("maxBatchSize", options.maxBatchSize, 100, 1, 100),
    maxQueueSize: integerOption("maxQueueSize", options.maxQueueSize, 10_000, 1, 10_000_000),
    immediate: mode === "immediate",
    mask: options.mask,
    sampleRate,
    maxConcurrency: integerOption("maxConcurrency", options.maxConcurrency, 4, 1, 64),
    requestTimeoutMs: integerOption("requestTimeoutMs", options.requestTimeoutMs, 30_000, 1, 900_000),
    fetch: fetchFunction,
  };
}
