/**
 * Zod schemas of every success and error body the API sends, field for field
 * as the handlers build them. They describe responses for the OpenAPI
 * document and the tests that check real responses against it; handlers never
 * import them (only the OpenAPI route's bundle carries them).
 *
 * Objects are strict: a field a handler adds or drops without updating its
 * schema here fails the response tests.
 */

import * as z from "zod";
import { ENVIRONMENTS } from "../domain/api-key.js";
import type { ApiKeyStatus, AuditAction } from "../domain/api-key-record.js";
import type { DeletionAction } from "../domain/deletion-audit.js";
import type { DeletionJobStatus } from "../domain/deletion-job.js";
import { COST_SOURCES, EVENT_TYPES } from "../domain/event.js";
import { ID_PREFIXES, type IdKind } from "../domain/ids.js";
import { LIMITS } from "../domain/limits.js";
import { ROLES } from "../domain/membership.js";
import { SCOPES } from "../domain/scopes.js";
import { SCORE_AUTHOR_KINDS, SCORE_SOURCES, SCORE_VALUE_KINDS } from "../domain/score.js";
import { SESSION_STATUSES } from "../domain/session.js";
import {
  alertDestinationListResponse,
  alertDestinationResponse,
  createdAlertDestinationResponse,
  destinationTestResponse,
  rotatedSecretResponse,
} from "./alert-destination-responses.js";
import { exportRunListResponse } from "./export-response-schemas.js";
import { metricsResponse } from "./metrics-response-schemas.js";
import {
  alertAuditResponse,
  monitorHistoryResponse,
  monitorListResponse,
  monitorPreviewResponse,
  monitorResponse,
  monitorTestResponse,
} from "./monitor-response-schemas.js";
import { exportLogsServiceResponse, exportTraceServiceResponse } from "./otlp-schemas.js";

/** A service-assigned id: its type prefix plus a ULID. */
function id(kind: IdKind) {
  return z
    .string()
    .regex(new RegExp(`^${ID_PREFIXES[kind]}_[0-9A-HJKMNP-TV-Z]{26}$`))
    .describe(`\`${ID_PREFIXES[kind]}_\` + a ULID (time-sortable)`);
}

/** ISO 8601 UTC timestamp with millisecond precision, e.g. `2026-11-22T10:00:00.000Z`. */
const timestamp = z.iso.datetime({ precision: 3 });
const day = z.iso.date().describe("A UTC day, YYYY-MM-DD");
const count = z.int().nonnegative();
const usd = z.number().nonnegative().describe("USD");
const environment = z.enum(ENVIRONMENTS);
const nonNegativeCounts = z.record(z.string(), count);

/** An error: every non-2xx response the handlers send. */
export const errorResponse = z
  .strictObject({
    error: z
      .enum([
        "Bad Request",
        "Unauthorized",
        "Forbidden",
        "Not Found",
        "Not Acceptable",
        "Conflict",
        "Unprocessable Content",
        "Too Many Requests",
        "Payload Too Large",
        "Unsupported Media Type",
        "Internal Server Error",
        "Service Unavailable",
      ])
      .describe("The HTTP status title"),
    message: z.string().describe("What went wrong, for people; never a stack trace"),
    issues: z
      .array(
        z.strictObject({
          path: z.string().describe("Dotted path of the field, e.g. `customMetrics.latency`; `(body)` for the body"),
          message: z.string(),
        }),
      )
      .min(1)
      .max(20)
      .optional()
      .describe("400 only: the rejected fields (the first 20; `issueCount` says how many there were)"),
    issueCount: z
      .int()
      .min(21)
      .optional()
      .describe("400 only, when more than 20 fields were rejected: how many (only the first 20 are listed)"),
  })
  .describe(
    "An error body. Status 401 also sends `WWW-Authenticate: Bearer` (on the Langfuse trace path `Bearer` and `Basic`).",
  );
export type ErrorResponse = z.output<typeof errorResponse>;

/** 201 of POST /api/sdk/sessions. */
export const createdSessionResponse = z.strictObject({
  id: id("session"),
  name: z.string(),
  agentName: z.string(),
  userId: z.string(),
  conversationId: z.string().nullable().describe("The conversation the run belongs to, as sent; null when none"),
  status: z.literal("active"),
  createdAt: timestamp,
});

/** 200 of PATCH /api/sdk/sessions/{id}: fields the session does not have yet are null. */
export const updatedSessionResponse = z.strictObject({
  id: id("session"),
  name: z.string(),
  status: z.enum(SESSION_STATUSES),
  success: z.boolean().nullable(),
  estimatedCost: usd.nullable(),
  durationMs: z.number().nonnegative().nullable(),
  completedAt: timestamp.nullable(),
});

