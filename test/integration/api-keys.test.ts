/** The key-management API over real HTTP: create, list, rotate, revoke, audit; roles and tenancy. */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { authenticateApiKey } from "../../functions/auth/api-key-authenticator.js";
import { getApiKey, recordKeyUse } from "../../functions/store/keys/api-key-store.js";
import type { LocalApi } from "../../local/http-adapter.js";
import { call, createTestUser, itemsOfOrganisation, startTestApi, type TestUser } from "../support/fixtures.js";

const KEY_PATTERN = /^ats_live_[0-9A-Za-z]{38}$/;
const CACHE_TTL_MS = Number(process.env.KEY_CACHE_TTL_SECONDS) * 1000;
const session = { name: "n", agentName: "a", userId: "u" };

let api: LocalApi;
let owner: TestUser;

beforeAll(async () => {
  api = await startTestApi();
  owner = await createTestUser(api);
});
afterAll(() => api.close());

async function createKey(user: TestUser, body: Record<string, unknown> = { name: "ci" }) {
  const response = await call(api, "POST", "/api/keys", { key: user.token, body });
  expect(response.status).toBe(201);
  return response.body as { id: string; key: string; name: string; scopes: string[] };
}

const waitPastCache = () => new Promise((resolve) => setTimeout(resolve, CACHE_TTL_MS + 100));

describe("POST /api/keys", () => {
  it("creates a key shown once, with default scopes, usable on the SDK routes", async () => {
    const response = await call(api, "POST", "/api/keys", { key: owner.token, body: { name: "production agents" } });

    expect(response.status).toBe(201);
    // The key is shown once: no cache may keep the answer (issue 21).
    expect(response.headers.get("cache-control")).toBe("no-store");
    expect(response.body).toEqual({
      id: expect.stringMatching(/^key_[0-9A-HJKMNP-TV-Z]{26}$/),
      name: "production agents",
      key: expect.stringMatching(KEY_PATTERN),
      hint: String(response.body.key).slice(-4),
      environment: "live",
      scopes: ["sessions:write", "events:write", "scores:write", "read"],
      createdAt: expect.stringMatching(/Z$/),
      createdBy: owner.email,
    });
    const created = await call(api, "POST", "/api/sdk/sessions", { key: String(response.body.key), body: session });
    expect(created.status).toBe(201);
  });

  it("creates test-environment keys (ats_test_…) with chosen scopes", async () => {
    const key = await createKey(owner, { name: "staging", environment: "test", scopes: ["events:write"] });

    expect(key.key).toMatch(/^ats_test_/);
    expect(key.scopes).toEqual(["events:write"]);
    const refused = await call(api, "POST", "/api/sdk/sessions", { key: key.key, body: session });
    expect(refused.status).toBe(403);
    expect(refused.body.message).toContain('lacks the "sessions:write" scope');
  });

  it("rejects invalid bodies with 400 naming each field", async () => {
    const response = await call(api, "POST", "/api/keys", {
      key: owner.token,
      body: { environment: "prod", scopes: ["admin"], secret: "x" },
    });

    expect(response.status).toBe(400);
    expect(response.body.issues).toEqual([
      { path: "name", message: "Required" },
      { path: "environment", message: "Must be one of: live, test" },
      { path: "scopes.0", message: "Must be one of: sessions:write, events:write, scores:write, read, delete" },
      { path: "secret", message: "Unknown field" },
    ]);
  });

  it("is refused to members (403) and writes nothing", async () => {
    const member = await createTestUser(api, { orgId: owner.orgId, role: "member" });
    const before = await itemsOfOrganisation(owner.orgId);

    const response = await call(api, "POST", "/api/keys", { key: member.token, body: { name: "sneaky" } });

    expect(response.status).toBe(403);
    expect(response.body).toEqual({
      error: "Forbidden",
      message: `Your role in organisation ${owner.orgId} is member; this action needs admin or above`,
    });
    expect(await itemsOfOrganisation(owner.orgId)).toEqual(before);
  });

  it("is allowed to admins", async () => {
    const admin = await createTestUser(api, { orgId: owner.orgId, role: "admin" });
    expect((await createKey(admin, { name: "by admin" })).name).toBe("by admin");
  });
});

describe("GET /api/keys", () => {
  it("lists the organisation's keys without secrets, to any member", async () => {
    const user = await createTestUser(api);
    const key = await createKey(user, { name: "listed" });
    const member = await createTestUser(api, { orgId: user.orgId, role: "member" });

    const response = await call(api, "GET", "/api/keys", { key: member.token });

    expect(response.status).toBe(200);
    expect(response.body.items).toEqual([
      {
        id: key.id,
        name: "listed",
        hint: key.key.slice(-4),
        environment: "live",
        scopes: ["sessions:write", "events:write", "scores:write", "read"],
        createdAt: expect.any(String),
        createdBy: user.email,
        lastUsedAt: null,
        expiresAt: null,
        revokedAt: null,
        rotatedFrom: null,
        rotatedTo: null,
        status: "active",
      },
    ]);
    expect(response.text).not.toContain(key.key);
  });

  it("never shows another organisation's keys", async () => {
    const other = await createTestUser(api);
    await createKey(other, { name: "other org" });
    const lonely = await createTestUser(api);

    const response = await call(api, "GET", "/api/keys", { key: lonely.token });

    expect(response.body.items).toEqual([]);
  });
});

