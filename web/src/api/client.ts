/** The one fetch wrapper: credentials and tenant headers in, JSON out, failures as ApiError. */
import { ApiError, apiErrorFrom } from "./errors";
import type { Environment } from "./types";

export interface RequestContext {
  accessToken: string;
  orgId: string | null;
  /** Sent as X-Environment on the SDK read routes. */
  environment?: Environment;
}

export interface RequestOptions {
  method?: "GET" | "POST" | "PATCH" | "PUT" | "DELETE";
  body?: unknown;
  query?: Record<string, string | number | undefined | null>;
  signal?: AbortSignal | undefined;
  /** Answer the body as text instead of parsing it as JSON (an event field: JSON or plain text). */
  text?: boolean;
}

export function withQuery(path: string, query: RequestOptions["query"]): string {
  if (query === undefined) return path;
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) {
    if (value !== undefined && value !== null && value !== "") params.set(name, String(value));
  }
  const text = params.toString();
  return text === "" ? path : `${path}?${text}`;
}

export async function apiRequest<T>(context: RequestContext, path: string, options: RequestOptions = {}): Promise<T> {
  const headers: Record<string, string> = {
    Accept: options.text === true ? "application/json, text/plain" : "application/json",
    Authorization: `Bearer ${context.accessToken}`,
  };
  if (context.orgId !== null) headers["X-Organization-Id"] = context.orgId;
  if (context.environment !== undefined) headers["X-Environment"] = context.environment;
  const init: RequestInit = { method: options.method ?? "GET", headers };
  if (options.body !== undefined) {
    headers["Content-Type"] = "application/json";
    init.body = JSON.stringify(options.body);
  }
  if (options.signal !== undefined) init.signal = options.signal;
  let response: Response;
  try {
    response = await fetch(withQuery(path, options.query), init);
  } catch (cause) {
    if (cause instanceof DOMException && cause.name === "AbortError") throw cause;
    throw new ApiError(0, "Network error", "The service could not be reached. Check your connection and try again.");
  }
  if (!response.ok) throw await apiErrorFrom(response);
  if (response.status === 204) return undefined as T;
  const text = await response.text();
  if (options.text === true) return text as T;
  return (text === "" ? undefined : JSON.parse(text)) as T;
}
