/** Highlighted JSON: tokens rendered as text in spans, never as markup. */
import { useMemo } from "react";
import { type JsonToken, tokenizeJson, tokenizeJsonText } from "../lib/json-tokens";

function Tokens({ tokens, label }: { tokens: JsonToken[]; label: string }) {
  return (
    // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrollable region must be reachable by keyboard
    <pre className="json" tabIndex={0} title={label}>
      <code>
        {tokens.map((token, index) =>
          token.kind === "whitespace" || token.kind === "punctuation" ? (
            token.text
          ) : (
            // biome-ignore lint/suspicious/noArrayIndexKey: tokens are positional and never reordered
            <span key={index} className={`json__${token.kind}`}>
              {token.text}
            </span>
          ),
        )}
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
