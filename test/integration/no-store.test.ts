/**
 * Issue 30, finding 5: every answer of a route that takes a credential — successes and errors alike —
 * carries `Cache-Control: no-store`, as the key answers did alone before; the public API description does
 * not. One case per route of the route table, each a request that succeeds and the same request without a
 * credential, over real HTTP on the local API.
 */
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { routes } from "../../functions/routes.js";
import type { LocalApi } from "../../local/http-adapter.js";
import {
  call,
  createTestKey,
  createTestSession,
  createTestUser,
  identity,
  startTestApi,
  type TestKey,
  type TestUser,
} from "../support/fixtures.js";

let api: LocalApi;
let key: TestKey;
let owner: TestUser;

beforeAll(async () => {
  api = await startTestApi();
  key = await createTestKey({ scopes: ["sessions:write", "events:write", "scores:write", "read", "delete"] });
  owner = await createTestUser(api, { orgId: key.orgId, role: "owner" });
});
afterAll(() => api.close());

interface Attempt {
  readonly path: string;
  readonly credential: string;
  readonly headers?: Record<string, string>;
  readonly body?: unknown;
}

const asOwner = () => ({ credential: owner.token, headers: { "x-organization-id": key.orgId } });

async function newEvent(sessionId: string): Promise<string> {
  const response = await call(api, "POST", "/api/sdk/events", {
    key: key.key,
    body: { sessionId, eventType: "llm_decision", reasoning: "because" },
  });
  if (response.status !== 201) throw new Error(`event not recorded: ${response.text}`);
  return String(response.body.id);
}

const MONITOR = {
  name: "no-store monitor",
  enabled: false,
  metric: "sessions_started",
  filters: {},
  windowMinutes: 60,
  comparison: "below",
  alertThreshold: 1,
  minSessions: 0,
  noData: "ok",
  renotifyMinutes: 0,
  notifyOnRecovery: false,
  destinationIds: [],
};

async function newMonitorId(): Promise<string> {
  const created = await call(api, "POST", "/api/alerts/monitors", { key: owner.token, body: MONITOR });
  if (created.status !== 201) throw new Error(`monitor not created: ${created.text}`);
  return String(created.body.id);
}

async function newKeyId(): Promise<string> {
  return (await createTestKey({ orgId: key.orgId })).keyId;
}

async function newInvitee(): Promise<{ userId: string; email: string }> {
  const email = `no-store-${randomUUID().slice(0, 8)}@example.com`;
  const response = await call(api, "POST", "/api/invitations", {
    key: owner.token,
    headers: { "x-organization-id": key.orgId },
    body: { email, role: "member" },
  });
  if (response.status !== 201) throw new Error(`invitation not created: ${response.text}`);
  return { userId: String(response.body.userId), email };
}