describe("POST /api/keys/:id/rotate", () => {
  it("issues a replacement; the old key keeps working for the overlap (default 24 h)", async () => {
    const user = await createTestUser(api);
    const old = await createKey(user, { name: "rotating", scopes: ["sessions:write"] });
    const started = Date.now();

    const response = await call(api, "POST", `/api/keys/${old.id}/rotate`, { key: user.token });

    expect(response.status).toBe(201);
    expect(response.headers.get("cache-control")).toBe("no-store");
    expect(response.body).toMatchObject({ name: "rotating", scopes: ["sessions:write"], environment: "live" });
    expect(response.body.id).not.toBe(old.id);
    const expiresAt = Date.parse(String((response.body.rotatedFrom as { expiresAt: string }).expiresAt));
    expect(expiresAt - started).toBeGreaterThanOrEqual(24 * 3600 * 1000 - 5_000);
    expect(expiresAt - started).toBeLessThanOrEqual(24 * 3600 * 1000 + 5_000);
    for (const key of [old.key, String(response.body.key)]) {
      expect((await call(api, "POST", "/api/sdk/sessions", { key, body: session })).status).toBe(201);
    }
    const listed = await call(api, "GET", "/api/keys", { key: user.token });
    type Listed = { id: string; status: string; rotatedFrom: string | null; rotatedTo: string | null };
    expect((listed.body.items as Listed[]).map((key) => [key.id, key.status, key.rotatedFrom, key.rotatedTo])).toEqual([
      [old.id, "expiring", null, response.body.id],
      [response.body.id, "active", old.id, null],
    ]);
    expect(response.body.rotatedFrom).toMatchObject({ id: old.id, rotatedTo: response.body.id });
  });

  it("with overlapSeconds 0 the old key is refused (401) once the cache bound has passed", async () => {
    const user = await createTestUser(api);
    const old = await createKey(user);
    expect((await call(api, "POST", "/api/sdk/sessions", { key: old.key, body: session })).status).toBe(201);

    const response = await call(api, "POST", `/api/keys/${old.id}/rotate`, {
      key: user.token,
      body: { overlapSeconds: 0 },
    });
    await waitPastCache();

    expect(response.status).toBe(201);
    expect((await call(api, "POST", "/api/sdk/sessions", { key: old.key, body: session })).status).toBe(401);
    expect(
      (await call(api, "POST", "/api/sdk/sessions", { key: String(response.body.key), body: session })).status,
    ).toBe(201);
  });

  it("rejects an overlap above 7 days, and a second rotation of the same key (409)", async () => {
    const user = await createTestUser(api);
    const old = await createKey(user);

    const tooLong = await call(api, "POST", `/api/keys/${old.id}/rotate`, {
      key: user.token,
      body: { overlapSeconds: 7 * 24 * 3600 + 1 },
    });
    const first = await call(api, "POST", `/api/keys/${old.id}/rotate`, { key: user.token, body: {} });
    const second = await call(api, "POST", `/api/keys/${old.id}/rotate`, { key: user.token, body: {} });

    expect(tooLong.status).toBe(400);
    expect(tooLong.body.issues).toEqual([{ path: "overlapSeconds", message: "Must be an integer from 0 to 604800" }]);
    expect(first.status).toBe(201);
    expect(second.status).toBe(409);
    expect(second.body.message).toBe(
      `API key ${old.id} was already rotated to ${first.body.id}; rotate that key instead`,
    );
  });
});

