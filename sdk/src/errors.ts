/**
 * Everything the client reports is an {@link AtsError}. Only
 * {@link AtsConfigurationError} is ever thrown (at construction, for misuse);
 * delivery problems go to the `onError` callback and never into agent code.
 */

/** What went wrong, machine-readable. */
export type AtsErrorCode =
  | "configuration"
  | "rejected"
  | "retries_exhausted"
  | "shutdown"
  | "session_not_created"
  | "queue_overflow"
  | "event_too_large"
  | "usage";

/** Base class of every error the client creates. */
export class AtsError extends Error {
  /** Machine-readable kind of the problem. */
  readonly code: AtsErrorCode;
  /** How many events this error cost (0 when none was lost). */
  readonly lostEvents: number;
  /** The session concerned, when there is one (none for a conversation's score). */
  readonly sessionId: string | undefined;
  /** The conversation concerned, for a problem with a conversation's score. */
  readonly conversationId: string | undefined;

  constructor(
    code: AtsErrorCode,
    message: string,
    details: { lostEvents?: number; sessionId?: string; conversationId?: string } = {},
  ) {
    super(message);
    this.name = "AtsError";
    this.code = code;
    this.lostEvents = details.lostEvents ?? 0;
    this.sessionId = details.sessionId;
    this.conversationId = details.conversationId;
  }
}

/** Thrown by `new AgentTracker(…)` when the options cannot work (no API key, a base URL that is not http(s), …). */
export class AtsConfigurationError extends AtsError {
  constructor(message: string) {
    super("configuration", message);
    this.name = "AtsConfigurationError";
  }
}

/**
 * A request the service refused (a 4xx other than 408/409/425/429: nothing a
 * retry could fix), or one that still failed after every retry.
 */
export class AtsDeliveryError extends AtsError {
  /** The operation: `createSession`, `recordEvents`, `endSession`, `score` or `feedbackToken`. */
  readonly operation: string;
  /** The last HTTP status, or `undefined` after a network error. */
  readonly status: number | undefined;
  /** The service's JSON error body, when it sent one. */
  readonly body: unknown;
  /** How many times the request was sent. */
  readonly attempts: number;

  constructor(
    code: "rejected" | "retries_exhausted" | "shutdown" | "session_not_created",
    message: string,
    details: {
      operation: string;
      status?: number | undefined;
      body?: unknown;
      attempts?: number;
      lostEvents?: number;
      sessionId?: string;
      conversationId?: string;
    },
  ) {
    super(code, message, details);
    this.name = "AtsDeliveryError";
    this.operation = details.operation;
    this.status = details.status;
    this.body = details.body;
    this.attempts = details.attempts ?? 0;
  }
}

/** Events dropped before they were sent: the queue was full, or one event was larger than the service accepts. */
export class AtsDroppedEventsError extends AtsError {
  /** For `event_too_large`: the event's size and its largest fields, in bytes of JSON. */
  readonly sizes:
    | { readonly eventBytes: number; readonly limitBytes: number; readonly fields: Record<string, number> }
    | undefined;

  constructor(
    code: "queue_overflow" | "event_too_large",
    message: string,
    details: {
      lostEvents: number;
      sessionId?: string;
      sizes?: { eventBytes: number; limitBytes: number; fields: Record<string, number> };
    },
  ) {
    super(code, message, details);
    this.name = "AtsDroppedEventsError";
    this.sizes = details.sizes;
  }
}

/** A call that makes no sense (ending a run twice, an event after `shutdown()`); reported, never thrown. */
export class AtsUsageError extends AtsError {
  constructor(message: string, sessionId?: string, conversationId?: string) {
    super("usage", message, {
      ...(sessionId === undefined ? {} : { sessionId }),
      ...(conversationId === undefined ? {} : { conversationId }),
    });
    this.name = "AtsUsageError";
  }
}