/** A request each route answers with success, made ready (its session, key, invitation…) by the caller. */
const PREPARE: Record<string, () => Promise<Attempt>> = {
  CreateSession: async () => ({
    path: "/api/sdk/sessions",
    credential: key.key,
    body: { name: "n", agentName: "a", userId: "u" },
  }),
  UpdateSession: async () => ({
    path: `/api/sdk/sessions/${await createTestSession(api, key.key)}`,
    credential: key.key,
    body: { status: "completed" },
  }),
  CreateEvent: async () => ({
    path: "/api/sdk/events",
    credential: key.key,
    body: { sessionId: await createTestSession(api, key.key), eventType: "error" },
  }),
  CreateEventBatch: async () => ({
    path: "/api/sdk/events/batch",
    credential: key.key,
    body: { events: [{ sessionId: await createTestSession(api, key.key), eventType: "error" }] },
  }),
  CreateScore: async () => ({
    path: "/api/sdk/scores",
    credential: key.key,
    body: { sessionId: await createTestSession(api, key.key), name: "n", value: 1 },
  }),
  CreateFeedbackToken: async () => ({
    path: "/api/sdk/feedback-tokens",
    credential: key.key,
    body: { sessionId: await createTestSession(api, key.key) },
  }),
  PostFeedback: async () => {
    const sessionId = await createTestSession(api, key.key);
    const minted = await call(api, "POST", "/api/sdk/feedback-tokens", { key: key.key, body: { sessionId } });
    if (minted.status !== 201) throw new Error(`feedback token not minted: ${minted.text}`);
    return { path: "/api/public/feedback", credential: String(minted.body.token), body: { name: "n", value: false } };
  },
  CreateScoreBatch: async () => ({
    path: "/api/sdk/scores/batch",
    ...asOwner(),
    body: { scores: [{ sessionId: await createTestSession(api, key.key), name: "n", value: true }] },
  }),
  ListScores: async () => ({ path: `/api/sdk/sessions/${await createTestSession(api, key.key)}/scores`, ...asOwner() }),
  DeleteScore: async () => {
    const sessionId = await createTestSession(api, key.key);
    const scored = await call(api, "POST", "/api/sdk/scores", {
      key: key.key,
      body: { sessionId, name: "n", value: "label" },
    });
    return { path: `/api/sdk/sessions/${sessionId}/scores/${String(scored.body.id)}`, credential: key.key };
  },
  ExportTraces: async () => ({ path: "/api/otel/v1/traces", credential: key.key, body: { resourceSpans: [] } }),
  ExportLangfuseTraces: async () => ({
    path: "/api/public/otel/v1/traces",
    credential: key.key,
    body: { resourceSpans: [] },
  }),
  ExportLogs: async () => ({ path: "/api/otel/v1/logs", credential: key.key, body: { resourceLogs: [] } }),
  GetSession: async () => ({ path: `/api/sdk/sessions/${await createTestSession(api, key.key)}`, ...asOwner() }),
  ListSessions: async () => ({ path: "/api/sdk/sessions", credential: key.key }),
  ListEvents: async () => ({ path: `/api/sdk/sessions/${await createTestSession(api, key.key)}/events`, ...asOwner() }),
  GetEventField: async () => {
    const sessionId = await createTestSession(api, key.key);
    return { path: `/api/sdk/sessions/${sessionId}/events/${await newEvent(sessionId)}/reasoning`, ...asOwner() };
  },
  DeleteSession: async () => ({
    path: `/api/sdk/sessions/${await createTestSession(api, key.key)}`,
    credential: key.key,
  }),
  ListAgents: async () => ({ path: "/api/sdk/agents", ...asOwner() }),
  AgentStats: async () => ({ path: "/api/sdk/agents/test-agent/stats", credential: key.key }),
  ListModels: async () => ({ path: "/api/sdk/models", ...asOwner() }),
  AgentModels: async () => ({ path: "/api/sdk/agents/test-agent/models", credential: key.key }),
  UserStats: async () => ({ path: "/api/sdk/users/user-1/stats", credential: key.key }),
  QueryMetrics: async () => ({ path: "/api/sdk/metrics", ...asOwner(), body: { measures: ["sessions"] } }),
  DeleteUserData: async () => ({ path: `/api/sdk/users/gone-${randomUUID().slice(0, 8)}`, credential: key.key }),
  GetDeletionJob: async () => {
    const job = await call(api, "DELETE", `/api/sdk/users/gone-${randomUUID().slice(0, 8)}`, { key: key.key });
    return { path: `/api/sdk/deletions/${String(job.body.jobId)}`, credential: key.key };
  },
  CreateApiKey: async () => ({ path: "/api/keys", ...asOwner(), body: { name: "cached?" } }),
  ListApiKeys: async () => ({ path: "/api/keys", ...asOwner() }),
  RotateApiKey: async () => ({ path: `/api/keys/${await newKeyId()}/rotate`, ...asOwner(), body: {} }),
  RevokeApiKey: async () => ({ path: `/api/keys/${await newKeyId()}`, ...asOwner() }),
  ListApiKeyAudit: async () => ({ path: `/api/keys/${await newKeyId()}/audit`, ...asOwner() }),
  ListDeletionAudit: async () => ({ path: "/api/audit/deletions", ...asOwner() }),
  ListExports: async () => ({ path: "/api/exports", ...asOwner() }),
  GetMe: async () => ({ path: "/api/me", credential: owner.token }),
  ListMembers: async () => ({ path: "/api/members", ...asOwner() }),
  ListInvitations: async () => ({ path: "/api/invitations", ...asOwner() }),
  CreateInvitation: async () => ({
    path: "/api/invitations",
    ...asOwner(),
    body: { email: `no-store-${randomUUID().slice(0, 8)}@example.com`, role: "member" },
  }),
  RevokeInvitation: async () => ({ path: `/api/invitations/${(await newInvitee()).userId}`, ...asOwner() }),
  AcceptInvitation: async () => {
    const invitee = await newInvitee();
    const person = identity.findUser(invitee.email);
    if (person === undefined) throw new Error("the invitee is not in the local directory");
    return {
      path: `/api/me/invitations/${key.orgId}/accept`,
      credential: identity.issueAccessToken(person, api.url),
    };
  },
  DeclineInvitation: async () => {
    const invitee = await newInvitee();
    const person = identity.findUser(invitee.email);
    if (person === undefined) throw new Error("the invitee is not in the local directory");
    return {
      path: `/api/me/invitations/${key.orgId}/decline`,
      credential: identity.issueAccessToken(person, api.url),
    };
  },
  UpdateMember: async () => {
    const member = await createTestUser(api, { orgId: key.orgId, role: "member" });
    return { path: `/api/members/${member.userId}`, ...asOwner(), body: { role: "admin" } };
  },
  RemoveMember: async () => {
    const member = await createTestUser(api, { orgId: key.orgId, role: "member" });
    return { path: `/api/members/${member.userId}`, ...asOwner() };
  },
  ListOrganisationPrices: async () => ({ path: "/api/prices", ...asOwner() }),
  GetPriceTable: async () => ({ path: "/api/prices/table", ...asOwner() }),
  ListPriceAudit: async () => ({ path: "/api/prices/audit", ...asOwner() }),
  PutOrganisationPrice: async () => ({
    path: "/api/prices/no-store-model",
    ...asOwner(),
    body: { effectiveFrom: "2026-12-01", input: 1, output: 2 },
  }),
  ListScoreConfigs: async () => ({ path: "/api/sdk/score-configs", credential: key.key }),
  PutScoreConfig: async () => ({
    path: "/api/sdk/score-configs/no-store",
    ...asOwner(),
    body: { dataType: "boolean" },
  }),
  DeleteScoreConfig: async () => {
    const name = `no-store-${randomUUID().slice(0, 8)}`;
    const set = await call(api, "PUT", `/api/sdk/score-configs/${name}`, {
      key: owner.token,
      body: { dataType: "numeric" },
    });
    if (set.status !== 200) throw new Error(`score configuration not set: ${set.text}`);
    return { path: `/api/sdk/score-configs/${name}`, ...asOwner() };
  },
  ListConversations: async () => ({ path: "/api/sdk/conversations", credential: key.key }),
  GetConversation: async () => {
    await createTestSession(api, key.key, { conversationId: "no-store-conversation" });
    return { path: "/api/sdk/conversations/no-store-conversation", credential: key.key };
  },
  ListConversationScores: async () => {
    await createTestSession(api, key.key, { conversationId: "no-store-conversation" });
    return { path: "/api/sdk/conversations/no-store-conversation/scores", credential: key.key };
  },
  DeleteConversationScore: async () => {
    const conversationId = `no-store-${randomUUID().slice(0, 8)}`;
    await createTestSession(api, key.key, { conversationId });
    const scored = await call(api, "POST", "/api/sdk/scores", {
      key: key.key,
      body: { conversationId, name: "n", value: "label" },
    });
    return { path: `/api/sdk/conversations/${conversationId}/scores/${String(scored.body.id)}`, credential: key.key };
  },
  ListMonitors: async () => ({ path: "/api/alerts/monitors", ...asOwner() }),
  CreateMonitor: async () => ({ path: "/api/alerts/monitors", ...asOwner(), body: MONITOR }),
  PreviewMonitor: async () => ({ path: "/api/alerts/monitors/preview", ...asOwner(), body: MONITOR }),
  GetMonitor: async () => ({ path: `/api/alerts/monitors/${await newMonitorId()}`, ...asOwner() }),
  ReplaceMonitor: async () => ({ path: `/api/alerts/monitors/${await newMonitorId()}`, ...asOwner(), body: MONITOR }),
  DeleteMonitor: async () => ({ path: `/api/alerts/monitors/${await newMonitorId()}`, ...asOwner() }),
  ListMonitorHistory: async () => ({ path: `/api/alerts/monitors/${await newMonitorId()}/history`, ...asOwner() }),
  TestMonitor: async () => ({ path: `/api/alerts/monitors/${await newMonitorId()}/test`, ...asOwner() }),
  ListAlertAudit: async () => ({ path: "/api/alerts/audit", ...asOwner() }),
  DeleteOrganisationPrice: async () => {
    const model = `no-store-${randomUUID().slice(0, 8)}`;
    const set = await call(api, "PUT", `/api/prices/${model}`, {
      key: owner.token,
      body: { effectiveFrom: "2026-12-01", input: 1, output: 2 },
    });
    if (set.status !== 200) throw new Error(`price not set: ${set.text}`);
    return { path: `/api/prices/${model}`, ...asOwner() };
  },
  ListAlertDestinations: async () => ({ path: "/api/alerts/destinations", ...asOwner() }),
  CreateAlertDestination: async () => ({
    path: "/api/alerts/destinations",
    ...asOwner(),
    body: { name: "no-store", kind: "eventbridge" },
  }),
  GetAlertDestination: async () => ({ path: `/api/alerts/destinations/${await newDestinationId()}`, ...asOwner() }),
  UpdateAlertDestination: async () => ({
    path: `/api/alerts/destinations/${await newDestinationId()}`,
    ...asOwner(),
    body: { name: "no-store renamed", enabled: true },
  }),
  DeleteAlertDestination: async () => ({
    path: `/api/alerts/destinations/${await newDestinationId()}`,
    ...asOwner(),
  }),
  RotateAlertDestinationSecret: async () => ({
    path: `/api/alerts/destinations/${await newDestinationId("webhook")}/rotate-secret`,
    ...asOwner(),
  }),
  TestAlertDestination: async () => ({
    path: `/api/alerts/destinations/${await newDestinationId()}/test`,
    ...asOwner(),
  }),
};

