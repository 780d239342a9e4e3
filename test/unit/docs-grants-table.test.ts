/** The least-privilege page's grants table is the route table's grants, not a copy that drifts. */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { expect, it } from "vitest";
import { REPOSITORY_ROOT } from "../../local/settings.js";
import { GRANTS_PAGE, pageWithTable, TABLE_HEADER } from "../../scripts/grants-table.js";

it("docs/least-privilege.md shows every route's throttle and grants exactly as functions/routes.ts declares them (npm run grants-table)", () => {
  const page = readFileSync(join(REPOSITORY_ROOT, GRANTS_PAGE), "utf8");
  expect(page).toContain(TABLE_HEADER);
  expect(page).toBe(pageWithTable(page));
});
