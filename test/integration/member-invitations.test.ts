/**
 * Invitations (issue 21, item 4: adding a member needs their consent): an owner invites a person by email;
 * the person, signed in, sees the invitation apart from their organisations and accepts (the membership is
 * written then, in the transaction that consumes the invitation) or declines; owners list and revoke pending
 * invitations; invitations expire; an organisation's invitations are capped per UTC day. Also item 9: the
 * email addresses accepted, and how a role requirement reads. Everything over real HTTP on the local API.
 */
import { randomUUID } from "node:crypto";
import { QueryCommand } from "@aws-sdk/lib-dynamodb";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { INVITATIONS_PER_DAY } from "../../functions/domain/invitation.js";
import { createInvitation } from "../../functions/store/members/invitation-store.js";
import { documentClient, tableName } from "../../functions/store/table/dynamo-client.js";
import {
  invitationKey,
  membershipKey,
  organisationPartition,
  userInvitationKey,
  userMembershipKey,
} from "../../functions/store/table/keys.js";
import type { LocalApi } from "../../local/http-adapter.js";
import {
  type ApiResponse,
  call,
  createTestKey,
  createTestUser,
  identity,
  startTestApi,
  type TestUser,
  uniqueOrgId,
} from "../support/fixtures.js";

let api: LocalApi;

beforeAll(async () => {
  api = await startTestApi();
});
afterAll(() => api.close());

const DAY_MS = 86_400_000;

function asUser(user: { token: string }, orgId?: string) {
  return { key: user.token, headers: orgId === undefined ? {} : { "x-organization-id": orgId } };
}

function newEmail(prefix = "invitee"): string {
  return `${prefix}-${randomUUID().slice(0, 8)}@example.com`;
}

function invite(owner: TestUser, email: string, role = "member"): Promise<ApiResponse> {
  return call(api, "POST", "/api/invitations", { ...asUser(owner, owner.orgId), body: { email, role } });
}

/** The local user of an email (created by an invitation), signed in. */
function signedIn(email: string): { userId: string; email: string; token: string } {
  const user = identity.findUser(email);
  if (user === undefined) throw new Error(`${email} is not in the local directory`);
  return { ...user, token: identity.issueAccessToken(user, api.url) };
}

function answer(person: { token: string }, orgId: string, choice: "accept" | "decline"): Promise<ApiResponse> {
  return call(api, "POST", `/api/me/invitations/${orgId}/${choice}`, { key: person.token });
}

/** The items of a partition whose sort key starts with `prefix` (every item: ""). */
async function items(partition: string, prefix: string): Promise<Record<string, unknown>[]> {
  const result = await documentClient.send(
    new QueryCommand({
      TableName: tableName,
      ...(prefix === ""
        ? { KeyConditionExpression: "PK = :pk", ExpressionAttributeValues: { ":pk": partition } }
        : {
            KeyConditionExpression: "PK = :pk AND begins_with(SK, :prefix)",
            ExpressionAttributeValues: { ":pk": partition, ":prefix": prefix },
          }),
      ConsistentRead: true,
    }),
  );
  return result.Items ?? [];
}

const exactItem = async (key: { PK: string; SK: string }) => items(key.PK, key.SK);
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

