/**
 * The web ACL of edge protection (lib/constructs/edge-rate-rules.ts), built
 * from the route table: which rule counts which request, as AWS WAF would
 * evaluate the scope-down statements (a small evaluator of the statements the
 * builder uses: string matches on the method and the transformed path, AND, OR).
 */
import { posix } from "node:path";
import { describe, expect, it } from "vitest";
import type { StatementDefinition, WebAclDefinition } from "../../functions/deploy/web-acl-definition.js";
import { ROUTE_THROTTLES, type RouteDefinition, routes } from "../../functions/routes.js";
import {
  EDGE_RULE_NAMES,
  EVALUATION_WINDOW_SECONDS,
  edgeLimitOf,
  edgeWebAclDefinition,
  estimatedCapacity,
  RATE_LIMITED_RESPONSE,
  requestMatchesFor,
  requestMatchOf,
  scopeDownStatement,
} from "../../lib/constructs/edge-rate-rules.js";
import { DEFAULT_EDGE_LIMITS, type EdgeLimits } from "../../lib/constructs/edge-settings.js";

const LIMITS: EdgeLimits = { all: 5000, read: 400, management: 30 };

/** WAF's URL_DECODE and NORMALIZE_PATH, as far as paths go. */
function transformPath(path: string, types: readonly string[]): string {
  let value = path;
  for (const type of types) {
    if (type === "URL_DECODE")
      value = value.replace(/%([0-9a-fA-F]{2})/g, (_, hex: string) => String.fromCharCode(Number.parseInt(hex, 16)));
    if (type === "NORMALIZE_PATH") value = posix.normalize(value);
  }
  return value;
}

/** Whether a statement matches a request, by WAF's semantics for the statements the builder uses. */
function matches(statement: StatementDefinition, request: { method: string; path: string }): boolean {
  if ("AndStatement" in statement) return statement.AndStatement.Statements.every((inner) => matches(inner, request));
  if ("OrStatement" in statement) return statement.OrStatement.Statements.some((inner) => matches(inner, request));
  const match = statement.ByteMatchStatement;
  const field =
    "Method" in match.FieldToMatch
      ? request.method
      : transformPath(
          request.path,
          match.TextTransformations.map((step) => step.Type),
        );
  return match.PositionalConstraint === "EXACTLY" ? field === match.SearchString : field.startsWith(match.SearchString);
}

function ruleNamed(definition: WebAclDefinition, name: string) {
  const rule = definition.Rules.find((candidate) => candidate.Name === name);
  if (rule === undefined) throw new Error(`no rule ${name}`);
  return rule;
}

/** The rules whose scope a request falls in (the rule on all requests always counts it). */
function countingRules(definition: WebAclDefinition, request: { method: string; path: string }): string[] {
  return definition.Rules.filter((rule) => {
    const scope = rule.Statement.RateBasedStatement.ScopeDownStatement;
    return scope === undefined || matches(scope, request);
  }).map((rule) => rule.Name);
}

/** A concrete request of a route: each `{parameter}` filled in. */
function sampleRequest(route: Pick<RouteDefinition, "method" | "path">) {
  return { method: route.method, path: route.path.replace(/\{[^}]+\}/g, "abc123") };
}

