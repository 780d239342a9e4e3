/**
 * The contract of every route of the route table, keyed by its id: what it takes (path parameters, query
 * schema, body schema) and what it answers (success status and body schema, and the errors particular to
 * it). The OpenAPI document is generated from these, the route table and the middleware chain's rules
 * (functions/openapi/); a route without a contract does not compile.
 *
 * The schemas are the very ones the handlers validate with (request) or the tests check real responses
 * against (response). Errors that follow from a route's shape are not listed here, the generator derives
 * them as the chain answers them (functions/http/): authentication (401, 403, the tenant headers' 400),
 * the rate limit (429) and `Idempotency-Key` (400, 409, 422) of the API-key chain, a body (400, 413, 415),
 * a query (400), a path parameter (below), and 500. `errors` lists only what the handler itself adds.
 *
 * Documentation only: handlers never import this module (it carries every response schema, in full zod).
 */
import * as z from "zod";
import { LIMITS } from "../domain/limits.js";
import type { RouteId, routeTable } from "../route-table.js";
import type { EventField } from "../store/events/event-store.js";
import { ORGANISATION_PRICE_LIMITS } from "../store/prices/price-limits.js";
import {
  alertDestinationListResponse,
  alertDestinationResponse,
  createdAlertDestinationResponse,
  destinationTestResponse,
  rotatedSecretResponse,
} from "./alert-destination-responses.js";
import { createDestinationBody, updateDestinationBody } from "./alert-destination-schemas.js";
import { createApiKeyBody, rotateApiKeyBody } from "./api-key-schemas.js";
import { createEventBatchBody, createEventBody } from "./event-schemas.js";
import { exportRunListResponse } from "./export-response-schemas.js";
import { listExportsQuery } from "./export-schemas.js";
import { createFeedbackTokenBody, postFeedbackBody } from "./feedback-schemas.js";
import { createInvitationBody, updateMemberBody } from "./member-schemas.js";
import { metricsResponse } from "./metrics-response-schemas.js";
import { metricsQueryBody } from "./metrics-schemas.js";
import {
  alertAuditResponse,
  monitorHistoryResponse,
  monitorListResponse,
  monitorPreviewResponse,
  monitorResponse,
  monitorTestResponse,
} from "./monitor-response-schemas.js";
import { alertAuditQuery, monitorDefinitionBody, monitorHistoryQuery } from "./monitor-schemas.js";
import {
  exportLogsServiceRequest,
  exportLogsServiceResponse,
  exportTraceServiceRequest,
  exportTraceServiceResponse,
} from "./otlp-schemas.js";
import { deletePriceQuery, putPriceBody } from "./price-schemas.js";
import {
  getConversationQuery,
  listAgentsQuery,
  listConversationsQuery,
  listEventsQuery,
  listScoresQuery,
  listSessionsQuery,
  statsQuery,
} from "./read-schemas.js";
import {
  acceptedInvitationResponse,
  agentListResponse,
  agentModelsResponse,
  agentStatsResponse,
  apiKeyAuditResponse,
  apiKeyListResponse,
  conversationDetailResponse,
  conversationPageResponse,
  createdApiKeyResponse,
  createdEventResponse,
  createdSessionResponse,
  deletionAuditResponse,
  deletionJobAcceptedResponse,
  deletionJobResponse,
  eventBatchResponse,
  eventPageResponse,
  feedbackTokenResponse,
  invitationListResponse,
  invitationResponse,
  memberListResponse,
  memberResponse,
  meResponse,
  modelsResponse,
  openApiDocumentResponse,
  organisationPriceListResponse,
  organisationPriceResponse,
  priceAuditResponse,
  priceTableResponse,
  rotatedApiKeyResponse,
  scoreBatchResponse,
  scoreConfigListResponse,
  scoreConfigResponse,
  scorePageResponse,
  scoreResponse,
  sessionDetailResponse,
  sessionPageResponse,
  updatedSessionResponse,
  userStatsResponse,
} from "./response-schemas.js";
import { putScoreConfigBody } from "./score-config-schemas.js";
import { createScoreBatchBody, createScoreBody } from "./score-schemas.js";
import { createSessionBody, updateSessionBody } from "./session-schemas.js";

