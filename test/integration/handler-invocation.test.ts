/**
 * The handler modules invoked directly with API Gateway HTTP API (v2) events,
 * as Lambda invokes them: no local adapter in between.
 */
import type { APIGatewayProxyEventV2, Context } from "aws-lambda";
import { beforeAll, describe, expect, it, vi } from "vitest";
import { handler as createEvent } from "../../functions/events/create-event.js";
import { handler as createSession } from "../../functions/sessions/create-session.js";
import { handler as updateSession } from "../../functions/sessions/update-session.js";
import { createTestKey, storedSession, type TestKey } from "../support/fixtures.js";

function apiGatewayEvent(options: {
  method: string;
  routePath: string;
  path: string;
  key?: string;
  body?: string;
  base64?: boolean;
  pathParameters?: Record<string, string>;
}): APIGatewayProxyEventV2 {
  const headers: Record<string, string> = { "content-type": "application/json" };
  if (options.key) headers.authorization = `Bearer ${options.key}`;
  const body =
    options.body === undefined
      ? undefined
      : options.base64
        ? Buffer.from(options.body).toString("base64")
        : options.body;
  return {
    version: "2.0",
    routeKey: `${options.method} ${options.routePath}`,
    rawPath: options.path,
    rawQueryString: "",
    headers,
    requestContext: {
      accountId: "123456789012",
      apiId: "api",
      domainName: "api.example.com",
      domainPrefix: "api",
      http: {
        method: options.method,
        path: options.path,
        protocol: "HTTP/1.1",
        sourceIp: "203.0.113.1",
        userAgent: "test",
      },
      requestId: "request-1",
      routeKey: `${options.method} ${options.routePath}`,
      stage: "$default",
      time: "22/Nov/2026:10:00:00 +0000",
      timeEpoch: Date.now(),
    },
    isBase64Encoded: options.base64 ?? false,
    ...(body === undefined ? {} : { body }),
    ...(options.pathParameters ? { pathParameters: options.pathParameters } : {}),
  };
}

const context = { awsRequestId: "request-1", getRemainingTimeInMillis: () => 10_000 } as Context;

let owner: TestKey;
beforeAll(async () => {
  owner = await createTestKey();
});

describe("handlers invoked with API Gateway v2 events", () => {
  it("create, update and add an event through the three handlers", async () => {
    const created = await createSession(
      apiGatewayEvent({
        method: "POST",
        routePath: "/api/sdk/sessions",
        path: "/api/sdk/sessions",
        key: owner.key,
        body: JSON.stringify({ name: "direct", agentName: "lambda", userId: "u-1" }),
      }),
      context,
    );
    expect(created.statusCode).toBe(201);
    const sessionId = JSON.parse(created.body ?? "{}").id as string;

    const event = await createEvent(
      apiGatewayEvent({
        method: "POST",
        routePath: "/api/sdk/events",
        path: "/api/sdk/events",
        key: owner.key,
        body: JSON.stringify({ sessionId, eventType: "tool_call", toolName: "calc", estimatedCost: 0.5 }),
        base64: true,
      }),
      context,
    );
    expect(event.statusCode).toBe(201);

    const updated = await updateSession(
      apiGatewayEvent({
        method: "PATCH",
        routePath: "/api/sdk/sessions/{id}",
        path: `/api/sdk/sessions/${sessionId}`,
        key: owner.key,
        body: JSON.stringify({ status: "completed" }),
        pathParameters: { id: sessionId },
      }),
      context,
    );
    expect(updated.statusCode).toBe(200);
    expect(JSON.parse(updated.body ?? "{}")).toMatchObject({ id: sessionId, status: "completed", success: true });
    expect(await storedSession(sessionId)).toMatchObject({ eventCount: 1, eventCost: 0.5, status: "completed" });
  });

  it("maps errors to JSON in the handler itself (no adapter): 401 and 400", async () => {
    const unauthorised = await createSession(
      apiGatewayEvent({ method: "POST", routePath: "/api/sdk/sessions", path: "/api/sdk/sessions", body: "{}" }),
      context,
    );
    expect(unauthorised.statusCode).toBe(401);
    expect(unauthorised.headers?.["content-type"]).toMatch(/^application\/json/);

    const invalid = await createSession(
      apiGatewayEvent({
        method: "POST",
        routePath: "/api/sdk/sessions",
        path: "/api/sdk/sessions",
        key: owner.key,
        body: "{}",
      }),
      context,
    );
    expect(invalid.statusCode).toBe(400);
    expect(JSON.parse(invalid.body ?? "{}").issues).toHaveLength(3);
  });

  it("answers 404 when API Gateway passes no session id", async () => {
    const result = await updateSession(
      apiGatewayEvent({
        method: "PATCH",
        routePath: "/api/sdk/sessions/{id}",
        path: "/api/sdk/sessions/",
        key: owner.key,
        body: JSON.stringify({ durationMs: 1 }),
      }),
      context,
    );
    expect(result.statusCode).toBe(404);
  });

  it("answers an unexpected failure with a generic 500 and logs it with the request id", async () => {
    // Prepare: an event whose path parameters throw when read stands for any
    // failure the service did not anticipate.
    const event = apiGatewayEvent({
      method: "POST",
      routePath: "/api/sdk/sessions",
      path: "/api/sdk/sessions",
      key: owner.key,
      body: JSON.stringify({ name: "x", agentName: "y", userId: "z" }),
    });
    Object.defineProperty(event, "pathParameters", {
      get() {
        throw new Error("internal detail that must not leak");
      },
    });
    const logged: string[] = [];
    const spy = vi.spyOn(console, "error").mockImplementation((line: string) => void logged.push(line));

    // Act
    const result = await createSession(event, { ...context, awsRequestId: "request-2" });
    spy.mockRestore();

    // Assess
    expect(result.statusCode).toBe(500);
    expect(JSON.parse(result.body ?? "{}")).toEqual({
      error: "Internal Server Error",
      message: "The request could not be completed; retry it later",
    });
    expect(result.body).not.toContain("internal detail");
    expect(logged.join("\n")).toContain("internal detail that must not leak");
    expect(logged.join("\n")).toContain("request-2");
  });
});