/** A session as the read API shows it (GET one, list): every stored field, plus `stale`. */
export const sessionResponse = z.strictObject({
  id: id("session"),
  name: z.string(),
  agentName: z.string(),
  userId: z.string(),
  environment,
  metadata: z.record(z.string(), z.unknown()).nullable(),
  conversationId: z
    .string()
    .nullable()
    .describe("The conversation the run belongs to (GET /api/sdk/conversations/{id}); null when none"),
  status: z.enum(SESSION_STATUSES),
  success: z.boolean().nullable(),
  failureReason: z.string().nullable(),
  estimatedCost: usd
    .nullable()
    .describe(
      "The run's cost, USD: what the client reported for the whole run (create, PATCH or an OpenTelemetry root span) when it did, else eventCost; null while neither is there (no cost reported, no model call and no event cost counted)",
    ),
  durationMs: z.number().nonnegative().nullable(),
  promptTokens: count
    .nullable()
    .describe(
      "What the client reported for the whole run when it did, else the sum of the counted events' usage.promptTokens; null while neither is there (no model call counted)",
    ),
  completionTokens: count.nullable().describe("As promptTokens, for completion tokens"),
  totalTokens: count
    .nullable()
    .describe(
      "As promptTokens, for total tokens (an event reporting promptTokens and completionTokens but no totalTokens adds their sum)",
    ),
  cacheReadTokens: count
    .nullable()
    .describe(
      "Sum of the counted events' usage.cacheReadTokens (part of promptTokens); null while no model call is counted",
    ),
  cacheWriteTokens: count.nullable().describe("As cacheReadTokens, for cache writes (part of promptTokens)"),
  reasoningTokens: count.nullable().describe("As cacheReadTokens, for reasoning tokens (part of completionTokens)"),
  modelCalls: count.describe("Model calls counted: events with a model or usage"),
  unpricedCalls: count.describe("Model calls counted whose cost could not be priced (costSource unpriced)"),
  customMetrics: z.record(z.string(), z.number()).nullable(),
  eventCount: count.describe(
    "Events counted so far (counted from the change stream, usually within a second of acknowledgement)",
  ),
  eventCost: usd.describe("Sum of the counted events' estimatedCost, maintained by the service, USD"),
  toolCalls: nonNegativeCounts.describe("`tool_call` events per tool name"),
  toolErrors: nonNegativeCounts.describe("`error` events per tool name"),
  countsAsOf: timestamp
    .nullable()
    .describe(
      "Acknowledgement time of the newest event counted into eventCount, eventCost, toolCalls and toolErrors; events acknowledged later may not be counted yet. Null until the first event is counted",
    ),
  createdAt: timestamp,
  updatedAt: timestamp,
  lastActivityAt: timestamp,
  completedAt: timestamp.nullable(),
  stale: z.boolean().describe("An active session without activity for longer than the stale threshold"),
});

/** A score as the API shows it (issue 33). */
export const scoreResponse = z.strictObject({
  id: id("score"),
  sessionId: id("session").nullable().describe("The session scored; null for a conversation's score"),
  eventId: id("event").nullable().describe("The event scored; null for a score of a whole session or a conversation"),
  conversationId: z.string().nullable().describe("The conversation scored; null for a session's score"),
  name: z.string(),
  value: z
    .union([z.number(), z.boolean(), z.string()])
    .describe("A number (numeric), true/false (boolean) or a label (categorical)"),
  valueKind: z.enum(SCORE_VALUE_KINDS),
  comment: z.string().nullable(),
  source: z.enum(SCORE_SOURCES),
  author: z
    .strictObject({ kind: z.enum(SCORE_AUTHOR_KINDS), id: z.string() })
    .describe(
      "Who gave the score: the API key's id, the signed-in user's id, or the feedback token's id (`fbt_…`) an end user posted it with",
    ),
  createdAt: timestamp,
  updatedAt: timestamp.describe("When the score was last written (a replacement by its id moves it)"),
});

/** A feedback token just minted (issue 33): hand `token` to the end user's browser. */
export const feedbackTokenResponse = z.strictObject({
  token: z
    .string()
    .describe("The feedback token (`atsf_…`): send it as `Authorization: Bearer <token>` to POST /api/public/feedback"),
  tokenId: z.string().describe("`fbt_` + a ULID: the `author.id` of the scores posted with the token"),
  expiresAt: timestamp.describe("When the token stops working"),
});

/** A score name's configuration (issue 33): what the values of scores of that name must be. */
export const scoreConfigResponse = z.strictObject({
  name: z.string().describe("The score name it governs (exact: names are case-sensitive)"),
  dataType: z.enum(SCORE_VALUE_KINDS).describe("The kind every score of this name must have"),
  min: z.number().optional().describe("Numeric: the lowest value allowed (absent: no lower bound)"),
  max: z.number().optional().describe("Numeric: the highest value allowed (absent: no upper bound)"),
  labels: z.array(z.string()).optional().describe("Categorical: the labels allowed (absent: any label)"),
  description: z.string().optional(),
  updatedAt: timestamp,
  updatedBy: z.string().describe("Who set it last: a user's name"),
});

