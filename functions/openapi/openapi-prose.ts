/**
 * The words of the OpenAPI document: what the route table, the contracts (schemas/route-contracts.ts) and
 * the schemas cannot say — each operation's summary and description, what its parameters mean, why each of
 * its own errors happens. Typed by the contracts: a query parameter, a body, an error or a path parameter
 * kind without its words does not compile, and neither do words for a field the schema lacks.
 */
import type * as z from "zod";
import { DESTINATION_LIMITS } from "../domain/alert-destination.js";
import { ROTATION_OVERLAP } from "../domain/api-key-record.js";
import { INVITATION_LIFETIME_DAYS, INVITATIONS_PER_DAY } from "../domain/invitation.js";
import { LIMITS } from "../domain/limits.js";
import type { RouteId } from "../route-table.js";
import type { PATH_PARAMETERS, PathParameterKind, RawMediaType, RouteContracts } from "../schemas/route-contracts.js";
import { ORGANISATION_PRICE_CACHE, ORGANISATION_PRICE_LIMITS as PRICE } from "../store/prices/price-limits.js";

export const TAGS = {
  Sessions: "Agent runs: start, update, read, list and delete sessions (API key).",
  Events: "What an agent did within a session: tool calls, decisions, state changes, errors (API key).",
  Scores:
    "Verdicts on a session or one of its events: a name and a numeric, boolean or categorical value, from an " +
    "evaluator, a person or the agent's own code (API key with `scores:write`, or a signed-in member).",
  Conversations:
    "A chat agent's conversation is many runs: sessions that named the same `conversationId`, listed and read " +
    "with their runs in order and their totals (API key, or a signed-in member).",
  Analytics: "Per-agent and per-user totals and daily series, from rollups (API key).",
  Feedback:
    "End users' scores from a browser: the agent's backend mints a short-lived feedback token bound to one session " +
    "(API key with `scores:write`); the browser posts a score with it, and can do nothing else (docs/api.md).",
  "Data deletion": "Erasure of an external user's data (API key with the `delete` scope).",
  "API keys": "Key management for signed-in users of an organisation (access token).",
  Members:
    "Who belongs to an organisation, with which role; invitations, which make a person a member only once they " +
    "accept; and who the caller is (access token).",
  OpenTelemetry:
    "OTLP/HTTP receivers: point an OpenTelemetry exporter at `<base>/api/otel` with an API key (docs/otel.md).",
  Prices:
    "The organisation's own model prices (fine-tuned, self-hosted or negotiated models), checked before the price " +
    "table shipped with the service; their audit; and that table (access token).",
  Alerts:
    "Monitors of an organisation's environment (`X-Environment`): a figure over a sliding window compared with a " +
    "warning and an alert threshold, evaluated every minute, their history and audit (docs/alerts.md); and where " +
    "they send their notifications: destinations (a signed webhook, a Slack incoming webhook, the stack's " +
    "EventBridge bus), their tests and signing secrets (docs/alert-destinations.md). Access token.",
  Export:
    "The deployment's analytics export: an organisation's committed runs and presigned downloads of its Parquet " +
    "files (access token, admins and owners; docs/export.md).",
  "API description": "This document.",
} as const;
export type TagName = keyof typeof TAGS;

export interface ParameterDoc {
  readonly description: string;
  readonly example?: string;
}

/** Why an error happens; `message`: an example of what the body's `message` then says. */
export interface ErrorDoc {
  readonly reason: string;
  readonly message?: string;
}

type Contract<Id extends RouteId> = RouteContracts[Id];
type QueryOf<Id extends RouteId> = Contract<Id> extends { readonly query: infer Q extends z.core.$ZodType } ? Q : never;
type BodyOf<Id extends RouteId> =
  Contract<Id> extends { readonly body: { readonly schema: infer B extends z.core.$ZodType } } ? B : never;
type ErrorsOf<Id extends RouteId> =
  Contract<Id> extends { readonly errors: readonly (infer S extends number)[] } ? S : never;
type RawOf<Id extends RouteId> =
  Contract<Id> extends { readonly success: { readonly raw: readonly (infer M)[] } } ? M : never;

/** The words of one operation, shaped by its contract. */
export type OperationProse<Id extends RouteId> = {
  readonly summary: string;
  readonly description: string;
  readonly tag: TagName;
  /** What the success response is. */
  readonly success: string;
} & ([QueryOf<Id>] extends [never]
  ? { readonly query?: never }
  : {
      readonly query: {
        /** Every parameter of the query schema. */
        readonly parameters: { readonly [Name in keyof z.input<QueryOf<Id>> & string]-?: ParameterDoc };
        /** Rules across parameters (zod `superRefine`s), in words. */
        readonly rules?: string;
      };
    }) &
  ([BodyOf<Id>] extends [never]
    ? { readonly body?: never }
    : {
        readonly body: {
          /** Rules across fields (`superRefine`s), defaults, in words. */
          readonly description: string;
          /** Words on a field beyond its schema. */
          readonly fields?: { readonly [Name in keyof z.input<BodyOf<Id>>]?: string };
        };
      }) &
  ([ErrorsOf<Id>] extends [never] ? { readonly errors?: never } : { readonly errors: Record<ErrorsOf<Id>, ErrorDoc> }) &
  ([RawOf<Id>] extends [never]
    ? { readonly media?: never }
    : { readonly media: Record<RawOf<Id> & RawMediaType, string> });

type KindErrors<Kind extends PathParameterKind> = (typeof PATH_PARAMETERS)[Kind]["errors"][number];

/** The words of a kind of path parameter, and of each error an unknown or invalid value answers with. */
export type PathParameterProse = {
  readonly [Kind in PathParameterKind]: ParameterDoc & { readonly errors: Record<KindErrors<Kind>, ErrorDoc> };
};

const SESSION_ID = "ses_01KAZ3X8Q9M4T7V2N6P5R1S0WE";

