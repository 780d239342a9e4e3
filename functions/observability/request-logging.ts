/**
 * Request observability for the middy chain of every route: exactly one
 * structured log line per request, written once the final response is known
 * (`INFO` below 500, `ERROR` for 5xx), and Embedded Metric Format metrics
 * flushed with it.
 *
 * The line holds identifiers and outcome only: the API Gateway and Lambda
 * request ids, route, method, status, latency, and the organisation and
 * environment once the request is authenticated. It never holds headers,
 * the query string, the path, the body, keys or tokens: every field is
 * picked explicitly below, nothing is copied from the event wholesale.
 *
 * Registration: FIRST in the chain, before `httpErrorMapper()`. middy runs
 * `before` in registration order (so the clock starts before authentication)
 * and `after` and `onError` in reverse order (so this middleware's run last:
 * after every other `after`, and after the error mapper has turned the error
 * into the response whose status it reports).
 *
 * A `before` that answers early (returns a response, like an idempotent
 * replay) makes middy skip every `after`, this one included. For those, the
 * factory's result also carries `requestEnd`, a middy plugin hook that runs
 * at the very end of every request: pass it to `middy({ requestEnd })` and
 * every request is reported exactly once (whichever runs first reports).
 */
import type { MiddlewareObj, Request } from "@middy/core";
import type { Context } from "aws-lambda";
import type { HttpResult, SdkEvent } from "../http/sdk-event.js";
import { optionalEnv } from "../runtime/env.js";
import { logger, runningInLambda } from "../runtime/log.js";
import {
  type EmbeddedMetricsWriter,
  embeddedMetricsWriter,
  type MetricValue,
  metricsDisabledByEnvironment,
} from "./embedded-metrics.js";
import { DIMENSION, METRIC, METRICS_NAMESPACE, SERVICE_NAME } from "./metric-names.js";

type ObservedRequest = Request<SdkEvent, HttpResult, Error, Context>;

/** What {@link requestObservability} returns: the middleware and the plugin hook for early responses. */
export interface RequestObservability extends MiddlewareObj<SdkEvent, HttpResult, Error, Context> {
  /**
   * middy plugin hook (`middy({ requestEnd })`): reports a request that no
   * `after`/`onError` of this middleware saw, i.e. one answered early by a
   * `before`. A no-op for every other request.
   */
  readonly requestEnd: (request: Request) => void;
}

/** Options of {@link requestObservability}. */
export interface RequestObservabilityOptions {
  /**
   * Emit EMF metrics on stdout. Off outside Lambda by default, where EMF
   * lines would only clutter `npm start` and the test output.
   * `POWERTOOLS_METRICS_DISABLED=true` switches them off either way.
   * @default true on AWS Lambda (`AWS_LAMBDA_FUNCTION_NAME` set), false elsewhere
   */
  readonly emitMetrics?: boolean;
}

/** The fields of the per-request log line (besides the logger's own `level`, `message`, `timestamp`, `service`). */
export interface RequestLogFields {
  /** API Gateway's request id (`requestContext.requestId`): the id in the stage's access log. */
  readonly requestId: string | undefined;
  /** Lambda's request id (`context.awsRequestId`): the id in the function's own log lines. */
  readonly awsRequestId: string | undefined;
  /** The route key, e.g. `POST /api/sdk/sessions`. */
  readonly route: string;
  readonly method: string | undefined;
  readonly status: number;
  /** Milliseconds from this middleware's `before` to the final response. */
  readonly latencyMs: number | undefined;
  /** Whether this was the first request of this chain in the execution environment. */
  readonly coldStart: boolean;
  /** Organisation of the authenticated caller (absent when authentication failed or was not required). */
  readonly orgId?: string;
  /** Environment (`live`/`test`) of the API key that authenticated the request. */
  readonly environment?: string;
  /** The id (never the key) of the API key that authenticated the request: who did it, e.g. who deleted. */
  readonly keyId?: string;
  /** The signed-in user who made the request (console reads, key and member management). */
  readonly userId?: string;
  /** Events the request stored (set by the ingesting handlers). */
  readonly ingestedEvents?: number;
  /** Name of the error class that ended the request, when one did. */
  readonly errorName?: string;
}

/** Status when no middleware produced a response (the error mapper is missing or threw). */
const NO_RESPONSE_STATUS = 500;

function statusOf(response: HttpResult | null | undefined): number {
  if (response === undefined || response === null) return NO_RESPONSE_STATUS;
  return response.statusCode ?? 200;
}

/** A finite, non-negative count the handler set, or undefined. */
function ingestedEventsOf(event: SdkEvent): number | undefined {
  const count = event.ingestedEvents;
  return typeof count === "number" && Number.isFinite(count) && count >= 0 ? count : undefined;
}

/**
 * Builds the log line's fields. Each value is read from a known, non-secret
 * place; this is the only function that decides what a request line holds.
 */
