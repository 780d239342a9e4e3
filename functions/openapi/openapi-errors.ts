/**
 * Every error an operation can answer with, derived as the middleware chain answers them
 * (functions/http/route-chain.ts and the route kinds' modules):
 *
 * - the route's authentication (route table `auth`): 401, 403, and the 400 of a missing tenant header;
 * - the API-key chain (api-key-chain.ts: `apiKey` and `apiKeyOrUser` routes): the rate limit's 429, and on
 *   its writes (POST, PATCH) but for the exporters (api-key-export-route.ts) `Idempotency-Key`: 400, 409, 422;
 * - a JSON body (json-body.ts): 400, 413 (over its limit), 415; a raw body (its decompression): 413, 415;
 * - a query schema (query-parameters.ts): 400;
 * - each path parameter, by its kind (schemas/route-contracts.ts PATH_PARAMETERS);
 * - the errors the contract lists as the handler's own, in the words of openapi-prose.ts;
 * - 500 always.
 */
import * as z from "zod";
import { invalidFieldsError, ValidationError } from "../domain/errors.js";
import { LIMITS } from "../domain/limits.js";
import { roleRequirement } from "../domain/membership.js";
import { errorResponse as errorAnswer } from "../http/error-mapper.js";
import { isExportRouteAuth } from "../http/export-route-auth.js";
import { toFieldIssues } from "../http/json-body.js";
import { isWrite } from "../http/write-methods.js";
import type { RouteEntry, RouteId } from "../route-table.js";
import { contractOf, type ErrorStatus, PATH_PARAMETERS, type RoutesWith } from "../schemas/route-contracts.js";
import { errorExamples, invalidInputs } from "./openapi-examples.js";
import { type ErrorDoc, OPERATION_PROSE, PATH_PARAMETER_PROSE } from "./openapi-prose.js";

type Status = 400 | 401 | ErrorStatus;

/** One reason for an error status, with an example body. */
export interface ErrorCase {
  readonly name: string;
  readonly reason: string;
  readonly example: unknown;
}

/** Whether the route runs the API-key chain (rate limit; api-key-chain.ts). */
export function isRateLimited(route: RouteEntry): boolean {
  return route.auth.kind === "apiKey" || route.auth.kind === "apiKeyOrUser" || route.auth.kind === "feedbackToken";
}

/** Whether the route takes `Idempotency-Key` (api-key-route.ts, api-key-or-user-route.ts; not the exporters). */
export function takesIdempotencyKey(route: RouteEntry): boolean {
  return (
    isRateLimited(route) &&
    isWrite(route) &&
    !isExportRouteAuth(route.auth) &&
    route.auth.kind !== "feedbackToken" &&
    route.idempotencyKey !== false
  );
}

function bodyOf(errorBody: ReturnType<typeof errorAnswer>): unknown {
  return JSON.parse(errorBody.body ?? "{}");
}

/** The real 400 answer to the route's invalid input (openapi-examples.ts), run through the route's own schema. */
function badRequestExample(id: RouteId, what: "request body" | "query parameters"): unknown {
  const contract = contractOf(id);
  const schema = what === "request body" ? contract.body?.schema : contract.query;
  const input = (invalidInputs as Partial<Record<RouteId, unknown>>)[id];
  if (schema === undefined || input === undefined) throw new Error(`${id}: give an invalid input for the 400 example`);
  const result = z.safeParse(schema, input);
  if (result.success) throw new Error(`${id}: its invalid input is valid`);
  return bodyOf(errorAnswer(invalidFieldsError(what, toFieldIssues(result.error.issues))));
}

/** The example body of an error in words: a 400 as the error mapper answers a ValidationError. */
function exampleOf(status: Status, doc: ErrorDoc): unknown {
  if (doc.message === undefined) return errorExamples[status as keyof typeof errorExamples];
  if (status === 400) return bodyOf(errorAnswer(new ValidationError(doc.message)));
  return { error: errorExamples[status as keyof typeof errorExamples].error, message: doc.message };
}