describe("nobody becomes a member without accepting", () => {
  it("POST /api/members adds nobody any more (405): the person stays out, their calls without X-Organization-Id unchanged", async () => {
    const attacker = await createTestUser(api, { orgId: `a-${uniqueOrgId()}`, role: "owner" });
    const victim = await createTestUser(api, { orgId: `z-${uniqueOrgId()}`, role: "owner" });

    const added = await call(api, "POST", "/api/members", {
      ...asUser(attacker, attacker.orgId),
      body: { email: victim.email, role: "member" },
    });

    expect(added.status).toBe(405);
    expect(added.body.message).toBe("POST is not supported on /api/members");
    const me = await call(api, "GET", "/api/me", { key: victim.token });
    expect(me.body.organisations).toEqual([{ orgId: victim.orgId, role: "owner" }]);
    expect((await call(api, "GET", "/api/keys", { key: victim.token })).status).toBe(200);
    expect(await exactItem(membershipKey(attacker.orgId, victim.userId))).toEqual([]);
  });

  it("an invitation of an existing user is listed apart from their organisations; nothing they call changes until they answer", async () => {
    const attacker = await createTestUser(api, { orgId: `a-${uniqueOrgId()}`, role: "owner" });
    const victim = await createTestUser(api, { orgId: `z-${uniqueOrgId()}`, role: "owner" });

    const invited = await invite(attacker, victim.email.toUpperCase(), "admin");

    expect(invited.status, invited.text).toBe(201);
    expect(invited.body).toEqual({
      userId: victim.userId,
      email: victim.email,
      role: "admin",
      invitedBy: attacker.email,
      createdAt: expect.stringMatching(ISO),
      expiresAt: expect.stringMatching(ISO),
    });
    expect(Date.parse(String(invited.body.expiresAt)) - Date.parse(String(invited.body.createdAt))).toBe(7 * DAY_MS);
    const me = await call(api, "GET", "/api/me", { key: victim.token });
    expect(me.body).toEqual({
      userId: victim.userId,
      email: victim.email,
      organisations: [{ orgId: victim.orgId, role: "owner" }],
      invitations: [
        {
          orgId: attacker.orgId,
          role: "admin",
          invitedBy: attacker.email,
          createdAt: invited.body.createdAt,
          expiresAt: invited.body.expiresAt,
        },
      ],
    });
    // Still one organisation: calls without X-Organization-Id act for it, and the other organisation is closed.
    expect((await call(api, "GET", "/api/keys", { key: victim.token })).status).toBe(200);
    const intoOther = await call(api, "GET", "/api/keys", asUser(victim, attacker.orgId));
    expect(intoOther.status).toBe(403);
    expect(intoOther.body.message).toBe(`You have no access to organisation ${attacker.orgId}`);
    const members = await call(api, "GET", "/api/members", asUser(attacker, attacker.orgId));
    expect((members.body.items as { userId: string }[]).map((member) => member.userId)).toEqual([attacker.userId]);

    const declined = await answer(victim, attacker.orgId, "decline");
    expect(declined.status, declined.text).toBe(204);
    const after = await call(api, "GET", "/api/me", { key: victim.token });
    expect(after.body).toMatchObject({ organisations: [{ orgId: victim.orgId, role: "owner" }], invitations: [] });
  });

  it("accepting writes the membership (both items) and consumes the invitation; a second answer is 404", async () => {
    const owner = await createTestUser(api, { role: "owner" });
    const person = await createTestUser(api, { role: "owner" });
    await invite(owner, person.email, "admin");

    const accepted = await answer(person, owner.orgId, "accept");

    expect(accepted.status, accepted.text).toBe(201);
    expect(accepted.body).toEqual({ orgId: owner.orgId, role: "admin", createdAt: expect.stringMatching(ISO) });
    expect(await exactItem(membershipKey(owner.orgId, person.userId))).toEqual([
      expect.objectContaining({ role: "admin", email: person.email, entity: "membership" }),
    ]);
    expect(await exactItem(userMembershipKey(person.userId, owner.orgId))).toEqual([
      expect.objectContaining({ role: "admin", entity: "membership" }),
    ]);
    expect(await exactItem(invitationKey(owner.orgId, person.userId))).toEqual([]);
    expect(await exactItem(userInvitationKey(person.userId, owner.orgId))).toEqual([]);
    const me = await call(api, "GET", "/api/me", { key: person.token });
    expect(me.body.organisations).toEqual(
      [
        { orgId: owner.orgId, role: "admin" },
        { orgId: person.orgId, role: "owner" },
      ].sort((a, b) => a.orgId.localeCompare(b.orgId)),
    );
    expect(me.body.invitations).toEqual([]);
    // Now of two organisations, the person names the one they act for.
    const keys = await call(api, "GET", "/api/keys", asUser(person, owner.orgId));
    expect(keys.status).toBe(200);
    for (const choice of ["accept", "decline"] as const) {
      const again = await answer(person, owner.orgId, choice);
      expect(again.status).toBe(404);
      expect(again.body.message).toBe(`You have no pending invitation to organisation ${owner.orgId}`);
    }
  });

  it("invites a person new to the directory: created there as a user (no member), who signs in and accepts", async () => {
    const owner = await createTestUser(api, { role: "owner" });
    const email = newEmail("new-person");
    expect(identity.findUser(email)).toBeUndefined();

    const invited = await invite(owner, email);

    expect(invited.status, invited.text).toBe(201);
    const person = signedIn(email);
    expect(invited.body.userId).toBe(person.userId);
    const before = await call(api, "GET", "/api/me", { key: person.token });
    expect(before.body).toMatchObject({ email, organisations: [], invitations: [{ orgId: owner.orgId }] });
    expect((await call(api, "GET", "/api/members", asUser(person, owner.orgId))).status).toBe(403);
    expect((await answer(person, owner.orgId, "accept")).status).toBe(201);
    const members = await call(api, "GET", "/api/members", asUser(person, owner.orgId));
    expect(members.status).toBe(200);
    expect(members.body.items).toContainEqual({
      userId: person.userId,
      email,
      role: "member",
      createdAt: expect.stringMatching(ISO),
    });
  });

  it("refuses to invite a member (409) or a person invited already (409), storing nothing", async () => {
    const owner = await createTestUser(api, { role: "owner" });
    const member = await createTestUser(api, { orgId: owner.orgId, role: "member" });
    const email = newEmail();
    await invite(owner, email, "member");
    const before = await items(organisationPartition(owner.orgId), "");

    const asMember = await invite(owner, member.email.toUpperCase());
    const self = await invite(owner, owner.email);
    const again = await invite(owner, email, "owner");

    expect(asMember.status).toBe(409);
    expect(asMember.body.message).toBe(`${member.email} is already a member of organisation ${owner.orgId}`);
    expect(self.status).toBe(409);
    expect(self.body.message).toBe(`${owner.email} is already a member of organisation ${owner.orgId}`);
    expect(again.status).toBe(409);
    expect(again.body.message).toBe(
      `${email} already has a pending invitation to organisation ${owner.orgId}; revoke it first to invite them again`,
    );
    // Nothing written, nothing counted.
    expect(await items(organisationPartition(owner.orgId), "")).toEqual(before);
  });

  it("lists pending invitations to owners, oldest first; revokes one (204, then 404), which can then not be accepted", async () => {
    const owner = await createTestUser(api, { role: "owner" });
    const first = newEmail("first");
    const second = newEmail("second");
    const a = await invite(owner, first, "admin");
    const b = await invite(owner, second, "member");

    const listed = await call(api, "GET", "/api/invitations", asUser(owner, owner.orgId));
    expect(listed.status).toBe(200);
    expect(listed.body.items).toEqual([a.body, b.body]);

    const path = `/api/invitations/${String(a.body.userId)}`;
    const revoked = await call(api, "DELETE", path, asUser(owner, owner.orgId));
    expect(revoked.status).toBe(204);
    const again = await call(api, "DELETE", path, asUser(owner, owner.orgId));
    expect(again.status).toBe(404);
    expect(again.body.message).toBe(
      `User ${String(a.body.userId)} has no pending invitation to organisation ${owner.orgId}`,
    );
    const person = signedIn(first);
    const accepted = await answer(person, owner.orgId, "accept");
    expect(accepted.status).toBe(404);
    expect(accepted.body.message).toBe(`You have no pending invitation to organisation ${owner.orgId}`);
    const after = await call(api, "GET", "/api/invitations", asUser(owner, owner.orgId));
    expect(after.body.items).toEqual([b.body]);
  });

  it("an expired invitation is listed nowhere, cannot be accepted (404 saying when it expired), and a new one replaces it", async () => {
    const owner = await createTestUser(api, { role: "owner" });
    const person = await createTestUser(api, { role: "owner" });
    const sent = Date.now() - 8 * DAY_MS;
    const expiresAt = new Date(sent + 7 * DAY_MS).toISOString();
    await createInvitation(
      {
        orgId: owner.orgId,
        userId: person.userId,
        email: person.email,
        role: "owner",
        invitedBy: owner.email,
        invitedById: owner.userId,
        createdAt: new Date(sent).toISOString(),
        expiresAt,
      },
      { name: owner.email, id: owner.userId },
      sent,
    );

    const me = await call(api, "GET", "/api/me", { key: person.token });
    const listed = await call(api, "GET", "/api/invitations", asUser(owner, owner.orgId));
    const accepted = await answer(person, owner.orgId, "accept");
    const revoked = await call(api, "DELETE", `/api/invitations/${person.userId}`, asUser(owner, owner.orgId));

    expect(me.body.invitations).toEqual([]);
    expect(listed.body.items).toEqual([]);
    expect(accepted.status).toBe(404);
    expect(accepted.body.message).toBe(
      `Your invitation to organisation ${owner.orgId} expired at ${expiresAt}; ask one of its owners to invite you again`,
    );
    expect(await exactItem(membershipKey(owner.orgId, person.userId))).toEqual([]);
    expect(revoked.status).toBe(404);
    const renewed = await invite(owner, person.email, "member");
    expect(renewed.status, renewed.text).toBe(201);
    expect(await exactItem(invitationKey(owner.orgId, person.userId))).toEqual([
      expect.objectContaining({ role: "member", expiresAt: renewed.body.expiresAt }),
    ]);
  });

  it("a revocation racing an acceptance: exactly one of them wins", async () => {
    const owner = await createTestUser(api, { role: "owner" });
    for (let round = 0; round < 3; round++) {
      const email = newEmail("race");
      await invite(owner, email);
      const person = signedIn(email);

      const [accepted, revoked] = await Promise.all([
        answer(person, owner.orgId, "accept"),
        call(api, "DELETE", `/api/invitations/${person.userId}`, asUser(owner, owner.orgId)),
      ]);

      const member = await exactItem(membershipKey(owner.orgId, person.userId));
      expect([accepted.status, revoked.status].sort()).toEqual(accepted.status === 201 ? [201, 404] : [204, 404]);
      expect(member).toHaveLength(accepted.status === 201 ? 1 : 0);
      expect(await exactItem(invitationKey(owner.orgId, person.userId))).toEqual([]);
    }
  });

  it("audits every invitation change in the organisation's partition (actor: the owner, or the person answering)", async () => {
    const owner = await createTestUser(api, { role: "owner" });
    const email = newEmail("audited");
    await invite(owner, email, "admin");
    const person = signedIn(email);
    await call(api, "DELETE", `/api/invitations/${person.userId}`, asUser(owner, owner.orgId));
    await invite(owner, email, "member");
    await answer(person, owner.orgId, "decline");
    await invite(owner, email, "admin");
    await answer(person, owner.orgId, "accept");
    // Refusals write nothing.
    await invite(owner, email, "admin");
    await answer(person, owner.orgId, "accept");

    const audit = await items(organisationPartition(owner.orgId), `AUDIT#MEMBER#${person.userId}#`);

    const byOwner = { actor: owner.email, actorId: owner.userId, orgId: owner.orgId, userId: person.userId };
    const byPerson = { actor: email, actorId: person.userId, orgId: owner.orgId, userId: person.userId };
    expect(audit.map((item) => item.action)).toEqual([
      "invitation.created",
      "invitation.revoked",
      "invitation.created",
      "invitation.declined",
      "invitation.created",
      "invitation.accepted",
    ]);
    expect(audit).toEqual([
      expect.objectContaining({
        ...byOwner,
        details: { email, role: "admin", expiresAt: expect.stringMatching(ISO) },
      }),
      expect.objectContaining({ ...byOwner, details: { email, role: "admin" } }),
      expect.objectContaining({ ...byOwner, action: "invitation.created" }),
      expect.objectContaining({ ...byPerson, details: { email, role: "member" } }),
      expect.objectContaining({ ...byOwner, action: "invitation.created" }),
      expect.objectContaining({ ...byPerson, details: { email, role: "admin", invitedBy: owner.email } }),
    ]);
    for (const item of audit) expect(item).toMatchObject({ entity: "memberAudit", id: expect.stringMatching(/^aud_/) });
  });

  it("answers 404, never a 500, for an organisation or user id in the path that cannot be one", async () => {
    const owner = await createTestUser(api, { role: "owner" });
    const person = await createTestUser(api, { role: "owner" });
    const longOrg = "a".repeat(2_500);

    const unknownOrg = await answer(person, `no-such-${uniqueOrgId()}`, "accept");
    const badOrg = await answer(person, "ORG%23x", "decline");
    const longOrgAnswer = await answer(person, longOrg, "accept");
    const longUser = await call(api, "DELETE", `/api/invitations/${"u".repeat(2_500)}`, asUser(owner, owner.orgId));

    expect(unknownOrg.status).toBe(404);
    expect(badOrg.status).toBe(404);
    expect(badOrg.body.message).toBe("You have no pending invitation to organisation ORG#x");
    expect(longOrgAnswer.status).toBe(404);
    expect(longUser.status).toBe(404);
    expect(String(longUser.body.message)).toMatch(/^User u+/);
  });

  it("answers 401 for an API key or no credential on every invitation route", async () => {
    const owner = await createTestUser(api, { role: "owner" });
    const key = await createTestKey({ orgId: owner.orgId });
    const requests = [
      ["GET", "/api/invitations"],
      ["POST", "/api/invitations"],
      ["DELETE", `/api/invitations/${owner.userId}`],
      ["POST", `/api/me/invitations/${owner.orgId}/accept`],
      ["POST", `/api/me/invitations/${owner.orgId}/decline`],
    ] as const;
    for (const [method, path] of requests) {
      const body = method === "POST" ? { body: { email: newEmail(), role: "member" } } : {};
      const withKey = await call(api, method, path, { key: key.key, ...body });
      const none = await call(api, method, path, body);
      expect([withKey.status, none.status], `${method} ${path}`).toEqual([401, 401]);
    }
  });
});

