/**
 * The request observability middleware driven through a tiny middy chain
 * (fake authentication, the real error mapper, no DynamoDB): one log line per
 * request with the right fields and nothing secret, and the EMF objects it
 * flushes when metrics are on.
 */
import middy from "@middy/core";
import type { Context } from "aws-lambda";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { generateApiKey } from "../../functions/domain/api-key.js";
import { UnauthorizedError } from "../../functions/domain/errors.js";
import type { Principal } from "../../functions/domain/principal.js";
import { httpErrorMapper } from "../../functions/http/error-mapper.js";
import { jsonResponse } from "../../functions/http/responses.js";
import type { HttpResult, SdkEvent } from "../../functions/http/sdk-event.js";
import {
  type RequestObservabilityOptions,
  requestObservability,
} from "../../functions/observability/request-logging.js";
import { rememberSecretsIn } from "../support/secrets-ledger.js";

const ROUTE_KEY = "POST /api/sdk/events";
/** A marker that only ever appears in request bodies. */
const BODY_MARKER = "body-only-marker-7f3a";

/** A real-format API key: the one credential the fake authentication accepts. */
const apiKey = generateApiKey("test").plaintext;
rememberSecretsIn(apiKey);

const principal: Principal = {
  keyId: "key_01TESTKEY",
  orgId: "org_observability",
  environment: "test",
  scopes: ["events:write"],
  retentionDays: 30,
  rollupRetentionDays: 365,
};

type Outcome = "ok" | "crash";

function apiEvent(options: { authorization?: string; outcome?: Outcome; requestId?: string }): SdkEvent {
  const headers: Record<string, string> = { "content-type": "application/json" };
  if (options.authorization !== undefined) headers.authorization = options.authorization;
  return {
    version: "2.0",
    routeKey: ROUTE_KEY,
    rawPath: "/api/sdk/events",
    rawQueryString: "",
    headers,
    requestContext: {
      accountId: "123456789012",
      apiId: "api",
      domainName: "api.example.com",
      domainPrefix: "api",
      http: {
        method: "POST",
        path: "/api/sdk/events",
        protocol: "HTTP/1.1",
        sourceIp: "203.0.113.1",
        userAgent: "test",
      },
      requestId: options.requestId ?? "apigw-request-1",
      routeKey: ROUTE_KEY,
      stage: "$default",
      time: "22/Nov/2026:10:00:00 +0000",
      timeEpoch: Date.now(),
    },
    isBase64Encoded: false,
    body: JSON.stringify({ outcome: options.outcome ?? "ok", note: BODY_MARKER }),
  };
}

const context = { awsRequestId: "lambda-request-1", getRemainingTimeInMillis: () => 10_000 } as Context;

/** The chain order route-chain.ts uses: observability first, then the error mapper, then auth. */
function tinyHandler(options: RequestObservabilityOptions = {}) {
  return middy<SdkEvent, HttpResult, Error, Context>()
    .use(requestObservability(options))
    .use(httpErrorMapper())
    .use({
      before: function fakeApiKeyAuthBefore(request) {
        if (request.event.headers.authorization !== `Bearer ${apiKey}`) {
          throw new UnauthorizedError("Missing or invalid API key");
        }
        request.event.principal = principal;
      },
    })
    .handler(async function storeEvents(event) {
      const body = JSON.parse(event.body ?? "{}") as { outcome: Outcome };
      if (body.outcome === "crash") throw new Error("store exploded");
      event.ingestedEvents = 3;
      return jsonResponse(201, { stored: 3 });
    });
}

/** Every line the logger printed through the console during a test, parsed. */
let printed: string[];
beforeEach(() => {
  printed = [];
  for (const method of ["debug", "info", "warn", "error"] as const) {
    const original = console[method];
    vi.spyOn(console, method).mockImplementation((...args: unknown[]) => {
      printed.push(args.map(String).join(" "));
      original(...args);
    });
  }
});
afterEach(() => {
  vi.restoreAllMocks();
  vi.unstubAllEnvs();
});

