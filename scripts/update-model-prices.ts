/**
 * npm run prices:update -- <LiteLLM price file> --as-of YYYY-MM-DD --url URL [--commit SHA] [--table PATH]
 *                          [--prune] [--dry-run] [--verbose]
 *
 * Reads a LiteLLM `model_prices_and_context_window.json` fetched beforehand (this script opens no connection), maps
 * the covered providers' rows into functions/pricing/model-prices.json and prints what changed, old → new, for the
 * reviewer. `--as-of` is the day the source says so (a changed price applies from then on), `--url` and `--commit`
 * what was read; both are written into the table's `sources`. docs/pricing.md says how to fetch the file.
 */

import { execFileSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { type PriceFile, priceRows } from "../functions/pricing/price-table.js";
import { priceFileProblems } from "./model-prices/check-price-file.js";
import { litellmRows } from "./model-prices/litellm-rows.js";
import { formatChanges, mergeSourceRows, serialiseTable } from "./model-prices/table-merge.js";

const REPOSITORY_ROOT = join(import.meta.dirname, "..");
const DEFAULT_TABLE = join(REPOSITORY_ROOT, "functions", "pricing", "model-prices.json");
const DAY = /^\d{4}-\d{2}-\d{2}$/;

function main(): void {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: {
      "as-of": { type: "string" },
      url: { type: "string" },
      commit: { type: "string" },
      table: { type: "string", default: DEFAULT_TABLE },
      prune: { type: "boolean", default: false },
      "dry-run": { type: "boolean", default: false },
      verbose: { type: "boolean", default: false },
    },
  });
  const [sourcePath] = positionals;
  const asOf = values["as-of"];
  const url = values.url;
  if (
    sourcePath === undefined ||
    asOf === undefined ||
    !DAY.test(asOf) ||
    url === undefined ||
    !url.startsWith("https://")
  ) {
    console.error(
      "usage: npm run prices:update -- <model_prices_and_context_window.json> --as-of YYYY-MM-DD --url https://… [--commit SHA] [--table PATH] [--prune] [--dry-run] [--verbose]",
    );
    process.exitCode = 2;
    return;
  }
  const tablePath = values.table;
  const stored = JSON.parse(readFileSync(tablePath, "utf8")) as PriceFile;
  const table = { sources: stored.sources, rows: priceRows(stored) };
  const fresh = litellmRows(JSON.parse(readFileSync(sourcePath, "utf8")));
  const { table: merged, changes } = mergeSourceRows(table, fresh, {
    sourceId: `litellm-${asOf}`,
    source: {
      title: "LiteLLM model_prices_and_context_window.json",
      url,
      ...(values.commit !== undefined && { commit: values.commit }),
      asOf,
    },
    manages: (sourceId) => sourceId.startsWith("litellm"),
    prune: values.prune,
  });
  for (const line of formatChanges(changes, values.verbose)) console.log(line);
  if (values["dry-run"]) return;
  // Biome wraps the few lines over its width (read from standard input, so a table outside the repository works too).
  const written = execFileSync(
    join(REPOSITORY_ROOT, "node_modules", ".bin", "biome"),
    ["format", "--stdin-file-path=functions/pricing/model-prices.json"],
    { cwd: REPOSITORY_ROOT, input: serialiseTable(merged), encoding: "utf8" },
  );
  const problems = priceFileProblems(JSON.parse(written));
  if (problems.length > 0) {
    console.error(`not written, the merged table has problems:\n${problems.join("\n")}`);
    process.exitCode = 1;
    return;
  }
  writeFileSync(tablePath, written);
  console.log(`wrote ${tablePath}: ${merged.rows.length} rows`);
}

main();