export const PATH_PARAMETER_PROSE: PathParameterProse = {
  sessionId: {
    description: "A session id (`ses_…`); any other id is 404.",
    example: SESSION_ID,
    errors: {
      403: {
        reason: "The session belongs to another organisation or environment; nothing is changed.",
        message: `This API key has no access to session ${SESSION_ID}`,
      },
      404: {
        reason: "Unknown (or expired) session id, or not a `ses_` id.",
        message: `Session ${SESSION_ID} not found`,
      },
    },
  },
  conversationId: {
    description: "A conversation id, as the runs named it (URL-encoded).",
    example: "chat-7f3a",
    errors: {
      400: {
        reason: `Empty, longer than ${LIMITS.nameLength} characters, or not valid Unicode.`,
        message: `Invalid id in the path: must be 1 to ${LIMITS.nameLength} characters`,
      },
      404: {
        reason:
          "No run of the key's organisation and environment names this conversation (never, expired, every run " +
          "deleted, or only another organisation's or environment's: not said which).",
        message: "Conversation chat-7f3a not found",
      },
    },
  },
  eventId: {
    description: "An event id (`evt_…`) of the session.",
    example: "evt_01KAZ3Y0A1B2C3D4E5F6G7H8J9",
    errors: {},
  },
  scoreId: {
    description: "A score id (`scr_…`) of the session.",
    example: "scr_01KAZ3XB1C2D3E4F5G6H7J8K9M",
    errors: {
      404: {
        reason: "The session holds no such score (never written, deleted, or not a `scr_` id).",
        message: `Score scr_01KAZ3XB1C2D3E4F5G6H7J8K9M not found in session ${SESSION_ID}`,
      },
    },
  },
  eventField: {
    description: "`toolInput`, `toolOutput` or `reasoning`.",
    example: "toolOutput",
    errors: {
      400: {
        reason: "The field is not one of `toolInput`, `toolOutput`, `reasoning`.",
        message: "Invalid field in the path: toolInput, toolOutput, reasoning are served",
      },
    },
  },
  agentName: {
    description: "The agent's name (URL-encoded).",
    example: "support-bot",
    errors: {
      400: {
        reason: `The name is empty, longer than ${LIMITS.nameLength} characters or not well-formed Unicode.`,
        message: `Invalid agentName in the path: must be 1 to ${LIMITS.nameLength} characters`,
      },
    },
  },
  externalUserId: {
    description: "Your external user id (URL-encoded).",
    example: "customer-42",
    errors: {
      400: {
        reason: `The id is empty, longer than ${LIMITS.nameLength} characters or not well-formed Unicode.`,
        message: `Invalid userId in the path: must be 1 to ${LIMITS.nameLength} characters`,
      },
    },
  },
  deletionJobId: {
    description: "The job id (`del_…`) from the erasure request.",
    example: "del_01KAZ6A1B2C3D4E5F6G7H8J9KM",
    errors: {
      404: {
        reason: "Unknown job id, or a job of another organisation or environment.",
        message: "Deletion job del_01KAZ6A1B2C3D4E5F6G7H8J9KM not found",
      },
    },
  },
  apiKeyId: {
    description: "An API key id (`key_…`) of the caller's organisation.",
    example: "key_01KAZ2R4M7N8P9Q0R1S2T3V4WX",
    errors: {
      404: {
        reason: "Unknown key id, or a key of another organisation.",
        message: "API key key_01KAZ2R4M7N8P9Q0R1S2T3V4WX not found",
      },
    },
  },
  memberUserId: {
    description: "A member's user id (the `userId` of GET /api/members).",
    example: "8e2d4c6a-1b3f-4a5e-9c7d-0f2e4a6c8b13",
    errors: {
      404: {
        reason: "The user is not a member of the organisation.",
        message: "User 8e2d4c6a-1b3f-4a5e-9c7d-0f2e4a6c8b13 is not a member of organisation acme",
      },
    },
  },
  invitedUserId: {
    description: "The invited person's user id (the `userId` of GET /api/invitations).",
    example: "8e2d4c6a-1b3f-4a5e-9c7d-0f2e4a6c8b13",
    errors: {
      404: {
        reason: "The user has no pending invitation to the organisation (none, answered, revoked or expired).",
        message: "User 8e2d4c6a-1b3f-4a5e-9c7d-0f2e4a6c8b13 has no pending invitation to organisation acme",
      },
    },
  },
  invitingOrganisation: {
    description: "The organisation of the invitation (the `orgId` of an invitation in GET /api/me).",
    example: "acme",
    errors: {
      404: {
        reason: "The user has no pending invitation to the organisation (none, answered, revoked, or it expired).",
        message: "You have no pending invitation to organisation acme",
      },
    },
  },
  scoreName: {
    description: "A score name exactly as scores carry it (case-sensitive), URL-encoded.",
    example: "resolution",
    errors: {
      400: {
        reason: "The name is empty, longer than 200 characters or not well-formed Unicode.",
        message: "Invalid score name in the path: must be a score name of 1 to 200 characters",
      },
    },
  },
  monitorId: {
    description: "A monitor id (`mon_…`) of the caller's organisation and environment.",
    example: "mon_01KAZ2S0A1B2C3D4E5F6G7H8J9",
    errors: {
      404: {
        reason:
          "No such monitor in the organisation and environment of the request (never, deleted, or another " +
          "organisation's or environment's: not said which), or not a `mon_` id.",
        message: "No monitor mon_01KAZ2S0A1B2C3D4E5F6G7H8J9 in this organisation and environment",
      },
    },
  },
  modelName: {
    description:
      "A model name as your calls send it, URL-encoded (a `/` as `%2F`); trimmed and lower-cased, since matching " +
      "ignores case.",
    example: "ft%3Agpt-4o-mini%3Aacme%3Asupport%3A9x8y7z",
    errors: {
      400: {
        reason: `The name is empty, longer than ${PRICE.modelLength} characters (${PRICE.modelBytes} bytes of UTF-8), holds control characters or is not well-formed Unicode.`,
        message: `Invalid model in the path: must be 1 to ${PRICE.modelLength} characters (at most ${PRICE.modelBytes} bytes of utf-8), without control characters`,
      },
    },
  },
  alertDestinationId: {
    description: "An alert destination id (`dst_…`).",
    example: "dst_01KAZ4B6C8D0E2F4G6H8J0K2M4",
    errors: {
      404: {
        reason: "The organisation has no destination of that id (another organisation's is not found either).",
        message: "No destination dst_01KAZ4B6C8D0E2F4G6H8J0K2M4 in organisation acme",
      },
    },
  },
};

const ENVIRONMENT_HEADER: ErrorDoc = {
  reason: "`X-Environment` is neither `live` nor `test`.",
  message: "Invalid X-Environment header: must be live or test",
};
const MONITOR_CHANGED: ErrorDoc = {
  reason: "The monitor kept changing (evaluations or other requests) during the request.",
  message: "Monitor mon_01KAZ2S0A1B2C3D4E5F6G7H8J9 was changed by another request; reload it and retry",
};
const MONITOR_BODY =
  "The whole definition. Filters: `tool` only with (and required by) `tool_failure_rate`; `score` required by " +
  "`score_mean` and `label_share`, `label` by `label_share`; `model` only with `cost` and `tokens`; `user` with the " +
  "session metrics; at most one of user, model, tool, score; `agent` with any. Thresholds: percentages 0–100 for " +
  "rates and shares, 0 or more for counts, cost (USD) and durations (ms), any sign for `score_mean`; " +
  "`warningThreshold` on the near side of `alertThreshold` (below it when the comparison is `above`). " +
  "`windowMinutes` 5 to 10080, a multiple of 5; `renotifyMinutes` 0 (never) or 5 to 1440; `destinationIds` at " +
  "most 5, each an existing destination of the organisation.";

const FOREIGN_SESSION = PATH_PARAMETER_PROSE.sessionId.errors[403];
const SESSION_NOT_FOUND = PATH_PARAMETER_PROSE.sessionId.errors[404];
const LAST_OWNER: ErrorDoc = {
  reason:
    "The change would leave the organisation without an owner (make another member owner first), or the " +
    "members kept changing during the request.",
  message:
    "This is the last owner of organisation acme: make another member owner first (an organisation always keeps an owner)",
};
const CURSOR: ParameterDoc = { description: "The `nextCursor` of the previous page (opaque, signed)." };
const LIMIT: ParameterDoc = { description: "Page size: an integer from 1 to 100 (default 50).", example: "20" };
const STATS_QUERY = {
  parameters: {
    from: {
      description: "First UTC day (YYYY-MM-DD, or a timestamp whose day is used). Default: 29 days before `to`.",
      example: "2026-11-01",
    },
    to: { description: "Last UTC day, inclusive (YYYY-MM-DD or a timestamp). Default: today.", example: "2026-11-22" },
  },
  rules: "`from` must not be after `to`, and a period covers at most 366 days.",
} as const;
const OPTIONAL_NULL = "Optional fields may be `null` (= not sent). Unknown fields are rejected.";
const EXPORT_RETRY: ErrorDoc = {
  reason:
    "The service could not store the export now (a dependency failed, writes kept conflicting, the request " +
    "ran out of time): retry after `Retry-After` seconds, as OTLP exporters do; a retry stores nothing twice.",
  message: "The export could not be stored now; retry after the Retry-After delay",
};

/** What a trace export answers, at either of its paths (ExportTraces, ExportLangfuseTraces). */
const TRACE_EXPORT_ANSWERS = {
  success:
    "An ExportTraceServiceResponse: `{}` when every span was accepted, else `partialSuccess` with the count " +
    "of refused spans and why. An exporter must not retry a 200.",
  errors: {
    400: {
      reason:
        "The body does not decode (not a protobuf ExportTraceServiceRequest, not JSON, empty JSON, not valid " +
        `gzip), its envelope is not an ExportTraceServiceRequest, or it holds more than ${LIMITS.otlpSpans} spans, ` +
        `${LIMITS.otlpAttributes} attributes or ${LIMITS.otlpValues} values (counted while it is decoded); nothing is stored.`,
      message: "Not an OTLP ExportTraceServiceRequest: resourceSpans must be an array",
    },
    415: {
      reason: "`Content-Type` is neither `application/x-protobuf` nor `application/json`.",
      message: "Send OTLP traces as Content-Type: application/x-protobuf or application/json (OTLP/HTTP)",
    },
    503: EXPORT_RETRY,
  },
} as const;

