/**
 * The route table: the single source of truth for every HTTP route of the
 * service. The CDK stack creates one Lambda function and one API Gateway route
 * per entry, with exactly the DynamoDB actions listed here; the local server
 * dispatches to the very same handler modules.
 *
 * This module must stay free of runtime imports (no AWS SDK, no CDK) so that
 * both sides can read it cheaply.
 */
import type { Role } from "./domain/membership.js";
import type { Scope } from "./domain/scopes.js";

export type HttpMethod = "GET" | "POST" | "PATCH" | "PUT" | "DELETE";

/** DynamoDB actions a handler may perform, granted per function in the stack. */
export type TableAction =
  | "dynamodb:GetItem"
  | "dynamodb:PutItem"
  | "dynamodb:UpdateItem"
  | "dynamodb:DeleteItem"
  | "dynamodb:Query"
  | "dynamodb:ConditionCheckItem"
  | "dynamodb:BatchWriteItem"
  | "dynamodb:BatchGetItem";

/**
 * Who may call a route: an SDK client with an API key holding `scope`, or a
 * signed-in user (access token) whose role in the organisation is at least
 * `role`. No route accepts both.
 */
export type RouteAuth =
  | { readonly kind: "apiKey"; readonly scope: Scope }
  | { readonly kind: "user"; readonly role: Role }
  | { readonly kind: "public" };

export interface RouteDefinition {
  /** Stable identifier, used for construct ids and function names in logs. */
  readonly id: string;
  readonly method: HttpMethod;
  /** API Gateway path syntax: `{name}` marks a path parameter. */
  readonly path: string;
  /** Handler module, relative to the repository root; it exports `handler`. */
  readonly entry: string;
  readonly auth: RouteAuth;
  /** Least-privilege DynamoDB actions on the table. */
  readonly tableActions: readonly TableAction[];
  /** Whether the handler queries the table's global secondary indexes. */
  readonly queriesIndexes: boolean;
  /** Whether the handler enqueues erasure jobs (needs the deletion queue). */
  readonly sendsDeletionJobs?: boolean;
  /** What the handler does with offloaded event payloads in the payload bucket. */
  readonly payloadAccess?: PayloadAccess;
}

/** Access to the S3 bucket of offloaded event payloads (functions/store/payload-store.ts). */
export type PayloadAccess = "write" | "read" | "delete";

/** A function that is not behind the API (a queue worker). */
export interface WorkerDefinition {
  readonly id: string;
  readonly entry: string;
  readonly tableActions: readonly TableAction[];
  readonly queriesIndexes: boolean;
  readonly payloadAccess?: PayloadAccess;
}

/** API-key authentication: the credential lookup, and the once-a-minute `lastUsedAt` stamp. */
const apiKeyAuthentication: readonly TableAction[] = ["dynamodb:GetItem", "dynamodb:UpdateItem"];
/** Paging cursors are signed with a secret kept in the table (created on first use). */
const cursorSigning: readonly TableAction[] = ["dynamodb:PutItem"];
/** User authentication: the caller's memberships. */
const userAuthentication: readonly TableAction[] = ["dynamodb:Query"];

