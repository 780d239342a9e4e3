/**
 * `scoreConversation` against a scripted service: where a conversation's score waits in the outbox (behind what was
 * queued before it for the conversation's runs, nothing else), the order of its edits, the fields refused before
 * anything is sent, and what a refusal reports.
 */
import { describe, expect, it } from "vitest";
import type { SeenRequest } from "./support/scripted-fetch.js";
import { scriptedTracker as tracker } from "./support/scripted-fetch.js";

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Short names of the requests in the order they were sent: `create:<name>`, `batch`, `score:<value>`, `end`. */
function order(requests: readonly SeenRequest[]): string[] {
  return requests.map((request) => {
    if (request.path === "/api/sdk/sessions") return `create:${String(request.body.name)}`;
    if (request.path === "/api/sdk/events/batch") return "batch";
    if (request.path === "/api/sdk/scores") return `score:${String(request.body.value)}`;
    return "end";
  });
}

describe("scoreConversation's place in the outbox", () => {
  it("waits for the conversation's runs queued before it (start, events), then sends its edits in order", async () => {
    // Every session start is answered slowly: a score sent before the answer would reach an unknown conversation.
    const { ats, errors, requests } = tracker(async (request) => {
      if (request.path === "/api/sdk/sessions") await pause(60);
      return undefined;
    });
    const first = await ats.startSession({ name: "turn 1", agentName: "chat", userId: "u", conversationId: "c-1" });
    first.toolCall({ toolName: "search", toolInput: { q: 1 } });
    const second = await ats.startSession({ name: "turn 2", agentName: "chat", userId: "u", conversationId: "c-1" });
    const id = ats.scoreConversation("c-1", { name: "resolved", value: 1, comment: "first look" });
    ats.scoreConversation("c-1", { id, name: "resolved", value: 2 });
    await first.end({ status: "completed" });
    await second.end({ status: "completed" });
    const stats = await ats.shutdown();

    expect(errors).toEqual([]);
    expect(stats).toMatchObject({ scoresRecorded: 2, scoresDelivered: 2, scoresFailed: 0 });
    const sent = order(requests);
    const at = (name: string) => sent.indexOf(name);
    expect(at("score:1")).toBeGreaterThan(at("create:turn 1"));
    expect(at("score:1")).toBeGreaterThan(at("create:turn 2"));
    expect(at("score:1")).toBeGreaterThan(at("batch"));
    expect(at("score:2")).toBeGreaterThan(at("score:1"));
    const scores = requests.filter((request) => request.path === "/api/sdk/scores");
    expect(scores.map((request) => request.body)).toEqual([
      { id, conversationId: "c-1", name: "resolved", value: 1, source: "sdk", comment: "first look" },
      { id, conversationId: "c-1", name: "resolved", value: 2, source: "sdk" },
    ]);
    expect(id).toMatch(/^scr_[0-9A-HJKMNP-TV-Z]{26}$/);
    // Each delivery has its own Idempotency-Key (the score's id makes a retry a replacement).
    expect(new Set(scores.map((request) => request.headers["idempotency-key"])).size).toBe(2);
  });

  it("does not wait for runs of other conversations, nor for the conversation's runs queued after it", async () => {
    let releaseStart: () => void = () => {};
    const startHeld = new Promise<void>((resolve) => {
      releaseStart = resolve;
    });
    const { ats, errors, requests } = tracker(async (request) => {
      if (request.path === "/api/sdk/sessions") await startHeld;
      return undefined;
    });
    const other = await ats.startSession({ name: "other", agentName: "chat", userId: "u", conversationId: "c-other" });
    ats.scoreConversation("c-2", { name: "resolved", value: true, source: "evaluator" });
    const later = await ats.startSession({ name: "later", agentName: "chat", userId: "u", conversationId: "c-2" });
    // The score goes while both starts are still unanswered.
    for (
      let waited = 0;
      requests.every((request) => request.path !== "/api/sdk/scores") && waited < 2000;
      waited += 10
    ) {
      await pause(10);
    }
    expect(order(requests)).toContain("score:true");
    releaseStart();
    await other.end({ status: "completed" });
    await later.end({ status: "completed" });
    await ats.shutdown();
    expect(errors).toEqual([]);
    const sent = order(requests);
    expect(sent.indexOf("score:true")).toBeLessThan(sent.indexOf("end"));
  });

  it("after a run whose start failed it still sends the score, and reports the service's refusal with the conversation", async () => {
    const { ats, errors, requests } = tracker((request) => {
      if (request.path === "/api/sdk/sessions") return { status: 400, body: { message: "bad start" } };
      if (request.path === "/api/sdk/scores") {
        return { status: 404, body: { error: "Not Found", message: "Conversation c-3 not found" } };
      }
      return undefined;
    });
    await ats.startSession({ name: "refused", agentName: "chat", userId: "u", conversationId: "c-3" });
    ats.scoreConversation("c-3", { name: "resolved", value: false });
    const stats = await ats.shutdown();

    expect(order(requests)).toEqual(["create:refused", "score:false"]);
    expect(stats).toMatchObject({ scoresRecorded: 1, scoresDelivered: 0, scoresFailed: 1 });
    const refusal = errors.find((error) => error.code === "rejected");
    expect(refusal).toMatchObject({
      operation: "score",
      status: 404,
      attempts: 1,
      conversationId: "c-3",
      sessionId: undefined,
    });
    expect(refusal?.message).toMatch(/^score \(POST .*\/api\/sdk\/scores\): 404 Conversation c-3 not found$/);
  });
});

describe("scoreConversation's checks", () => {
  it("refuses before sending: no conversation id, no name, a value the service would refuse, an eventId, after shutdown", async () => {
    const { ats, errors, requests } = tracker();
    expect(ats.scoreConversation("", { name: "x", value: 1 })).toBeUndefined();
    expect(ats.scoreConversation(undefined as unknown as string, { name: "x", value: 1 })).toBeUndefined();
    expect(ats.scoreConversation("c-4", { name: " ", value: 1 })).toBeUndefined();
    expect(ats.scoreConversation("c-4", { name: "inf", value: Number.POSITIVE_INFINITY })).toBeUndefined();
    expect(ats.scoreConversation("c-4", { name: "label", value: "" })).toBeUndefined();
    expect(
      ats.scoreConversation("c-4", { name: "step", value: 1, eventId: "evt_1" } as unknown as {
        name: string;
        value: number;
      }),
    ).toBeUndefined();
    await ats.shutdown();
    expect(ats.scoreConversation("c-4", { name: "late", value: 1 })).toBeUndefined();

    expect(requests).toEqual([]);
    expect(ats.stats()).toMatchObject({ scoresRecorded: 0, scoresFailed: 0 });
    expect(errors.map((error) => [error.code, error.message, error.conversationId])).toEqual([
      ["usage", "scoreConversation needs the id of the conversation it judges", undefined],
      ["usage", "scoreConversation needs the id of the conversation it judges", undefined],
      ["usage", "a score needs a name; the score is not sent", "c-4"],
      ["usage", "score inf: value must be finite; the score is not sent", "c-4"],
      ["usage", "score label: a label must not be empty; the score is not sent", "c-4"],
      [
        "usage",
        "score step: a conversation's score has no eventId (score the run's event with score(sessionId, …)); the score is not sent",
        "c-4",
      ],
      ["usage", "A score of conversation c-4 was recorded after shutdown and is not sent", "c-4"],
    ]);
  });
});
