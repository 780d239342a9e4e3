/** The README's least-privilege table is the route table's grants, not a copy that drifts. */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { expect, it } from "vitest";
import { REPOSITORY_ROOT } from "../../local/settings.js";
import { readmeWithTable } from "../../scripts/grants-table.js";

it("README.md shows every route's throttle and grants exactly as functions/routes.ts declares them (npm run grants-table)", () => {
  const readme = readFileSync(join(REPOSITORY_ROOT, "README.md"), "utf8");
  expect(readme).toBe(readmeWithTable(readme));
});
