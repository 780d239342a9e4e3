import type { HttpResult } from "./sdk-event.js";

const JSON_HEADERS = { "content-type": "application/json; charset=utf-8" } as const;

export function jsonResponse(statusCode: number, body: unknown, headers: Record<string, string> = {}): HttpResult {
  return { statusCode, headers: { ...JSON_HEADERS, ...headers }, body: JSON.stringify(body) };
}
