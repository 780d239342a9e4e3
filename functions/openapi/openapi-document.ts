/**
 * The OpenAPI 3.1 document of the service, generated, never written by hand:
 *
 * - paths, methods and authentication come from the route table (`route-table.ts`);
 * - request bodies and query parameters from the very zod schemas the handlers
 *   validate with (`z.toJSONSchema`, input side); a telemetry protocol's body
 *   (OTLP), which its handler decodes itself, from the schema of its JSON
 *   encoding (`schemas/otlp-schemas.ts`);
 * - success and error bodies from `schemas/response-schemas.ts`;
 * - what JSON Schema cannot say about a field (a refinement, a `superRefine`d
 *   `unknown`) from the small `REFINED_FIELDS` table below.
 *
 * The document is built on first use and memoised: importing this module does
 * no work. `npm run openapi` writes it to `docs/openapi.json`.
 */
import * as z from "zod";
import packageJson from "../../package.json" with { type: "json" };
import { ROTATION_OVERLAP } from "../domain/api-key-record.js";
import { invalidFieldsError, ValidationError } from "../domain/errors.js";
import { INVITATION_LIFETIME_DAYS, INVITATIONS_PER_DAY } from "../domain/invitation.js";
import { LIMITS } from "../domain/limits.js";
import { roleRequirement } from "../domain/membership.js";
import { errorResponse as errorAnswer } from "../http/error-mapper.js";
import { toFieldIssues } from "../http/json-body.js";
import { type HttpMethod, type RouteEntry, type RouteId, routeTable } from "../route-table.js";
import { createApiKeyBody, rotateApiKeyBody } from "../schemas/api-key-schemas.js";
import { createEventBatchBody, createEventBody } from "../schemas/event-schemas.js";
import { createInvitationBody, updateMemberBody } from "../schemas/member-schemas.js";
import {
  exportLogsServiceRequest,
  exportLogsServiceResponse,
  exportTraceServiceRequest,
  exportTraceServiceResponse,
  otlpAnyValue,
  otlpKeyValue,
} from "../schemas/otlp-schemas.js";
import { listEventsQuery, listSessionsQuery, statsQuery } from "../schemas/read-schemas.js";
import {
  acceptedInvitationResponse,
  agentListResponse,
  agentStatsResponse,
  apiKeyAuditResponse,
  apiKeyListResponse,
  apiKeyResponse,
  createdApiKeyResponse,
  createdEventResponse,
  createdSessionResponse,
  deletionAuditResponse,
  deletionJobAcceptedResponse,
  deletionJobResponse,
  errorResponse,
  eventBatchResponse,
  eventPageResponse,
  eventResponse,
  invitationListResponse,
  invitationResponse,
  memberListResponse,
  memberResponse,
  meResponse,
  openApiDocumentResponse,
  rotatedApiKeyResponse,
  sessionPageResponse,
  sessionResponse,
  updatedSessionResponse,
  userStatsResponse,
} from "../schemas/response-schemas.js";
import { createSessionBody, updateSessionBody } from "../schemas/session-schemas.js";
import { errorExamples, requestExamples, responseExamples } from "./openapi-examples.js";

/** A JSON Schema (draft 2020-12, the dialect of OpenAPI 3.1). */
export type JsonSchema = z.core.JSONSchema.BaseSchema;

/** The parts of an OpenAPI 3.1 document this generator writes. */
export interface OpenApiDocument {
  readonly openapi: "3.1.0";
  readonly info: { readonly title: string; readonly version: string; readonly description: string };
  readonly servers: readonly { readonly url: string; readonly description: string }[];
  readonly tags: readonly { readonly name: string; readonly description: string }[];
  readonly paths: Readonly<Record<string, Readonly<Partial<Record<Lowercase<HttpMethod>, Operation>>>>>;
  readonly components: {
    readonly securitySchemes: Record<string, Record<string, string>>;
    readonly headers: Record<string, Record<string, unknown>>;
    readonly parameters: Record<string, Parameter>;
    readonly schemas: Record<string, JsonSchema>;
  };
}

export interface Parameter {
  readonly name: string;
  readonly in: "path" | "query" | "header";
  readonly required: boolean;
  readonly description: string;
  readonly schema: JsonSchema;
  readonly example?: string;
}

export interface Operation {
  readonly operationId: string;
  readonly summary: string;
  readonly description: string;
  readonly tags: readonly string[];
  readonly security: readonly Record<string, readonly string[]>[];
  readonly "x-required-scope"?: string;
  readonly "x-required-role"?: string;
  readonly parameters?: readonly (Parameter | { readonly $ref: string })[];
  readonly requestBody?: Record<string, unknown>;
  readonly responses: Record<string, Record<string, unknown>>;
}

/** Request body schemas (what the handlers validate with), by their name in `components.schemas`. */
export const REQUEST_BODIES = {
  CreateSessionRequest: createSessionBody,
  UpdateSessionRequest: updateSessionBody,
  CreateEventRequest: createEventBody,
  CreateEventBatchRequest: createEventBatchBody,
  CreateApiKeyRequest: createApiKeyBody,
  RotateApiKeyRequest: rotateApiKeyBody,
  CreateInvitationRequest: createInvitationBody,
  UpdateMemberRequest: updateMemberBody,
} as const satisfies Record<string, z.core.$ZodType>;
export type RequestBodyName = keyof typeof REQUEST_BODIES;

/**
 * Bodies of telemetry protocols (OTLP), which their handlers decode themselves in the protocol's encodings:
 * the schema of the JSON encoding, by its name in `components.schemas`. Documentation only, unrefined.
 */
export const PROTOCOL_BODIES = {
  ExportTraceServiceRequest: exportTraceServiceRequest,
  ExportLogsServiceRequest: exportLogsServiceRequest,
} as const satisfies Record<string, z.core.$ZodType>;
export type ProtocolBodyName = keyof typeof PROTOCOL_BODIES;

/** Schemas the protocol bodies refer to (recursive ones: an AnyValue holds AnyValues). */
const PROTOCOL_PARTS = { OtlpAnyValue: otlpAnyValue, OtlpKeyValue: otlpKeyValue } as const;

/** Response body schemas, by their name in `components.schemas`. */
export const RESPONSE_BODIES = {
  Error: errorResponse,
  CreatedSession: createdSessionResponse,
  UpdatedSession: updatedSessionResponse,
  Session: sessionResponse,
  SessionPage: sessionPageResponse,
  CreatedEvent: createdEventResponse,
  EventBatchResult: eventBatchResponse,
  Event: eventResponse,
  EventPage: eventPageResponse,
  AgentList: agentListResponse,
  AgentStats: agentStatsResponse,
  UserStats: userStatsResponse,
  DeletionJobAccepted: deletionJobAcceptedResponse,
  DeletionJob: deletionJobResponse,
  ApiKey: apiKeyResponse,
  ApiKeyList: apiKeyListResponse,
  CreatedApiKey: createdApiKeyResponse,
  RotatedApiKey: rotatedApiKeyResponse,
  ApiKeyAudit: apiKeyAuditResponse,
  DeletionAudit: deletionAuditResponse,
  Member: memberResponse,
  MemberList: memberListResponse,
  Invitation: invitationResponse,
  InvitationList: invitationListResponse,
  AcceptedInvitation: acceptedInvitationResponse,
  Me: meResponse,
  OpenApiDocument: openApiDocumentResponse,
  ExportTraceServiceResponse: exportTraceServiceResponse,
  ExportLogsServiceResponse: exportLogsServiceResponse,
} as const satisfies Record<string, z.ZodType>;
export type ResponseBodyName = keyof typeof RESPONSE_BODIES;

