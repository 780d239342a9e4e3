/**
 * What the web console needs from the API (issue 13): the read routes with a
 * signed-in user's access token + X-Organization-Id + X-Environment (roles,
 * tenancy, cursors; rate limits in console-rate-budget.test.ts), GET /api/me, and the members
 * routes (roles, last owner, duplicates, audit items).
 */
import { randomUUID } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { QueryCommand } from "@aws-sdk/lib-dynamodb";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { putMembership } from "../../functions/store/members/membership-store.js";
import { ensureOrganisation } from "../../functions/store/members/organisation-store.js";
import { documentClient, tableName } from "../../functions/store/table/dynamo-client.js";
import { membershipKey, organisationKey, userMembershipKey } from "../../functions/store/table/keys.js";
import type { LocalApi } from "../../local/http-adapter.js";
import {
  call,
  createTestKey,
  createTestSession,
  createTestUser,
  identity,
  identityDirectory,
  startTestApi,
  type TestKey,
  type TestUser,
  uniqueOrgId,
} from "../support/fixtures.js";

let api: LocalApi;

beforeAll(async () => {
  api = await startTestApi();
});
afterAll(() => api.close());

/** A user's request for a tenant, as the console sends it. */
function asUser(user: { token: string }, orgId: string | undefined, environment?: string) {
  return {
    key: user.token,
    headers: {
      ...(orgId === undefined ? {} : { "x-organization-id": orgId }),
      ...(environment === undefined ? {} : { "x-environment": environment }),
    },
  };
}

async function itemsOf(partition: string, prefix: string): Promise<Record<string, unknown>[]> {
  const result = await documentClient.send(
    new QueryCommand({
      TableName: tableName,
      KeyConditionExpression: "PK = :pk AND begins_with(SK, :prefix)",
      ExpressionAttributeValues: { ":pk": partition, ":prefix": prefix },
      ConsistentRead: true,
    }),
  );
  return result.Items ?? [];
}

