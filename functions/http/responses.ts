import type { HttpResult } from "./sdk-event.js";

const JSON_HEADERS = { "content-type": "application/json; charset=utf-8" } as const;

/**
 * For an answer that carries a secret shown once (a new API key): no cache — the browser's included — may
 * keep it (issue 21).
 */
export const SECRET_RESPONSE_HEADERS = { "cache-control": "no-store" } as const;

export function jsonResponse(statusCode: number, body: unknown, headers: Record<string, string> = {}): HttpResult {
  return { statusCode, headers: { ...JSON_HEADERS, ...headers }, body: JSON.stringify(body) };
}
