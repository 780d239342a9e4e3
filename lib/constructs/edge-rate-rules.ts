/**
 * The web ACL of edge protection, derived at synthesis from the route table
 * and the per-address limits: three AWS WAF rate-based rules, each counting
 * requests per client address over one minute and answering 429 (the API's
 * JSON error, `Retry-After: 60`) to an address over its limit.
 *
 * 1. `ManagementPerIp`: the routes whose gateway bucket is small — key and
 *    member management, `GET /api/me`, session deletion, user erasure and its
 *    job status, the OpenAPI document — at the management limit;
 * 2. `ReadsPerIp`: the read routes (sessions, events, agents, stats), and end users' feedback from browsers
 *    (`/api/public/feedback`, POST and its OPTIONS preflight: public-facing, a person posts a few);
 * 3. `AllRequestsPerIp`: every request, ingestion and the console's files included.
 *
 * Which rule counts a route follows from its throttle in ROUTE_THROTTLES, so
 * a new route lands in the right rule without touching this file. Each route
 * is matched by its method and the start of its path (up to its first path
 * parameter, or the whole path), the path URL-decoded and normalised first so
 * `/api/%6Beys` or `/api/./keys` count like `/api/keys`. A prefix, never an
 * exact path (issue 30): `/api/keys/`, `/api/keys//` and `/api/me/` count like
 * `/api/keys` and `/api/me` whatever API Gateway makes of them; what else a
 * prefix takes in is a path no route has (API Gateway's own 404) or a route of
 * the same rule, since no GET route ingests and no other method of a counted
 * path is ingestion. `HEAD` needs no match: the route table has no `HEAD` or
 * `ANY` route and the API no `$default` one, so API Gateway answers a `HEAD`
 * with its own 404 and no function runs (docs/deploy.md; the rule on all
 * requests counts it).
 */

import type {
  ByteMatchDefinition,
  RateRuleDefinition,
  StatementDefinition,
  WebAclDefinition,
} from "../../functions/deploy/web-acl-definition.js";
import { ROUTE_THROTTLES, type RouteDefinition, type RouteThrottle } from "../../functions/routes.js";
import type { EdgeLimitKind, EdgeLimits } from "./edge-settings.js";

/** WAF's evaluation window of every rule: limits are per minute, and an address is let go within a minute of slowing down. */
export const EVALUATION_WINDOW_SECONDS = 60;

/** What a client over its limit is told: the API's error body, and when to retry. */
export const RATE_LIMITED_RESPONSE = {
  status: 429,
  retryAfterSeconds: EVALUATION_WINDOW_SECONDS,
  bodyKey: "too-many-requests",
  body: {
    error: "Too Many Requests",
    message:
      "Too many requests from this address for the last minute; slow down and retry after the Retry-After seconds",
  },
} as const;

/** A route's request as WAF matches it: its method (absent: any), and the start of its path. */
export interface RequestMatch {
  readonly method?: string;
  readonly path: string;
  readonly positional: "STARTS_WITH";
}

/** The per-address rule that counts a route (besides the rule on all requests), by its gateway bucket. */
export function edgeLimitOf(throttle: RouteThrottle): Exclude<EdgeLimitKind, "all"> | undefined {
  if (
    throttle === ROUTE_THROTTLES.keyManagement ||
    throttle === ROUTE_THROTTLES.erasure ||
    throttle === ROUTE_THROTTLES.publicDocument
  ) {
    return "management";
  }
  if (throttle === ROUTE_THROTTLES.read || throttle === ROUTE_THROTTLES.feedback) return "read";
  return undefined;
}

/**
 * How WAF recognises a route: its method, and its path up to the first `{parameter}` (the whole path when it
 * has none) as a prefix, so the path's variants (a trailing slash) count too (module comment).
 */
export function requestMatchOf(route: Pick<RouteDefinition, "method" | "path">): RequestMatch {
  const parameter = route.path.indexOf("{");
  return {
    method: route.method,
    path: parameter < 0 ? route.path : route.path.slice(0, parameter),
    positional: "STARTS_WITH",
  };
}

/**
 * The request matches of the routes a rule counts, in route-table order, without those another one of the
 * same method already covers (`GET /api/keys` covers `GET /api/keys/`): fewer statements, the same requests.
 */
export function requestMatchesFor(
  routes: readonly Pick<RouteDefinition, "method" | "path" | "throttle">[],
  kind: Exclude<EdgeLimitKind, "all">,
): readonly RequestMatch[] {
  const counted = routes.filter((route) => edgeLimitOf(route.throttle) === kind);
  // A family whose every route, whatever its method, this rule counts is matched by its path alone: one statement
  // instead of one per method and path (the alerts' sixteen routes are one), the same requests of the route table.
  const wholeFamilies = [...new Set(counted.map((route) => familyOf(route.path)))].filter((family) =>
    routes.every((route) => !route.path.startsWith(family) || edgeLimitOf(route.throttle) === kind),
  );
  const matches: RequestMatch[] = [
    ...wholeFamilies.map((path) => ({ path, positional: "STARTS_WITH" as const })),
    ...counted.filter((route) => !wholeFamilies.some((family) => route.path.startsWith(family))).map(requestMatchOf),
  ];
  return matches.filter(
    (match, index) =>
      !matches.some(
        (other, otherIndex) =>
          (other.method === undefined || other.method === match.method) &&
          match.path.startsWith(other.path) &&
          (other.path !== match.path || otherIndex < index),
      ),
  );
}

