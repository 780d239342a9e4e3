/**
 * Score configurations (issue 33) over HTTP against DynamoDB Local: an admin says what a score name's values must
 * be; a score that breaks it is a field-level 400 with nothing stored (alone or in a batch), the others are stored;
 * bad configurations are 400s, the 101st a 409; members read but cannot change them; another organisation's
 * configurations do not apply; a deleted configuration frees the name.
 */
import { QueryCommand } from "@aws-sdk/lib-dynamodb";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SCORE_CONFIG_LIMITS } from "../../functions/domain/score-config.js";
import { documentClient, tableName } from "../../functions/store/table/dynamo-client.js";
import { sessionKey } from "../../functions/store/table/keys.js";
import type { LocalApi } from "../../local/http-adapter.js";
import {
  call,
  createTestKey,
  createTestSession,
  createTestUser,
  startTestApi,
  type TestKey,
  type TestUser,
} from "../support/fixtures.js";

let api: LocalApi;
let owner: TestKey;
let admin: TestUser;

beforeAll(async () => {
  api = await startTestApi();
  owner = await createTestKey({ scopes: ["sessions:write", "events:write", "scores:write", "read"] });
  admin = await createTestUser(api, { orgId: owner.orgId, role: "admin" });
});
afterAll(() => api.close());

const configPath = (name: string) => `/api/sdk/score-configs/${encodeURIComponent(name)}`;

function configure(name: string, body: unknown, token = admin.token) {
  return call(api, "PUT", configPath(name), { key: token, body });
}

async function scoresStored(sessionId: string): Promise<number> {
  const result = await documentClient.send(
    new QueryCommand({
      TableName: tableName,
      KeyConditionExpression: "PK = :pk AND begins_with(SK, :scores)",
      ExpressionAttributeValues: { ":pk": sessionKey(sessionId).PK, ":scores": "SCORE#" },
      ConsistentRead: true,
    }),
  );
  return result.Items?.length ?? 0;
}

