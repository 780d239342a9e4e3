/**
 * The Embedded Metric Format objects (functions/observability/embedded-metrics.ts):
 * exactly the structure of the CloudWatch EMF specification, and the
 * environment switch that turns metrics off.
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import {
  embeddedMetricObject,
  embeddedMetricsWriter,
  metricsDisabledByEnvironment,
} from "../../functions/observability/embedded-metrics.js";

afterEach(() => {
  vi.restoreAllMocks();
  vi.unstubAllEnvs();
});

describe("embeddedMetricObject", () => {
  it("builds the EMF object: _aws metadata, then dimension values, then metric values", () => {
    // Act
    const object = embeddedMetricObject(
      "AgentTracking",
      { service: "agent-tracking", route: "POST /api/sdk/events" },
      [
        { name: "Requests", unit: "Count", value: 1 },
        { name: "Latency", unit: "Milliseconds", value: 12 },
      ],
      1_764_000_000_000,
    );

    // Assess
    expect(object).toStrictEqual({
      _aws: {
        Timestamp: 1_764_000_000_000,
        CloudWatchMetrics: [
          {
            Namespace: "AgentTracking",
            Dimensions: [["service", "route"]],
            Metrics: [
              { Name: "Requests", Unit: "Count" },
              { Name: "Latency", Unit: "Milliseconds" },
            ],
          },
        ],
      },
      service: "agent-tracking",
      route: "POST /api/sdk/events",
      Requests: 1,
      Latency: 12,
    });
    expect(Object.keys(object)).toEqual(["_aws", "service", "route", "Requests", "Latency"]);
  });

  it("stamps the current time in milliseconds by default and leaves out empty dimension values", () => {
    // Prepare
    const before = Date.now();

    // Act
    const object = embeddedMetricObject("NS", { service: "svc", route: "" }, [
      { name: "Rejected", unit: "Count", value: 1 },
    ]);

    // Assess
    const aws = object._aws as { Timestamp: number; CloudWatchMetrics: { Dimensions: string[][] }[] };
    expect(aws.Timestamp).toBeGreaterThanOrEqual(before);
    expect(aws.Timestamp).toBeLessThanOrEqual(Date.now());
    expect(aws.CloudWatchMetrics[0]?.Dimensions).toEqual([["service"]]);
    expect(object).not.toHaveProperty("route");
  });
});

describe("embeddedMetricsWriter", () => {
  it("writes one JSON line to stdout, the writer's dimensions first", () => {
    // Prepare
    const chunks: string[] = [];
    vi.spyOn(process.stdout, "write").mockImplementation((chunk: string | Uint8Array) => {
      chunks.push(String(chunk));
      return true;
    });
    const writer = embeddedMetricsWriter("AgentTracking", { service: "agent-tracking" });

    // Act
    writer.write({ route: "GET /x", status: "404" }, [{ name: "Rejected", unit: "Count", value: 1 }]);

    // Assess
    expect(chunks).toHaveLength(1);
    expect(chunks[0]?.endsWith("}\n")).toBe(true);
    expect(JSON.parse(chunks[0] ?? "")).toMatchObject({
      _aws: { CloudWatchMetrics: [{ Dimensions: [["service", "route", "status"]] }] },
      service: "agent-tracking",
      route: "GET /x",
      status: "404",
      Rejected: 1,
    });
  });
});

describe("metricsDisabledByEnvironment", () => {
  it.each([
    [undefined, false],
    ["", false],
    ["false", false],
    ["0", false],
    ["true", true],
    ["TRUE", true],
    ["1", true],
    ["yes", true],
    ["on", true],
  ])("POWERTOOLS_METRICS_DISABLED=%s → %s", (value, disabled) => {
    // Prepare
    vi.stubEnv("POWERTOOLS_METRICS_DISABLED", value);

    // Act + Assess
    expect(metricsDisabledByEnvironment()).toBe(disabled);
  });
});