function requestLines(): Record<string, unknown>[] {
  return printed
    .map((line) => JSON.parse(line) as Record<string, unknown>)
    .filter((entry) => entry.message === "request");
}

describe("requestObservability: the request log line", () => {
  it("logs one INFO line with ids, route, method, status, latency, organisation and environment", async () => {
    // Prepare
    const handler = tinyHandler();

    // Act
    const response = await handler(apiEvent({ authorization: `Bearer ${apiKey}` }), context);

    // Assess
    expect(response.statusCode).toBe(201);
    const lines = requestLines();
    expect(lines).toHaveLength(1);
    const [line] = lines;
    expect(line).toMatchObject({
      level: "INFO",
      message: "request",
      service: "agent-tracking",
      requestId: "apigw-request-1",
      awsRequestId: "lambda-request-1",
      route: ROUTE_KEY,
      method: "POST",
      status: 201,
      orgId: principal.orgId,
      environment: "test",
      ingestedEvents: 3,
    });
    expect(typeof line?.latencyMs).toBe("number");
    expect(line?.latencyMs).toBeGreaterThanOrEqual(0);
    expect(typeof line?.timestamp).toBe("string");
  });

  it("logs a 401 without organisation or environment", async () => {
    // Prepare
    const handler = tinyHandler();

    // Act
    const response = await handler(apiEvent({ authorization: "Bearer ats_test_not-a-real-key" }), context);

    // Assess
    expect(response.statusCode).toBe(401);
    const [line] = requestLines();
    expect(line).toMatchObject({ level: "INFO", status: 401, route: ROUTE_KEY, errorName: "UnauthorizedError" });
    expect(line).not.toHaveProperty("orgId");
    expect(line).not.toHaveProperty("environment");
    expect(line).not.toHaveProperty("ingestedEvents");
  });

  it("logs a 5xx at ERROR once, after the error mapper has answered it", async () => {
    // Prepare
    const handler = tinyHandler();

    // Act
    const response = await handler(apiEvent({ authorization: `Bearer ${apiKey}`, outcome: "crash" }), context);

    // Assess
    expect(response.statusCode).toBe(500);
    const lines = requestLines();
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ level: "ERROR", status: 500, orgId: principal.orgId, errorName: "Error" });
    const unhandled = printed
      .map((entry) => JSON.parse(entry) as Record<string, unknown>)
      .find((entry) => entry.message === "unhandled error");
    expect(unhandled).toMatchObject({
      level: "ERROR",
      service: "agent-tracking",
      route: ROUTE_KEY,
      error: { name: "Error", message: "store exploded" },
    });
  });

  it("never prints the Authorization header, a key, a token, other headers or the body", async () => {
    // Prepare
    const handler = tinyHandler();
    const token = "eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJ1c2VyLTEifQ.c2lnbmF0dXJl";

    // Act
    await handler(apiEvent({ authorization: `Bearer ${apiKey}` }), context);
    await handler(apiEvent({ authorization: `Bearer ${token}` }), context);
    await handler(apiEvent({ authorization: `Bearer ${apiKey}`, outcome: "crash" }), context);

    // Assess
    expect(requestLines()).toHaveLength(3);
    const output = printed.join("\n");
    expect(output).not.toContain(apiKey);
    expect(output).not.toContain(token);
    expect(output).not.toContain(BODY_MARKER);
    expect(output).not.toMatch(/authorization|content-type|headers|"body"|Bearer/i);
  });
});

/** Every JSON line written straight to stdout (where the logger prints INFO on Lambda, and EMF always goes). */
function captureStdout(): Record<string, unknown>[] {
  const written: Record<string, unknown>[] = [];
  vi.spyOn(process.stdout, "write").mockImplementation((chunk: string | Uint8Array) => {
    for (const line of String(chunk).split("\n")) {
      if (line.startsWith("{")) written.push(JSON.parse(line) as Record<string, unknown>);
    }
    return true;
  });
  return written;
}

