/**
 * `npm run export`: runs the Parquet export now (issue 35; docs/export.md) — what `npm start` does every hour — on the
 * data of `$DATA_DIR` (the running stack's DynamoDB when it runs, else DynamoDB Local started on the directory for
 * the command), into the local S3's export bucket under `$DATA_DIR/s3` (through an S3 server of its own on the same
 * directory, so it needs no credential of the running one). Prints what the run wrote.
 *
 *   npm run export [-- --json] [--org <id> …]   (--org: only those organisations, with a state of their own)
 */
import { join } from "node:path";
import { parseArgs } from "node:util";
import { openCliDatabase } from "./cli-database.js";
import { runCli } from "./cli-program.js";
import { s3Environment, startS3Local } from "./s3-local.js";
import { readSettings } from "./settings.js";

async function run(argv: string[]): Promise<void> {
  const { values } = parseArgs({
    args: argv,
    options: { json: { type: "boolean", default: false }, org: { type: "string", multiple: true } },
  });
  const settings = readSettings();
  const database = await openCliDatabase({ aws: false });
  const s3 = await startS3Local({ dataDirectory: join(settings.dataDirectory, "s3") });
  try {
    Object.assign(process.env, s3Environment(s3));
    const { runExport } = await import("../functions/export/export-run.js");
    const result = await runExport(values.org === undefined ? {} : { organisations: values.org });
    if (values.json) {
      console.log(JSON.stringify(result));
    } else if (result.status === "busy") {
      console.log("Another export run holds the lock (npm start's timer?): try again in a moment.");
    } else if (result.status === "unchanged") {
      console.log(`Nothing changed since the last run (changes ${result.changesFrom} to ${result.changesThrough}).`);
    } else {
      console.log(
        [
          `Export run ${result.runId} committed: ${result.units} unit(s) rebuilt, ${result.files} file(s) written ` +
            `(${result.rows} rows, ${result.bytes} bytes); ${result.removed} unit table(s) without rows have no file` +
            (result.unitsLeft > 0 ? `, ${result.unitsLeft} left for the next run` : ""),
          `  changes from ${result.changesFrom} to ${result.changesThrough} (UTC minutes)`,
          `  files in ${join(settings.dataDirectory, "s3")} (bucket ${process.env.EXPORT_BUCKET}); query them: npm run sql -- "SELECT count(*) FROM events WHERE org = 'dev' AND env = 'live'"`,
        ].join("\n"),
      );
    }
  } finally {
    await s3.stop();
    await database.close();
  }
}

await runCli(run);