/** Error statuses a handler may answer with beyond those its route's shape implies. */
export type ErrorStatus = 400 | 403 | 404 | 406 | 409 | 413 | 415 | 422 | 429 | 500 | 503;

const anyText = z.string().min(1);
const pathName = z.string().min(1).max(LIMITS.nameLength);

/**
 * The kinds of path parameter: the schema of the value (documentation: handlers read path parameters
 * themselves) and the errors a value answers with when it is invalid, unknown or not the caller's.
 */
export const PATH_PARAMETERS = {
  /** A session id: 404 when unknown, 403 when another tenant's (the store decides, store/sessions/). */
  sessionId: { schema: anyText, errors: [403, 404] },
  eventId: { schema: anyText, errors: [] },
  /** A conversation id (a name, URL-encoded): 400 past the name limits, 404 when the caller's tenant has none. */
  conversationId: { schema: pathName, errors: [400, 404] },
  /** A score id of the session or conversation: 404 when it holds no such score. */
  scoreId: { schema: anyText, errors: [404] },
  eventField: {
    schema: z.enum(["toolInput", "toolOutput", "reasoning"] as const satisfies readonly EventField[]),
    errors: [400],
  },
  /** Names checked as in bodies (http/path-parameters.ts namePathParameter): 400 past the name limits. */
  agentName: { schema: pathName, errors: [400] },
  externalUserId: { schema: pathName, errors: [400] },
  deletionJobId: { schema: anyText, errors: [404] },
  apiKeyId: { schema: anyText, errors: [404] },
  memberUserId: { schema: anyText, errors: [404] },
  invitedUserId: { schema: anyText, errors: [404] },
  invitingOrganisation: { schema: anyText, errors: [404] },
  /** A score name, URL-encoded (scores/score-name-parameter.ts): 400 past the name limits. */
  scoreName: { schema: z.string().min(1).max(LIMITS.scoreNameLength), errors: [400] },
  /** A monitor id (`mon_…`) of the caller's organisation and environment: 404 otherwise. */
  monitorId: { schema: anyText, errors: [404] },
  /** A model name, URL-encoded (prices/model-path-parameter.ts): 400 past the name limits. */
  modelName: { schema: z.string().min(1).max(ORGANISATION_PRICE_LIMITS.modelLength), errors: [400] },
  /** An alert destination id (`dst_…`): 404 when the organisation has none of that id. */
  alertDestinationId: { schema: anyText, errors: [404] },
} as const satisfies Record<string, { readonly schema: z.ZodType; readonly errors: readonly ErrorStatus[] }>;
export type PathParameterKind = keyof typeof PATH_PARAMETERS;

/** Media types a route answers with its content itself (not a JSON body of a schema). */
export type RawMediaType = "application/json" | "text/plain";

interface ContractShape {
  /** The query string's schema (as the handler declares it: `{ query }` of its route options). */
  readonly query?: z.core.$ZodType;
  /**
   * The JSON body's schema (`{ body }` of the route options); `optional` when an empty body is accepted
   * (`bodyOptional`), `maxBytes` when not LIMITS.bodyBytes (`maxBodyBytes`).
   */
  readonly body?: { readonly schema: z.core.$ZodType; readonly optional?: boolean; readonly maxBytes?: number };
  /**
   * Instead of `body`: a telemetry protocol's body that the handler decodes itself (`rawBody` of the route
   * options), in JSON (`schema`: its JSON encoding, named in protocolComponents) or in `binaryMediaType`;
   * the success body comes in the request's encoding.
   */
  readonly protocolBody?: {
    readonly schema: z.ZodType;
    readonly binaryMediaType: string;
    readonly maxBytes: number;
  };
  readonly success: {
    readonly status: 200 | 201 | 202 | 204;
    /** The JSON body's schema, named in responseComponents; none for 204 and for `raw`. */
    readonly body?: z.ZodType;
    /** Instead of `body`: the answer is the content itself, in one of these media types. */
    readonly raw?: readonly RawMediaType[];
  };
  /** Errors the handler itself answers with (each explained in functions/openapi/openapi-prose.ts). */
  readonly errors?: readonly ErrorStatus[];
}

