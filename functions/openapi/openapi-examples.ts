/**
 * Examples for the OpenAPI document: one request body per body-taking route
 * and one success body per route, all telling one story (a support bot
 * handling a refund). Each is typed by the zod schema it illustrates, and the
 * OpenAPI tests parse every one of them with that schema.
 */
import type * as z from "zod";
import type {
  alertDestinationListResponse,
  alertDestinationResponse,
  createdAlertDestinationResponse,
  destinationTestResponse,
  rotatedSecretResponse,
} from "../schemas/alert-destination-responses.js";
import type { createDestinationBody, updateDestinationBody } from "../schemas/alert-destination-schemas.js";
import type { createApiKeyBody, rotateApiKeyBody } from "../schemas/api-key-schemas.js";
import type { createEventBatchBody, createEventBody } from "../schemas/event-schemas.js";
import type { exportRunListResponse } from "../schemas/export-response-schemas.js";
import type { createFeedbackTokenBody, postFeedbackBody } from "../schemas/feedback-schemas.js";
import type { createInvitationBody, updateMemberBody } from "../schemas/member-schemas.js";
import type { metricsResponse } from "../schemas/metrics-response-schemas.js";
import type { metricsQueryBody } from "../schemas/metrics-schemas.js";
import type {
  alertAuditResponse,
  monitorHistoryResponse,
  monitorListResponse,
  monitorPreviewResponse,
  monitorResponse,
  monitorTestResponse,
} from "../schemas/monitor-response-schemas.js";
import type { monitorDefinitionBody } from "../schemas/monitor-schemas.js";
import type {
  exportLogsServiceRequest,
  exportLogsServiceResponse,
  exportTraceServiceRequest,
  exportTraceServiceResponse,
} from "../schemas/otlp-schemas.js";
import type { putPriceBody } from "../schemas/price-schemas.js";
import type {
  acceptedInvitationResponse,
  agentListResponse,
  agentModelsResponse,
  agentStatsResponse,
  apiKeyAuditResponse,
  apiKeyListResponse,
  apiKeyResponse,
  conversationDetailResponse,
  conversationPageResponse,
  conversationResponse,
  createdApiKeyResponse,
  createdEventResponse,
  createdSessionResponse,
  deletionAuditResponse,
  deletionJobAcceptedResponse,
  deletionJobResponse,
  errorResponse,
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
  sessionResponse,
  updatedSessionResponse,
  userStatsResponse,
} from "../schemas/response-schemas.js";
import type { RoutesWith } from "../schemas/route-contracts.js";
import type { putScoreConfigBody } from "../schemas/score-config-schemas.js";
import type { createScoreBatchBody, createScoreBody } from "../schemas/score-schemas.js";
import type { createSessionBody, updateSessionBody } from "../schemas/session-schemas.js";

const SESSION_ID = "ses_01KAZ3X8Q9M4T7V2N6P5R1S0WE";
const EVENT_ID = "evt_01KAZ3X9B2C3D4E5F6G7H8J9KM";
const SCORE_ID = "scr_01KAZ3XB1C2D3E4F5G6H7J8K9M";
const KEY_ID = "key_01KAZ2R4M7N8P9Q0R1S2T3V4WX";
const NEW_KEY_ID = "key_01KAZ5D6E7F8G9H0J1K2M3N4PQ";
const JOB_ID = "del_01KAZ6A1B2C3D4E5F6G7H8J9KM";
/** Shaped like a real key, but its checksum is wrong: it can never authenticate. */
const EXAMPLE_KEY = "ats_live_Zq4mT9xW2pR7vN1bY6cH3jL8sD5fG0kA7Hn2Qe";

const TRACE_ID = "5b8efff798038103d269b633813fc60c";
const ROOT_SPAN_ID = "eee19b7ec3c1b174";

/** An OTLP trace export (both trace paths take the same request). */
const EXPORT_TRACES_REQUEST = {
  resourceSpans: [
    {
      resource: { attributes: [{ key: "service.name", value: { stringValue: "support-bot" } }] },
      scopeSpans: [
        {
          scope: { name: "opentelemetry.instrumentation.openai", version: "0.48.0" },
          spans: [
            {
              traceId: TRACE_ID,
              spanId: ROOT_SPAN_ID,
              parentSpanId: "",
              name: "invoke_agent support-bot",
              startTimeUnixNano: "1795341600000000000",
              endTimeUnixNano: "1795341605400000000",
              attributes: [
                { key: "gen_ai.operation.name", value: { stringValue: "invoke_agent" } },
                { key: "gen_ai.agent.name", value: { stringValue: "support-bot" } },
              ],
              status: { code: 1 },
            },
            {
              traceId: TRACE_ID,
              spanId: "b7ad6b7169203331",
              parentSpanId: ROOT_SPAN_ID,
              name: "chat gpt-4o",
              startTimeUnixNano: "1795341600100000000",
              endTimeUnixNano: "1795341601300000000",
              attributes: [
                { key: "gen_ai.operation.name", value: { stringValue: "chat" } },
                { key: "gen_ai.request.model", value: { stringValue: "gpt-4o" } },
                { key: "gen_ai.usage.input_tokens", value: { intValue: "1200" } },
                { key: "gen_ai.usage.output_tokens", value: { intValue: "300" } },
              ],
            },
            {
              traceId: TRACE_ID,
              spanId: "00f067aa0ba902b7",
              parentSpanId: ROOT_SPAN_ID,
              name: "execute_tool search_docs",
              startTimeUnixNano: "1795341601400000000",
              endTimeUnixNano: "1795341601650000000",
              attributes: [
                { key: "gen_ai.operation.name", value: { stringValue: "execute_tool" } },
                { key: "gen_ai.tool.name", value: { stringValue: "search_docs" } },
                { key: "gen_ai.tool.call.arguments", value: { stringValue: '{"query":"refund policy"}' } },
              ],
            },
          ],
        },
      ],
    },
  ],
} satisfies z.input<typeof exportTraceServiceRequest>;