/** 200 of GET /api/sdk/score-configs: by name. */
export const scoreConfigListResponse = z.strictObject({ items: z.array(scoreConfigResponse) });

/** 200 of GET /api/sdk/sessions/{id}/scores: oldest first. */
export const scorePageResponse = z.strictObject({
  items: z.array(scoreResponse),
  nextCursor: z.string().nullable().describe("Pass as `cursor` for the next page; null on the last page"),
});

/** The answer to a batch of scores: one result per score, in request order. */
export const scoreBatchResponse = z.strictObject({
  results: z.array(
    z.strictObject({
      index: z.int().min(0).describe("Position of the score in the request"),
      status: z.int().describe("201 when the score is stored, 200 when it replaced one; otherwise its error status"),
      id: id("score").optional().describe("The score id (201 and 200 only)"),
      error: z
        .lazy(() => errorResponse)
        .optional()
        .describe("Why the score was not stored"),
    }),
  ),
});

/** 200 of GET /api/sdk/sessions/{id}: the session as listed, with its first scores. */
export const sessionDetailResponse = sessionResponse.extend({
  scores: z.array(scoreResponse).describe("The session's first scores, oldest first (GET …/scores pages them all)"),
  scoresTruncated: z.boolean().describe("Whether the session has more scores than `scores` shows"),
});

/** 200 of GET /api/sdk/sessions: newest first. */
export const sessionPageResponse = z.strictObject({
  items: z.array(sessionResponse),
  nextCursor: z.string().nullable().describe("Pass as `cursor` for the next page; null on the last page"),
});

/** A conversation as its listing and its page show it. */
export const conversationResponse = z.strictObject({
  id: z.string().describe("The conversation id the runs named"),
  agentName: z.string().describe("The agent of its first run"),
  userId: z.string().describe("The external user of its first run"),
  startedAt: timestamp.describe("When its first run started"),
  lastRunAt: timestamp.describe("When its newest run started"),
  runCount: count.describe("Runs in the conversation (not deleted), counted with each run's start and deletion"),
});

/** 200 of GET /api/sdk/conversations: newest first. */
export const conversationPageResponse = z.strictObject({
  items: z.array(conversationResponse),
  nextCursor: z.string().nullable().describe("Pass as `cursor` for the next page; null on the last page"),
});

/** A score name's figures, as AgentStats and a conversation's totals show them. */
const scoreFigures = {
  count: count.describe("Scores counted (every kind)"),
  numeric: z
    .strictObject({
      count,
      mean: z.number().nullable(),
      p50: z.number().nullable(),
      p90: z.number().nullable(),
      p99: z.number().nullable(),
    })
    .nullable()
    .describe(
      "Numeric scores: mean (exact) and nearest-rank percentiles, each within 2 % of the exact one; null when none",
    ),
  boolean: z
    .strictObject({ count, trueCount: count, trueShare: z.number().min(0).max(1).nullable() })
    .nullable()
    .describe("Boolean scores: how many were true; null when none"),
  labels: z
    .array(z.strictObject({ label: z.string(), count }))
    .max(21)
    .describe("Categorical scores per label, most counted first: 20 labels per name and day, the rest as (other)"),
};

/** A conversation's totals: its runs' figures summed, each as the run shows it. */
export const conversationTotalsResponse = z.strictObject({
  runs: count.describe("Runs summed"),
  active: count,
  completed: count,
  failed: count,
  estimatedCost: usd.nullable().describe("Sum of the runs' estimatedCost; null while no run has one"),
  promptTokens: count.nullable().describe("Sum of the runs' promptTokens; null while no run has them"),
  completionTokens: count.nullable(),
  totalTokens: count.nullable(),
  modelCalls: count,
  eventCount: count,
  durationMs: z.number().nonnegative().nullable().describe("Sum of the durations the runs reported"),
  durationCount: count.describe("Runs that reported a duration"),
  complete: z
    .boolean()
    .describe("Whether every run is summed: false past the first 200 runs, which alone are summed then"),
  scores: z
    .array(z.strictObject({ name: z.string(), ...scoreFigures }))
    .max(50)
    .describe(
      "Per score name, most counted first (at most 50): the conversation's own scores and its first 20 runs' scores, at most 100 of each",
    ),
  scoresComplete: z
    .boolean()
    .describe(
      "Whether `scores` covers every score of the conversation and its runs: false past 20 runs, 100 scores of one of them or 50 names",
    ),
});