describe("the daily invitation limit", () => {
  it(`refuses invitation ${INVITATIONS_PER_DAY + 1} of a UTC day with 429, Retry-After to midnight and a message; refusals do not count`, async () => {
    // The invitations must fall on one UTC day: wait for the next one when this one is nearly over.
    const toMidnight = DAY_MS - (Date.now() % DAY_MS);
    if (toMidnight < 20_000) await new Promise((resolve) => setTimeout(resolve, toMidnight + 500));
    const owner = await createTestUser(api, { role: "owner" });
    const member = await createTestUser(api, { orgId: owner.orgId, role: "member" });
    const statuses: number[] = [];
    for (let sent = 0; sent < INVITATIONS_PER_DAY; sent++) {
      statuses.push((await invite(owner, newEmail("daily"))).status);
      // Refused invitations in between: a member (409) and a bad address (400) cost nothing.
      if (sent === 5) statuses.push((await invite(owner, member.email)).status);
      if (sent === 6) statuses.push((await invite(owner, "bad\u0000@example.com")).status);
    }
    const email = newEmail("one-too-many");

    const refused = await invite(owner, email);
    const otherOrganisation = await invite(await createTestUser(api, { role: "owner" }), newEmail("elsewhere"));

    expect(statuses.filter((status) => status === 201)).toHaveLength(INVITATIONS_PER_DAY);
    expect(statuses.filter((status) => status !== 201)).toEqual([409, 400]);
    expect(refused.status).toBe(429);
    expect(refused.body).toEqual({
      error: "Too Many Requests",
      message: `Organisation ${owner.orgId} has sent ${INVITATIONS_PER_DAY} invitations today, the most allowed per day; try again after midnight UTC (see Retry-After)`,
    });
    const retryAfter = Number(refused.headers.get("retry-after"));
    expect(retryAfter).toBeGreaterThan(0);
    expect(Math.abs(retryAfter - (DAY_MS - (Date.now() % DAY_MS)) / 1000)).toBeLessThan(60);
    // Refused before the directory was asked: no user was created for the address.
    expect(identity.findUser(email)).toBeUndefined();
    expect(otherOrganisation.status).toBe(201);
  });
});

