/** Highlighted JSON: tokens rendered as text in spans, never as markup. */
import { useMemo } from "react";
import { type JsonToken, tokenizeJson, tokenizeJsonText } from "../lib/json-tokens";

/**
 * Tokens highlighted one span each, up to this many: a field of megabytes (a tool's whole export) has
 * hundreds of thousands of tokens, and as many spans would take the page seconds to lay out. The rest is
 * shown whole, as plain text.
 */
export const HIGHLIGHTED_TOKENS = 4_000;

function Tokens({ tokens, label }: { tokens: JsonToken[]; label: string }) {
  const highlighted = tokens.length > HIGHLIGHTED_TOKENS ? tokens.slice(0, HIGHLIGHTED_TOKENS) : tokens;
  const rest =
    tokens.length > HIGHLIGHTED_TOKENS
      ? tokens
          .slice(HIGHLIGHTED_TOKENS)
          .map((token) => token.text)
          .join("")
      : "";
  return (
    // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrollable region must be reachable by keyboard
    <pre className="json" tabIndex={0} title={label}>
      <code>
        {highlighted.map((token, index) =>
          token.kind === "whitespace" || token.kind === "punctuation" ? (
            token.text
          ) : (
            // biome-ignore lint/suspicious/noArrayIndexKey: tokens are positional and never reordered
            <span key={index} className={`json__${token.kind}`}>
              {token.text}
            </span>
          ),
        )}
        {rest}
      </code>
    </pre>
  );
}

export function JsonView({ value, label }: { value: unknown; label: string }) {
  const tokens = useMemo(() => tokenizeJson(value), [value]);
  return <Tokens tokens={tokens} label={label} />;
}

export function JsonTextView({ text, label }: { text: string; label: string }) {
  const tokens = useMemo(() => tokenizeJsonText(text), [text]);
  return <Tokens tokens={tokens} label={label} />;
}