/** 200 of GET /api/sdk/conversations/{id}: the conversation, its runs oldest first, totals on the first page. */
export const conversationDetailResponse = conversationResponse.extend({
  scores: z
    .array(scoreResponse)
    .describe("The conversation's own first scores, oldest first (GET …/scores pages them all)"),
  scoresTruncated: z.boolean().describe("Whether the conversation has more scores than `scores` shows"),
  totals: conversationTotalsResponse.nullable().describe("On the first page (no cursor); null on later pages"),
  runs: z.array(sessionResponse).describe("A page of its runs in the order they started (its turns)"),
  nextCursor: z.string().nullable().describe("Pass as `cursor` for the next page of runs; null on the last page"),
});

/** 201 of POST /api/sdk/events. */
/** The answer to a batch: one result per event, in request order. */
export const eventBatchResponse = z.strictObject({
  results: z.array(
    z.strictObject({
      index: z.int().min(0).describe("Position of the event in the request"),
      status: z.int().describe("201 when the event is durably stored; otherwise its error status"),
      id: id("event").optional().describe("The event id (201 only)"),
      replayed: z.literal(true).optional().describe("Present when the event's idempotencyKey was already used for it"),
      error: z
        .lazy(() => errorResponse)
        .optional()
        .describe("Why the event was not stored"),
    }),
  ),
});

export const createdEventResponse = z.strictObject({
  id: id("event"),
  sessionId: id("session"),
  eventType: z.enum(EVENT_TYPES),
  toolName: z.string().nullable(),
  createdAt: timestamp,
});

/** An event as the read API shows it: the fields it was recorded with (absent ones left out). */
export const eventResponse = z.strictObject({
  id: id("event"),
  sessionId: id("session"),
  eventType: z.enum(EVENT_TYPES),
  toolName: z.string().optional(),
  toolInput: z.record(z.string(), z.unknown()).optional().describe("Left out with `fields=summary`"),
  toolOutput: z.record(z.string(), z.unknown()).optional().describe("Left out with `fields=summary`"),
  reasoning: z.string().optional(),
  toolInputUrl: z
    .url()
    .optional()
    .describe("Instead of `toolInput` when it is over 1 MiB: a presigned GET URL of its JSON, valid for 15 minutes"),
  toolInputBytes: z.int().positive().optional().describe("With `toolInputUrl`: the size of that JSON in bytes"),
  toolOutputUrl: z
    .url()
    .optional()
    .describe("Instead of `toolOutput` when it is over 1 MiB: a presigned GET URL of its JSON, valid for 15 minutes"),
  toolOutputBytes: z.int().positive().optional().describe("With `toolOutputUrl`: the size of that JSON in bytes"),
  reasoningUrl: z
    .url()
    .optional()
    .describe("Instead of `reasoning` when it is over 1 MiB: a presigned GET URL of the text, valid for 15 minutes"),
  reasoningBytes: z.int().positive().optional().describe("With `reasoningUrl`: the size of the text in bytes (UTF-8)"),
  alternativesConsidered: z.array(z.string()).optional(),
  confidence: z.number().min(0).max(1).optional(),
  estimatedCost: usd
    .nullable()
    .describe(
      "USD: the cost the client reported (costSource `reported`), else the service's price of the model call's usage; null when there is none",
    ),
  occurredAt: timestamp.optional().describe("When the client says it happened, when it said so"),
  durationMs: z
    .int()
    .min(0)
    .max(LIMITS.maxDurationMs)
    .nullable()
    .describe(
      "How long the call or step took, in milliseconds, from its start (`occurredAt`, else the id's time); null for an event recorded as a point in time",
    ),
  createdAt: timestamp,
  model: z
    .string()
    .nullable()
    .describe("The model the provider answered with (a model call's); null when none was sent"),
  usage: z
    .strictObject({
      promptTokens: count.optional().describe("Every input token, cached ones included"),
      completionTokens: count.optional().describe("Every output token, reasoning ones included"),
      totalTokens: count.optional(),
      cacheReadTokens: count.optional().describe("The part of promptTokens read from the prompt cache"),
      cacheWriteTokens: count.optional().describe("The part of promptTokens written to the prompt cache"),
      reasoningTokens: count.optional().describe("The part of completionTokens spent on reasoning"),
    })
    .nullable()
    .describe("The model call's token usage, the counts that were sent; null when none was"),
  costSource: z
    .enum(COST_SOURCES)
    .nullable()
    .describe(
      "Where estimatedCost comes from: `reported` (the client), `table` (the service's price table), `organisation` (the organisation's own price), `unpriced` (a model call no price matched: estimatedCost null); null for an event with neither a cost nor a model or usage",
    ),
  priceEffectiveFrom: day
    .nullable()
    .describe("The first day of the price applied (costSource `table` or `organisation`); null otherwise"),
});

/** 200 of GET /api/sdk/sessions/{id}/events: oldest first. */
export const eventPageResponse = z.strictObject({
  items: z.array(eventResponse),
  nextCursor: z.string().nullable().describe("Pass as `cursor` for the next page; null on the last page"),
});

