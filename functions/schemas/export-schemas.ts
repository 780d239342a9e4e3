/** Request schema of `GET /api/exports` (issue 35): a page of the organisation's committed export runs. */
import * as z from "zod/mini";
import { optional, strictObject, text } from "./fields.js";

/** Runs per page: 10 unless `limit` says otherwise, at most 50. */
export const EXPORT_RUNS_PAGE = { default: 10, max: 50 } as const;

const LIMIT_MESSAGE = `Must be an integer from 1 to ${EXPORT_RUNS_PAGE.max}`;

export const listExportsQuery = strictObject({
  cursor: optional(text(2048)),
  limit: optional(
    z
      .pipe(
        z.string({ error: LIMIT_MESSAGE }).check(z.regex(/^[1-9]\d{0,1}$/, { error: LIMIT_MESSAGE })),
        z.transform((value) => Number(value)),
      )
      .check(z.lte(EXPORT_RUNS_PAGE.max, { error: LIMIT_MESSAGE })),
  ),
});
export type ListExportsQuery = z.output<typeof listExportsQuery>;
