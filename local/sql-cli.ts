/**
 * `npm run sql -- "SELECT …"`: SQL over the export's committed Parquet files with DuckDB (issue 35; docs/sql.md).
 * The views `sessions`, `events`, `scores` and `conversations` have the columns and partition keys of the Athena
 * tables, so a query of docs/sql.md runs unchanged in both.
 *
 *   npm run sql -- [--dir <path>] [--org <orgId>] [--json] [--limit <rows>] "<SQL>"
 *
 * Reads the local export bucket of `npm start` straight from `$DATA_DIR/s3` (no running stack needed), or with
 * `--dir` a plain copy of a deployment's bucket (`aws s3 sync s3://<export bucket> <path>`); `--org` reads only that
 * organisation's files (a copy of the run manifests and one organisation's `table=…/org=<orgId>/` files). Prints an aligned table
 * and a row count line, or `--json` one JSON object per line; at most `--limit` rows (default 1,000). Any error —
 * bad SQL, no export yet, a bad flag — is one line on stderr and exit code 2.
 */
import { join } from "node:path";
import { parseArgs } from "node:util";
import { isOrganisationId } from "../functions/domain/organisation.js";
import { readSettings } from "./settings.js";
import { DEFAULT_ROW_LIMIT, openExportDatabase } from "./sql/export-database.js";
import { plainDirectoryExportStore, s3rverExportStore } from "./sql/export-store.js";
import { formatJsonLines, formatTable, rowCountLine } from "./sql/result-printer.js";

const USAGE = 'Usage: npm run sql -- [--dir <path>] [--org <orgId>] [--json] [--limit <rows>] "SELECT …"';
const MAX_ROW_LIMIT = 100_000;

class SqlCliError extends Error {
  override name = "SqlCliError";
}

function rowLimit(text: string | undefined): number {
  if (text === undefined) return DEFAULT_ROW_LIMIT;
  const limit = Number(text);
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_ROW_LIMIT)
    throw new SqlCliError(`--limit must be a whole number from 1 to ${MAX_ROW_LIMIT}, got "${text}"`);
  return limit;
}

async function main(argv: string[]): Promise<void> {
  const { positionals, values } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      dir: { type: "string" },
      org: { type: "string" },
      json: { type: "boolean", default: false },
      limit: { type: "string" },
      help: { type: "boolean", short: "h", default: false },
    },
  });
  if (values.help) {
    console.log(USAGE);
    return;
  }
  const sql = positionals.join(" ").trim();
  if (sql === "") throw new SqlCliError(`No SQL given. ${USAGE}`);
  const limit = rowLimit(values.limit);
  if (values.org !== undefined && !isOrganisationId(values.org))
    throw new SqlCliError(
      `--org must be an organisation id (a slug: lowercase letters, digits and dashes), got "${values.org}"`,
    );
  const store =
    values.dir === undefined
      ? s3rverExportStore(join(readSettings().dataDirectory, "s3"))
      : plainDirectoryExportStore(values.dir);

  const database = await openExportDatabase(store, values.org === undefined ? {} : { orgId: values.org });
  try {
    if (database.runs === 0)
      throw new SqlCliError(`No export yet: ${store.description} has no committed run (run \`npm run export\` first)`);
    for (const warning of database.warnings) console.error(`warning: ${warning}`);
    const answer = await database.query(sql, { limit });
    if (values.json) {
      if (answer.rows.length > 0) console.log(formatJsonLines(answer));
      if (answer.truncated) console.error(rowCountLine(answer));
    } else {
      console.log(formatTable(answer));
    }
  } finally {
    database.close();
  }
}

/**
 * The first line of an error's message: DuckDB's errors add the query text and a caret below it, and the node
 * client prefixes a parse error with its own step's name.
 */
function oneLine(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  const first = message
    .split("\n")[0]
    ?.replace(/^Failed to extract statements: /, "")
    .trim();
  return first || "unknown error";
}

try {
  await main(process.argv.slice(2));
} catch (error) {
  console.error(`npm run sql: ${oneLine(error)}`);
  process.exitCode = 2;
}