const statsSummary = {
  sessions: count,
  completed: count,
  failed: count,
  successRate: z.number().min(0).max(1).nullable().describe("Succeeded ÷ ended sessions; null when none ended"),
  reportedCost: usd.describe("Sum of the sessions' reported estimatedCost"),
  eventCost: usd,
  events: count,
  promptTokens: count,
  completionTokens: count,
  totalTokens: count,
  durationMs: z
    .strictObject({
      p50: z.number().nonnegative().nullable(),
      p95: z.number().nonnegative().nullable(),
      p99: z.number().nonnegative().nullable(),
      mean: z.number().nullable(),
      precision: z
        .enum(["fine", "coarse"])
        .describe(
          "fine: each percentile is within 2 % of the exact (nearest-rank) one; coarse: the period holds durations " +
            "counted before the fine histogram existed, and each percentile is the upper bound of a coarse bucket",
        ),
    })
    .describe("Percentiles of the ended sessions' durationMs; null when no duration was reported"),
};

const stats = {
  from: day,
  to: day,
  totals: z.strictObject(statsSummary),
  days: z.array(z.strictObject({ day, ...statsSummary })).describe("Only the days with data"),
  topFailureReasons: z.array(z.strictObject({ reason: z.string(), count })).max(10),
  topToolsByCalls: z.array(z.strictObject({ toolName: z.string(), calls: count })).max(10),
  topToolsByErrors: z.array(z.strictObject({ toolName: z.string(), errors: count })).max(10),
};

const modelTally = {
  calls: count.describe("Model calls: events with a model or usage"),
  estimatedCost: usd.describe("Sum of the calls' estimatedCost (reported, or priced by the service)"),
  promptTokens: count.describe("Sum of the calls' usage.promptTokens (cached tokens included)"),
  completionTokens: count.describe("Sum of the calls' usage.completionTokens (reasoning tokens included)"),
  totalTokens: count.describe(
    "Sum of the calls' usage.totalTokens (promptTokens + completionTokens when not reported)",
  ),
  cacheReadTokens: count,
  cacheWriteTokens: count,
  reasoningTokens: count,
  unpricedCalls: count.describe("Calls whose cost could not be priced (costSource unpriced): their cost counts as 0"),
};

const models = {
  from: day,
  to: day,
  models: z
    .array(
      z.strictObject({
        model: z
          .string()
          .nullable()
          .describe(
            "The model as the events named it; `(other)` for a session's calls of models beyond its first 4; null for the calls without a model name (listed last)",
          ),
        ...modelTally,
      }),
    )
    .describe("Per model over the period, the most costly first (then the most calls, then by name)"),
  totals: z.strictObject(modelTally).describe("All model calls of the period"),
};

/** 200 of GET /api/sdk/agents/{agentName}/models. */
export const agentModelsResponse = z.strictObject({ agentName: z.string(), ...models });

/** 200 of GET /api/sdk/models: the organisation's model calls, the sum of its agents'. */
export const modelsResponse = z.strictObject({
  ...models,
  agentsWithoutStats: count.describe(
    "Agents left out of the sums (past the first 100 by sessions), as for GET /api/sdk/agents",
  ),
});

/** 200 of GET /api/sdk/agents: without a period, names and session counts; with one, figures too. */
export const agentListResponse = z.strictObject({
  items: z.array(
    z.strictObject({
      agentName: z.string(),
      sessionCount: count.describe("Sessions of the agent still kept, whatever the period"),
      totals: z
        .strictObject(statsSummary)
        .optional()
        .describe("With a period: the agent's totals over it (absent for agents past the first 100 by sessions)"),
      lastActiveDay: day
        .nullable()
        .optional()
        .describe("With a period: the last UTC day the agent started a session (null once its rollups expired)"),
    }),
  ),
  from: stats.from.optional(),
  to: stats.to.optional(),
  totals: stats.totals.optional().describe("With a period: the sum over the agents with figures"),
  days: stats.days.optional(),
  topFailureReasons: stats.topFailureReasons.optional(),
  topToolsByCalls: stats.topToolsByCalls.optional(),
  topToolsByErrors: stats.topToolsByErrors.optional(),
  agentsWithoutStats: count
    .optional()
    .describe(
      "With a period: agents listed without figures (beyond the first 100 by sessions), left out of the totals",
    ),
});

/** 200 of GET /api/sdk/agents/{agentName}/stats. */
export const agentStatsResponse = z.strictObject({
  agentName: z.string(),
  ...stats,
  scores: z
    .array(
      z.strictObject({
        name: z.string(),
        ...scoreFigures,
        days: z.array(z.strictObject({ day, ...scoreFigures })).describe("Only the days with scores"),
      }),
    )
    .max(50)
    .describe(
      "Per score name over the period (scores of the agent's sessions, by the session's start day), most counted first",
    ),
  scoresTruncated: z.boolean().describe("True when the agent has more than 50 score names in the period"),
});

