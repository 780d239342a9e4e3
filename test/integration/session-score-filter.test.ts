/**
 * Issue 33: GET /api/sdk/sessions filtered by a score — `scoreName` alone, with a numeric range, a label or a
 * boolean — reads each session's latest score of the name (an edit replaces the first value; a deleted score no
 * longer matches); other tenants' scores never leak; a malformed filter is a field-level 400.
 */
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { newId } from "../../functions/domain/ids.js";
import type { LocalApi } from "../../local/http-adapter.js";
import { call, createTestKey, createTestSession, startTestApi, type TestKey } from "../support/fixtures.js";

let api: LocalApi;
let owner: TestKey;
let agentName: string;
const sessions: Record<string, string> = {};

const SCOPES = ["sessions:write", "events:write", "scores:write", "read", "delete"] as const;

async function score(sessionId: string, name: string, value: unknown, id = newId("score")): Promise<string> {
  const response = await call(api, "POST", "/api/sdk/scores", { key: owner.key, body: { id, sessionId, name, value } });
  expect(response.status, response.text).toBeLessThan(300);
  return id;
}

beforeAll(async () => {
  api = await startTestApi();
  owner = await createTestKey({ scopes: SCOPES });
  agentName = `filter-${randomUUID().slice(0, 8)}`;
  for (const label of ["low", "high", "edited", "labelled", "deleted", "unscored"]) {
    sessions[label] = await createTestSession(api, owner.key, { agentName, name: label });
  }
  const at = (label: string) => sessions[label] as string;
  await score(at("low"), "quality", -1.5);
  await score(at("low"), "passed", false);
  await score(at("high"), "quality", 0.9);
  await score(at("high"), "passed", true);
  const first = await score(at("edited"), "quality", 0.95);
  await score(at("edited"), "quality", 0.1, first); // the edit replaces the value
  await score(at("labelled"), "quality", "__proto__");
  const gone = await score(at("deleted"), "quality", 0.5);
  const removed = await call(api, "DELETE", `/api/sdk/sessions/${at("deleted")}/scores/${gone}`, { key: owner.key });
  expect(removed.status).toBe(204);
});
afterAll(() => api.close());

async function names(query: string, key = owner.key): Promise<string[]> {
  const response = await call(api, "GET", `/api/sdk/sessions?agentName=${agentName}&${query}`, { key });
  expect(response.status, response.text).toBe(200);
  return (response.body.items as { name: string }[]).map((item) => item.name).sort();
}

describe("ListSessions filtered by a score", () => {
  it("scoreName alone: the sessions with a score of that name", async () => {
    expect(await names("scoreName=quality")).toEqual(["edited", "high", "labelled", "low"]);
  });

  it("a numeric range, inclusive at both ends, on the latest value (an edit replaces the first)", async () => {
    expect(await names("scoreName=quality&scoreMin=0.5")).toEqual(["high"]);
    expect(await names("scoreName=quality&scoreMin=-1.5&scoreMax=0.1")).toEqual(["edited", "low"]);
    expect(await names("scoreName=quality&scoreMax=-2")).toEqual([]);
  });

  it("a label (client text such as __proto__ is only a value) and a boolean", async () => {
    expect(await names(`scoreName=quality&scoreLabel=${encodeURIComponent("__proto__")}`)).toEqual(["labelled"]);
    expect(await names("scoreName=passed&scoreValue=true")).toEqual(["high"]);
    expect(await names("scoreName=passed&scoreValue=false")).toEqual(["low"]);
  });

  it("another organisation sees none of it", async () => {
    const stranger = await createTestKey();
    expect(await names("scoreName=quality", stranger.key)).toEqual([]);
  });

  it("refuses a malformed score filter with a field-level 400", async () => {
    const cases: [string, { path: string; message: string }][] = [
      ["scoreMin=1", { path: "scoreName", message: "Required with scoreMin, scoreMax, scoreLabel or scoreValue" }],
      [
        "scoreName=q&scoreMin=1&scoreLabel=a",
        { path: "scoreName", message: "Give one of scoreMin/scoreMax, scoreLabel or scoreValue" },
      ],
      ["scoreName=q&scoreMin=2&scoreMax=1", { path: "scoreMax", message: "Must not be below scoreMin" }],
      ["scoreName=q&scoreMin=abc", { path: "scoreMin", message: "Must be a number" }],
      ["scoreName=q&scoreValue=yes", { path: "scoreValue", message: "Must be one of: true, false" }],
    ];
    for (const [query, issue] of cases) {
      const response = await call(api, "GET", `/api/sdk/sessions?${query}`, { key: owner.key });
      expect(response.status, query).toBe(400);
      expect(response.body.issues, query).toEqual([issue]);
    }
  });
});