describe("read routes with a user's access token", () => {
  let orgKey: TestKey;
  let testEnvKey: TestKey;
  let owner: TestUser;
  let admin: TestUser;
  let member: TestUser;
  let otherOrgOwner: TestUser;
  let otherOrgKey: TestKey;
  let sessionId: string;
  let testSessionId: string;
  const agentName = `console-agent-${randomUUID().slice(0, 8)}`;

  beforeAll(async () => {
    orgKey = await createTestKey({ scopes: ["sessions:write", "events:write", "read", "delete"] });
    testEnvKey = await createTestKey({ orgId: orgKey.orgId, environment: "test" });
    owner = await createTestUser(api, { orgId: orgKey.orgId, role: "owner" });
    admin = await createTestUser(api, { orgId: orgKey.orgId, role: "admin" });
    member = await createTestUser(api, { orgId: orgKey.orgId, role: "member" });
    otherOrgKey = await createTestKey();
    otherOrgOwner = await createTestUser(api, { orgId: otherOrgKey.orgId, role: "owner" });
    sessionId = await createTestSession(api, orgKey.key, { agentName, userId: "console-user" });
    await createTestSession(api, orgKey.key, { agentName, userId: "console-user" });
    await call(api, "POST", "/api/sdk/events", { key: orgKey.key, body: { sessionId, eventType: "state_change" } });
    testSessionId = await createTestSession(api, testEnvKey.key, { agentName, userId: "console-user" });
  });

  const readPaths = () => [
    `/api/sdk/sessions?agentName=${agentName}`,
    `/api/sdk/sessions/${sessionId}`,
    `/api/sdk/sessions/${sessionId}/events`,
    "/api/sdk/agents",
    `/api/sdk/agents/${agentName}/stats`,
    "/api/sdk/users/console-user/stats",
  ];

  it("lets a member, an admin and an owner read every read route, with their console budget's RateLimit headers", async () => {
    for (const user of [member, admin, owner]) {
      for (const path of readPaths()) {
        const response = await call(api, "GET", path, asUser(user, orgKey.orgId));
        expect(response.status, `${user.role} GET ${path}: ${response.text}`).toBe(200);
        expect(response.headers.get("ratelimit-limit")).toBe("600");
        expect(response.headers.get("ratelimit-remaining")).toMatch(/^\d+$/);
      }
    }
  });

  it("answers exactly what the organisation's API key answers", async () => {
    for (const path of readPaths()) {
      const byKey = await call(api, "GET", path, { key: orgKey.key });
      const byUser = await call(api, "GET", path, asUser(member, orgKey.orgId, "live"));
      expect(byUser.body, path).toEqual(byKey.body);
    }
  });

  it("reads the test environment with X-Environment: test, and only it", async () => {
    const list = await call(
      api,
      "GET",
      `/api/sdk/sessions?agentName=${agentName}`,
      asUser(member, orgKey.orgId, "test"),
    );
    expect(list.status).toBe(200);
    expect((list.body.items as { id: string }[]).map((item) => item.id)).toEqual([testSessionId]);
    expect((await call(api, "GET", `/api/sdk/sessions/${testSessionId}`, asUser(member, orgKey.orgId))).status).toBe(
      403,
    );
    const liveFromTest = await call(api, "GET", `/api/sdk/sessions/${sessionId}`, asUser(member, orgKey.orgId, "test"));
    expect(liveFromTest.status).toBe(403);
    // A signed-in user holds no API key: the message says what is wrong in their terms (issue 21).
    expect(liveFromTest.body.message).toBe(
      `Session ${sessionId} is not in organisation ${orgKey.orgId}'s test environment`,
    );
  });

  it("refuses a wrong X-Environment (400), a missing X-Organization-Id (400), an expired token (401), no credential (401)", async () => {
    const path = `/api/sdk/sessions/${sessionId}`;
    const wrongEnvironment = await call(api, "GET", path, asUser(member, orgKey.orgId, "prod"));
    expect(wrongEnvironment.status).toBe(400);
    expect(wrongEnvironment.body).toMatchObject({
      message: "Invalid X-Environment header: must be live or test",
      issues: [{ path: "X-Environment", message: "Must be live or test" }],
    });

    const noOrganisation = await call(api, "GET", path, asUser(member, undefined));
    expect(noOrganisation.status).toBe(400);
    expect(noOrganisation.body).toMatchObject({
      message: "Missing X-Organization-Id header: name the organisation whose data you read",
      issues: [{ path: "X-Organization-Id", message: "Required with an access token" }],
    });

    const expired = identity.issueAccessToken({ userId: member.userId, email: member.email }, api.url, -60);
    const expiredResponse = await call(api, "GET", path, asUser({ token: expired }, orgKey.orgId));
    expect(expiredResponse.status).toBe(401);
    expect(expiredResponse.body.message).toBe(
      "Invalid access token: the token is malformed, expired or not issued for this service",
    );
    expect(expiredResponse.headers.get("ratelimit-limit")).toBeNull();

    const none = await call(api, "GET", path);
    expect(none.status).toBe(401);
    expect(none.body.message).toBe(
      "Missing credential: send Authorization: Bearer <API key>, or Bearer <access token> with X-Organization-Id",
    );
  });

  it("refuses a user of another organisation, or of none, naming this organisation (403), on every read route", async () => {
    const nobody = identity.ensureUser(`nobody-${randomUUID().slice(0, 8)}@example.com`);
    const strangers = [otherOrgOwner, { token: identity.issueAccessToken(nobody, api.url) }];
    for (const stranger of strangers) {
      for (const path of readPaths()) {
        const response = await call(api, "GET", path, asUser(stranger, orgKey.orgId));
        expect(response.status, path).toBe(403);
        expect(response.body.message).toBe(`You have no access to organisation ${orgKey.orgId}`);
      }
      const deletion = await call(api, "DELETE", `/api/sdk/sessions/${sessionId}`, asUser(stranger, orgKey.orgId));
      expect(deletion.status).toBe(403);
    }
  });

  it("keeps a user of organisation B out of A's session by id (403 as for B's key), and its events", async () => {
    for (const path of [`/api/sdk/sessions/${sessionId}`, `/api/sdk/sessions/${sessionId}/events`]) {
      const byUser = await call(api, "GET", path, asUser(otherOrgOwner, otherOrgKey.orgId));
      const byKey = await call(api, "GET", path, { key: otherOrgKey.key });
      expect(byUser.status, path).toBe(403);
      expect(byUser.status).toBe(byKey.status);
      expect(byKey.body.message).toBe(`This API key has no access to session ${sessionId}`);
      expect(byUser.body.message).toBe(
        `Session ${sessionId} is not in organisation ${otherOrgKey.orgId}'s live environment`,
      );
    }
    const deletion = await call(
      api,
      "DELETE",
      `/api/sdk/sessions/${sessionId}`,
      asUser(otherOrgOwner, otherOrgKey.orgId),
    );
    expect(deletion.status).toBe(403);
    const unknown = await call(api, "GET", `/api/sdk/sessions/ses_${"0".repeat(26)}`, asUser(member, orgKey.orgId));
    expect(unknown.status).toBe(404);
  });

  it("refuses a cursor of organisation A replayed by a user of organisation B (400), and B's page holds none of A's", async () => {
    await createTestSession(api, otherOrgKey.key, { agentName });
    const first = await call(
      api,
      "GET",
      `/api/sdk/sessions?agentName=${agentName}&limit=1`,
      asUser(owner, orgKey.orgId),
    );
    expect(first.status).toBe(200);
    const cursor = String(first.body.nextCursor);
    expect(first.body.nextCursor).toEqual(expect.any(String));

    const replayed = await call(
      api,
      "GET",
      `/api/sdk/sessions?agentName=${agentName}&limit=1&cursor=${encodeURIComponent(cursor)}`,
      asUser(otherOrgOwner, otherOrgKey.orgId),
    );
    expect(replayed.status).toBe(400);
    expect(replayed.body).toMatchObject({ issues: [{ path: "cursor", message: "Invalid cursor" }] });
    // The same cursor in A's test environment is foreign too; in A's live environment it pages on.
    const otherEnvironment = await call(
      api,
      "GET",
      `/api/sdk/sessions?agentName=${agentName}&limit=1&cursor=${encodeURIComponent(cursor)}`,
      asUser(owner, orgKey.orgId, "test"),
    );
    expect(otherEnvironment.status).toBe(400);
    const next = await call(
      api,
      "GET",
      `/api/sdk/sessions?agentName=${agentName}&limit=1&cursor=${encodeURIComponent(cursor)}`,
      asUser(member, orgKey.orgId),
    );
    expect(next.status).toBe(200);
  });

  it("deletes a session for an admin or owner (204), never for a member (403)", async () => {
    const first = await createTestSession(api, orgKey.key, { agentName: "console-deleted" });
    const second = await createTestSession(api, orgKey.key, { agentName: "console-deleted" });

    const byMember = await call(api, "DELETE", `/api/sdk/sessions/${first}`, asUser(member, orgKey.orgId));
    expect(byMember.status).toBe(403);
    expect(byMember.body.message).toBe(
      `Your role in organisation ${orgKey.orgId} is member; this action needs admin or above`,
    );
    expect((await call(api, "GET", `/api/sdk/sessions/${first}`, { key: orgKey.key })).status).toBe(200);

    expect((await call(api, "DELETE", `/api/sdk/sessions/${first}`, asUser(admin, orgKey.orgId))).status).toBe(204);
    expect((await call(api, "DELETE", `/api/sdk/sessions/${second}`, asUser(owner, orgKey.orgId))).status).toBe(204);
    expect((await call(api, "GET", `/api/sdk/sessions/${second}`, { key: orgKey.key })).status).toBe(404);
  });
});

