/**
 * axe-core in the page under test: the violations a person would hit
 * (impact serious or critical), WCAG 2.x A/AA and best-practice rules.
 */
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import type { Page } from "playwright-core";

const require = createRequire(import.meta.url);
/**
 * axe's source, evaluated in the page through DevTools: `page.addScriptTag`
 * would add an inline script, which the console's CSP (`script-src 'self'`)
 * refuses (and reports as an error); DevTools evaluation is not subject to
 * the CSP, which stays on, so the tests still see whatever it would block.
 */
const AXE_SOURCE = readFileSync(require.resolve("axe-core/axe.min.js"), "utf8");

export interface AxeViolation {
  readonly id: string;
  readonly impact: string | null;
  readonly help: string;
  readonly helpUrl: string;
  /** CSS targets and HTML of (at most five of) the offending nodes. */
  readonly nodes: readonly { readonly target: string; readonly html: string }[];
}

const SEVERE = new Set(["serious", "critical"]);

/** Runs axe on the page as it is now. */
export async function seriousViolations(page: Page): Promise<AxeViolation[]> {
  const loaded = await page.evaluate(() => typeof (globalThis as { axe?: unknown }).axe !== "undefined");
  if (!loaded) await page.evaluate(AXE_SOURCE);
  const violations = await page.evaluate(async () => {
    type AxeResult = {
      violations: {
        id: string;
        impact: string | null;
        help: string;
        helpUrl: string;
        nodes: { target: unknown[]; html: string }[];
      }[];
    };
    const axe = (globalThis as unknown as { axe: { run(context: unknown, options: unknown): Promise<AxeResult> } }).axe;
    const result = await axe.run((globalThis as { document?: unknown }).document, {
      runOnly: { type: "tag", values: ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa", "best-practice"] },
      resultTypes: ["violations"],
    });
    return result.violations.map((violation) => ({
      id: violation.id,
      impact: violation.impact,
      help: violation.help,
      helpUrl: violation.helpUrl,
      nodes: violation.nodes.slice(0, 5).map((node) => ({ target: node.target.join(" "), html: node.html })),
    }));
  });
  return violations.filter((violation) => violation.impact !== null && SEVERE.has(violation.impact));
}

/** One line per violation and node, for an assertion message. */
export function describeViolations(violations: readonly AxeViolation[]): string {
  return violations
    .map(
      (violation) =>
        `${violation.impact} ${violation.id}: ${violation.help} (${violation.helpUrl})\n${violation.nodes
          .map((node) => `    ${node.target}: ${node.html}`)
          .join("\n")}`,
    )
    .join("\n");
}