describe("DELETE /api/keys/:id", () => {
  it("revokes (204): refused with 401 after at most the cache bound; repeating is 204", async () => {
    const user = await createTestUser(api);
    const key = await createKey(user);
    expect((await call(api, "POST", "/api/sdk/sessions", { key: key.key, body: session })).status).toBe(201);

    const response = await call(api, "DELETE", `/api/keys/${key.id}`, { key: user.token });
    await waitPastCache();
    const refused = await call(api, "POST", "/api/sdk/sessions", { key: key.key, body: session });
    const again = await call(api, "DELETE", `/api/keys/${key.id}`, { key: user.token });

    expect(response.status).toBe(204);
    expect(response.text).toBe("");
    expect(refused.status).toBe(401);
    expect(again.status).toBe(204);
    const listed = await call(api, "GET", "/api/keys", { key: user.token });
    expect((listed.body.items as { status: string; revokedAt: string }[])[0]).toMatchObject({
      status: "revoked",
      revokedAt: expect.stringMatching(/Z$/),
    });
  });

  it("a warm container honours a revocation no later than KEY_CACHE_TTL_SECONDS", async () => {
    // Prepare: a key authenticated (and cached) at t0, then revoked.
    const user = await createTestUser(api);
    const key = await createKey(user);
    const header = `Bearer ${key.key}`;
    const t0 = Date.now();
    await authenticateApiKey(header, t0);
    await call(api, "DELETE", `/api/keys/${key.id}`, { key: user.token });

    // Act + Assess: within the bound the cached lookup may still accept it; at the bound it is refused.
    await expect(authenticateApiKey(header, t0 + CACHE_TTL_MS - 1)).resolves.toMatchObject({ keyId: key.id });
    await expect(authenticateApiKey(header, t0 + CACHE_TTL_MS)).rejects.toThrow("Invalid API key");
  });

  it("answers 404 for another organisation's key and leaves it working", async () => {
    const victim = await createTestUser(api);
    const key = await createKey(victim);
    const attacker = await createTestUser(api);

    for (const [method, path] of [
      ["DELETE", `/api/keys/${key.id}`],
      ["POST", `/api/keys/${key.id}/rotate`],
      ["GET", `/api/keys/${key.id}/audit`],
    ] as const) {
      const response = await call(api, method, path, { key: attacker.token });
      expect(response.status).toBe(404);
      expect(response.body).toEqual({ error: "Not Found", message: `API key ${key.id} not found` });
    }
    await waitPastCache();
    expect((await call(api, "POST", "/api/sdk/sessions", { key: key.key, body: session })).status).toBe(201);
  });
});

describe("GET /api/keys/:id/audit", () => {
  it("records who created, rotated and revoked a key, and when", async () => {
    const user = await createTestUser(api);
    const key = await createKey(user);
    const rotated = await call(api, "POST", `/api/keys/${key.id}/rotate`, {
      key: user.token,
      body: { overlapSeconds: 60 },
    });
    await call(api, "DELETE", `/api/keys/${key.id}`, { key: user.token });

    const response = await call(api, "GET", `/api/keys/${key.id}/audit`, { key: user.token });

    expect(response.status).toBe(200);
    expect(response.body.items).toEqual([
      {
        id: expect.stringMatching(/^aud_/),
        keyId: key.id,
        action: "key.created",
        actor: user.email,
        actorId: user.userId,
        at: expect.any(String),
        details: { environment: "live", scopes: "sessions:write events:write scores:write read" },
      },
      {
        id: expect.stringMatching(/^aud_/),
        keyId: key.id,
        action: "key.rotated",
        actor: user.email,
        actorId: user.userId,
        at: expect.any(String),
        details: { replacedBy: rotated.body.id, expiresAt: expect.any(String), overlapSeconds: 60 },
      },
      {
        id: expect.stringMatching(/^aud_/),
        keyId: key.id,
        action: "key.revoked",
        actor: user.email,
        actorId: user.userId,
        at: expect.any(String),
        details: {},
      },
    ]);
  });
});

describe("lastUsedAt", () => {
  it("is stamped on use, and written at most once a minute per key", async () => {
    const user = await createTestUser(api);
    const key = await createKey(user);
    const lastUsed = async () => {
      const listed = await call(api, "GET", "/api/keys", { key: user.token });
      return (listed.body.items as { lastUsedAt: string | null }[])[0]?.lastUsedAt;
    };
    expect(await lastUsed()).toBeNull();

    await call(api, "POST", "/api/sdk/sessions", { key: key.key, body: session });
    const first = await lastUsed();
    await waitPastCache();
    await call(api, "POST", "/api/sdk/sessions", { key: key.key, body: session });
    const second = await lastUsed();

    expect(first).toMatch(/Z$/);
    expect(second).toBe(first);
  });

  it("across containers: a second stamp within a minute writes nothing, after a minute it moves", async () => {
    const user = await createTestUser(api);
    const key = await createKey(user);
    const t0 = Date.parse("2026-11-22T10:00:00.000Z");

    await recordKeyUse(user.orgId, key.id, t0);
    await recordKeyUse(user.orgId, key.id, t0 + 59_000);
    const withinMinute = (await getApiKey(user.orgId, key.id)).lastUsedAt;
    await recordKeyUse(user.orgId, key.id, t0 + 61_000);
    const afterMinute = (await getApiKey(user.orgId, key.id)).lastUsedAt;

    expect(withinMinute).toBe("2026-11-22T10:00:00.000Z");
    expect(afterMinute).toBe("2026-11-22T10:01:01.000Z");
  });
});