const TAGS = {
  Sessions: "Agent runs: start, update, read, list and delete sessions (API key).",
  Events: "What an agent did within a session: tool calls, decisions, state changes, errors (API key).",
  Analytics: "Per-agent and per-user totals and daily series, from rollups (API key).",
  "Data deletion": "Erasure of an external user's data (API key with the `delete` scope).",
  "API keys": "Key management for signed-in users of an organisation (access token).",
  Members:
    "Who belongs to an organisation, with which role; invitations, which make a person a member only once they " +
    "accept; and who the caller is (access token).",
  OpenTelemetry:
    "OTLP/HTTP receivers: point an OpenTelemetry exporter at `<base>/api/otel` with an API key (docs/otel.md).",
  "API description": "This document.",
} as const;
type TagName = keyof typeof TAGS;

type ErrorStatus = keyof typeof errorExamples;
type SuccessStatus = 200 | 201 | 202 | 204;

interface ParameterDoc {
  readonly description: string;
  readonly example?: string;
}

/** What the route table and the schemas do not say about an operation. */
interface OperationDoc {
  readonly summary: string;
  readonly description: string;
  readonly tag: TagName;
  /** Every `{name}` of the route's path. */
  readonly pathParameters?: Readonly<Record<string, ParameterDoc>>;
  /** The route's query schema (as the handler declares it) and every parameter of it. */
  readonly query?: {
    readonly schema: z.core.$ZodType;
    readonly parameters: Readonly<Record<string, ParameterDoc>>;
    /** Rules across parameters (zod `superRefine`s), in words. */
    readonly rules?: string;
  };
  /** The route's body schema (as the handler declares it); `optional` when an empty body is accepted. */
  readonly body?: { readonly name: RequestBodyName; readonly optional?: boolean };
  /**
   * Instead of `body`: a telemetry protocol's body, which the handler decodes itself, in JSON or in the binary
   * media type (`binaryMediaType`); the success response comes in the request's encoding. No JSON body errors
   * are added: give the route's 400, 413 and 415 in `errors`.
   */
  readonly protocolBody?: { readonly name: ProtocolBodyName; readonly binaryMediaType: string };
  /** An invalid input (body, or query parameters) whose real validation errors make the 400 example. */
  readonly invalidInput?: Readonly<Record<string, unknown>>;
  readonly success: {
    readonly status: SuccessStatus;
    readonly description: string;
    readonly body?: ResponseBodyName;
    /** Instead of `body`: the answer is the content itself, in these media types (schema: any value of it). */
    readonly rawContent?: Readonly<Record<string, { readonly schema: Readonly<Record<string, unknown>> }>>;
  };
  /** Errors particular to this route; those of its authentication and input are added from its shape. */
  readonly errors?: Partial<Record<ErrorStatus, { readonly reason: string; readonly message?: string }>>;
}

const SESSION_ID_PARAMETER: ParameterDoc = {
  description: "A session id (`ses_…`); any other id is 404.",
  example: "ses_01KAZ3X8Q9M4T7V2N6P5R1S0WE",
};
const KEY_ID_PARAMETER: ParameterDoc = {
  description: "An API key id (`key_…`) of the caller's organisation.",
  example: "key_01KAZ2R4M7N8P9Q0R1S2T3V4WX",
};
const SESSION_ID_TAKEN =
  "A session with this id already exists (ses_01KAZ3X8Q9M4T7V2N6P5R1S0WE); a retry must send the same name, " +
  "agentName, userId and startedAt";
const SESSION_NOT_FOUND = {
  reason: "Unknown (or expired) session id, or not a `ses_` id.",
  message: "Session ses_01KAZ3X8Q9M4T7V2N6P5R1S0WE not found",
};
const FOREIGN_SESSION = {
  reason: "The session belongs to another organisation or environment; nothing is changed.",
  message: "This API key has no access to session ses_01KAZ3X8Q9M4T7V2N6P5R1S0WE",
};
const KEY_NOT_FOUND = {
  reason: "Unknown key id, or a key of another organisation.",
  message: "API key key_01KAZ2R4M7N8P9Q0R1S2T3V4WX not found",
};
const MEMBER_ID_PARAMETER: ParameterDoc = {
  description: "A member's user id (the `userId` of GET /api/members).",
  example: "8e2d4c6a-1b3f-4a5e-9c7d-0f2e4a6c8b13",
};
const MEMBER_NOT_FOUND = {
  reason: "The user is not a member of the organisation.",
  message: "User 8e2d4c6a-1b3f-4a5e-9c7d-0f2e4a6c8b13 is not a member of organisation acme",
};
const LAST_OWNER = {
  reason:
    "The change would leave the organisation without an owner (make another member owner first), or the " +
    "members kept changing during the request.",
  message:
    "This is the last owner of organisation acme: make another member owner first (an organisation always keeps an owner)",
};
const INVITED_USER_PARAMETER: ParameterDoc = {
  description: "The invited person's user id (the `userId` of GET /api/invitations).",
  example: "8e2d4c6a-1b3f-4a5e-9c7d-0f2e4a6c8b13",
};
const INVITING_ORGANISATION_PARAMETER: ParameterDoc = {
  description: "The organisation of the invitation (the `orgId` of an invitation in GET /api/me).",
  example: "acme",
};
const NO_PENDING_INVITATION = {
  reason: "The user has no pending invitation to the organisation (none, answered, revoked, or it expired).",
  message: "You have no pending invitation to organisation acme",
};
const CURSOR: ParameterDoc = { description: "The `nextCursor` of the previous page (opaque, signed)." };
const LIMIT: ParameterDoc = { description: "Page size: an integer from 1 to 100 (default 50).", example: "20" };
const STATS_QUERY = {
  schema: statsQuery,
  parameters: {
    from: {
      description: "First UTC day (YYYY-MM-DD, or a timestamp whose day is used). Default: 29 days before `to`.",
      example: "2026-11-01",
    },
    to: { description: "Last UTC day, inclusive (YYYY-MM-DD or a timestamp). Default: today.", example: "2026-11-22" },
  },
  rules: "`from` must not be after `to`, and a period covers at most 366 days.",
} as const;

