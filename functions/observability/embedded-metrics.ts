/**
 * CloudWatch Embedded Metric Format (EMF): a metric is a JSON log line whose
 * `_aws` member tells CloudWatch Logs which of its top-level keys are metric
 * values and which are dimensions; CloudWatch extracts the metrics from the
 * function's log group, no API call needed.
 *
 * ```json
 * {"_aws":{"Timestamp":1764000000000,"CloudWatchMetrics":[{"Namespace":"AgentTracking",
 *   "Dimensions":[["service","route"]],"Metrics":[{"Name":"Requests","Unit":"Count"}]}]},
 *  "service":"agent-tracking","route":"POST /api/sdk/events","Requests":1}
 * ```
 *
 * Specification: https://docs.aws.amazon.com/AmazonCloudWatch/latest/monitoring/CloudWatch_Embedded_Metric_Format_Specification.html
 */
import { optionalEnv } from "../runtime/env.js";

/** The CloudWatch units the service's metrics use. */
export type MetricUnit = "Count" | "Milliseconds";

/** One metric value of an EMF object. */
export interface MetricValue {
  readonly name: string;
  readonly unit: MetricUnit;
  readonly value: number;
}

/** Dimension name → value. Names keep their order; an empty value is left out (CloudWatch rejects it). */
export type MetricDimensions = Readonly<Record<string, string>>;

/**
 * One EMF object: every metric of `metrics` (names must differ) with the one
 * dimension set `dimensions`, timestamped `timestamp` (milliseconds since the
 * epoch).
 */
export function embeddedMetricObject(
  namespace: string,
  dimensions: MetricDimensions,
  metrics: readonly MetricValue[],
  timestamp: number = Date.now(),
): Record<string, unknown> {
  const dimensionValues = Object.fromEntries(Object.entries(dimensions).filter(([, value]) => value !== ""));
  const object: Record<string, unknown> = {
    _aws: {
      Timestamp: timestamp,
      CloudWatchMetrics: [
        {
          Namespace: namespace,
          Dimensions: [Object.keys(dimensionValues)],
          Metrics: metrics.map(({ name, unit }) => ({ Name: name, Unit: unit })),
        },
      ],
    },
    ...dimensionValues,
  };
  for (const { name, value } of metrics) object[name] = value;
  return object;
}

/** Values of `POWERTOOLS_METRICS_DISABLED` that switch metrics off (case-insensitive). */
const TRUE_VALUES: ReadonlySet<string> = new Set(["1", "y", "yes", "t", "true", "on"]);

/** Whether `POWERTOOLS_METRICS_DISABLED` (`true`, `1`, `yes`, …) switches metrics off. */
export function metricsDisabledByEnvironment(): boolean {
  return TRUE_VALUES.has(optionalEnv("POWERTOOLS_METRICS_DISABLED")?.trim().toLowerCase() ?? "");
}

/** Writes EMF objects for one namespace, each with the same leading dimensions. */
export interface EmbeddedMetricsWriter {
  /** Writes one EMF object: `metrics` with the writer's dimensions followed by `dimensions`. */
  write(dimensions: MetricDimensions, metrics: readonly MetricValue[]): void;
}

/**
 * A writer that prints each EMF object as one line on `process.stdout`,
 * which the Lambda runtime sends to the function's log group (never through
 * `console.*`, which Lambda prefixes).
 */
export function embeddedMetricsWriter(namespace: string, defaultDimensions: MetricDimensions): EmbeddedMetricsWriter {
  return {
    write(dimensions, metrics) {
      const object = embeddedMetricObject(namespace, { ...defaultDimensions, ...dimensions }, metrics);
      process.stdout.write(`${JSON.stringify(object)}\n`);
    },
  };
}
