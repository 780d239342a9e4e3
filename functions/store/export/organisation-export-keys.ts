/**
 * The tenancy boundary of `GET /api/exports` (issue 35). The export bucket holds every organisation's files and
 * an IAM role cannot be limited per organisation (the route's role may read all of `manifests/*` and `table=*`),
 * so this check in code is what keeps an organisation's admin to their own files: every key the route reads or
 * presigns must be one of the caller's organisation (docs/export.md, "Downloading an organisation's files").
 */
import { isOrganisationId } from "../../domain/organisation.js";
import { organisationManifestPrefix, organisationTablePrefix } from "../../export/export-layout.js";
import { EXPORT_TABLE_NAMES } from "../../export/export-tables.js";

/** The characters of the export's keys (export-layout.ts): slugs, `=`, `-`, `_`, `.` and `/`. */
const LAYOUT_CHARACTERS = /^[A-Za-z0-9=._/-]+$/;
/** A key holding any of these could name something outside its prefix to some reader: never handed out. */
const STEPS_OUT = /\.\.|\/\//;

/**
 * Whether `key` is a file of `orgId` in the export bucket: it starts with `table=<table>/org=<orgId>/` for one of
 * the exported tables, or with `manifests/org=<orgId>/`, and holds nothing that could leave that prefix.
 */
export function isOrganisationExportKey(orgId: string, key: string): boolean {
  if (!isOrganisationId(orgId) || !LAYOUT_CHARACTERS.test(key) || STEPS_OUT.test(key)) return false;
  if (key.startsWith(organisationManifestPrefix(orgId))) return true;
  return EXPORT_TABLE_NAMES.some((table) => key.startsWith(organisationTablePrefix(table, orgId)));
}

/** Thrown instead of reading or presigning a key outside the caller's organisation (a 500: it is never exposed). */
export class ForeignExportKeyError extends Error {
  constructor(key: string, orgId: string) {
    super(`Refused to hand out export key ${JSON.stringify(key.slice(0, 200))}: not a file of organisation ${orgId}`);
    this.name = "ForeignExportKeyError";
  }
}

/** `key`, checked to be a file of `orgId`. @throws ForeignExportKeyError otherwise. */
export function organisationExportKey(orgId: string, key: string): string {
  if (!isOrganisationExportKey(orgId, key)) throw new ForeignExportKeyError(key, orgId);
  return key;
}