type RouteOf<Id extends RouteId> = Extract<(typeof routeTable)[number], { readonly id: Id }>;
type PathNames<Path extends string> = Path extends `${string}{${infer Name}}${infer Rest}`
  ? Name | PathNames<Rest>
  : never;
/** The `{name}`s of a route's path. */
export type PathParameterName<Id extends RouteId> = PathNames<RouteOf<Id>["path"]>;

/** A route's contract: every `{name}` of its path has a kind, and no other name does. */
export type RouteContract<Id extends RouteId> = ContractShape &
  ([PathParameterName<Id>] extends [never]
    ? { readonly path?: never }
    : { readonly path: { readonly [Name in PathParameterName<Id>]: PathParameterKind } });

export const routeContracts = {
  CreateSession: {
    body: { schema: createSessionBody },
    success: { status: 201, body: createdSessionResponse },
    errors: [409],
  },
  UpdateSession: {
    path: { id: "sessionId" },
    body: { schema: updateSessionBody },
    success: { status: 200, body: updatedSessionResponse },
    errors: [409],
  },
  CreateEvent: {
    body: { schema: createEventBody, maxBytes: LIMITS.eventBodyBytes },
    success: { status: 201, body: createdEventResponse },
    errors: [403, 404, 409],
  },
  CreateEventBatch: {
    body: { schema: createEventBatchBody, maxBytes: LIMITS.eventBodyBytes },
    success: { status: 200, body: eventBatchResponse },
  },
  CreateScore: {
    body: { schema: createScoreBody },
    success: { status: 201, body: scoreResponse },
    errors: [403, 404, 409],
  },
  CreateScoreBatch: {
    body: { schema: createScoreBatchBody },
    success: { status: 200, body: scoreBatchResponse },
  },
  CreateFeedbackToken: {
    body: { schema: createFeedbackTokenBody },
    success: { status: 201, body: feedbackTokenResponse },
    errors: [403, 404],
  },
  PostFeedback: {
    body: { schema: postFeedbackBody },
    success: { status: 201, body: scoreResponse },
    errors: [403, 404],
  },
  FeedbackPreflight: { success: { status: 204 } },
  ExportTraces: {
    protocolBody: {
      schema: exportTraceServiceRequest,
      binaryMediaType: "application/x-protobuf",
      maxBytes: LIMITS.eventBodyBytes,
    },
    success: { status: 200, body: exportTraceServiceResponse },
    errors: [400, 415, 503],
  },
  ExportLangfuseTraces: {
    protocolBody: {
      schema: exportTraceServiceRequest,
      binaryMediaType: "application/x-protobuf",
      maxBytes: LIMITS.eventBodyBytes,
    },
    success: { status: 200, body: exportTraceServiceResponse },
    errors: [400, 415, 503],
  },
  ExportLogs: {
    protocolBody: {
      schema: exportLogsServiceRequest,
      binaryMediaType: "application/x-protobuf",
      maxBytes: LIMITS.eventBodyBytes,
    },
    success: { status: 200, body: exportLogsServiceResponse },
    errors: [400, 415, 503],
  },
  GetSession: { path: { id: "sessionId" }, success: { status: 200, body: sessionDetailResponse } },
  ListSessions: { query: listSessionsQuery, success: { status: 200, body: sessionPageResponse } },
  ListConversations: {
    query: listConversationsQuery,
    success: { status: 200, body: conversationPageResponse },
  },
  GetConversation: {
    path: { id: "conversationId" },
    query: getConversationQuery,
    success: { status: 200, body: conversationDetailResponse },
  },
  ListEvents: {
    path: { id: "sessionId" },
    query: listEventsQuery,
    success: { status: 200, body: eventPageResponse },
  },
  GetEventField: {
    path: { id: "sessionId", eventId: "eventId", field: "eventField" },
    success: { status: 200, raw: ["application/json", "text/plain"] },
    errors: [404, 406],
  },
  ListScores: {
    path: { id: "sessionId" },
    query: listScoresQuery,
    success: { status: 200, body: scorePageResponse },
  },
  DeleteScore: { path: { id: "sessionId", scoreId: "scoreId" }, success: { status: 204 } },
  ListConversationScores: {
    path: { id: "conversationId" },
    query: listScoresQuery,
    success: { status: 200, body: scorePageResponse },
  },
  DeleteConversationScore: { path: { id: "conversationId", scoreId: "scoreId" }, success: { status: 204 } },
  ListScoreConfigs: { success: { status: 200, body: scoreConfigListResponse } },
  PutScoreConfig: {
    path: { name: "scoreName" },
    body: { schema: putScoreConfigBody },
    success: { status: 200, body: scoreConfigResponse },
    errors: [409],
  },
  DeleteScoreConfig: { path: { name: "scoreName" }, success: { status: 204 }, errors: [404] },
  DeleteSession: { path: { id: "sessionId" }, success: { status: 204 }, errors: [409] },
  ListAgents: { query: listAgentsQuery, success: { status: 200, body: agentListResponse } },
  AgentStats: {
    path: { agentName: "agentName" },
    query: statsQuery,
    success: { status: 200, body: agentStatsResponse },
  },
  ListModels: { query: statsQuery, success: { status: 200, body: modelsResponse } },
  AgentModels: {
    path: { agentName: "agentName" },
    query: statsQuery,
    success: { status: 200, body: agentModelsResponse },
  },
  UserStats: {
    path: { userId: "externalUserId" },
    query: statsQuery,
    success: { status: 200, body: userStatsResponse },
  },
  QueryMetrics: {
    body: { schema: metricsQueryBody },
    success: { status: 200, body: metricsResponse },
    errors: [400],
  },
  DeleteUserData: { path: { userId: "externalUserId" }, success: { status: 202, body: deletionJobAcceptedResponse } },
  GetDeletionJob: { path: { jobId: "deletionJobId" }, success: { status: 200, body: deletionJobResponse } },
  OpenApiDocument: { success: { status: 200, body: openApiDocumentResponse } },
  CreateApiKey: { body: { schema: createApiKeyBody }, success: { status: 201, body: createdApiKeyResponse } },
  ListApiKeys: { success: { status: 200, body: apiKeyListResponse } },
  RotateApiKey: {
    path: { id: "apiKeyId" },
    body: { schema: rotateApiKeyBody, optional: true },
    success: { status: 201, body: rotatedApiKeyResponse },
    errors: [409],
  },
  RevokeApiKey: { path: { id: "apiKeyId" }, success: { status: 204 } },
  ListApiKeyAudit: { path: { id: "apiKeyId" }, success: { status: 200, body: apiKeyAuditResponse } },
  ListDeletionAudit: { success: { status: 200, body: deletionAuditResponse } },
  ListExports: { query: listExportsQuery, success: { status: 200, body: exportRunListResponse } },
  GetMe: { success: { status: 200, body: meResponse } },
  ListMembers: { success: { status: 200, body: memberListResponse } },
  ListInvitations: { success: { status: 200, body: invitationListResponse } },
  CreateInvitation: {
    body: { schema: createInvitationBody },
    success: { status: 201, body: invitationResponse },
    errors: [409, 429],
  },
  RevokeInvitation: { path: { userId: "invitedUserId" }, success: { status: 204 } },
  AcceptInvitation: {
    path: { orgId: "invitingOrganisation" },
    success: { status: 201, body: acceptedInvitationResponse },
    errors: [409],
  },
  DeclineInvitation: { path: { orgId: "invitingOrganisation" }, success: { status: 204 } },
  UpdateMember: {
    path: { userId: "memberUserId" },
    body: { schema: updateMemberBody },
    success: { status: 200, body: memberResponse },
    errors: [409],
  },
  RemoveMember: { path: { userId: "memberUserId" }, success: { status: 204 }, errors: [409] },
  ListOrganisationPrices: { success: { status: 200, body: organisationPriceListResponse } },
  GetPriceTable: { success: { status: 200, body: priceTableResponse } },
  ListPriceAudit: { success: { status: 200, body: priceAuditResponse } },
  PutOrganisationPrice: {
    path: { model: "modelName" },
    body: { schema: putPriceBody },
    success: { status: 200, body: organisationPriceResponse },
    errors: [409],
  },
  DeleteOrganisationPrice: {
    path: { model: "modelName" },
    query: deletePriceQuery,
    success: { status: 204 },
    errors: [404, 409],
  },
  ListMonitors: { success: { status: 200, body: monitorListResponse }, errors: [400] },
  CreateMonitor: {
    body: { schema: monitorDefinitionBody },
    success: { status: 201, body: monitorResponse },
    errors: [409],
  },
  PreviewMonitor: { body: { schema: monitorDefinitionBody }, success: { status: 200, body: monitorPreviewResponse } },
  GetMonitor: { path: { monitorId: "monitorId" }, success: { status: 200, body: monitorResponse }, errors: [400] },
  ReplaceMonitor: {
    path: { monitorId: "monitorId" },
    body: { schema: monitorDefinitionBody },
    success: { status: 200, body: monitorResponse },
    errors: [409],
  },
  DeleteMonitor: { path: { monitorId: "monitorId" }, success: { status: 204 }, errors: [400, 409] },
  ListMonitorHistory: {
    path: { monitorId: "monitorId" },
    query: monitorHistoryQuery,
    success: { status: 200, body: monitorHistoryResponse },
  },
  TestMonitor: { path: { monitorId: "monitorId" }, success: { status: 202, body: monitorTestResponse }, errors: [400] },
  ListAlertAudit: { query: alertAuditQuery, success: { status: 200, body: alertAuditResponse } },
  ListAlertDestinations: { success: { status: 200, body: alertDestinationListResponse } },
  CreateAlertDestination: {
    body: { schema: createDestinationBody },
    success: { status: 201, body: createdAlertDestinationResponse },
    errors: [409],
  },
  GetAlertDestination: {
    path: { destinationId: "alertDestinationId" },
    success: { status: 200, body: alertDestinationResponse },
  },
  UpdateAlertDestination: {
    path: { destinationId: "alertDestinationId" },
    body: { schema: updateDestinationBody },
    success: { status: 200, body: alertDestinationResponse },
    errors: [409],
  },
  DeleteAlertDestination: { path: { destinationId: "alertDestinationId" }, success: { status: 204 } },
  RotateAlertDestinationSecret: {
    path: { destinationId: "alertDestinationId" },
    success: { status: 200, body: rotatedSecretResponse },
    errors: [409],
  },
  TestAlertDestination: {
    path: { destinationId: "alertDestinationId" },
    success: { status: 200, body: destinationTestResponse },
  },
} as const satisfies { readonly [Id in RouteId]: RouteContract<Id> };

export type RouteContracts = typeof routeContracts;

/** The route ids whose contract has `Key`. */
export type RoutesWith<Key extends string> = {
  [Id in RouteId]: RouteContracts[Id] extends Record<Key, unknown> ? Id : never;
}[RouteId];

/** The contract of a route, widened to the shape every contract shares (for code walking all routes). */
export function contractOf(id: RouteId): ContractShape & {
  readonly path?: Readonly<Record<string, PathParameterKind>>;
} {
  return routeContracts[id];
}