describe("score configurations", () => {
  it("a numeric range and a label list: scores that break them are 400s on value, nothing stored; the rest stored", async () => {
    const helpfulness = await configure("helpfulness", { dataType: "numeric", min: 0, max: 1, description: "0 to 1" });
    expect(helpfulness.status).toBe(200);
    expect(helpfulness.body).toMatchObject({ name: "helpfulness", dataType: "numeric", min: 0, max: 1 });
    expect(
      (await configure("résolution ✓", { dataType: "categorical", labels: ["resolved", "partially", "wrong"] })).status,
    ).toBe(200);
    const sessionId = await createTestSession(api, owner.key);
    const score = (body: Record<string, unknown>) =>
      call(api, "POST", "/api/sdk/scores", { key: owner.key, body: { sessionId, ...body } });

    const tooHigh = await score({ name: "helpfulness", value: 1.5 });
    expect(tooHigh.status).toBe(400);
    expect(tooHigh.body.issues).toEqual([
      { path: "value", message: "Must be from 0 to 1 (the configuration of score helpfulness)" },
    ]);
    expect((await score({ name: "helpfulness", value: true })).body.issues).toEqual([
      { path: "value", message: "Must be a number (the configuration of score helpfulness)" },
    ]);
    const unknownLabel = await score({ name: "résolution ✓", value: "maybe" });
    expect(unknownLabel.status).toBe(400);
    expect(unknownLabel.body.issues).toEqual([
      {
        path: "value",
        message: "Must be one of the labels of the configuration of score résolution ✓: resolved, partially, wrong",
      },
    ]);
    expect(await scoresStored(sessionId)).toBe(0);

    expect((await score({ name: "helpfulness", value: 0.7 })).status).toBe(201);
    expect((await score({ name: "résolution ✓", value: "partially" })).status).toBe(201);
    // A name without a configuration takes anything; names are exact (case-sensitive).
    expect((await score({ name: "Helpfulness", value: "off the scale" })).status).toBe(201);

    const batch = await call(api, "POST", "/api/sdk/scores/batch", {
      key: owner.key,
      body: {
        scores: [
          { sessionId, name: "helpfulness", value: 0.2 },
          { sessionId, name: "helpfulness", value: -3 },
          { sessionId, name: "résolution ✓", value: "wrong" },
        ],
      },
    });
    expect(batch.status).toBe(200);
    expect((batch.body.results as { status: number }[]).map((result) => result.status)).toEqual([201, 400, 201]);
    expect(await scoresStored(sessionId)).toBe(5);
  });

  it("lists for members and keys; only admins change them; another organisation's do not apply", async () => {
    expect((await configure("listed", { dataType: "boolean" })).status).toBe(200);
    const member = await createTestUser(api, { orgId: owner.orgId, role: "member" });
    const tenant = { "x-organization-id": owner.orgId, "x-environment": "live" };
    const byMember = await call(api, "GET", "/api/sdk/score-configs", { key: member.token, headers: tenant });
    const byKey = await call(api, "GET", "/api/sdk/score-configs", { key: owner.key });
    expect(byMember.status).toBe(200);
    expect(byKey.body).toEqual(byMember.body);
    expect((byKey.body.items as { name: string }[]).map((config) => config.name)).toContain("listed");
    expect((await configure("listed", { dataType: "numeric" }, member.token)).status).toBe(403);
    expect((await call(api, "DELETE", configPath("listed"), { key: member.token })).status).toBe(403);

    const stranger = await createTestUser(api, { role: "admin" });
    expect((await configure("free-for-others", { dataType: "boolean" }, stranger.token)).status).toBe(200);
    const sessionId = await createTestSession(api, owner.key);
    const free = await call(api, "POST", "/api/sdk/scores", {
      key: owner.key,
      body: { sessionId, name: "free-for-others", value: 42 },
    });
    expect(free.status).toBe(201);
  });

  it("refuses configurations that contradict themselves, field by field", async () => {
    const cases: [unknown, string[]][] = [
      [{ dataType: "numeric", min: 2, max: 1 }, ["max"]],
      [{ dataType: "boolean", min: 0 }, ["min"]],
      [{ dataType: "numeric", labels: ["a"] }, ["labels"]],
      [{ dataType: "categorical", labels: ["a", "a"] }, ["labels"]],
      [{ dataType: "categorical", labels: [] }, ["labels"]],
      [{ dataType: "label" }, ["dataType"]],
      [{ dataType: "boolean", extra: 1 }, ["extra"]],
      [{ dataType: "numeric", min: 1e16 }, ["min"]],
    ];
    for (const [body, paths] of cases) {
      const response = await configure("contradictory", body);
      expect(response.status, JSON.stringify(body)).toBe(400);
      expect((response.body.issues as { path: string }[]).map((issue) => issue.path)).toEqual(paths);
    }
    expect((await call(api, "GET", "/api/sdk/score-configs", { key: owner.key })).body.items).not.toContainEqual(
      expect.objectContaining({ name: "contradictory" }),
    );
    const tooLong = await configure("x".repeat(201), { dataType: "boolean" });
    expect(tooLong.status).toBe(400);
    expect(tooLong.body.issues).toEqual([{ path: "name", message: "Must be a score name of 1 to 200 characters" }]);
  });

  it("holds at most 100 per organisation (409 past it, a replacement still allowed); a deletion frees the name", async () => {
    const full = await createTestUser(api, { role: "admin" });
    for (let start = 0; start < SCORE_CONFIG_LIMITS.configsPerOrganisation; start += 10) {
      const answers = await Promise.all(
        Array.from({ length: 10 }, (_, offset) => configure(`c${start + offset}`, { dataType: "boolean" }, full.token)),
      );
      expect(answers.map((answer) => answer.status)).toEqual(Array(10).fill(200));
    }
    const refused = await configure("one-too-many", { dataType: "boolean" }, full.token);
    expect(refused.status).toBe(409);
    expect((await configure("c0", { dataType: "numeric", min: 0 }, full.token)).status).toBe(200);
    expect((await call(api, "DELETE", configPath("c1"), { key: full.token })).status).toBe(204);
    expect((await call(api, "DELETE", configPath("c1"), { key: full.token })).status).toBe(404);
    expect((await configure("one-too-many", { dataType: "boolean" }, full.token)).status).toBe(200);

    // Deleted: the name takes any value again.
    expect((await call(api, "DELETE", configPath("helpfulness"), { key: admin.token })).status).toBe(204);
    const sessionId = await createTestSession(api, owner.key);
    const free = await call(api, "POST", "/api/sdk/scores", {
      key: owner.key,
      body: { sessionId, name: "helpfulness", value: 99 },
    });
    expect(free.status).toBe(201);
  });
});