export const routes = [
  {
    id: "CreateSession",
    method: "POST",
    path: "/api/sdk/sessions",
    entry: "functions/sessions/create-session.ts",
    auth: { kind: "apiKey", scope: "sessions:write" },
    tableActions: [...apiKeyAuthentication, "dynamodb:PutItem"],
    queriesIndexes: false,
  },
  {
    id: "UpdateSession",
    method: "PATCH",
    path: "/api/sdk/sessions/{id}",
    entry: "functions/sessions/update-session.ts",
    auth: { kind: "apiKey", scope: "sessions:write" },
    tableActions: [...apiKeyAuthentication],
    queriesIndexes: false,
  },
  {
    id: "CreateEvent",
    method: "POST",
    path: "/api/sdk/events",
    entry: "functions/events/create-event.ts",
    auth: { kind: "apiKey", scope: "events:write" },
    tableActions: [...apiKeyAuthentication, "dynamodb:PutItem"],
    queriesIndexes: false,
    payloadAccess: "write",
  },
  {
    id: "CreateEventBatch",
    method: "POST",
    path: "/api/sdk/events/batch",
    entry: "functions/events/create-event-batch.ts",
    auth: { kind: "apiKey", scope: "events:write" },
    tableActions: [...apiKeyAuthentication, "dynamodb:PutItem"],
    queriesIndexes: false,
    payloadAccess: "write",
  },
  {
    id: "GetSession",
    method: "GET",
    path: "/api/sdk/sessions/{id}",
    entry: "functions/sessions/get-session.ts",
    auth: { kind: "apiKey", scope: "read" },
    tableActions: [...apiKeyAuthentication],
    queriesIndexes: false,
  },
  {
    id: "ListSessions",
    method: "GET",
    path: "/api/sdk/sessions",
    entry: "functions/sessions/list-sessions.ts",
    auth: { kind: "apiKey", scope: "read" },
    tableActions: [...apiKeyAuthentication, ...cursorSigning, "dynamodb:Query", "dynamodb:BatchGetItem"],
    queriesIndexes: true,
  },
  {
    id: "ListEvents",
    method: "GET",
    path: "/api/sdk/sessions/{id}/events",
    entry: "functions/events/list-events.ts",
    auth: { kind: "apiKey", scope: "read" },
    tableActions: [...apiKeyAuthentication, ...cursorSigning, "dynamodb:Query"],
    queriesIndexes: false,
    payloadAccess: "read",
  },
  {
    id: "DeleteSession",
    method: "DELETE",
    path: "/api/sdk/sessions/{id}",
    entry: "functions/sessions/delete-session.ts",
    auth: { kind: "apiKey", scope: "delete" },
    tableActions: [...apiKeyAuthentication, "dynamodb:Query", "dynamodb:BatchWriteItem", "dynamodb:DeleteItem"],
    queriesIndexes: false,
    payloadAccess: "delete",
  },
  {
    id: "ListAgents",
    method: "GET",
    path: "/api/sdk/agents",
    entry: "functions/analytics/list-agents.ts",
    auth: { kind: "apiKey", scope: "read" },
    tableActions: [...apiKeyAuthentication, "dynamodb:Query"],
    queriesIndexes: false,
  },
  {
    id: "AgentStats",
    method: "GET",
    path: "/api/sdk/agents/{agentName}/stats",
    entry: "functions/analytics/agent-stats.ts",
    auth: { kind: "apiKey", scope: "read" },
    tableActions: [...apiKeyAuthentication, "dynamodb:Query"],
    queriesIndexes: false,
  },
  {
    id: "UserStats",
    method: "GET",
    path: "/api/sdk/users/{userId}/stats",
    entry: "functions/analytics/user-stats.ts",
    auth: { kind: "apiKey", scope: "read" },
    tableActions: [...apiKeyAuthentication, "dynamodb:Query"],
    queriesIndexes: false,
  },
  {
    id: "DeleteUserData",
    method: "DELETE",
    path: "/api/sdk/users/{userId}",
    entry: "functions/deletion/delete-user-data.ts",
    auth: { kind: "apiKey", scope: "delete" },
    tableActions: [...apiKeyAuthentication, "dynamodb:PutItem"],
    queriesIndexes: false,
    sendsDeletionJobs: true,
  },
  {
    id: "GetDeletionJob",
    method: "GET",
    path: "/api/sdk/deletions/{jobId}",
    entry: "functions/deletion/get-deletion-job.ts",
    auth: { kind: "apiKey", scope: "delete" },
    tableActions: [...apiKeyAuthentication],
    queriesIndexes: false,
  },
  {
    id: "OpenApiDocument",
    method: "GET",
    path: "/api/openapi.json",
    entry: "functions/openapi/get-openapi-document.ts",
    auth: { kind: "public" },
    tableActions: [],
    queriesIndexes: false,
  },
  {
    id: "CreateApiKey",
    method: "POST",
    path: "/api/keys",
    entry: "functions/keys/create-api-key.ts",
    auth: { kind: "user", role: "admin" },
    tableActions: [...userAuthentication, "dynamodb:GetItem", "dynamodb:PutItem", "dynamodb:ConditionCheckItem"],
    queriesIndexes: false,
  },
  {
    id: "ListApiKeys",
    method: "GET",
    path: "/api/keys",
    entry: "functions/keys/list-api-keys.ts",
    auth: { kind: "user", role: "member" },
    tableActions: [...userAuthentication],
    queriesIndexes: false,
  },
  {
    id: "RotateApiKey",
    method: "POST",
    path: "/api/keys/{id}/rotate",
    entry: "functions/keys/rotate-api-key.ts",
    auth: { kind: "user", role: "admin" },
    tableActions: [...userAuthentication, "dynamodb:GetItem", "dynamodb:PutItem", "dynamodb:UpdateItem"],
    queriesIndexes: false,
  },
  {
    id: "RevokeApiKey",
    method: "DELETE",
    path: "/api/keys/{id}",
    entry: "functions/keys/revoke-api-key.ts",
    auth: { kind: "user", role: "admin" },
    tableActions: [...userAuthentication, "dynamodb:GetItem", "dynamodb:PutItem", "dynamodb:UpdateItem"],
    queriesIndexes: false,
  },
  {
    id: "ListApiKeyAudit",
    method: "GET",
    path: "/api/keys/{id}/audit",
    entry: "functions/keys/list-api-key-audit.ts",
    auth: { kind: "user", role: "member" },
    tableActions: [...userAuthentication, "dynamodb:GetItem"],
    queriesIndexes: false,
  },
] as const satisfies readonly RouteDefinition[];

export type RouteId = (typeof routes)[number]["id"];

/** The worker that runs erasure jobs from the deletion queue. */
export const deletionWorker: WorkerDefinition = {
  id: "DeletionWorker",
  entry: "functions/deletion/deletion-worker.ts",
  tableActions: [
    "dynamodb:GetItem",
    "dynamodb:UpdateItem",
    "dynamodb:Query",
    "dynamodb:BatchWriteItem",
    "dynamodb:DeleteItem",
  ],
  queriesIndexes: true,
  payloadAccess: "delete",
};

/** The route table entry of a handler (handlers take their auth rules from here). */
export function routeById(id: RouteId): RouteDefinition {
  const route: RouteDefinition | undefined = routes.find((candidate) => candidate.id === id);
  if (route === undefined) throw new Error(`No route ${id}`);
  return route;
}
