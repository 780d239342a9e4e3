/**
 * DuckDB's answer values as plain JSON values: what `npm run sql` prints and what the tests compare. BIGINT and
 * HUGEINT (DuckDB's `sum` of a BIGINT) become numbers when exact, else decimal text; DECIMALs (DuckDB's type of a
 * literal such as `100.0`) numbers; timestamps, dates and anything else DuckDB has a class for its text
 * (`2026-11-27 14:05:00.123`, as Athena shows a timestamp).
 */
import { DuckDBDecimalValue, type DuckDBValue } from "@duckdb/node-api";

export type SqlValue = string | number | boolean | null;

export function plainValue(value: DuckDBValue): SqlValue {
  if (value === null || typeof value === "string" || typeof value === "boolean" || typeof value === "number")
    return value;
  if (typeof value === "bigint") {
    const asNumber = Number(value);
    return Number.isSafeInteger(asNumber) ? asNumber : value.toString();
  }
  if (value instanceof DuckDBDecimalValue) return value.toDouble();
  return String(value);
}
