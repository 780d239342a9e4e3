/** docs/sql.md lists the exported tables' columns exactly as functions/export/export-tables.ts defines them. */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { expect, it } from "vitest";
import { REPOSITORY_ROOT } from "../../local/settings.js";
import { pageWithTables, SQL_PAGE } from "../../scripts/sql-tables-doc.js";

it("docs/sql.md's tables section is the exported tables' definition (node --import tsx scripts/sql-tables-doc.ts)", () => {
  const page = readFileSync(join(REPOSITORY_ROOT, SQL_PAGE), "utf8");
  expect(page).toContain("### `sessions`");
  expect(page).toBe(pageWithTables(page));
});
