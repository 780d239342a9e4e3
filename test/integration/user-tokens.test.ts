/** Signed-in users on the key-management routes: access-token verification and organisation choice. */
import { generateKeyPairSync, randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { LocalApi } from "../../local/http-adapter.js";
import { encodeJwt, LOCAL_CLIENT_ID } from "../../local/local-identity.js";
import {
  call,
  createTestKey,
  createTestUser,
  identity,
  itemsOfOrganisation,
  startTestApi,
  type TestUser,
} from "../support/fixtures.js";

const INVALID_TOKEN = {
  error: "Unauthorized",
  message: "Invalid access token: the token is malformed, expired or not issued for this service",
};

let api: LocalApi;
let owner: TestUser;

beforeAll(async () => {
  api = await startTestApi();
  owner = await createTestUser(api);
});
afterAll(() => api.close());

function claims(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  const now = Math.floor(Date.now() / 1000);
  return {
    iss: api.url,
    sub: owner.userId,
    username: owner.email,
    client_id: LOCAL_CLIENT_ID,
    token_use: "access",
    iat: now,
    exp: now + 300,
    jti: randomUUID(),
    ...overrides,
  };
}

const header = () => ({ alg: "RS256", typ: "JWT", kid: identity.kid });

describe("access tokens on the key-management routes", () => {
  it("accepts a valid token from the issuer", async () => {
    const token = encodeJwt(header(), claims(), identity.privateKey);
    const response = await call(api, "GET", "/api/keys", { key: token });
    expect(response.status).toBe(200);
  });

  it.each([
    ["a wrong issuer", () => encodeJwt(header(), claims({ iss: "https://evil.example.com" }), identity.privateKey)],
    ["another app client", () => encodeJwt(header(), claims({ client_id: "someone-else" }), identity.privateKey)],
    [
      "an ID token instead of an access token",
      () => encodeJwt(header(), claims({ token_use: "id" }), identity.privateKey),
    ],
    [
      "an expired token",
      () => encodeJwt(header(), claims({ iat: 1_700_000_000, exp: 1_700_000_600 }), identity.privateKey),
    ],
    ["alg: none", () => encodeJwt({ alg: "none", typ: "JWT", kid: identity.kid }, claims())],
    [
      "a tampered payload",
      () => {
        const [head, , signature] = encodeJwt(header(), claims(), identity.privateKey).split(".");
        const forged = Buffer.from(JSON.stringify(claims({ sub: "someone-else" }))).toString("base64url");
        return `${head}.${forged}.${signature}`;
      },
    ],
    [
      "an unknown kid (signed by another key)",
      () => {
        const { privateKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
        return encodeJwt({ alg: "RS256", typ: "JWT", kid: randomUUID() }, claims(), privateKey);
      },
    ],
    [
      "the issuer's kid but another key's signature",
      () => {
        const { privateKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
        return encodeJwt(header(), claims(), privateKey);
      },
    ],
    ["garbage", () => "not.a.jwt"],
    [
      "a signed token without exp (it would never expire; issue 11)",
      () => {
        const { exp, ...withoutExpiry } = claims();
        return encodeJwt(header(), withoutExpiry, identity.privateKey);
      },
    ],
  ])("refuses %s with 401", async (_label, token) => {
    const response = await call(api, "POST", "/api/keys", { key: token(), body: { name: "x" } });
    expect(response.status).toBe(401);
    expect(response.body).toEqual(INVALID_TOKEN);
  });

  it("refuses a missing token with 401", async () => {
    const response = await call(api, "GET", "/api/keys");
    expect(response.status).toBe(401);
    expect(response.body).toEqual({
      error: "Unauthorized",
      message: "Missing access token: sign in and send Authorization: Bearer <access token>",
    });
  });

  it("refuses an API key on a key-management route with 401", async () => {
    const { key } = await createTestKey({ orgId: owner.orgId });
    const response = await call(api, "GET", "/api/keys", { key });
    expect(response.status).toBe(401);
    expect(response.body).toEqual({
      error: "Unauthorized",
      message: "API keys are not accepted here: sign in and send your access token",
    });
  });

  it("refuses an access token on an SDK route with 401", async () => {
    const response = await call(api, "POST", "/api/sdk/sessions", {
      key: owner.token,
      body: { name: "n", agentName: "a", userId: "u" },
    });
    expect(response.status).toBe(401);
    expect(response.body.message).toBe("Invalid API key: the key is malformed, unknown, expired or revoked");
  });
});

describe("the organisation a user acts for", () => {
  it("is 403 for a signed-in user without any membership", async () => {
    const stranger = identity.ensureUser(`${randomUUID()}@example.com`);
    const token = identity.issueAccessToken(stranger, api.url);

    const response = await call(api, "GET", "/api/keys", { key: token });

    expect(response.status).toBe(403);
    expect(response.body).toEqual({ error: "Forbidden", message: "You are not a member of any organisation" });
  });

  it("must be chosen with X-Organization-Id when the user belongs to several", async () => {
    const user = await createTestUser(api);
    const second = await createTestUser(api);
    const both = await createTestUser(api, { orgId: second.orgId, role: "member" });
    // Make `user` a member of the second organisation too.
    const { putMembership } = await import("../../functions/store/members/membership-store.js");
    await putMembership({ orgId: second.orgId, userId: user.userId, email: user.email, role: "member" });
    expect(both.orgId).toBe(second.orgId);

    const ambiguous = await call(api, "GET", "/api/keys", { key: user.token });
    const chosen = await call(api, "POST", "/api/keys", {
      key: user.token,
      body: { name: "in first org" },
      headers: { "x-organization-id": user.orgId },
    });
    const asMember = await call(api, "POST", "/api/keys", {
      key: user.token,
      body: { name: "in second org" },
      headers: { "x-organization-id": second.orgId },
    });
    const foreign = await call(api, "GET", "/api/keys", {
      key: user.token,
      headers: { "x-organization-id": owner.orgId },
    });

    expect(ambiguous.status).toBe(400);
    expect(ambiguous.body.issues).toEqual([
      { path: "X-Organization-Id", message: "Required when you belong to several organisations" },
    ]);
    expect(chosen.status).toBe(201);
    expect(asMember.status).toBe(403);
    expect(foreign.status).toBe(403);
    expect(foreign.body.message).toBe(`You have no access to organisation ${owner.orgId}`);
    expect((await itemsOfOrganisation(second.orgId)).filter((item) => item.entity === "apiKey")).toHaveLength(0);
  });
});
