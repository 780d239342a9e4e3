/**
 * npm run prices:update (scripts/update-model-prices.ts, scripts/model-prices/): a small LiteLLM-format fixture
 * mapped into rows (covered providers and modes only, rates per million, tiers, rows the matching rules already
 * price left out), merged into a table with history (a changed price is a new row from the source's day), the
 * review diff, and the command itself on a copy of a table.
 */
import { execFileSync, spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { type PriceFile, type PriceRow, type PriceTable, priceRows } from "../../functions/pricing/price-table.js";
import { priceFileProblems } from "../../scripts/model-prices/check-price-file.js";
import { foldableModels, litellmRows } from "../../scripts/model-prices/litellm-rows.js";
import { formatChanges, mergeSourceRows, serialiseTable } from "../../scripts/model-prices/table-merge.js";

const ROOT = join(import.meta.dirname, "..", "..");
const FIXTURE = join(ROOT, "test", "fixtures", "pricing", "litellm-sample.json");
const fixture: unknown = JSON.parse(readFileSync(FIXTURE, "utf8"));
const SOURCE = {
  title: "LiteLLM model_prices_and_context_window.json",
  url: "https://github.com/BerriAI/litellm/blob/0123456789abcdef0123456789abcdef01234567/model_prices_and_context_window.json",
  commit: "0123456789abcdef0123456789abcdef01234567",
  asOf: "2026-12-01",
};
const OLD_SOURCE = { ...SOURCE, asOf: "2026-07-24" };

describe("LiteLLM rows", () => {
  const rows = litellmRows(fixture);
  const byModel = new Map(rows.map((row) => [row.model, row]));

  it("keeps the covered providers' chat models, named as ats matches them", () => {
    expect(rows.map((row) => `${row.provider} ${row.model}`)).toEqual([
      "openai gpt-4o",
      "openai gpt-4o-2024-05-13",
      "openai gpt-4o-2024-08-06",
      "openai gpt-4o-mini",
      "anthropic claude-sonnet-4-5",
      "google gemini-2.5-flash",
      "google gemini-2.5-pro",
      "mistral mistral-large-latest",
      "bedrock anthropic.claude-sonnet-4-5-20250929-v1:0",
      "bedrock global.anthropic.claude-sonnet-4-5-20250929-v1:0",
      "bedrock meta.llama3-3-70b-instruct-v1:0",
      "bedrock us.anthropic.claude-sonnet-4-5-20250929-v1:0",
      "bedrock us.meta.llama3-3-70b-instruct-v1:0",
      "azure azure/gpt-4o",
      "azure azure/gpt-4o-mini",
    ]);
  });

  it("turns per-token prices into per-million rates and `_above_<N>k_tokens` keys into tiers", () => {
    expect(byModel.get("gpt-4o")).toEqual({
      model: "gpt-4o",
      provider: "openai",
      input: 2.5,
      output: 10,
      cacheRead: 1.25,
    });
    expect(byModel.get("claude-sonnet-4-5")).toEqual({
      model: "claude-sonnet-4-5",
      provider: "anthropic",
      input: 3,
      output: 15,
      cacheRead: 0.3,
      cacheWrite: 3.75,
      tiers: [{ above: 200_000, input: 6, output: 22.5, cacheRead: 0.6, cacheWrite: 7.5 }],
    });
    // A reasoning rate is kept only where it differs from the output rate.
    expect(byModel.get("gemini-2.5-pro")?.reasoning).toBeUndefined();
    expect(byModel.get("gemini-2.5-flash")?.reasoning).toBe(3.5);
  });

  it("leaves out what the matching rules price the same: snapshots, Azure names, uniformly priced geographies", () => {
    expect([...foldableModels(rows)].sort()).toEqual([
      "azure/gpt-4o",
      "gpt-4o-2024-08-06",
      "us.meta.llama3-3-70b-instruct-v1:0",
    ]);
  });
});

describe("merging a read into the table", () => {
  const langfuseRow: PriceRow = {
    model: "claude-3-5-sonnet-latest",
    provider: "anthropic",
    input: 3,
    output: 15,
    effectiveFrom: "2024-10-22",
    source: "langfuse",
  };
  const table: PriceTable = {
    sources: {
      langfuse: { title: "Langfuse", url: "https://example.org/langfuse", asOf: "2026-08-22" },
      "litellm-2026-07-24": OLD_SOURCE,
    },
    rows: [
      langfuseRow,
      {
        model: "gpt-4o",
        provider: "openai",
        input: 5,
        output: 15,
        effectiveFrom: "2026-07-24",
        source: "litellm-2026-07-24",
      },
      {
        model: "gpt-4o-mini",
        provider: "openai",
        input: 0.15,
        output: 0.6,
        cacheRead: 0.075,
        effectiveFrom: "2026-07-24",
        source: "litellm-2026-07-24",
      },
      {
        model: "mistral-tiny",
        provider: "mistral",
        input: 0.25,
        output: 0.25,
        effectiveFrom: "2026-07-24",
        source: "litellm-2026-07-24",
      },
    ],
  };
  const merge = (prune = false) =>
    mergeSourceRows(table, litellmRows(fixture), {
      sourceId: "litellm-2026-12-01",
      source: SOURCE,
      manages: (id) => id.startsWith("litellm"),
      prune,
    });

  it("adds new models, adds a row from the source's day for a changed price, keeps history and other sources", () => {
    const { table: merged, changes } = merge();
    const gpt4o = merged.rows.filter((row) => row.model === "gpt-4o");
    expect(gpt4o.map((row) => [row.effectiveFrom, row.input, row.output])).toEqual([
      ["2026-07-24", 5, 15],
      ["2026-12-01", 2.5, 10],
    ]);
    expect(merged.rows).toContainEqual(langfuseRow);
    expect(merged.rows.filter((row) => row.model === "gpt-4o-mini")).toHaveLength(1);
    expect(merged.rows.some((row) => row.model === "gpt-4o-2024-08-06")).toBe(false);
    expect(merged.rows.find((row) => row.model === "mistral-tiny")).toBeDefined();
    expect(
      changes.filter((change) => change.kind === "added").map((change) => change.kind === "added" && change.row.model),
    ).toContain("claude-sonnet-4-5");
    expect(Object.keys(merged.sources).sort()).toEqual(["langfuse", "litellm-2026-07-24", "litellm-2026-12-01"]);
  });

  it("prints the review diff: added, changed old → new, removed, and the counts", () => {
    const lines = formatChanges(merge().changes);
    expect(lines).toContain(
      "~ gpt-4o (openai) from 2026-12-01: input 5 → 2.5, output 15 → 10, cacheRead (none) → 1.25",
    );
    expect(lines).toContain("+ gpt-4o-2024-05-13 (openai) input 5, output 15");
    expect(lines).toContain(
      "+ claude-sonnet-4-5 (anthropic) input 3, output 15, cacheRead 0.3, cacheWrite 3.75; above 200000: input 6, output 22.5, cacheRead 0.6, cacheWrite 7.5",
    );
    expect(lines).toContain("- mistral-tiny (mistral) no longer in the source: rows kept (--prune removes them)");
    expect(lines.at(-1)).toBe("10 added, 1 changed, 1 removed, 3 priced through other rows");
    expect(lines.some((line) => line.startsWith("= "))).toBe(false);
    expect(formatChanges(merge().changes, true)).toContain(
      "= azure/gpt-4o priced the same through another row (matching rules), not written",
    );
  });

  it("drops a model the source no longer lists only when asked to", () => {
    expect(merge(true).table.rows.some((row) => row.model === "mistral-tiny")).toBe(false);
  });

  it("writes a file the checker accepts and that reads back to the same rows", () => {
    const { table: merged } = merge();
    const file = JSON.parse(serialiseTable(merged)) as PriceFile;
    expect(priceFileProblems(file)).toEqual([]);
    const sortKey = (row: PriceRow) => `${row.model} ${row.effectiveFrom}`;
    const sorted = (rows: readonly PriceRow[]) => [...rows].sort((a, b) => sortKey(a).localeCompare(sortKey(b)));
    expect(sorted(priceRows(file))).toEqual(sorted(merged.rows));
  });
});

describe("the command", () => {
  const directory = mkdtempSync(join(tmpdir(), "ats-prices-"));
  afterAll(() => rmSync(directory, { recursive: true, force: true }));
  const run = (...args: string[]) =>
    spawnSync(process.execPath, ["--import", "tsx", join(ROOT, "scripts", "update-model-prices.ts"), ...args], {
      cwd: ROOT,
      encoding: "utf8",
    });

  it("merges a fetched file into a table, prints the diff and writes a checked, formatted file", () => {
    // Prepare: a table with one older price.
    const tablePath = join(directory, "model-prices.json");
    const table: PriceTable = {
      sources: { "litellm-2026-07-24": OLD_SOURCE },
      rows: [
        {
          model: "gpt-4o",
          provider: "openai",
          input: 5,
          output: 15,
          effectiveFrom: "2026-07-24",
          source: "litellm-2026-07-24",
        },
      ],
    };
    writeFileSync(tablePath, serialiseTable(table));

    // Act
    const result = run(
      FIXTURE,
      "--as-of",
      SOURCE.asOf,
      "--url",
      SOURCE.url,
      "--commit",
      SOURCE.commit,
      "--table",
      tablePath,
    );

    // Assess
    expect(result.status, result.stderr).toBe(0);
    expect(result.stdout).toContain(
      "~ gpt-4o (openai) from 2026-12-01: input 5 → 2.5, output 15 → 10, cacheRead (none) → 1.25",
    );
    expect(result.stdout).toContain("11 added, 1 changed, 0 removed");
    const written = readFileSync(tablePath, "utf8");
    expect(priceFileProblems(JSON.parse(written))).toEqual([]);
    const formatted = execFileSync(
      join(ROOT, "node_modules", ".bin", "biome"),
      ["format", "--stdin-file-path=x.json"],
      {
        cwd: ROOT,
        input: written,
        encoding: "utf8",
      },
    );
    expect(written).toBe(formatted);
    expect((JSON.parse(written) as PriceFile).sources["litellm-2026-12-01"]).toEqual(SOURCE);
  });

  it("changes nothing with --dry-run, and refuses to run without a day and a URL", () => {
    const tablePath = join(directory, "dry.json");
    writeFileSync(tablePath, serialiseTable({ sources: {}, rows: [] }));
    const dry = run(FIXTURE, "--as-of", SOURCE.asOf, "--url", SOURCE.url, "--table", tablePath, "--dry-run");
    expect(dry.status, dry.stderr).toBe(0);
    expect(dry.stdout).toContain("12 added, 0 changed");
    expect(readFileSync(tablePath, "utf8")).toBe(serialiseTable({ sources: {}, rows: [] }));
    const bare = run(FIXTURE, "--table", tablePath);
    expect(bare.status).toBe(2);
    expect(bare.stderr).toContain("usage: npm run prices:update");
  });
});
