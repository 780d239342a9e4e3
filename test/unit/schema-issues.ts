/**
 * Test helper: runs a request schema and flattens its failures with the same
 * `toFieldIssues` the HTTP layer uses, sorted so tests can compare whole lists.
 */
import type * as z from "zod/mini";
import type { FieldIssue } from "../../functions/domain/errors.js";
import { toFieldIssues } from "../../functions/http/json-body.js";

function byPathThenMessage(left: FieldIssue, right: FieldIssue): number {
  if (left.path !== right.path) return left.path < right.path ? -1 : 1;
  if (left.message !== right.message) return left.message < right.message ? -1 : 1;
  return 0;
}

/** The `{ path, message }` issues of `input` under `schema` (empty when it is accepted), sorted. */
export function issuesOf(schema: z.ZodMiniType, input: unknown): FieldIssue[] {
  const result = schema.safeParse(input);
  if (result.success) return [];
  return toFieldIssues(result.error.issues).sort(byPathThenMessage);
}

/** `issues` sorted like `issuesOf`, for the expected side of a comparison. */
export function sortedIssues(issues: readonly FieldIssue[]): FieldIssue[] {
  return [...issues].sort(byPathThenMessage);
}

/** An object nested `levels` deep: `{}` is one level, `{ "a": {} }` two. */
export function nestedObject(levels: number): Record<string, unknown> {
  let value: Record<string, unknown> = {};
  for (let level = 1; level < levels; level++) value = { a: value };
  return value;
}

/** `{ "a": "xxx…" }` whose JSON text is exactly `bytes` bytes long (bytes ≥ 8). */
export function objectOfJsonBytes(bytes: number): Record<string, string> {
  const overhead = JSON.stringify({ a: "" }).length; // {"a":""} = 8 bytes
  return { a: "x".repeat(bytes - overhead) };
}
