/**
 * A stand-in for the service at the `fetch` boundary, for the SDK's unit tests:
 * it records every request (headers, decoded body) and answers like the API
 * (201 creates, 200 batches with a result per event, 200 ends) unless a test
 * scripts another answer.
 */
import { gunzipSync } from "node:zlib";
import { AgentTracker, type AgentTrackerOptions, type AtsError } from "../../../sdk/src/index.js";

export interface SeenRequest {
  readonly method: string;
  readonly path: string;
  readonly headers: Record<string, string>;
  /** The body as JSON, decompressed when it was gzipped. */
  readonly body: Record<string, unknown>;
  readonly wireBytes: number;
  readonly at: number;
}

export interface ScriptedAnswer {
  readonly status: number;
  readonly body?: unknown;
  readonly headers?: Record<string, string>;
}

/** Returns an answer to override the default one, or `undefined` to answer as the API would. */
export type Script = (
  request: SeenRequest,
  index: number,
) => ScriptedAnswer | Error | undefined | Promise<ScriptedAnswer | Error | undefined>;

export function scriptedFetch(script: Script = () => undefined) {
  const requests: SeenRequest[] = [];
  const fetchFunction = async (input: string | URL | Request, init: RequestInit = {}): Promise<Response> => {
    const url = new URL(String(input));
    const raw = init.body instanceof Uint8Array ? init.body : new TextEncoder().encode(String(init.body ?? ""));
    const headers = Object.fromEntries(
      Object.entries((init.headers ?? {}) as Record<string, string>).map(([k, v]) => [k.toLowerCase(), v]),
    );
    const text =
      headers["content-encoding"] === "gzip" ? gunzipSync(raw).toString("utf8") : new TextDecoder().decode(raw);
    const request: SeenRequest = {
      method: init.method ?? "GET",
      path: url.pathname,
      headers,
      body: text === "" ? {} : (JSON.parse(text) as Record<string, unknown>),
      wireBytes: raw.byteLength,
      at: Date.now(),
    };
    requests.push(request);
    const scripted = await script(request, requests.length - 1);
    if (scripted instanceof Error) throw scripted;
    const answer = scripted ?? defaultAnswer(request);
    return new Response(answer.body === undefined ? null : JSON.stringify(answer.body), {
      status: answer.status,
      headers: { "content-type": "application/json", ...answer.headers },
    });
  };
  return { fetch: fetchFunction as typeof fetch, requests };
}

export function defaultAnswer(request: SeenRequest): ScriptedAnswer {
  if (request.path === "/api/sdk/sessions") return { status: 201, body: { ...request.body, status: "active" } };
  if (request.path === "/api/sdk/events/batch") {
    const events = request.body.events as unknown[];
    return { status: 200, body: { results: events.map((_, index) => ({ index, status: 201, id: `evt_${index}` })) } };
  }
  return { status: 200, body: { id: request.path.split("/").pop(), status: request.body.status } };
}

/** The events of every batch request, flattened, in the order they were sent. */
export function sentEvents(requests: readonly SeenRequest[]): Record<string, unknown>[] {
  return requests
    .filter((request) => request.path === "/api/sdk/events/batch")
    .flatMap((request) => request.body.events as Record<string, unknown>[]);
}

export const TEST_KEY = "ats_live_0123456789abcdefABCDEF";
export const TEST_URL = "http://service.test";

/** A tracker talking to a scripted service, with every reported error collected. */
export function scriptedTracker(script?: Script, options: AgentTrackerOptions = {}) {
  const service = scriptedFetch(script);
  const errors: AtsError[] = [];
  const ats = new AgentTracker({
    apiKey: TEST_KEY,
    baseUrl: TEST_URL,
    fetch: service.fetch,
    onError: (error) => errors.push(error),
    ...options,
  });
  return { ats, errors, requests: service.requests };
}