export function requestLogFields(
  request: ObservedRequest,
  latencyMs: number | undefined,
  coldStart: boolean,
): RequestLogFields {
  const { event, context } = request;
  const status = statusOf(request.response);
  const orgId = event.principal?.orgId ?? event.user?.orgId;
  const environment = event.principal?.environment;
  const userId = event.principal?.signedInUserId ?? event.user?.userId ?? event.signedIn?.userId;
  const keyId = event.principal !== undefined && userId === undefined ? event.principal.keyId : undefined;
  const ingestedEvents = ingestedEventsOf(event);
  return {
    requestId: event.requestContext?.requestId,
    awsRequestId: context?.awsRequestId,
    route: event.routeKey ?? "unknown",
    method: event.requestContext?.http?.method,
    status,
    latencyMs,
    coldStart,
    ...(orgId !== undefined ? { orgId } : {}),
    ...(environment !== undefined ? { environment } : {}),
    ...(keyId !== undefined ? { keyId } : {}),
    ...(userId !== undefined ? { userId } : {}),
    ...(ingestedEvents !== undefined ? { ingestedEvents } : {}),
    ...(request.error instanceof Error ? { errorName: request.error.name } : {}),
  };
}

/**
 * Writes the request's metrics: one EMF object with `Requests`, `Latency` and
 * (on success) `IngestedEvents` with dimensions `service` and `route`, then,
 * for a 4xx/5xx, a second one with `Rejected` and dimensions `service`,
 * `route` and `status` (`status` must not become a dimension of the first
 * object's metrics). Never throws: a metrics problem is logged and the
 * response goes out unchanged.
 */
function publishRequestMetrics(metrics: EmbeddedMetricsWriter, fields: RequestLogFields): void {
  try {
    const route = { [DIMENSION.route]: fields.route };
    const values: MetricValue[] = [{ name: METRIC.requests, unit: "Count", value: 1 }];
    if (fields.latencyMs !== undefined) {
      values.push({ name: METRIC.latency, unit: "Milliseconds", value: fields.latencyMs });
    }
    if (fields.status < 400 && fields.ingestedEvents !== undefined) {
      values.push({ name: METRIC.ingestedEvents, unit: "Count", value: fields.ingestedEvents });
    }
    metrics.write(route, values);
    if (fields.status >= 400) {
      metrics.write({ ...route, [DIMENSION.status]: String(fields.status) }, [
        { name: METRIC.rejected, unit: "Count", value: 1 },
      ]);
    }
  } catch (error) {
    logger.warn("request metrics not published", { errorName: error instanceof Error ? error.name : typeof error });
  }
}

/**
 * Middleware factory: one log line and one set of metrics per request.
 * Register it first (before `httpErrorMapper()`) and give its `requestEnd`
 * to `middy()`; see the module comment. Build it once per chain (module
 * scope): it holds the chain's cold-start flag. Whether metrics are on and
 * their namespace (`POWERTOOLS_METRICS_NAMESPACE`, default
 * {@link METRICS_NAMESPACE}) and `service` dimension
 * (`POWERTOOLS_SERVICE_NAME`, default {@link SERVICE_NAME}) are read here.
 */
export function requestObservability(options: RequestObservabilityOptions = {}): RequestObservability {
  const emitMetrics = (options.emitMetrics ?? runningInLambda()) && !metricsDisabledByEnvironment();
  const metrics = emitMetrics
    ? embeddedMetricsWriter(optionalEnv("POWERTOOLS_METRICS_NAMESPACE") ?? METRICS_NAMESPACE, {
        [DIMENSION.service]: optionalEnv("POWERTOOLS_SERVICE_NAME") ?? SERVICE_NAME,
      })
    : undefined;
  const startedAt = new WeakMap<ObservedRequest, number>();
  const reported = new WeakSet<ObservedRequest>();
  let coldStart = true;

  function reportRequest(request: ObservedRequest): void {
    if (reported.has(request)) return;
    reported.add(request);
    const start = startedAt.get(request);
    const latencyMs = start === undefined ? undefined : Math.max(0, Math.round(performance.now() - start));
    const fields = requestLogFields(request, latencyMs, coldStart);
    coldStart = false;
    if (fields.status >= 500) logger.error("request", { ...fields });
    else logger.info("request", { ...fields });
    if (metrics !== undefined) publishRequestMetrics(metrics, fields);
  }

  function requestObservabilityBefore(request: ObservedRequest): void {
    startedAt.set(request, performance.now());
  }

  function requestObservabilityAfter(request: ObservedRequest): void {
    reportRequest(request);
  }

  function requestObservabilityOnError(request: ObservedRequest): void {
    reportRequest(request);
  }

  function requestObservabilityRequestEnd(request: Request): void {
    // middy types plugin hooks with an untyped request; this hook is only given to the SdkEvent chains.
    reportRequest(request as ObservedRequest);
  }

  return {
    before: requestObservabilityBefore,
    after: requestObservabilityAfter,
    onError: requestObservabilityOnError,
    requestEnd: requestObservabilityRequestEnd,
  };
}
