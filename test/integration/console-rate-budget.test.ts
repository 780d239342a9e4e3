/**
 * Issue 21, finding 3: console users shared the organisation's rate budget with its API keys, so 30 reads
 * by a read-only `member` produced 429 on the next SDK write. A signed-in user's console requests now spend
 * a budget of their own per organisation (CONSOLE_RATE_LIMIT_PER_MINUTE), never the one the keys write with.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";

// The service modules read their limits once, at import (a cold start): a small console budget for this file.
vi.hoisted(() => {
  process.env.CONSOLE_RATE_LIMIT_PER_MINUTE = "5";
});

import { ensureOrganisation, updateOrganisationSettings } from "../../functions/store/members/organisation-store.js";
import type { LocalApi } from "../../local/http-adapter.js";
import {
  call,
  createTestKey,
  createTestSession,
  createTestUser,
  startTestApi,
  uniqueOrgId,
} from "../support/fixtures.js";

let api: LocalApi;

beforeAll(async () => {
  api = await startTestApi();
});
afterAll(() => api.close());

const asUser = (user: { token: string }, orgId: string) => ({
  key: user.token,
  headers: { "x-organization-id": orgId },
});

/** Waits for a fresh one-minute window when this one is nearly over: the requests of a test must share one. */
async function intoFreshWindow(): Promise<void> {
  const intoWindow = Date.now() % 60_000;
  if (intoWindow > 54_000) await new Promise((resolve) => setTimeout(resolve, 60_500 - intoWindow));
}

describe("the console's rate budget", () => {
  it("is each user's own: a member who spends theirs is refused, and the keys still write their whole budget", async () => {
    const orgId = uniqueOrgId();
    await ensureOrganisation(orgId);
    await updateOrganisationSettings(orgId, { rateLimitPerMinute: 4 });
    const key = await createTestKey({ orgId });
    const member = await createTestUser(api, { orgId, role: "member" });
    const colleague = await createTestUser(api, { orgId, role: "member" });
    await intoFreshWindow();

    const reads: number[] = [];
    for (let index = 0; index < 5; index += 1) {
      reads.push((await call(api, "GET", "/api/sdk/agents", asUser(member, orgId))).status);
    }
    const refused = await call(api, "GET", "/api/sdk/agents", asUser(member, orgId));
    const colleagueRead = await call(api, "GET", "/api/sdk/agents", asUser(colleague, orgId));
    const sessionId = await createTestSession(api, key.key);
    const writes: number[] = [];
    for (let index = 0; index < 3; index += 1) {
      const written = await call(api, "POST", "/api/sdk/events", {
        key: key.key,
        body: { sessionId, eventType: "tool_call", toolName: `step-${index}` },
      });
      writes.push(written.status);
    }
    const keyOverBudget = await call(api, "GET", "/api/sdk/agents", { key: key.key });

    expect(reads).toEqual([200, 200, 200, 200, 200]);
    expect(refused.status).toBe(429);
    expect(refused.body.message).toMatch(
      /^Rate limit of 5 requests per minute for your console requests in this organisation reached; retry in \d+ s$/,
    );
    expect(refused.headers.get("ratelimit-limit")).toBe("5");
    expect(refused.headers.get("retry-after")).toMatch(/^\d+$/);
    expect(colleagueRead.status).toBe(200);
    expect(colleagueRead.headers.get("ratelimit-remaining")).toBe("4");
    // The keys' own budget of 4 (1 session start + 3 events) was all theirs; the fifth request is refused.
    expect(writes).toEqual([201, 201, 201]);
    expect(keyOverBudget.status).toBe(429);
    expect(keyOverBudget.body.message).toEqual(expect.stringContaining("for this organisation"));
  });

  it("is per organisation: the same user's budget in another organisation is untouched", async () => {
    const first = uniqueOrgId();
    const user = await createTestUser(api, { orgId: first, role: "member" });
    const second = uniqueOrgId();
    await createTestUser(api, { orgId: second, role: "member" });
    const { putMembership } = await import("../../functions/store/members/membership-store.js");
    await putMembership({ orgId: second, userId: user.userId, email: user.email, role: "member" });
    await intoFreshWindow();

    for (let index = 0; index < 5; index += 1) await call(api, "GET", "/api/sdk/agents", asUser(user, first));
    const refusedInFirst = await call(api, "GET", "/api/sdk/agents", asUser(user, first));
    const inSecond = await call(api, "GET", "/api/sdk/agents", asUser(user, second));

    expect(refusedInFirst.status).toBe(429);
    expect(inSecond.status).toBe(200);
  });
});
