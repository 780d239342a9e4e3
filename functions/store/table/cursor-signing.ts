/**
 * Opaque, tamper-evident paging cursors. A cursor carries DynamoDB's
 * LastEvaluatedKey and a digest of what it pages (tenant, route, filters),
 * HMAC-signed with a per-deployment secret kept in the table (created at
 * deployment, see cursor-secret.ts; read once per container, and only by the
 * routes that page). A forged, foreign or malformed cursor is a 400 — never a
 * page of someone else's data.
 */
import { createHash, createHmac, timingSafeEqual } from "node:crypto";
import { ValidationError } from "../../domain/errors.js";
import { serviceSecret } from "./service-secret.js";

/** What a cursor is valid for: cursors never move between tenants, routes or filter sets. */
export function cursorScope(parts: readonly unknown[]): string {
  return createHash("sha256").update(JSON.stringify(parts)).digest("base64url").slice(0, 22);
}

export async function encodeCursor(lastKey: Record<string, unknown>, scope: string): Promise<string> {
  const payload = Buffer.from(JSON.stringify({ k: lastKey, s: scope })).toString("base64url");
  const signature = createHmac("sha256", await serviceSecret())
    .update(payload)
    .digest("base64url");
  return `${payload}.${signature}`;
}

const INVALID = "Invalid cursor: pass back the nextCursor of the previous page of the same query unchanged";

export async function decodeCursor(cursor: string, scope: string): Promise<Record<string, unknown>> {
  const invalid = () => new ValidationError(INVALID, [{ path: "cursor", message: "Invalid cursor" }]);
  const [payload, signature, extra] = cursor.split(".");
  if (!payload || !signature || extra !== undefined) throw invalid();
  const expected = createHmac("sha256", await serviceSecret())
    .update(payload)
    .digest();
  const given = Buffer.from(signature, "base64url");
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) throw invalid();
  let decoded: unknown;
  try {
    decoded = JSON.parse(Buffer.from(payload, "base64url").toString("utf8"));
  } catch {
    throw invalid();
  }
  const { k, s } = (decoded ?? {}) as { k?: unknown; s?: unknown };
  if (s !== scope || typeof k !== "object" || k === null) throw invalid();
  return k as Record<string, unknown>;
}
