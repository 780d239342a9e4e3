/**
 * The OpenAPI document: a valid OpenAPI 3.1 document covering every route of
 * the route table, identical to the committed docs/openapi.json, served at
 * GET /api/openapi.json, with examples that pass their own schemas, and
 * response schemas that real responses of the local API pass.
 */
import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import SwaggerParser from "@apidevtools/swagger-parser";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as z from "zod";
import {
  documentedSchemas,
  type OpenApiDocument,
  type Operation,
  openApiDocument,
} from "../../functions/openapi/openapi-document.js";
import { requestExamples } from "../../functions/openapi/openapi-examples.js";
import { type RouteDefinition, type RouteId, routes } from "../../functions/routes.js";
import { errorResponse } from "../../functions/schemas/response-schemas.js";
import type { LocalApi } from "../../local/http-adapter.js";
import { OPENAPI_PATH, openApiText } from "../../scripts/write-openapi.js";
import {
  type ApiResponse,
  call,
  createTestKey,
  createTestSession,
  createTestUser,
  identity,
  startTestApi,
  type TestKey,
  type TestUser,
} from "../support/fixtures.js";

type ApiDocument = Exclude<Parameters<typeof SwaggerParser.validate>[0], string>;

const document = openApiDocument();

function operationOf(route: RouteDefinition): Operation | undefined {
  return document.paths[route.path]?.[route.method.toLowerCase() as Lowercase<RouteDefinition["method"]>];
}

function routeOf(id: RouteId): RouteDefinition {
  const route = routes.find((candidate) => candidate.id === id);
  if (route === undefined) throw new Error(`No route ${id}`);
  return route;
}

/** A deep, mutable copy (SwaggerParser dereferences in place; the memoised document is frozen). */
function copyOf(value: OpenApiDocument): ApiDocument {
  return structuredClone(value) as unknown as ApiDocument;
}

/** Asserts a zod parse succeeded, showing zod's explanation when it did not. */
function expectValid(schema: z.core.$ZodType, value: unknown, what: string): void {
  const result = z.safeParse(schema, value);
  expect(result.success ? "" : z.prettifyError(result.error), `${what}: ${JSON.stringify(value)}`).toBe("");
}

/** Every example of a media type: `example`, or the values of `examples`. */
function examplesOf(media: Record<string, unknown> | undefined): unknown[] {
  if (media === undefined) return [];
  if ("example" in media) return [media.example];
  const examples = (media.examples ?? {}) as Record<string, { value: unknown }>;
  return Object.values(examples).map((example) => example.value);
}

function jsonContent(holder: Record<string, unknown> | undefined): Record<string, unknown> | undefined {
  const content = holder?.content as Record<string, Record<string, unknown>> | undefined;
  return content?.["application/json"];
}

