/**
 * The route table: the single source of truth for every HTTP route of the service — its id, method, path,
 * handler module and who may call it. The CDK stack creates one Lambda function and one API Gateway route per
 * entry, the local server dispatches to the very same handler modules, and each handler takes its auth rules
 * from here (http/route-of-kind.ts). What each route's function may do with the table, and its throttle, are
 * in routes.ts (keyed by route id): read by the stack and the tests, never bundled into a handler.
 *
 * This module must stay free of runtime imports (no AWS SDK, no CDK) so that every handler can read it
 * cheaply; its one runtime import, the exporters' auth (http/export-route-auth.ts), imports nothing.
 */
import type { Role } from "./domain/membership.js";
import type { Scope } from "./domain/scopes.js";
import { EXPORT_ROUTE_AUTH, LANGFUSE_EXPORT_ROUTE_AUTH } from "./http/export-route-auth.js";

export type HttpMethod = "GET" | "POST" | "PATCH" | "PUT" | "DELETE" | "OPTIONS";

/**
 * Who may call a route:
 * - `apiKey`: an SDK client with an API key holding `scope` (`basic`: the key may also be the password of Basic
 *   credentials — Langfuse's exporter, on its path alone);
 * - `user`: a signed-in user (access token) whose role in the organisation is at least `role`;
 * - `apiKeyOrUser`: either of the two (the console's reads): an API key holding `scope`, or an
 *   access token with `X-Organization-Id` (a membership of at least `role`) and `X-Environment`,
 *   which then acts with the tenancy and rate-limit budget of a key of that organisation and
 *   environment (functions/http/api-key-or-user-auth.ts decides, by the `ats_` prefix of keys);
 * - `signedIn`: any signed-in user, for themselves (no organisation: `GET /api/me`);
 * - `feedbackToken`: an end user's feedback token (`atsf_…`, minted by the agent's backend with an API key):
 *   one score on the session (and event) it is bound to, from a browser (the one route with CORS);
 * - `public`: no credential.
 */
export type RouteAuth =
  | { readonly kind: "apiKey"; readonly scope: Scope; readonly basic?: true }
  | { readonly kind: "user"; readonly role: Role }
  | { readonly kind: "apiKeyOrUser"; readonly scope: Scope; readonly role: Role }
  | { readonly kind: "signedIn" }
  | { readonly kind: "feedbackToken" }
  | { readonly kind: "public" };

/** Whether a route accepts a signed-in user's access token (its function must verify tokens). */
export function acceptsUserToken(auth: RouteAuth): boolean {
  return auth.kind === "user" || auth.kind === "apiKeyOrUser" || auth.kind === "signedIn";
}

/** Access to the S3 bucket of offloaded event payloads (functions/store/payloads/payload-store.ts). */
export type PayloadAccess = "write" | "read" | "delete";

/**
 * Access to the export bucket (issue 35): `read` lists and reads its manifests and presigns its files
 * (`manifests/*` and `table=*` only). The role cannot be limited to one organisation's prefix: the handler's
 * check of every key (functions/store/export/organisation-export-keys.ts) is the tenancy boundary.
 */
export type ExportAccess = "read";

