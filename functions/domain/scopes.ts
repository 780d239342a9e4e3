/**
 * Permissions an API key can hold. `scores:write` records, replaces and deletes scores (and nothing else: a key
 * holding only it cannot write sessions or events, nor read).
 */
export const SCOPES = ["sessions:write", "events:write", "scores:write", "read", "delete"] as const;
export type Scope = (typeof SCOPES)[number];

/** Scopes a new key receives unless the creator asks for others. */
export const DEFAULT_SCOPES: readonly Scope[] = ["sessions:write", "events:write", "scores:write", "read"];

export function isScope(value: string): value is Scope {
  return (SCOPES as readonly string[]).includes(value);
}