describe("the generated document", () => {
  it("is a valid OpenAPI 3.1 document", async () => {
    // Act
    const validated = await SwaggerParser.validate(copyOf(document));

    // Assess
    expect(document.openapi).toBe("3.1.0");
    expect(validated.info.title).toBe("Agent Tracking Service");
  });

  it("fails validation when broken (the validator is really checking)", async () => {
    // Prepare: an operation that answers with a schema that does not exist
    const broken = structuredClone(document) as unknown as {
      paths: Record<string, Record<string, { responses: Record<string, unknown> }>>;
    };
    const createSession = broken.paths["/api/sdk/sessions"]?.post;
    if (createSession === undefined) throw new Error("POST /api/sdk/sessions missing");
    createSession.responses["201"] = {
      description: "x",
      content: { "application/json": { schema: { $ref: "#/components/schemas/NoSuchSchema" } } },
    };

    // Act + Assess
    await expect(SwaggerParser.validate(broken as unknown as ApiDocument)).rejects.toThrow(/NoSuchSchema/);
  });

  it("has info.version from package.json and a relative server", () => {
    const packageJson = JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as {
      version: string;
    };
    expect(document.info.version).toBe(packageJson.version);
    expect(document.servers).toEqual([expect.objectContaining({ url: "/" })]);
  });

  it.each(routes.map((route) => [route.id, route] as const))(
    "documents %s with its method, parameters and security",
    (_id, route) => {
      const operation = operationOf(route);

      expect(operation, `${route.method} ${route.path} is missing from the document`).toBeDefined();
      expect(operation?.operationId).toBe(route.id);
      const pathParameters = [...route.path.matchAll(/\{(\w+)\}/g)].map((match) => match[1]);
      const declared = (operation?.parameters ?? []).filter(
        (parameter) => "in" in parameter && parameter.in === "path",
      );
      expect(declared.map((parameter) => ("name" in parameter ? parameter.name : ""))).toEqual(pathParameters);
      if (route.auth.kind === "apiKey") {
        expect(operation?.security).toEqual(
          route.auth.basic === true ? [{ apiKey: [] }, { langfuseBasic: [] }] : [{ apiKey: [] }],
        );
        expect(operation?.["x-required-scope"]).toBe(route.auth.scope);
        expect(Object.keys(operation?.responses ?? {})).toEqual(expect.arrayContaining(["401", "403", "500"]));
      } else if (route.auth.kind === "user") {
        expect(operation?.security).toEqual([{ userToken: [] }]);
        expect(operation?.["x-required-role"]).toBe(route.auth.role);
        expect(Object.keys(operation?.responses ?? {})).toEqual(expect.arrayContaining(["400", "401", "403", "500"]));
      } else if (route.auth.kind === "apiKeyOrUser") {
        expect(operation?.security).toEqual([{ apiKey: [] }, { userToken: [] }]);
        expect(operation?.["x-required-scope"]).toBe(route.auth.scope);
        expect(operation?.["x-required-role"]).toBe(route.auth.role);
        expect(Object.keys(operation?.responses ?? {})).toEqual(expect.arrayContaining(["400", "401", "403", "500"]));
        const headers = (operation?.parameters ?? []).map((parameter) => ("$ref" in parameter ? parameter.$ref : ""));
        expect(headers).toEqual(
          expect.arrayContaining([
            "#/components/parameters/TenantOrganizationId",
            "#/components/parameters/Environment",
          ]),
        );
      } else if (route.auth.kind === "signedIn") {
        expect(operation?.security).toEqual([{ userToken: [] }]);
        expect(Object.keys(operation?.responses ?? {})).toEqual(expect.arrayContaining(["401", "500"]));
      } else if (route.auth.kind === "feedbackToken") {
        expect(operation?.security).toEqual([{ feedbackToken: [] }]);
        expect(Object.keys(operation?.responses ?? {})).toEqual(expect.arrayContaining(["400", "401", "429", "500"]));
      } else {
        expect(operation?.security).toEqual([]);
      }
      const success = Object.keys(operation?.responses ?? {}).filter((status) => status.startsWith("2"));
      expect(success).toHaveLength(1);
    },
  );

  it("has no operation that is not in the route table", () => {
    const documented = Object.entries(document.paths).flatMap(([path, methods]) =>
      Object.keys(methods).map((method) => `${method.toUpperCase()} ${path}`),
    );
    expect(documented.sort()).toEqual(routes.map((route) => `${route.method} ${route.path}`).sort());
  });

  it.each(routes.map((route) => [route.id, route] as const))(
    "has examples of %s that pass its schemas",
    (id, route) => {
      const operation = operationOf(route);
      const schemas = documentedSchemas(id);
      const request = examplesOf(jsonContent(operation?.requestBody));
      if (schemas.body === undefined) expect(request).toEqual([]);
      else {
        expect(request).toHaveLength(1);
        for (const example of request) expectValid(schemas.body, example, `${id} request example`);
      }
      for (const [status, response] of Object.entries(operation?.responses ?? {})) {
        const examples = examplesOf(jsonContent(response));
        if (status.startsWith("2")) {
          if (schemas.response === undefined) expect(examples).toEqual([]);
          else {
            expect(examples).toHaveLength(1);
            for (const example of examples) expectValid(schemas.response, example, `${id} ${status} example`);
          }
        } else {
          expect(examples.length).toBeGreaterThan(0);
          for (const example of examples) expectValid(errorResponse, example, `${id} ${status} example`);
          if (status !== "500") expect(examples).toContainEqual(expect.objectContaining({ error: expect.any(String) }));
        }
      }
    },
  );
});

describe("docs/openapi.json", () => {
  it("is exactly the generated document", () => {
    const committed = readFileSync(OPENAPI_PATH, "utf8");

    expect(committed, "docs/openapi.json is out of date: run `npm run openapi` and commit the result").toBe(
      openApiText(),
    );
  });
});

