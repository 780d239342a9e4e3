/**
 * Issue 33, scores on conversations: a score names exactly one target (the request schema's field-level 400s, and
 * the domain's reading of a validated body), and a conversation's score totals per name (pure).
 */
import { describe, expect, it } from "vitest";
import { scoreTotalsOf } from "../../functions/domain/conversation-score-totals.js";
import { scoreTargetOf } from "../../functions/domain/score.js";
import { OTHER_LABEL } from "../../functions/domain/score-tally.js";
import { createScoreBody } from "../../functions/schemas/score-schemas.js";
import { issuesOf } from "./schema-issues.js";

const SESSION_ID = "ses_01ARZ3NDEKTSV4RRFFQ69G5FAV";
const EVENT_ID = "evt_01ARZ3NDEKTSV4RRFFQ69G5FAV";
const SCORE = { name: "resolved", value: true } as const;

describe("a score's target", () => {
  it("accepts a conversation's score and reads its target", () => {
    // Prepare
    const body = { ...SCORE, conversationId: "chat-7f3a" };

    // Act
    const result = createScoreBody.safeParse(body);

    // Assess
    expect(result.success).toBe(true);
    expect(result.data).toEqual(body);
    expect(scoreTargetOf(body)).toEqual({ kind: "conversation", conversationId: "chat-7f3a" });
  });

  it("reads a session's and an event's target", () => {
    expect(scoreTargetOf({ sessionId: SESSION_ID })).toEqual({ kind: "session", sessionId: SESSION_ID });
    expect(scoreTargetOf({ sessionId: SESSION_ID, eventId: EVENT_ID })).toEqual({
      kind: "session",
      sessionId: SESSION_ID,
      eventId: EVENT_ID,
    });
  });

  it.each([
    [
      "both targets",
      { sessionId: SESSION_ID, conversationId: "chat" },
      "conversationId",
      "Send either sessionId or conversationId, not both: a score has one target",
    ],
    ["neither target", {}, "sessionId", "Required: the score's target, sessionId (or conversationId)"],
    [
      "an event of a conversation",
      { conversationId: "chat", eventId: EVENT_ID },
      "eventId",
      "Only with sessionId: a conversation's score has no event",
    ],
    ["an empty conversation id", { conversationId: "" }, "conversationId", "Must not be empty"],
  ])("refuses %s with a field-level 400 on the field to fix", (_case, target, path, message) => {
    expect(issuesOf(createScoreBody, { ...SCORE, ...target })).toContainEqual({ path, message });
  });

  it("throws when a caller bypasses the schema with two targets or none", () => {
    expect(() => scoreTargetOf({ sessionId: SESSION_ID, conversationId: "chat" })).toThrow(/exactly one target/);
    expect(() => scoreTargetOf({})).toThrow(/exactly one target/);
    expect(() => scoreTargetOf({ conversationId: "chat", eventId: EVENT_ID })).toThrow(/exactly one target/);
  });
});

describe("scoreTotalsOf", () => {
  it("gives per name the count, the numeric mean, the true share and the labels, most counted name first", () => {
    // Prepare
    const values = [
      { name: "helpfulness", value: 0.5 },
      { name: "helpfulness", value: 1 },
      { name: "helpfulness", value: true },
      { name: "__proto__", value: "good" },
      { name: "__proto__", value: "good" },
      { name: "__proto__", value: "bad" },
      { name: "__proto__", value: false },
      { name: "thumbs", value: true },
    ];

    // Act
    const { totals, truncated } = scoreTotalsOf(values);

    // Assess
    expect(truncated).toBe(false);
    expect(totals.map((total) => total.name)).toEqual(["__proto__", "helpfulness", "thumbs"]);
    const [proto, helpfulness, thumbs] = totals;
    expect(proto).toMatchObject({
      count: 4,
      numeric: null,
      boolean: { count: 1, trueCount: 0, trueShare: 0 },
      labels: [
        { label: "good", count: 2 },
        { label: "bad", count: 1 },
      ],
    });
    expect(helpfulness?.count).toBe(3);
    expect(helpfulness?.numeric?.count).toBe(2);
    expect(helpfulness?.numeric?.mean).toBe(0.75);
    expect(helpfulness?.boolean).toEqual({ count: 1, trueCount: 1, trueShare: 1 });
    expect(thumbs).toMatchObject({ count: 1, boolean: { count: 1, trueCount: 1, trueShare: 1 }, labels: [] });
  });

  it("keeps the 20 most counted labels of a name and counts the rest as (other)", () => {
    // Prepare: label-0 … label-24, label-i given 30 - i times.
    const values = Array.from({ length: 25 }, (_, index) =>
      Array.from({ length: 30 - index }, () => ({ name: "topic", value: `label-${index}` })),
    ).flat();

    // Act
    const [topic] = scoreTotalsOf(values).totals;

    // Assess
    expect(topic?.count).toBe(values.length);
    expect(topic?.labels).toHaveLength(21);
    // (other) holds label-20 … label-24 (10 + 9 + 8 + 7 + 6 = 40), so it is shown first, as most counted.
    expect(topic?.labels[0]).toEqual({ label: OTHER_LABEL, count: 40 });
    expect(topic?.labels[1]).toEqual({ label: "label-0", count: 30 });
    expect(topic?.labels.some((entry) => entry.label === "label-20")).toBe(false);
    expect(topic?.labels.reduce((sum, entry) => sum + entry.count, 0)).toBe(values.length);
  });

  it("shows at most 50 names and says when it left some out", () => {
    const values = Array.from({ length: 51 }, (_, index) => ({ name: `n${index}`, value: index }));
    const { totals, truncated } = scoreTotalsOf(values);
    expect(totals).toHaveLength(50);
    expect(truncated).toBe(true);
    expect(scoreTotalsOf([]).totals).toEqual([]);
  });
});
