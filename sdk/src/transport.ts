/**
 * One request to the service, sent until it gets an answer a retry cannot
 * change: gzip above a threshold, the same Idempotency-Key on every attempt,
 * exponential backoff with full jitter, `Retry-After` honoured.
 */
import { type BackoffPolicy, parseRetryAfter, retryDelayMs } from "./backoff.js";
import { gzip } from "./gzip.js";
import { isRetryableStatus } from "./retry-policy.js";

export interface TransportSettings {
  readonly baseUrl: string;
  readonly apiKey: string;
  readonly maxRetries: number;
  readonly backoff: BackoffPolicy;
  readonly requestTimeoutMs: number;
  /** Bodies larger than this many bytes are sent gzip-compressed. */
  readonly compressAboveBytes: number;
  readonly fetch: typeof fetch;
}

/** Byte and request counts, for `stats()`. */
export interface TransportCounters {
  requests: number;
  retries: number;
  /** Request body bytes as sent (compressed where compressed). */
  bytesSent: number;
  /** The same bodies before compression. */
  bytesBeforeCompression: number;
}

export interface ApiRequest {
  readonly method: "POST" | "PATCH";
  readonly path: string;
  /** The body, already serialized (batches are assembled from their events' JSON). */
  readonly json: string;
  readonly idempotencyKey: string;
}

export interface ApiAnswer {
  readonly status: number;
  readonly body: unknown;
}

/** Where a request went (`POST https://…/api/sdk/sessions`), for the reports that say what was lost and why. */
export interface RequestTarget {
  readonly method: ApiRequest["method"];
  readonly url: string;
}

/** How a request ended: answered (any status a retry cannot change) or given up. */
export type Delivery =
  | { readonly kind: "answered"; readonly answer: ApiAnswer; readonly attempts: number; readonly target: RequestTarget }
  | {
      readonly kind: "gave_up";
      readonly reason: "retries_exhausted" | "stopped";
      readonly lastAnswer: ApiAnswer | undefined;
      /** The network error of the last attempt, with its cause (`fetch failed: connect ECONNREFUSED …`). */
      readonly lastError: string | undefined;
      readonly attempts: number;
      readonly target: RequestTarget;
    };

/**
 * What a failed request says, with its cause: Node's `fetch` throws `fetch failed` and keeps the network error
 * (`connect ECONNREFUSED 127.0.0.1:3000`, `getaddrinfo ENOTFOUND …`) in `cause`, which alone tells what went wrong.
 */
export function describeRequestError(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause: unknown = error.cause;
  if (!(cause instanceof Error)) return error.message;
  const code = (cause as { code?: unknown }).code;
  const detail = cause.message !== "" ? cause.message : typeof code === "string" ? code : cause.name;
  return `${error.message}: ${detail}`;
}

const encoder = new TextEncoder();

interface EncodedBody {
  readonly bytes: Uint8Array;
  readonly gzipped: boolean;
  readonly rawLength: number;
}

/** Resolves after `ms`, or at once when `signal` aborts. */
export function sleep(ms: number, signal: AbortSignal): Promise<void> {
  if (signal.aborted || ms <= 0) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal.removeEventListener("abort", done);
      resolve();
    }
    signal.addEventListener("abort", done, { once: true });
  });
}

export class Transport {
  readonly counters: TransportCounters = { requests: 0, retries: 0, bytesSent: 0, bytesBeforeCompression: 0 };

  constructor(private readonly settings: TransportSettings) {}

  /**
   * Sends `request` until it is answered with a status a retry cannot change,
   * `maxRetries` retries are spent, or `stop` aborts (shutdown's deadline).
   */
  async deliver(request: ApiRequest, stop: AbortSignal): Promise<Delivery> {
    const body = await this.encode(request.json);
    const target: RequestTarget = { method: request.method, url: this.urlOf(request) };
    let lastAnswer: ApiAnswer | undefined;
    let lastError: string | undefined;
    for (let attempt = 0; ; attempt++) {
      if (stop.aborted) return { kind: "gave_up", reason: "stopped", lastAnswer, lastError, attempts: attempt, target };
      let retryAfterMs: number | undefined;
      try {
        const { answer, retryAfter } = await this.attempt(request, body, stop);
        if (!isRetryableStatus(answer.status, answer.body))
          return { kind: "answered", answer, attempts: attempt + 1, target };
        lastAnswer = answer;
        lastError = undefined;
        retryAfterMs = retryAfter;
      } catch (error) {
        lastError = describeRequestError(error);
        lastAnswer = undefined;
      }
      if (attempt >= this.settings.maxRetries) {
        return { kind: "gave_up", reason: "retries_exhausted", lastAnswer, lastError, attempts: attempt + 1, target };
      }
      this.counters.retries++;
      await sleep(retryDelayMs(attempt, this.settings.backoff, retryAfterMs), stop);
    }
  }

  private urlOf(request: ApiRequest): string {
    return `${this.settings.baseUrl}${request.path}`;
  }

  private async encode(json: string): Promise<EncodedBody> {
    const raw = encoder.encode(json);
    if (raw.byteLength <= this.settings.compressAboveBytes)
      return { bytes: raw, gzipped: false, rawLength: raw.length };
    return { bytes: await gzip(raw), gzipped: true, rawLength: raw.length };
  }

  private async attempt(
    request: ApiRequest,
    body: EncodedBody,
    stop: AbortSignal,
  ): Promise<{ answer: ApiAnswer; retryAfter: number | undefined }> {
    const headers: Record<string, string> = {
      authorization: `Bearer ${this.settings.apiKey}`,
      "content-type": "application/json",
      "idempotency-key": request.idempotencyKey,
    };
    if (body.gzipped) headers["content-encoding"] = "gzip";
    this.counters.requests++;
    this.counters.bytesSent += body.bytes.byteLength;
    this.counters.bytesBeforeCompression += body.rawLength;
    const response = await this.settings.fetch(this.urlOf(request), {
      method: request.method,
      headers,
      body: body.bytes as Uint8Array<ArrayBuffer>,
      signal: AbortSignal.any([stop, AbortSignal.timeout(this.settings.requestTimeoutMs)]),
    });
    const text = await response.text();
    let parsed: unknown = text;
    try {
      parsed = text === "" ? undefined : JSON.parse(text);
    } catch {
      // Not JSON (a proxy's HTML page, say): kept as text for the report.
    }
    return {
      answer: { status: response.status, body: parsed },
      retryAfter: parseRetryAfter(response.headers.get("retry-after")),
    };
  }
}
