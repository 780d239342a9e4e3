/**
 * Every route × every way a caller can be wrong: the expected status, and
 * nothing of the victim organisation changes. Cases that cannot apply to a
 * route (a JWT on a JWT route, an environment for a user) are not generated.
 * The read routes accept both credentials (`apiKeyOrUser`): their user-token
 * cases are in console-access.test.ts; here a token without X-Organization-Id
 * is a 400.
 */
import { QueryCommand } from "@aws-sdk/lib-dynamodb";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { feedbackTokenKey } from "../../functions/auth/feedback-token-key.js";
import { signFeedbackToken } from "../../functions/domain/feedback-token.js";
import { routes } from "../../functions/routes.js";
import { revokeApiKey, rotateApiKey } from "../../functions/store/keys/api-key-store.js";
import { documentClient, tableName } from "../../functions/store/table/dynamo-client.js";
import {
  agentSummaryPartition,
  MONITORS_PARTITION,
  monitorTenantPrefix,
  organisationKey,
  organisationPricesPartition,
  rollupPartition,
  scoreConfigsPartition,
  sessionKey,
  tenant,
} from "../../functions/store/table/keys.js";
import type { LocalApi } from "../../local/http-adapter.js";
import {
  call,
  createTestKey,
  createTestSession,
  createTestUser,
  settleCounts,
  startTestApi,
  type TestKey,
  type TestUser,
} from "../support/fixtures.js";

type Case =
  | "no credential"
  | "malformed key"
  | "revoked key"
  | "expired rotated key"
  | "other organisation"
  | "other environment"
  | "missing scope or role"
  | "API key on a JWT route"
  | "JWT on an SDK route"
  | "feedback token"
  | "expired feedback token";

interface World {
  victim: TestKey;
  victimOwner: TestUser;
  victimMember: TestUser;
  /** A person with a pending invitation to the victim organisation. */
  victimInviteeId: string;
  victimSessionId: string;
  victimKeyId: string;
  victimJobId: string;
  /** A monitor of the victim's live environment: no other organisation may read, change, test or delete it. */
  victimMonitorId: string;
  /** An alert destination of the victim organisation. */
  victimDestinationId: string;
  revoked: string;
  expired: string;
  otherOrgKey: TestKey;
  otherOrgUser: TestUser;
  otherEnvKey: TestKey;
  sessionsOnlyKey: TestKey;
  eventsOnlyKey: TestKey;
  /** A feedback token for the victim's session, minted by the victim's own key: it must do nothing but post feedback. */
  victimFeedbackToken: string;
  /** The same, expired. */
  expiredFeedbackToken: string;
  /** Feedback tokens minted by another organisation's and another environment's key for their own sessions. */
  otherOrgFeedbackToken: string;
  otherEnvFeedbackToken: string;
}

let api: LocalApi;
let world: World;
/** The victim as the world left it, settled (beforeAll): what every case must leave unchanged. */
let victimAtStart: unknown[];
/** Prices the victim organisation holds (its organisation partition is compared before and after each case). */
const VICTIM_MODEL = "victim-model";
const VICTIM_DELETED_MODEL = "victim-model-to-delete";
/** The victim's score configurations: one another organisation's admin sets in their own organisation, one they try to delete. */
const VICTIM_SCORE_NAME = "victim-score-name";
const VICTIM_DELETED_SCORE_NAME = "victim-score-name-to-delete";
/** The victim's monitor, and what intruders send to the monitor routes. */
const MONITOR_BODY = {
  name: "victim monitor",
  enabled: false,
  metric: "failure_rate",
  filters: { agent: "test-agent" },
  windowMinutes: 15,
  comparison: "above",
  alertThreshold: 10,
  minSessions: 1,
  noData: "keep",
  renotifyMinutes: 0,
  notifyOnRecovery: false,
  destinationIds: [],
};
/** A score of the victim's session (written in beforeAll): intruders must neither replace nor delete it. */
const VICTIM_SCORE_ID = "scr_01KAZ3XB1C2D3E4F5G6H7J8K9M";

