/**
 * The one place errors become HTTP responses. Service errors (AtsError) are
 * exposed with their message; anything else is logged in full with the
 * request id and answered with a generic 500, never a stack trace.
 */
import type { MiddlewareObj, Request } from "@middy/core";
import type { Context } from "aws-lambda";
import {
  AtsError,
  type ErrorKind,
  RateLimitedError,
  UnauthorizedError,
  UnavailableError,
  ValidationError,
} from "../domain/errors.js";
import { logError } from "../runtime/log.js";
import { jsonResponse } from "./responses.js";
import type { HttpResult, SdkEvent } from "./sdk-event.js";

const STATUS: Record<ErrorKind, { statusCode: number; title: string }> = {
  validation: { statusCode: 400, title: "Bad Request" },
  unauthorized: { statusCode: 401, title: "Unauthorized" },
  forbidden: { statusCode: 403, title: "Forbidden" },
  not_found: { statusCode: 404, title: "Not Found" },
  conflict: { statusCode: 409, title: "Conflict" },
  unprocessable: { statusCode: 422, title: "Unprocessable Content" },
  rate_limited: { statusCode: 429, title: "Too Many Requests" },
  payload_too_large: { statusCode: 413, title: "Payload Too Large" },
  unsupported_media_type: { statusCode: 415, title: "Unsupported Media Type" },
  not_acceptable: { statusCode: 406, title: "Not Acceptable" },
  unavailable: { statusCode: 503, title: "Service Unavailable" },
};

/** AWS errors that mean "too much, too fast": the client should back off and retry. */
const THROTTLING_ERRORS = new Set([
  "ProvisionedThroughputExceededException",
  "ThrottlingException",
  "RequestLimitExceeded",
  "TooManyRequestsException",
  "SlowDown",
]);

/**
 * Bounds of an error body, so that no answer nears Lambda's 6 MB response limit whatever the request
 * held (a 1 MB body of unknown fields is a million issues): the first MAX_REPORTED_ISSUES issues are
 * sent, with `issueCount` saying how many there were, and every text is cut to MAX_ERROR_TEXT characters.
 */
export const MAX_REPORTED_ISSUES = 20;
export const MAX_ERROR_TEXT = 500;

function clipped(text: string): string {
  return text.length <= MAX_ERROR_TEXT ? text : `${text.slice(0, MAX_ERROR_TEXT - 1).toWellFormed()}…`;
}

/** Seconds a client should wait before retrying after throttling. */
export const THROTTLED_RETRY_AFTER_SECONDS = 1;

/** Whether DynamoDB or S3 throttled the request (directly, or inside a cancelled transaction). */
export function isThrottling(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  if (THROTTLING_ERRORS.has(error.name)) return true;
  const reasons = (error as { CancellationReasons?: { Code?: string }[] }).CancellationReasons;
  return (
    error.name === "TransactionCanceledException" && (reasons ?? []).some((reason) => reason.Code === "ThrottlingError")
  );
}

/** RFC 9110 challenges of a 401, one per scheme the route takes (Basic with the realm and charset of RFC 7617). */
function authenticationChallenges(error: UnauthorizedError): string {
  return error.schemes
    .map((scheme) => (scheme === "basic" ? 'Basic realm="ats", charset="UTF-8"' : "Bearer"))
    .join(", ");
}

/** Maps an error to the response a client sees. */
export function errorResponse(error: unknown): HttpResult {
  if (isThrottling(error)) {
    return jsonResponse(
      503,
      { error: "Service Unavailable", message: "The service is busy; retry after the Retry-After delay" },
      { "retry-after": String(THROTTLED_RETRY_AFTER_SECONDS) },
    );
  }
  if (!(error instanceof AtsError)) {
    return jsonResponse(500, {
      error: "Internal Server Error",
      message: "The request could not be completed; retry it later",
    });
  }
  const { statusCode, title } = STATUS[error.kind];
  const body: Record<string, unknown> = { error: title, message: clipped(error.message) };
  if (error instanceof ValidationError) {
    body.issues = error.issues
      .slice(0, MAX_REPORTED_ISSUES)
      .map((issue) => ({ path: clipped(issue.path), message: clipped(issue.message) }));
    if (error.issues.length > MAX_REPORTED_ISSUES) body.issueCount = error.issues.length;
  }
  const headers: Record<string, string> =
    error instanceof UnauthorizedError ? { "www-authenticate": authenticationChallenges(error) } : {};
  if (error instanceof RateLimitedError || error instanceof UnavailableError) {
    headers["retry-after"] = String(error.retryAfterSeconds);
  }
  return jsonResponse(statusCode, body, headers);
}

function mapErrorOnError(request: Request<SdkEvent, HttpResult, Error, Context>): void {
  if (!(request.error instanceof AtsError)) {
    // Throttling included: logged with the request id so operators see it.
    logError("unhandled error", request.error, {
      requestId: request.event.requestContext?.requestId,
      awsRequestId: request.context.awsRequestId,
      route: request.event.routeKey,
    });
  }
  request.response = errorResponse(request.error);
}

export function httpErrorMapper(): MiddlewareObj<SdkEvent, HttpResult, Error, Context> {
  return { onError: mapErrorOnError };
}