const MONITOR_ID = "mon_01KAZ2S0A1B2C3D4E5F6G7H8J9";
const DESTINATION_ID = "dst_01KAZ2R9Z8Y7X6W5V4T3S2R1Q0";
const monitorDefinition = {
  name: "Support bot failing",
  description: "Pages the on-call engineer when more than 10 % of the support bot's runs fail",
  enabled: true,
  metric: "failure_rate",
  filters: { agent: "support-bot" },
  windowMinutes: 15,
  comparison: "above",
  warningThreshold: 5,
  alertThreshold: 10,
  minSessions: 20,
  noData: "keep",
  renotifyMinutes: 60,
  notifyOnRecovery: true,
  destinationIds: [DESTINATION_ID],
} as const satisfies z.input<typeof monitorDefinitionBody>;
const monitor = {
  id: MONITOR_ID,
  environment: "live",
  ...monitorDefinition,
  filters: { agent: "support-bot" },
  destinationIds: [DESTINATION_ID],
  createdAt: "2026-11-22T09:00:00.000Z",
  updatedAt: "2026-11-22T09:00:00.000Z",
  createdBy: "ada@example.com",
  state: {
    status: "alert",
    since: "2026-11-22T10:17:00.000Z",
    figure: 18.5,
    samples: 27,
    evaluatedAt: "2026-11-22T10:17:00.000Z",
    windowStart: "2026-11-22T10:00:00.000Z",
    windowEnd: "2026-11-22T10:15:00.000Z",
  },
} satisfies z.output<typeof monitorResponse>;

/** Request body examples, by route id: one per route with a body. */
export const requestExamples = {
  ExportTraces: EXPORT_TRACES_REQUEST,
  ExportLangfuseTraces: EXPORT_TRACES_REQUEST,
  ExportLogs: {
    resourceLogs: [
      {
        resource: { attributes: [{ key: "service.name", value: { stringValue: "support-bot" } }] },
        scopeLogs: [
          {
            scope: { name: "@opentelemetry/instrumentation-openai", version: "0.22.0" },
            logRecords: [
              {
                timeUnixNano: "1795341600100000000",
                severityNumber: 9,
                attributes: [
                  { key: "event.name", value: { stringValue: "gen_ai.user.message" } },
                  { key: "gen_ai.system", value: { stringValue: "openai" } },
                ],
                body: { kvlistValue: { values: [{ key: "content", value: { stringValue: "Where is my order?" } }] } },
                traceId: TRACE_ID,
                spanId: "b7ad6b7169203331",
              },
              {
                timeUnixNano: "1795341601300000000",
                severityNumber: 9,
                attributes: [{ key: "event.name", value: { stringValue: "gen_ai.choice" } }],
                body: {
                  kvlistValue: {
                    values: [
                      { key: "index", value: { intValue: "0" } },
                      { key: "finish_reason", value: { stringValue: "stop" } },
                      {
                        key: "message",
                        value: {
                          kvlistValue: {
                            values: [{ key: "content", value: { stringValue: "It ships tomorrow." } }],
                          },
                        },
                      },
                    ],
                  },
                },
                traceId: TRACE_ID,
                spanId: "b7ad6b7169203331",
              },
            ],
          },
        ],
      },
    ],
  } satisfies z.input<typeof exportLogsServiceRequest>,
  CreateSession: {
    name: "Refund request",
    agentName: "support-bot",
    userId: "customer-42",
    metadata: { plan: "pro", channel: "chat" },
    conversationId: "chat-7f3a",
  } satisfies z.input<typeof createSessionBody>,
  UpdateSession: {
    status: "completed",
    estimatedCost: 0.042,
    durationMs: 5400,
    promptTokens: 1200,
    completionTokens: 300,
    totalTokens: 1500,
    customMetrics: { retries: 1 },
  } satisfies z.input<typeof updateSessionBody>,
  CreateEvent: {
    sessionId: SESSION_ID,
    eventType: "tool_call",
    toolName: "search_docs",
    toolInput: { query: "refund policy" },
    toolOutput: { hits: 3 },
    estimatedCost: 0.002,
    occurredAt: "2026-11-22T10:00:00.640Z",
    durationMs: 312,
  } satisfies z.input<typeof createEventBody>,
  CreateEventBatch: {
    events: [
      {
        sessionId: SESSION_ID,
        eventType: "llm_decision",
        confidence: 0.82,
        model: "gpt-4o-mini-2024-07-18",
        usage: { promptTokens: 1200, completionTokens: 85, totalTokens: 1285 },
        idempotencyKey: "run-7-step-1",
      },
      { sessionId: SESSION_ID, eventType: "tool_call", toolName: "refund", estimatedCost: 0.004 },
    ],
  } satisfies z.input<typeof createEventBatchBody>,
  CreateScore: {
    id: SCORE_ID,
    sessionId: SESSION_ID,
    eventId: EVENT_ID,
    name: "helpfulness",
    value: 0.8,
    dataType: "numeric",
    comment: "Found the policy, slow to answer",
    source: "evaluator",
  } satisfies z.input<typeof createScoreBody>,
  CreateFeedbackToken: {
    sessionId: SESSION_ID,
    eventId: EVENT_ID,
    expiresInSeconds: 900,
    names: ["thumbs"],
  } satisfies z.input<typeof createFeedbackTokenBody>,
  PostFeedback: { name: "thumbs", value: false, comment: "It refunded the wrong order" } satisfies z.input<
    typeof postFeedbackBody
  >,
  CreateScoreBatch: {
    scores: [
      { sessionId: SESSION_ID, name: "resolved", value: true, source: "end_user" },
      { sessionId: SESSION_ID, name: "tone", value: "friendly", dataType: "categorical" },
    ],
  } satisfies z.input<typeof createScoreBatchBody>,
  CreateApiKey: {
    name: "ci pipeline",
    environment: "test",
    scopes: ["sessions:write", "events:write"],
  } satisfies z.input<typeof createApiKeyBody>,
  RotateApiKey: { overlapSeconds: 3600 } satisfies z.input<typeof rotateApiKeyBody>,
  CreateInvitation: { email: "grace@example.com", role: "admin" } satisfies z.input<typeof createInvitationBody>,
  UpdateMember: { role: "owner" } satisfies z.input<typeof updateMemberBody>,
  PutOrganisationPrice: {
    effectiveFrom: "2026-12-01",
    input: 0.3,
    output: 1.2,
    cacheRead: 0.075,
  } satisfies z.input<typeof putPriceBody>,
  CreateMonitor: monitorDefinition,
  ReplaceMonitor: { ...monitorDefinition, alertThreshold: 15 },
  PreviewMonitor: monitorDefinition,
  PutScoreConfig: {
    dataType: "categorical",
    labels: ["resolved", "partially", "wrong"],
    description: "Did the answer resolve the customer's question?",
  } satisfies z.input<typeof putScoreConfigBody>,
  QueryMetrics: {
    from: "2026-11-16",
    to: "2026-11-22",
    granularity: "day",
    measures: ["sessions", "failed", "eventCost", "durationP95"],
    groupBy: ["agent"],
    filters: { agent: ["support-bot"] },
    limit: 100,
  } satisfies z.input<typeof metricsQueryBody>,
  CreateAlertDestination: {
    name: "on-call webhook",
    kind: "webhook",
    url: "https://alerts.example.com/ats",
  } satisfies z.input<typeof createDestinationBody>,
  UpdateAlertDestination: {
    name: "on-call webhook",
    url: "https://alerts.example.com/ats",
    enabled: true,
  } satisfies z.input<typeof updateDestinationBody>,
} as const satisfies Record<RoutesWith<"body"> | RoutesWith<"protocolBody">, unknown>;

