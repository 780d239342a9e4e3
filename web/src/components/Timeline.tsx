/**
 * A session's events in time order, one card each: what it was (a tool, a model, a decision), chips for what a
 * person scans for (duration, cost, model, tokens, a failure), reasoning, confidence and alternatives, a stack
 * trace as text; the recorded input and output on demand.
 */
import { type ReactNode, useId, useState } from "react";
import type { SessionEvent } from "../api/types";
import { formatCost, formatDateTime, formatDuration, formatNumber, formatOffset } from "../lib/format";
import { modelUsage, stackTraceOf, type TimelineEntry } from "../lib/timeline";
import { ConfidenceBar } from "./ConfidenceBar";
import { EventPayload } from "./EventPayload";
import { EVENT_TYPE_LABELS, eventAnchor, eventTitle, typeLabel } from "./event-labels";

function hasPayload(event: SessionEvent): boolean {
  return [event.toolInput, event.toolOutput, event.toolInputUrl, event.toolOutputUrl].some(
    (field) => field !== undefined,
  );
}

/** What the recorded payloads are called for each kind of event. */
function payloadLabels(event: SessionEvent, isModelCall: boolean): { input: string; output: string; both: string } {
  if (isModelCall) return { input: "Request", output: "Response", both: "request and response" };
  if (event.eventType === "error") return { input: "Input", output: "Error details", both: "details" };
  if (event.eventType === "state_change") return { input: "Details", output: "Output", both: "details" };
  return { input: "Input", output: "Output", both: "input and output" };
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

function Chips({ entry }: { entry: TimelineEntry }) {
  const { event } = entry;
  const usage = modelUsage(event);
  const chips: { key: string; label: string; value: string; tone?: string }[] = [];
  if (entry.failure !== undefined) chips.push({ key: "failed", label: "Outcome", value: "failed", tone: "failed" });
  if (usage?.model !== undefined) chips.push({ key: "model", label: "Model", value: usage.model });
  if (usage?.totalTokens !== undefined) {
    const split =
      usage.promptTokens !== undefined && usage.completionTokens !== undefined
        ? ` (${formatNumber(usage.promptTokens)} in, ${formatNumber(usage.completionTokens)} out)`
        : "";
    chips.push({ key: "tokens", label: "Tokens", value: `${formatNumber(usage.totalTokens)}${split}` });
  }
  // A model call the service could not price says so; an event without a cost shows none.
  if (typeof event.estimatedCost === "number")
    chips.push({ key: "cost", label: "Cost", value: formatCost(event.estimatedCost) });
  else if (event.costSource === "unpriced") chips.push({ key: "cost", label: "Cost", value: "unpriced" });
  if (entry.durationMs !== undefined) {
    chips.push({ key: "duration", label: "Duration", value: formatDuration(entry.durationMs) });
  }
  if (chips.length === 0) return null;
  return (
    <dl className="chips">
      {chips.map((chip) => (
        <div key={chip.key} className={`chip${chip.tone === undefined ? "" : ` chip--${chip.tone}`}`}>
          <dt className="visually-hidden">{chip.label}</dt>
          <dd>{chip.value}</dd>
        </div>
      ))}
    </dl>
  );
}

function TimelineEvent({ entry, footer }: { entry: TimelineEntry; footer?: ReactNode }) {
  const { event, offsetMs } = entry;
  const [open, setOpen] = useState(false);
  const detailsId = useId();
  const isModelCall = modelUsage(event) !== undefined;
  const labels = payloadLabels(event, isModelCall);
  const when = event.occurredAt ?? event.createdAt;
  const stack = event.eventType === "error" ? stackTraceOf(event) : undefined;
  const failed = entry.failure !== undefined;
  return (
    <li
      id={eventAnchor(event)}
      className={`timeline__item timeline__item--${event.eventType}${failed ? " timeline__item--failed" : ""}`}
    >
      <div className="timeline__marker" aria-hidden="true">
        {EVENT_TYPE_LABELS[event.eventType].icon}
      </div>
      <article className="timeline__card" aria-label={eventTitle(event)}>
        <header className="timeline__header">
          <span className={`badge badge--${isModelCall ? "model" : event.eventType}`}>{typeLabel(event)}</span>
          {event.toolName === undefined ? null : <code className="timeline__tool">{event.toolName}</code>}
          <Chips entry={entry} />
          <time className="timeline__offset" dateTime={when} title={formatDateTime(when)}>
            {formatOffset(offsetMs)}
          </time>
        </header>
        {failed && event.eventType === "tool_call" ? (
          <p className="failure failure--inline">
            <strong>Failed:</strong> {entry.failure}
          </p>
        ) : null}
        <StateTransition event={event} />
        {event.reasoning === undefined ? null : <p className="reasoning">{event.reasoning}</p>}
        {event.reasoningUrl === undefined ? null : (
          <EventPayload label="Reasoning" offloaded={{ event, field: "reasoning" }} bytes={event.reasoningBytes} text />
        )}
        {stack === undefined ? null : (
          <div className="payload">
            <h3 className="payload__label">Stack trace</h3>
            {/* biome-ignore lint/a11y/noNoninteractiveTabindex: a scrollable region must be reachable by keyboard */}
            <pre className="stack" tabIndex={0}>
              {stack}
            </pre>
          </div>
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
              {open ? `Hide ${labels.both}` : `Show ${labels.both}`}
            </button>
            <div id={detailsId} hidden={!open}>
              {open ? (
                <>
                  <EventPayload
                    label={labels.input}
                    value={event.toolInput}
                    offloaded={event.toolInputUrl === undefined ? undefined : { event, field: "toolInput" }}
                    bytes={event.toolInputBytes}
                  />
                  <EventPayload
                    label={labels.output}
                    value={event.toolOutput}
                    offloaded={event.toolOutputUrl === undefined ? undefined : { event, field: "toolOutput" }}
                    bytes={event.toolOutputBytes}
                  />
                </>
              ) : null}
            </div>
          </>
        ) : null}
        {footer}
      </article>
    </li>
  );
}

export function Timeline({
  entries,
  eventFooter,
}: {
  entries: readonly TimelineEntry[];
  /** What closes an event's card (its scores on the session page). */
  eventFooter?: (event: SessionEvent) => ReactNode;
}) {
  return (
    <ol className="timeline" aria-label="Event timeline">
      {entries.map((entry) => (
        <TimelineEvent key={entry.event.id} entry={entry} footer={eventFooter?.(entry.event)} />
      ))}
    </ol>
  );
}
