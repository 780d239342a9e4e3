/**
 * The SQL of the four views `npm run sql` queries (issue 35): `sessions`, `events`, `scores`, `conversations`, with
 * the columns of EXPORT_TABLES typed as the Glue tables type them (string → VARCHAR, bigint → BIGINT, double →
 * DOUBLE, boolean → BOOLEAN, timestamp → TIMESTAMP in UTC) and then the partition keys `org`, `env`, `day` as
 * strings, in Athena's column order, so a query runs unchanged in both. A table with no committed file yet is an
 * empty view of the same typed columns. Pure: the caller runs the SQL.
 */
import {
  EXPORT_PARTITION_KEYS,
  EXPORT_TABLES,
  type ExportColumnType,
  type ExportTableName,
} from "../../functions/export/export-tables.js";

/** The SQL type of each exported column type, as in Athena (Glue `string`, `bigint`, …) and DuckDB alike. */
export const SQL_TYPES: Readonly<Record<ExportColumnType, string>> = {
  string: "VARCHAR",
  bigint: "BIGINT",
  double: "DOUBLE",
  boolean: "BOOLEAN",
  timestamp: "TIMESTAMP",
};

const quoteIdentifier = (name: string) => `"${name.replaceAll('"', '""')}"`;
const quoteString = (text: string) => `'${text.replaceAll("'", "''")}'`;

/** `hive_types` of read_parquet: the partition keys as strings, as the Glue tables declare them (no DATE for day). */
const PARTITION_TYPES = `{${EXPORT_PARTITION_KEYS.map((key) => `${quoteString(key)}: VARCHAR`).join(", ")}}`;

/** The `CREATE VIEW` of one table over the given Parquet files (absolute paths), or an empty typed view when none. */
export function exportViewSql(table: ExportTableName, filePaths: readonly string[]): string {
  const columns = EXPORT_TABLES[table];
  if (filePaths.length === 0) {
    const typedNulls = [
      ...columns.map((column) => `CAST(NULL AS ${SQL_TYPES[column.type]}) AS ${quoteIdentifier(column.name)}`),
      ...EXPORT_PARTITION_KEYS.map((key) => `CAST(NULL AS VARCHAR) AS ${quoteIdentifier(key)}`),
    ];
    return `CREATE OR REPLACE VIEW ${quoteIdentifier(table)} AS SELECT ${typedNulls.join(", ")} WHERE false`;
  }
  const typedColumns = [
    ...columns.map(
      (column) =>
        `CAST(${quoteIdentifier(column.name)} AS ${SQL_TYPES[column.type]}) AS ${quoteIdentifier(column.name)}`,
    ),
    ...EXPORT_PARTITION_KEYS.map((key) => `CAST(${quoteIdentifier(key)} AS VARCHAR) AS ${quoteIdentifier(key)}`),
  ];
  const files = `[${filePaths.map(quoteString).join(", ")}]`;
  const source = `read_parquet(${files}, hive_partitioning = true, hive_types = ${PARTITION_TYPES}, hive_types_autocast = false, union_by_name = true)`;
  return `CREATE OR REPLACE VIEW ${quoteIdentifier(table)} AS SELECT ${typedColumns.join(", ")} FROM ${source}`;
}
