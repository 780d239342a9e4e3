/**
 * The grants table of `docs/least-privilege.md`, generated from the route table
 * (`functions/routes.ts`): every route and worker, its API Gateway throttle and
 * its DynamoDB grants. `npm run grants-table` rewrites it in that page;
 * `test/unit/docs-grants-table.test.ts` fails when the page is behind.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import {
  alertDeliveryWorker,
  cursorSecretSetup,
  deletionWorker,
  exportChangeMarker,
  exportJob,
  routes,
  streamConsumer,
  type TableGrant,
} from "../functions/routes.js";

export const TABLE_HEADER =
  "| Route / function | Throttle (rps/burst) | Table grants (actions on partition-key patterns) |";

/** One definition's grants, merged per partition (and index, and attribute limit), in order of first mention. */
export function describeGrants(grants: readonly TableGrant[]): string {
  const merged = new Map<string, string[]>();
  for (const grant of grants) {
    for (const partition of grant.partitions) {
      const indexes = grant.indexes === undefined ? "" : ` (${grant.indexes.join(", ")})`;
      const attributes = grant.attributes === undefined ? "" : ` [attributes: ${grant.attributes.join(", ")}]`;
      const target = `\`${partition}\`${indexes}${attributes}`;
      const actions = merged.get(target) ?? [];
      for (const action of grant.actions) {
        const name = action.replace("dynamodb:", "");
        if (!actions.includes(name)) actions.push(name);
      }
      merged.set(target, actions);
    }
  }
  if (merged.size === 0) return "none";
  return [...merged].map(([target, actions]) => `${actions.join(", ")} on ${target}`).join("; ");
}

/** The whole table, header included. */
export function grantsTable(): string {
  const rows = [
    TABLE_HEADER,
    "|---|---|---|",
    ...routes.map(
      (route) =>
        `| ${route.method} ${route.path} | ${route.throttle.rateLimit}/${route.throttle.burstLimit} | ${describeGrants(route.tableGrants)} |`,
    ),
    ...[deletionWorker, streamConsumer, exportChangeMarker, alertDeliveryWorker, exportJob, cursorSecretSetup].map(
      (worker) => `| ${worker.id} | – | ${describeGrants(worker.tableGrants)} |`,
    ),
  ];
  return rows.join("\n");
}

/** The page that holds the table, relative to the repository root. */
export const GRANTS_PAGE = join("docs", "least-privilege.md");

/** The page's text with its table replaced by the generated one. */
export function pageWithTable(page: string): string {
  const start = page.indexOf(TABLE_HEADER);
  if (start < 0) throw new Error(`${GRANTS_PAGE} has no grants table`);
  const end = page.indexOf("\n\n", start);
  return `${page.slice(0, start)}${grantsTable()}${end < 0 ? "\n" : page.slice(end)}`;
}

if (process.argv[1]?.endsWith("grants-table.ts")) {
  const path = join(import.meta.dirname, "..", GRANTS_PAGE);
  writeFileSync(path, pageWithTable(readFileSync(path, "utf8")));
}
