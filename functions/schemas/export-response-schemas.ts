/**
 * Response schema of `GET /api/exports` (issue 35), field for field as organisation-exports.ts builds it (full
 * zod, for the OpenAPI document and the tests; handlers never import it). Registered with the others in
 * response-schemas.ts.
 */
import * as z from "zod";
import { ENVIRONMENTS } from "../domain/api-key.js";
import { EXPORT_TABLE_NAMES } from "../export/export-tables.js";

const timestamp = z.iso.datetime({ precision: 3 });
const count = z.int().nonnegative();
const url = z.string().url().describe("A presigned S3 GET URL, valid 15 minutes");

const fileFields = {
  table: z.enum(EXPORT_TABLE_NAMES),
  environment: z.enum(ENVIRONMENTS),
  day: z.iso.date().describe("The file's `day=` partition (UTC)"),
  hour: z.string().describe("`YYYY-MM-DDTHH`: the unit's UTC hour"),
  unit: z.enum(["s", "c"]).describe("s: the sessions started in the hour; c: the conversations started in it"),
  key: z.string().describe("The object's key in the export bucket: `table=<t>/org=<org>/env=<env>/day=<day>/…`"),
};

export const exportRunListResponse = z.strictObject({
  runs: z
    .array(
      z.strictObject({
        runId: z
          .string()
          .regex(/^exp_[0-9A-HJKMNP-TV-Z]{26}$/)
          .describe("`exp_` + a ULID (time-sortable)"),
        schemaVersion: count.describe("The columns' version (docs/export.md)"),
        startedAt: timestamp,
        committedAt: timestamp,
        changesFrom: timestamp.describe("Changes recorded from this time…"),
        changesThrough: timestamp.describe("…until this time (exclusive) are in the run's files"),
        manifestUrl: url.describe("The organisation's part of the run's manifest (JSON), presigned"),
        fileCount: count.describe("The run's files of the organisation, in all"),
        removedCount: count.describe("The organisation's files the run deleted (a unit left with no rows), in all"),
        filesFrom: count.describe(
          "Where this page starts in the run's files followed by its removed files: 0, or where the previous page " +
            "stopped (a run with more than 500 entries continues on the next page)",
        ),
        files: z.array(
          z.strictObject({
            ...fileFields,
            rows: count,
            bytes: count,
            url,
          }),
        ),
        removed: z.array(z.strictObject(fileFields)).describe("Files to delete from a mirror of the export"),
      }),
    )
    .describe("Committed runs that wrote or removed files of the organisation, newest first"),
  nextCursor: z.string().nullable().describe("Pass as `cursor` for the next page; null on the last page"),
});
