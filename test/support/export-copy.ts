/**
 * The export as a reader copies it, for tests of `npm run sql`: what `aws s3 sync` of the run manifests and one
 * organisation's prefixes of the test run's export bucket would give (keys as file paths), to be read with
 * `openExportDatabase(plainDirectoryExportStore(directory), { orgId })` — `npm run sql -- --dir … --org …`.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { organisationTablePrefix, RUN_MANIFEST_PREFIX } from "../../functions/export/export-layout.js";
import { EXPORT_TABLE_NAMES } from "../../functions/export/export-tables.js";
import { exportKeys, exportObject } from "./export-files.js";

/** Copies the run manifests and `orgId`'s data files into `directory`; answers how many objects it copied. */
export async function copyOrganisationExport(orgId: string, directory: string): Promise<number> {
  const prefixes = [RUN_MANIFEST_PREFIX, ...EXPORT_TABLE_NAMES.map((table) => organisationTablePrefix(table, orgId))];
  const keys = (await Promise.all(prefixes.map(exportKeys))).flat();
  await Promise.all(
    keys.map(async (key) => {
      const body = await exportObject(key);
      if (body === undefined) return;
      const path = join(directory, ...key.split("/"));
      mkdirSync(dirname(path), { recursive: true });
      writeFileSync(path, body);
    }),
  );
  return keys.length;
}