/** The EMF objects among what was written to stdout. */
function emfIn(written: readonly Record<string, unknown>[]): Record<string, unknown>[] {
  return written.filter((entry) => "_aws" in entry);
}

describe("requestObservability: responses a before middleware returns early", () => {
  /** A chain whose second before answers at once, as an idempotent replay does. */
  function replayingHandler(withPlugin: boolean) {
    const observability = requestObservability();
    return middy<SdkEvent, HttpResult, Error, Context>(withPlugin ? { requestEnd: observability.requestEnd } : {})
      .use(observability)
      .use(httpErrorMapper())
      .use({
        before: function replayBefore() {
          return { statusCode: 201, headers: { "idempotent-replayed": "true" }, body: "{}" };
        },
      })
      .handler(async function neverCalled() {
        throw new Error("the handler must not run on a replay");
      });
  }

  it("are reported once through the requestEnd plugin hook", async () => {
    // Prepare
    const handler = replayingHandler(true);

    // Act
    const response = await handler(apiEvent({ authorization: `Bearer ${apiKey}` }), context);

    // Assess
    expect(response.statusCode).toBe(201);
    const lines = requestLines();
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ status: 201, route: ROUTE_KEY, latencyMs: expect.any(Number) });
  });

  it("are missed by the middleware alone (middy skips every after), which is why the hook exists", async () => {
    // Prepare
    const handler = replayingHandler(false);

    // Act
    await handler(apiEvent({ authorization: `Bearer ${apiKey}` }), context);

    // Assess
    expect(requestLines()).toEqual([]);
  });

  it("never double-reports a normal request when both the middleware and the hook are in place", async () => {
    // Prepare
    const observability = requestObservability();
    const handler = middy<SdkEvent, HttpResult, Error, Context>({ requestEnd: observability.requestEnd })
      .use(observability)
      .use(httpErrorMapper())
      .handler(async function fails() {
        throw new UnauthorizedError("Missing or invalid API key");
      });

    // Act
    await handler(apiEvent({}), context);

    // Assess
    expect(requestLines()).toMatchObject([{ status: 401 }]);
  });
});

