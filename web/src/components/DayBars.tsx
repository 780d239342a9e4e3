/**
 * A per-day bar chart drawn with HTML, light enough for the first page after sign-in (no chart library). The bars
 * are a picture (each with its figures as a tooltip); the figures themselves, with links to each day's sessions,
 * are in the per-day table beside the charts, for keyboards and screen readers.
 */
import { estimatedLabelWidth, proportionalLabels } from "../lib/axis-labels";
import { formatDay } from "../lib/format";
import { type DayPoint, dayTick, spansYears } from "../lib/stats-period";
import { useElementWidth } from "../lib/use-element-width";

export interface DayBarsProps {
  title: string;
  series: readonly DayPoint[];
  value: (point: DayPoint) => number;
  /** The part of each bar drawn as an alarm (failed sessions), beneath the rest. */
  alarm?: (point: DayPoint) => number;
  /** Days whose 0 is a figure, not the absence of one (a success rate of 0 %): drawn as a sliver in the alarm colour. */
  zeroIsAlarm?: (point: DayPoint) => boolean;
  format: (value: number) => string;
  /** A day's figures in words (its tooltip). */
  describe: (point: DayPoint) => string;
  tone?: "sessions" | "success" | "cost" | "tokens";
}

/** The labels' font size in pixels (0.7rem). */
const TICK_FONT_PX = 11.2;

/**
 * The days labelled under the axis: the first, the last and every Nth between, as many as fit the chart's width
 * without touching (each placed in proportion to its day, so the first is flush left and the last flush right).
 */
function DayAxis({ days, withYear }: { days: readonly string[]; withYear: boolean }) {
  const [ref, width] = useElementWidth<HTMLDivElement>();
  const labels = days.map((day) => dayTick(day, withYear));
  const labelWidth = estimatedLabelWidth(
    labels.reduce((longest, label) => (label.length > longest.length ? label : longest), ""),
    TICK_FONT_PX,
  );
  return (
    <div className="daybars__axis" ref={ref}>
      {proportionalLabels(days.length, width, labelWidth).map((index) => {
        const position = ((index + 0.5) / days.length) * 100;
        return (
          <span
            key={days[index]}
            className="daybars__tick"
            style={{ left: `${position}%`, transform: `translateX(-${position}%)` }}
          >
            {labels[index]}
          </span>
        );
      })}
    </div>
  );
}

export function DayBars({
  title,
  series,
  value,
  alarm,
  zeroIsAlarm,
  format,
  describe,
  tone = "sessions",
}: DayBarsProps) {
  const max = Math.max(0, ...series.map(value));
  const first = series[0]?.day ?? "";
  const last = series[series.length - 1]?.day ?? "";
  const withYear = spansYears(first, last);
  const peak = series.find((point) => value(point) === max && max > 0);
  return (
    <figure className={`daybars daybars--${tone}`}>
      <figcaption className="daybars__title">
        {title}
        <span className="visually-hidden">
          {peak === undefined
            ? ": nothing in this period."
            : `, ${formatDay(first)} to ${formatDay(last)}: highest ${format(max)} on ${formatDay(peak.day)}.`}
        </span>
      </figcaption>
      <div className="daybars__frame" aria-hidden="true">
        <div className="daybars__scale">
          <span>{format(max)}</span>
          <span>{format(0)}</span>
        </div>
        <ol className="daybars__plot">
          {series.map((point) => {
            const total = value(point);
            const alarming = alarm?.(point) ?? 0;
            const height = max === 0 ? 0 : (total / max) * 100;
            const alarmShare = total === 0 ? 0 : (alarming / total) * 100;
            return (
              <li key={point.day} className="daybars__day" title={`${formatDay(point.day)}: ${describe(point)}`}>
                <span className="daybars__bar">
                  {total === 0 && zeroIsAlarm?.(point) === true ? (
                    <span className="daybars__zero" />
                  ) : (
                    <span className="daybars__fill" style={{ height: `${height}%` }}>
                      {alarming > 0 ? <span className="daybars__alarm" style={{ height: `${alarmShare}%` }} /> : null}
                    </span>
                  )}
                </span>
              </li>
            );
          })}
        </ol>
        <DayAxis days={series.map((point) => point.day)} withYear={withYear} />
      </div>
    </figure>
  );
}
