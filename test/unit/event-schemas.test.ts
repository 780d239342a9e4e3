import { describe, expect, it } from "vitest";
import { EVENT_TYPES } from "../../functions/domain/event.js";
import { LIMITS } from "../../functions/domain/limits.js";
import { batchEventItem, createEventBody } from "../../functions/schemas/event-schemas.js";
import { issuesOf, nestedObject, objectOfJsonBytes, sortedIssues } from "./schema-issues.js";

const VALID = { sessionId: "ses_01ARZ3NDEKTSV4RRFFQ69G5FAV", eventType: "tool_call" } as const;
const EVENT_TYPE_MESSAGE = "Must be one of: tool_call, llm_decision, state_change, error";
const LONE_SURROGATE_MESSAGE = "Must be valid Unicode text (no lone surrogates)";
const TINY_MESSAGE = `Must be 0 or at least ${LIMITS.smallestNonZero} in magnitude`;

describe("createEventBody", () => {
  it("accepts every field at once and passes the values on", () => {
    // Prepare
    const body = {
      sessionId: VALID.sessionId,
      eventType: "llm_decision",
      toolName: "search",
      toolInput: { query: "weather", limit: 3 },
      toolOutput: { results: [{ title: "Sunny" }] },
      reasoning: "The user asked about the weather.",
      alternativesConsidered: ["ask the user", "do nothing"],
      confidence: 0.8,
      estimatedCost: 0.002,
    };

    // Act
    const result = createEventBody.safeParse(body);

    // Assess
    expect(result.success).toBe(true);
    expect(result.data).toEqual(body);
    expect(result.data?.toolInput).toBe(body.toolInput);
    expect(result.data?.toolOutput).toBe(body.toolOutput);
  });

  it("lists exactly the four documented event types", () => {
    // Prepare
    const expected = ["tool_call", "llm_decision", "state_change", "error"];

    // Act
    const types = [...EVENT_TYPES];

    // Assess
    expect(types).toEqual(expected);
  });

  it.each(["tool_call", "llm_decision", "state_change", "error"])("accepts the event type %s", (eventType) => {
    // Prepare
    const body = { ...VALID, eventType };

    // Act
    const issues = issuesOf(createEventBody, body);

    // Assess
    expect(issues).toEqual([]);
  });

  it.each(["toolCall", "TOOL_CALL", "", "warning", 1, null])(
    "rejects the event type %j, listing the four",
    (eventType) => {
      // Prepare
      const body = { ...VALID, eventType };

      // Act
      const issues = issuesOf(createEventBody, body);

      // Assess
      expect(issues).toEqual([{ path: "eventType", message: EVENT_TYPE_MESSAGE }]);
    },
  );

  it("names both missing required fields", () => {
    // Prepare
    const body = {};

    // Act
    const issues = issuesOf(createEventBody, body);

    // Assess
    expect(issues).toEqual([
      { path: "eventType", message: "Required" },
      { path: "sessionId", message: "Required" },
    ]);
  });

  it.each([
    ["empty", "", "Must not be empty"],
    ["a number", 12, "Must be a string"],
    ["null", null, "Must be a string"],
    ["too long", "s".repeat(LIMITS.nameLength + 1), `Must be at most ${LIMITS.nameLength} characters`],
    ["a lone surrogate", "ses_\uD800", LONE_SURROGATE_MESSAGE],
  ])("rejects a sessionId that is %s", (_label, sessionId, message) => {
    // Prepare
    const body = { ...VALID, sessionId };

    // Act
    const issues = issuesOf(createEventBody, body);

    // Assess
    expect(issues).toEqual([{ path: "sessionId", message }]);
  });

  it("names each unknown top-level field", () => {
    // Prepare
    const body = { ...VALID, type: "tool_call", orgId: "other-org" };

    // Act
    const issues = issuesOf(createEventBody, body);

    // Assess
    expect(issues).toEqual([
      { path: "orgId", message: "Unknown field" },
      { path: "type", message: "Unknown field" },
    ]);
  });

  it("treats null as not sent for every optional field", () => {
    // Prepare
    const body = {
      ...VALID,
      toolName: null,
      toolInput: null,
      toolOutput: null,
      reasoning: null,
      alternativesConsidered: null,
      confidence: null,
      estimatedCost: null,
      durationMs: null,
    };

    // Act
    const result = createEventBody.safeParse(body);

    // Assess
    expect(result.success).toBe(true);
    expect(result.data).toEqual(VALID);
  });

  describe("toolName", () => {
    it(`accepts ${LIMITS.nameLength} characters and rejects one more or none`, () => {
      // Prepare
      const bodies = [
        { ...VALID, toolName: "t".repeat(LIMITS.nameLength) },
        { ...VALID, toolName: "t".repeat(LIMITS.nameLength + 1) },
        { ...VALID, toolName: "" },
        { ...VALID, toolName: 3 },
      ];

      // Act
      const results = bodies.map((body) => issuesOf(createEventBody, body));

      // Assess
      expect(results).toEqual([
        [],
        [{ path: "toolName", message: `Must be at most ${LIMITS.nameLength} characters` }],
        [{ path: "toolName", message: "Must not be empty" }],
        [{ path: "toolName", message: "Must be a string" }],
      ]);
    });
  });

  describe.each(["toolInput", "toolOutput"] as const)("%s", (field) => {
    it.each([
      ["an array", [{ a: 1 }]],
      ["a string", '{"a":1}'],
      ["a number", 0],
      ["a boolean", false],
    ])("rejects %s", (_label, value) => {
      // Prepare
      const body = { ...VALID, [field]: value };

      // Act
      const issues = issuesOf(createEventBody, body);

      // Assess
      expect(issues).toEqual([{ path: field, message: "Must be a JSON object" }]);
    });

    it(`accepts ${LIMITS.jsonDepth} levels of nesting and rejects one more`, () => {
      // Prepare
      const deepest = { ...VALID, [field]: nestedObject(LIMITS.jsonDepth) };
      const tooDeep = { ...VALID, [field]: nestedObject(LIMITS.jsonDepth + 1) };

      // Act
      const accepted = issuesOf(createEventBody, deepest);
      const rejected = issuesOf(createEventBody, tooDeep);

      // Assess
      expect(accepted).toEqual([]);
      expect(rejected).toEqual([{ path: field, message: `Must nest at most ${LIMITS.jsonDepth} levels deep` }]);
    });

    it(`accepts ${LIMITS.toolPayloadBytes} bytes of JSON and rejects one byte more`, () => {
      // Prepare
      const largest = { ...VALID, [field]: objectOfJsonBytes(LIMITS.toolPayloadBytes) };
      const tooLarge = { ...VALID, [field]: objectOfJsonBytes(LIMITS.toolPayloadBytes + 1) };

      // Act
      const accepted = issuesOf(createEventBody, largest);
      const rejected = issuesOf(createEventBody, tooLarge);

      // Assess
      expect(accepted).toEqual([]);
      expect(rejected).toEqual([{ path: field, message: `Must be at most ${LIMITS.toolPayloadBytes} bytes as JSON` }]);
    });

    it("keeps a __proto__ key as an own data property of the object sent", () => {
      // Prepare
      const body = JSON.parse(
        `{"sessionId":"s","eventType":"tool_call","${field}":{"__proto__":{"isAdmin":true}}}`,
      ) as Record<string, unknown>;
      const sent = body[field];

      // Act
      const result = createEventBody.safeParse(body);

      // Assess
      expect(result.success).toBe(true);
      const parsed = result.data?.[field];
      expect(parsed).toBe(sent);
      expect(parsed !== undefined && Object.hasOwn(parsed, "__proto__")).toBe(true);
      expect(Object.getPrototypeOf(parsed)).toBe(Object.prototype);
    });
  });

  describe("reasoning", () => {
    it(`accepts ${LIMITS.reasoningLength} characters and rejects one more, none, or a lone surrogate`, () => {
      // Prepare
      const bodies = [
        { ...VALID, reasoning: "r".repeat(LIMITS.reasoningLength) },
        { ...VALID, reasoning: "r".repeat(LIMITS.reasoningLength + 1) },
        { ...VALID, reasoning: "" },
        { ...VALID, reasoning: "because \uDC01" },
      ];

      // Act
      const results = bodies.map((body) => issuesOf(createEventBody, body));

      // Assess
      expect(results).toEqual([
        [],
        [{ path: "reasoning", message: `Must be at most ${LIMITS.reasoningLength} characters` }],
        [{ path: "reasoning", message: "Must not be empty" }],
        [{ path: "reasoning", message: LONE_SURROGATE_MESSAGE }],
      ]);
    });
  });

  describe("alternativesConsidered", () => {
    it.each([
      ["a string", "retry"],
      ["an object", { first: "retry" }],
      ["a number", 2],
    ])("rejects %s", (_label, alternativesConsidered) => {
      // Prepare
      const body = { ...VALID, alternativesConsidered };

      // Act
      const issues = issuesOf(createEventBody, body);

      // Assess
      expect(issues).toEqual([{ path: "alternativesConsidered", message: "Must be an array of strings" }]);
    });

    it("names each bad entry by its index", () => {
      // Prepare
      const body = {
        ...VALID,
        alternativesConsidered: ["fine", 7, "", "a".repeat(LIMITS.alternativeLength + 1), "\uD801", null],
      };

      // Act
      const issues = issuesOf(createEventBody, body);

      // Assess
      expect(issues).toEqual(
        sortedIssues([
          { path: "alternativesConsidered.1", message: "Must be a string" },
          { path: "alternativesConsidered.2", message: "Must not be empty" },
          {
            path: "alternativesConsidered.3",
            message: `Must be at most ${LIMITS.alternativeLength} characters`,
          },
          { path: "alternativesConsidered.4", message: LONE_SURROGATE_MESSAGE },
          { path: "alternativesConsidered.5", message: "Must be a string" },
        ]),
      );
    });

    it(`accepts an entry of ${LIMITS.alternativeLength} characters and an empty list`, () => {
      // Prepare
      const bodies = [
        { ...VALID, alternativesConsidered: ["a".repeat(LIMITS.alternativeLength)] },
        { ...VALID, alternativesConsidered: [] },
      ];

      // Act
      const results = bodies.map((body) => issuesOf(createEventBody, body));

      // Assess
      expect(results).toEqual([[], []]);
    });

    it(`accepts ${LIMITS.alternativesCount} entries and rejects one more`, () => {
      // Prepare
      const entries = (count: number) => Array.from({ length: count }, (_, i) => `option ${i}`);

      // Act
      const accepted = issuesOf(createEventBody, {
        ...VALID,
        alternativesConsidered: entries(LIMITS.alternativesCount),
      });
      const rejected = issuesOf(createEventBody, {
        ...VALID,
        alternativesConsidered: entries(LIMITS.alternativesCount + 1),
      });

      // Assess
      expect(accepted).toEqual([]);
      expect(rejected).toEqual([
        { path: "alternativesConsidered", message: `Must have at most ${LIMITS.alternativesCount} entries` },
      ]);
    });
  });

  describe("confidence", () => {
    it("accepts 0, 1 and values between", () => {
      // Prepare
      const values = [0, 0.5, 1, LIMITS.smallestNonZero];

      // Act
      const results = values.map((confidence) => issuesOf(createEventBody, { ...VALID, confidence }));

      // Assess
      expect(results).toEqual([[], [], [], []]);
    });

    it.each([-0.01, 1.01, 2, -1, "0.5", true])("rejects %j", (confidence) => {
      // Prepare
      const body = { ...VALID, confidence };

      // Act
      const issues = issuesOf(createEventBody, body);

      // Assess
      expect(issues).toEqual([{ path: "confidence", message: "Must be a number from 0 to 1" }]);
    });

    it("rejects a non-zero magnitude below the smallest DynamoDB can keep", () => {
      // Prepare
      const body = { ...VALID, confidence: 1e-101 };

      // Act
      const issues = issuesOf(createEventBody, body);

      // Assess
      expect(issues).toEqual([{ path: "confidence", message: TINY_MESSAGE }]);
    });
  });

  describe("estimatedCost", () => {
    const message = `Must be a number from 0 to ${LIMITS.maxCostUsd}`;

    it(`accepts 0, a small fraction and ${LIMITS.maxCostUsd}`, () => {
      // Prepare
      const values = [0, 0.000001, LIMITS.maxCostUsd];

      // Act
      const results = values.map((estimatedCost) => issuesOf(createEventBody, { ...VALID, estimatedCost }));

      // Assess
      expect(results).toEqual([[], [], []]);
    });

    it.each([-0.5, LIMITS.maxCostUsd + 0.01, "1", {}])("rejects %j", (estimatedCost) => {
      // Prepare
      const body = { ...VALID, estimatedCost };

      // Act
      const issues = issuesOf(createEventBody, body);

      // Assess
      expect(issues).toEqual([{ path: "estimatedCost", message }]);
    });

    it("rejects a non-zero magnitude below the smallest DynamoDB can keep", () => {
      // Prepare
      const body = { ...VALID, estimatedCost: 5e-200 };

      // Act
      const issues = issuesOf(createEventBody, body);

      // Assess
      expect(issues).toEqual([{ path: "estimatedCost", message: TINY_MESSAGE }]);
    });
  });

  describe("durationMs", () => {
    const message = `Must be an integer from 0 to ${LIMITS.maxDurationMs}`;

    it(`accepts 0, 2000 and ${LIMITS.maxDurationMs} (one year), and passes the value on`, () => {
      // Prepare
      const values = [0, 2000, LIMITS.maxDurationMs];

      // Act
      const parsed = values.map((durationMs) => createEventBody.safeParse({ ...VALID, durationMs }).data?.durationMs);

      // Assess
      expect(parsed).toEqual(values);
    });

    it("is optional: an event without it is a point in time", () => {
      // Act
      const result = createEventBody.safeParse(VALID);

      // Assess
      expect(result.success).toBe(true);
      expect(result.data).not.toHaveProperty("durationMs");
    });

    it.each([-1, LIMITS.maxDurationMs + 1, 1.5, "2000", true, {}, [], Number.NaN])("rejects %j", (durationMs) => {
      // Prepare
      const body = { ...VALID, durationMs };

      // Act
      const issues = issuesOf(createEventBody, body);

      // Assess
      expect(issues).toEqual([{ path: "durationMs", message }]);
    });

    it("is a field of a batch's events too, refused by name", () => {
      // Act
      const accepted = batchEventItem.safeParse({ ...VALID, durationMs: 42, idempotencyKey: "k-1" });
      const issues = issuesOf(batchEventItem, { ...VALID, durationMs: -5 });

      // Assess
      expect(accepted.data?.durationMs).toBe(42);
      expect(issues).toEqual([{ path: "durationMs", message }]);
    });
  });

  it("names every bad field of one body", () => {
    // Prepare
    const body = {
      sessionId: "",
      eventType: "thinking",
      toolName: 9,
      toolInput: [],
      toolOutput: "ok",
      reasoning: "x".repeat(LIMITS.reasoningLength + 1),
      alternativesConsidered: "none",
      confidence: 1.5,
      estimatedCost: -2,
      severity: "high",
    };

    // Act
    const issues = issuesOf(createEventBody, body);

    // Assess
    expect(issues).toEqual(
      sortedIssues([
        { path: "sessionId", message: "Must not be empty" },
        { path: "eventType", message: EVENT_TYPE_MESSAGE },
        { path: "toolName", message: "Must be a string" },
        { path: "toolInput", message: "Must be a JSON object" },
        { path: "toolOutput", message: "Must be a JSON object" },
        { path: "reasoning", message: `Must be at most ${LIMITS.reasoningLength} characters` },
        { path: "alternativesConsidered", message: "Must be an array of strings" },
        { path: "confidence", message: "Must be a number from 0 to 1" },
        { path: "estimatedCost", message: `Must be a number from 0 to ${LIMITS.maxCostUsd}` },
        { path: "severity", message: "Unknown field" },
      ]),
    );
  });
});
