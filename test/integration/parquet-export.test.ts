/**
 * Issue 35, the Parquet export, against DynamoDB Local and the local S3: a run rebuilds exactly the units the stream
 * consumer marked, its files hold what the read API answers (sessions with their totals, events with an offloaded
 * field referenced, scores, a conversation), the manifests are written, a rerun replaces files without duplicating a
 * row, and an erased user is gone from the next run's files (a unit left empty loses its file).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { organisationManifestKey, runManifestKey } from "../../functions/export/export-layout.js";
import { runExport } from "../../functions/export/export-run.js";
import type { LocalApi } from "../../local/http-adapter.js";
import { exportKeys, exportManifest, tableRows } from "../support/export-files.js";
import { call, createTestKey, deletionWorker, settleCounts, startTestApi, type TestKey } from "../support/fixtures.js";

let api: LocalApi;
let key: TestKey;

/** Exports this file's organisation now (its markers are at most seconds old: the run's clock is set 2 minutes on). */
async function exportNow() {
  await settleCounts();
  const result = await runExport({ organisations: [key.orgId], nowMs: Date.now() + 120_000 });
  if (result.status === "busy") throw new Error("the export lock was held");
  return result;
}

async function post(path: string, body: unknown): Promise<Record<string, unknown>> {
  const response = await call(api, "POST", path, { key: key.key, body });
  expect(response.status, response.text).toBeLessThan(300);
  return response.body;
}

async function run(userId: string, options: { fail?: boolean; conversationId?: string } = {}): Promise<string> {
  const session = await post("/api/sdk/sessions", {
    name: `run of ${userId}`,
    agentName: "export-agent",
    userId,
    ...(options.conversationId === undefined ? {} : { conversationId: options.conversationId }),
  });
  const sessionId = String(session.id);
  await post("/api/sdk/events/batch", {
    events: [
      { sessionId, eventType: "tool_call", toolName: "search", toolInput: { q: userId }, toolOutput: { hits: 3 } },
      {
        sessionId,
        eventType: "llm_decision",
        model: "gpt-4o-mini",
        usage: { promptTokens: 120, completionTokens: 30, totalTokens: 150 },
        reasoning: "pick the first hit",
        durationMs: 420,
      },
    ],
  });
  await post("/api/sdk/scores", { sessionId, name: "helpful", value: options.fail ? 0 : 1 });
  const end = options.fail
    ? { status: "failed", success: false, failureReason: "tool timed out" }
    : { status: "completed", success: true };
  const ended = await call(api, "PATCH", `/api/sdk/sessions/${sessionId}`, { key: key.key, body: end });
  expect(ended.status, ended.text).toBe(200);
  return sessionId;
}

const prefix = (table: string) => `table=${table}/org=${key.orgId}/`;

beforeAll(async () => {
  api = await startTestApi();
  key = await createTestKey({ scopes: ["sessions:write", "events:write", "scores:write", "read", "delete"] });
});
afterAll(() => api.close());

describe("the Parquet export", () => {
  it("writes what the read API answers, replaces files on a rerun and forgets an erased user", async () => {
    // Arrange: three runs of two users, one failed, two in one conversation, one with an offloaded tool input.
    const kept = [
      await run("ada", { conversationId: "conv-export" }),
      await run("ada", { conversationId: "conv-export" }),
    ];
    const erased = await run("bob", { fail: true });
    const large = { text: "x".repeat(40 * 1024) };
    await post("/api/sdk/events", { sessionId: erased, eventType: "tool_call", toolName: "upload", toolInput: large });

    // Act
    const first = await exportNow();

    // Assess: the run committed with its manifests; the files equal the read API.
    expect(first.status).toBe("committed");
    if (first.status !== "committed") return;
    const manifest = await exportManifest(runManifestKey(first.runId));
    const ownManifest = await exportManifest(organisationManifestKey(key.orgId, first.runId));
    expect(manifest?.schemaVersion).toBe(1);
    expect(ownManifest?.files.every((file) => file.orgId === key.orgId)).toBe(true);
    expect(ownManifest?.files.map((file) => file.table).sort()).toEqual(
      expect.arrayContaining(["conversations", "events", "scores", "sessions"]),
    );

    const sessions = await tableRows(prefix("sessions"));
    expect(sessions.map((row) => row.session_id).sort()).toEqual([...kept, erased].sort());
    for (const sessionId of [...kept, erased]) {
      const answer = await call(api, "GET", `/api/sdk/sessions/${sessionId}`, { key: key.key });
      const row = sessions.find((candidate) => candidate.session_id === sessionId);
      expect(row?.status).toBe(answer.body.status);
      expect(row?.estimated_cost).toBe(answer.body.estimatedCost);
      expect(row?.total_tokens).toBe(BigInt(Number(answer.body.totalTokens)));
      expect(row?.event_count).toBe(BigInt(Number(answer.body.eventCount)));
      expect(row?.failure_reason ?? null).toBe(answer.body.failureReason);
      expect(String((row?.created_at as Date | undefined)?.toISOString())).toBe(answer.body.createdAt);
    }
    const events = await tableRows(prefix("events"));
    expect(events).toHaveLength(7);
    const offloaded = events.find((row) => row.tool_name === "upload");
    expect(offloaded?.tool_input_json).toBeNull();
    expect(String(offloaded?.tool_input_ref)).toContain(erased);
    expect(events.find((row) => row.model === "gpt-4o-mini")?.duration_ms).toBe(420n);
    expect((await tableRows(prefix("scores"))).map((row) => row.session_id).sort()).toEqual([...kept, erased].sort());
    const conversations = await tableRows(prefix("conversations"));
    expect(conversations).toEqual([expect.objectContaining({ conversation_id: "conv-export", run_count: 2n })]);

    // Act: a rerun over the same changes replaces the files.
    const second = await exportNow();
    expect(second.status).toBe("committed");
    expect(await tableRows(prefix("events"))).toHaveLength(7);
    expect(await tableRows(prefix("sessions"))).toHaveLength(3);

    // Act: erase bob, then export again.
    const accepted = await call(api, "DELETE", "/api/sdk/users/bob", { key: key.key });
    expect(accepted.status).toBe(202);
    await deletionWorker?.idle();
    const third = await exportNow();

    // Assess: bob's session, events and score are in no file any more.
    expect(third.status).toBe("committed");
    expect((await tableRows(prefix("sessions"))).map((row) => row.user_id)).toEqual(["ada", "ada"]);
    const left = await tableRows(prefix("events"));
    expect(left.map((row) => row.session_id).filter((id) => id === erased)).toEqual([]);
    expect(left).toHaveLength(4);
    expect((await tableRows(prefix("scores"))).map((row) => row.session_id).sort()).toEqual([...kept].sort());
    expect((await exportKeys(prefix("sessions"))).length).toBeGreaterThan(0);
  });
});