describe("email addresses of invitations (issue 21, item 9)", () => {
  const LOOK_ALIKE = (meant: string) =>
    `Must be plain ASCII: it contains full-width or other look-alike characters (did you mean ${meant}?)`;
  const NON_ASCII =
    "Must be plain ASCII: letters of other scripts and full-width forms are refused; write an internationalised domain in its xn-- form";
  const cases: readonly (readonly [string, string, string])[] = [
    ["a NUL in the local part", "grace\u0000@example.com", "Must not contain control characters"],
    ["a NUL at the end", "grace@example.com\u0000", "Must not contain control characters"],
    ["a line feed", "grace@example.com\nbcc@evil.example", "Must not contain control characters"],
    ["a C1 control", "grace\u0085@example.com", "Must not contain control characters"],
    ["full-width letters", "\uff47\uff52\uff41\uff43\uff45@example.com", LOOK_ALIKE("grace@example.com")],
    ["a full-width domain", "grace@\uff45\uff58\uff41\uff4d\uff50\uff4c\uff45.com", LOOK_ALIKE("grace@example.com")],
    ["a full-width at sign", "grace\uff20example.com", LOOK_ALIKE("grace@example.com")],
    ["a Cyrillic а", "gr\u0430ce@example.com", NON_ASCII],
    ["an accented local part", "jos\u00e9@example.com", NON_ASCII],
    ["a Unicode domain", "grace@b\u00fccher.example", NON_ASCII],
    ["no domain dot", "grace@localhost", "Must be an email address"],
    ["a space", "grace hopper@example.com", "Must be an email address"],
    ["two dots", "grace..hopper@example.com", "Must be an email address"],
    ["a 65-character local part", `${"g".repeat(65)}@example.com`, "Must be an email address"],
  ];

  it.each(cases)("refuses %s with 400 naming email and saying why", async (_name, email, message) => {
    const owner = await createTestUser(api, { role: "owner" });

    const response = await invite(owner, email);

    expect(response.status).toBe(400);
    expect(response.body).toEqual({
      error: "Bad Request",
      message: "Invalid request body: email",
      issues: [{ path: "email", message }],
    });
    expect(await items(organisationPartition(owner.orgId), "INVITATION")).toEqual([]);
  });

  it("accepts a plain address with +, ' and an xn-- domain, stored in lower case", async () => {
    const owner = await createTestUser(api, { role: "owner" });
    const local = `O'Brien+ats-${randomUUID().slice(0, 6)}`;

    const response = await invite(owner, `${local}@XN--BCHER-KVA.example`);

    expect(response.status, response.text).toBe(201);
    expect(response.body.email).toBe(`${local.toLowerCase()}@xn--bcher-kva.example`);
  });
});

describe("how a role requirement reads (issue 21, item 9)", () => {
  it("names the top role alone (never 'owner or owner'), and a lower one 'or above'", async () => {
    const owner = await createTestUser(api, { role: "owner" });
    const admin = await createTestUser(api, { orgId: owner.orgId, role: "admin" });
    const member = await createTestUser(api, { orgId: owner.orgId, role: "member" });

    const changeRole = await call(api, "PATCH", `/api/members/${member.userId}`, {
      ...asUser(admin, owner.orgId),
      body: { role: "admin" },
    });
    const inviteAsMember = await invite(member, newEmail());
    const createKey = await call(api, "POST", "/api/keys", { ...asUser(member, owner.orgId), body: { name: "k" } });

    expect(changeRole.status).toBe(403);
    expect(changeRole.body.message).toBe(`Your role in organisation ${owner.orgId} is admin; this action needs owner`);
    expect(inviteAsMember.status).toBe(403);
    expect(inviteAsMember.body.message).toBe(
      `Your role in organisation ${owner.orgId} is member; this action needs owner`,
    );
    expect(createKey.status).toBe(403);
    expect(createKey.body.message).toBe(
      `Your role in organisation ${owner.orgId} is member; this action needs admin or above`,
    );
  });
});
