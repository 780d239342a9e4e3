/**
 * Merging a fresh read of a source into the price table, and the diff a reviewer reads. A changed price is a new row
 * from the source's date (the old row stays: events before that day keep their price); a model the source no longer
 * lists keeps its rows unless pruning is asked for; rows from other sources are never touched, and live beside this
 * source's rows (the lookup takes the newest row in effect, whichever source it came from).
 */
import {
  type PriceRow,
  type PriceSource,
  type PriceTable,
  type PriceTier,
  priceFile,
  type Rates,
} from "../../functions/pricing/price-table.js";
import { compareRows, foldableModels, type SourceRow, samePrice } from "./litellm-rows.js";

export type TableChange =
  | { readonly kind: "added"; readonly row: PriceRow }
  | { readonly kind: "changed"; readonly before: PriceRow; readonly row: PriceRow }
  | { readonly kind: "removed"; readonly before: PriceRow; readonly pruned: boolean }
  /** Priced the same through another row by the matching rules (foldableModels), so not written. */
  | { readonly kind: "folded"; readonly model: string };

export interface MergeOptions {
  /** The source's id in the table (`litellm-2026-07-24`) and what it is. */
  readonly sourceId: string;
  readonly source: PriceSource;
  /** Which earlier sources this one supersedes (rows of other sources are left alone): here, ids starting `litellm`. */
  readonly manages: (sourceId: string) => boolean;
  /** Drop the rows of models the source no longer lists. */
  readonly prune?: boolean;
}

const RATE_NAMES = ["input", "output", "cacheRead", "cacheWrite", "reasoning"] as const;

/** The latest row of each model among `rows`. */
function latestByModel(rows: readonly PriceRow[]): Map<string, PriceRow> {
  const latest = new Map<string, PriceRow>();
  for (const row of rows) {
    const current = latest.get(row.model);
    if (current === undefined || row.effectiveFrom > current.effectiveFrom) latest.set(row.model, row);
  }
  return latest;
}

export function mergeSourceRows(
  table: PriceTable,
  fresh: readonly SourceRow[],
  options: MergeOptions,
): { table: PriceTable; changes: TableChange[] } {
  const managed = table.rows.filter((row) => options.manages(row.source));
  const others = table.rows.filter((row) => !options.manages(row.source));
  const latest = latestByModel(managed);
  const changes: TableChange[] = [];
  let rows = [...managed];
  const listed = new Set<string>();
  const foldable = foldableModels(fresh);
  for (const sourceRow of fresh) {
    listed.add(sourceRow.model);
    const row: PriceRow = { ...sourceRow, effectiveFrom: options.source.asOf, source: options.sourceId };
    const before = latest.get(sourceRow.model);
    if (before === undefined && foldable.has(sourceRow.model)) {
      // A model the table already names keeps its own rows; a new one priced like another is left to the rules.
      changes.push({ kind: "folded", model: sourceRow.model });
    } else if (before === undefined) {
      rows.push(row);
      changes.push({ kind: "added", row });
    } else if (!samePrice(before, sourceRow)) {
      // A second read on the same day replaces that day's row instead of stacking two.
      rows = rows.filter((each) => !(each.model === row.model && each.effectiveFrom === row.effectiveFrom));
      rows.push(row);
      changes.push({ kind: "changed", before, row });
    }
  }
  for (const [model, before] of latest) {
    if (listed.has(model)) continue;
    changes.push({ kind: "removed", before, pruned: options.prune === true });
    if (options.prune === true) rows = rows.filter((row) => row.model !== model);
  }
  const allRows = [...others, ...rows].sort(
    (a, b) => compareRows(a, b) || a.effectiveFrom.localeCompare(b.effectiveFrom),
  );
  const used = new Set(allRows.map((row) => row.source));
  const sources: Record<string, PriceSource> = {};
  for (const [id, source] of Object.entries({ ...table.sources, [options.sourceId]: options.source })) {
    if (used.has(id)) sources[id] = source;
  }
  return { table: { sources, rows: allRows }, changes };
}

const describeRates = (rates: Partial<Rates>) =>
  RATE_NAMES.filter((name) => rates[name] !== undefined)
    .map((name) => `${name} ${rates[name]}`)
    .join(", ");

const describeTiers = (tiers: readonly PriceTier[] | undefined) =>
  (tiers ?? []).map(({ above, ...rates }) => `; above ${above}: ${describeRates(rates)}`).join("");

