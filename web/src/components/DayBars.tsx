/**
 * A per-day bar chart drawn with HTML: each day a link to the sessions behind it, named for screen readers
 * ("23 Nov 2026: 12 sessions, 2 failed"). Light enough for the first page after sign-in (no chart library).
 */
import { Link } from "react-router";
import { formatDay } from "../lib/format";
import { type DayPoint, dayTick, spansYears } from "../lib/stats-period";

export interface DayBarsProps {
  title: string;
  series: readonly DayPoint[];
  value: (point: DayPoint) => number;
  /** The part of each bar drawn as an alarm (failed sessions), beneath the rest. */
  alarm?: (point: DayPoint) => number;
  format: (value: number) => string;
  /** What a bar says to a screen reader, after its day. */
  describe: (point: DayPoint) => string;
  link: (point: DayPoint) => string;
  tone?: "sessions" | "success" | "cost" | "tokens";
}

/** Days labelled under the axis: the first, the last and a few between. */
function labelled(index: number, count: number): boolean {
  if (index === 0 || index === count - 1) return true;
  const step = Math.max(1, Math.ceil(count / 6));
  return index % step === 0 && count - 1 - index >= step / 2;
}

export function DayBars({ title, series, value, alarm, format, describe, link, tone = "sessions" }: DayBarsProps) {
  const max = Math.max(0, ...series.map(value));
  const first = series[0]?.day ?? "";
  const last = series[series.length - 1]?.day ?? "";
  const withYear = spansYears(first, last);
  return (
    <figure className={`daybars daybars--${tone}`}>
      <figcaption className="daybars__title">{title}</figcaption>
      <div className="daybars__frame">
        <div className="daybars__scale" aria-hidden="true">
          <span>{format(max)}</span>
          <span>{format(0)}</span>
        </div>
        <ol className="daybars__plot" aria-label={title}>
          {series.map((point, index) => {
            const total = value(point);
            const alarming = alarm?.(point) ?? 0;
            const height = max === 0 ? 0 : (total / max) * 100;
            const alarmShare = total === 0 ? 0 : (alarming / total) * 100;
            return (
              <li key={point.day} className="daybars__day">
                <Link
                  to={link(point)}
                  className="daybars__bar"
                  aria-label={`${formatDay(point.day)}: ${describe(point)}`}
                  title={`${formatDay(point.day)}: ${describe(point)}`}
                >
                  <span className="daybars__fill" style={{ height: `${height}%` }}>
                    {alarming > 0 ? <span className="daybars__alarm" style={{ height: `${alarmShare}%` }} /> : null}
                  </span>
                </Link>
                {labelled(index, series.length) ? (
                  <span className="daybars__tick" aria-hidden="true">
                    {dayTick(point.day, withYear)}
                  </span>
                ) : null}
              </li>
            );
          })}
        </ol>
      </div>
    </figure>
  );
}