const ACCESS_TOKEN_401 = {
  reason: "The access token is missing, invalid or expired, or an API key was sent.",
  example: {
    error: "Unauthorized",
    message: "Missing access token: sign in and send Authorization: Bearer <access token>",
  },
} as const;

function authenticationCases(route: RouteEntry, add: (status: Status, error: ErrorCase) => void): void {
  const auth = route.auth;
  const scopeExample = (scope: string) => ({
    error: "Forbidden",
    message: `This API key has no access to this resource: it lacks the "${scope}" scope`,
  });
  switch (auth.kind) {
    case "apiKeyOrUser":
      add(400, {
        name: "tenant",
        reason:
          "With an access token: `X-Organization-Id` is missing, or `X-Environment` is neither `live` nor `test`.",
        example: {
          error: "Bad Request",
          message: "Missing X-Organization-Id header: name the organisation whose data you read",
          issues: [{ path: "X-Organization-Id", message: "Required with an access token" }],
        },
      });
      add(401, {
        name: "credential",
        reason:
          "The API key is missing, malformed, unknown, expired or revoked; or the access token is invalid or expired.",
        example: errorExamples[401],
      });
      add(403, {
        name: "scopeOrRole",
        reason:
          `The API key lacks the \`${auth.scope}\` scope; or the user is not a member of the organisation, or ` +
          `their role is below \`${auth.role}\`.`,
        example: scopeExample(auth.scope),
      });
      return;
    case "apiKey":
      add(401, {
        name: "apiKey",
        reason: "The API key is missing, malformed, unknown, expired or revoked (checked before the body is read).",
        example: errorExamples[401],
      });
      add(403, {
        name: "scope",
        reason: `The API key lacks the \`${auth.scope}\` scope.`,
        example: scopeExample(auth.scope),
      });
      return;
    case "user":
      add(400, {
        name: "organisation",
        reason: "The user belongs to several organisations and sent no `X-Organization-Id`.",
        example: {
          error: "Bad Request",
          message: "You belong to several organisations: choose one with the X-Organization-Id header",
          issues: [{ path: "X-Organization-Id", message: "Required when you belong to several organisations" }],
        },
      });
      add(401, { name: "accessToken", ...ACCESS_TOKEN_401 });
      add(403, {
        name: "role",
        reason: `The user is not a member of the organisation, or their role is below \`${auth.role}\`.`,
        example: {
          error: "Forbidden",
          message: `Your role in organisation acme is member; this action needs ${roleRequirement(auth.role)}`,
        },
      });
      return;
    case "signedIn":
      add(401, { name: "accessToken", ...ACCESS_TOKEN_401 });
      return;
    case "feedbackToken":
      add(401, {
        name: "feedbackToken",
        reason:
          "The feedback token is missing, malformed, altered, of another deployment or expired; or the credential " +
          "is not a feedback token (API keys and access tokens are refused here).",
        example: { error: "Unauthorized", message: "Feedback token expired: ask the application for a new one" },
      });
      return;
    case "public":
      return;
  }
}

function apiKeyChainCases(route: RouteEntry, add: (status: Status, error: ErrorCase) => void): void {
  if (!isRateLimited(route)) return;
  add(429, {
    name: "rateLimit",
    reason:
      "The per-minute request budget of the API key (or feedback token), of its organisation or (with an access " +
      "token) of the user's console requests in the organisation is spent: retry after `Retry-After` seconds.",
    example: {
      error: "Too Many Requests",
      message: "Rate limit of 6000 requests per minute for this organisation reached; retry in 12 s",
    },
  });
}

