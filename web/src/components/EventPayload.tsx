/** toolInput / toolOutput / reasoning: inline JSON, or an offloaded field loaded on demand from its URL. */
import { useState } from "react";
import { useOffloadedField } from "../api/sessions";
import { formatBytes } from "../lib/format";
import { InlineError } from "./ErrorState";
import { JsonTextView, JsonView } from "./JsonView";

export interface EventPayloadProps {
  label: string;
  value?: unknown;
  url?: string | undefined;
  bytes?: number | undefined;
  /** Plain text (reasoning) rather than JSON. */
  text?: boolean;
}

export function EventPayload({ label, value, url, bytes, text = false }: EventPayloadProps) {
  const [requested, setRequested] = useState(false);
  const offloaded = useOffloadedField(url, requested);
  if (value !== undefined) {
    return (
      <div className="payload">
        <h3 className="payload__label">{label}</h3>
        <JsonView value={value} label={label} />
      </div>
    );
  }
  if (url === undefined) return null;
  return (
    <div className="payload">
      <h3 className="payload__label">{label}</h3>
      {offloaded.data !== undefined ? (
        text ? (
          <p className="reasoning">{offloaded.data}</p>
        ) : (
          <JsonTextView text={offloaded.data} label={label} />
        )
      ) : (
        <button type="button" className="button" onClick={() => setRequested(true)} disabled={offloaded.isFetching}>
          {offloaded.isFetching
            ? "Loading…"
            : `Load ${label.toLowerCase()}${bytes === undefined ? "" : ` (${formatBytes(bytes)})`}`}
        </button>
      )}
      <InlineError error={offloaded.error} />
    </div>
  );
}
