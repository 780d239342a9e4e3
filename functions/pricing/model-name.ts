/**
 * Model names as callers send them → the names the price table may know them by, most specific first. Pure string
 * rules, no table: the lookup tries each candidate in turn and stops at the first that a row (or an organisation's
 * price) answers to. Nothing here guesses a family from a prefix: `gpt-4o-mini` only ever becomes `gpt-4o-mini`.
 */

/** Prefixes that name who serves a model, not the model (`openai/gpt-4o`, `models/gemini-2.5-pro`, `bedrock/…`). */
const SERVICE_PREFIX =
  /^(?:openai|anthropic|bedrock|converse|invoke|google|googleai|gemini|vertex_ai|models|mistral|mistralai)\//;
/** Azure's prefix is also a price list of its own (`azure/gpt-4o` rows), so it is tried with and then without it. */
const AZURE_PREFIX = "azure/";
/** A Bedrock model or inference-profile ARN: the id is what follows the resource type. */
const BEDROCK_ARN =
  /^arn:aws(?:-[a-z]+)*:bedrock:[^:]*:[^:]*:(?:foundation-model|inference-profile|system-defined-inference-profile)\/(.+)$/;
/** Bedrock ids are `<vendor>.<model>`; cross-region inference profiles put a geography before them (`us.`, `global.`). */
const BEDROCK_VENDOR = "(?:anthropic|amazon|meta|mistral|cohere|ai21|deepseek|writer|qwen|openai|google)";
const BEDROCK_REGION = new RegExp(`^(?:us|us-gov|eu|apac|jp|au|ca|global)\\.(?=${BEDROCK_VENDOR}\\.)`);
/** Bedrock's version suffix (`-v1:0`, `-v2:0`, `-v1`), only on a vendor-dotted id. */
const BEDROCK_VERSION = new RegExp(`^((?:[a-z-]+\\.)?${BEDROCK_VENDOR}\\.[^/]+?)-v\\d+(?::\\d+)?$`);
/** Vertex AI spells a snapshot `claude-sonnet-4-5@20250929`; providers spell it `claude-sonnet-4-5-20250929`. */
const VERTEX_SNAPSHOT = /@(\d{8})$/;
/** A dated snapshot: `-2024-08-06` (OpenAI) or `-20250514` (Anthropic). */
const DATED_SNAPSHOT = /-(?:\d{4}-\d{2}-\d{2}|\d{8})$/;

/**
 * The canonical form of a name, used both for the table's keys and for the names looked up: lower-case, a Bedrock
 * ARN reduced to its id, service prefixes removed (not `azure/`), Bedrock's `-vN:M` removed, `@date` as `-date`.
 */
export function canonicalModelName(name: string): string {
  let canonical = name.trim().toLowerCase();
  canonical = BEDROCK_ARN.exec(canonical)?.[1] ?? canonical;
  for (let previous = ""; previous !== canonical; ) {
    previous = canonical;
    canonical = canonical.replace(SERVICE_PREFIX, "");
  }
  canonical = canonical.replace(BEDROCK_VERSION, "$1").replace(VERTEX_SNAPSHOT, "-$1");
  return canonical;
}

/** `us.anthropic.claude-…` → `anthropic.claude-…`; undefined when the name has no Bedrock geography prefix. */
export function withoutRegion(canonical: string): string | undefined {
  return BEDROCK_REGION.test(canonical) ? canonical.replace(BEDROCK_REGION, "") : undefined;
}

/** `gpt-4o-2024-08-06` → `gpt-4o`; undefined when the name carries no date. */
export function withoutSnapshotDate(canonical: string): string | undefined {
  return DATED_SNAPSHOT.test(canonical) ? canonical.replace(DATED_SNAPSHOT, "") : undefined;
}

/** One name to try, and which rule produced it (for tests and for explaining a match). */
export interface NameCandidate {
  readonly name: string;
  readonly rule: "exact" | "canonical" | "without-azure" | "without-region" | "without-date";
}

/**
 * The names to try for `model`, in order: the name itself (lower-case), its canonical form, then the same without
 * Azure's prefix, without a Bedrock geography (only when `regionPriced` says the source prices no geography of that
 * model apart: otherwise an unlisted geography stays unpriced rather than taking another's rate), and each of these
 * without a snapshot date.
 */
export function modelNameCandidates(model: string, regionPriced: (base: string) => boolean): NameCandidate[] {
  const candidates: NameCandidate[] = [];
  const add = (name: string | undefined, rule: NameCandidate["rule"]) => {
    if (name !== undefined && name !== "" && !candidates.some((candidate) => candidate.name === name)) {
      candidates.push({ name, rule });
    }
  };
  const withDates = (name: string | undefined, rule: NameCandidate["rule"]) => {
    add(name, rule);
    if (name !== undefined) add(withoutSnapshotDate(name), "without-date");
  };
  add(model.trim().toLowerCase(), "exact");
  const canonical = canonicalModelName(model);
  withDates(canonical, "canonical");
  if (canonical.startsWith(AZURE_PREFIX))
    withDates(canonicalModelName(canonical.slice(AZURE_PREFIX.length)), "without-azure");
  const base = withoutRegion(canonical);
  if (base !== undefined && !regionPriced(base)) withDates(base, "without-region");
  return candidates;
}
