/**
 * The one definition of the service's custom CloudWatch metrics (Embedded
 * Metric Format): namespace, service name, metric and dimension names. The
 * request middleware emits them and the CDK operations dashboard graphs them,
 * both from this module, so a rename cannot leave the dashboard empty.
 *
 * No runtime dependency here: the CDK app imports it at synthesis.
 */

/** CloudWatch namespace of every custom metric (`POWERTOOLS_METRICS_NAMESPACE` overrides it). */
export const METRICS_NAMESPACE = "AgentTracking";

/**
 * Name of the service in every log line (`service`) and the `service`
 * dimension of every metric (`POWERTOOLS_SERVICE_NAME` overrides it).
 */
export const SERVICE_NAME = "agent-tracking";

/** Names of the custom metrics. */
export const METRIC = {
  /** Count: one per request a route handled (any status). */
  requests: "Requests",
  /** Milliseconds: time from the first middleware to the final response, per request. */
  latency: "Latency",
  /** Count: one per request answered with a 4xx or 5xx status (dimension `status`). */
  rejected: "Rejected",
  /** Count: events a successful request stored. */
  ingestedEvents: "IngestedEvents",
  /** Milliseconds: from an event's acknowledgement to its session's counters including it (stream consumer). */
  countingLag: "CountingLag",
  /** Count: stream records the consumer could not count in an invocation (they are delivered again). */
  countingFailures: "CountingFailures",
} as const;

/** Names of the dimensions of the custom metrics. */
export const DIMENSION = {
  /** The API Gateway route key, e.g. `POST /api/sdk/events`. */
  route: "route",
  /** The HTTP status code of a rejected request, e.g. `401`. */
  status: "status",
  /** The service name ({@link SERVICE_NAME}): the first dimension of every metric. */
  service: "service",
} as const;