/**
 * An invalid input per route with a body or a query (query parameters as they arrive, strings): the
 * document's 400 example is the real answer to it (run through the route's own schema), and the OpenAPI test
 * sends it to the route and expects exactly that answer.
 */
export const invalidInputs = {
  CreateSession: { name: "", userId: 7, metadata: ["not", "an", "object"], extra: true },
  UpdateSession: { status: "failed", success: true, customMetrics: { latency: "fast" } },
  CreateEvent: { sessionId: "ses_01KAZ3X8Q9M4T7V2N6P5R1S0WE", eventType: "thought", confidence: 1.5 },
  CreateEventBatch: { events: [] },
  CreateScore: { sessionId: "ses_01KAZ3X8Q9M4T7V2N6P5R1S0WE", name: "", value: "yes", dataType: "boolean" },
  CreateScoreBatch: { scores: [] },
  CreateFeedbackToken: { sessionId: "ses_01KAZ3X8Q9M4T7V2N6P5R1S0WE", expiresInSeconds: 100000, names: [] },
  PostFeedback: { sessionId: "ses_01KAZ3X8Q9M4T7V2N6P5R1S0WE", name: "thumbs", value: false },
  ListScores: { limit: "0" },
  ListConversationScores: { limit: "101" },
  ListSessions: { limit: "500", status: "paused" },
  ListConversations: { limit: "0", from: "2026-11-22T00:00:00Z", to: "2026-11-01T00:00:00Z" },
  GetConversation: { limit: "500" },
  ListEvents: { minConfidence: "0.9", maxConfidence: "0.1", fields: "everything" },
  ListAgents: { from: "2026-11-22", to: "2026-11-01" },
  AgentStats: { from: "yesterday" },
  ListModels: { from: "2026-11-22", to: "2026-11-01" },
  AgentModels: { to: "tomorrow" },
  UserStats: { from: "2026-11-22", to: "2026-11-01" },
  QueryMetrics: { measures: ["sessions", "unknown"], groupBy: ["agent", "agent"], limit: 5000 },
  CreateApiKey: { name: "ci", scopes: ["admin"], environment: "prod" },
  RotateApiKey: { overlapSeconds: 1e9 },
  CreateInvitation: { email: "grace\u0000@example.com", role: "superuser" },
  UpdateMember: { role: "superuser" },
  PutOrganisationPrice: { effectiveFrom: "2026-13-01", input: -1, output: 1e9, tiers: [{ above: 0 }] },
  DeleteOrganisationPrice: { effectiveFrom: "yesterday" },
  PutScoreConfig: { dataType: "boolean", labels: ["yes", "yes"] },
  CreateMonitor: { ...monitorDefinition, windowMinutes: 7, filters: { tool: "search" } },
  ReplaceMonitor: { ...monitorDefinition, warningThreshold: 20 },
  PreviewMonitor: { ...monitorDefinition, metric: "label_share", filters: { score: "verdict" } },
  ListMonitorHistory: { limit: "0" },
  ListAlertAudit: { limit: "101" },
  ListExports: { limit: "51" },
  CreateAlertDestination: { name: "", kind: "pagerduty", url: "ftp://example.com" },
  UpdateAlertDestination: { name: "x".repeat(101), enabled: "yes" },
} as const satisfies Record<RoutesWith<"body"> | RoutesWith<"query">, Readonly<Record<string, unknown>>>;