/** A new destination of the owner's organisation (a webhook to a literal public address: nothing is resolved or sent). */
async function newDestinationId(kind: "webhook" | "eventbridge" = "eventbridge"): Promise<string> {
  const created = await call(api, "POST", "/api/alerts/destinations", {
    key: owner.token,
    body: { name: "no-store", kind, ...(kind === "webhook" && { url: "https://1.1.1.1/no-store" }) },
  });
  if (created.status !== 201) throw new Error(`destination not created: ${created.text}`);
  return String(created.body.id);
}

const protectedRoutes = routes.filter((route) => route.auth.kind !== "public");

describe("Cache-Control: no-store on every answer of a route that takes a credential", () => {
  it("has a request for every such route of the route table, and only the API description and the feedback preflight are public", () => {
    expect(Object.keys(PREPARE).sort()).toEqual(protectedRoutes.map((route) => route.id).sort());
    expect(routes.filter((route) => route.auth.kind === "public").map((route) => route.id)).toEqual([
      "FeedbackPreflight",
      "OpenApiDocument",
    ]);
  });

  it.each(protectedRoutes)("$method $path ($id): its success and its 401 carry no-store", async (route) => {
    const prepare = PREPARE[route.id];
    if (prepare === undefined) throw new Error(`no request for ${route.id}`);
    const attempt = await prepare();
    const body = attempt.body === undefined ? {} : { body: attempt.body };

    const answered = await call(api, route.method, attempt.path, {
      key: attempt.credential,
      ...(attempt.headers === undefined ? {} : { headers: attempt.headers }),
      ...body,
    });
    const refused = await call(api, route.method, attempt.path, body);

    expect(answered.status, answered.text).toBeLessThan(300);
    expect(answered.headers.get("cache-control")).toBe("no-store");
    expect(refused.status).toBe(401);
    expect(refused.headers.get("cache-control")).toBe("no-store");
  });

  it("the public API description may be cached: no no-store", async () => {
    const response = await call(api, "GET", "/api/openapi.json");

    expect(response.status).toBe(200);
    expect(response.headers.get("cache-control")).toBeNull();
  });
});
