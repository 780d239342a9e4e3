/**
 * The deploy settings of edge protection (CDK context, `-c key=value` or
 * `cdk.json`), read and checked once at synthesis: a bad value stops
 * `cdk synth` with a message naming the setting, never a half-protected stack.
 * What each setting does and costs: docs/deploy.md.
 */
import type { IConstruct } from "constructs";

/** Context key that turns edge protection on (`true`); off by default. */
export const EDGE_PROTECTION_CONTEXT_KEY = "edgeProtection";

/** The kinds of request AWS WAF counts per client address, each against its own limit. */
export type EdgeLimitKind = "all" | "read" | "management";

/** Requests per minute one client address may send, per kind of request. */
export type EdgeLimits = Readonly<Record<EdgeLimitKind, number>>;

/** Context key of each per-address limit (requests per minute). */
export const EDGE_LIMIT_CONTEXT_KEYS: Readonly<Record<EdgeLimitKind, string>> = {
  all: "edgeRequestsPerIpPerMinute",
  read: "edgeReadsPerIpPerMinute",
  management: "edgeManagementRequestsPerIpPerMinute",
};

/**
 * The default per-address limits, requests per minute:
 * - `all` (every request to the distribution): 7,200 = 120 rps, so a fleet of
 *   agents behind one NAT address can still send 100 unbatched events a second;
 * - `read` (`GET` of sessions, events, agents and stats): 600 = 10 rps, a team
 *   on dashboards behind one address;
 * - `management` (keys, members, `/api/me`, session deletion, user erasure and
 *   its job status, the OpenAPI document): 60 = 1 rps; the console makes a
 *   handful of these per page.
 */
export const DEFAULT_EDGE_LIMITS: EdgeLimits = { all: 7200, read: 600, management: 60 };

/** AWS WAF's bounds for a rate-based rule's limit (per evaluation window). */
export const WAF_RATE_LIMIT_RANGE = { min: 10, max: 2_000_000_000 } as const;

/**
 * The edge-protection settings: `undefined` when it is off (the default),
 * else the per-address limits, each the context value when set, else its
 * default (the read and management defaults never above the limit on all
 * requests, so lowering that one alone is enough).
 *
 * @throws Error when `edgeProtection` is neither true nor false; when a limit
 * is not a whole number within AWS WAF's range; when a limit is set while edge
 * protection is off (it would protect nothing); when the read or management
 * limit exceeds the limit on all requests (which counts them too).
 */
export function edgeProtectionSettings(scope: IConstruct): EdgeLimits | undefined {
  const enabled = edgeProtectionEnabled(scope);
  const configured = (Object.keys(EDGE_LIMIT_CONTEXT_KEYS) as EdgeLimitKind[]).filter(
    (kind) => scope.node.tryGetContext(EDGE_LIMIT_CONTEXT_KEYS[kind]) !== undefined,
  );
  if (!enabled) {
    const first = configured[0];
    if (first !== undefined) {
      throw new Error(
        `Context ${EDGE_LIMIT_CONTEXT_KEYS[first]} only applies with ${EDGE_PROTECTION_CONTEXT_KEY}=true, which is not set: nothing would enforce it`,
      );
    }
    return undefined;
  }
  const all = limitOf(scope, "all") ?? DEFAULT_EDGE_LIMITS.all;
  const scoped = (kind: "read" | "management"): number => {
    const limit = limitOf(scope, kind);
    if (limit === undefined) return Math.min(DEFAULT_EDGE_LIMITS[kind], all);
    if (limit > all) {
      throw new Error(
        `Context ${EDGE_LIMIT_CONTEXT_KEYS[kind]} (${limit}) must not exceed ${EDGE_LIMIT_CONTEXT_KEYS.all} (${all}): every request counts against that limit too`,
      );
    }
    return limit;
  };
  return { all, read: scoped("read"), management: scoped("management") };
}

function edgeProtectionEnabled(scope: IConstruct): boolean {
  const configured: unknown = scope.node.tryGetContext(EDGE_PROTECTION_CONTEXT_KEY);
  if (configured === undefined || configured === false || configured === "false") return false;
  if (configured === true || configured === "true") return true;
  throw new Error(`Context ${EDGE_PROTECTION_CONTEXT_KEY} must be true or false, got ${JSON.stringify(configured)}`);
}

/** The limit set in the context, checked; `undefined` when unset. */
function limitOf(scope: IConstruct, kind: EdgeLimitKind): number | undefined {
  const key = EDGE_LIMIT_CONTEXT_KEYS[kind];
  const configured: unknown = scope.node.tryGetContext(key);
  if (configured === undefined) return undefined;
  // `-c key=value` passes a string; cdk.json may hold a number.
  const value = typeof configured === "string" && /^\d+$/.test(configured) ? Number(configured) : configured;
  if (
    typeof value !== "number" ||
    !Number.isInteger(value) ||
    value < WAF_RATE_LIMIT_RANGE.min ||
    value > WAF_RATE_LIMIT_RANGE.max
  ) {
    throw new Error(
      `Context ${key} must be a whole number of requests per minute from ${WAF_RATE_LIMIT_RANGE.min} to ${WAF_RATE_LIMIT_RANGE.max} (AWS WAF's range), got ${JSON.stringify(configured)}`,
    );
  }
  return value;
}