const alertDestination = {
  id: "dst_01KAZ4B6C8D0E2F4G6H8J0K2M4",
  name: "on-call webhook",
  kind: "webhook",
  url: "https://alerts.example.com/ats",
  enabled: true,
  disabledReason: null,
  consecutiveFailures: 0,
  lastDeliveryAt: "2026-11-22T09:15:02.481Z",
  lastError: null,
  createdAt: "2026-11-20T14:03:11.902Z",
  updatedAt: "2026-11-20T14:03:11.902Z",
} satisfies z.output<typeof alertDestinationResponse>;

const OWNER_ID = "5c1f7a2e-4b8d-4e6a-9f3c-2d7b8e9a0c41";
const MEMBER_ID = "8e2d4c6a-1b3f-4a5e-9c7d-0f2e4a6c8b13";
const addedMember = {
  userId: MEMBER_ID,
  email: "grace@example.com",
  role: "admin",
  createdAt: "2026-11-22T09:30:00.000Z",
} satisfies z.output<typeof memberResponse>;
const invitation = {
  userId: MEMBER_ID,
  email: "grace@example.com",
  role: "admin",
  invitedBy: "ada@example.com",
  createdAt: "2026-11-22T09:00:00.000Z",
  expiresAt: "2026-11-29T09:00:00.000Z",
} satisfies z.output<typeof invitationResponse>;

const completedSession = {
  id: SESSION_ID,
  name: "Refund request",
  agentName: "support-bot",
  userId: "customer-42",
  environment: "live",
  metadata: { plan: "pro", channel: "chat" },
  conversationId: "chat-7f3a",
  status: "completed",
  success: true,
  failureReason: null,
  estimatedCost: 0.042,
  durationMs: 5400,
  promptTokens: 1200,
  completionTokens: 300,
  totalTokens: 1500,
  cacheReadTokens: 0,
  cacheWriteTokens: 0,
  reasoningTokens: 0,
  modelCalls: 1,
  unpricedCalls: 0,
  customMetrics: { retries: 1 },
  eventCount: 2,
  eventCost: 0.004,
  toolCalls: { search_docs: 2 },
  toolErrors: {},
  countsAsOf: "2026-11-22T10:00:04.870Z",
  createdAt: "2026-11-22T10:00:00.000Z",
  updatedAt: "2026-11-22T10:00:05.400Z",
  lastActivityAt: "2026-11-22T10:00:05.400Z",
  completedAt: "2026-11-22T10:00:05.400Z",
  stale: false,
} satisfies z.output<typeof sessionResponse>;

const conversation = {
  id: "chat-7f3a",
  agentName: "support-bot",
  userId: "customer-42",
  startedAt: "2026-11-22T10:00:00.000Z",
  lastRunAt: "2026-11-22T10:00:00.000Z",
  runCount: 1,
} satisfies z.output<typeof conversationResponse>;

const daySummary = {
  sessions: 12,
  completed: 10,
  failed: 1,
  successRate: 0.909090909,
  reportedCost: 0.504,
  eventCost: 0.048,
  events: 31,
  promptTokens: 14400,
  completionTokens: 3600,
  totalTokens: 18000,
  durationMs: { p50: 4987, p95: 28410, p99: 51230, mean: 6120.5, precision: "fine" as const },
};

const stats = {
  from: "2026-11-21",
  to: "2026-11-22",
  totals: daySummary,
  days: [{ day: "2026-11-22", ...daySummary }],
  topFailureReasons: [{ reason: "payment provider timeout", count: 1 }],
  topToolsByCalls: [{ toolName: "search_docs", calls: 24 }],
  topToolsByErrors: [{ toolName: "issue_refund", errors: 1 }],
};

const modelTotals = {
  calls: 24,
  estimatedCost: 0.0216,
  promptTokens: 96000,
  completionTokens: 12000,
  totalTokens: 108000,
  cacheReadTokens: 40000,
  cacheWriteTokens: 0,
  reasoningTokens: 0,
  unpricedCalls: 0,
};

const modelLine = { model: "gpt-4o-mini", ...modelTotals };

const modelCalls = {
  from: "2026-11-21",
  to: "2026-11-22",
  models: [
    modelLine,
    {
      ...modelLine,
      model: "acme-internal-7b",
      calls: 3,
      estimatedCost: 0,
      promptTokens: 900,
      completionTokens: 300,
      totalTokens: 1200,
      cacheReadTokens: 0,
      unpricedCalls: 3,
    },
  ],
  totals: {
    ...modelTotals,
    calls: 27,
    promptTokens: 96900,
    completionTokens: 12300,
    totalTokens: 109200,
    unpricedCalls: 3,
  },
};

const createdKey = {
  id: NEW_KEY_ID,
  name: "ci pipeline",
  key: EXAMPLE_KEY,
  hint: "n2Qe",
  environment: "live",
  scopes: ["sessions:write", "events:write", "read"],
  createdAt: "2026-11-22T09:00:00.000Z",
  createdBy: "ada@example.com",
} satisfies z.output<typeof createdApiKeyResponse>;

const listedKey = {
  id: KEY_ID,
  name: "ci pipeline",
  hint: "Wq3z",
  environment: "live",
  scopes: ["sessions:write", "events:write", "read"],
  createdAt: "2026-11-01T08:00:00.000Z",
  createdBy: "ada@example.com",
  lastUsedAt: "2026-11-22T08:59:12.345Z",
  expiresAt: null,
  revokedAt: null,
  rotatedFrom: null,
  rotatedTo: null,
  status: "active",
} satisfies z.output<typeof apiKeyResponse>;

const FINE_TUNED = "ft:gpt-4o-mini:acme:support:9x8y7z";
const organisationPrice = {
  model: FINE_TUNED,
  effectiveFrom: "2026-12-01",
  input: 0.3,
  output: 1.2,
  cacheRead: 0.075,
  updatedAt: "2026-11-22T09:00:00.000Z",
  updatedBy: "ada@example.com",
} satisfies z.output<typeof organisationPriceResponse>;

