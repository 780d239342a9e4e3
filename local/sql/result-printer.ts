/**
 * How `npm run sql` prints an answer: an aligned text table (column names, a rule, the rows, then a row count line),
 * or JSON lines (one object per row). Numbers are right-aligned, NULL is `NULL`, and in the table a cell is one line
 * of at most {@link MAX_CELL_WIDTH} characters (control characters escaped, longer text cut with `…`); JSON lines
 * carry every value whole. Pure: returns text.
 */
import type { QueryAnswer } from "./export-database.js";
import type { SqlValue } from "./sql-values.js";

export const MAX_CELL_WIDTH = 80;

function cellText(value: SqlValue): string {
  if (value === null) return "NULL";
  const text = String(value).replace(/\p{Cc}/gu, (character) =>
    character === "\n"
      ? "\\n"
      : character === "\t"
        ? "\\t"
        : `\\x${character.charCodeAt(0).toString(16).padStart(2, "0")}`,
  );
  const characters = [...text];
  return characters.length > MAX_CELL_WIDTH ? `${characters.slice(0, MAX_CELL_WIDTH - 1).join("")}…` : text;
}

const widthOf = (text: string) => [...text].length;

function pad(text: string, width: number, right: boolean): string {
  const fill = " ".repeat(width - widthOf(text));
  return right ? fill + text : text + fill;
}

/** The row count line: `(3 rows)`, or how many were shown when the answer had more. */
export function rowCountLine(answer: QueryAnswer): string {
  const count = answer.rows.length;
  if (answer.truncated) return `(first ${count} rows shown: the answer has more; raise --limit or narrow the query)`;
  return `(${count} ${count === 1 ? "row" : "rows"})`;
}

export function formatTable(answer: QueryAnswer): string {
  const header = answer.columns.map(cellText);
  const cells = answer.rows.map((row) => row.map(cellText));
  const numeric = answer.columns.map(
    (_, index) =>
      answer.rows.some((row) => typeof row[index] === "number") &&
      answer.rows.every((row) => row[index] === null || typeof row[index] === "number"),
  );
  const widths = header.map((name, index) => Math.max(widthOf(name), ...cells.map((row) => widthOf(row[index] ?? ""))));
  const line = (row: readonly string[], alignNumbers: boolean) =>
    row
      .map((text, index) => pad(text, widths[index] ?? 0, alignNumbers && (numeric[index] ?? false)))
      .join(" | ")
      .trimEnd();
  return [
    line(header, false),
    widths.map((width) => "-".repeat(width)).join("-+-"),
    ...cells.map((row) => line(row, true)),
    rowCountLine(answer),
  ].join("\n");
}

/** One JSON object per row, keyed by column name (own properties, so a column named `__proto__` stays a column). */
export function formatJsonLines(answer: QueryAnswer): string {
  return answer.rows
    .map((row) => JSON.stringify(Object.fromEntries(answer.columns.map((name, index) => [name, row[index] ?? null]))))
    .join("\n");
}