describe("over HTTP", () => {
  let api: LocalApi;
  let sdk: TestKey;
  let owner: TestUser;
  let sessionId: string;
  let firstEventId: string | undefined;
  const agentName = `openapi-agent-${Date.now()}`;

  beforeAll(async () => {
    api = await startTestApi();
    sdk = await createTestKey({ scopes: ["sessions:write", "events:write", "scores:write", "read", "delete"] });
    owner = await createTestUser(api);
    sessionId = await createTestSession(api, sdk.key, { agentName, userId: "openapi-user", metadata: { plan: "pro" } });
    const events = [
      { eventType: "tool_call", toolName: "search_docs", toolInput: { q: "refund" }, toolOutput: { hits: 3 } },
      { eventType: "llm_decision", reasoning: "refund", alternativesConsidered: ["escalate"], confidence: 0.9 },
      { eventType: "error", toolName: "issue_refund", estimatedCost: 0.001 },
    ];
    for (const event of events) {
      const response = await call(api, "POST", "/api/sdk/events", { key: sdk.key, body: { sessionId, ...event } });
      if (response.status !== 201) throw new Error(`event not created: ${response.text}`);
      firstEventId ??= String(response.body.id);
    }
    const ended = await call(api, "PATCH", `/api/sdk/sessions/${sessionId}`, {
      key: sdk.key,
      body: { status: "failed", failureReason: "refund API down", durationMs: 1200, customMetrics: { retries: 2 } },
    });
    if (ended.status !== 200) throw new Error(`session not ended: ${ended.text}`);
  });
  afterAll(() => api.close());

  async function createdKeyId(): Promise<string> {
    const response = await call(api, "POST", "/api/keys", { key: owner.token, body: { name: "openapi test" } });
    if (response.status !== 201) throw new Error(`key not created: ${response.text}`);
    return String(response.body.id);
  }

  /** A real request per route: a route added to the table without one here does not compile. */
  const scenarios: Record<RouteId, () => Promise<ApiResponse>> = {
    CreateSession: () =>
      call(api, "POST", "/api/sdk/sessions", {
        key: sdk.key,
        body: { name: "Refund request", agentName, userId: "customer-42", metadata: { plan: "pro" } },
      }),
    UpdateSession: async () => {
      const id = await createTestSession(api, sdk.key, { agentName });
      return call(api, "PATCH", `/api/sdk/sessions/${id}`, {
        key: sdk.key,
        body: { status: "completed", estimatedCost: 0.04, durationMs: 5400, totalTokens: 1500 },
      });
    },
    CreateEvent: () =>
      call(api, "POST", "/api/sdk/events", {
        key: sdk.key,
        body: { sessionId, eventType: "tool_call", toolName: "search_docs", toolInput: { q: "late flush" } },
      }),
    CreateEventBatch: () =>
      call(api, "POST", "/api/sdk/events/batch", {
        key: sdk.key,
        body: {
          events: [
            { sessionId, eventType: "state_change" },
            { sessionId, eventType: "thought" },
          ],
        },
      }),
    CreateScore: () =>
      call(api, "POST", "/api/sdk/scores", {
        key: sdk.key,
        body: { sessionId, eventId: firstEventId, name: "helpfulness", value: 0.8, comment: "ok", source: "evaluator" },
      }),
    CreateScoreBatch: () =>
      call(api, "POST", "/api/sdk/scores/batch", {
        key: sdk.key,
        body: {
          scores: [
            { sessionId, name: "resolved", value: true },
            { sessionId: "ses_01KAZ3X8Q9M4T7V2N6P5R1S0WF", name: "tone", value: "friendly" },
          ],
        },
      }),
    CreateFeedbackToken: () =>
      call(api, "POST", "/api/sdk/feedback-tokens", {
        key: sdk.key,
        body: { sessionId, eventId: firstEventId, expiresInSeconds: 600, names: ["thumbs"] },
      }),
    PostFeedback: async () => {
      const minted = await call(api, "POST", "/api/sdk/feedback-tokens", { key: sdk.key, body: { sessionId } });
      return call(api, "POST", "/api/public/feedback", {
        key: String(minted.body.token),
        body: { name: "thumbs", value: false, comment: "wrong order refunded" },
      });
    },
    FeedbackPreflight: () =>
      call(api, "OPTIONS", "/api/public/feedback", {
        headers: {
          origin: "https://shop.example",
          "access-control-request-method": "POST",
          "access-control-request-headers": "authorization, content-type",
        },
      }),
    ListScores: async () => {
      await call(api, "POST", "/api/sdk/scores", { key: sdk.key, body: { sessionId, name: "listed", value: 1 } });
      return call(api, "GET", `/api/sdk/sessions/${sessionId}/scores?limit=1`, { key: sdk.key });
    },
    DeleteScore: async () => {
      const created = await call(api, "POST", "/api/sdk/scores", {
        key: sdk.key,
        body: { sessionId, name: "to delete", value: false },
      });
      return call(api, "DELETE", `/api/sdk/sessions/${sessionId}/scores/${String(created.body.id)}`, { key: sdk.key });
    },
    ExportTraces: () =>
      call(api, "POST", "/api/otel/v1/traces", { key: sdk.key, body: otlpTrace(`openapi-${agentName}`) }),
    ExportLangfuseTraces: () =>
      call(api, "POST", "/api/public/otel/v1/traces", {
        key: sdk.key,
        body: otlpTrace(`openapi-langfuse-${agentName}`),
      }),
    ExportLogs: () => call(api, "POST", "/api/otel/v1/logs", { key: sdk.key, body: requestExamples.ExportLogs }),
    GetSession: () => call(api, "GET", `/api/sdk/sessions/${sessionId}`, { key: sdk.key }),
    ListSessions: () => call(api, "GET", `/api/sdk/sessions?agentName=${agentName}&limit=5`, { key: sdk.key }),
    ListConversations: async () => {
      await createTestSession(api, sdk.key, { agentName, conversationId: `${agentName}-chat` });
      return call(api, "GET", `/api/sdk/conversations?agentName=${agentName}&limit=5`, { key: sdk.key });
    },
    GetConversation: async () => {
      await createTestSession(api, sdk.key, { agentName, conversationId: `${agentName}-turns` });
      await call(api, "POST", "/api/sdk/scores", {
        key: sdk.key,
        body: { conversationId: `${agentName}-turns`, name: "resolved", value: true },
      });
      return call(api, "GET", `/api/sdk/conversations/${agentName}-turns?limit=5`, { key: sdk.key });
    },
    ListConversationScores: async () => {
      const conversationId = `${agentName}-scored`;
      await createTestSession(api, sdk.key, { agentName, conversationId });
      await call(api, "POST", "/api/sdk/scores", { key: sdk.key, body: { conversationId, name: "listed", value: 1 } });
      return call(api, "GET", `/api/sdk/conversations/${conversationId}/scores?limit=1`, { key: sdk.key });
    },
    DeleteConversationScore: async () => {
      const conversationId = `${agentName}-unscored`;
      await createTestSession(api, sdk.key, { agentName, conversationId });
      const created = await call(api, "POST", "/api/sdk/scores", {
        key: sdk.key,
        body: { conversationId, name: "to delete", value: "meh" },
      });
      return call(api, "DELETE", `/api/sdk/conversations/${conversationId}/scores/${String(created.body.id)}`, {
        key: sdk.key,
      });
    },
    ListEvents: () => call(api, "GET", `/api/sdk/sessions/${sessionId}/events?limit=2`, { key: sdk.key }),
    GetEventField: () =>
      call(api, "GET", `/api/sdk/sessions/${sessionId}/events/${firstEventId}/toolOutput`, { key: sdk.key }),
    DeleteSession: async () => {
      const id = await createTestSession(api, sdk.key, { agentName });
      return call(api, "DELETE", `/api/sdk/sessions/${id}`, { key: sdk.key });
    },
    // With a period, the answer carries every field of the schema.
    ListAgents: () =>
      call(api, "GET", `/api/sdk/agents?from=${new Date(Date.now() - 6 * 86_400_000).toISOString().slice(0, 10)}`, {
        key: sdk.key,
      }),
    AgentStats: () => call(api, "GET", `/api/sdk/agents/${agentName}/stats`, { key: sdk.key }),
    ListModels: () => call(api, "GET", "/api/sdk/models", { key: sdk.key }),
    AgentModels: () => call(api, "GET", `/api/sdk/agents/${agentName}/models`, { key: sdk.key }),
    UserStats: () => call(api, "GET", "/api/sdk/users/openapi-user/stats", { key: sdk.key }),
    QueryMetrics: () =>
      call(api, "POST", "/api/sdk/metrics", {
        key: sdk.key,
        body: { measures: ["sessions", "failed", "durationP95", "toolCalls"], groupBy: ["agent"] },
      }),
    DeleteUserData: () => call(api, "DELETE", "/api/sdk/users/openapi-erased-user", { key: sdk.key }),
    GetDeletionJob: async () => {
      const accepted = await call(api, "DELETE", "/api/sdk/users/openapi-erased-user-2", { key: sdk.key });
      return call(api, "GET", `/api/sdk/deletions/${String(accepted.body.jobId)}`, { key: sdk.key });
    },
    OpenApiDocument: () => call(api, "GET", "/api/openapi.json"),
    CreateApiKey: () =>
      call(api, "POST", "/api/keys", {
        key: owner.token,
        body: { name: "ci pipeline", environment: "test", scopes: ["events:write"] },
      }),
    ListApiKeys: async () => {
      await createdKeyId();
      return call(api, "GET", "/api/keys", { key: owner.token });
    },
    RotateApiKey: async () =>
      call(api, "POST", `/api/keys/${await createdKeyId()}/rotate`, { key: owner.token, body: { overlapSeconds: 60 } }),
    RevokeApiKey: async () => call(api, "DELETE", `/api/keys/${await createdKeyId()}`, { key: owner.token }),
    ListApiKeyAudit: async () => {
      const id = await createdKeyId();
      await call(api, "POST", `/api/keys/${id}/rotate`, { key: owner.token, body: {} });
      return call(api, "GET", `/api/keys/${id}/audit`, { key: owner.token });
    },
    ListDeletionAudit: () => call(api, "GET", "/api/audit/deletions", { key: owner.token }),
    ListExports: () => call(api, "GET", "/api/exports", { key: owner.token, settle: false }),
    GetMe: () => call(api, "GET", "/api/me", { key: owner.token }),
    ListMembers: () => call(api, "GET", "/api/members", { key: owner.token }),
    ListInvitations: async () => {
      await invited();
      return call(api, "GET", "/api/invitations", { key: owner.token });
    },
    CreateInvitation: () =>
      call(api, "POST", "/api/invitations", { key: owner.token, body: { email: uniqueEmail(), role: "admin" } }),
    RevokeInvitation: async () =>
      call(api, "DELETE", `/api/invitations/${(await invited()).userId}`, { key: owner.token }),
    AcceptInvitation: async () =>
      call(api, "POST", `/api/me/invitations/${owner.orgId}/accept`, { key: (await invited()).token }),
    DeclineInvitation: async () =>
      call(api, "POST", `/api/me/invitations/${owner.orgId}/decline`, { key: (await invited()).token }),
    UpdateMember: async () =>
      call(api, "PATCH", `/api/members/${await addedMemberId()}`, { key: owner.token, body: { role: "owner" } }),
    RemoveMember: async () => call(api, "DELETE", `/api/members/${await addedMemberId()}`, { key: owner.token }),
    ListOrganisationPrices: async () => {
      await setPrice("openapi-listed");
      return call(api, "GET", "/api/prices", { key: owner.token });
    },
    GetPriceTable: () => call(api, "GET", "/api/prices/table", { key: owner.token }),
    ListPriceAudit: async () => {
      await setPrice("openapi-audited");
      return call(api, "GET", "/api/prices/audit", { key: owner.token });
    },
    PutOrganisationPrice: () => setPrice("ft:gpt-4o-mini:acme:support:9x8y7z"),
    ListScoreConfigs: async () => {
      await call(api, "PUT", "/api/sdk/score-configs/openapi-listed", {
        key: owner.token,
        body: { dataType: "numeric", min: 0, max: 1 },
      });
      return call(api, "GET", "/api/sdk/score-configs", {
        key: owner.token,
        headers: { "x-organization-id": owner.orgId, "x-environment": "live" },
      });
    },
    PutScoreConfig: () =>
      call(api, "PUT", "/api/sdk/score-configs/resolution", {
        key: owner.token,
        body: { dataType: "categorical", labels: ["resolved", "partially", "wrong"] },
      }),
    DeleteScoreConfig: async () => {
      await call(api, "PUT", "/api/sdk/score-configs/openapi-deleted", {
        key: owner.token,
        body: { dataType: "boolean" },
      });
      return call(api, "DELETE", "/api/sdk/score-configs/openapi-deleted", { key: owner.token });
    },
    DeleteOrganisationPrice: async () => {
      await setPrice("openapi-deleted");
      return call(api, "DELETE", "/api/prices/openapi-deleted?effectiveFrom=2026-12-01", { key: owner.token });
    },
    ListMonitors: async () => {
      await createMonitor();
      return call(api, "GET", "/api/alerts/monitors", { key: owner.token, settle: false });
    },
    CreateMonitor: () => createMonitor(),
    PreviewMonitor: () =>
      call(api, "POST", "/api/alerts/monitors/preview", {
        key: owner.token,
        body: { ...monitorBody, windowMinutes: 90 },
      }),
    GetMonitor: async () =>
      call(api, "GET", `/api/alerts/monitors/${(await createMonitor()).body.id}`, { key: owner.token, settle: false }),
    ReplaceMonitor: async () =>
      call(api, "PUT", `/api/alerts/monitors/${(await createMonitor()).body.id}`, {
        key: owner.token,
        body: { ...monitorBody, alertThreshold: 15 },
      }),
    DeleteMonitor: async () =>
      call(api, "DELETE", `/api/alerts/monitors/${(await createMonitor()).body.id}`, { key: owner.token }),
    ListMonitorHistory: async () =>
      call(api, "GET", `/api/alerts/monitors/${(await createMonitor()).body.id}/history`, {
        key: owner.token,
        settle: false,
      }),
    TestMonitor: async () =>
      call(api, "POST", `/api/alerts/monitors/${(await createMonitor()).body.id}/test`, { key: owner.token }),
    ListAlertAudit: async () => {
      await createMonitor();
      return call(api, "GET", "/api/alerts/audit", { key: owner.token, settle: false });
    },
    ListAlertDestinations: async () => {
      await createDestination("eventbridge");
      return call(api, "GET", "/api/alerts/destinations", { key: owner.token });
    },
    // A literal public address: nothing to resolve, and nothing is sent at creation.
    CreateAlertDestination: () => createDestination("webhook", "https://1.1.1.1/ats-openapi"),
    GetAlertDestination: async () =>
      call(api, "GET", `/api/alerts/destinations/${await createdDestinationId("eventbridge")}`, { key: owner.token }),
    UpdateAlertDestination: async () =>
      call(api, "PUT", `/api/alerts/destinations/${await createdDestinationId("eventbridge")}`, {
        key: owner.token,
        body: { name: "renamed", enabled: false },
      }),
    DeleteAlertDestination: async () =>
      call(api, "DELETE", `/api/alerts/destinations/${await createdDestinationId("eventbridge")}`, {
        key: owner.token,
      }),
    RotateAlertDestinationSecret: async () => {
      const id = await createdDestinationId("webhook", "https://1.1.1.1/ats-openapi");
      return call(api, "POST", `/api/alerts/destinations/${id}/rotate-secret`, { key: owner.token });
    },
    TestAlertDestination: async () =>
      call(api, "POST", `/api/alerts/destinations/${await createdDestinationId("eventbridge")}/test`, {
        key: owner.token,
      }),
  };

  const monitorBody = {
    name: "openapi monitor",
    enabled: false,
    metric: "failure_rate",
    filters: { agent: "openapi-agent" },
    windowMinutes: 15,
    comparison: "above",
    alertThreshold: 10,
    minSessions: 5,
    noData: "keep",
    renotifyMinutes: 0,
    notifyOnRecovery: true,
    destinationIds: [],
  };

  function createMonitor(): Promise<ApiResponse> {
    return call(api, "POST", "/api/alerts/monitors", { key: owner.token, body: monitorBody });
  }

  function createDestination(kind: "webhook" | "eventbridge", url?: string): Promise<ApiResponse> {
    return call(api, "POST", "/api/alerts/destinations", {
      key: owner.token,
      body: { name: `openapi ${kind}`, kind, ...(url !== undefined && { url }) },
    });
  }

  async function createdDestinationId(kind: "webhook" | "eventbridge", url?: string): Promise<string> {
    const response = await createDestination(kind, url);
    if (response.status !== 201) throw new Error(`destination not created: ${response.text}`);
    return String(response.body.id);
  }

  function setPrice(model: string): Promise<ApiResponse> {
    return call(api, "PUT", `/api/prices/${encodeURIComponent(model)}`, {
      key: owner.token,
      body: {
        effectiveFrom: "2026-12-01",
        input: 0.3,
        output: 1.2,
        cacheRead: 0.075,
        tiers: [{ above: 1000, input: 1 }],
      },
    });
  }

  /** An OTLP JSON export of one trace with fresh ids: a root agent span and a chat span under it. */
  function otlpTrace(serviceName: string): Record<string, unknown> {
    const hex = (bytes: number) => randomBytes(bytes).toString("hex");
    const traceId = hex(16);
    const rootId = hex(8);
    const nanos = (ms: number) => `${BigInt(ms) * 1_000_000n}`;
    const start = Date.now() - 2_000;
    const text = (key: string, value: string) => ({ key, value: { stringValue: value } });
    return {
      resourceSpans: [
        {
          resource: { attributes: [text("service.name", serviceName)] },
          scopeSpans: [
            {
              spans: [
                {
                  traceId,
                  spanId: rootId,
                  name: "invoke_agent openapi",
                  startTimeUnixNano: nanos(start),
                  endTimeUnixNano: nanos(start + 1_000),
                  attributes: [text("gen_ai.operation.name", "invoke_agent")],
                  status: { code: 1 },
                },
                {
                  traceId,
                  spanId: hex(8),
                  parentSpanId: rootId,
                  name: "chat gpt-4o",
                  startTimeUnixNano: nanos(start + 100),
                  endTimeUnixNano: nanos(start + 600),
                  attributes: [
                    text("gen_ai.operation.name", "chat"),
                    { key: "gen_ai.usage.input_tokens", value: { intValue: "120" } },
                  ],
                },
              ],
            },
          ],
        },
      ],
    };
  }

  function uniqueEmail(): string {
    return `openapi-${Math.random().toString(36).slice(2, 10)}@example.com`;
  }

  /** A person the owner invited (a new local user), with their access token. */
  async function invited(): Promise<{ userId: string; token: string }> {
    const response = await call(api, "POST", "/api/invitations", {
      key: owner.token,
      body: { email: uniqueEmail(), role: "member" },
    });
    if (response.status !== 201) throw new Error(`not invited: ${response.text}`);
    const user = identity.findUser(String(response.body.email));
    if (user === undefined) throw new Error("the invited person is not in the local directory");
    return { userId: user.userId, token: identity.issueAccessToken(user, api.url) };
  }

  /** A member the owner invited, who accepted. */
  async function addedMemberId(): Promise<string> {
    const person = await invited();
    const accepted = await call(api, "POST", `/api/me/invitations/${owner.orgId}/accept`, { key: person.token });
    if (accepted.status !== 201) throw new Error(`invitation not accepted: ${accepted.text}`);
    return person.userId;
  }

  it("serves the generated document at GET /api/openapi.json without a credential", async () => {
    const response = await call(api, "GET", "/api/openapi.json");

    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toMatch(/^application\/json/);
    expect(response.body).toEqual(document);
  });

  it.each(routes.map((route) => route.id))(
    "answers %s with a body its documented response schema accepts",
    async (id) => {
      // Act
      const response = await scenarios[id]();

      // Assess
      const operation = operationOf(routeOf(id));
      const success = Object.keys(operation?.responses ?? {}).find((status) => status.startsWith("2"));
      expect(String(response.status), response.text).toBe(success);
      const schema = documentedSchemas(id).response;
      const rawContent = (operation?.responses?.[success ?? ""] as { content?: Record<string, unknown> } | undefined)
        ?.content;
      if (schema !== undefined) expectValid(schema, response.body, `${id} response`);
      else if (rawContent !== undefined) {
        // The content itself (GetEventField): one of the documented media types, not empty.
        expect(Object.keys(rawContent)).toContain(response.headers.get("content-type")?.split(";")[0]);
        expect(response.text).not.toBe("");
      } else expect(response.text).toBe("");
    },
  );

  it("lists events in full and in summary as documented", async () => {
    const schema = documentedSchemas("ListEvents").response;
    if (schema === undefined) throw new Error("ListEvents has no documented response");
    for (const fields of ["full", "summary"]) {
      const response = await call(api, "GET", `/api/sdk/sessions/${sessionId}/events?fields=${fields}`, {
        key: sdk.key,
      });
      expect(response.status).toBe(200);
      expect((response.body.items as unknown[]).length).toBeGreaterThanOrEqual(3);
      expectValid(schema, response.body, `ListEvents fields=${fields}`);
    }
  });

  it.each(
    routes
      .map((route) => [route.id, route] as const)
      .filter(([id]) => documentedSchemas(id).invalidInput !== undefined),
  )("answers the documented invalid input of %s with exactly the documented 400", async (id, route) => {
    // Prepare
    const { invalidInput, body } = documentedSchemas(id);
    const credential =
      route.auth.kind === "user" || route.auth.kind === "signedIn"
        ? owner.token
        : route.auth.kind === "feedbackToken"
          ? String(
              (await call(api, "POST", "/api/sdk/feedback-tokens", { key: sdk.key, body: { sessionId } })).body.token,
            )
          : sdk.key;
    const path = route.path.replace(/\{(\w+)\}/g, (_match, name: string) =>
      name === "id" && (route.auth.kind === "apiKey" || route.auth.kind === "apiKeyOrUser")
        ? sessionId
        : `openapi-${name}`,
    );
    const query = new URLSearchParams(
      Object.entries(body === undefined ? (invalidInput ?? {}) : {}).map(([name, value]): [string, string] => [
        name,
        String(value),
      ]),
    );

    // Act
    const response = await call(api, route.method, query.size === 0 ? path : `${path}?${query}`, {
      key: credential,
      ...(body === undefined ? {} : { body: invalidInput }),
    });

    // Assess
    expect(response.status, response.text).toBe(400);
    const documented = examplesOf(jsonContent(operationOf(route)?.responses["400"]));
    expect(documented).toContainEqual(response.body);
  });

  it.each([
    ["CreateSession", "401", () => call(api, "POST", "/api/sdk/sessions", { body: { name: "n" } })],
    ["GetSession", "404", () => call(api, "GET", "/api/sdk/sessions/ses_unknown", { key: sdk.key })],
    [
      "UpdateSession",
      "409",
      () => call(api, "PATCH", `/api/sdk/sessions/${sessionId}`, { key: sdk.key, body: { status: "completed" } }),
    ],
    [
      "CreateEvent",
      "415",
      () =>
        call(api, "POST", "/api/sdk/events", {
          key: sdk.key,
          body: "x",
          headers: { "content-type": "text/plain" },
        }),
    ],
    ["GetDeletionJob", "404", () => call(api, "GET", "/api/sdk/deletions/del_unknown", { key: sdk.key })],
    [
      "ExportTraces",
      "400",
      () => call(api, "POST", "/api/otel/v1/traces", { key: sdk.key, body: { resourceSpans: "not a list" } }),
    ],
    [
      "ExportTraces",
      "415",
      () =>
        call(api, "POST", "/api/otel/v1/traces", {
          key: sdk.key,
          body: "x",
          headers: { "content-type": "text/plain" },
        }),
    ],
    ["ListApiKeys", "401", () => call(api, "GET", "/api/keys", { key: sdk.key })],
    ["RevokeApiKey", "404", () => call(api, "DELETE", "/api/keys/key_unknown", { key: owner.token })],
    ["DeleteOrganisationPrice", "404", () => call(api, "DELETE", "/api/prices/no-such-model", { key: owner.token })],
    [
      "GetAlertDestination",
      "404",
      () => call(api, "GET", "/api/alerts/destinations/dst_01KAZ4B6C8D0E2F4G6H8J0K2M4", { key: owner.token }),
    ],
    [
      "CreateInvitation",
      "409",
      () => call(api, "POST", "/api/invitations", { key: owner.token, body: { email: owner.email, role: "admin" } }),
    ],
    ["AcceptInvitation", "404", () => call(api, "POST", "/api/me/invitations/nowhere/accept", { key: owner.token })],
    ["DeclineInvitation", "404", () => call(api, "POST", "/api/me/invitations/nowhere/decline", { key: owner.token })],
    ["RevokeInvitation", "404", () => call(api, "DELETE", `/api/invitations/${owner.userId}`, { key: owner.token })],
  ] as const)("answers a %s error (%s) as documented", async (id, status, request) => {
    const response = await request();

    expect(String(response.status), response.text).toBe(status);
    expect(Object.keys(operationOf(routeOf(id))?.responses ?? {})).toContain(status);
    expectValid(errorResponse, response.body, `${id} ${status}`);
  });

  it("answers an OTLP envelope that is not an ExportTraceServiceRequest with exactly the documented 400", async () => {
    const response = await call(api, "POST", "/api/otel/v1/traces", {
      key: sdk.key,
      body: { resourceSpans: "not a list" },
    });

    expect(response.status, response.text).toBe(400);
    expect(examplesOf(jsonContent(operationOf(routeOf("ExportTraces"))?.responses["400"]))).toContainEqual(
      response.body,
    );
  });

  it("answers an OTLP protobuf export in the documented binary media type", async () => {
    const response = await call(api, "POST", "/api/otel/v1/traces", {
      key: sdk.key,
      body: new Uint8Array(0),
      headers: { "content-type": "application/x-protobuf" },
    });

    expect(response.status, response.text).toBe(200);
    const content = operationOf(routeOf("ExportTraces"))?.responses["200"]?.content as Record<string, unknown>;
    expect(Object.keys(content)).toContain(response.headers.get("content-type"));
  });

  it("answers a key lacking the route's scope with a documented 403", async () => {
    const readOnly = await createTestKey({ scopes: ["read"] });

    const response = await call(api, "DELETE", `/api/sdk/sessions/${sessionId}`, { key: readOnly.key });

    expect(response.status).toBe(403);
    expect(examplesOf(jsonContent(operationOf(routeOf("DeleteSession"))?.responses["403"]))).toContainEqual(
      response.body,
    );
  });
});