function idempotencyCases(route: RouteEntry, add: (status: Status, error: ErrorCase) => void): void {
  if (!takesIdempotencyKey(route)) return;
  add(400, {
    name: "idempotencyKey",
    reason: "`Idempotency-Key` is not 1 to 255 visible ASCII characters.",
    example: bodyOf(
      errorAnswer(
        new ValidationError("Invalid Idempotency-Key: use 1 to 255 visible ASCII characters, e.g. a UUID", [
          { path: "Idempotency-Key", message: "Must be 1 to 255 visible ASCII characters" },
        ]),
      ),
    ),
  });
  add(409, {
    name: "idempotencyInFlight",
    reason: "A request with the same `Idempotency-Key` is still being processed; retry it shortly.",
    example: {
      error: "Conflict",
      message: "A request with this Idempotency-Key is still being processed; retry it shortly",
    },
  });
  add(422, {
    name: "idempotencyMismatch",
    reason: "The `Idempotency-Key` was used in the last 24 hours with another request (method, path or body).",
    example: {
      error: "Unprocessable Content",
      message: "This Idempotency-Key was already used with a different request; use a new key for a new request",
    },
  });
}

function inputCases(route: RouteEntry, add: (status: Status, error: ErrorCase) => void): void {
  const id = route.id as RouteId;
  const contract = contractOf(id);
  if (contract.body !== undefined) {
    add(400, {
      name: "body",
      reason:
        "The body is not a JSON object (malformed, empty, not an object), or fields are missing, invalid or " +
        "unknown: each is named in `issues`.",
      example: badRequestExample(id, "request body"),
    });
  }
  const maxBytes = contract.body?.maxBytes ?? contract.protocolBody?.maxBytes ?? LIMITS.bodyBytes;
  if (contract.body !== undefined || contract.protocolBody !== undefined) {
    add(413, {
      name: "tooLarge",
      reason: `The body is over ${maxBytes} bytes, once decompressed.`,
      example: {
        error: "Payload Too Large",
        message: `Request body is ${maxBytes + 1024} bytes; the limit is ${maxBytes} bytes`,
      },
    });
  }
  if (contract.body !== undefined) {
    add(415, {
      name: "mediaType",
      reason:
        "`Content-Type` is not JSON (`application/json`, `application/*+json`; a missing one is accepted), or " +
        "`Content-Encoding` is neither `gzip` nor `identity`.",
      example: errorExamples[415],
    });
  }
  if (contract.protocolBody !== undefined) {
    add(415, {
      name: "contentEncoding",
      reason: "`Content-Encoding` is neither `gzip` nor `identity`.",
      example: { error: "Unsupported Media Type", message: 'Unsupported Content-Encoding "br": send gzip or none' },
    });
  }
  if (contract.query !== undefined) {
    add(400, {
      name: "query",
      reason: "Query parameters are invalid or unknown: each is named in `issues`.",
      example: badRequestExample(id, "query parameters"),
    });
  }
  for (const [name, kind] of Object.entries(contract.path ?? {})) {
    const words: Partial<Record<Status, ErrorDoc>> = PATH_PARAMETER_PROSE[kind].errors;
    for (const status of PATH_PARAMETERS[kind].errors) {
      const doc = words[status];
      if (doc === undefined) throw new Error(`${kind}: say why it answers ${status}`);
      add(status, { name, reason: doc.reason, example: exampleOf(status, doc) });
    }
  }
}

/** Every error status the route can answer with, each with its reasons and their example bodies, by status. */
export function errorCases(route: RouteEntry): [Status, ErrorCase[]][] {
  const cases = new Map<Status, ErrorCase[]>();
  const add = (status: Status, error: ErrorCase) => cases.set(status, [...(cases.get(status) ?? []), error]);
  authenticationCases(route, add);
  apiKeyChainCases(route, add);
  inputCases(route, add);
  const id = route.id as RoutesWith<"errors">;
  const own: Partial<Record<Status, ErrorDoc>> = OPERATION_PROSE[id]?.errors ?? {};
  for (const status of contractOf(route.id as RouteId).errors ?? []) {
    const doc = own[status];
    if (doc === undefined) throw new Error(`${route.id}: say why it answers ${status}`);
    add(status, { name: route.id, reason: doc.reason, example: exampleOf(status, doc) });
  }
  idempotencyCases(route, add);
  add(500, {
    name: "unexpected",
    reason: "An unexpected failure (logged in full with the request id); safe to retry.",
    example: errorExamples[500],
  });
  return [...cases].sort(([a], [b]) => a - b);
}
