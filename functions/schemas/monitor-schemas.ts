/** Request schemas of the monitor routes (`/api/alerts/monitors…`, `/api/alerts/audit`), issue 34. */
import * as z from "zod/mini";
import {
  MONITOR_LIMITS as LIMIT,
  MONITOR_COMPARISONS,
  MONITOR_METRICS,
  type MonitorDefinition,
  NO_DATA_RULES,
} from "../domain/monitor.js";
import { monitorDefinitionIssues } from "../domain/monitor-rules.js";
import {
  boolean,
  boundedNumber,
  enumeration,
  jsonSchemaOf,
  name,
  optional,
  serviceId,
  strictObject,
  text,
} from "./fields.js";

const filters = strictObject({
  agent: optional(name()),
  user: optional(name()),
  model: optional(name()),
  tool: optional(name()),
  score: optional(name()),
  label: optional(name()),
});

const windowMinutes = jsonSchemaOf(
  boundedNumber(LIMIT.minWindowMinutes, LIMIT.maxWindowMinutes, { integer: true }).check(
    z.refine((value) => value % LIMIT.windowStepMinutes === 0, {
      error: `Must be a multiple of ${LIMIT.windowStepMinutes}`,
    }),
  ),
  { type: "integer", multipleOf: LIMIT.windowStepMinutes },
);

const RENOTIFY_MESSAGE = `Must be 0 (never) or an integer from ${LIMIT.minRenotifyMinutes} to ${LIMIT.maxRenotifyMinutes}`;
const renotifyMinutes = jsonSchemaOf(
  z
    .number({ error: RENOTIFY_MESSAGE })
    .check(
      z.refine(
        (value) =>
          Number.isInteger(value) &&
          (value === 0 || (value >= LIMIT.minRenotifyMinutes && value <= LIMIT.maxRenotifyMinutes)),
        { error: RENOTIFY_MESSAGE },
      ),
    ),
  {
    anyOf: [
      { type: "integer", const: 0 },
      { type: "integer", minimum: LIMIT.minRenotifyMinutes, maximum: LIMIT.maxRenotifyMinutes },
    ],
  },
);

const destinationIds = z.array(serviceId("alertDestination"), { error: "Must be an array of destination ids" }).check(
  z.maxLength(LIMIT.destinationsPerMonitor, {
    error: `Must name at most ${LIMIT.destinationsPerMonitor} destinations`,
  }),
  z.refine((ids) => new Set(ids).size === ids.length, { error: "Must not repeat a destination" }),
);

const threshold = () => boundedNumber(-LIMIT.maxThreshold, LIMIT.maxThreshold);

/**
 * A monitor definition (POST, PUT and the preview take the whole of it): each field's bounds, then the rules across
 * fields (domain/monitor-rules.ts), each issue on its field.
 */
export const monitorDefinitionBody = strictObject({
  name: text(LIMIT.nameLength),
  description: optional(text(LIMIT.descriptionLength)),
  enabled: boolean(),
  metric: enumeration(MONITOR_METRICS),
  filters,
  windowMinutes,
  comparison: enumeration(MONITOR_COMPARISONS),
  warningThreshold: optional(threshold()),
  alertThreshold: threshold(),
  minSessions: boundedNumber(0, LIMIT.maxMinSessions, { integer: true }),
  noData: enumeration(NO_DATA_RULES),
  renotifyMinutes,
  notifyOnRecovery: boolean(),
  destinationIds,
}).check(
  z.superRefine((definition, context) => {
    for (const issue of monitorDefinitionIssues(definition as MonitorDefinition)) {
      context.addIssue({ code: "custom", path: issue.path.split("."), message: issue.message });
    }
  }),
);
export type MonitorDefinitionBody = z.output<typeof monitorDefinitionBody>;

const PAGE_MESSAGE = (most: number) => `Must be an integer from 1 to ${most}`;

function pageLimit(most: number) {
  return optional(
    z
      .pipe(
        z.string({ error: PAGE_MESSAGE(most) }).check(z.regex(/^[1-9]\d{0,2}$/, { error: PAGE_MESSAGE(most) })),
        z.transform((value) => Number(value)),
      )
      .check(z.lte(most, { error: PAGE_MESSAGE(most) })),
  );
}

const cursor = optional(text(2048));

/** GET /api/alerts/monitors/{monitorId}/history: newest first, a page at a time. */
export const monitorHistoryQuery = strictObject({ cursor, limit: pageLimit(LIMIT.maxHistoryPage) });
export type MonitorHistoryQuery = z.output<typeof monitorHistoryQuery>;

/** GET /api/alerts/audit: newest first, a page at a time. */
export const alertAuditQuery = strictObject({ cursor, limit: pageLimit(LIMIT.maxAuditPage) });
export type AlertAuditQuery = z.output<typeof alertAuditQuery>;