describe("GET /api/me", () => {
  it("answers the user and their organisations, sorted, with no organisation header", async () => {
    const first = await createTestUser(api, { role: "owner" });
    const secondOrg = `a-${uniqueOrgId()}`;
    await ensureOrganisation(secondOrg);
    await putMembership({ orgId: secondOrg, userId: first.userId, email: first.email, role: "member" });

    const response = await call(api, "GET", "/api/me", { key: first.token });

    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      userId: first.userId,
      email: first.email,
      organisations: [
        { orgId: secondOrg, role: "member" },
        { orgId: first.orgId, role: "owner" },
      ],
      invitations: [],
    });
  });

  it("answers an empty list for a user of no organisation, and 401 without a token or with an API key", async () => {
    const nobody = identity.ensureUser(`me-${randomUUID().slice(0, 8)}@example.com`);
    const token = identity.issueAccessToken(nobody, api.url);
    const key = await createTestKey();

    const response = await call(api, "GET", "/api/me", { key: token });

    expect(response.status).toBe(200);
    expect(response.body).toEqual({ userId: nobody.userId, email: nobody.email, organisations: [], invitations: [] });
    expect((await call(api, "GET", "/api/me")).status).toBe(401);
    const withKey = await call(api, "GET", "/api/me", { key: key.key });
    expect(withKey.status).toBe(401);
    expect(withKey.body.message).toBe("API keys are not accepted here: sign in and send your access token");
  });
});

