/**
 * The service's error types. Domain and storage code throw these; the HTTP
 * layer maps each `kind` to a status code in one place (http/error-mapper.ts).
 * Anything else thrown is an internal error: logged in full, never returned.
 */

export type ErrorKind =
  | "validation"
  | "unauthorized"
  | "forbidden"
  | "not_found"
  | "conflict"
  | "unprocessable"
  | "rate_limited"
  | "payload_too_large"
  | "unsupported_media_type"
  | "not_acceptable"
  | "unavailable";

/** One rejected field of a request. `path` is dotted, e.g. `customMetrics.latency`. */
export interface FieldIssue {
  readonly path: string;
  readonly message: string;
}

export abstract class AtsError extends Error {
  abstract readonly kind: ErrorKind;

  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
  }
}

export class ValidationError extends AtsError {
  readonly kind = "validation";
  readonly issues: readonly FieldIssue[];

  /** Without field issues, the whole body is named as the problem. */
  constructor(message: string, issues: readonly FieldIssue[] = [{ path: "(body)", message }]) {
    super(message);
    this.issues = issues;
  }
}

/** How many field paths a validation message names before it says "and N more". */
const PATHS_IN_MESSAGE = 5;

/**
 * The 400 for a request part (`what`: "request body", "query parameters", "event") whose fields failed
 * validation: the message names the first few paths, `issues` carries them all (the error mapper caps
 * what is sent).
 */
export function invalidFieldsError(what: string, issues: readonly FieldIssue[]): ValidationError {
  const named = issues
    .slice(0, PATHS_IN_MESSAGE)
    .map((issue) => issue.path)
    .join(", ");
  const more = issues.length > PATHS_IN_MESSAGE ? ` and ${issues.length - PATHS_IN_MESSAGE} more` : "";
  return new ValidationError(`Invalid ${what}: ${named}${more}`, issues);
}

/** The credential schemes a refused caller may use: an API key as a bearer token, and on some routes as Basic's password. */
export type CredentialScheme = "bearer" | "basic";

export class UnauthorizedError extends AtsError {
  readonly kind = "unauthorized";
  /** What the caller may send instead (the answer's challenges); a bearer token unless the route takes more. */
  readonly schemes: readonly CredentialScheme[];

  constructor(message: string, options?: { cause?: unknown; schemes?: readonly CredentialScheme[] }) {
    super(message, options);
    this.schemes = options?.schemes ?? ["bearer"];
  }
}

export class ForbiddenError extends AtsError {
  readonly kind = "forbidden";
}

export class NotFoundError extends AtsError {
  readonly kind = "not_found";
}

export class ConflictError extends AtsError {
  readonly kind = "conflict";
}

/** The request is well formed but cannot be processed as sent (e.g. an Idempotency-Key reused for another body). */
export class UnprocessableError extends AtsError {
  readonly kind = "unprocessable";
}

/** The caller spent its request budget; `retryAfterSeconds` says when the next window opens. */
export class RateLimitedError extends AtsError {
  readonly kind = "rate_limited";
  constructor(
    message: string,
    readonly retryAfterSeconds: number,
  ) {
    super(message);
  }
}

/**
 * The service could not finish the request for now (a dependency failed) and a retry of it is safe: 503
 * with Retry-After. For clients whose protocol retries only such answers (OTLP exporters retry 429, 502,
 * 503 and 504, never 500).
 */
export class UnavailableError extends AtsError {
  readonly kind = "unavailable";
  constructor(
    message: string,
    readonly retryAfterSeconds: number,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

export class PayloadTooLargeError extends AtsError {
  readonly kind = "payload_too_large";
}

export class UnsupportedMediaTypeError extends AtsError {
  readonly kind = "unsupported_media_type";
}

/** The answer cannot be given in a form the request accepts (e.g. too large to send uncompressed). */
export class NotAcceptableError extends AtsError {
  readonly kind = "not_acceptable";
}
