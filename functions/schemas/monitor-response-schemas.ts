/**
 * Response schemas of the monitor routes (issue 34), field for field as the handlers build them (full zod, for the
 * OpenAPI document and the tests; handlers never import them). Registered with the others in response-schemas.ts.
 */
import * as z from "zod";
import { MONITOR_STATES } from "../domain/alert-notification.js";
import { ENVIRONMENTS } from "../domain/api-key.js";
import { ID_PREFIXES, type IdKind } from "../domain/ids.js";
import { MONITOR_COMPARISONS, MONITOR_METRICS, NO_DATA_RULES } from "../domain/monitor.js";

function id(kind: IdKind) {
  return z
    .string()
    .regex(new RegExp(`^${ID_PREFIXES[kind]}_[0-9A-HJKMNP-TV-Z]{26}$`))
    .describe(`\`${ID_PREFIXES[kind]}_\` + a ULID (time-sortable)`);
}

const timestamp = z.iso.datetime({ precision: 3 });
const count = z.int().nonnegative();
const status = z.enum(MONITOR_STATES);

const filters = z
  .strictObject({
    agent: z.string().optional(),
    user: z.string().optional(),
    model: z.string().optional(),
    tool: z.string().optional(),
    score: z.string().optional(),
    label: z.string().optional(),
  })
  .describe("What the figure is of: one agent, user, model, tool, score or a score's label (absent: all)");

/** A monitor: its definition, its tenant's environment, who made it, and its state. */
export const monitorResponse = z.strictObject({
  id: id("monitor"),
  environment: z.enum(ENVIRONMENTS),
  name: z.string(),
  description: z.string().optional(),
  enabled: z.boolean(),
  metric: z.enum(MONITOR_METRICS),
  filters,
  windowMinutes: z.int().describe("The window's length: 5 to 10080 minutes, a multiple of 5"),
  comparison: z.enum(MONITOR_COMPARISONS),
  warningThreshold: z.number().optional(),
  alertThreshold: z.number().describe("Rates in percent, cost in USD, durations in ms"),
  minSessions: count.describe("Fewer samples in the window is no data"),
  noData: z.enum(NO_DATA_RULES),
  renotifyMinutes: count.describe("0: never; else every so many minutes while in alert"),
  notifyOnRecovery: z.boolean(),
  destinationIds: z.array(id("alertDestination")),
  createdAt: timestamp,
  updatedAt: timestamp,
  createdBy: z.string().describe("Who created it: a user's name"),
  state: z.strictObject({
    status,
    since: timestamp.nullable().describe("When it entered this status (null: never evaluated)"),
    figure: z.number().nullable().describe("The figure of the last evaluation that changed anything"),
    samples: count,
    evaluatedAt: timestamp.nullable().describe("The last evaluation that changed anything (figure, window, status)"),
    windowStart: timestamp.nullable(),
    windowEnd: timestamp.nullable(),
  }),
});

/** 200 of GET /api/alerts/monitors. */
export const monitorListResponse = z.strictObject({
  monitors: z.array(monitorResponse).describe("Oldest first; at most 100 per organisation and environment"),
});

export const monitorHistoryEntry = z.strictObject({
  id: z.string().describe("The evaluation's minute: one entry per minute at most"),
  at: timestamp,
  from: status,
  to: status,
  kind: z.enum(["change", "renotify"]),
  figure: z.number().nullable(),
  samples: count,
  threshold: z.number().nullable().describe("The threshold crossed (null: ok, or a status from no data)"),
  windowStart: timestamp,
  windowEnd: timestamp,
  notificationId: id("alertNotification").describe(
    "The notification sent for it (a recovery without notifyOnRecovery: the one not sent)",
  ),
});

/** 200 of GET /api/alerts/monitors/{monitorId}/history. */
export const monitorHistoryResponse = z.strictObject({
  history: z.array(monitorHistoryEntry).describe("Newest first"),
  nextCursor: z.string().nullable().describe("Pass as `cursor` for the next page; null on the last page"),
});

/** 202 of POST /api/alerts/monitors/{monitorId}/test. */
export const monitorTestResponse = z.strictObject({
  notificationId: id("alertNotification"),
  deliveries: z.array(
    z.strictObject({
      destinationId: id("alertDestination"),
      status: z
        .enum(["queued", "missing", "disabled"])
        .describe("queued: handed to the delivery, which retries on its own; missing or disabled: skipped"),
    }),
  ),
});

/** 200 of POST /api/alerts/monitors/preview. */
export const monitorPreviewResponse = z.strictObject({
  points: z
    .array(
      z.strictObject({
        start: timestamp,
        end: timestamp.describe("A whole hour of the last 72"),
        figure: z.number().nullable().describe("null: no data in that window"),
        samples: count,
      }),
    )
    .max(72),
  note: z.string().optional().describe("How the preview differs from the evaluation, when it does"),
});

/** 200 of GET /api/alerts/audit. */
export const alertAuditResponse = z.strictObject({
  audit: z.array(
    z.strictObject({
      id: id("audit"),
      action: z
        .enum([
          "monitor.created",
          "monitor.updated",
          "monitor.deleted",
          "destination.created",
          "destination.updated",
          "destination.deleted",
          "destination.secret_rotated",
        ])
        .describe("What was done"),
      subject: z.strictObject({
        kind: z.enum(["monitor", "destination"]),
        id: z.string().describe("The monitor's or destination's id"),
        name: z.string().describe("Its name when the change was made"),
      }),
      actor: z.string().describe("Who acted: a user's name"),
      actorId: z.string().nullable(),
      at: timestamp,
      changed: z.array(z.string()).describe("The fields an update changed; empty otherwise"),
      environment: z.enum(ENVIRONMENTS).optional().describe("A monitor's environment (absent for a destination)"),
      before: z
        .record(z.string(), z.unknown())
        .optional()
        .describe("A monitor's definition before (absent when created)"),
      after: z
        .record(z.string(), z.unknown())
        .optional()
        .describe("A monitor's definition after (absent when deleted)"),
    }),
  ),
  nextCursor: z.string().nullable().describe("Pass as `cursor` for the next page; null on the last page"),
});