describe("requestObservability: EMF metrics", () => {
  it("emits nothing outside Lambda by default", async () => {
    // Prepare
    const written = captureStdout();
    const handler = tinyHandler();

    // Act
    await handler(apiEvent({ authorization: `Bearer ${apiKey}` }), context);

    // Assess
    const emf = emfIn(written);
    expect(emf).toEqual([]);
    expect(requestLines()).toHaveLength(1);
  });

  it("flushes Requests, Latency and IngestedEvents per request, with dimension route", async () => {
    // Prepare
    vi.stubEnv("POWERTOOLS_METRICS_DISABLED", "false");
    vi.stubEnv("POWERTOOLS_METRICS_NAMESPACE", "");
    const written = captureStdout();
    const handler = tinyHandler({ emitMetrics: true });

    // Act
    await handler(apiEvent({ authorization: `Bearer ${apiKey}` }), context);

    // Assess
    const emf = emfIn(written);
    expect(emf).toHaveLength(1);
    const [blob] = emf;
    expect(blob).toMatchObject({
      _aws: {
        Timestamp: expect.any(Number),
        CloudWatchMetrics: [
          {
            Namespace: "AgentTracking",
            Dimensions: [["service", "route"]],
            Metrics: [
              { Name: "Requests", Unit: "Count" },
              { Name: "Latency", Unit: "Milliseconds" },
              { Name: "IngestedEvents", Unit: "Count" },
            ],
          },
        ],
      },
      service: "agent-tracking",
      route: ROUTE_KEY,
      Requests: 1,
      IngestedEvents: 3,
    });
    expect(blob?.Latency).toBeGreaterThanOrEqual(0);
    expect(blob).not.toHaveProperty("Rejected");
  });

  it("adds Rejected with dimensions route and status for a 4xx, and no IngestedEvents", async () => {
    // Prepare
    vi.stubEnv("POWERTOOLS_METRICS_DISABLED", "false");
    const written = captureStdout();
    const handler = tinyHandler({ emitMetrics: true });

    // Act
    await handler(apiEvent({}), context);

    // Assess
    const emf = emfIn(written);
    expect(emf).toHaveLength(2);
    const request = emf.find((blob) => "Requests" in blob);
    const rejected = emf.find((blob) => "Rejected" in blob);
    expect(request).toMatchObject({ route: ROUTE_KEY, Requests: 1 });
    expect(request).not.toHaveProperty("IngestedEvents");
    expect(request).not.toHaveProperty("status");
    expect(rejected).toMatchObject({
      _aws: {
        CloudWatchMetrics: [
          {
            Namespace: "AgentTracking",
            Dimensions: [["service", "route", "status"]],
            Metrics: [{ Name: "Rejected", Unit: "Count" }],
          },
        ],
      },
      route: ROUTE_KEY,
      status: "401",
      Rejected: 1,
    });
  });

  it("keeps no metric from one request to the next", async () => {
    // Prepare
    vi.stubEnv("POWERTOOLS_METRICS_DISABLED", "false");
    const written = captureStdout();
    const handler = tinyHandler({ emitMetrics: true });

    // Act
    await handler(apiEvent({ authorization: `Bearer ${apiKey}`, requestId: "a" }), context);
    await handler(apiEvent({ authorization: `Bearer ${apiKey}`, requestId: "b" }), context);

    // Assess
    const emf = emfIn(written);
    expect(emf.map((blob) => blob.Requests)).toEqual([1, 1]);
  });
});

describe("requestObservability on AWS Lambda", () => {
  it("prints the line straight to stdout, not through the console, and emits EMF by default", async () => {
    // Prepare: fresh modules that see the Lambda runtime's function name at load.
    vi.stubEnv("AWS_LAMBDA_FUNCTION_NAME", "ats-create-event");
    vi.stubEnv("POWERTOOLS_METRICS_DISABLED", undefined);
    vi.resetModules();
    const fresh = await import("../../functions/observability/request-logging.js");
    const written = captureStdout();
    const handler = middy<SdkEvent, HttpResult, Error, Context>()
      .use(fresh.requestObservability())
      .handler(async function noContent() {
        return { statusCode: 204 };
      });

    // Act
    await handler(apiEvent({ authorization: `Bearer ${apiKey}` }), context);

    // Assess
    expect(requestLines()).toEqual([]);
    const lines = written.filter((entry) => entry.message === "request");
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ level: "INFO", status: 204, route: ROUTE_KEY });
    expect(emfIn(written)).toMatchObject([{ Requests: 1, route: ROUTE_KEY }]);
    expect(JSON.stringify(written)).not.toContain(apiKey);
  });

  it("emits no EMF when POWERTOOLS_METRICS_DISABLED=true, and still logs the line", async () => {
    // Prepare
    vi.stubEnv("AWS_LAMBDA_FUNCTION_NAME", "ats-create-event");
    vi.stubEnv("POWERTOOLS_METRICS_DISABLED", "true");
    vi.resetModules();
    const fresh = await import("../../functions/observability/request-logging.js");
    const written = captureStdout();
    const handler = middy<SdkEvent, HttpResult, Error, Context>()
      .use(fresh.requestObservability())
      .handler(async function noContent() {
        return { statusCode: 204 };
      });

    // Act
    await handler(apiEvent({ authorization: `Bearer ${apiKey}` }), context);

    // Assess
    expect(emfIn(written)).toEqual([]);
    expect(written.filter((entry) => entry.message === "request")).toHaveLength(1);
  });
});