const scoreConfig = {
  name: "resolution",
  dataType: "categorical",
  labels: ["resolved", "partially", "wrong"],
  description: "Did the answer resolve the customer's question?",
  updatedAt: "2026-11-22T09:00:00.000Z",
  updatedBy: "ada@example.com",
} satisfies z.output<typeof scoreConfigResponse>;

const score = {
  id: SCORE_ID,
  sessionId: SESSION_ID,
  eventId: EVENT_ID,
  conversationId: null,
  name: "helpfulness",
  value: 0.8,
  valueKind: "numeric",
  comment: "Found the policy, slow to answer",
  source: "evaluator",
  author: { kind: "apiKey", id: "key_01KAZ2R4M7N8P9Q0R1S2T3V4WX" },
  createdAt: "2026-11-22T10:05:00.000Z",
  updatedAt: "2026-11-22T10:05:00.000Z",
} satisfies z.output<typeof scoreResponse>;

/** A conversation's own score (no session, no event). */
const conversationScore = {
  ...score,
  id: "scr_01KAZ3XE4F5G6H7J8K9M0NP1Q2",
  sessionId: null,
  eventId: null,
  conversationId: "chat-7f3a",
  name: "resolved",
  value: true,
  valueKind: "boolean",
  comment: null,
  source: "console",
  author: { kind: "user", id: "usr_01KAZ2R4M7N8P9Q0R1S2T3V4WX" },
} satisfies z.output<typeof scoreResponse>;