/** The words of every operation: a route without them does not compile. */
export const OPERATION_PROSE: { readonly [Id in RouteId]: OperationProse<Id> } = {
  CreateSession: {
    summary: "Start a session",
    description:
      "Starts a session for one agent run, in the organisation and environment of the API key. An SDK that starts " +
      "a run while the service is unreachable sends its own `id` and `startedAt` and delivers the start later: " +
      "repeating a start with the same `id`, `name`, `agentName`, `userId` (and `startedAt`, if sent) is an " +
      "idempotent 201 with the stored session; any other use of a taken id is 409 and changes nothing.",
    tag: "Sessions",
    success: "The session, active.",
    body: {
      description: `Start a session. ${OPTIONAL_NULL}`,
      fields: {
        id:
          "A client-generated session id in the service's own format (`ses_` + a ULID), for a run started while " +
          "the service was unreachable. Unsent: the service assigns one.",
        startedAt:
          `When the run started (stored in UTC); at most ${LIMITS.occurredAtFutureMs / 60_000} minutes ahead, not ` +
          "older than the organisation's retention. Becomes the session's `createdAt` (listings, filters, the day " +
          "its stats count it on). Unsent: now.",
      },
    },
    errors: {
      409: {
        reason:
          "The `id` is taken by a session with other fields, or of another organisation or environment (not said " +
          "which); nothing is changed.",
        message:
          `A session with this id already exists (${SESSION_ID}); a retry must send the same name, ` +
          "agentName, userId and startedAt",
      },
    },
  },
  UpdateSession: {
    summary: "Update a session",
    description:
      "Records progress or the final outcome. A session in a final state (`completed`, `failed`) never changes " +
      "again: an identical repeat of its final update is an idempotent 200 with the stored values, anything else 409. " +
      "An SDK that delivers a run's end late sends when it ended as `completedAt` (with the final `status`); " +
      "unsent, `completedAt` is the time the final update arrives. " +
      "Fields the session does not have yet are `null` in the response.",
    tag: "Sessions",
    success: "The session after the update.",
    body: {
      description:
        "Every field is optional, but at least one must be sent; `null` means not sent. `success` defaults to true " +
        "on `completed` and false on `failed`; `failed` with `success: true` is rejected. Unknown fields are rejected.",
      fields: {
        completedAt:
          "When the run ended (stored in UTC), for an end delivered after it happened; only with a final `status`. " +
          `Not before the session's \`createdAt\`, at most ${LIMITS.occurredAtFutureMs / 60_000} minutes ahead, not ` +
          "older than the organisation's retention. Becomes the session's `completedAt` (`updatedAt` and " +
          "`lastActivityAt` stay the service's time). A repeat of the final update may send the stored value; " +
          "another value on an ended session is 409. Unsent: now.",
        customMetrics: `Metric name (1–${LIMITS.metricNameLength} characters) → finite number; at most ${LIMITS.customMetricCount} metrics.`,
      },
    },
    errors: {
      409: {
        reason: "The session is already completed or failed (or changed concurrently; retry).",
        message: `Session ${SESSION_ID} is already completed and cannot be changed; only an identical repeat of its final update is accepted`,
      },
    },
  },
  CreateEvent: {
    summary: "Record an event",
    description:
      "Records a tool call, decision, state change or error against a session of the key's organisation and " +
      "environment. The session's `eventCount` and `eventCost` change in the same transaction. Sessions that " +
      "already ended still accept events (a late flush is not lost).",
    tag: "Events",
    success: "The event.",
    body: {
      description: `Record an event. ${OPTIONAL_NULL}`,
      fields: {
        durationMs:
          `How long the call or step took, in whole milliseconds (0 to ${LIMITS.maxDurationMs}, one year), counted ` +
          "from `occurredAt` (its start): the console draws the event as a bar of that length. Unsent: the event is " +
          "a point in time.",
      },
    },
    errors: {
      403: FOREIGN_SESSION,
      404: SESSION_NOT_FOUND,
      409: {
        reason: "The session kept changing while the event was recorded; retry.",
        message: `Session ${SESSION_ID} kept changing while the event was recorded; retry the request`,
      },
    },
  },
  CreateEventBatch: {
    summary: "Record a batch of events",
    description:
      "Up to 100 events, each validated and authorised on its own: valid events are stored even when others fail. " +
      "Each result is 201 with the event id only once the event is durably written (events of one session are " +
      "written in transactions with the session's counters). An event's own `idempotencyKey` makes its retry a replay.",
    tag: "Events",
    success: "One result per event, in request order.",
    body: {
      description: `Up to ${LIMITS.batchEvents} events. Each event is validated and authorised on its own.`,
    },
  },
  CreateScore: {
    summary: "Record a score",
    description:
      "Records a verdict on a session of the caller's organisation and environment (with `eventId`, on one event " +
      "of it), or with `conversationId` on a conversation: exactly one of `sessionId` and `conversationId`. A `name` " +
      "and a `value` whose JSON type is its kind (a finite number, `true`/`false`, or a label). Sessions that ended " +
      "accept scores. With the `id` of an existing score of the target the score is replaced (200; a retry or an " +
      "edit is never a second score), keeping its `createdAt`. A session or conversation holds at most " +
      `${LIMITS.scoresPerTarget} scores. Scores are deleted with their target and expire with it.`,
    tag: "Scores",
    success: "The score: 201 when stored, 200 when it replaced the score of the same `id`.",
    body: {
      description: `One score. ${OPTIONAL_NULL}`,
      fields: {
        id: "Your own id (`scr_` + ULID): sending it again replaces that score.",
        sessionId: "The session scored (`ses_…`); send it or `conversationId`, not both (400).",
        conversationId:
          "The conversation scored (the id its runs named; 404 when the caller's tenant has none with runs left).",
        eventId:
          "An event (`evt_…`) of the session: the score is that event's (404 when the session has no such event; " +
          "400 with `conversationId`).",
        name: `What is judged: 1 to ${LIMITS.scoreNameLength} characters, any characters.`,
        value: `A finite number (at most ${LIMITS.maxScoreMagnitude} in magnitude), \`true\`/\`false\`, or a label of 1 to ${LIMITS.scoreLabelLength} characters.`,
        dataType: "`numeric`, `boolean` or `categorical`: when sent, `value` must be of that kind (400 otherwise).",
        comment: `Up to ${LIMITS.scoreCommentLength} characters.`,
        source:
          "Who judged: `api` (default for API keys), `sdk`, `console` (default for signed-in users), `end_user`, `evaluator`.",
      },
    },
    errors: {
      403: FOREIGN_SESSION,
      404: {
        reason:
          "Unknown, expired or deleted session, an `eventId` that is not an event of the session, or a conversation " +
          "unknown in the caller's tenant (or with every run deleted).",
        message: `Session ${SESSION_ID} not found`,
      },
      409: {
        reason:
          `The \`id\` names an item that is not a score of this target and tenant, or the target already holds ${LIMITS.scoresPerTarget} ` +
          "scores (delete one, or replace one by its `id`).",
        message: "Score scr_01KAZ3XB1C2D3E4F5G6H7J8K9M cannot be written: its id is taken",
      },
    },
  },
  CreateFeedbackToken: {
    summary: "Mint an end-user feedback token",
    description:
      "A short-lived token your backend hands to an end user's browser, bound to one session of the key's " +
      "organisation and environment (and, with `eventId`, one event of it; with `names`, those score names only). " +
      "The browser posts a score with it (POST /api/public/feedback) and can do nothing else. Stateless: minting " +
      "stores nothing, and a token cannot be revoked before it expires — keep lifetimes short.",
    tag: "Feedback",
    success: "The token, its id (the author of the scores posted with it) and when it expires.",
    body: {
      description: `The session (and event) the token is bound to. ${OPTIONAL_NULL}`,
      fields: {
        eventId: "An event (`evt_…`) of the session: scores posted with the token are that event's.",
        expiresInSeconds: `Lifetime in seconds: ${LIMITS.feedbackTokenDefaultSeconds} when absent, at most ${LIMITS.feedbackTokenMaxSeconds}.`,
        names: `The score names the token may write (1 to ${LIMITS.feedbackTokenNames}); absent: any name.`,
      },
    },
    errors: {
      403: FOREIGN_SESSION,
      404: {
        reason: "Unknown, expired or deleted session, or an `eventId` that is not an event of the session.",
        message: `Session ${SESSION_ID} not found`,
      },
    },
  },
  PostFeedback: {
    summary: "Post an end user's score with a feedback token",
    description:
      "Called from a browser with `Authorization: Bearer atsf_…` (a feedback token; API keys and access tokens are " +
      "refused): one score on the token's session (and event) — never one the body names —, with source " +
      '`end_user` and author `{ kind: "feedbackToken", id: "fbt_…" }`. Score configurations apply. The one route ' +
      "that answers cross-origin requests (CORS: any origin, no credentials). Each token may post " +
      `${LIMITS.feedbackTokenPostsPerMinute} scores a minute.`,
    tag: "Feedback",
    success: "The score stored.",
    body: {
      description: `The score; the session and event are the token's. ${OPTIONAL_NULL}`,
      fields: {
        name: `What is judged (e.g. "thumbs"): 1 to ${LIMITS.scoreNameLength} characters, one of the token's \`names\` when it has some.`,
        value: `A finite number, \`true\`/\`false\`, or a label of 1 to ${LIMITS.scoreLabelLength} characters.`,
        comment: `Up to ${LIMITS.scoreCommentLength} characters.`,
      },
    },
    errors: {
      403: {
        reason: "The token does not allow a score of this name.",
        message: 'This feedback token may not write a score named "helpfulness"',
      },
      404: {
        reason: "The token's session (or event) has since been deleted or has expired.",
        message: `Session ${SESSION_ID} not found`,
      },
    },
  },
  FeedbackPreflight: {
    summary: "CORS preflight of the feedback route",
    description:
      "Answers a browser's preflight of POST /api/public/feedback: any origin, methods `POST, OPTIONS`, headers " +
      "`authorization, content-type`, no credentials. Public. No other route answers cross-origin requests.",
    tag: "Feedback",
    success: "No content; the `Access-Control-*` headers.",
  },
  CreateScoreBatch: {
    summary: "Record a batch of scores",
    description:
      `Up to ${LIMITS.batchScores} scores, each validated and authorised on its own: valid scores are stored even ` +
      "when others fail. Each result is 201 (stored) or 200 (replaced the score of its `id`) with the score id, or " +
      "the score's own error. With an `Idempotency-Key`, a score without `id` gets one fixed by the key and its " +
      "position, so a retry after a server error stores nothing twice.",
    tag: "Scores",
    success: "One result per score, in request order.",
    body: { description: `Up to ${LIMITS.batchScores} scores as in CreateScoreRequest.` },
  },
  ExportTraces: {
    summary: "Export OTLP traces",
    description:
      "The OTLP/HTTP trace receiver: set an OpenTelemetry SDK's or Collector's exporter to " +
      "`OTEL_EXPORTER_OTLP_ENDPOINT=<base>/api/otel` with `OTEL_EXPORTER_OTLP_HEADERS=Authorization=Bearer <API key>`. " +
      "Takes an ExportTraceServiceRequest (https://opentelemetry.io/docs/specs/otlp/#otlphttp) as " +
      "`application/x-protobuf` or `application/json` (the OTLP JSON mapping), `Content-Encoding: gzip` allowed, " +
      `at most ${LIMITS.otlpSpans} spans of at most ${LIMITS.otlpTraces} traces (one rate-limit request per trace). ` +
      "Each trace becomes a session of the key's organisation and environment, its GenAI spans — under the " +
      "GenAI semantic conventions, OpenInference, OpenLLMetry/Traceloop or the Vercel AI SDK's own shapes — " +
      "events keyed by their span id, so an exporter's retry stores nothing twice (no `Idempotency-Key`); " +
      "the agent and user come from whichever span names them, the root span ends the session (docs/otel.md). " +
      "Spans that cannot be read or stored, and those of traces past the limit, are refused one by one and " +
      "counted in `partialSuccess` of a 200; the answer is in the request's encoding.",
    tag: "OpenTelemetry",
    ...TRACE_EXPORT_ANSWERS,
  },
  ExportLangfuseTraces: {
    summary: "Export OTLP traces (Langfuse's path)",
    description:
      "The same trace receiver as `POST /api/otel/v1/traces`, at the path Langfuse's exporters post to " +
      "(`@langfuse/otel`'s LangfuseSpanProcessor and the Python SDK v3 append it to their base URL): point " +
      "`LANGFUSE_BASE_URL` (`baseUrl`) at ats and set the secret key to an ats API key. Besides " +
      "`Authorization: Bearer <API key>`, this route alone takes `Authorization: Basic base64(<public key>:<API key>)`: " +
      "the password is the API key, the user name is ignored (docs/langfuse-migration.md). Langfuse's " +
      "`langfuse.*` attributes are read as their own dialect (docs/otel.md).",
    tag: "OpenTelemetry",
    ...TRACE_EXPORT_ANSWERS,
  },
  ExportLogs: {
    summary: "Export OTLP logs",
    description:
      "The OTLP/HTTP log receiver (same `OTEL_EXPORTER_OTLP_ENDPOINT` and headers as traces): takes an " +
      "ExportLogsServiceRequest as `application/x-protobuf` or `application/json`, `Content-Encoding: gzip` " +
      `allowed, at most ${LIMITS.otlpLogRecords} log records. GenAI event log records (the messages of a model ` +
      "call that instrumentations such as `@opentelemetry/instrumentation-openai` emit apart from its span) join " +
      "the `llm_decision` of their span by trace and span id, whichever arrives first; every other record, and " +
      `every record past what its span keeps (${LIMITS.otlpLogRecordsPerSpan} records, ` +
      `${LIMITS.otlpLogBytesPerSpan / 1024 / 1024} MiB of messages, across exports) or past what one export may ` +
      `read back to rebuild its calls' events (${LIMITS.otlpLogRebuildBytesPerExport / 1024 / 1024} MiB of records), is refused on its own in ` +
      "`partialSuccess` of a 200 — never a 4xx for the whole export (docs/otel.md).",
    tag: "OpenTelemetry",
    success:
      "An ExportLogsServiceResponse: `{}` when every record was kept, else `partialSuccess` with the count of " +
      "refused records and why. An exporter must not retry a 200.",
    errors: {
      400: {
        reason:
          "The body does not decode, its envelope is not an ExportLogsServiceRequest, or it holds more than " +
          `${LIMITS.otlpLogRecords} log records, ${LIMITS.otlpAttributes} attributes or ${LIMITS.otlpValues} values ` +
          "(counted while it is decoded); nothing is stored.",
        message: "Not an OTLP ExportLogsServiceRequest: resourceLogs must be an array",
      },
      415: {
        reason: "`Content-Type` is neither `application/x-protobuf` nor `application/json`.",
        message: "Send OTLP logs as Content-Type: application/x-protobuf or application/json (OTLP/HTTP)",
      },
      503: EXPORT_RETRY,
    },
  },
  GetSession: {
    summary: "Get a session",
    description:
      `One session with every stored field, its counters, \`stale\`, and its first ${LIMITS.sessionScoresShown} ` +
      "scores (oldest first; `scoresTruncated` when it has more: GET …/scores pages them all).",
    tag: "Sessions",
    success: "The session.",
  },
  ListConversations: {
    summary: "List conversations",
    description:
      "The conversations of the key's organisation and environment (runs that named the same `conversationId`), " +
      "newest first by their first run's start, one page at a time. A conversation is listed under the agent and " +
      "external user of its first run.",
    tag: "Conversations",
    success: "A page of conversations.",
    query: {
      parameters: {
        agentName: { description: "Only conversations whose first run was this agent's.", example: "support-bot" },
        userId: { description: "Only conversations whose first run was this external user's.", example: "customer-42" },
        from: {
          description: "Conversations started at or after this instant (ISO 8601).",
          example: "2026-11-22T00:00:00Z",
        },
        to: {
          description: "Conversations started at or before this instant (ISO 8601).",
          example: "2026-11-22T23:59:59Z",
        },
        limit: LIMIT,
        cursor: CURSOR,
      },
    },
  },
  GetConversation: {
    summary: "Get a conversation",
    description:
      "One conversation with a page of its runs in the order they started (its turns), its own first scores " +
      "(`scores`, `scoresTruncated`), and on the first page its totals: the runs' figures summed as each run shows " +
      "them, over its first 200 runs (`complete: false` past them), and per score name the figures of its own " +
      "scores and its first 20 runs' scores, at most 100 of each (`scoresComplete: false` past them).",
    tag: "Conversations",
    success: "The conversation and a page of its runs.",
    query: {
      parameters: {
        limit: LIMIT,
        cursor: CURSOR,
      },
    },
  },
  ListSessions: {
    summary: "List sessions",
    description: "The sessions of the key's organisation and environment, newest first, one page at a time.",
    tag: "Sessions",
    success: "A page of sessions.",
    query: {
      parameters: {
        agentName: { description: "Only this agent's sessions.", example: "support-bot" },
        userId: { description: "Only this external user's sessions.", example: "customer-42" },
        status: { description: "Only sessions in this status.", example: "failed" },
        from: { description: "Sessions created at or after this instant (ISO 8601).", example: "2026-11-22T00:00:00Z" },
        to: { description: "Sessions created at or before this instant (ISO 8601).", example: "2026-11-22T23:59:59Z" },
        failureReason: {
          description:
            "Only sessions that failed with this reason (its first 200 characters, as the stats group reasons).",
          example: "payment provider timeout",
        },
        toolName: { description: "Only sessions that called this tool.", example: "search_docs" },
        toolError: { description: "Only sessions with an error of this tool.", example: "issue_refund" },
        nameContains: {
          description: "Only sessions whose name contains this text (ignoring case).",
          example: "refund",
        },
        scoreName: {
          description:
            "Only sessions with a score of this name; with a condition below, only those whose latest score of " +
            "the name (the most recently written) meets it.",
          example: "helpfulness",
        },
        scoreMin: { description: "With scoreName: a numeric latest score of at least this.", example: "0.5" },
        scoreMax: { description: "With scoreName: a numeric latest score of at most this.", example: "1" },
        scoreLabel: { description: "With scoreName: a categorical latest score of this label.", example: "correct" },
        scoreValue: { description: "With scoreName: a boolean latest score of this value.", example: "true" },
        limit: LIMIT,
        cursor: CURSOR,
      },
      rules:
        "`agentName`, `userId` and `status` combine freely (each combination, also with `from`/`to`, is one " +
        "index query: pages are full but the last). `failureReason`, `toolName`, `toolError` and `nameContains` " +
        "refine what that query finds: a refined page reads at most 5 index pages of `limit` keys and may hold " +
        "fewer sessions than `limit`, even none, with a `nextCursor` to go on. `scoreName` refines too, reading " +
        "each session's scores of that name: a page filtered by a score reads at most 2 index pages. `scoreMin`/" +
        "`scoreMax`, `scoreLabel` and `scoreValue` need `scoreName` and exclude each other. `from` must not be " +
        "after `to`. A cursor is only valid with the filters it was issued for.",
    },
  },
  ListEvents: {
    summary: "List a session's events",
    description: "The events of one session, oldest first, one page at a time.",
    tag: "Events",
    success: "A page of events.",
    query: {
      parameters: {
        eventType: { description: "Only events of this type.", example: "tool_call" },
        toolName: { description: "Only events of this tool.", example: "search_docs" },
        minConfidence: { description: "Only events with a confidence of at least this (0–1).", example: "0.5" },
        maxConfidence: { description: "Only events with a confidence of at most this (0–1).", example: "1" },
        fields: {
          description: "`summary` leaves out `toolInput` and `toolOutput`; `full` (default) keeps them.",
          example: "summary",
        },
        limit: LIMIT,
        cursor: CURSOR,
      },
      rules: "`minConfidence` must not be above `maxConfidence`.",
    },
  },
  GetEventField: {
    summary: "Read one field of an event, whole",
    description:
      "The `toolInput` or `toolOutput` of an event as its JSON, or its `reasoning` as text, whatever its size " +
      "(the events route answers a field over 1 MiB with a presigned S3 URL instead; this route serves it from " +
      "the API's own origin, as the console needs). Compressed with gzip when the request accepts it " +
      "(`Accept-Encoding: gzip`); a field too large to send uncompressed within Lambda's 6 MB response limit is " +
      "406 without it.",
    tag: "Events",
    success: "The field: JSON for `toolInput` / `toolOutput`, plain text for `reasoning`.",
    media: { "application/json": "The tool input or output, as recorded", "text/plain": "The reasoning" },
    errors: {
      404: {
        reason: "The session holds no such event, or the event no such field.",
        message: "Event evt_01KAZ3Y0A1B2C3D4E5F6G7H8J9 has no toolOutput",
      },
      406: { reason: "The field is too large to send uncompressed: send `Accept-Encoding: gzip`." },
    },
  },
  ListScores: {
    summary: "List a session's scores",
    description: "The scores of one session (of the session and of its events), oldest first, one page at a time.",
    tag: "Scores",
    success: "A page of scores.",
    query: { parameters: { limit: LIMIT, cursor: CURSOR } },
  },
  DeleteScore: {
    summary: "Delete a score",
    description: "Deletes one score of the session (needs `scores:write`, or a signed-in member).",
    tag: "Scores",
    success: "Deleted.",
  },
  ListConversationScores: {
    summary: "List a conversation's scores",
    description:
      "The conversation's own scores (those posted with `conversationId`; its runs' scores are on each session), " +
      "oldest first, one page at a time.",
    tag: "Scores",
    success: "A page of scores.",
    query: { parameters: { limit: LIMIT, cursor: CURSOR } },
  },
  DeleteConversationScore: {
    summary: "Delete a conversation's score",
    description:
      "Deletes one score of the conversation (needs `scores:write`, or a signed-in member); its place under the " +
      "limit of 1,000 scores per conversation is freed.",
    tag: "Scores",
    success: "Deleted.",
  },
  ListScoreConfigs: {
    summary: "List the score configurations",
    description:
      "The organisation's score configurations, by name: what the values of scores of each configured name must be. " +
      "Readable with any key that has `read`, and by members in the console.",
    tag: "Scores",
    success: "Every configuration (at most 100).",
  },
  PutScoreConfig: {
    summary: "Configure a score name",
    description:
      "Says what the scores of one name must be: their kind (`dataType`), and for a number its range (`min`, " +
      "`max`), for a label the labels allowed. From then on a score of that name that breaks it is refused with a " +
      "field-level 400 on `value` (within a minute everywhere: writers cache configurations for up to 60 s); scores " +
      "already stored are not checked again. Answers 200 whether the configuration is new or replaced one. " +
      "Admins and owners; at most 100 per organisation, shared by its environments.",
    tag: "Scores",
    success: "The configuration as stored.",
    body: {
      description: "The kind of the name's values, and its bounds.",
      fields: {
        min: "Numeric only: the lowest value allowed.",
        max: "Numeric only: the highest value allowed (at least `min`).",
        labels: "Categorical only: the labels allowed, 1 to 100 distinct ones; without it any label.",
      },
    },
    errors: {
      409: {
        reason: "The organisation already holds 100 configurations, or the name's configuration kept changing.",
        message: "The organisation has 100 score configurations, the most allowed; delete one before adding another",
      },
    },
  },
  DeleteScoreConfig: {
    summary: "Remove a score name's configuration",
    description: "Scores of that name take any value again. Admins and owners.",
    tag: "Scores",
    success: "Deleted.",
    errors: {
      404: { reason: "The name has no configuration.", message: "Score resolution has no configuration" },
    },
  },
  DeleteSession: {
    summary: "Delete a session",
    description: "Deletes the session, its events, its scores and its contribution to the analytics rollups.",
    tag: "Sessions",
    success: "Deleted.",
    errors: {
      409: {
        reason: "The session kept changing while it was being deleted; retry.",
        message: `Session ${SESSION_ID} kept changing while it was being deleted; retry the request`,
      },
    },
  },
  ListAgents: {
    summary: "List agents",
    description:
      "The agent names of the key's organisation and environment, with their session counts. With a period " +
      "(`from` and/or `to`, whole UTC days as for the stats routes), also each agent's totals over it and the last " +
      "day it started a session, and the organisation's totals, per-day series and top lists as the sum of its " +
      "agents' (the console's overview). Figures are read for the 100 agents with the most sessions; " +
      "`agentsWithoutStats` counts the others, which the sums leave out.",
    tag: "Analytics",
    success: "The agents (and, with a period, their figures).",
    query: STATS_QUERY,
  },
  AgentStats: {
    summary: "Agent statistics",
    description:
      "Totals and a per-day series for one agent over whole UTC days, from rollups. An agent without sessions " +
      "has zero totals.",
    tag: "Analytics",
    success: "The agent's statistics.",
    query: STATS_QUERY,
  },
  ListModels: {
    summary: "Model calls by model",
    description:
      "The organisation's model calls (events with a model or usage) over whole UTC days, per model: calls, cost, " +
      "each token type and the calls that found no price, the most costly first, and a line with `model: null` for " +
      "the calls without a model name. The sum of its agents' rollups, read for the 100 agents with the most " +
      "sessions (`agentsWithoutStats` counts the others), as for GET /api/sdk/agents.",
    tag: "Analytics",
    success: "The organisation's model calls by model.",
    query: STATS_QUERY,
  },
  AgentModels: {
    summary: "Agent model calls by model",
    description:
      "One agent's model calls over whole UTC days, per model, from rollups (as GET /api/sdk/models). An agent " +
      "without model calls has no lines and zero totals.",
    tag: "Analytics",
    success: "The agent's model calls by model.",
    query: STATS_QUERY,
  },
  QueryMetrics: {
    summary: "Query metrics",
    description:
      "A small, bounded query over the counted rollups, for a team's own dashboard or a Grafana JSON data source: " +
      "measures (sessions, outcomes, costs, tokens, duration percentiles, tools, model calls, scores) by day, by " +
      "hour (the hourly series, the last 8 days) or in total, grouped by agent, user, model or tool, filtered, at " +
      "most `limit` rows a page. Answered from counted items only, never a scan: a combination they cannot answer " +
      "exactly is a 400 naming the field, why and what is possible (docs/metrics.md has the table). The tenant's " +
      "figures are the sum of its agents', read for the 100 agents with the most sessions (`agentsWithoutStats` " +
      "counts the others), as GET /api/sdk/agents. A read: no `Idempotency-Key`.",
    tag: "Analytics",
    success: "One page of rows, by time, then agent or user, then model or tool; a row where something was counted.",
    body: {
      description:
        "`granularity` defaults to `day`, `groupBy` to none, `limit` to 100 (at most 1,000). Days: `from`…`to` " +
        "whole UTC days, default the last 30, at most 400. Hours: the hours holding `from`…`to`, default the last " +
        "24, at most 168, none older than 191 hours. Each filter names at most 20 values (each named agent or user " +
        "is one read). " +
        OPTIONAL_NULL,
      fields: {
        measures:
          "Day and total: the day rollups' (sessions, completed, failed, successRate, events, eventCost, " +
          "reportedCost, promptTokens, completionTokens, totalTokens, durationMean, durationP50/P95/P99), the tools' " +
          "(toolCalls, toolErrors), the models' (model…, unpricedCalls: agents only) and the scores' (score…: agents " +
          "only, one name in `filters.score`). Hour: the hourly series' (sessionsStarted, sessionsEnded, " +
          "sessionsEndedFailed, errorEvents, costAtTime, tokensAtTime, endedDurationP50/P95/P99), each counted at " +
          "its own time.",
        groupBy:
          "At most 2 of agent, user, model, tool: agent or user (never both), with model or tool (never both). " +
          "Grouping by user needs the users named in `filters.user`. Hour: agent only.",
        cursor: "The previous page's `nextCursor`, with the same query.",
      },
    },
    errors: {
      400: {
        reason:
          "The counted items cannot answer the combination exactly (e.g. a day measure per model, a model measure " +
          "per user, hours older than the hourly series), or the cursor is not this query's.",
        message:
          "Invalid metrics query: per model only modelCalls, modelCost, modelPromptTokens, modelCompletionTokens, " +
          "modelTotalTokens, modelCacheReadTokens, modelCacheWriteTokens, modelReasoningTokens, unpricedCalls are " +
          "counted; sessions is not: drop model from groupBy and filters, or ask for that measure in another query",
      },
    },
  },
  UserStats: {
    summary: "External user statistics",
    description: "Totals and a per-day series for one external user over whole UTC days, from rollups.",
    tag: "Analytics",
    success: "The user's statistics.",
    query: STATS_QUERY,
  },
  DeleteUserData: {
    summary: "Erase an external user's data",
    description:
      "Starts an asynchronous job that deletes every session and event of the external user in the key's " +
      "organisation and environment. Repeating the request is safe.",
    tag: "Data deletion",
    success: "The erasure job, accepted.",
  },
  GetDeletionJob: {
    summary: "Get an erasure job",
    description: "Progress of an erasure job of the key's organisation and environment.",
    tag: "Data deletion",
    success: "The job.",
  },
  OpenApiDocument: {
    summary: "This document",
    description: "The OpenAPI 3.1 description of this API. Public: no credential needed.",
    tag: "API description",
    success: "The OpenAPI document.",
  },
  CreateApiKey: {
    summary: "Create an API key",
    description:
      "Creates a key for the organisation. The response is the only time the key itself is shown; only its " +
      "SHA-256 is stored. New keys get `sessions:write events:write scores:write read` unless `scopes` says otherwise.",
    tag: "API keys",
    success: "The key, with its secret.",
    body: {
      description:
        "`environment` defaults to `live`; `scopes` to `sessions:write events:write scores:write read` (duplicates are merged).",
    },
  },
  ListApiKeys: {
    summary: "List API keys",
    description: "The organisation's keys, without secrets, each with its status.",
    tag: "API keys",
    success: "The keys.",
  },
  RotateApiKey: {
    summary: "Rotate an API key",
    description:
      `Creates the replacement of a key. The old key keeps working until now + \`overlapSeconds\` ` +
      `(default ${ROTATION_OVERLAP.defaultSeconds}, at most ${ROTATION_OVERLAP.maxSeconds}, 0 allowed), then 401. ` +
      "A key is rotated once: rotate its replacement next time. The body may be empty.",
    tag: "API keys",
    success: "The new key, and the old one with its `expiresAt`.",
    body: { description: `\`overlapSeconds\` defaults to ${ROTATION_OVERLAP.defaultSeconds}.` },
    errors: {
      409: {
        reason: "The key was already rotated, is revoked or expired, or changed concurrently.",
        message:
          "API key key_01KAZ2R4M7N8P9Q0R1S2T3V4WX was already rotated to key_01KAZ5D6E7F8G9H0J1K2M3N4PQ; rotate that key instead",
      },
    },
  },
  RevokeApiKey: {
    summary: "Revoke an API key",
    description:
      "Revokes a key; repeating is 204. The key is refused (401) from then on, after at most the key-cache bound " +
      "(10 seconds).",
    tag: "API keys",
    success: "Revoked.",
  },
  ListApiKeyAudit: {
    summary: "A key's audit trail",
    description: "Who created, rotated or revoked the key, and when; oldest first.",
    tag: "API keys",
    success: "The audit records.",
  },
  ListDeletionAudit: {
    summary: "Who deleted what",
    description:
      "The organisation's latest 100 deletions, newest first: each session deleted (`DELETE " +
      "/api/sdk/sessions/{id}`) and each erasure requested (`DELETE /api/sdk/users/{userId}`), with the API " +
      "key (its id) or signed-in user that asked, both environments. Admins and owners.",
    tag: "Data deletion",
    success: "The deletions, newest first.",
  },
  ListExports: {
    summary: "Download the organisation's export",
    description:
      "The organisation's committed export runs (issue 35: sessions, events, scores and conversations as Parquet, " +
      "hourly by default), newest first, each with the organisation's files it wrote (a presigned GET URL each, " +
      "valid 15 minutes) and the files it deleted. Only the caller's organisation's partitions " +
      "(`table=<t>/org=<org>/…`) and manifests are ever listed or presigned. A page holds at most `limit` runs " +
      "and 500 files; a run with more continues on the next page (`filesFrom`). Admins and owners (docs/export.md).",
    tag: "Export",
    success: "A page of committed runs.",
    query: {
      parameters: {
        cursor: { description: "The `nextCursor` of the previous page, unchanged." },
        limit: { description: "Runs per page, 1 to 50 (default 10).", example: "10" },
      },
    },
  },
  GetMe: {
    summary: "Who am I",
    description:
      "The signed-in user, every organisation they belong to with their role in each (the console picks the " +
      "organisation from these), and apart from them the invitations waiting for their answer (an invitation is " +
      "never an organisation of theirs until they accept it). Needs no `X-Organization-Id`; a user of no " +
      "organisation gets an empty list.",
    tag: "Members",
    success: "The user, their organisations and their pending invitations.",
  },
  ListMembers: {
    summary: "List members",
    description: "The organisation's members with their roles.",
    tag: "Members",
    success: "The members.",
  },
  ListInvitations: {
    summary: "List pending invitations",
    description: "The organisation's invitations waiting for an answer (not expired), oldest first.",
    tag: "Members",
    success: "The pending invitations.",
  },
  CreateInvitation: {
    summary: "Invite a person",
    description:
      "Invites a person by email with a role. Nobody becomes a member without accepting: the person sees the " +
      "invitation (GET /api/me) and accepts or declines it. A person new to the user directory is created there " +
      "(on AWS Cognito emails them a temporary password; one who never signed in gets a fresh one); locally in " +
      `the local issuer's directory. The invitation expires after ${INVITATION_LIFETIME_DAYS} days. An ` +
      `organisation sends at most ${INVITATIONS_PER_DAY} invitations per UTC day. Recorded in the organisation's ` +
      "audit (`invitation.created`).",
    tag: "Members",
    success: "The invitation.",
    body: {
      description:
        "The person's email address and the role they get when they accept: `owner`, `admin` or `member`. The " +
        "address must be plain ASCII (`local@domain.tld`; an internationalised domain in its `xn--` form): control " +
        "characters, letters of other scripts and full-width look-alikes are refused. Stored in lower case.",
    },
    errors: {
      409: {
        reason: "The person is already a member of the organisation, or already has a pending invitation to it.",
        message: "grace@example.com is already a member of organisation acme",
      },
      429: {
        reason:
          `The organisation sent ${INVITATIONS_PER_DAY} invitations today (UTC) already; \`Retry-After\` gives ` +
          "the seconds to midnight UTC. Refused invitations (400, 409) do not count.",
        message:
          `Organisation acme has sent ${INVITATIONS_PER_DAY} invitations today, the most allowed per day; try again ` +
          "after midnight UTC (see Retry-After)",
      },
    },
  },
  RevokeInvitation: {
    summary: "Revoke an invitation",
    description:
      "Withdraws a pending invitation; the person can no longer accept it. Recorded in the organisation's audit " +
      "(`invitation.revoked`).",
    tag: "Members",
    success: "Revoked.",
  },
  AcceptInvitation: {
    summary: "Accept an invitation",
    description:
      "The signed-in user accepts their pending invitation to an organisation: in one transaction the invitation " +
      "is consumed and the membership (with the invitation's role) written. Recorded in the organisation's audit " +
      "(`invitation.accepted`).",
    tag: "Members",
    success: "The membership the invitation became.",
    errors: {
      409: {
        reason: "The user is a member of the organisation already.",
        message: "You are already a member of organisation acme",
      },
    },
  },
  DeclineInvitation: {
    summary: "Decline an invitation",
    description:
      "The signed-in user declines their pending invitation to an organisation; it is removed. Recorded in the " +
      "organisation's audit (`invitation.declined`).",
    tag: "Members",
    success: "Declined.",
  },
  UpdateMember: {
    summary: "Change a member's role",
    description:
      "Gives a member another role (the same role changes nothing). The last owner cannot be demoted. " +
      "Recorded in the organisation's audit (`member.role_changed`).",
    tag: "Members",
    success: "The member with the new role.",
    body: { description: "The member's new role: `owner`, `admin` or `member`." },
    errors: { 409: LAST_OWNER },
  },
  RemoveMember: {
    summary: "Remove a member",
    description:
      "Removes a member from the organisation; their user (Cognito account) is not deleted. The last owner " +
      "cannot be removed. Recorded in the organisation's audit (`member.removed`).",
    tag: "Members",
    success: "Removed.",
    errors: { 409: LAST_OWNER },
  },
  ListOrganisationPrices: {
    summary: "The organisation's prices",
    description:
      "The organisation's own model prices, by model then newest `effectiveFrom` first: checked before the price " +
      "table when an event is priced on arrival, by the same name matching (docs/pricing.md). A change applies to " +
      `events received up to ${ORGANISATION_PRICE_CACHE.ttlMs / 1000} seconds later (each function caches an ` +
      "organisation's prices that long). Any member.",
    tag: "Prices",
    success: "The prices, and the organisation's limits.",
  },
  GetPriceTable: {
    summary: "The shipped price table",
    description:
      "The price table the service prices with when an organisation has no price of its own (a file in the " +
      "service's code, not in the database): every row, with where it was read. Any member.",
    tag: "Prices",
    success: "The table's sources and rows.",
  },
  ListPriceAudit: {
    summary: "Who changed which price",
    description: `The newest ${PRICE.auditPage} changes of the organisation's prices, newest first: who set or deleted which dated price, when, and its rates before and after. Admins and owners.`,
    tag: "Prices",
    success: "The changes, newest first.",
  },
  PutOrganisationPrice: {
    summary: "Set a model's price",
    description:
      "Sets the organisation's price of a model from a UTC day on: a new dated price, or new rates for the price " +
      "of that model and day. Calls from `effectiveFrom` on take it (until a later price of the model); calls " +
      "before its first price fall back to the table. The same rates again change nothing. Audited. Admins and " +
      `owners. At most ${PRICE.pricesPerOrganisation} dated prices per organisation and ${PRICE.pricesPerModel} per model.`,
    tag: "Prices",
    success: "The price as stored.",
    body: {
      description:
        `Rates in USD per million tokens, each from 0 to ${PRICE.maxRate} (the fields of the price table's rows). ` +
        `\`tiers\` (at most ${PRICE.tiers}): when a call's prompt is above \`above\` tokens, its rates replace the base ` +
        "ones for the whole call.",
      fields: {
        cacheRead: "Cached prompt tokens read back; without it they cost `input`.",
        cacheWrite: "Prompt tokens written to the cache; without it they cost `input`.",
        reasoning: "Reasoning tokens, when billed apart from output; without it they cost `output`.",
      },
    },
    errors: {
      409: {
        reason: `The organisation already holds ${PRICE.pricesPerOrganisation} prices, or the model ${PRICE.pricesPerModel}, or the model's prices kept changing during the request.`,
        message: `Organisation acme has ${PRICE.pricesPerOrganisation} prices, the most allowed; delete one before adding another`,
      },
    },
  },
  DeleteOrganisationPrice: {
    summary: "Delete a model's price",
    description:
      "Deletes the organisation's price of a model from one day (`effectiveFrom`), or without it every dated " +
      "price of the model; calls are then priced by the table again. Audited. Admins and owners.",
    tag: "Prices",
    success: "Deleted.",
    query: {
      parameters: {
        effectiveFrom: {
          description: "Only the price from this UTC day (YYYY-MM-DD); without it, all of the model's prices.",
          example: "2026-12-01",
        },
      },
    },
    errors: {
      404: {
        reason: "The organisation has no price of that model (from that day).",
        message: "No price of ft:gpt-4o-mini:acme:support:9x8y7z from 2026-12-01 in organisation acme",
      },
      409: {
        reason: "The model's prices kept changing during the request.",
        message:
          "The prices of ft:gpt-4o-mini:acme:support:9x8y7z were changed by another request; reload them and retry",
      },
    },
  },
  ListMonitors: {
    summary: "List monitors",
    description:
      "The monitors of the organisation in the environment of `X-Environment` (`live` unless it says `test`), " +
      "oldest first, each with its state. Any member.",
    tag: "Alerts",
    success: "The monitors (at most 100).",
    errors: { 400: ENVIRONMENT_HEADER },
  },
  CreateMonitor: {
    summary: "Create a monitor",
    description:
      "Creates a monitor in the environment of `X-Environment`; it is evaluated from the next minute on (state " +
      "`ok`, no figure until then). Audited. Admins and owners. At most 100 per organisation and environment.",
    tag: "Alerts",
    success: "The monitor as stored.",
    body: { description: MONITOR_BODY },
    errors: {
      409: {
        reason: "The organisation already has 100 monitors in this environment.",
        message: "This organisation has 100 monitors in live, the most allowed; delete one before adding another",
      },
    },
  },
  PreviewMonitor: {
    summary: "Preview a monitor's figure",
    description:
      "The figure a definition would have had for windows ending at each whole hour of the last 72 hours, from " +
      "the counted series (nothing stored, nothing sent; the destinations are not looked up). A window that is " +
      "not a whole number of hours is previewed over the whole hours holding it (`note` says so). Any member.",
    tag: "Alerts",
    success: "At most 72 points, oldest first; `figure` null where the window had no data.",
    body: { description: MONITOR_BODY },
  },
  GetMonitor: {
    summary: "Read a monitor",
    description: "One monitor of the environment of `X-Environment`, with its state. Any member.",
    tag: "Alerts",
    success: "The monitor.",
    errors: { 400: ENVIRONMENT_HEADER },
  },
  ReplaceMonitor: {
    summary: "Replace a monitor's definition",
    description:
      "Replaces the whole definition; the state stays, and the next evaluation judges it by the new definition. " +
      "Audited (before and after). Admins and owners.",
    tag: "Alerts",
    success: "The monitor as stored.",
    body: { description: MONITOR_BODY },
    errors: { 409: MONITOR_CHANGED },
  },
  DeleteMonitor: {
    summary: "Delete a monitor",
    description:
      "Deletes the monitor: it is no longer evaluated (an evaluation running meanwhile writes and sends nothing); " +
      "its history expires on its own. Audited. Admins and owners.",
    tag: "Alerts",
    success: "Deleted.",
    errors: { 400: ENVIRONMENT_HEADER, 409: MONITOR_CHANGED },
  },
  ListMonitorHistory: {
    summary: "A monitor's history",
    description:
      "Each state change and renotification of the monitor, newest first, with the figure, samples, threshold and " +
      "window it was computed on, and the id of the notification sent for it. Any member.",
    tag: "Alerts",
    success: "A page of entries.",
    query: {
      parameters: {
        cursor: { description: "The `nextCursor` of the previous page, unchanged." },
        limit: { description: "Entries per page, 1 to 100 (default 50).", example: "50" },
      },
    },
  },
  TestMonitor: {
    summary: "Send a test notification",
    description:
      "Hands a `monitor.test` notification with the monitor's current state to each of its destinations (each " +
      "retried by the delivery on its own). Admins and owners.",
    tag: "Alerts",
    success: "The notification's id and each destination's hand-over.",
    errors: { 400: ENVIRONMENT_HEADER },
  },
  ListAlertAudit: {
    summary: "Who changed which monitor or destination",
    description:
      "Every change of the organisation's monitors (both environments) and destinations, newest first: who, when, " +
      "the definition before and after. Admins and owners.",
    tag: "Alerts",
    success: "A page of audit records.",
    query: {
      parameters: {
        cursor: { description: "The `nextCursor` of the previous page, unchanged." },
        limit: { description: "Records per page, 1 to 100 (default 50).", example: "50" },
      },
    },
  },
  ListAlertDestinations: {
    summary: "The organisation's alert destinations",
    description:
      `Where the organisation's monitors send notifications (at most ${DESTINATION_LIMITS.perOrganisation}), oldest ` +
      "first, with their delivery health: failures in a row, the last delivery and error, and why delivery turned " +
      "one off. Never a signing secret. Any member.",
    tag: "Alerts",
    success: "The destinations.",
  },
  CreateAlertDestination: {
    summary: "Add an alert destination",
    description:
      "Adds a webhook (signed with a secret of its own, answered here once and never again), a Slack incoming " +
      "webhook or the stack's EventBridge bus. A URL must be `https://` and its host must resolve to public " +
      "addresses only (checked now and at every delivery; locally `npm start` also allows `http://` to loopback " +
      `hosts). At most ${DESTINATION_LIMITS.perOrganisation} per organisation. Audited (\`destination.created\`). Admins and owners.`,
    tag: "Alerts",
    success: "The destination; a webhook's with its signing secret (`secret`), shown this once.",
    body: {
      description: "`url` is required for `webhook` and `slack`, and refused for `eventbridge`.",
      fields: { url: "The receiver's URL (a Slack incoming webhook's for `slack`)." },
    },
    errors: {
      409: {
        reason: `The organisation already has ${DESTINATION_LIMITS.perOrganisation} destinations.`,
        message: `Organisation acme has ${DESTINATION_LIMITS.perOrganisation} destinations, the most allowed; delete one before adding another`,
      },
    },
  },
  GetAlertDestination: {
    summary: "An alert destination",
    description: "One destination of the organisation, never its signing secret. Any member.",
    tag: "Alerts",
    success: "The destination.",
  },
  UpdateAlertDestination: {
    summary: "Change an alert destination",
    description:
      "Sets a destination's name, URL and whether it is enabled (its kind stays). Enabling a destination that " +
      "delivery turned off clears its failure count and reason. Audited (`destination.updated`). Admins and owners.",
    tag: "Alerts",
    success: "The destination as stored.",
    body: { description: "The whole changeable definition; `url` as on creation (required unless `eventbridge`)." },
    errors: {
      409: {
        reason: "The destination was changed by another request meanwhile.",
        message: "Destination dst_01KAZ4B6C8D0E2F4G6H8J0K2M4 was changed by another request; reload it and retry",
      },
    },
  },
  DeleteAlertDestination: {
    summary: "Delete an alert destination",
    description:
      "Deletes a destination. Monitors naming it keep its id and skip it when they notify. Audited " +
      "(`destination.deleted`). Admins and owners.",
    tag: "Alerts",
    success: "Deleted.",
  },
  RotateAlertDestinationSecret: {
    summary: "Rotate a webhook's signing secret",
    description:
      "Replaces a webhook's signing secret: deliveries from now on are signed with the new one only (a retry of an " +
      "earlier notification too), so update the receiver first. Audited (`destination.secret_rotated`). Admins and owners.",
    tag: "Alerts",
    success: "The new secret, shown this once.",
    errors: {
      409: {
        reason: "The destination is not a webhook (Slack and EventBridge deliveries are not signed).",
        message:
          "Destination dst_01KAZ4B6C8D0E2F4G6H8J0K2M4 is a slack destination: only a webhook has a signing secret",
      },
    },
  },
  TestAlertDestination: {
    summary: "Send a test notification",
    description:
      "Sends one `monitor.test` notification to the destination now, even a disabled one, and answers what " +
      "happened. No retry, and nothing of the destination changes (its failure count included). Admins and owners.",
    tag: "Alerts",
    success: "Whether it was delivered, the receiver's status, and the error if not.",
  },
};
