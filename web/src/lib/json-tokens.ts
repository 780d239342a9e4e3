/**
 * A small JSON syntax highlighter: turns a value into typed tokens that React renders as text in spans. Data never
 * becomes markup (no innerHTML), so a string holding "<script>" shows as those characters.
 */
export type JsonTokenKind = "key" | "string" | "number" | "boolean" | "null" | "punctuation" | "whitespace";

export interface JsonToken {
  kind: JsonTokenKind;
  text: string;
}

const INDENT = "  ";

function push(tokens: JsonToken[], kind: JsonTokenKind, text: string): JsonToken[] {
  tokens.push({ kind, text });
  return tokens;
}

function walk(value: unknown, depth: number, tokens: JsonToken[]): JsonToken[] {
  if (value === null || value === undefined) return push(tokens, "null", "null");
  if (typeof value === "string") return push(tokens, "string", JSON.stringify(value));
  if (typeof value === "number") return push(tokens, "number", Number.isFinite(value) ? String(value) : "null");
  if (typeof value === "boolean") return push(tokens, "boolean", String(value));
  const inner = `\n${INDENT.repeat(depth + 1)}`;
  const outer = `\n${INDENT.repeat(depth)}`;
  if (Array.isArray(value)) {
    if (value.length === 0) return push(tokens, "punctuation", "[]");
    push(tokens, "punctuation", "[");
    value.forEach((item, index) => {
      push(tokens, "whitespace", inner);
      walk(item, depth + 1, tokens);
      if (index < value.length - 1) push(tokens, "punctuation", ",");
    });
    push(tokens, "whitespace", outer);
    return push(tokens, "punctuation", "]");
  }
  if (typeof value === "object") {
    const entries = Object.entries(value as Record<string, unknown>);
    if (entries.length === 0) return push(tokens, "punctuation", "{}");
    push(tokens, "punctuation", "{");
    entries.forEach(([key, item], index) => {
      push(tokens, "whitespace", inner);
      push(tokens, "key", JSON.stringify(key));
      push(tokens, "punctuation", ": ");
      walk(item, depth + 1, tokens);
      if (index < entries.length - 1) push(tokens, "punctuation", ",");
    });
    push(tokens, "whitespace", outer);
    return push(tokens, "punctuation", "}");
  }
  return push(tokens, "string", JSON.stringify(String(value)));
}

export function tokenizeJson(value: unknown): JsonToken[] {
  const tokens: JsonToken[] = [];
  walk(value, 0, tokens);
  return tokens;
}

/** Parses JSON text (an offloaded field); text that is not JSON is shown as one string. */
export function tokenizeJsonText(text: string): JsonToken[] {
  try {
    return tokenizeJson(JSON.parse(text));
  } catch {
    return [{ kind: "string", text }];
  }
}