/** A route: where it is, what handles it and who may call it. */
export interface RouteEntry {
  /** Stable identifier, used for construct ids and function names in logs. */
  readonly id: string;
  readonly method: HttpMethod;
  /** API Gateway path syntax: `{name}` marks a path parameter. */
  readonly path: string;
  /** Handler module, relative to the repository root; it exports `handler`. */
  readonly entry: string;
  readonly auth: RouteAuth;
  /** Whether the handler enqueues erasure jobs (needs the deletion queue). */
  readonly sendsDeletionJobs?: boolean;
  /** What the handler does with offloaded event payloads in the payload bucket. */
  readonly payloadAccess?: PayloadAccess;
  /** What the handler does with the export bucket (the export's Parquet files and manifests). */
  readonly exportAccess?: ExportAccess;
  /**
   * `false`: a POST that ignores `Idempotency-Key` — its answer holds a bearer secret that must never be stored in
   * an idempotency record (a feedback token), or it is a read whose query is a body (the metrics query); either
   * way it writes nothing, so a retry is harmless.
   */
  readonly idempotencyKey?: false;
  /**
   * A `user` route whose data belongs to one environment of the organisation (the alerts' monitors): it reads
   * `X-Environment` (`live` unless it says `test`; 400 otherwise), as the console's reads do.
   */
  readonly environmentHeader?: true;
  /** Whether the handler finds and creates users in the user directory (Cognito `AdminGetUser`/`AdminCreateUser` on AWS). */
  readonly createsUsers?: boolean;
  /**
   * Whether the handler sends an alert notification itself (the destination test): it needs the notifications bus
   * (an EventBridge destination) and the console's address (the notification's links).
   */
  readonly sendsAlertNotifications?: true;
  /** Whether the handler queues alert notifications for delivery (the delivery queue's URL and `sqs:SendMessage`). */
  readonly queuesAlertDeliveries?: true;
  /**
   * The function group the route runs in (see {@link functionGroups}); absent: a Lambda function of its own.
   */
  readonly functionGroup?: FunctionGroupId;
}

/**
 * Routes that share one Lambda function: one function, role (the union of the routes' grants), log group and API
 * integration instead of one each. For the console's rarely called administration routes: one warm container serves
 * them all, and the stack keeps clear of CloudFormation's 500 resources per stack (a route of its own costs seven).
 * The group's module is a dispatcher that runs the route's own handler module by the request's route key, so every
 * route still has its handler, auth rules and grants (functions/http/function-group.ts).
 */
export const functionGroups = {
  AlertsApi: {
    entry: "functions/groups/alerts-api.ts",
    description: "The console's alerts routes: monitors, their history and audit, destinations",
  },
  SettingsApi: {
    entry: "functions/groups/settings-api.ts",
    description: "The organisation's model prices and score configurations",
  },
} as const;

export type FunctionGroupId = keyof typeof functionGroups;

/** The module a route's Lambda function runs: its group's dispatcher, or its own handler module. */
export function functionEntryOf(route: RouteEntry): string {
  return route.functionGroup === undefined ? route.entry : functionGroups[route.functionGroup].entry;
}