/** Success body examples, by the id of their route. */
export const responseExamples = {
  CreateSession: {
    id: SESSION_ID,
    name: "Refund request",
    agentName: "support-bot",
    userId: "customer-42",
    conversationId: "chat-7f3a",
    status: "active",
    createdAt: "2026-11-22T10:00:00.000Z",
  } satisfies z.output<typeof createdSessionResponse>,
  UpdateSession: {
    id: SESSION_ID,
    name: "Refund request",
    status: "completed",
    success: true,
    estimatedCost: 0.042,
    durationMs: 5400,
    completedAt: "2026-11-22T10:00:05.400Z",
  } satisfies z.output<typeof updatedSessionResponse>,
  CreateEvent: {
    id: EVENT_ID,
    sessionId: SESSION_ID,
    eventType: "tool_call",
    toolName: "search_docs",
    createdAt: "2026-11-22T10:00:01.020Z",
  } satisfies z.output<typeof createdEventResponse>,
  CreateEventBatch: {
    results: [
      { index: 0, status: 201, id: EVENT_ID },
      { index: 1, status: 201, id: "evt_01KAZ3XA0B1C2D3E4F5G6H7J8K" },
    ],
  } satisfies z.output<typeof eventBatchResponse>,
  CreateScore: score,
  CreateFeedbackToken: {
    token:
      "atsf_eyJ2IjoxLCJ0IjoiZmJ0XzAxS0FaM1hEM0U0RjVHNkg3SjhLOU0wTlAxIn0.q0Vd1m8aL0Y9s8cZkX2rN4pT7wE3uB6hJ5gF1yD0oQk",
    tokenId: "fbt_01KAZ3XD3E4F5G6H7J8K9M0NP1",
    expiresAt: "2026-11-22T10:20:00.000Z",
  } satisfies z.output<typeof feedbackTokenResponse>,
  PostFeedback: {
    ...score,
    eventId: EVENT_ID,
    name: "thumbs",
    value: false,
    valueKind: "boolean",
    comment: "It refunded the wrong order",
    source: "end_user",
    author: { kind: "feedbackToken", id: "fbt_01KAZ3XD3E4F5G6H7J8K9M0NP1" },
  } satisfies z.output<typeof scoreResponse>,
  CreateScoreBatch: {
    results: [
      { index: 0, status: 201, id: "scr_01KAZ3XC2D3E4F5G6H7J8K9M0N" },
      {
        index: 1,
        status: 404,
        error: { error: "Not Found", message: "Session ses_01KAZ3X8Q9M4T7V2N6P5R1S0WF not found" },
      },
    ],
  } satisfies z.output<typeof scoreBatchResponse>,
  ListScores: { items: [score], nextCursor: null } satisfies z.output<typeof scorePageResponse>,
  ListConversationScores: { items: [conversationScore], nextCursor: null } satisfies z.output<typeof scorePageResponse>,
  ListScoreConfigs: {
    items: [
      scoreConfig,
      { ...scoreConfig, name: "helpfulness", dataType: "numeric", min: 0, max: 1, labels: undefined },
    ],
  } satisfies z.output<typeof scoreConfigListResponse>,
  PutScoreConfig: scoreConfig,
  GetSession: {
    ...completedSession,
    scores: [score],
    scoresTruncated: false,
  } satisfies z.output<typeof sessionDetailResponse>,
  ListSessions: {
    items: [completedSession],
    nextCursor: null,
  } satisfies z.output<typeof sessionPageResponse>,
  ListConversations: { items: [conversation], nextCursor: null } satisfies z.output<typeof conversationPageResponse>,
  GetConversation: {
    ...conversation,
    totals: {
      runs: 1,
      active: 0,
      completed: 1,
      failed: 0,
      estimatedCost: 0.042,
      promptTokens: 1200,
      completionTokens: 300,
      totalTokens: 1500,
      modelCalls: 1,
      eventCount: 2,
      durationMs: 5400,
      durationCount: 1,
      complete: true,
      scores: [
        {
          name: "helpfulness",
          count: 1,
          numeric: { count: 1, mean: 0.8, p50: 0.8, p90: 0.8, p99: 0.8 },
          boolean: null,
          labels: [],
        },
      ],
      scoresComplete: true,
    },
    runs: [completedSession],
    nextCursor: null,
    scores: [conversationScore],
    scoresTruncated: false,
  } satisfies z.output<typeof conversationDetailResponse>,
  ListEvents: {
    items: [
      {
        id: EVENT_ID,
        sessionId: SESSION_ID,
        eventType: "tool_call",
        toolName: "search_docs",
        toolInput: { query: "refund policy" },
        toolOutput: { hits: 3 },
        estimatedCost: 0.002,
        occurredAt: "2026-11-22T10:00:00.640Z",
        durationMs: 312,
        createdAt: "2026-11-22T10:00:01.020Z",
        model: null,
        usage: null,
        costSource: "reported",
        priceEffectiveFrom: null,
      },
      {
        id: "evt_01KAZ3XA0B1C2D3E4F5G6H7J8K",
        sessionId: SESSION_ID,
        eventType: "llm_decision",
        reasoning: "The order is within the 30-day window, so a full refund applies.",
        alternativesConsidered: ["partial refund", "escalate to a human"],
        confidence: 0.92,
        estimatedCost: 0.000231,
        durationMs: 1480,
        createdAt: "2026-11-22T10:00:02.480Z",
        model: "gpt-4o-mini-2024-07-18",
        usage: { promptTokens: 1200, completionTokens: 85, totalTokens: 1285 },
        costSource: "table",
        priceEffectiveFrom: "2026-07-24",
      },
    ],
    nextCursor: null,
  } satisfies z.output<typeof eventPageResponse>,
  ListAgents: {
    items: [{ agentName: "support-bot", sessionCount: 12, totals: daySummary, lastActiveDay: "2026-11-22" }],
    ...stats,
    agentsWithoutStats: 0,
  } satisfies z.output<typeof agentListResponse>,
  AgentStats: {
    agentName: "support-bot",
    ...stats,
    scores: [
      {
        name: "helpfulness",
        count: 3,
        numeric: { count: 3, mean: 0.8, p50: 0.8, p90: 0.9, p99: 0.9 },
        boolean: null,
        labels: [],
        days: [
          {
            day: "2026-11-22",
            count: 3,
            numeric: { count: 3, mean: 0.8, p50: 0.8, p90: 0.9, p99: 0.9 },
            boolean: null,
            labels: [],
          },
        ],
      },
    ],
    scoresTruncated: false,
  } satisfies z.output<typeof agentStatsResponse>,
  ListModels: { ...modelCalls, agentsWithoutStats: 0 } satisfies z.output<typeof modelsResponse>,
  AgentModels: { agentName: "support-bot", ...modelCalls } satisfies z.output<typeof agentModelsResponse>,
  UserStats: { userId: "customer-42", ...stats } satisfies z.output<typeof userStatsResponse>,
  QueryMetrics: {
    granularity: "day",
    from: "2026-11-16",
    to: "2026-11-22",
    rows: [
      { time: "2026-11-21", agent: "support-bot", sessions: 9, failed: 1, eventCost: 0.0421, durationP95: 8312 },
      { time: "2026-11-22", agent: "support-bot", sessions: 12, failed: 2, eventCost: 0.0537, durationP95: 9120 },
    ],
    nextCursor: null,
    agentsWithoutStats: 0,
  } satisfies z.output<typeof metricsResponse>,
  DeleteUserData: { jobId: JOB_ID, status: "queued" } satisfies z.output<typeof deletionJobAcceptedResponse>,
  GetDeletionJob: {
    jobId: JOB_ID,
    userId: "customer-42",
    status: "completed",
    deletedSessions: 3,
    deletedEvents: 17,
    failedSessions: 0,
    failures: [],
    createdAt: "2026-11-22T11:00:00.000Z",
    completedAt: "2026-11-22T11:00:01.250Z",
  } satisfies z.output<typeof deletionJobResponse>,
  CreateApiKey: createdKey,
  ListApiKeys: { items: [listedKey] } satisfies z.output<typeof apiKeyListResponse>,
  RotateApiKey: {
    ...createdKey,
    rotatedFrom: { ...listedKey, expiresAt: "2026-11-22T10:00:00.000Z", rotatedTo: NEW_KEY_ID, status: "expiring" },
  } satisfies z.output<typeof rotatedApiKeyResponse>,
  ListDeletionAudit: {
    items: [
      {
        id: "aud_01KAZ6F7G8H9J0K1M2N3P4Q5RS",
        action: "user.erasure.requested",
        environment: "live",
        target: "customer-42",
        actor: { kind: "apiKey", id: KEY_ID },
        at: "2026-11-22T11:00:00.000Z",
        jobId: JOB_ID,
        deletedEvents: null,
      },
      {
        id: "aud_01KAZ6B7C8D9E0F1G2H3J4K5MN",
        action: "session.deleted",
        environment: "live",
        target: "ses_01KAZ2R4M7N8P9Q0R1S2T3V4WX",
        actor: { kind: "user", id: "5c1f7a2e-4b8d-4e6a-9f3c-2d7b8e9a0c41" },
        at: "2026-11-22T10:30:00.000Z",
        jobId: null,
        deletedEvents: 12,
      },
    ],
  } satisfies z.output<typeof deletionAuditResponse>,
  ListApiKeyAudit: {
    items: [
      {
        id: "aud_01KAZ2R4M7N8P9Q0R1S2T3V4WY",
        keyId: KEY_ID,
        action: "key.created",
        actor: "ada@example.com",
        actorId: "5c1f7a2e-4b8d-4e6a-9f3c-2d7b8e9a0c41",
        at: "2026-11-01T08:00:00.000Z",
        details: { environment: "live", scopes: "sessions:write events:write scores:write read" },
      },
      {
        id: "aud_01KAZ5D6E7F8G9H0J1K2M3N4PR",
        keyId: KEY_ID,
        action: "key.rotated",
        actor: "ada@example.com",
        actorId: "5c1f7a2e-4b8d-4e6a-9f3c-2d7b8e9a0c41",
        at: "2026-11-22T09:00:00.000Z",
        details: { replacedBy: NEW_KEY_ID, expiresAt: "2026-11-22T10:00:00.000Z", overlapSeconds: 3600 },
      },
    ],
  } satisfies z.output<typeof apiKeyAuditResponse>,
  GetMe: {
    userId: OWNER_ID,
    email: "ada@example.com",
    organisations: [
      { orgId: "acme", role: "owner" },
      { orgId: "globex", role: "member" },
    ],
    invitations: [
      {
        orgId: "initech",
        role: "admin",
        invitedBy: "bill@initech.example",
        createdAt: "2026-11-21T16:00:00.000Z",
        expiresAt: "2026-11-28T16:00:00.000Z",
      },
    ],
  } satisfies z.output<typeof meResponse>,
  ListMembers: {
    items: [
      { userId: OWNER_ID, email: "ada@example.com", role: "owner", createdAt: "2026-11-01T08:00:00.000Z" },
      addedMember,
    ],
  } satisfies z.output<typeof memberListResponse>,
  ListInvitations: { items: [invitation] } satisfies z.output<typeof invitationListResponse>,
  CreateInvitation: invitation,
  AcceptInvitation: {
    orgId: "acme",
    role: "admin",
    createdAt: "2026-11-22T09:30:00.000Z",
  } satisfies z.output<typeof acceptedInvitationResponse>,
  UpdateMember: { ...addedMember, role: "owner" } satisfies z.output<typeof memberResponse>,
  OpenApiDocument: {
    openapi: "3.1.0",
    info: { title: "Agent Tracking Service", version: "0.1.0" },
    paths: { "/api/sdk/sessions": { post: { operationId: "CreateSession" } } },
  } satisfies z.output<typeof openApiDocumentResponse>,
  ExportTraces: {
    partialSuccess: {
      rejectedSpans: "1",
      errorMessage: "1 span refused: span 2c6f1f0a9d3b4e11: endTimeUnixNano must not be before startTimeUnixNano",
    },
  } satisfies z.output<typeof exportTraceServiceResponse>,
  ExportLangfuseTraces: {
    partialSuccess: {
      rejectedSpans: "1",
      errorMessage: "1 span refused: span 2c6f1f0a9d3b4e11: endTimeUnixNano must not be before startTimeUnixNano",
    },
  } satisfies z.output<typeof exportTraceServiceResponse>,
  ExportLogs: {
    partialSuccess: {
      rejectedLogRecords: "1",
      errorMessage:
        "1 log record refused: Only GenAI event log records (gen_ai.*.message, gen_ai.choice, …) are recorded",
    },
  } satisfies z.output<typeof exportLogsServiceResponse>,
  ListOrganisationPrices: {
    items: [
      organisationPrice,
      { ...organisationPrice, effectiveFrom: "2026-06-01", input: 0.25, output: 1, cacheRead: 0.0625 },
    ],
    limits: { pricesPerOrganisation: 500, pricesPerModel: 20 },
  } satisfies z.output<typeof organisationPriceListResponse>,
  PutOrganisationPrice: organisationPrice,
  ListPriceAudit: {
    items: [
      {
        id: "aud_01KAZ2R4M7N8P9Q0R1S2T3V4WZ",
        action: "price.set",
        model: FINE_TUNED,
        effectiveFrom: "2026-12-01",
        actor: "ada@example.com",
        actorId: OWNER_ID,
        at: "2026-11-22T09:00:00.000Z",
        before: { input: 0.25, output: 1 },
        after: { input: 0.3, output: 1.2, cacheRead: 0.075 },
      },
    ],
  } satisfies z.output<typeof priceAuditResponse>,
  GetPriceTable: {
    sources: {
      "langfuse-2026-08-22": {
        title: "Langfuse default model prices",
        url: "https://github.com/langfuse/langfuse/blob/62751446149b702b419a9292ddfc2280cdf74b8c/worker/src/constants/default-model-prices.json",
        commit: "62751446149b702b419a9292ddfc2280cdf74b8c",
        asOf: "2026-08-22",
      },
    },
    items: [
      {
        model: "gpt-4o-mini",
        provider: "openai",
        effectiveFrom: "2024-07-18",
        source: "langfuse-2026-08-22",
        input: 0.15,
        output: 0.6,
        cacheRead: 0.075,
      },
    ],
  } satisfies z.output<typeof priceTableResponse>,
  ListMonitors: { monitors: [monitor] } satisfies z.output<typeof monitorListResponse>,
  CreateMonitor: {
    ...monitor,
    state: {
      status: "ok",
      since: null,
      figure: null,
      samples: 0,
      evaluatedAt: null,
      windowStart: null,
      windowEnd: null,
    },
  } satisfies z.output<typeof monitorResponse>,
  GetMonitor: monitor,
  ReplaceMonitor: { ...monitor, alertThreshold: 15, updatedAt: "2026-11-22T11:00:00.000Z" },
  ListMonitorHistory: {
    history: [
      {
        id: "2026-11-22T10:17:00.000Z",
        at: "2026-11-22T10:17:00.000Z",
        from: "warning",
        to: "alert",
        kind: "change",
        figure: 18.5,
        samples: 27,
        threshold: 10,
        windowStart: "2026-11-22T10:00:00.000Z",
        windowEnd: "2026-11-22T10:15:00.000Z",
        notificationId: "ntf_01KAZ2T0A1B2C3D4E5F6G7H8J9",
      },
    ],
    nextCursor: null,
  } satisfies z.output<typeof monitorHistoryResponse>,
  TestMonitor: {
    notificationId: "ntf_01KAZ2V0A1B2C3D4E5F6G7H8J9",
    deliveries: [{ destinationId: DESTINATION_ID, status: "queued" }],
  } satisfies z.output<typeof monitorTestResponse>,
  PreviewMonitor: {
    points: [
      { start: "2026-11-22T08:00:00.000Z", end: "2026-11-22T09:00:00.000Z", figure: 4.2, samples: 48 },
      { start: "2026-11-22T09:00:00.000Z", end: "2026-11-22T10:00:00.000Z", figure: null, samples: 3 },
    ],
    note: "Previewed over 1-hour windows (the series' hourly points); the monitor itself is evaluated over exactly 15 minutes",
  } satisfies z.output<typeof monitorPreviewResponse>,
  ListAlertAudit: {
    audit: [
      {
        id: "aud_01KAZ2S0A1B2C3D4E5F6G7H8J9",
        action: "monitor.created",
        subject: { kind: "monitor", id: MONITOR_ID, name: "Support bot failing" },
        actor: "ada@example.com",
        actorId: OWNER_ID,
        at: "2026-11-22T09:00:00.000Z",
        changed: [],
        environment: "live",
        after: { ...monitorDefinition },
      },
    ],
    nextCursor: null,
  } satisfies z.output<typeof alertAuditResponse>,
  ListExports: {
    runs: [
      {
        runId: "exp_01KAZ7A0B1C2D3E4F5G6H7J8K9",
        schemaVersion: 1,
        startedAt: "2026-11-22T11:00:04.120Z",
        committedAt: "2026-11-22T11:00:09.871Z",
        changesFrom: "2026-11-22T10:00:03.002Z",
        changesThrough: "2026-11-22T11:00:03.998Z",
        manifestUrl:
          "https://ats-export.s3.eu-west-1.amazonaws.com/manifests/org%3Dacme/runs/exp_01KAZ7A0B1C2D3E4F5G6H7J8K9.json?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Expires=900&X-Amz-Signature=…",
        fileCount: 1,
        removedCount: 1,
        filesFrom: 0,
        files: [
          {
            table: "sessions",
            environment: "live",
            day: "2026-11-22",
            hour: "2026-11-22T10",
            unit: "s",
            key: "table=sessions/org=acme/env=live/day=2026-11-22/s-10.parquet",
            rows: 412,
            bytes: 48211,
            url: "https://ats-export.s3.eu-west-1.amazonaws.com/table%3Dsessions/org%3Dacme/env%3Dlive/day%3D2026-11-22/s-10.parquet?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Expires=900&X-Amz-Signature=…",
          },
        ],
        removed: [
          {
            table: "scores",
            environment: "live",
            day: "2026-11-21",
            hour: "2026-11-21T09",
            unit: "s",
            key: "table=scores/org=acme/env=live/day=2026-11-21/s-09.parquet",
          },
        ],
      },
    ],
    nextCursor: null,
  } satisfies z.output<typeof exportRunListResponse>,
  ListAlertDestinations: { destinations: [alertDestination] } satisfies z.output<typeof alertDestinationListResponse>,
  CreateAlertDestination: {
    ...alertDestination,
    secret: "whsec_Hn3c0yQm9L2kV8rT5pX1zA7bC4dE6fG0hJ2kM4nP6qR",
  } satisfies z.output<typeof createdAlertDestinationResponse>,
  GetAlertDestination: alertDestination,
  UpdateAlertDestination: alertDestination,
  RotateAlertDestinationSecret: {
    secret: "whsec_Q8wE2rT4yU6iO8pA0sD2fG4hJ6kL8zX0cV2bN4mQ1wE",
  } satisfies z.output<typeof rotatedSecretResponse>,
  TestAlertDestination: { delivered: false, status: 500, error: "HTTP 500: upstream unavailable" } satisfies z.output<
    typeof destinationTestResponse
  >,
} as const;

