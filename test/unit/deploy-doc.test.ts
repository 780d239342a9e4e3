/**
 * docs/deploy.md against the code: the settings and their defaults, the route buckets and how many addresses
 * fill them, the rules, the 429 and the header it describes are the ones the stack deploys.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ORIGIN_VERIFY_HEADER } from "../../functions/edge/origin-verify.js";
import { ROUTE_THROTTLES } from "../../functions/routes.js";
import { EDGE_RULE_NAMES, edgeLimitOf, RATE_LIMITED_RESPONSE } from "../../lib/constructs/edge-rate-rules.js";
import {
  DEFAULT_EDGE_LIMITS,
  EDGE_LIMIT_CONTEXT_KEYS,
  EDGE_PROTECTION_CONTEXT_KEY,
} from "../../lib/constructs/edge-settings.js";

const DOC = readFileSync(join(import.meta.dirname, "../../docs/deploy.md"), "utf8");
const number = (value: number) => value.toLocaleString("en-US");

/** The table row that starts with `first` (a cell's text). */
function rowStartingWith(first: string): string {
  const row = DOC.split("\n").find((line) => line.startsWith(`| ${first} |`));
  if (row === undefined) throw new Error(`docs/deploy.md has no row starting with ${first}`);
  return row;
}

describe("docs/deploy.md", () => {
  it("lists each edge setting with its default", () => {
    expect(rowStartingWith(`\`${EDGE_PROTECTION_CONTEXT_KEY}\``)).toContain("| `false` |");
    for (const kind of ["all", "read", "management"] as const) {
      expect(rowStartingWith(`\`${EDGE_LIMIT_CONTEXT_KEYS[kind]}\``)).toContain(`| \`${DEFAULT_EDGE_LIMITS[kind]}\` |`);
    }
  });

  it("gives every route bucket with its per-address limit and the addresses it takes to fill it", () => {
    for (const [name, throttle] of Object.entries(ROUTE_THROTTLES)) {
      const kind = edgeLimitOf(throttle) ?? "all";
      const perMinute = DEFAULT_EDGE_LIMITS[kind];
      const addresses = Math.ceil(throttle.rateLimit / (perMinute / 60));
      const row = DOC.split("\n").find((line) =>
        line.includes(`| ${number(throttle.rateLimit)} / ${number(throttle.burstLimit)} |`),
      );
      expect({ bucket: name, row: row !== undefined }).toEqual({ bucket: name, row: true });
      expect(row).toContain(`| ${number(perMinute)} a minute (${number(perMinute / 60)} rps) | ${addresses} |`);
    }
  });

  it("names the rules, the header and the 429 the stack deploys", () => {
    for (const name of Object.values(EDGE_RULE_NAMES)) expect(DOC).toContain(`\`${name}\``);
    expect(DOC).toContain(`\`${ORIGIN_VERIFY_HEADER}\``);
    expect(DOC).toContain(JSON.stringify(RATE_LIMITED_RESPONSE.body));
    expect(DOC).toContain(`retry-after: ${RATE_LIMITED_RESPONSE.retryAfterSeconds}`);
  });
});