beforeAll(async () => {
  api = await startTestApi();
  const victim = await createTestKey({ scopes: ["sessions:write", "events:write", "read", "delete"] });
  const victimOwner = await createTestUser(api, { orgId: victim.orgId, role: "owner" });
  const victimMember = await createTestUser(api, { orgId: victim.orgId, role: "member" });
  const invitation = await call(api, "POST", "/api/invitations", {
    key: victimOwner.token,
    body: { email: `invitee-${victim.orgId}@example.com`, role: "admin" },
  });
  if (invitation.status !== 201) throw new Error(`invitation not created: ${invitation.text}`);
  const revokedKey = await createTestKey({ orgId: victim.orgId });
  await revokeApiKey(victim.orgId, revokedKey.keyId, { name: "tests" });
  const rotatedKey = await createTestKey({ orgId: victim.orgId });
  await rotateApiKey(victim.orgId, rotatedKey.keyId, 0, { name: "tests" });
  const allScopes = ["sessions:write", "events:write", "scores:write", "read", "delete"] as const;
  const otherOrgKey = await createTestKey({ scopes: allScopes });
  for (const model of [VICTIM_MODEL, VICTIM_DELETED_MODEL]) {
    const price = await call(api, "PUT", `/api/prices/${model}`, {
      key: victimOwner.token,
      body: { effectiveFrom: "2026-01-01", input: 1, output: 2 },
    });
    if (price.status !== 200) throw new Error(`price not set: ${price.text}`);
  }
  for (const name of [VICTIM_SCORE_NAME, VICTIM_DELETED_SCORE_NAME]) {
    const config = await call(api, "PUT", `/api/sdk/score-configs/${name}`, {
      key: victimOwner.token,
      body: { dataType: "numeric", min: 0, max: 1 },
    });
    if (config.status !== 200) throw new Error(`score configuration not set: ${config.text}`);
  }
  const monitor = await call(api, "POST", "/api/alerts/monitors", { key: victimOwner.token, body: MONITOR_BODY });
  if (monitor.status !== 201) throw new Error(`monitor not created: ${monitor.text}`);
  const destination = await call(api, "POST", "/api/alerts/destinations", {
    key: victimOwner.token,
    body: { name: "victim's bus", kind: "eventbridge" },
  });
  if (destination.status !== 201) throw new Error(`destination not created: ${destination.text}`);
  const victimSessionId = await createTestSession(api, victim.key);
  const scorer = await createTestKey({ orgId: victim.orgId, scopes: ["scores:write"] });
  const scored = await call(api, "POST", "/api/sdk/scores", {
    key: scorer.key,
    body: { id: VICTIM_SCORE_ID, sessionId: victimSessionId, name: "victim's verdict", value: 1 },
  });
  if (scored.status !== 201) throw new Error(`score not created: ${scored.text}`);
  const otherEnvKey = await createTestKey({ orgId: victim.orgId, environment: "test", scopes: allScopes });
  async function feedbackToken(key: string, sessionId: string): Promise<string> {
    const minted = await call(api, "POST", "/api/sdk/feedback-tokens", { key, body: { sessionId } });
    if (minted.status !== 201) throw new Error(`feedback token not minted: ${minted.text}`);
    return String(minted.body.token);
  }
  const expiredFeedbackToken = signFeedbackToken(
    {
      tokenId: "fbt_01KAZ3XD3E4F5G6H7J8K9M0NP1",
      orgId: victim.orgId,
      environment: "live",
      sessionId: victimSessionId,
      expiresAt: Math.floor(Date.now() / 1000) - 1,
      retentionDays: 30,
    },
    await feedbackTokenKey(),
  );
  world = {
    victim,
    victimOwner,
    victimMember,
    victimInviteeId: String(invitation.body.userId),
    victimSessionId,
    victimMonitorId: String(monitor.body.id),
    victimKeyId: (await createTestKey({ orgId: victim.orgId })).keyId,
    victimJobId: String((await call(api, "DELETE", "/api/sdk/users/nobody-at-all", { key: victim.key })).body.jobId),
    victimDestinationId: String(destination.body.id),
    revoked: revokedKey.key,
    expired: rotatedKey.key,
    otherOrgKey,
    otherOrgUser: await createTestUser(api, { orgId: otherOrgKey.orgId, role: "owner" }),
    otherEnvKey,
    sessionsOnlyKey: await createTestKey({ orgId: victim.orgId, scopes: ["sessions:write"] }),
    eventsOnlyKey: await createTestKey({ orgId: victim.orgId, scopes: ["events:write"] }),
    victimFeedbackToken: await feedbackToken(scorer.key, victimSessionId),
    expiredFeedbackToken,
    otherOrgFeedbackToken: await feedbackToken(otherOrgKey.key, await createTestSession(api, otherOrgKey.key)),
    otherEnvFeedbackToken: await feedbackToken(otherEnvKey.key, await createTestSession(api, otherEnvKey.key)),
  };
  // The victim's world settled once: its erasure job finished and everything its writes derive counted. From here
  // nothing may change the victim; each case reads its state before (no drain needed) and after (drained).
  for (let attempt = 0; attempt < 200; attempt++) {
    const job = await call(api, "GET", `/api/sdk/deletions/${world.victimJobId}`, { key: victim.key });
    if (job.body.status === "completed") break;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  await settleCounts();
  victimAtStart = await victimState(false);
});
afterAll(() => api.close());

/** A valid request for each route, aimed at the victim's resources. */
function requestFor(routeId: string): { path: string; body?: unknown } {
  const route = routes.find((candidate) => candidate.id === routeId);
  const path = (route?.path ?? "")
    .replace("{id}", routeId.includes("ApiKey") ? world.victimKeyId : world.victimSessionId)
    .replace("{agentName}", "test-agent")
    .replace(
      "{userId}",
      routeId.includes("Invitation")
        ? world.victimInviteeId
        : routeId.includes("Member")
          ? world.victimOwner.userId
          : "user-1",
    )
    .replace("{orgId}", world.victim.orgId)
    .replace("{jobId}", world.victimJobId)
    .replace("{monitorId}", world.victimMonitorId)
    .replace("{destinationId}", world.victimDestinationId)
    .replace("{scoreId}", VICTIM_SCORE_ID)
    .replace("{name}", routeId === "DeleteScoreConfig" ? VICTIM_DELETED_SCORE_NAME : VICTIM_SCORE_NAME)
    // Another organisation's admin sets a price of the victim's model in their own organisation (PUT): the
    // deletion names another of the victim's models, so that it never finds one of theirs.
    .replace("{model}", routeId === "DeleteOrganisationPrice" ? VICTIM_DELETED_MODEL : VICTIM_MODEL);
  const bodies: Record<string, unknown> = {
    CreateSession: { name: "n", agentName: "a", userId: "u" },
    UpdateSession: { status: "failed" },
    CreateEvent: { sessionId: world.victimSessionId, eventType: "error", estimatedCost: 1 },
    CreateScore: { id: VICTIM_SCORE_ID, sessionId: world.victimSessionId, name: "intruder", value: 0 },
    CreateScoreBatch: { scores: [{ id: VICTIM_SCORE_ID, sessionId: world.victimSessionId, name: "n", value: false }] },
    CreateApiKey: { name: "intruder" },
    CreateInvitation: {
      email: `intruder-${Date.now()}-${Math.random().toString(36).slice(2)}@example.com`,
      role: "owner",
    },
    UpdateMember: { role: "member" },
    RotateApiKey: { overlapSeconds: 0 },
    PutOrganisationPrice: { effectiveFrom: "2026-12-01", input: 99, output: 99 },
    PutScoreConfig: { dataType: "boolean" },
    CreateFeedbackToken: { sessionId: world.victimSessionId },
    PostFeedback: { name: "intruder", value: 0 },
    CreateMonitor: { ...MONITOR_BODY, name: "intruder" },
    ReplaceMonitor: { ...MONITOR_BODY, name: "intruder" },
    PreviewMonitor: MONITOR_BODY,
    QueryMetrics: { measures: ["sessions"], groupBy: ["agent"] },
    CreateAlertDestination: { name: "intruder", kind: "eventbridge" },
    UpdateAlertDestination: { name: "intruder", enabled: false },
  };
  return { path, body: bodies[routeId] };
}

type Kind = (typeof routes)[number]["auth"]["kind"];

function credentialFor(routeId: string, kind: Kind, testCase: Case): string | undefined {
  switch (testCase) {
    case "no credential":
      return undefined;
    case "malformed key":
      if (kind === "feedbackToken") return "atsf_tooShort.bad";
      return kind === "apiKey" || kind === "apiKeyOrUser" ? "ats_live_tooShort" : "eyJhbGciOiJIUzI1NiJ9.e30.bad";
    case "feedback token":
      return world.victimFeedbackToken;
    case "expired feedback token":
      return world.expiredFeedbackToken;
    case "revoked key":
      return world.revoked;
    case "expired rotated key":
      return world.expired;
    case "other organisation":
      if (kind === "feedbackToken") return world.otherOrgFeedbackToken;
      return kind === "apiKey" || kind === "apiKeyOrUser" ? world.otherOrgKey.key : world.otherOrgUser.token;
    case "other environment":
      return kind === "feedbackToken" ? world.otherEnvFeedbackToken : world.otherEnvKey.key;
    case "missing scope or role":
      if (kind === "user" || kind === "signedIn") return world.victimMember.token;
      return routeId === "CreateEvent" ? world.sessionsOnlyKey.key : world.eventsOnlyKey.key;
    case "API key on a JWT route":
      return world.victim.key;
    case "JWT on an SDK route":
      return world.victimOwner.token;
  }
}

/** Expected status per route and case; absent = the case does not apply to the route. */
const EXPECTED: Record<string, Partial<Record<Case, number>>> = {
  CreateSession: { "other organisation": 201, "other environment": 201, "missing scope or role": 403 },
  UpdateSession: { "other organisation": 403, "other environment": 403, "missing scope or role": 403 },
  CreateEvent: { "other organisation": 403, "other environment": 403, "missing scope or role": 403 },
  CreateApiKey: { "other organisation": 201, "missing scope or role": 403 },
  ListApiKeys: { "other organisation": 200, "missing scope or role": 200 },
  RotateApiKey: { "other organisation": 404, "missing scope or role": 403 },
  RevokeApiKey: { "other organisation": 404, "missing scope or role": 403 },
  ListApiKeyAudit: { "other organisation": 404, "missing scope or role": 200 },
  CreateScore: { "other organisation": 403, "other environment": 403, "missing scope or role": 403 },
  // Each score of a batch is authorised on its own: the batch is answered, the foreign score refused in it.
  CreateScoreBatch: { "other organisation": 200, "other environment": 200, "missing scope or role": 403 },
  // Minting is scoped like a score write: another tenant's session is refused.
  CreateFeedbackToken: { "other organisation": 403, "other environment": 403, "missing scope or role": 403 },
  // Another tenant's token posts to its own session (201), never the victim's; the victim's own token is the
  // route's credential, and an expired one is refused. An API key is refused ("revoked key" and "expired rotated key"
  // above are API keys, and the victim's live key below).
  PostFeedback: {
    "other organisation": 201,
    "other environment": 201,
    "expired feedback token": 401,
    "API key on a JWT route": 401,
  },
  ListScores: { "other organisation": 403, "other environment": 403, "missing scope or role": 403 },
  DeleteScore: { "other organisation": 403, "other environment": 403, "missing scope or role": 403 },
  // Configurations are the organisation's, shared by its environments: each caller reads and sets its own.
  ListScoreConfigs: { "other organisation": 200, "other environment": 200, "missing scope or role": 403 },
  PutScoreConfig: { "other organisation": 200, "missing scope or role": 403 },
  DeleteScoreConfig: { "other organisation": 404, "missing scope or role": 403 },
  GetSession: { "other organisation": 403, "other environment": 403, "missing scope or role": 403 },
  ListSessions: { "other organisation": 200, "other environment": 200, "missing scope or role": 403 },
  ListEvents: { "other organisation": 403, "other environment": 403, "missing scope or role": 403 },
  DeleteSession: { "other organisation": 403, "other environment": 403, "missing scope or role": 403 },
  ListAgents: { "other organisation": 200, "other environment": 200, "missing scope or role": 403 },
  AgentStats: { "other organisation": 200, "other environment": 200, "missing scope or role": 403 },
  ListModels: { "other organisation": 200, "other environment": 200, "missing scope or role": 403 },
  AgentModels: { "other organisation": 200, "other environment": 200, "missing scope or role": 403 },
  UserStats: { "other organisation": 200, "other environment": 200, "missing scope or role": 403 },
  // Another tenant's query reads its own rollups (200), never the victim's: the victim's state is unchanged.
  QueryMetrics: { "other organisation": 200, "other environment": 200, "missing scope or role": 403 },
  DeleteUserData: { "other organisation": 202, "other environment": 202, "missing scope or role": 403 },
  GetDeletionJob: { "other organisation": 404, "other environment": 404, "missing scope or role": 403 },
  // The caller's own memberships: another organisation's owner reads their own, a member theirs.
  GetMe: { "other organisation": 200, "missing scope or role": 200 },
  ListMembers: { "other organisation": 200, "missing scope or role": 200 },
  // Another organisation's owner invites into their own organisation; nobody has an invitation to the victim's.
  ListInvitations: { "other organisation": 200, "missing scope or role": 403 },
  CreateInvitation: { "other organisation": 201, "missing scope or role": 403 },
  RevokeInvitation: { "other organisation": 404, "missing scope or role": 403 },
  AcceptInvitation: { "other organisation": 404, "missing scope or role": 404 },
  DeclineInvitation: { "other organisation": 404, "missing scope or role": 404 },
  UpdateMember: { "other organisation": 404, "missing scope or role": 403 },
  RemoveMember: { "other organisation": 404, "missing scope or role": 403 },
  // Another organisation's admin reads and sets their own prices; the victim's price is not theirs to delete.
  ListOrganisationPrices: { "other organisation": 200, "missing scope or role": 200 },
  GetPriceTable: { "other organisation": 200, "missing scope or role": 200 },
  ListPriceAudit: { "other organisation": 200, "missing scope or role": 403 },
  PutOrganisationPrice: { "other organisation": 200, "missing scope or role": 403 },
  DeleteOrganisationPrice: { "other organisation": 404, "missing scope or role": 403 },
  // Monitors are the tenant's: another organisation's admin lists, creates and previews its own; the victim's
  // monitor is unknown to it. A member reads, previews and lists history; only admins write and test.
  ListMonitors: { "other organisation": 200, "missing scope or role": 200 },
  CreateMonitor: { "other organisation": 201, "missing scope or role": 403 },
  PreviewMonitor: { "other organisation": 200, "missing scope or role": 200 },
  GetMonitor: { "other organisation": 404, "missing scope or role": 200 },
  ReplaceMonitor: { "other organisation": 404, "missing scope or role": 403 },
  DeleteMonitor: { "other organisation": 404, "missing scope or role": 403 },
  ListMonitorHistory: { "other organisation": 404, "missing scope or role": 200 },
  TestMonitor: { "other organisation": 404, "missing scope or role": 403 },
  ListAlertAudit: { "other organisation": 200, "missing scope or role": 403 },
  // Another organisation's admin lists and adds their own destinations; the victim's are not found. Members read.
  ListAlertDestinations: { "other organisation": 200, "missing scope or role": 200 },
  CreateAlertDestination: { "other organisation": 201, "missing scope or role": 403 },
  GetAlertDestination: { "other organisation": 404, "missing scope or role": 200 },
  UpdateAlertDestination: { "other organisation": 404, "missing scope or role": 403 },
  DeleteAlertDestination: { "other organisation": 404, "missing scope or role": 403 },
  RotateAlertDestinationSecret: { "other organisation": 404, "missing scope or role": 403 },
  TestAlertDestination: { "other organisation": 404, "missing scope or role": 403 },
};

/** A signed-in user's token on each kind of route: 401 where tokens are refused, 400 on a read without X-Organization-Id. */
const JWT_ON_KIND: Partial<Record<Kind, number>> = { apiKey: 401, apiKeyOrUser: 400 };

const COMMON: Partial<Record<Case, number>> = {
  "no credential": 401,
  "malformed key": 401,
  "revoked key": 401,
  "expired rotated key": 401,
};

/** Routes anyone may call take no credential, so they have no row here (see the test below). */
const protectedRoutes = routes.filter((route) => route.auth.kind !== "public");

const matrix = protectedRoutes.flatMap((route) => {
  const specific = EXPECTED[route.id] ?? {};
  const cases: Partial<Record<Case, number>> = {
    ...COMMON,
    ...specific,
    ...(route.auth.kind === "user" || route.auth.kind === "signedIn"
      ? { "API key on a JWT route": 401 }
      : { "JWT on an SDK route": JWT_ON_KIND[route.auth.kind] ?? 401 }),
    // A feedback token posts an end user's score and does nothing else: every other route refuses it.
    ...(route.auth.kind === "feedbackToken" ? {} : { "feedback token": 401 }),
  };
  return Object.entries(cases).map(([testCase, status], index, all) => ({
    route: route.id,
    method: route.method,
    kind: route.auth.kind,
    testCase: testCase as Case,
    status: status as number,
    lastOfRoute: index === all.length - 1,
  }));
});

/**
 * Everything stored for the victim: its organisation partition and its session partition. `settled`: after what
 * the stream consumer derives from the writes made so far is counted.
 */
async function victimState(settled: boolean): Promise<unknown[]> {
  if (settled) await settleCounts();
  const victimTenant = tenant(world.victim.orgId, "live");
  const partitions = [
    organisationKey(world.victim.orgId).PK,
    organisationPricesPartition(world.victim.orgId),
    scoreConfigsPartition(world.victim.orgId),
    sessionKey(world.victimSessionId).PK,
    agentSummaryPartition(victimTenant),
    rollupPartition(victimTenant, "AGENT", "test-agent"),
    rollupPartition(victimTenant, "USER", "user-1"),
    `DELETIONS#${victimTenant}`,
  ];
  const pages = await Promise.all(
    partitions.map((partition) =>
      documentClient.send(
        new QueryCommand({
          TableName: tableName,
          KeyConditionExpression: "PK = :pk",
          ExpressionAttributeValues: { ":pk": partition },
          ConsistentRead: true,
        }),
      ),
    ),
  );
  const monitors = await documentClient.send(
    new QueryCommand({
      TableName: tableName,
      KeyConditionExpression: "PK = :pk AND begins_with(SK, :prefix)",
      ExpressionAttributeValues: {
        ":pk": MONITORS_PARTITION,
        ":prefix": monitorTenantPrefix(world.victim.orgId, "live"),
      },
      ConsistentRead: true,
    }),
  );
  pages.push(monitors);
  // lastUsedAt is the one field a legitimate use of the victim's own keys may move.
  return pages.flatMap((result) => (result.Items ?? []).map(({ lastUsedAt: _stamp, ...item }) => item));
}

describe("security matrix", () => {
  it("covers every route of the route table that takes a credential", () => {
    expect(new Set(matrix.map((row) => row.route))).toEqual(new Set(protectedRoutes.map((route) => route.id)));
    expect(routes.filter((route) => route.auth.kind === "public").map((route) => route.id)).toEqual([
      "FeedbackPreflight",
      "OpenApiDocument",
    ]);
    expect(matrix.length).toBeGreaterThanOrEqual(protectedRoutes.length * 6);
  });

  // Nothing may change the victim, so every case compares it with its state at the start (settled in beforeAll):
  // at once after its request (what the request wrote itself), and, after the last case of each route, once more
  // when the stream consumer has counted everything (what that route's requests derive) — one drain per route, not
  // one per case (the drains were most of the file's time).
  it.each(matrix)(
    "$method $route with $testCase → $status, victim unchanged",
    async ({ route, method, kind, testCase, status, lastOfRoute }) => {
      const { path, body } = requestFor(route);
      const credential = credentialFor(route, kind, testCase);

      const response = await call(api, method, path, {
        ...(credential === undefined ? {} : { key: credential }),
        ...(body === undefined ? {} : { body }),
        settle: false,
      });

      expect(response.status).toBe(status);
      if (status >= 400) {
        expect(response.body).toEqual(
          expect.objectContaining({ error: expect.any(String), message: expect.any(String) }),
        );
      }
      expect(await victimState(false), "what the request wrote").toEqual(victimAtStart);
      if (lastOfRoute) {
        expect(await victimState(true), `what ${route}'s requests derive, counted`).toEqual(victimAtStart);
      }
    },
  );
});
