/** Display formats: one place for numbers, money, durations and times. */

const integer = new Intl.NumberFormat("en-GB");
const compact = new Intl.NumberFormat("en-GB", { notation: "compact", maximumFractionDigits: 1 });

export function formatNumber(value: number | null | undefined): string {
  return value === null || value === undefined ? "—" : integer.format(value);
}

export function formatCompact(value: number | null | undefined): string {
  return value === null || value === undefined ? "—" : compact.format(value);
}

/** The smallest amount money is shown to: a tenth of a hundredth of a cent. */
const SMALLEST_COST = 0.0001;

/**
 * Money, one rule everywhere (tables, chips, charts, totals): US dollars to the cent from $1 up, to four decimal
 * places below (model calls cost fractions of a cent), "<$0.0001" for less; "—" when nothing was reported.
 */
export function formatCost(value: number | null | undefined): string {
  if (value === null || value === undefined || !Number.isFinite(value)) return "—";
  const magnitude = Math.abs(value);
  const sign = value < 0 ? "−" : "";
  if (magnitude === 0) return "$0.00";
  if (magnitude < SMALLEST_COST) return `${sign}<$0.0001`;
  const digits = magnitude >= 1 ? 2 : 4;
  return `${sign}$${magnitude.toLocaleString("en-GB", { minimumFractionDigits: digits, maximumFractionDigits: digits })}`;
}

export function formatPercent(value: number | null | undefined): string {
  return value === null || value === undefined ? "—" : `${Math.round(value * 1000) / 10}%`;
}

/** A duration with two or three significant figures: "420 ms", "8.2 s", "31 s", "2 min 5 s", "1 h 3 min". */
export function formatDuration(ms: number | null | undefined): string {
  if (ms === null || ms === undefined || !Number.isFinite(ms)) return "—";
  if (ms < 1) return ms === 0 ? "0 ms" : "<1 ms";
  if (ms < 999.5) return `${Math.round(ms)} ms`;
  const seconds = ms / 1000;
  if (seconds < 9.95) return `${seconds.toFixed(1)} s`;
  if (seconds < 59.5) return `${Math.round(seconds)} s`;
  const totalSeconds = Math.round(seconds);
  const minutes = Math.floor(totalSeconds / 60);
  if (minutes < 60) return `${minutes} min ${totalSeconds % 60} s`;
  const totalMinutes = Math.round(seconds / 60);
  return `${Math.floor(totalMinutes / 60)} h ${totalMinutes % 60} min`;
}

/** "+1.2 s" from the session start. */
export function formatOffset(ms: number): string {
  const sign = ms < 0 ? "−" : "+";
  return `${sign}${formatDuration(Math.abs(ms))}`;
}

/**
 * A time axis's tick from the session start, as round as the tick: "0", "+200 ms", "+1.5 s", "+10 s", "+1 min 30 s",
 * "+2 min", "+1 h 30 min" (never "+1.0 s" or "+2 min 0 s").
 */
export function formatTickOffset(ms: number): string {
  if (ms === 0) return "0";
  const sign = ms < 0 ? "−" : "+";
  const abs = Math.abs(ms);
  if (abs < 1000) return `${sign}${Number(abs.toFixed(3))} ms`;
  if (abs < 60_000) return `${sign}${Number((abs / 1000).toFixed(3))} s`;
  const parts = (whole: number, unit: string, rest: number, restUnit: string) =>
    rest === 0 ? `${sign}${whole} ${unit}` : `${sign}${whole} ${unit} ${rest} ${restUnit}`;
  if (abs < 3_600_000) {
    const seconds = Math.round(abs / 1000);
    return parts(Math.floor(seconds / 60), "min", seconds % 60, "s");
  }
  const minutes = Math.round(abs / 60_000);
  return parts(Math.floor(minutes / 60), "h", minutes % 60, "min");
}

const dateTime = new Intl.DateTimeFormat("en-GB", { dateStyle: "medium", timeStyle: "medium" });
const shortThisYear = new Intl.DateTimeFormat("en-GB", {
  day: "numeric",
  month: "short",
  hour: "2-digit",
  minute: "2-digit",
});
const shortOtherYear = new Intl.DateTimeFormat("en-GB", { day: "numeric", month: "short", year: "numeric" });
const dayFormat = new Intl.DateTimeFormat("en-GB", {
  day: "numeric",
  month: "short",
  year: "numeric",
  timeZone: "UTC",
});

export function formatDateTime(iso: string | null | undefined): string {
  if (iso === null || iso === undefined) return "—";
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? iso : dateTime.format(date);
}

/** A compact time for a table cell: "23 Nov, 12:23" this year, "23 Nov 2025" before (the full time in a title). */
export function formatShortDateTime(iso: string | null | undefined, now = new Date()): string {
  if (iso === null || iso === undefined) return "—";
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  return date.getFullYear() === now.getFullYear() ? shortThisYear.format(date) : shortOtherYear.format(date);
}

/** A UTC day (YYYY-MM-DD) as "23 Nov 2026". */
export function formatDay(day: string | null | undefined): string {
  if (day === null || day === undefined) return "—";
  const date = new Date(`${day}T00:00:00Z`);
  return Number.isNaN(date.getTime()) ? day : dayFormat.format(date);
}

export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KiB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
}

/** "1 event", "3 events": a count with its noun. */
export function plural(count: number, singular: string, pluralForm = `${singular}s`): string {
  return `${formatNumber(count)} ${count === 1 ? singular : pluralForm}`;
}
