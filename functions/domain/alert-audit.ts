/**
 * The alerts' audit (issue 34): one record per change of an organisation's monitors (and destinations, whose
 * routes write the same records), who made it, when, and the definition before and after. Types only.
 */
import type { Environment } from "./api-key.js";

export const ALERT_AUDIT_ACTIONS = [
  "monitor.created",
  "monitor.updated",
  "monitor.deleted",
  "destination.created",
  "destination.updated",
  "destination.deleted",
  "destination.secret_rotated",
] as const;
export type AlertAuditAction = (typeof ALERT_AUDIT_ACTIONS)[number];

export interface AlertAuditRecord {
  readonly id: string;
  readonly action: AlertAuditAction;
  /** The environment of a monitor; null for a destination (both environments use it). */
  readonly environment: Environment | null;
  /** The monitor's or destination's id. */
  readonly targetId: string;
  /** Its name when the change was made. */
  readonly targetName: string;
  readonly actor: string;
  readonly actorId: string | null;
  readonly at: string;
  /** The definition before the change; null when it was created. */
  readonly before: object | null;
  /** The definition after the change; null when it was deleted. */
  readonly after: object | null;
}

/** Who made a change, as the audit records it. */
export interface AlertActor {
  readonly name: string;
  readonly id?: string | undefined;
}