/** Everything the route table does not say, per route: a new route without an entry here does not compile. */
const OPERATIONS: Record<RouteId, OperationDoc> = {
  CreateSession: {
    summary: "Start a session",
    description:
      "Starts a session for one agent run, in the organisation and environment of the API key. An SDK that starts " +
      "a run while the service is unreachable sends its own `id` and `startedAt` and delivers the start later: " +
      "repeating a start with the same `id`, `name`, `agentName`, `userId` (and `startedAt`, if sent) is an " +
      "idempotent 201 with the stored session; any other use of a taken id is 409 and changes nothing.",
    tag: "Sessions",
    body: { name: "CreateSessionRequest" },
    invalidInput: { name: "", userId: 7, metadata: ["not", "an", "object"], extra: true },
    success: { status: 201, description: "The session, active.", body: "CreatedSession" },
    errors: {
      409: {
        reason:
          "The `id` is taken by a session with other fields, or of another organisation or environment (not said " +
          "which); nothing is changed.",
        message: SESSION_ID_TAKEN,
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
    pathParameters: { id: SESSION_ID_PARAMETER },
    body: { name: "UpdateSessionRequest" },
    invalidInput: { status: "failed", success: true, customMetrics: { latency: "fast" } },
    success: { status: 200, description: "The session after the update.", body: "UpdatedSession" },
    errors: {
      403: FOREIGN_SESSION,
      404: SESSION_NOT_FOUND,
      409: {
        reason: "The session is already completed or failed (or changed concurrently; retry).",
        message: errorExamples[409].message,
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
    body: { name: "CreateEventRequest" },
    invalidInput: { sessionId: "ses_01KAZ3X8Q9M4T7V2N6P5R1S0WE", eventType: "thought", confidence: 1.5 },
    success: { status: 201, description: "The event.", body: "CreatedEvent" },
    errors: {
      403: FOREIGN_SESSION,
      404: SESSION_NOT_FOUND,
      409: {
        reason: "The session kept changing while the event was recorded; retry.",
        message: "Session ses_01KAZ3X8Q9M4T7V2N6P5R1S0WE kept changing while the event was recorded; retry the request",
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
    body: { name: "CreateEventBatchRequest" },
    invalidInput: { events: [] },
    success: { status: 200, description: "One result per event, in request order.", body: "EventBatchResult" },
    errors: {},
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
    protocolBody: { name: "ExportTraceServiceRequest", binaryMediaType: "application/x-protobuf" },
    success: {
      status: 200,
      description:
        "An ExportTraceServiceResponse: `{}` when every span was accepted, else `partialSuccess` with the count " +
        "of refused spans and why. An exporter must not retry a 200.",
      body: "ExportTraceServiceResponse",
    },
    errors: {
      400: {
        reason:
          "The body does not decode (not a protobuf ExportTraceServiceRequest, not JSON, empty JSON, not valid " +
          `gzip), its envelope is not an ExportTraceServiceRequest, or it holds more than ${LIMITS.otlpSpans} spans, ` +
          `${LIMITS.otlpAttributes} attributes or ${LIMITS.otlpValues} values (counted while it is decoded); nothing is stored.`,
        message: "Not an OTLP ExportTraceServiceRequest: resourceSpans must be an array",
      },
      413: {
        reason: `The body is over ${LIMITS.eventBodyBytes} bytes, once decompressed.`,
        message: `Request body is ${LIMITS.eventBodyBytes + 1024} bytes; the limit is ${LIMITS.eventBodyBytes} bytes`,
      },
      415: {
        reason:
          "`Content-Type` is neither `application/x-protobuf` nor `application/json`, or `Content-Encoding` is " +
          "neither `gzip` nor `identity`.",
        message: "Send OTLP traces as Content-Type: application/x-protobuf or application/json (OTLP/HTTP)",
      },
      503: {
        reason:
          "The service could not store the export now (a dependency failed, writes kept conflicting, the request " +
          "ran out of time): retry after `Retry-After` seconds, as OTLP exporters do; a retry stores nothing twice.",
        message: "The export could not be stored now; retry after the Retry-After delay",
      },
    },
  },
  ExportLogs: {
    summary: "Export OTLP logs",
    description:
      "The OTLP/HTTP log receiver (same `OTEL_EXPORTER_OTLP_ENDPOINT` and headers as traces): takes an " +
      "ExportLogsServiceRequest as `application/x-protobuf` or `application/json`, `Content-Encoding: gzip` " +
      `allowed, at most ${LIMITS.otlpLogRecords} log records. GenAI event log records (the messages of a model ` +
      "call that instrumentations such as `@opentelemetry/instrumentation-openai` emit apart from its span) join " +
      "the `llm_decision` of their span by trace and span id, whichever arrives first; every other record is " +
      "refused on its own in `partialSuccess` of a 200 — never a 4xx for the whole export (docs/otel.md).",
    tag: "OpenTelemetry",
    protocolBody: { name: "ExportLogsServiceRequest", binaryMediaType: "application/x-protobuf" },
    success: {
      status: 200,
      description:
        "An ExportLogsServiceResponse: `{}` when every record was kept, else `partialSuccess` with the count of " +
        "refused records and why. An exporter must not retry a 200.",
      body: "ExportLogsServiceResponse",
    },
    errors: {
      400: {
        reason:
          "The body does not decode, its envelope is not an ExportLogsServiceRequest, or it holds more than " +
          `${LIMITS.otlpLogRecords} log records, ${LIMITS.otlpAttributes} attributes or ${LIMITS.otlpValues} values ` +
          "(counted while it is decoded); nothing is stored.",
        message: "Not an OTLP ExportLogsServiceRequest: resourceLogs must be an array",
      },
      413: {
        reason: `The body is over ${LIMITS.eventBodyBytes} bytes, once decompressed.`,
        message: `Request body is ${LIMITS.eventBodyBytes + 1024} bytes; the limit is ${LIMITS.eventBodyBytes} bytes`,
      },
      415: {
        reason: "`Content-Type` is neither `application/x-protobuf` nor `application/json`.",
        message: "Send OTLP logs as Content-Type: application/x-protobuf or application/json (OTLP/HTTP)",
      },
      503: {
        reason:
          "The service could not store the export now: retry after `Retry-After` seconds; a retry stores nothing twice.",
        message: "The export could not be stored now; retry after the Retry-After delay",
      },
    },
  },
  GetSession: {
    summary: "Get a session",
    description: "One session with every stored field, its counters and `stale`.",
    tag: "Sessions",
    pathParameters: { id: SESSION_ID_PARAMETER },
    success: { status: 200, description: "The session.", body: "Session" },
    errors: { 403: FOREIGN_SESSION, 404: SESSION_NOT_FOUND },
  },
  ListSessions: {
    summary: "List sessions",
    description: "The sessions of the key's organisation and environment, newest first, one page at a time.",
    tag: "Sessions",
    query: {
      schema: listSessionsQuery,
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
        limit: LIMIT,
        cursor: CURSOR,
      },
      rules:
        "`agentName`, `userId` and `status` combine freely (each combination, also with `from`/`to`, is one " +
        "index query: pages are full but the last). `failureReason`, `toolName`, `toolError` and `nameContains` " +
        "refine what that query finds: a refined page reads at most 5 index pages of `limit` keys and may hold " +
        "fewer sessions than `limit`, even none, with a `nextCursor` to go on. `from` must not be after `to`. A " +
        "cursor is only valid with the filters it was issued for.",
    },
    invalidInput: { limit: "500", status: "paused" },
    success: { status: 200, description: "A page of sessions.", body: "SessionPage" },
  },
  ListEvents: {
    summary: "List a session's events",
    description: "The events of one session, oldest first, one page at a time.",
    tag: "Events",
    pathParameters: { id: SESSION_ID_PARAMETER },
    query: {
      schema: listEventsQuery,
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
    invalidInput: { minConfidence: "0.9", maxConfidence: "0.1", fields: "everything" },
    success: { status: 200, description: "A page of events.", body: "EventPage" },
    errors: { 403: FOREIGN_SESSION, 404: SESSION_NOT_FOUND },
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
    pathParameters: {
      id: SESSION_ID_PARAMETER,
      eventId: { description: "An event id (`evt_…`) of the session.", example: "evt_01KAZ3Y0A1B2C3D4E5F6G7H8J9" },
      field: { description: "`toolInput`, `toolOutput` or `reasoning`.", example: "toolOutput" },
    },
    success: {
      status: 200,
      description: "The field: JSON for `toolInput` / `toolOutput`, plain text for `reasoning`.",
      rawContent: {
        "application/json": { schema: { description: "The tool input or output, as recorded" } },
        "text/plain": { schema: { type: "string", description: "The reasoning" } },
      },
    },
    errors: {
      400: { reason: "The field is not one of `toolInput`, `toolOutput`, `reasoning`." },
      403: FOREIGN_SESSION,
      404: {
        reason: "Unknown session, or the session holds no such event, or the event no such field.",
        message: "Event evt_01KAZ3Y0A1B2C3D4E5F6G7H8J9 has no toolOutput",
      },
      406: { reason: "The field is too large to send uncompressed: send `Accept-Encoding: gzip`." },
    },
  },
  DeleteSession: {
    summary: "Delete a session",
    description: "Deletes the session, its events and its contribution to the analytics rollups.",
    tag: "Sessions",
    pathParameters: { id: SESSION_ID_PARAMETER },
    success: { status: 204, description: "Deleted." },
    errors: {
      403: FOREIGN_SESSION,
      404: SESSION_NOT_FOUND,
      409: {
        reason: "The session kept changing while it was being deleted; retry.",
        message: "Session ses_01KAZ3X8Q9M4T7V2N6P5R1S0WE kept changing while it was being deleted; retry the request",
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
    query: STATS_QUERY,
    invalidInput: { from: "2026-11-22", to: "2026-11-01" },
    success: { status: 200, description: "The agents (and, with a period, their figures).", body: "AgentList" },
  },
  AgentStats: {
    summary: "Agent statistics",
    description:
      "Totals and a per-day series for one agent over whole UTC days, from rollups. An agent without sessions " +
      "has zero totals.",
    tag: "Analytics",
    pathParameters: { agentName: { description: "The agent's name (URL-encoded).", example: "support-bot" } },
    query: STATS_QUERY,
    invalidInput: { from: "yesterday" },
    success: { status: 200, description: "The agent's statistics.", body: "AgentStats" },
  },
  UserStats: {
    summary: "External user statistics",
    description: "Totals and a per-day series for one external user over whole UTC days, from rollups.",
    tag: "Analytics",
    pathParameters: { userId: { description: "Your external user id (URL-encoded).", example: "customer-42" } },
    query: STATS_QUERY,
    invalidInput: { from: "2026-11-22", to: "2026-11-01" },
    success: { status: 200, description: "The user's statistics.", body: "UserStats" },
  },
  DeleteUserData: {
    summary: "Erase an external user's data",
    description:
      "Starts an asynchronous job that deletes every session and event of the external user in the key's " +
      "organisation and environment. Repeating the request is safe.",
    tag: "Data deletion",
    pathParameters: { userId: { description: "Your external user id (URL-encoded).", example: "customer-42" } },
    success: { status: 202, description: "The erasure job, accepted.", body: "DeletionJobAccepted" },
  },
  GetDeletionJob: {
    summary: "Get an erasure job",
    description: "Progress of an erasure job of the key's organisation and environment.",
    tag: "Data deletion",
    pathParameters: {
      jobId: {
        description: "The job id (`del_…`) from the erasure request.",
        example: "del_01KAZ6A1B2C3D4E5F6G7H8J9KM",
      },
    },
    success: { status: 200, description: "The job.", body: "DeletionJob" },
    errors: {
      404: {
        reason: "Unknown job id, or a job of another organisation or environment.",
        message: "Deletion job del_01KAZ6A1B2C3D4E5F6G7H8J9KM not found",
      },
    },
  },
  OpenApiDocument: {
    summary: "This document",
    description: "The OpenAPI 3.1 description of this API. Public: no credential needed.",
    tag: "API description",
    success: { status: 200, description: "The OpenAPI document.", body: "OpenApiDocument" },
  },
  CreateApiKey: {
    summary: "Create an API key",
    description:
      "Creates a key for the organisation. The response is the only time the key itself is shown; only its " +
      "SHA-256 is stored. New keys get `sessions:write events:write read` unless `scopes` says otherwise.",
    tag: "API keys",
    body: { name: "CreateApiKeyRequest" },
    invalidInput: { name: "ci", scopes: ["admin"], environment: "prod" },
    success: { status: 201, description: "The key, with its secret.", body: "CreatedApiKey" },
  },
  ListApiKeys: {
    summary: "List API keys",
    description: "The organisation's keys, without secrets, each with its status.",
    tag: "API keys",
    success: { status: 200, description: "The keys.", body: "ApiKeyList" },
  },
  RotateApiKey: {
    summary: "Rotate an API key",
    description:
      `Creates the replacement of a key. The old key keeps working until now + \`overlapSeconds\` ` +
      `(default ${ROTATION_OVERLAP.defaultSeconds}, at most ${ROTATION_OVERLAP.maxSeconds}, 0 allowed), then 401. ` +
      "A key is rotated once: rotate its replacement next time. The body may be empty.",
    tag: "API keys",
    pathParameters: { id: KEY_ID_PARAMETER },
    body: { name: "RotateApiKeyRequest", optional: true },
    invalidInput: { overlapSeconds: 1e9 },
    success: { status: 201, description: "The new key, and the old one with its `expiresAt`.", body: "RotatedApiKey" },
    errors: {
      404: KEY_NOT_FOUND,
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
    pathParameters: { id: KEY_ID_PARAMETER },
    success: { status: 204, description: "Revoked." },
    errors: { 404: KEY_NOT_FOUND },
  },
  ListApiKeyAudit: {
    summary: "A key's audit trail",
    description: "Who created, rotated or revoked the key, and when; oldest first.",
    tag: "API keys",
    pathParameters: { id: KEY_ID_PARAMETER },
    success: { status: 200, description: "The audit records.", body: "ApiKeyAudit" },
    errors: { 404: KEY_NOT_FOUND },
  },
  ListDeletionAudit: {
    summary: "Who deleted what",
    description:
      "The organisation's latest 100 deletions, newest first: each session deleted (`DELETE " +
      "/api/sdk/sessions/{id}`) and each erasure requested (`DELETE /api/sdk/users/{userId}`), with the API " +
      "key (its id) or signed-in user that asked, both environments. Admins and owners.",
    tag: "Data deletion",
    success: { status: 200, description: "The deletions, newest first.", body: "DeletionAudit" },
  },
  GetMe: {
    summary: "Who am I",
    description:
      "The signed-in user, every organisation they belong to with their role in each (the console picks the " +
      "organisation from these), and apart from them the invitations waiting for their answer (an invitation is " +
      "never an organisation of theirs until they accept it). Needs no `X-Organization-Id`; a user of no " +
      "organisation gets an empty list.",
    tag: "Members",
    success: { status: 200, description: "The user, their organisations and their pending invitations.", body: "Me" },
  },
  ListMembers: {
    summary: "List members",
    description: "The organisation's members with their roles.",
    tag: "Members",
    success: { status: 200, description: "The members.", body: "MemberList" },
  },
  ListInvitations: {
    summary: "List pending invitations",
    description: "The organisation's invitations waiting for an answer (not expired), oldest first.",
    tag: "Members",
    success: { status: 200, description: "The pending invitations.", body: "InvitationList" },
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
    body: { name: "CreateInvitationRequest" },
    invalidInput: { email: "grace\u0000@example.com", role: "superuser" },
    success: { status: 201, description: "The invitation.", body: "Invitation" },
    errors: {
      409: {
        reason: "The person is already a member of the organisation, or already has a pending invitation to it.",
        message: "grace@example.com is already a member of organisation acme",
      },
      429: {
        reason:
          `The organisation sent ${INVITATIONS_PER_DAY} invitations today (UTC) already; \`Retry-After\` gives ` +
          "the seconds to midnight UTC. Refused invitations (400, 409) do not count.",
      },
    },
  },
  RevokeInvitation: {
    summary: "Revoke an invitation",
    description:
      "Withdraws a pending invitation; the person can no longer accept it. Recorded in the organisation's audit " +
      "(`invitation.revoked`).",
    tag: "Members",
    pathParameters: { userId: INVITED_USER_PARAMETER },
    success: { status: 204, description: "Revoked." },
    errors: {
      404: {
        reason: "The user has no pending invitation to the organisation (none, answered, revoked or expired).",
        message: "User 8e2d4c6a-1b3f-4a5e-9c7d-0f2e4a6c8b13 has no pending invitation to organisation acme",
      },
    },
  },
  AcceptInvitation: {
    summary: "Accept an invitation",
    description:
      "The signed-in user accepts their pending invitation to an organisation: in one transaction the invitation " +
      "is consumed and the membership (with the invitation's role) written. Recorded in the organisation's audit " +
      "(`invitation.accepted`).",
    tag: "Members",
    pathParameters: { orgId: INVITING_ORGANISATION_PARAMETER },
    success: { status: 201, description: "The membership the invitation became.", body: "AcceptedInvitation" },
    errors: {
      404: NO_PENDING_INVITATION,
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
    pathParameters: { orgId: INVITING_ORGANISATION_PARAMETER },
    success: { status: 204, description: "Declined." },
    errors: { 404: NO_PENDING_INVITATION },
  },
  UpdateMember: {
    summary: "Change a member's role",
    description:
      "Gives a member another role (the same role changes nothing). The last owner cannot be demoted. " +
      "Recorded in the organisation's audit (`member.role_changed`).",
    tag: "Members",
    pathParameters: { userId: MEMBER_ID_PARAMETER },
    body: { name: "UpdateMemberRequest" },
    invalidInput: { role: "superuser" },
    success: { status: 200, description: "The member with the new role.", body: "Member" },
    errors: { 404: MEMBER_NOT_FOUND, 409: LAST_OWNER },
  },
  RemoveMember: {
    summary: "Remove a member",
    description:
      "Removes a member from the organisation; their user (Cognito account) is not deleted. The last owner " +
      "cannot be removed. Recorded in the organisation's audit (`member.removed`).",
    tag: "Members",
    pathParameters: { userId: MEMBER_ID_PARAMETER },
    success: { status: 204, description: "Removed." },
    errors: { 404: MEMBER_NOT_FOUND, 409: LAST_OWNER },
  },
};

/**
 * What the document says a route takes and answers, as zod schemas: the tests
 * check real requests and responses against these, and send `invalidInput` to
 * compare the real 400 with the documented one.
 */
export function documentedSchemas(routeId: RouteId): {
  readonly body: z.core.$ZodType | undefined;
  readonly query: z.core.$ZodType | undefined;
  readonly response: z.ZodType | undefined;
  readonly invalidInput: Readonly<Record<string, unknown>> | undefined;
} {
  const doc = OPERATIONS[routeId];
  return {
    body:
      doc.body !== undefined
        ? REQUEST_BODIES[doc.body.name]
        : doc.protocolBody !== undefined
          ? PROTOCOL_BODIES[doc.protocolBody.name]
          : undefined,
    query: doc.query?.schema,
    response: doc.success.body === undefined ? undefined : RESPONSE_BODIES[doc.success.body],
    invalidInput: doc.invalidInput,
  };
}

// ---------------------------------------------------------------------------------------------------------------
// What zod cannot put into JSON Schema.

/** Any JSON object, bounded as `fields.ts#jsonObject` checks it (a `superRefine` on `unknown`). */
function jsonObjectSchema(maxBytes: number): JsonSchema {
  return {
    type: "object",
    description: `Any JSON object: at most ${maxBytes} bytes serialized, at most ${LIMITS.jsonDepth} levels deep.`,
  };
}

/** Metric name → finite number, as `fields.ts#metricMap` checks it (a `superRefine` on `unknown`). */
function metricMapSchema(): JsonSchema {
  return {
    type: "object",
    description: `Metric name (1–${LIMITS.metricNameLength} characters) → finite number; at most ${LIMITS.customMetricCount} metrics.`,
    maxProperties: LIMITS.customMetricCount,
    propertyNames: { minLength: 1, maxLength: LIMITS.metricNameLength },
    additionalProperties: { type: "number" },
  };
}

/** `boundedNumber(…, { integer: true })` checks integrality in a refinement: say so. */
function integer(generated: JsonSchema): JsonSchema {
  return { ...generated, type: "integer" };
}

/**
 * Request fields whose zod schema says less in JSON Schema than it checks:
 * the replacement of the field's non-null schema. A request field that comes
 * out unconstrained (`{}`) and is not listed here fails the build.
 */
const REFINED_FIELDS: { readonly [Name in RequestBodyName]?: Record<string, (generated: JsonSchema) => JsonSchema> } = {
  CreateSessionRequest: {
    metadata: () => jsonObjectSchema(LIMITS.metadataBytes),
    id: (generated) => ({
      ...generated,
      description:
        "A client-generated session id in the service's own format (`ses_` + a ULID), for a run started while the " +
        "service was unreachable. Unsent: the service assigns one.",
    }),
    startedAt: (generated) => ({
      ...generated,
      description:
        `When the run started (stored in UTC); at most ${LIMITS.occurredAtFutureMs / 60_000} minutes ahead, not ` +
        "older than the organisation's retention. Becomes the session's `createdAt` (listings, filters, the day " +
        "its stats count it on). Unsent: now.",
    }),
  },
  UpdateSessionRequest: {
    completedAt: (generated) => ({
      ...generated,
      description:
        "When the run ended (stored in UTC), for an end delivered after it happened; only with a final `status`. " +
        `Not before the session's \`createdAt\`, at most ${LIMITS.occurredAtFutureMs / 60_000} minutes ahead, not ` +
        "older than the organisation's retention. Becomes the session's `completedAt` (`updatedAt` and " +
        "`lastActivityAt` stay the service's time). A repeat of the final update may send the stored value; " +
        "another value on an ended session is 409. Unsent: now.",
    }),
    customMetrics: metricMapSchema,
    promptTokens: integer,
    completionTokens: integer,
    totalTokens: integer,
  },
  CreateEventRequest: {
    toolInput: () => jsonObjectSchema(LIMITS.toolPayloadBytes),
    toolOutput: () => jsonObjectSchema(LIMITS.toolPayloadBytes),
  },
  RotateApiKeyRequest: { overlapSeconds: integer },
  CreateEventBatchRequest: {
    events: (generated) => ({
      ...generated,
      items: {
        type: "object",
        description:
          "An event exactly as in CreateEventRequest, plus an optional `idempotencyKey` (1 to 255 visible ASCII characters).",
      },
    }),
  },
};

/** Rules across fields (`superRefine`s) and other checks JSON Schema cannot carry, in words. */
const REQUEST_DESCRIPTIONS: Record<RequestBodyName, string> = {
  CreateSessionRequest: "Start a session. Optional fields may be `null` (= not sent). Unknown fields are rejected.",
  UpdateSessionRequest:
    "Every field is optional, but at least one must be sent; `null` means not sent. `success` defaults to true on " +
    "`completed` and false on `failed`; `failed` with `success: true` is rejected. Unknown fields are rejected.",
  CreateEventRequest: "Record an event. Optional fields may be `null` (= not sent). Unknown fields are rejected.",
  CreateEventBatchRequest: `Up to ${LIMITS.batchEvents} events (body up to ${LIMITS.eventBodyBytes} bytes). Each event is validated and authorised on its own.`,
  CreateApiKeyRequest:
    "`environment` defaults to `live`; `scopes` to `sessions:write events:write read` (duplicates are merged).",
  RotateApiKeyRequest: `\`overlapSeconds\` defaults to ${ROTATION_OVERLAP.defaultSeconds}.`,
  CreateInvitationRequest:
    "The person's email address and the role they get when they accept: `owner`, `admin` or `member`. The " +
    "address must be plain ASCII (`local@domain.tld`; an internationalised domain in its `xn--` form): control " +
    "characters, letters of other scripts and full-width look-alikes are refused. Stored in lower case.",
  UpdateMemberRequest: "The member's new role: `owner`, `admin` or `member`.",
};

/** Checks JSON Schema cannot carry, common to every request body. */
const COMMON_RULES =
  `Strings must be well-formed Unicode (no lone surrogates); non-zero numbers must be at least ` +
  `${LIMITS.smallestNonZero} in magnitude; the body is at most ${LIMITS.bodyBytes} bytes ` +
  `(${LIMITS.eventBodyBytes} on the event routes) once decompressed; \`Content-Encoding: gzip\` is accepted.`;

function isUnconstrained(schema: JsonSchema | boolean | undefined): boolean {
  return schema === true || (typeof schema === "object" && Object.keys(schema).length === 0);
}

/** Applies `replace` to the non-null branch of an `optional()` field (`anyOf: [X, {type: "null"}]`), or the field. */
function replaceNonNull(field: JsonSchema, replace: (generated: JsonSchema) => JsonSchema): JsonSchema {
  const branches = field.anyOf;
  if (branches?.length === 2 && branches[1]?.type === "null" && branches[0] !== undefined) {
    return { ...field, anyOf: [replace(branches[0]), branches[1]] };
  }
  return replace(field);
}

function refineRequestSchema(name: RequestBodyName, generated: JsonSchema): JsonSchema {
  const refinements = REFINED_FIELDS[name] ?? {};
  const properties: Record<string, JsonSchema> = {};
  for (const [field, schema] of Object.entries(generated.properties ?? {})) {
    if (typeof schema !== "object") throw new Error(`${name}.${field}: unexpected boolean schema`);
    const refine = refinements[field];
    const refined = refine === undefined ? schema : replaceNonNull(schema, refine);
    if (isUnconstrained(refined) || (refined.anyOf ?? []).some(isUnconstrained)) {
      throw new Error(`${name}.${field} has no JSON Schema: describe it in REFINED_FIELDS`);
    }
    properties[field] = refined;
  }
  for (const field of Object.keys(refinements)) {
    if (!(field in properties)) throw new Error(`REFINED_FIELDS names ${name}.${field}, which the schema lacks`);
  }
  return { ...generated, description: `${REQUEST_DESCRIPTIONS[name]} ${COMMON_RULES}`, properties };
}

// ---------------------------------------------------------------------------------------------------------------
// Generation.

const JSON_SCHEMA_OPTIONS = { target: "draft-2020-12", unrepresentable: "any" } as const;

/** Drops what a component must not carry: the dialect (`$schema`) and a fragment `$id`. */
function component(schema: JsonSchema): JsonSchema {
  const { $schema: _dialect, $id: _id, ...rest } = schema;
  return rest;
}

/** Converts named zod schemas to components that `$ref` each other as `#/components/schemas/<name>`. */
function components(schemas: Record<string, z.core.$ZodType>, io: "input" | "output"): Record<string, JsonSchema> {
  const registry = z.registry<{ id: string }>();
  for (const [id, schema] of Object.entries(schemas)) registry.add(schema, { id });
  const generated = z.toJSONSchema(registry, {
    ...JSON_SCHEMA_OPTIONS,
    io,
    uri: (id) => `#/components/schemas/${id}`,
  }).schemas;
  return Object.fromEntries(
    Object.keys(schemas).map((id) => {
      const schema = generated[id];
      if (schema === undefined) throw new Error(`No JSON Schema generated for ${id}`);
      return [id, component(schema)];
    }),
  );
}

function schemaComponents(): Record<string, JsonSchema> {
  const requests = components(REQUEST_BODIES, "input");
  const refined = Object.fromEntries(
    (Object.keys(REQUEST_BODIES) as RequestBodyName[]).map((name) => {
      const schema = requests[name];
      if (schema === undefined) throw new Error(`No JSON Schema generated for ${name}`);
      return [name, refineRequestSchema(name, schema)];
    }),
  );
  return {
    ...refined,
    ...components({ ...PROTOCOL_BODIES, ...PROTOCOL_PARTS }, "input"),
    ...components(RESPONSE_BODIES, "output"),
  };
}

function queryParameters(routeId: RouteId, query: NonNullable<OperationDoc["query"]>): Parameter[] {
  const generated = z.toJSONSchema(query.schema, { ...JSON_SCHEMA_OPTIONS, io: "input" });
  const required = new Set(generated.required ?? []);
  const properties = Object.entries(generated.properties ?? {});
  for (const name of Object.keys(query.parameters)) {
    if (!properties.some(([property]) => property === name)) {
      throw new Error(`${routeId}: query parameter ${name} is documented but not in the schema`);
    }
  }
  return properties.map(([name, schema]) => {
    const doc = query.parameters[name];
    if (doc === undefined) throw new Error(`${routeId}: describe the query parameter ${name}`);
    if (typeof schema !== "object") throw new Error(`${routeId}: query parameter ${name} has a boolean schema`);
    return { name, in: "query", required: required.has(name), ...doc, schema };
  });
}

function pathParameters(route: RouteEntry, doc: OperationDoc): Parameter[] {
  const names = [...route.path.matchAll(/\{(\w+)\}/g)].map((match) => match[1] ?? "");
  for (const name of Object.keys(doc.pathParameters ?? {})) {
    if (!names.includes(name)) throw new Error(`${route.id}: path parameter ${name} is not in ${route.path}`);
  }
  return names.map((name) => {
    const parameter = doc.pathParameters?.[name];
    if (parameter === undefined) throw new Error(`${route.id}: describe the path parameter ${name}`);
    return { name, in: "path", required: true, ...parameter, schema: { type: "string", minLength: 1 } };
  });
}

/** The real 400 answer to the route's documented invalid input: run through the route's own schema. */
function badRequestExample(route: RouteEntry, doc: OperationDoc) {
  const schema = doc.body === undefined ? doc.query?.schema : REQUEST_BODIES[doc.body.name];
  if (schema === undefined || doc.invalidInput === undefined) {
    throw new Error(`${route.id}: give an invalidInput for the 400 example`);
  }
  const result = z.safeParse(schema, doc.invalidInput);
  if (result.success) throw new Error(`${route.id}: its invalidInput is valid`);
  const what = doc.body === undefined ? "query parameters" : "request body";
  return JSON.parse(errorAnswer(invalidFieldsError(what, toFieldIssues(result.error.issues))).body ?? "{}");
}

/** One reason for an error status, with an example body. */
interface ErrorCase {
  readonly name: string;
  readonly reason: string;
  readonly example: unknown;
}

/** Every error status the route can answer with, each with its reasons and their example bodies. */
function errorCases(route: RouteEntry, doc: OperationDoc): Map<ErrorStatus, ErrorCase[]> {
  const cases = new Map<ErrorStatus, ErrorCase[]>();
  const add = (status: ErrorStatus, name: string, reason: string, example: unknown = errorExamples[status]) => {
    cases.set(status, [...(cases.get(status) ?? []), { name, reason, example }]);
  };
  if (route.auth.kind === "apiKeyOrUser") {
    add(
      400,
      "tenant",
      "With an access token: `X-Organization-Id` is missing, or `X-Environment` is neither `live` nor `test`.",
      {
        error: "Bad Request",
        message: "Missing X-Organization-Id header: name the organisation whose data you read",
        issues: [{ path: "X-Organization-Id", message: "Required with an access token" }],
      },
    );
    add(
      401,
      "credential",
      "The API key is missing, malformed, unknown, expired or revoked; or the access token is invalid or expired.",
    );
    add(
      403,
      "scopeOrRole",
      `The API key lacks the \`${route.auth.scope}\` scope; or the user is not a member of the organisation, or ` +
        `their role is below \`${route.auth.role}\`.`,
      {
        error: "Forbidden",
        message: `This API key has no access to this resource: it lacks the "${route.auth.scope}" scope`,
      },
    );
  }
  if (route.auth.kind === "signedIn") {
    add(401, "accessToken", "The access token is missing, invalid or expired, or an API key was sent.", {
      error: "Unauthorized",
      message: "Missing access token: sign in and send Authorization: Bearer <access token>",
    });
  }
  if (route.auth.kind === "apiKey") {
    add(
      401,
      "apiKey",
      "The API key is missing, malformed, unknown, expired or revoked (checked before the body is read).",
    );
    add(403, "scope", `The API key lacks the \`${route.auth.scope}\` scope.`, {
      error: "Forbidden",
      message: `This API key has no access to this resource: it lacks the "${route.auth.scope}" scope`,
    });
  }
  if (route.auth.kind === "user") {
    add(400, "organisation", "The user belongs to several organisations and sent no `X-Organization-Id`.", {
      error: "Bad Request",
      message: "You belong to several organisations: choose one with the X-Organization-Id header",
      issues: [{ path: "X-Organization-Id", message: "Required when you belong to several organisations" }],
    });
    add(401, "accessToken", "The access token is missing, invalid or expired, or an API key was sent.", {
      error: "Unauthorized",
      message: "Missing access token: sign in and send Authorization: Bearer <access token>",
    });
    add(403, "role", `The user is not a member of the organisation, or their role is below \`${route.auth.role}\`.`, {
      error: "Forbidden",
      message: `Your role in organisation acme is member; this action needs ${roleRequirement(route.auth.role)}`,
    });
  }
  if (doc.body !== undefined) {
    add(
      400,
      "body",
      "The body is not a JSON object (malformed, empty, not an object), or fields are missing, invalid or unknown: " +
        "each is named in `issues`.",
      badRequestExample(route, doc),
    );
    add(
      413,
      "tooLarge",
      `The body is over ${LIMITS.bodyBytes} bytes (${LIMITS.eventBodyBytes} on the event routes), once decompressed.`,
    );
    add(
      415,
      "mediaType",
      "`Content-Type` is not JSON (`application/json`, `application/*+json`; a missing one is accepted), or " +
        "`Content-Encoding` is neither `gzip` nor `identity`.",
    );
  }
  if (doc.query !== undefined) {
    add(
      400,
      "query",
      "Query parameters are invalid or unknown: each is named in `issues`.",
      badRequestExample(route, doc),
    );
  }
  for (const [status, error] of Object.entries(doc.errors ?? {})) {
    const code = Number(status) as ErrorStatus;
    // A 400 names the body in `issues`, as the error mapper answers a ValidationError.
    const example =
      error.message === undefined
        ? undefined
        : code === 400
          ? JSON.parse(errorAnswer(new ValidationError(error.message)).body ?? "{}")
          : { error: errorExamples[code].error, message: error.message };
    add(code, route.id, error.reason, example);
  }
  add(500, "unexpected", "An unexpected failure (logged in full with the request id); safe to retry.");
  return cases;
}

const JSON_MEDIA_TYPE = "application/json";

function errorResponses(route: RouteEntry, doc: OperationDoc): Record<string, Record<string, unknown>> {
  const responses: Record<string, Record<string, unknown>> = {};
  const sorted = [...errorCases(route, doc)].sort(([a], [b]) => a - b);
  for (const [status, cases] of sorted) {
    const [only] = cases;
    const examples =
      cases.length === 1 && only !== undefined
        ? { example: only.example }
        : { examples: Object.fromEntries(cases.map((c) => [c.name, { summary: c.reason, value: c.example }])) };
    responses[String(status)] = {
      description: cases.map((c) => c.reason).join(" "),
      ...(status === 401 ? { headers: { "WWW-Authenticate": { $ref: "#/components/headers/WWWAuthenticate" } } } : {}),
      ...(status === 429 || status === 503
        ? { headers: { "Retry-After": { $ref: "#/components/headers/RetryAfter" } } }
        : {}),
      content: { [JSON_MEDIA_TYPE]: { schema: { $ref: "#/components/schemas/Error" }, ...examples } },
    };
  }
  return responses;
}

function security(route: RouteEntry): Pick<Operation, "security" | "x-required-scope" | "x-required-role"> {
  switch (route.auth.kind) {
    case "apiKey":
      return { security: [{ apiKey: [] }], "x-required-scope": route.auth.scope };
    case "user":
      return { security: [{ userToken: [] }], "x-required-role": route.auth.role };
    case "apiKeyOrUser":
      return {
        security: [{ apiKey: [] }, { userToken: [] }],
        "x-required-scope": route.auth.scope,
        "x-required-role": route.auth.role,
      };
    case "signedIn":
      return { security: [{ userToken: [] }] };
    case "public":
      return { security: [] };
  }
}

function accessNote(route: RouteEntry): string {
  switch (route.auth.kind) {
    case "apiKey":
      return `Requires an API key with the \`${route.auth.scope}\` scope.`;
    case "user":
      return route.auth.role === "owner"
        ? "Requires a signed-in user who is an `owner` of the organisation."
        : `Requires a signed-in user whose role in the organisation is \`${route.auth.role}\` or above.`;
    case "apiKeyOrUser":
      return (
        `Requires an API key with the \`${route.auth.scope}\` scope, or (the console) a signed-in user's access ` +
        `token with \`X-Organization-Id\` (role \`${route.auth.role}\` or above) and \`X-Environment\`, acting ` +
        "as a key of that organisation and environment would."
      );
    case "signedIn":
      return "Requires a signed-in user's access token (no organisation).";
    case "public":
      return "Public.";
  }
}

/** A message of a protocol's binary encoding (protobuf): the same message as its JSON schema, encoded. */
function binaryContent(mediaType: string, schemaName: string): Record<string, unknown> {
  return {
    [mediaType]: {
      schema: {
        description: `The message of \`${schemaName}\` in the protocol's binary encoding (${mediaType}).`,
        contentMediaType: mediaType,
      },
    },
  };
}

function requestBody(doc: OperationDoc): Pick<Operation, "requestBody"> {
  if (doc.body !== undefined) {
    return {
      requestBody: {
        required: doc.body.optional !== true,
        content: {
          [JSON_MEDIA_TYPE]: {
            schema: { $ref: `#/components/schemas/${doc.body.name}` },
            example: requestExamples[doc.body.name],
          },
        },
      },
    };
  }
  if (doc.protocolBody !== undefined) {
    const { name, binaryMediaType } = doc.protocolBody;
    return {
      requestBody: {
        required: true,
        content: {
          ...binaryContent(binaryMediaType, name),
          [JSON_MEDIA_TYPE]: { schema: { $ref: `#/components/schemas/${name}` }, example: requestExamples[name] },
        },
      },
    };
  }
  return {};
}

function operation(route: RouteEntry): Operation {
  const doc = OPERATIONS[route.id as RouteId];
  const parameters: (Parameter | { $ref: string })[] = [
    ...pathParameters(route, doc),
    ...(doc.query === undefined ? [] : queryParameters(route.id as RouteId, doc.query)),
    ...(route.auth.kind === "user" ? [{ $ref: "#/components/parameters/OrganizationId" }] : []),
    ...(route.auth.kind === "apiKeyOrUser"
      ? [{ $ref: "#/components/parameters/TenantOrganizationId" }, { $ref: "#/components/parameters/Environment" }]
      : []),
  ];
  const { status, description, body, rawContent } = doc.success;
  const example = (responseExamples as Partial<Record<string, unknown>>)[route.id];
  if (body !== undefined && example === undefined) throw new Error(`${route.id}: give a response example`);
  return {
    operationId: route.id,
    summary: doc.summary,
    description: [doc.description, doc.query?.rules, accessNote(route)].filter(Boolean).join(" "),
    tags: [doc.tag],
    ...security(route),
    ...(parameters.length === 0 ? {} : { parameters }),
    ...requestBody(doc),
    responses: {
      [String(status)]: {
        description,
        ...(rawContent !== undefined ? { content: rawContent } : {}),
        ...(body === undefined
          ? {}
          : {
              content: {
                [JSON_MEDIA_TYPE]: { schema: { $ref: `#/components/schemas/${body}` }, example },
                ...(doc.protocolBody === undefined ? {} : binaryContent(doc.protocolBody.binaryMediaType, body)),
              },
            }),
      },
      ...errorResponses(route, doc),
    },
  };
}

function buildDocument(): OpenApiDocument {
  const paths: Record<string, Partial<Record<Lowercase<HttpMethod>, Operation>>> = {};
  for (const route of routeTable) {
    const methods = paths[route.path] ?? {};
    methods[route.method.toLowerCase() as Lowercase<HttpMethod>] = operation(route);
    paths[route.path] = methods;
  }
  const document: OpenApiDocument = {
    openapi: "3.1.0",
    info: {
      title: "Agent Tracking Service",
      version: packageJson.version,
      description:
        "Record what software agents do (runs, tool calls, decisions, costs, tokens) over a small JSON HTTP API, " +
        "and read it back. SDK routes take an API key, key- and member-management routes a signed-in user's access " +
        "token, and the read routes either (the console reads with a user's token). " +
        "Every error is JSON `{ error, message }`, and a 400 adds `issues` naming every bad field. Generated from " +
        "the route table and the zod schemas the handlers validate with.",
    },
    servers: [{ url: "/", description: "The API itself (the `ApiUrl` stack output; http://127.0.0.1:3000 locally)" }],
    tags: Object.entries(TAGS).map(([name, description]) => ({ name, description })),
    paths,
    components: {
      securitySchemes: {
        apiKey: {
          type: "http",
          scheme: "bearer",
          bearerFormat: "ats_live_… / ats_test_… API key",
          description:
            "An API key: `Authorization: Bearer ats_<environment>_<38 characters>`. Each key belongs to one " +
            "organisation and environment and holds scopes (`sessions:write`, `events:write`, `read`, `delete`).",
        },
        userToken: {
          type: "http",
          scheme: "bearer",
          bearerFormat: "JWT",
          description:
            "A signed-in user's access token (a Cognito user-pool access token on AWS, the local issuer's locally). " +
            "Roles: `owner`, `admin`, `member`.",
        },
      },
      headers: {
        WWWAuthenticate: { description: "Sent with every 401.", schema: { type: "string", const: "Bearer" } },
        RetryAfter: {
          description: "Sent with every 429 and 503: seconds to wait before retrying.",
          schema: { type: "integer", minimum: 1 },
        },
      },
      parameters: {
        OrganizationId: {
          name: "X-Organization-Id",
          in: "header",
          required: false,
          description: "The organisation to act for; required (400 without it) when the user belongs to several.",
          schema: { type: "string", minLength: 1 },
          example: "acme",
        },
        TenantOrganizationId: {
          name: "X-Organization-Id",
          in: "header",
          required: false,
          description:
            "With an access token (required then, 400 without it): the organisation whose data to read; the user " +
            "must be a member of it (403). Ignored with an API key (the key names its organisation).",
          schema: { type: "string", minLength: 1 },
          example: "acme",
        },
        Environment: {
          name: "X-Environment",
          in: "header",
          required: false,
          description:
            "With an access token: the environment whose data to read, `live` (default) or `test` (anything else " +
            "is 400). Ignored with an API key (the key names its environment).",
          schema: { type: "string", enum: ["live", "test"], default: "live" },
          example: "live",
        },
      },
      schemas: schemaComponents(),
    },
  };
  // Plain, frozen JSON from here on: what `JSON.stringify` writes is exactly what callers compare, and the
  // memoised document cannot be changed by one of them (copy it first: `structuredClone`).
  return deepFreeze(JSON.parse(JSON.stringify(document)) as OpenApiDocument);
}

function deepFreeze<T>(value: T): T {
  if (typeof value === "object" && value !== null) {
    for (const child of Object.values(value)) deepFreeze(child);
    Object.freeze(value);
  }
  return value;
}

let memoised: OpenApiDocument | undefined;

/** The OpenAPI 3.1 document of this API, built on first call and memoised. */
export function openApiDocument(): OpenApiDocument {
  memoised ??= buildDocument();
  return memoised;
}