type ErrorExample = z.output<typeof errorResponse>;

/** One error body per status the API answers with. */
export const errorExamples = {
  400: {
    error: "Bad Request",
    message: "Invalid request body: name, customMetrics.latency",
    issues: [
      { path: "name", message: "Must not be empty" },
      { path: "customMetrics.latency", message: "Must be a finite number" },
    ],
  },
  401: { error: "Unauthorized", message: "Missing API key: send the header Authorization: Bearer <API key>" },
  403: {
    error: "Forbidden",
    message: 'This API key has no access to this resource: it lacks the "events:write" scope',
  },
  404: { error: "Not Found", message: `Session ${SESSION_ID} not found` },
  406: {
    error: "Not Acceptable",
    message:
      "The toolOutput of event evt_01KAZ3Y0A1B2C3D4E5F6G7H8J9 is 5100000 bytes, too large to send uncompressed within Lambda's 6 MB response limit; send Accept-Encoding: gzip",
  },
  409: {
    error: "Conflict",
    message: `Session ${SESSION_ID} is already completed and cannot be changed; only an identical repeat of its final update is accepted`,
  },
  422: {
    error: "Unprocessable Content",
    message: "This Idempotency-Key was already used with a different request; use a new key for a new request",
  },
  413: { error: "Payload Too Large", message: "Request body is 300000 bytes; the limit is 262144 bytes" },
  415: {
    error: "Unsupported Media Type",
    message: "Send the request body as JSON with Content-Type: application/json",
  },
  429: {
    error: "Too Many Requests",
    message:
      "Organisation acme has sent 20 invitations today, the most allowed per day; try again after midnight UTC (see Retry-After)",
  },
  500: { error: "Internal Server Error", message: "The request could not be completed; retry it later" },
  503: {
    error: "Service Unavailable",
    message: "The export could not be stored now; retry after the Retry-After delay",
  },
} as const satisfies Record<number, ErrorExample>;