describe("members", () => {
  let owner: TestUser;

  beforeAll(async () => {
    owner = await createTestUser(api, { role: "owner" });
  });

  const asOwner = (extra: Record<string, unknown> = {}) => ({ ...asUser(owner, owner.orgId), ...extra });

  it("lists the members with userId, email, role and createdAt", async () => {
    const orgOwner = await createTestUser(api, { role: "owner" });
    const member = await createTestUser(api, { orgId: orgOwner.orgId, role: "member" });

    const listed = await call(api, "GET", "/api/members", asUser(orgOwner, orgOwner.orgId));

    expect(listed.status).toBe(200);
    expect(listed.body.items).toEqual(
      expect.arrayContaining([
        { userId: orgOwner.userId, email: orgOwner.email, role: "owner", createdAt: expect.any(String) },
        { userId: member.userId, email: member.email, role: "member", createdAt: expect.any(String) },
      ]),
    );
    expect(listed.body.items).toHaveLength(2);
  });

  it("changes a role (200, both membership items), and removes a member (204, then 404), keeping their user", async () => {
    const added = await createTestUser(api, { orgId: owner.orgId, role: "member" });
    const userId = added.userId;

    const changed = await call(api, "PATCH", `/api/members/${userId}`, asOwner({ body: { role: "admin" } }));
    expect(changed.status).toBe(200);
    expect(changed.body).toEqual({ userId, email: added.email, role: "admin", createdAt: expect.any(String) });
    const userSide = await itemsOf(
      userMembershipKey(userId, owner.orgId).PK,
      userMembershipKey(userId, owner.orgId).SK,
    );
    expect(userSide).toEqual([expect.objectContaining({ role: "admin" })]);
    const same = await call(api, "PATCH", `/api/members/${userId}`, asOwner({ body: { role: "admin" } }));
    expect(same.status).toBe(200);

    const removed = await call(api, "DELETE", `/api/members/${userId}`, asOwner());
    expect(removed.status).toBe(204);
    expect(await itemsOf(membershipKey(owner.orgId, userId).PK, membershipKey(owner.orgId, userId).SK)).toEqual([]);
    expect(await itemsOf(userMembershipKey(userId, owner.orgId).PK, "ORG#")).toEqual([]);
    const again = await call(api, "DELETE", `/api/members/${userId}`, asOwner());
    expect(again.status).toBe(404);
    expect(again.body.message).toBe(`User ${userId} is not a member of organisation ${owner.orgId}`);
    expect((await call(api, "PATCH", `/api/members/${userId}`, asOwner({ body: { role: "owner" } }))).status).toBe(404);
    const users = JSON.parse(readFileSync(join(identityDirectory, "users.json"), "utf8")) as { email: string }[];
    expect(users.some((user) => user.email === added.email)).toBe(true);
  });

  it("never demotes or removes the last owner (409); with a second owner, the first may go", async () => {
    const soleOwner = await createTestUser(api, { role: "owner" });
    const as = (extra: Record<string, unknown> = {}) => ({ ...asUser(soleOwner, soleOwner.orgId), ...extra });
    const message = `This is the last owner of organisation ${soleOwner.orgId}: make another member owner first (an organisation always keeps an owner)`;

    const demoted = await call(api, "PATCH", `/api/members/${soleOwner.userId}`, as({ body: { role: "admin" } }));
    const removed = await call(api, "DELETE", `/api/members/${soleOwner.userId}`, as());
    expect(demoted.status).toBe(409);
    expect(demoted.body.message).toBe(message);
    expect(removed.status).toBe(409);
    expect(removed.body.message).toBe(message);

    const secondOwner = await createTestUser(api, { orgId: soleOwner.orgId, role: "owner" });
    expect((await call(api, "PATCH", `/api/members/${soleOwner.userId}`, as({ body: { role: "admin" } }))).status).toBe(
      200,
    );
    const lastOne = await call(
      api,
      "DELETE",
      `/api/members/${secondOwner.userId}`,
      asUser(secondOwner, soleOwner.orgId),
    );
    expect(lastOne.status).toBe(409);
    expect(lastOne.body.message).toBe(message);
  });

  it("writes an audit item per change in the organisation's partition, in the same transaction", async () => {
    const orgOwner = await createTestUser(api, { role: "owner" });
    const as = (extra: Record<string, unknown> = {}) => ({ ...asUser(orgOwner, orgOwner.orgId), ...extra });
    const member = await createTestUser(api, { orgId: orgOwner.orgId, role: "member" });
    const userId = member.userId;
    await call(api, "PATCH", `/api/members/${userId}`, as({ body: { role: "admin" } }));
    await call(api, "DELETE", `/api/members/${userId}`, as());
    // Refused changes write nothing.
    await call(api, "DELETE", `/api/members/${orgOwner.userId}`, as());
    await call(api, "PATCH", `/api/members/${orgOwner.userId}`, as({ body: { role: "member" } }));

    const audit = await itemsOf(organisationKey(orgOwner.orgId).PK, "AUDIT#MEMBER#");

    const actor = { actor: orgOwner.email, actorId: orgOwner.userId, orgId: orgOwner.orgId, entity: "memberAudit" };
    expect(audit).toEqual([
      expect.objectContaining({
        ...actor,
        userId,
        action: "member.role_changed",
        details: { from: "member", to: "admin" },
      }),
      expect.objectContaining({
        ...actor,
        userId,
        action: "member.removed",
        details: { email: member.email, role: "admin" },
      }),
    ]);
    for (const item of audit) expect(item.id).toMatch(/^aud_/);
  });

  it("refuses invalid bodies with 400 naming each field", async () => {
    const missing = await call(api, "PATCH", `/api/members/${owner.userId}`, asOwner({ body: {} }));
    expect(missing.status).toBe(400);
    expect(missing.body).toMatchObject({
      message: "Invalid request body: role",
      issues: [{ path: "role", message: "Required" }],
    });
    const wrongRole = await call(api, "PATCH", `/api/members/${owner.userId}`, asOwner({ body: { role: "boss" } }));
    expect(wrongRole.status).toBe(400);
    expect(wrongRole.body.issues).toEqual([{ path: "role", message: "Must be one of: member, admin, owner" }]);
  });

  describe("roles × routes", () => {
    const email = () => `member-${randomUUID().slice(0, 8)}@example.com`;
    const routesUnderTest = [
      { method: "GET", path: () => "/api/members", body: undefined },
      { method: "PATCH", path: (id: string) => `/api/members/${id}`, body: () => ({ role: "member" }) },
      { method: "DELETE", path: (id: string) => `/api/members/${id}`, body: undefined },
      { method: "GET", path: () => "/api/invitations", body: undefined },
      { method: "POST", path: () => "/api/invitations", body: () => ({ email: email(), role: "member" }) },
    ] as const;
    const expected: Record<string, readonly number[]> = {
      member: [200, 403, 403, 403, 403],
      admin: [200, 403, 403, 403, 403],
      owner: [200, 200, 204, 200, 201],
      "non-member": [403, 403, 403, 403, 403],
    };

    it.each(Object.keys(expected))("as %s", async (who) => {
      const org = await createTestUser(api, { role: "owner" });
      const caller =
        who === "owner"
          ? org
          : who === "non-member"
            ? await createTestUser(api, { role: "owner" })
            : await createTestUser(api, { orgId: org.orgId, role: who as "member" | "admin" });
      const statuses: number[] = [];
      for (const route of routesUnderTest) {
        const target = await createTestUser(api, { orgId: org.orgId, role: "member" });
        const response = await call(api, route.method, route.path(target.userId), {
          ...asUser(caller, org.orgId),
          ...(route.body === undefined ? {} : { body: route.body() }),
        });
        statuses.push(response.status);
      }
      expect(statuses).toEqual(expected[who]);
    });
  });

  it("answers 401 for an API key or no credential", async () => {
    const key = await createTestKey({ orgId: owner.orgId });
    for (const credential of [{ key: key.key }, {}]) {
      expect((await call(api, "GET", "/api/members", credential)).status).toBe(401);
      expect(
        (
          await call(api, "POST", "/api/invitations", {
            ...credential,
            body: { email: `x-${randomUUID().slice(0, 8)}@example.com`, role: "member" },
          })
        ).status,
      ).toBe(401);
    }
    expect(existsSync(identityDirectory)).toBe(true);
  });
});