/** 200 of GET /api/sdk/users/{userId}/stats. */
export const userStatsResponse = z.strictObject({ userId: z.string(), ...stats });

const deletionJobStatus = z
  .enum(["queued", "running", "completed", "completed_with_errors"] as const satisfies readonly DeletionJobStatus[])
  .describe("`completed_with_errors`: finished, but the sessions in `failures` could not be deleted");

/** 202 of DELETE /api/sdk/users/{userId}. */
export const deletionJobAcceptedResponse = z.strictObject({
  jobId: id("deletionJob"),
  status: deletionJobStatus,
});

/** 200 of GET /api/sdk/deletions/{jobId}. */
export const deletionJobResponse = z.strictObject({
  jobId: id("deletionJob"),
  userId: z.string(),
  status: deletionJobStatus,
  deletedSessions: count,
  deletedEvents: count,
  failedSessions: count.describe("Sessions that could not be deleted; the job went on with the others"),
  failures: z
    .array(z.strictObject({ sessionId: z.string(), message: z.string() }))
    .max(20)
    .describe("The first 20 sessions that could not be deleted, and why"),
  createdAt: timestamp,
  completedAt: timestamp.nullable(),
});

const scopes = z.array(z.enum(SCOPES));

/** A key as shown to signed-in users: never the secret, always its status. */
export const apiKeyResponse = z.strictObject({
  id: id("apiKey"),
  name: z.string(),
  hint: z.string().length(4).describe("The key's last four characters"),
  environment,
  scopes,
  createdAt: timestamp,
  createdBy: z.string(),
  lastUsedAt: timestamp.nullable().describe("Updated at most once a minute"),
  expiresAt: timestamp.nullable().describe("Set when the key was rotated: the end of its overlap"),
  revokedAt: timestamp.nullable(),
  rotatedFrom: id("apiKey").nullable().describe("The key this one replaced (a rotation made it)"),
  rotatedTo: id("apiKey").nullable().describe("The key that replaced this one (it was rotated)"),
  status: z.enum(["active", "expiring", "expired", "revoked"] as const satisfies readonly ApiKeyStatus[]),
});

/** 200 of GET /api/keys. */
export const apiKeyListResponse = z.strictObject({ items: z.array(apiKeyResponse) });

const createdApiKeyFields = {
  id: id("apiKey"),
  name: z.string(),
  key: z
    .string()
    .regex(/^ats_(live|test)_[0-9A-Za-z]{38}$/)
    .describe("The key itself: shown in this response only, never again"),
  hint: z.string().length(4),
  environment,
  scopes,
  createdAt: timestamp,
  createdBy: z.string(),
};

/** 201 of POST /api/keys: the only response that carries the key itself. */
export const createdApiKeyResponse = z.strictObject(createdApiKeyFields);

/** 201 of POST /api/keys/{id}/rotate: the new key, and the old one with its `expiresAt`. */
export const rotatedApiKeyResponse = z.strictObject({ ...createdApiKeyFields, rotatedFrom: apiKeyResponse });

/** 200 of GET /api/keys/{id}/audit: oldest first. */
export const apiKeyAuditResponse = z.strictObject({
  items: z.array(
    z.strictObject({
      id: id("audit"),
      keyId: id("apiKey"),
      action: z.enum(["key.created", "key.rotated", "key.revoked"] as const satisfies readonly AuditAction[]),
      actor: z.string().describe("Who acted: a user's name, or `operator CLI`"),
      actorId: z.string().nullable(),
      at: timestamp,
      details: z.record(z.string(), z.union([z.string(), z.number()])),
    }),
  ),
});

/** The organisation's deletion audit: who deleted which session, or asked to erase which user (issue 21). */
export const deletionAuditResponse = z.strictObject({
  items: z.array(
    z.strictObject({
      id: id("audit"),
      action: z.enum(["session.deleted", "user.erasure.requested"] as const satisfies readonly DeletionAction[]),
      environment: z.enum(ENVIRONMENTS),
      target: z.string().describe("The session deleted, or the external user whose data is erased"),
      actor: z.strictObject({
        kind: z.enum(["apiKey", "user"]),
        id: z.string().describe("The API key's id (`key_…`, never the key) or the signed-in user's id"),
      }),
      at: timestamp,
      jobId: z.string().nullable().describe("The erasure job an erasure request started"),
      deletedEvents: z.number().int().nullable().describe("The events deleted with a session"),
    }),
  ),
});

const role = z.enum(ROLES);

/** A member of an organisation. */
export const memberResponse = z.strictObject({
  userId: z.string().describe("The user's subject (`sub` of their access token)"),
  email: z.string(),
  role,
  createdAt: timestamp.describe("When they became a member"),
});