/** A path's family: `/api/` and its first segment after that (`/api/alerts` of `/api/alerts/monitors/{monitorId}`). */
function familyOf(path: string): string {
  const [, root, first] = path.split("/");
  return `/${root ?? ""}/${first ?? ""}`;
}

function methodIs(method: string): ByteMatchDefinition {
  return {
    ByteMatchStatement: {
      SearchString: method,
      FieldToMatch: { Method: {} },
      PositionalConstraint: "EXACTLY",
      TextTransformations: [{ Priority: 0, Type: "NONE" }],
    },
  };
}

function pathIs(match: RequestMatch): ByteMatchDefinition {
  return {
    ByteMatchStatement: {
      SearchString: match.path,
      FieldToMatch: { UriPath: {} },
      PositionalConstraint: match.positional,
      TextTransformations: [
        { Priority: 0, Type: "URL_DECODE" },
        { Priority: 1, Type: "NORMALIZE_PATH" },
      ],
    },
  };
}

/** One statement matching any of the requests (WAF's OR needs two statements or more). */
export function scopeDownStatement(matches: readonly RequestMatch[]): StatementDefinition {
  const statements = matches.map(
    (match): StatementDefinition =>
      match.method === undefined
        ? pathIs(match)
        : { AndStatement: { Statements: [methodIs(match.method), pathIs(match)] } },
  );
  const [only] = statements;
  if (only === undefined) throw new Error("A scoped rule needs at least one request to match");
  return statements.length === 1 ? only : { OrStatement: { Statements: statements } };
}

function rateRule(
  name: string,
  priority: number,
  limitPerMinute: number,
  scopeDown: StatementDefinition | undefined,
): RateRuleDefinition {
  return {
    Name: name,
    Priority: priority,
    Action: {
      Block: {
        CustomResponse: {
          ResponseCode: RATE_LIMITED_RESPONSE.status,
          CustomResponseBodyKey: RATE_LIMITED_RESPONSE.bodyKey,
          ResponseHeaders: [{ Name: "Retry-After", Value: String(RATE_LIMITED_RESPONSE.retryAfterSeconds) }],
        },
      },
    },
    Statement: {
      RateBasedStatement: {
        Limit: limitPerMinute,
        EvaluationWindowSec: EVALUATION_WINDOW_SECONDS,
        AggregateKeyType: "IP",
        ...(scopeDown === undefined ? {} : { ScopeDownStatement: scopeDown }),
      },
    },
    VisibilityConfig: { SampledRequestsEnabled: true, CloudWatchMetricsEnabled: true, MetricName: name },
  };
}

/** The rule names, in priority order. */
export const EDGE_RULE_NAMES = {
  management: "ManagementPerIp",
  read: "ReadsPerIp",
  all: "AllRequestsPerIp",
} as const satisfies Readonly<Record<EdgeLimitKind, string>>;

/** The whole web ACL: allow by default, the three rate-based rules, the 429 body. */
export function edgeWebAclDefinition(
  routes: readonly Pick<RouteDefinition, "method" | "path" | "throttle">[],
  limits: EdgeLimits,
): WebAclDefinition {
  return {
    Description: "Agent Tracking Service: per-address request limits in front of the console and its API",
    DefaultAction: { Allow: {} },
    Rules: [
      rateRule(
        EDGE_RULE_NAMES.management,
        0,
        limits.management,
        scopeDownStatement(requestMatchesFor(routes, "management")),
      ),
      rateRule(EDGE_RULE_NAMES.read, 1, limits.read, scopeDownStatement(requestMatchesFor(routes, "read"))),
      rateRule(EDGE_RULE_NAMES.all, 2, limits.all, undefined),
    ],
    VisibilityConfig: { SampledRequestsEnabled: true, CloudWatchMetricsEnabled: true, MetricName: "AgentTrackingEdge" },
    CustomResponseBodies: {
      [RATE_LIMITED_RESPONSE.bodyKey]: {
        ContentType: "APPLICATION_JSON",
        Content: JSON.stringify(RATE_LIMITED_RESPONSE.body),
      },
    },
  };
}

/**
 * The web ACL capacity units the rules use, by AWS WAF's published costs: a
 * rate-based rule 2 plus its scope-down statement; a string match that is
 * exact or a prefix 2, plus 10 per text transformation; AND and OR the sum of
 * what they hold. A web ACL includes 1,500 in its price.
 */
export function estimatedCapacity(definition: WebAclDefinition): number {
  const statementCost = (statement: StatementDefinition): number => {
    if ("ByteMatchStatement" in statement)
      return 2 + 10 * statement.ByteMatchStatement.TextTransformations.filter((step) => step.Type !== "NONE").length;
    const nested = "AndStatement" in statement ? statement.AndStatement.Statements : statement.OrStatement.Statements;
    return nested.reduce((sum, inner) => sum + statementCost(inner), 0);
  };
  return definition.Rules.reduce((sum, rule) => {
    const scopeDown = rule.Statement.RateBasedStatement.ScopeDownStatement;
    return sum + 2 + (scopeDown === undefined ? 0 : statementCost(scopeDown));
  }, 0);
}
