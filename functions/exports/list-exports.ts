/**
 * GET /api/exports: the organisation's committed export runs, newest first, with a presigned GET URL per file of
 * the organisation (admins and owners; docs/export.md, "Downloading an organisation's files").
 */
import { jsonResponse } from "../http/responses.js";
import { userRoute } from "../http/user-route.js";
import { EXPORT_RUNS_PAGE, listExportsQuery } from "../schemas/export-schemas.js";
import { listOrganisationExports } from "../store/export/organisation-exports.js";

export const handler = userRoute("ListExports", { query: listExportsQuery }, async ({ caller, query }) => {
  const page = await listOrganisationExports(caller.orgId, {
    limit: query.limit ?? EXPORT_RUNS_PAGE.default,
    cursor: query.cursor,
  });
  return jsonResponse(200, page);
});