/** 200 of GET /api/members. */
export const memberListResponse = z.strictObject({ items: z.array(memberResponse) });

/** A pending invitation, as the organisation's owners see it (GET /api/invitations, 201 of POST). */
export const invitationResponse = z.strictObject({
  userId: z.string().describe("The invited person's user id (their user is found or created when invited)"),
  email: z.string().describe("Plain ASCII, in lower case"),
  role: role.describe("The role they get when they accept"),
  invitedBy: z.string().describe("The email of the owner who invited them"),
  createdAt: timestamp,
  expiresAt: timestamp.describe("After this, the invitation can no longer be accepted (7 days)"),
});

/** 200 of GET /api/invitations: pending invitations, oldest first. */
export const invitationListResponse = z.strictObject({ items: z.array(invitationResponse) });

/** 201 of POST /api/me/invitations/{orgId}/accept: the membership the invitation became. */
export const acceptedInvitationResponse = z.strictObject({
  orgId: z.string(),
  role,
  createdAt: timestamp.describe("When they became a member"),
});

/** 200 of GET /api/me: who the caller is, their organisations (sorted by id), and their pending invitations. */
export const meResponse = z.strictObject({
  userId: z.string(),
  email: z
    .string()
    .describe("As recorded in their memberships (or invitations); the token's username when they have none"),
  organisations: z.array(z.strictObject({ orgId: z.string(), role })),
  invitations: z
    .array(
      z.strictObject({
        orgId: z.string(),
        role: role.describe("The role they get when they accept"),
        invitedBy: z.string().describe("The email of the owner who invited them"),
        createdAt: timestamp,
        expiresAt: timestamp,
      }),
    )
    .describe(
      "Invitations waiting for their answer, oldest first: not organisations of theirs until accepted " +
        "(POST /api/me/invitations/{orgId}/accept)",
    ),
});

const rate = z.number().nonnegative().describe("USD per million tokens");
/** Rates of a price in USD per million tokens (functions/pricing/price-table.ts Rates), with long-prompt tiers. */
const priceRates = {
  input: rate,
  output: rate,
  cacheRead: rate.optional().describe("Cached prompt tokens read back; absent: they cost `input`"),
  cacheWrite: rate.optional().describe("Prompt tokens written to the cache; absent: they cost `input`"),
  reasoning: rate.optional().describe("Reasoning tokens, when billed apart; absent: they cost `output`"),
  tiers: z
    .array(
      z.strictObject({
        above: count.describe("When the prompt (cached tokens included) is above this many tokens…"),
        input: rate.optional(),
        output: rate.optional(),
        cacheRead: rate.optional(),
        cacheWrite: rate.optional(),
        reasoning: rate.optional(),
      }),
    )
    .optional()
    .describe("…the whole call takes the highest such tier's rates (rates it leaves out stay the base ones)"),
};
const priceRatesObject = z.strictObject(priceRates);

/** An organisation's own price of a model from a day on (200 of PUT /api/prices/{model}, items of GET /api/prices). */
export const organisationPriceResponse = z.strictObject({
  model: z.string().describe("Trimmed and lower-cased: matching ignores case"),
  effectiveFrom: day.describe("Calls from this UTC day on take this price, until a later price of the model"),
  ...priceRates,
  updatedAt: timestamp,
  updatedBy: z.string().describe("Who set it last: a user's name"),
});

/** 200 of GET /api/prices. */
export const organisationPriceListResponse = z.strictObject({
  items: z.array(organisationPriceResponse).describe("By model, then newest `effectiveFrom` first"),
  limits: z.strictObject({
    pricesPerOrganisation: count.describe("Most dated prices the organisation may hold"),
    pricesPerModel: count.describe("Most dated prices of one model"),
  }),
});

/** 200 of GET /api/prices/audit: the newest changes of the organisation's prices. */
export const priceAuditResponse = z.strictObject({
  items: z.array(
    z.strictObject({
      id: id("audit"),
      action: z.enum(["price.set", "price.deleted"]),
      model: z.string(),
      effectiveFrom: day,
      actor: z.string().describe("Who acted: a user's name"),
      actorId: z.string().nullable(),
      at: timestamp,
      before: priceRatesObject.nullable().describe("The rates before; null when the price was new"),
      after: priceRatesObject.nullable().describe("The rates after; null when the price was deleted"),
    }),
  ),
});

/** 200 of GET /api/prices/table: the price table shipped with the service (functions/pricing/model-prices.json). */
export const priceTableResponse = z.strictObject({
  sources: z.record(
    z.string(),
    z.strictObject({
      title: z.string(),
      url: z.string(),
      commit: z.string().optional(),
      asOf: day,
    }),
  ),
  items: z.array(
    z.strictObject({
      model: z.string(),
      provider: z.enum(["openai", "anthropic", "google", "mistral", "bedrock", "azure"]),
      effectiveFrom: day,
      source: z.string().describe("A key of `sources`"),
      ...priceRates,
    }),
  ),
});

