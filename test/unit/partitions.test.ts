/**
 * The partition patterns of the route table (functions/routes.ts PARTITIONS,
 * what `dynamodb:LeadingKeys` is checked against) match the keys the key
 * builders make: each table key matches exactly one table pattern, each
 * index key exactly one index pattern.
 */
import { describe, expect, it } from "vitest";
import { PARTITIONS } from "../../functions/routes.js";
import {
  agentSummaryPartition,
  apiKeyAuditKey,
  apiKeyCredentialKey,
  apiKeyIdIndexKeys,
  apiKeyRecordKey,
  deletionJobKey,
  eventIdempotencyKey,
  eventKey,
  keyRateLimitBucket,
  MONITORS_PARTITION,
  memberAuditKey,
  membershipKey,
  organisationKey,
  organisationRateLimitBucket,
  pendingDeletionKey,
  rateLimitWindowKey,
  requestIdempotencyKey,
  rollupPartition,
  seriesPartition,
  serviceSecretKey,
  sessionKey,
  sessionStatusKeys,
  sessionStatusPartition,
  sessionTimelineKeys,
  tenant,
  userMembershipKey,
} from "../../functions/store/table/keys.js";

/** IAM `StringLike`: `*` any run of characters, `?` one. */
function like(pattern: string, value: string): boolean {
  const source = pattern
    .split("")
    .map((c) => (c === "*" ? ".*" : c === "?" ? "." : c.replace(/[.+^${}()|[\]\\]/g, "\\$&")))
    .join("");
  return new RegExp(`^${source}$`, "s").test(value);
}

const TABLE_PATTERNS = {
  apiKeyCredential: PARTITIONS.apiKeyCredential,
  organisation: PARTITIONS.organisation,
  user: PARTITIONS.user,
  session: PARTITIONS.session,
  rollup: PARTITIONS.rollup,
  monitors: PARTITIONS.monitors,
  rateLimit: PARTITIONS.rateLimit,
  requestIdempotency: PARTITIONS.requestIdempotency,
  eventIdempotency: PARTITIONS.eventIdempotency,
  tenantDeletions: PARTITIONS.tenantDeletions,
  pendingDeletions: PARTITIONS.pendingDeletions,
  service: PARTITIONS.service,
};
const INDEX_PATTERNS = {
  tenantSessionsIndex: PARTITIONS.tenantSessionsIndex,
  agentSessionsIndex: PARTITIONS.agentSessionsIndex,
  userSessionsIndex: PARTITIONS.userSessionsIndex,
  statusSessionsIndex: PARTITIONS.statusSessionsIndex,
  userStatusSessionsIndex: PARTITIONS.userStatusSessionsIndex,
  apiKeyIdIndex: PARTITIONS.apiKeyIdIndex,
};

function matching(patterns: Record<string, string>, value: string): string[] {
  return Object.entries(patterns)
    .filter(([, pattern]) => like(pattern, value))
    .map(([name]) => name);
}

const org = "org-1";
const session = {
  id: "ses_1",
  orgId: org,
  environment: "live" as const,
  agentName: "bot",
  userId: "u-1",
  createdAt: "t",
};
const tenantPrefix = tenant(org, "live");

describe("PARTITIONS match the key builders", () => {
  it.each([
    ["apiKeyCredential", apiKeyCredentialKey("abc").PK],
    ["organisation", organisationKey(org).PK],
    ["organisation", apiKeyRecordKey(org, "key_1").PK],
    ["organisation", apiKeyAuditKey(org, "key_1", "a").PK],
    ["organisation", membershipKey(org, "user-1").PK],
    ["organisation", memberAuditKey(org, "user-1", "aud_1").PK],
    ["user", userMembershipKey("user-1", org).PK],
    ["session", sessionKey("ses_1").PK],
    ["session", eventKey("ses_1", "evt_1").PK],
    ["rollup", rollupPartition(tenantPrefix, "AGENT", "bot")],
    ["rollup", agentSummaryPartition(tenantPrefix)],
    ["rollup", seriesPartition(tenantPrefix, "bot#1", { kind: "tool", names: ["__proto__"] })],
    ["rollup", seriesPartition(tenantPrefix, undefined, { kind: "none", names: [] })],
    ["monitors", MONITORS_PARTITION],
    ["tenantDeletions", deletionJobKey(tenantPrefix, "del_1").PK],
    ["pendingDeletions", pendingDeletionKey("del_1").PK],
    ["service", serviceSecretKey().PK],
    ["rateLimit", rateLimitWindowKey(organisationRateLimitBucket(org), 29_000_000).PK],
    ["rateLimit", rateLimitWindowKey(keyRateLimitBucket("key_1"), 29_000_000).PK],
    ["requestIdempotency", requestIdempotencyKey(org, "live", "k").PK],
    ["eventIdempotency", eventIdempotencyKey(org, "test", "k").PK],
  ])("a table key of %s (%s) matches that pattern only", (name, key) => {
    expect(matching(TABLE_PATTERNS, key)).toEqual([name]);
  });

  it.each([
    ["tenantSessionsIndex", sessionTimelineKeys(session).GSI1PK],
    ["agentSessionsIndex", sessionTimelineKeys(session).GSI2PK],
    ["userSessionsIndex", sessionTimelineKeys(session).GSI3PK],
    ["statusSessionsIndex", sessionStatusPartition(org, "live", "active")],
    ["userSessionsIndex", sessionTimelineKeys(session).GSI6PK],
    ["userStatusSessionsIndex", sessionStatusKeys(session, "failed").GSI7PK],
    ["userStatusSessionsIndex", sessionStatusKeys(session, "active").GSI8PK],
    ["apiKeyIdIndex", apiKeyIdIndexKeys("key_1").GSI2PK],
  ])("an index key of %s (%s) matches that pattern only", (name, key) => {
    expect(matching(INDEX_PATTERNS, key)).toEqual([name]);
  });

  it("matches no index partition with a table pattern other than the organisation's (index grants name index ARNs only)", () => {
    const indexKeys = [
      sessionTimelineKeys(session).GSI1PK,
      sessionTimelineKeys(session).GSI2PK,
      sessionTimelineKeys(session).GSI3PK,
      sessionStatusPartition(org, "live", "failed"),
    ];
    for (const key of indexKeys) expect(matching(TABLE_PATTERNS, key)).toEqual(["organisation"]);
  });
});
