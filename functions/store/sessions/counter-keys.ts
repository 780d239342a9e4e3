/**
 * Tool names as keys of a session's per-tool counter maps (`toolCalls`, `toolErrors`). Tool names are
 * client text — `constructor`, `__proto__`, `toString` — and the document client turns a stored map into
 * a plain JavaScript object, where a key `__proto__` silently vanishes (it sets the prototype instead).
 * So a name that is `__proto__` or starts with `~` is stored with one more `~` in front, and read maps
 * come back as objects without a prototype, where every name is an own key and nothing is inherited.
 */

const ESCAPE = "~";

/** The map key a tool name is stored under. */
export function counterMapKey(toolName: string): string {
  return toolName === "__proto__" || toolName.startsWith(ESCAPE) ? `${ESCAPE}${toolName}` : toolName;
}

/** The tool name of a stored map key. */
export function toolNameOf(mapKey: string): string {
  return mapKey.startsWith(ESCAPE) ? mapKey.slice(ESCAPE.length) : mapKey;
}

/** A stored counter map, keyed by tool name, in an object without a prototype. */
export function countersFromStored(stored: unknown): Record<string, number> {
  const counts: Record<string, number> = Object.create(null);
  if (typeof stored !== "object" || stored === null) return counts;
  for (const [key, value] of Object.entries(stored)) {
    if (typeof value === "number") counts[toolNameOf(key)] = value;
  }
  return counts;
}