export const routeTable = [
  {
    id: "CreateSession",
    method: "POST",
    path: "/api/sdk/sessions",
    entry: "functions/sessions/create-session.ts",
    auth: { kind: "apiKey", scope: "sessions:write" },
  },
  {
    id: "UpdateSession",
    method: "PATCH",
    path: "/api/sdk/sessions/{id}",
    entry: "functions/sessions/update-session.ts",
    auth: { kind: "apiKey", scope: "sessions:write" },
  },
  {
    id: "CreateEvent",
    method: "POST",
    path: "/api/sdk/events",
    entry: "functions/events/create-event.ts",
    auth: { kind: "apiKey", scope: "events:write" },
    payloadAccess: "write",
  },
  {
    id: "CreateEventBatch",
    method: "POST",
    path: "/api/sdk/events/batch",
    entry: "functions/events/create-event-batch.ts",
    auth: { kind: "apiKey", scope: "events:write" },
    payloadAccess: "write",
  },
  {
    id: "CreateScore",
    method: "POST",
    path: "/api/sdk/scores",
    entry: "functions/scores/create-score.ts",
    auth: { kind: "apiKeyOrUser", scope: "scores:write", role: "member" },
  },
  {
    id: "CreateScoreBatch",
    method: "POST",
    path: "/api/sdk/scores/batch",
    entry: "functions/scores/create-score-batch.ts",
    auth: { kind: "apiKeyOrUser", scope: "scores:write", role: "member" },
  },
  {
    id: "CreateFeedbackToken",
    method: "POST",
    path: "/api/sdk/feedback-tokens",
    entry: "functions/feedback/create-feedback-token.ts",
    auth: { kind: "apiKey", scope: "scores:write" },
    idempotencyKey: false,
  },
  {
    id: "PostFeedback",
    method: "POST",
    path: "/api/public/feedback",
    entry: "functions/feedback/post-feedback.ts",
    auth: { kind: "feedbackToken" },
  },
  {
    id: "FeedbackPreflight",
    method: "OPTIONS",
    path: "/api/public/feedback",
    entry: "functions/feedback/feedback-preflight.ts",
    auth: { kind: "public" },
  },
  {
    id: "ExportTraces",
    method: "POST",
    path: "/api/otel/v1/traces",
    entry: "functions/otel/export-traces.ts",
    auth: EXPORT_ROUTE_AUTH,
    payloadAccess: "write",
  },
  {
    id: "ExportLangfuseTraces",
    method: "POST",
    path: "/api/public/otel/v1/traces",
    entry: "functions/otel/export-langfuse-traces.ts",
    auth: LANGFUSE_EXPORT_ROUTE_AUTH,
    payloadAccess: "write",
  },
  {
    id: "ExportLogs",
    method: "POST",
    path: "/api/otel/v1/logs",
    entry: "functions/otel/export-logs.ts",
    auth: EXPORT_ROUTE_AUTH,
    payloadAccess: "write",
  },
  {
    id: "GetSession",
    method: "GET",
    path: "/api/sdk/sessions/{id}",
    entry: "functions/sessions/get-session.ts",
    auth: { kind: "apiKeyOrUser", scope: "read", role: "member" },
  },
  {
    id: "ListSessions",
    method: "GET",
    path: "/api/sdk/sessions",
    entry: "functions/sessions/list-sessions.ts",
    auth: { kind: "apiKeyOrUser", scope: "read", role: "member" },
  },
  {
    id: "ListConversations",
    method: "GET",
    path: "/api/sdk/conversations",
    entry: "functions/conversations/list-conversations.ts",
    auth: { kind: "apiKeyOrUser", scope: "read", role: "member" },
  },
  {
    id: "GetConversation",
    method: "GET",
    path: "/api/sdk/conversations/{id}",
    entry: "functions/conversations/get-conversation.ts",
    auth: { kind: "apiKeyOrUser", scope: "read", role: "member" },
  },
  {
    id: "ListEvents",
    method: "GET",
    path: "/api/sdk/sessions/{id}/events",
    entry: "functions/events/list-events.ts",
    auth: { kind: "apiKeyOrUser", scope: "read", role: "member" },
    payloadAccess: "read",
  },
  {
    id: "GetEventField",
    method: "GET",
    path: "/api/sdk/sessions/{id}/events/{eventId}/{field}",
    entry: "functions/events/get-event-field.ts",
    auth: { kind: "apiKeyOrUser", scope: "read", role: "member" },
    payloadAccess: "read",
  },
  {
    id: "ListScores",
    method: "GET",
    path: "/api/sdk/sessions/{id}/scores",
    entry: "functions/scores/list-scores.ts",
    auth: { kind: "apiKeyOrUser", scope: "read", role: "member" },
  },
  {
    id: "DeleteScore",
    method: "DELETE",
    path: "/api/sdk/sessions/{id}/scores/{scoreId}",
    entry: "functions/scores/delete-score.ts",
    auth: { kind: "apiKeyOrUser", scope: "scores:write", role: "member" },
  },
  {
    id: "ListConversationScores",
    method: "GET",
    path: "/api/sdk/conversations/{id}/scores",
    entry: "functions/scores/list-conversation-scores.ts",
    auth: { kind: "apiKeyOrUser", scope: "read", role: "member" },
  },
  {
    id: "DeleteConversationScore",
    method: "DELETE",
    path: "/api/sdk/conversations/{id}/scores/{scoreId}",
    entry: "functions/scores/delete-conversation-score.ts",
    auth: { kind: "apiKeyOrUser", scope: "scores:write", role: "member" },
  },
  {
    id: "ListScoreConfigs",
    method: "GET",
    path: "/api/sdk/score-configs",
    entry: "functions/scores/list-score-configs.ts",
    functionGroup: "SettingsApi",
    auth: { kind: "apiKeyOrUser", scope: "read", role: "member" },
  },
  {
    id: "PutScoreConfig",
    method: "PUT",
    path: "/api/sdk/score-configs/{name}",
    entry: "functions/scores/put-score-config.ts",
    functionGroup: "SettingsApi",
    auth: { kind: "user", role: "admin" },
  },
  {
    id: "DeleteScoreConfig",
    method: "DELETE",
    path: "/api/sdk/score-configs/{name}",
    entry: "functions/scores/delete-score-config.ts",
    functionGroup: "SettingsApi",
    auth: { kind: "user", role: "admin" },
  },
  {
    id: "DeleteSession",
    method: "DELETE",
    path: "/api/sdk/sessions/{id}",
    entry: "functions/sessions/delete-session.ts",
    auth: { kind: "apiKeyOrUser", scope: "delete", role: "admin" },
    payloadAccess: "delete",
  },
  {
    id: "ListAgents",
    method: "GET",
    path: "/api/sdk/agents",
    entry: "functions/analytics/list-agents.ts",
    auth: { kind: "apiKeyOrUser", scope: "read", role: "member" },
  },
  {
    id: "AgentStats",
    method: "GET",
    path: "/api/sdk/agents/{agentName}/stats",
    entry: "functions/analytics/agent-stats.ts",
    auth: { kind: "apiKeyOrUser", scope: "read", role: "member" },
  },
  {
    id: "ListModels",
    method: "GET",
    path: "/api/sdk/models",
    entry: "functions/analytics/list-models.ts",
    auth: { kind: "apiKeyOrUser", scope: "read", role: "member" },
  },
  {
    id: "AgentModels",
    method: "GET",
    path: "/api/sdk/agents/{agentName}/models",
    entry: "functions/analytics/agent-models.ts",
    auth: { kind: "apiKeyOrUser", scope: "read", role: "member" },
  },
  {
    id: "UserStats",
    method: "GET",
    path: "/api/sdk/users/{userId}/stats",
    entry: "functions/analytics/user-stats.ts",
    auth: { kind: "apiKeyOrUser", scope: "read", role: "member" },
  },
  {
    id: "QueryMetrics",
    method: "POST",
    path: "/api/sdk/metrics",
    entry: "functions/analytics/query-metrics.ts",
    auth: { kind: "apiKeyOrUser", scope: "read", role: "member" },
    // A read sent as a POST (its query is a JSON body): it writes nothing, so a retry is harmless.
    idempotencyKey: false,
  },
  {
    id: "DeleteUserData",
    method: "DELETE",
    path: "/api/sdk/users/{userId}",
    entry: "functions/deletion/delete-user-data.ts",
    auth: { kind: "apiKey", scope: "delete" },
    sendsDeletionJobs: true,
  },
  {
    id: "GetDeletionJob",
    method: "GET",
    path: "/api/sdk/deletions/{jobId}",
    entry: "functions/deletion/get-deletion-job.ts",
    auth: { kind: "apiKey", scope: "delete" },
  },
  {
    id: "OpenApiDocument",
    method: "GET",
    path: "/api/openapi.json",
    entry: "functions/openapi/get-openapi-document.ts",
    auth: { kind: "public" },
  },
  {
    id: "CreateApiKey",
    method: "POST",
    path: "/api/keys",
    entry: "functions/keys/create-api-key.ts",
    auth: { kind: "user", role: "admin" },
  },
  {
    id: "ListApiKeys",
    method: "GET",
    path: "/api/keys",
    entry: "functions/keys/list-api-keys.ts",
    auth: { kind: "user", role: "member" },
  },
  {
    id: "RotateApiKey",
    method: "POST",
    path: "/api/keys/{id}/rotate",
    entry: "functions/keys/rotate-api-key.ts",
    auth: { kind: "user", role: "admin" },
  },
  {
    id: "RevokeApiKey",
    method: "DELETE",
    path: "/api/keys/{id}",
    entry: "functions/keys/revoke-api-key.ts",
    auth: { kind: "user", role: "admin" },
  },
  {
    id: "ListApiKeyAudit",
    method: "GET",
    path: "/api/keys/{id}/audit",
    entry: "functions/keys/list-api-key-audit.ts",
    auth: { kind: "user", role: "member" },
  },
  {
    id: "ListDeletionAudit",
    method: "GET",
    path: "/api/audit/deletions",
    entry: "functions/deletion/list-deletion-audit.ts",
    auth: { kind: "user", role: "admin" },
  },
  {
    id: "ListExports",
    method: "GET",
    path: "/api/exports",
    entry: "functions/exports/list-exports.ts",
    auth: { kind: "user", role: "admin" },
    exportAccess: "read",
  },
  {
    id: "GetMe",
    method: "GET",
    path: "/api/me",
    entry: "functions/members/get-me.ts",
    auth: { kind: "signedIn" },
  },
  {
    id: "ListMembers",
    method: "GET",
    path: "/api/members",
    entry: "functions/members/list-members.ts",
    auth: { kind: "user", role: "member" },
  },
  {
    id: "ListInvitations",
    method: "GET",
    path: "/api/invitations",
    entry: "functions/members/list-invitations.ts",
    auth: { kind: "user", role: "owner" },
  },
  {
    id: "CreateInvitation",
    method: "POST",
    path: "/api/invitations",
    entry: "functions/members/create-invitation.ts",
    auth: { kind: "user", role: "owner" },
    createsUsers: true,
  },
  {
    id: "RevokeInvitation",
    method: "DELETE",
    path: "/api/invitations/{userId}",
    entry: "functions/members/revoke-invitation.ts",
    auth: { kind: "user", role: "owner" },
  },
  {
    id: "AcceptInvitation",
    method: "POST",
    path: "/api/me/invitations/{orgId}/accept",
    entry: "functions/members/accept-invitation.ts",
    auth: { kind: "signedIn" },
  },
  {
    id: "DeclineInvitation",
    method: "POST",
    path: "/api/me/invitations/{orgId}/decline",
    entry: "functions/members/decline-invitation.ts",
    auth: { kind: "signedIn" },
  },
  {
    id: "UpdateMember",
    method: "PATCH",
    path: "/api/members/{userId}",
    entry: "functions/members/update-member.ts",
    auth: { kind: "user", role: "owner" },
  },
  {
    id: "RemoveMember",
    method: "DELETE",
    path: "/api/members/{userId}",
    entry: "functions/members/remove-member.ts",
    auth: { kind: "user", role: "owner" },
  },
  {
    id: "ListOrganisationPrices",
    method: "GET",
    path: "/api/prices",
    entry: "functions/prices/list-organisation-prices.ts",
    functionGroup: "SettingsApi",
    auth: { kind: "user", role: "member" },
  },
  {
    id: "GetPriceTable",
    method: "GET",
    path: "/api/prices/table",
    entry: "functions/prices/get-price-table.ts",
    functionGroup: "SettingsApi",
    auth: { kind: "user", role: "member" },
  },
  {
    id: "ListPriceAudit",
    method: "GET",
    path: "/api/prices/audit",
    entry: "functions/prices/list-price-audit.ts",
    functionGroup: "SettingsApi",
    auth: { kind: "user", role: "admin" },
  },
  {
    id: "PutOrganisationPrice",
    method: "PUT",
    path: "/api/prices/{model}",
    entry: "functions/prices/put-organisation-price.ts",
    functionGroup: "SettingsApi",
    auth: { kind: "user", role: "admin" },
  },
  {
    id: "DeleteOrganisationPrice",
    method: "DELETE",
    path: "/api/prices/{model}",
    entry: "functions/prices/delete-organisation-price.ts",
    functionGroup: "SettingsApi",
    auth: { kind: "user", role: "admin" },
  },
  {
    id: "ListMonitors",
    method: "GET",
    path: "/api/alerts/monitors",
    entry: "functions/alerts/list-monitors.ts",
    functionGroup: "AlertsApi",
    auth: { kind: "user", role: "member" },
    environmentHeader: true,
  },
  {
    id: "CreateMonitor",
    method: "POST",
    path: "/api/alerts/monitors",
    entry: "functions/alerts/create-monitor.ts",
    functionGroup: "AlertsApi",
    auth: { kind: "user", role: "admin" },
    environmentHeader: true,
  },
  {
    id: "PreviewMonitor",
    method: "POST",
    path: "/api/alerts/monitors/preview",
    entry: "functions/alerts/preview-monitor.ts",
    functionGroup: "AlertsApi",
    auth: { kind: "user", role: "member" },
    environmentHeader: true,
  },
  {
    id: "GetMonitor",
    method: "GET",
    path: "/api/alerts/monitors/{monitorId}",
    entry: "functions/alerts/get-monitor.ts",
    functionGroup: "AlertsApi",
    auth: { kind: "user", role: "member" },
    environmentHeader: true,
  },
  {
    id: "ReplaceMonitor",
    method: "PUT",
    path: "/api/alerts/monitors/{monitorId}",
    entry: "functions/alerts/replace-monitor.ts",
    functionGroup: "AlertsApi",
    auth: { kind: "user", role: "admin" },
    environmentHeader: true,
  },
  {
    id: "DeleteMonitor",
    method: "DELETE",
    path: "/api/alerts/monitors/{monitorId}",
    entry: "functions/alerts/delete-monitor.ts",
    functionGroup: "AlertsApi",
    auth: { kind: "user", role: "admin" },
    environmentHeader: true,
  },
  {
    id: "ListMonitorHistory",
    method: "GET",
    path: "/api/alerts/monitors/{monitorId}/history",
    entry: "functions/alerts/list-monitor-history.ts",
    functionGroup: "AlertsApi",
    auth: { kind: "user", role: "member" },
    environmentHeader: true,
  },
  {
    id: "TestMonitor",
    method: "POST",
    path: "/api/alerts/monitors/{monitorId}/test",
    entry: "functions/alerts/test-monitor.ts",
    functionGroup: "AlertsApi",
    auth: { kind: "user", role: "admin" },
    environmentHeader: true,
    queuesAlertDeliveries: true,
  },
  {
    id: "ListAlertAudit",
    method: "GET",
    path: "/api/alerts/audit",
    entry: "functions/alerts/list-alert-audit.ts",
    functionGroup: "AlertsApi",
    auth: { kind: "user", role: "admin" },
  },
  {
    id: "ListAlertDestinations",
    method: "GET",
    path: "/api/alerts/destinations",
    entry: "functions/alerts/destinations/list-destinations.ts",
    functionGroup: "AlertsApi",
    auth: { kind: "user", role: "member" },
  },
  {
    id: "CreateAlertDestination",
    method: "POST",
    path: "/api/alerts/destinations",
    entry: "functions/alerts/destinations/create-destination.ts",
    functionGroup: "AlertsApi",
    auth: { kind: "user", role: "admin" },
  },
  {
    id: "GetAlertDestination",
    method: "GET",
    path: "/api/alerts/destinations/{destinationId}",
    entry: "functions/alerts/destinations/get-destination.ts",
    functionGroup: "AlertsApi",
    auth: { kind: "user", role: "member" },
  },
  {
    id: "UpdateAlertDestination",
    method: "PUT",
    path: "/api/alerts/destinations/{destinationId}",
    entry: "functions/alerts/destinations/update-destination.ts",
    functionGroup: "AlertsApi",
    auth: { kind: "user", role: "admin" },
  },
  {
    id: "DeleteAlertDestination",
    method: "DELETE",
    path: "/api/alerts/destinations/{destinationId}",
    entry: "functions/alerts/destinations/delete-destination.ts",
    functionGroup: "AlertsApi",
    auth: { kind: "user", role: "admin" },
  },
  {
    id: "RotateAlertDestinationSecret",
    method: "POST",
    path: "/api/alerts/destinations/{destinationId}/rotate-secret",
    entry: "functions/alerts/destinations/rotate-destination-secret.ts",
    functionGroup: "AlertsApi",
    auth: { kind: "user", role: "admin" },
  },
  {
    id: "TestAlertDestination",
    method: "POST",
    path: "/api/alerts/destinations/{destinationId}/test",
    entry: "functions/alerts/destinations/test-destination.ts",
    functionGroup: "AlertsApi",
    auth: { kind: "user", role: "admin" },
    sendsAlertNotifications: true,
  },
] as const satisfies readonly RouteEntry[];

export type RouteId = (typeof routeTable)[number]["id"];

/** The route table entry of a handler (handlers take their auth rules from here). */
export function routeEntryById(id: RouteId): RouteEntry {
  const route: RouteEntry | undefined = routeTable.find((candidate) => candidate.id === id);
  if (route === undefined) throw new Error(`No route ${id}`);
  return route;
}
