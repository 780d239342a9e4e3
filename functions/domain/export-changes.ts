/**
 * Which export units a change of the table touches (issue 35; docs/export.md). A unit is everything of one tenant
 * that started in one UTC hour: `s` the sessions (with their events and scores), `c` the conversations (with their
 * own scores). The stream consumer records the units of every batch; the next export run rebuilds them. Pure.
 *
 * A session's, tombstone's or conversation summary's image names its tenant and start; an event, a score or any
 * other item of a session's partition names at most its tenant, so its session's start is looked up (the
 * session item, else its tombstone); a conversation's score is placed by its summary's start. A session moved
 * to another start (an OpenTelemetry root naming an earlier one) touches both hours.
 */
import type { Environment } from "./api-key.js";

export type ExportUnitKind = "s" | "c";

export interface ExportUnit {
  readonly kind: ExportUnitKind;
  readonly orgId: string;
  readonly environment: Environment;
  /** The UTC hour, `YYYY-MM-DDTHH`. */
  readonly hour: string;
}

/** A change whose unit needs the start of its session or conversation, read from the table. */
export type UnitLookup =
  | { readonly kind: "session"; readonly sessionId: string }
  | { readonly kind: "conversation"; readonly partitionKey: string };

export interface ChangeImages {
  readonly partitionKey: string;
  readonly newImage?: Readonly<Record<string, unknown>> | undefined;
  readonly oldImage?: Readonly<Record<string, unknown>> | undefined;
}

const SESSION_PREFIX = "SESSION#";
const CONVERSATION_PREFIX = "CONVERSATION#";

/** `YYYY-MM-DDTHH` of an ISO timestamp (UTC), or undefined when it is none. */
export function hourOfTimestamp(value: unknown): string | undefined {
  if (typeof value !== "string") return undefined;
  const ms = Date.parse(value);
  return Number.isFinite(ms) ? new Date(ms).toISOString().slice(0, 13) : undefined;
}

function isEnvironment(value: unknown): value is Environment {
  return value === "live" || value === "test";
}

/** The unit an image places itself in, from its own tenant and start attribute. */
function unitOfImage(
  kind: ExportUnitKind,
  image: Readonly<Record<string, unknown>> | undefined,
  startAttribute: "createdAt" | "startedAt",
): ExportUnit | undefined {
  if (image === undefined) return undefined;
  const hour = hourOfTimestamp(image[startAttribute]);
  const { orgId, environment } = image;
  if (hour === undefined || typeof orgId !== "string" || !isEnvironment(environment)) return undefined;
  return { kind, orgId, environment, hour };
}

/** The key a unit is known by (sets, maps, marker keys). */
export function unitKey(unit: ExportUnit): string {
  return `${unit.kind}#${unit.orgId}#${unit.environment}#${unit.hour}`;
}

/** What one change touches: the units its images name, and what must be read to place the rest. */
export function unitsOfChange(change: ChangeImages): { units: ExportUnit[]; lookup?: UnitLookup } {
  const images = [change.newImage, change.oldImage];
  const entity = change.newImage?.entity ?? change.oldImage?.entity;
  if (change.partitionKey.startsWith(SESSION_PREFIX)) {
    if (entity === "session" || entity === "sessionTombstone") {
      return { units: distinct(images.map((image) => unitOfImage("s", image, "createdAt"))) };
    }
    if (entity === "event" || entity === "score" || entity === "conversationRun") {
      return { units: [], lookup: { kind: "session", sessionId: change.partitionKey.slice(SESSION_PREFIX.length) } };
    }
    return { units: [] };
  }
  if (change.partitionKey.startsWith(CONVERSATION_PREFIX)) {
    if (entity === "conversation") {
      return { units: distinct(images.map((image) => unitOfImage("c", image, "startedAt"))) };
    }
    if (entity === "score") return { units: [], lookup: { kind: "conversation", partitionKey: change.partitionKey } };
  }
  return { units: [] };
}

/** The unit of a session (or its tombstone) or a conversation summary read from the table. */
export function unitOfStart(
  lookup: UnitLookup,
  item: Readonly<Record<string, unknown>> | undefined,
): ExportUnit | undefined {
  return lookup.kind === "session" ? unitOfImage("s", item, "createdAt") : unitOfImage("c", item, "startedAt");
}

export function distinct(units: readonly (ExportUnit | undefined)[]): ExportUnit[] {
  const byKey = new Map<string, ExportUnit>();
  for (const unit of units) if (unit !== undefined) byKey.set(unitKey(unit), unit);
  return [...byKey.values()];
}