/** 200 of GET /api/openapi.json: an OpenAPI 3.1 document. */
export const openApiDocumentResponse = z.looseObject({
  openapi: z.string().regex(/^3\.1\.\d+$/),
  info: z.looseObject({ title: z.string(), version: z.string() }),
  paths: z.record(z.string(), z.record(z.string(), z.unknown())),
});

/**
 * The response schemas by their names in the OpenAPI document (`components.schemas`): the document converts
 * this registry as a whole, so a schema nested in another (a Session in a SessionPage) becomes a `$ref`.
 * A response schema a route contract names (route-contracts.ts) must be here: the generator refuses one
 * without a name.
 */
export const responseComponents = z
  .registry<{ readonly id: string }>()
  .add(errorResponse, { id: "Error" })
  .add(createdSessionResponse, { id: "CreatedSession" })
  .add(updatedSessionResponse, { id: "UpdatedSession" })
  .add(sessionResponse, { id: "Session" })
  .add(sessionDetailResponse, { id: "SessionDetail" })
  .add(sessionPageResponse, { id: "SessionPage" })
  .add(conversationResponse, { id: "Conversation" })
  .add(conversationPageResponse, { id: "ConversationPage" })
  .add(conversationDetailResponse, { id: "ConversationDetail" })
  .add(scoreResponse, { id: "Score" })
  .add(feedbackTokenResponse, { id: "FeedbackToken" })
  .add(scorePageResponse, { id: "ScorePage" })
  .add(scoreConfigResponse, { id: "ScoreConfig" })
  .add(scoreConfigListResponse, { id: "ScoreConfigList" })
  .add(scoreBatchResponse, { id: "ScoreBatchResult" })
  .add(createdEventResponse, { id: "CreatedEvent" })
  .add(eventBatchResponse, { id: "EventBatchResult" })
  .add(eventResponse, { id: "Event" })
  .add(eventPageResponse, { id: "EventPage" })
  .add(agentListResponse, { id: "AgentList" })
  .add(agentStatsResponse, { id: "AgentStats" })
  .add(agentModelsResponse, { id: "AgentModels" })
  .add(modelsResponse, { id: "Models" })
  .add(userStatsResponse, { id: "UserStats" })
  .add(metricsResponse, { id: "Metrics" })
  .add(deletionJobAcceptedResponse, { id: "DeletionJobAccepted" })
  .add(deletionJobResponse, { id: "DeletionJob" })
  .add(apiKeyResponse, { id: "ApiKey" })
  .add(apiKeyListResponse, { id: "ApiKeyList" })
  .add(createdApiKeyResponse, { id: "CreatedApiKey" })
  .add(rotatedApiKeyResponse, { id: "RotatedApiKey" })
  .add(apiKeyAuditResponse, { id: "ApiKeyAudit" })
  .add(deletionAuditResponse, { id: "DeletionAudit" })
  .add(exportRunListResponse, { id: "ExportRunList" })
  .add(memberResponse, { id: "Member" })
  .add(memberListResponse, { id: "MemberList" })
  .add(invitationResponse, { id: "Invitation" })
  .add(invitationListResponse, { id: "InvitationList" })
  .add(acceptedInvitationResponse, { id: "AcceptedInvitation" })
  .add(meResponse, { id: "Me" })
  .add(openApiDocumentResponse, { id: "OpenApiDocument" })
  .add(exportTraceServiceResponse, { id: "ExportTraceServiceResponse" })
  .add(exportLogsServiceResponse, { id: "ExportLogsServiceResponse" })
  .add(organisationPriceResponse, { id: "OrganisationPrice" })
  .add(organisationPriceListResponse, { id: "OrganisationPriceList" })
  .add(priceAuditResponse, { id: "PriceAudit" })
  .add(priceTableResponse, { id: "PriceTable" })
  .add(monitorResponse, { id: "Monitor" })
  .add(monitorListResponse, { id: "MonitorList" })
  .add(monitorHistoryResponse, { id: "MonitorHistory" })
  .add(monitorTestResponse, { id: "MonitorTest" })
  .add(monitorPreviewResponse, { id: "MonitorPreview" })
  .add(alertAuditResponse, { id: "AlertAudit" })
  .add(alertDestinationResponse, { id: "AlertDestination" })
  .add(createdAlertDestinationResponse, { id: "CreatedAlertDestination" })
  .add(alertDestinationListResponse, { id: "AlertDestinationList" })
  .add(rotatedSecretResponse, { id: "RotatedSigningSecret" })
  .add(destinationTestResponse, { id: "DestinationTestResult" });
