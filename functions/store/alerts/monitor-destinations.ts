/**
 * A monitor's destinations must be the organisation's: each id is looked up by its key (the destinations are the
 * delivery's, functions/store/table/keys.ts alertDestinationKey) — at most MONITOR_LIMITS.destinationsPerMonitor
 * reads, in parallel, of the caller's organisation only, so another organisation's destination is simply unknown.
 */
import { type FieldIssue, ValidationError } from "../../domain/errors.js";
import { alertDestinationKey } from "../table/keys.js";
import { getItem } from "../table/table-operations.js";

/** Throws a 400 naming each destination id the organisation has no destination of. */
export async function requireOrganisationDestinations(orgId: string, destinationIds: readonly string[]): Promise<void> {
  const found = await Promise.all(
    destinationIds.map((id) => getItem(alertDestinationKey(orgId, id), { projection: ["PK"] })),
  );
  const issues: FieldIssue[] = destinationIds.flatMap((id, index) =>
    found[index] === undefined
      ? [{ path: `destinationIds.${index}`, message: `No destination ${id} in this organisation` }]
      : [],
  );
  if (issues.length > 0) {
    throw new ValidationError(`Invalid request body: ${issues.map((issue) => issue.path).join(", ")}`, issues);
  }
}
