/**
 * The run as a picture: every event a row on the session's time axis, a step with a recorded duration a bar that
 * long, a moment (a decision, a state change, an error) a mark; failing steps in the alarm colour. Each row links
 * to the event's card below.
 */
import type { Session } from "../api/types";
import { formatDuration, formatOffset } from "../lib/format";
import { type TimelineEntry, timeAxis, timeTicks } from "../lib/timeline";
import { useElementWidth } from "../lib/use-element-width";
import { EVENT_TYPE_LABELS, eventAnchor, eventTitle } from "./event-labels";

/** The tick labels' font size in pixels (0.75rem). */
const TICK_FONT_PX = 12;
/** The narrowest bar drawn, in percent of the axis, so a 1 ms step is still seen. */
const MIN_BAR_PERCENT = 0.6;

export function Waterfall({
  entries,
  session,
}: {
  entries: readonly TimelineEntry[];
  session: Pick<Session, "createdAt" | "completedAt" | "durationMs" | "lastActivityAt">;
}) {
  const [axisRef, axisWidth] = useElementWidth<HTMLDivElement>();
  const axis = timeAxis(entries, session);
  const span = axis.endMs - axis.startMs;
  const sessionOffset = Date.parse(session.createdAt) - axis.startMs;
  const percent = (ms: number) => (ms / span) * 100;
  // Ticks at round times from the session start (+5 s, +10 s…), as many as the axis's width holds.
  const ticks = timeTicks(-sessionOffset, span - sessionOffset, axisWidth, TICK_FONT_PX).map((tick) => ({
    ...tick,
    position: percent(tick.offsetMs + sessionOffset),
  }));
  return (
    <figure className="waterfall">
      <figcaption className="visually-hidden">
        The run on its time axis: {formatDuration(span)} from the first step to the end.
      </figcaption>
      <div className="waterfall__axis" aria-hidden="true" ref={axisRef}>
        {ticks.map((tick) => (
          <span
            key={tick.offsetMs}
            className="waterfall__tick"
            style={{ left: `${tick.position}%`, transform: `translateX(-${tick.position}%)` }}
          >
            {tick.label}
          </span>
        ))}
      </div>
      <div className="waterfall__body">
        <div className="waterfall__grid" aria-hidden="true">
          {ticks.map((tick) => (
            <span key={tick.offsetMs} className="waterfall__gridline" style={{ left: `${tick.position}%` }} />
          ))}
        </div>
        <ol className="waterfall__rows" aria-label="Run waterfall">
          {entries.map((entry) => {
            const { event } = entry;
            const left = percent(entry.startMs - axis.startMs);
            const width =
              entry.durationMs === undefined ? undefined : Math.max(MIN_BAR_PERCENT, percent(entry.durationMs));
            const failing = entry.failure !== undefined || event.eventType === "error";
            const type = EVENT_TYPE_LABELS[event.eventType];
            return (
              <li key={event.id} className={`waterfall__row waterfall__row--${event.eventType}`}>
                <a href={`#${eventAnchor(event)}`} className="waterfall__link">
                  <span className="waterfall__label">
                    <span className={`waterfall__icon waterfall__icon--${event.eventType}`} aria-hidden="true">
                      {type.icon}
                    </span>
                    <span className="waterfall__name">{eventTitle(event)}</span>
                    <span className="visually-hidden">, at {formatOffset(entry.offsetMs)}, </span>
                  </span>
                  <span className="waterfall__track">
                    {width === undefined ? (
                      <span
                        className={`waterfall__mark${failing ? " waterfall__mark--failed" : ""}`}
                        style={{ left: `${left}%` }}
                      />
                    ) : (
                      <span
                        className={`waterfall__bar waterfall__bar--${event.eventType}${failing ? " waterfall__bar--failed" : ""}`}
                        style={{ left: `${Math.min(left, 100 - width)}%`, width: `${width}%` }}
                      />
                    )}
                  </span>
                  <span className="waterfall__duration">
                    {entry.durationMs === undefined ? (
                      <>
                        <span aria-hidden="true">—</span>
                        <span className="visually-hidden">a moment</span>
                      </>
                    ) : (
                      formatDuration(entry.durationMs)
                    )}
                    {entry.failure === undefined ? null : <span className="waterfall__failed"> failed</span>}
                  </span>
                </a>
              </li>
            );
          })}
        </ol>
      </div>
    </figure>
  );
}
