/**
 * DuckDB's answer values as plain JSON values: what `npm run sql` prints and what the tests compare. BIGINT and
 * HUGEINT (DuckDB's `sum` of a BIGINT) become numbers when exact, else decimal text; DECIMALs (DuckDB's type of a
 * literal such as `100.0`) numbers; timestamps their UTC text with milliseconds as Athena prints them
 * (`2026-11-27 14:05:00.120`, and ` UTC` after a timestamp with time zone); anything else DuckDB's text of it.
 */
import { DuckDBDecimalValue, DuckDBTimestampTZValue, DuckDBTimestampValue, type DuckDBValue } from "@duckdb/node-api";

export type SqlValue = string | number | boolean | null;

const MAX_DATE_MS = 8.64e15;

/** `YYYY-MM-DD HH:MM:SS.mmm` of microseconds since the epoch (UTC), microseconds added when there are any. */
function timestampText(micros: bigint): string | undefined {
  const millis = Number(micros / 1000n);
  if (!Number.isFinite(millis) || Math.abs(millis) > MAX_DATE_MS) return undefined;
  const rest = Number(((micros % 1000n) + 1000n) % 1000n);
  const text = new Date(millis - (micros < 0n && rest > 0 ? 1 : 0)).toISOString().replace("T", " ").replace("Z", "");
  return rest === 0 ? text : `${text}${String(rest).padStart(3, "0")}`;
}

export function plainValue(value: DuckDBValue): SqlValue {
  if (value === null || typeof value === "string" || typeof value === "boolean" || typeof value === "number")
    return value;
  if (typeof value === "bigint") {
    const asNumber = Number(value);
    return Number.isSafeInteger(asNumber) ? asNumber : value.toString();
  }
  if (value instanceof DuckDBDecimalValue) return value.toDouble();
  if (value instanceof DuckDBTimestampValue) return timestampText(value.micros) ?? String(value);
  if (value instanceof DuckDBTimestampTZValue) {
    const text = timestampText(value.micros);
    return text === undefined ? String(value) : `${text} UTC`;
  }
  return String(value);
}