describe("which rule counts a route", () => {
  it("knows every route's throttle (a bucket ROUTE_THROTTLES does not name would escape the per-address rules)", () => {
    const buckets: readonly unknown[] = Object.values(ROUTE_THROTTLES);
    for (const route of routes)
      expect({ route: route.id, known: buckets.includes(route.throttle) }).toEqual({ route: route.id, known: true });
  });

  it("puts key and member management, /api/me, erasure, job status and the OpenAPI document under the management limit, the reads under the read limit, and ingestion under neither", () => {
    const idsWith = (kind: "management" | "read" | undefined) =>
      routes.filter((route) => edgeLimitOf(route.throttle) === kind).map((route) => route.id);

    expect(idsWith("management")).toEqual(
      expect.arrayContaining([
        "CreateApiKey",
        "ListApiKeys",
        "RotateApiKey",
        "RevokeApiKey",
        "ListApiKeyAudit",
        "GetMe",
        "ListMembers",
        "CreateInvitation",
        "AcceptInvitation",
        "UpdateMember",
        "RemoveMember",
        "ListOrganisationPrices",
        "PutOrganisationPrice",
        "DeleteOrganisationPrice",
        "ListPriceAudit",
        "GetPriceTable",
        "DeleteSession",
        "DeleteUserData",
        "GetDeletionJob",
        "OpenApiDocument",
      ]),
    );
    expect(idsWith("read")).toEqual(
      expect.arrayContaining([
        "GetSession",
        "ListSessions",
        "ListEvents",
        "GetEventField",
        "ListAgents",
        "AgentStats",
        "ListModels",
        "AgentModels",
        "UserStats",
        "QueryMetrics",
        "PostFeedback",
        "FeedbackPreflight",
      ]),
    );
    expect(idsWith(undefined)).toEqual(
      expect.arrayContaining([
        "CreateSession",
        "UpdateSession",
        "CreateEvent",
        "CreateEventBatch",
        "ExportTraces",
        "CreateFeedbackToken",
      ]),
    );
  });

  it("matches a route by its method and the start of its path: up to the first parameter, or all of it", () => {
    expect(requestMatchOf({ method: "GET", path: "/api/me" })).toEqual({
      method: "GET",
      path: "/api/me",
      positional: "STARTS_WITH",
    });
    expect(requestMatchOf({ method: "POST", path: "/api/keys/{id}/rotate" })).toEqual({
      method: "POST",
      path: "/api/keys/",
      positional: "STARTS_WITH",
    });
  });
});

describe("the web ACL's rules, evaluated", () => {
  const definition = edgeWebAclDefinition(routes, LIMITS);

  for (const route of routes) {
    const kind = edgeLimitOf(route.throttle);
    const expected = [
      ...(kind === "management" ? [EDGE_RULE_NAMES.management] : []),
      ...(kind === "read" ? [EDGE_RULE_NAMES.read] : []),
      EDGE_RULE_NAMES.all,
    ];
    it(`counts ${route.method} ${route.path} under ${expected.join(" and ")}`, () => {
      expect(countingRules(definition, sampleRequest(route))).toEqual(expected);
    });
  }

  // Issue 30, finding 6: the management rule matched `/api/keys` and `/api/me` exactly, so `/api/keys/` escaped it.
  for (const route of routes) {
    const kind = edgeLimitOf(route.throttle);
    if (kind === undefined) continue;
    const rule = kind === "management" ? EDGE_RULE_NAMES.management : EDGE_RULE_NAMES.read;
    const sample = sampleRequest(route);
    it(`counts ${route.method} ${route.path} with a trailing slash (or two) under ${rule} too`, () => {
      expect(countingRules(definition, { ...sample, path: `${sample.path}/` })).toContain(rule);
      expect(countingRules(definition, { ...sample, path: `${sample.path}//` })).toContain(rule);
    });
  }

  it("needs no HEAD match: no route is HEAD or ANY (and the API has no $default route: service-stack.test.ts), so API Gateway answers HEAD itself", () => {
    const methods = new Set(routes.map((route) => route.method));
    // OPTIONS: the feedback route's CORS preflight (an explicit route; the API has no API-wide CORS setting).
    expect([...methods].sort()).toEqual(["DELETE", "GET", "OPTIONS", "PATCH", "POST", "PUT"]);
  });

  it.each([
    ["GET", "/api/keys/"],
    ["GET", "/api/me/"],
    ["POST", "/api/invitations/"],
    ["GET", "/api/openapi.json/"],
    ["GET", "/api/audit/deletions/"],
  ])("counts %s %s, a management path with a trailing slash, under the management limit", (method, path) => {
    expect(countingRules(definition, { method, path })).toContain(EDGE_RULE_NAMES.management);
  });

  it.each([
    ["GET", "/api/%6Beys"],
    ["GET", "/api//keys"],
    ["GET", "/api/./me"],
    ["DELETE", "/api/sdk/x/../sessions/abc"],
    ["POST", "/api/members/%2E%2E/invitations"],
  ])("counts %s %s, a management route written otherwise, under the management limit", (method, path) => {
    expect(countingRules(definition, { method, path })).toContain(EDGE_RULE_NAMES.management);
  });

  it.each([
    ["GET", "/api/sdk/sessions/abc"],
    ["PATCH", "/api/sdk/sessions/abc"],
    ["POST", "/api/sdk/events/batch"],
    ["POST", "/api/otel/v1/traces"],
    ["GET", "/index.html"],
  ])("does not count %s %s under the management limit", (method, path) => {
    expect(countingRules(definition, { method, path })).not.toContain(EDGE_RULE_NAMES.management);
  });

  it("counts ingestion and the console's files under the limit on all requests only", () => {
    for (const request of [
      { method: "POST", path: "/api/sdk/events" },
      { method: "POST", path: "/api/sdk/sessions" },
      { method: "GET", path: "/assets/index-abc.js" },
    ]) {
      expect(countingRules(definition, request)).toEqual([EDGE_RULE_NAMES.all]);
    }
  });
});

