/**
 * The route table: the single source of truth for every HTTP route of the
 * service. The CDK stack creates one Lambda function and one API Gateway route
 * per entry, with exactly the DynamoDB actions listed here; the local server
 * dispatches to the very same handler modules.
 *
 * This module must stay free of runtime imports (no AWS SDK, no CDK) so that
 * both sides can read it cheaply.
 */
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

export interface RouteDefinition {
  /** Stable identifier, used for construct ids and function names in logs. */
  readonly id: string;
  readonly method: HttpMethod;
  /** API Gateway path syntax: `{name}` marks a path parameter. */
  readonly path: string;
  /** Handler module, relative to the repository root; it exports `handler`. */
  readonly entry: string;
  /** Scope the caller's API key must hold. */
  readonly scope: Scope;
  /** Least-privilege DynamoDB actions on the table. */
  readonly tableActions: readonly TableAction[];
  /** Whether the handler queries the table's global secondary indexes. */
  readonly queriesIndexes: boolean;
}

/** Actions every API-key authenticated handler needs: the key lookup. */
const authenticate: readonly TableAction[] = ["dynamodb:GetItem"];

export const routes: readonly RouteDefinition[] = [
  {
    id: "CreateSession",
    method: "POST",
    path: "/api/sdk/sessions",
    entry: "functions/sessions/create-session.ts",
    scope: "sessions:write",
    tableActions: [...authenticate, "dynamodb:PutItem"],
    queriesIndexes: false,
  },
  {
    id: "UpdateSession",
    method: "PATCH",
    path: "/api/sdk/sessions/{id}",
    entry: "functions/sessions/update-session.ts",
    scope: "sessions:write",
    tableActions: [...authenticate, "dynamodb:UpdateItem"],
    queriesIndexes: false,
  },
  {
    id: "CreateEvent",
    method: "POST",
    path: "/api/sdk/events",
    entry: "functions/events/create-event.ts",
    scope: "events:write",
    tableActions: [...authenticate, "dynamodb:PutItem", "dynamodb:UpdateItem"],
    queriesIndexes: false,
  },
];
