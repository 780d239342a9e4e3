/** How `npm run sql` prints an answer (local/sql/result-printer.ts) and turns DuckDB values into plain ones. */
import { DuckDBDecimalValue, DuckDBTimestampTZValue, DuckDBTimestampValue } from "@duckdb/node-api";
import { describe, expect, it } from "vitest";
import type { QueryAnswer } from "../../local/sql/export-database.js";
import { formatJsonLines, formatTable, MAX_CELL_WIDTH } from "../../local/sql/result-printer.js";
import { plainValue } from "../../local/sql/sql-values.js";

const answer: QueryAnswer = {
  columns: ["tool_name", "calls", "failure_rate"],
  rows: [
    ["search", 12, 0.25],
    ["fetch-page", 3, null],
  ],
  truncated: false,
};

describe("formatTable", () => {
  it("aligns columns, right-aligns numbers, prints NULL and counts the rows", () => {
    expect(formatTable(answer)).toBe(
      [
        "tool_name  | calls | failure_rate",
        "-----------+-------+-------------",
        "search     |    12 |         0.25",
        "fetch-page |     3 |         NULL",
        "(2 rows)",
      ].join("\n"),
    );
  });

  it("says one row, and no rows", () => {
    expect(
      formatTable({ ...answer, rows: [answer.rows[0] ?? []] })
        .split("\n")
        .at(-1),
    ).toBe("(1 row)");
    expect(formatTable({ ...answer, rows: [] }).split("\n")).toEqual([
      "tool_name | calls | failure_rate",
      "----------+-------+-------------",
      "(0 rows)",
    ]);
  });

  it("says when rows were left out", () => {
    expect(
      formatTable({ ...answer, truncated: true })
        .split("\n")
        .at(-1),
    ).toBe("(first 2 rows shown: the answer has more; raise --limit or narrow the query)");
  });

  it("keeps a cell on one line and cuts a long one", () => {
    const long = "x".repeat(500);
    const lines = formatTable({ columns: ["text"], rows: [["a\nb\tc\u0007"], [long]], truncated: false }).split("\n");
    expect(lines[2]).toBe("a\\nb\\tc\\x07");
    expect(lines[3]).toBe(`${"x".repeat(MAX_CELL_WIDTH - 1)}…`);
    expect(lines).toHaveLength(5);
  });
});

describe("formatJsonLines", () => {
  it("prints one object per row with every value whole", () => {
    expect(formatJsonLines(answer)).toBe(
      '{"tool_name":"search","calls":12,"failure_rate":0.25}\n{"tool_name":"fetch-page","calls":3,"failure_rate":null}',
    );
  });

  it("keeps a column named __proto__ as a column", () => {
    const line = formatJsonLines({ columns: ["__proto__", "b"], rows: [["x", 1]], truncated: false });
    expect(JSON.parse(line)).toEqual(JSON.parse('{"__proto__":"x","b":1}'));
    expect(line).toBe('{"__proto__":"x","b":1}');
  });
});

describe("plainValue", () => {
  it("turns an exact BIGINT into a number and a larger one into its digits", () => {
    expect(plainValue(42n)).toBe(42);
    expect(plainValue(2n ** 70n)).toBe("1180591620717411303424");
  });

  it("turns a DECIMAL into a number", () => {
    expect(plainValue(new DuckDBDecimalValue(1234n, 4, 2))).toBe(12.34);
  });

  it("prints a timestamp in UTC with its milliseconds, as Athena does", () => {
    expect(plainValue(new DuckDBTimestampValue(1_700_000_000_120_000n))).toBe("2023-11-14 22:13:20.120");
    expect(plainValue(new DuckDBTimestampValue(1_700_000_000_000_000n))).toBe("2023-11-14 22:13:20.000");
    expect(plainValue(new DuckDBTimestampValue(1_700_000_000_000_042n))).toBe("2023-11-14 22:13:20.000042");
    expect(plainValue(new DuckDBTimestampValue(-1_500n))).toBe("1969-12-31 23:59:59.998500");
    expect(plainValue(new DuckDBTimestampTZValue(1_700_000_000_123_000n))).toBe("2023-11-14 22:13:20.123 UTC");
  });

  it("keeps strings, numbers, booleans and null", () => {
    expect([plainValue("a"), plainValue(1.5), plainValue(false), plainValue(null)]).toEqual(["a", 1.5, false, null]);
  });
});