/** What changed between two rows' prices: `input 2.5 → 2, cacheRead (none) → 1.25`, tiers last. */
function describeChange(before: PriceRow, after: PriceRow): string {
  const parts = RATE_NAMES.filter((name) => before[name] !== after[name]).map(
    (name) => `${name} ${before[name] ?? "(none)"} → ${after[name] ?? "(none)"}`,
  );
  if (JSON.stringify(before.tiers ?? []) !== JSON.stringify(after.tiers ?? [])) {
    parts.push(
      `tiers [${describeTiers(before.tiers).slice(2) || "none"}] → [${describeTiers(after.tiers).slice(2) || "none"}]`,
    );
  }
  return parts.join(", ");
}

/**
 * The review diff, one line per change: `+` added, `~` changed (old → new), `-` removed; with `verbose`, also `=` for
 * rows not written (priced the same through another row). Ends with the counts.
 */
export function formatChanges(changes: readonly TableChange[], verbose = false): string[] {
  const lines = changes.map(changeLine);
  const count = (kind: TableChange["kind"]) => changes.filter((change) => change.kind === kind).length;
  const summary = `${count("added")} added, ${count("changed")} changed, ${count("removed")} removed`;
  lines.push(`${summary}, ${count("folded")} priced through other rows`);
  return lines.filter((line) => !line.startsWith("= ") || verbose);
}

function changeLine(change: TableChange): string {
  switch (change.kind) {
    case "added":
      return `+ ${change.row.model} (${change.row.provider}) ${describeRates(change.row)}${describeTiers(change.row.tiers)}`;
    case "changed":
      return `~ ${change.row.model} (${change.row.provider}) from ${change.row.effectiveFrom}: ${describeChange(change.before, change.row)}`;
    case "removed":
      return `- ${change.before.model} (${change.before.provider}) no longer in the source: ${change.pruned ? "rows removed" : "rows kept (--prune removes them)"}`;
    case "folded":
      return `= ${change.model} priced the same through another row (matching rules), not written`;
  }
}

/**
 * The file as written: indented, one model per line (so a review diff shows one line per price), in the layout Biome
 * keeps (lines over its width are wrapped by `biome format`, which the update script runs after writing).
 */
export function serialiseTable(table: PriceTable): string {
  const file = priceFile({ sources: table.sources, rows: table.rows.map(orderRow) });
  const sources = Object.entries(file.sources).map(([id, source]) => `    ${JSON.stringify(id)}: ${inline(source)}`);
  const blocks = file.prices.map((block) => {
    const providers = Object.entries(block.models).map(([provider, models]) => {
      const lines = Object.entries(models).map(
        ([model, rates]) => `        ${JSON.stringify(model)}: ${inline(rates)}`,
      );
      return `      ${JSON.stringify(provider)}: {\n${lines.join(",\n")}\n      }`;
    });
    return [
      "    {",
      `      "source": ${JSON.stringify(block.source)},`,
      `      "effectiveFrom": ${JSON.stringify(block.effectiveFrom)},`,
      `      "models": {\n${providers.join(",\n")}\n      }`.replace(/^/gm, "  ").slice(2),
      "    }",
    ].join("\n");
  });
  return `{\n  "sources": {\n${sources.join(",\n")}\n  },\n  "prices": [\n${blocks.join(",\n")}\n  ]\n}\n`;
}

/** `{ "input": 2.5, "output": 10 }`: JSON on one line with Biome's spacing. */
function inline(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(inline).join(", ")}]`;
  if (typeof value === "object" && value !== null) {
    const fields = Object.entries(value).map(([key, field]) => `${JSON.stringify(key)}: ${inline(field)}`);
    return fields.length === 0 ? "{}" : `{ ${fields.join(", ")} }`;
  }
  return JSON.stringify(value);
}

/** A row's fields in one order, whatever order they were built in. */
function orderRow(row: PriceRow): PriceRow {
  const { model, provider, effectiveFrom, source, input, output, cacheRead, cacheWrite, reasoning, tiers } = row;
  return {
    model,
    provider,
    input,
    output,
    ...(cacheRead !== undefined && { cacheRead }),
    ...(cacheWrite !== undefined && { cacheWrite }),
    ...(reasoning !== undefined && { reasoning }),
    ...(tiers !== undefined && tiers.length > 0 && { tiers: tiers.map(orderTier) }),
    effectiveFrom,
    source,
  };
}

function orderTier(tier: PriceTier): PriceTier {
  const { above, input, output, cacheRead, cacheWrite, reasoning } = tier;
  return {
    above,
    ...(input !== undefined && { input }),
    ...(output !== undefined && { output }),
    ...(cacheRead !== undefined && { cacheRead }),
    ...(cacheWrite !== undefined && { cacheWrite }),
    ...(reasoning !== undefined && { reasoning }),
  };
}