describe("the web ACL", () => {
  const definition = edgeWebAclDefinition(routes, LIMITS);

  it("allows by default and holds three rate-based rules per client address over one minute, at the configured limits, in priority order", () => {
    expect(definition.DefaultAction).toEqual({ Allow: {} });
    expect(
      definition.Rules.map((rule) => ({
        name: rule.Name,
        priority: rule.Priority,
        limit: rule.Statement.RateBasedStatement.Limit,
        window: rule.Statement.RateBasedStatement.EvaluationWindowSec,
        key: rule.Statement.RateBasedStatement.AggregateKeyType,
      })),
    ).toEqual([
      { name: "ManagementPerIp", priority: 0, limit: 30, window: 60, key: "IP" },
      { name: "ReadsPerIp", priority: 1, limit: 400, window: 60, key: "IP" },
      { name: "AllRequestsPerIp", priority: 2, limit: 5000, window: 60, key: "IP" },
    ]);
    expect(ruleNamed(definition, EDGE_RULE_NAMES.all).Statement.RateBasedStatement).not.toHaveProperty(
      "ScopeDownStatement",
    );
  });

  it("answers an address over its limit 429 with the API's JSON error body and Retry-After of one window", () => {
    for (const rule of definition.Rules) {
      expect(rule.Action.Block.CustomResponse).toEqual({
        ResponseCode: 429,
        CustomResponseBodyKey: RATE_LIMITED_RESPONSE.bodyKey,
        ResponseHeaders: [{ Name: "Retry-After", Value: String(EVALUATION_WINDOW_SECONDS) }],
      });
    }
    const body = definition.CustomResponseBodies[RATE_LIMITED_RESPONSE.bodyKey];
    expect(body?.ContentType).toBe("APPLICATION_JSON");
    expect(JSON.parse(body?.Content ?? "")).toEqual({
      error: "Too Many Requests",
      message: expect.stringMatching(/Retry-After/),
    });
  });

  it("publishes metrics and samples of every rule", () => {
    for (const rule of definition.Rules) {
      expect(rule.VisibilityConfig).toEqual({
        SampledRequestsEnabled: true,
        CloudWatchMetricsEnabled: true,
        MetricName: rule.Name,
      });
    }
  });

  it("stays well within the 1,500 capacity units a web ACL's price includes", () => {
    const capacity = estimatedCapacity(edgeWebAclDefinition(routes, DEFAULT_EDGE_LIMITS));
    expect(capacity).toBeGreaterThan(100);
    expect(capacity).toBeLessThanOrEqual(750);
  });

  it("matches a family whose every route the rule counts by its path alone, and a family it counts only in part route by route", () => {
    const family = [
      { method: "GET", path: "/api/things", throttle: ROUTE_THROTTLES.keyManagement },
      { method: "PUT", path: "/api/things/{id}", throttle: ROUTE_THROTTLES.keyManagement },
      { method: "POST", path: "/api/things/{id}/test", throttle: ROUTE_THROTTLES.keyManagement },
    ] as const;
    const mixed = [
      { method: "GET", path: "/api/stuff/{id}", throttle: ROUTE_THROTTLES.read },
      { method: "DELETE", path: "/api/stuff/{id}", throttle: ROUTE_THROTTLES.keyManagement },
    ] as const;

    expect(requestMatchesFor([...family, ...mixed], "management")).toEqual([
      { path: "/api/things", positional: "STARTS_WITH" },
      { method: "DELETE", path: "/api/stuff/", positional: "STARTS_WITH" },
    ]);
    expect(requestMatchesFor([...family, ...mixed], "read")).toEqual([
      { method: "GET", path: "/api/stuff/", positional: "STARTS_WITH" },
    ]);
  });

  it("refuses a scoped rule with nothing to match, and uses no OR for a single request", () => {
    expect(() => scopeDownStatement([])).toThrow(/at least one request/);
    expect(scopeDownStatement([{ method: "GET", path: "/api/me", positional: "STARTS_WITH" }])).toHaveProperty(
      "AndStatement",
    );
  });
});
