/** toolInput / toolOutput / reasoning: inline JSON, or a field too large to come inline, loaded on demand. */
import { useState } from "react";
import { type EventFieldName, useEventField } from "../api/sessions";
import { useEnvironment } from "../lib/environment";
import { formatBytes } from "../lib/format";
import { InlineError } from "./ErrorState";
import { JsonTextView, JsonView } from "./JsonView";

export interface EventPayloadProps {
  label: string;
  value?: unknown;
  /** The event and field, when the field is too large to come inline (the API gave its size, not its value). */
  offloaded?: { event: { sessionId: string; id: string }; field: EventFieldName } | undefined;
  bytes?: number | undefined;
  /** Plain text (reasoning) rather than JSON. */
  text?: boolean;
}

export function EventPayload({ label, value, offloaded, bytes, text = false }: EventPayloadProps) {
  if (value !== undefined) {
    return (
      <div className="payload">
        <h3 className="payload__label">{label}</h3>
        <JsonView value={value} label={label} />
      </div>
    );
  }
  if (offloaded === undefined) return null;
  return <OffloadedPayload label={label} offloaded={offloaded} bytes={bytes} text={text} />;
}

function OffloadedPayload({
  label,
  offloaded,
  bytes,
  text,
}: Required<Pick<EventPayloadProps, "label" | "offloaded" | "text">> & { bytes: number | undefined }) {
  const [requested, setRequested] = useState(false);
  const [environment] = useEnvironment();
  const field = useEventField(
    environment,
    offloaded?.event ?? { sessionId: "", id: "" },
    offloaded?.field ?? "toolOutput",
    requested && offloaded !== undefined,
  );
  return (
    <div className="payload">
      <h3 className="payload__label">{label}</h3>
      {field.data !== undefined ? (
        text ? (
          <p className="reasoning">{field.data}</p>
        ) : (
          <JsonTextView text={field.data} label={label} />
        )
      ) : (
        <button type="button" className="button" onClick={() => setRequested(true)} disabled={field.isFetching}>
          {field.isFetching
            ? "Loading…"
            : `Load ${label.toLowerCase()}${bytes === undefined ? "" : ` (${formatBytes(bytes)})`}`}
        </button>
      )}
      <InlineError error={field.error} />
    </div>
  );
}
