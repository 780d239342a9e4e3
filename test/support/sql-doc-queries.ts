/**
 * The queries of docs/sql.md, read from the page itself so the doc and the tests cannot drift: each `### <n>. <title>`
 * heading of "The ten queries" and the one ```sql block under it.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { REPOSITORY_ROOT } from "../../local/settings.js";

export interface DocumentedQuery {
  readonly number: number;
  readonly title: string;
  readonly sql: string;
}

export function documentedQueries(path = join(REPOSITORY_ROOT, "docs", "sql.md")): DocumentedQuery[] {
  const page = readFileSync(path, "utf8");
  const section = page.split(/^## The ten queries$/m)[1]?.split(/^## /m)[0];
  if (section === undefined) throw new Error(`${path} has no "## The ten queries" section`);
  return section
    .split(/^### /m)
    .slice(1)
    .map((part) => {
      const heading = /^(\d+)\. (.+)$/m.exec(part);
      const blocks = [...part.matchAll(/^```sql\n([\s\S]*?)^```$/gm)].map((match) => match[1]?.trim() ?? "");
      if (heading === null || blocks.length !== 1 || blocks[0] === "")
        throw new Error(`docs/sql.md: "### ${part.split("\n")[0]}" needs a "<n>. <title>" heading and one sql block`);
      return { number: Number(heading[1]), title: heading[2] ?? "", sql: blocks[0] ?? "" };
    });
}
