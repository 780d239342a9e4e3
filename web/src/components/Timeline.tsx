/** A session's events in time order: type, tool, reasoning, confidence, alternatives, cost, offset; payloads on demand. */
import { useId, useState } from "react";
import type { EventType, SessionEvent } from "../api/types";
import { formatCost, formatDateTime, formatOffset } from "../lib/format";
import { buildTimeline } from "../lib/timeline";
import { ConfidenceBar } from "./ConfidenceBar";
import { EventPayload } from "./EventPayload";

export const EVENT_TYPE_LABELS: Record<EventType, { label: string; icon: string }> = {
  tool_call: { label: "Tool call", icon: "⚙" },
  llm_decision: { label: "Decision", icon: "◆" },
  state_change: { label: "State change", icon: "↻" },
  error: { label: "Error", icon: "!" },
};

function hasPayload(event: SessionEvent): boolean {
  return [event.toolInput, event.toolOutput, event.toolInputUrl, event.toolOutputUrl].some(
    (field) => field !== undefined,
  );
}

/** A state change recorded with `from`/`to` (as the SDK's `run.stateChange` sends them) reads "from → to". */
function StateTransition({ event }: { event: SessionEvent }) {
  if (event.eventType !== "state_change") return null;
  const from = event.toolInput?.from;
  const to = event.toolInput?.to;
  if (typeof from !== "string" && typeof to !== "string") return null;
  return (
    <p className="reasoning">
      {typeof from === "string" ? <code>{from}</code> : null}
      {typeof from === "string" && typeof to === "string" ? " → " : null}
      {typeof to === "string" ? <code>{to}</code> : null}
    </p>
  );
}

function TimelineEvent({ event, offsetMs }: { event: SessionEvent; offsetMs: number }) {
  const [open, setOpen] = useState(false);
  const detailsId = useId();
  const type = EVENT_TYPE_LABELS[event.eventType];
  const when = event.occurredAt ?? event.createdAt;
  return (
    <li className={`timeline__item timeline__item--${event.eventType}`}>
      <div className="timeline__marker" aria-hidden="true">
        {type.icon}
      </div>
      <article
        className="timeline__card"
        aria-label={`${type.label}${event.toolName === undefined ? "" : `: ${event.toolName}`}`}
      >
        <header className="timeline__header">
          <span className={`badge badge--${event.eventType}`}>{type.label}</span>
          {event.toolName === undefined ? null : <code className="timeline__tool">{event.toolName}</code>}
          <time className="timeline__offset" dateTime={when} title={formatDateTime(when)}>
            {formatOffset(offsetMs)}
          </time>
          {event.estimatedCost === undefined ? null : (
            <span className="timeline__cost">{formatCost(event.estimatedCost)}</span>
          )}
        </header>
        <StateTransition event={event} />
        {event.reasoning === undefined ? null : <p className="reasoning">{event.reasoning}</p>}
        {event.reasoningUrl === undefined ? null : (
          <EventPayload label="Reasoning" offloaded={{ event, field: "reasoning" }} bytes={event.reasoningBytes} text />
        )}
        {event.confidence === undefined ? null : <ConfidenceBar value={event.confidence} />}
        {event.alternativesConsidered === undefined || event.alternativesConsidered.length === 0 ? null : (
          <div className="alternatives">
            <h3 className="payload__label">Alternatives considered</h3>
            <ul>
              {event.alternativesConsidered.map((alternative, index) => (
                // biome-ignore lint/suspicious/noArrayIndexKey: alternatives may repeat; their order is their identity
                <li key={index}>{alternative}</li>
              ))}
            </ul>
          </div>
        )}
        {hasPayload(event) ? (
          <>
            <button
              type="button"
              className="button button--small"
              aria-expanded={open}
              aria-controls={detailsId}
              onClick={() => setOpen(!open)}
            >
              {open ? "Hide input and output" : "Show input and output"}
            </button>
            <div id={detailsId} hidden={!open}>
              {open ? (
                <>
                  <EventPayload
                    label="Tool input"
                    value={event.toolInput}
                    offloaded={event.toolInputUrl === undefined ? undefined : { event, field: "toolInput" }}
                    bytes={event.toolInputBytes}
                  />
                  <EventPayload
                    label="Tool output"
                    value={event.toolOutput}
                    offloaded={event.toolOutputUrl === undefined ? undefined : { event, field: "toolOutput" }}
                    bytes={event.toolOutputBytes}
                  />
                </>
              ) : null}
            </div>
          </>
        ) : null}
      </article>
    </li>
  );
}

export function Timeline({ events, sessionStart }: { events: readonly SessionEvent[]; sessionStart: string }) {
  const entries = buildTimeline(events, sessionStart);
  return (
    <ol className="timeline" aria-label="Event timeline">
      {entries.map(({ event, offsetMs }) => (
        <TimelineEvent key={event.id} event={event} offsetMs={offsetMs} />
      ))}
    </ol>
  );
}
