import { describe, expect, it } from "vitest";
import { LIMITS } from "../../functions/domain/limits.js";
import { createSessionBody, updateSessionBody } from "../../functions/schemas/session-schemas.js";
import { issuesOf, nestedObject, objectOfJsonBytes, sortedIssues } from "./schema-issues.js";

const VALID = { name: "nightly import", agentName: "importer", userId: "user-1" } as const;
const REQUIRED = ["name", "agentName", "userId"] as const;
const TINY_MESSAGE = `Must be 0 or at least ${LIMITS.smallestNonZero} in magnitude`;

describe("createSessionBody", () => {
  it("accepts the three required strings and passes them on", () => {
    // Prepare
    const body = { ...VALID };

    // Act
    const result = createSessionBody.safeParse(body);

    // Assess
    expect(result.success).toBe(true);
    expect(result.data).toEqual(VALID);
  });

  it("names every missing required field", () => {
    // Prepare
    const body = {};

    // Act
    const issues = issuesOf(createSessionBody, body);

    // Assess
    expect(issues).toEqual(sortedIssues(REQUIRED.map((path) => ({ path, message: "Required" }))));
  });

  it.each(REQUIRED)("rejects an empty %s", (field) => {
    // Prepare
    const body = { ...VALID, [field]: "" };

    // Act
    const issues = issuesOf(createSessionBody, body);

    // Assess
    expect(issues).toEqual([{ path: field, message: "Must not be empty" }]);
  });

  it.each(REQUIRED.flatMap((field) => [42, true, null, ["x"], { x: 1 }].map((value) => [field, value] as const)))(
    "rejects %s of the wrong type (%j)",
    (field, value) => {
      // Prepare
      const body = { ...VALID, [field]: value };

      // Act
      const issues = issuesOf(createSessionBody, body);

      // Assess
      expect(issues).toEqual([{ path: field, message: "Must be a string" }]);
    },
  );

  it.each(REQUIRED)(`accepts a %s of ${LIMITS.nameLength} characters and rejects one more`, (field) => {
    // Prepare
    const longest = { ...VALID, [field]: "n".repeat(LIMITS.nameLength) };
    const tooLong = { ...VALID, [field]: "n".repeat(LIMITS.nameLength + 1) };

    // Act
    const accepted = issuesOf(createSessionBody, longest);
    const rejected = issuesOf(createSessionBody, tooLong);

    // Assess
    expect(accepted).toEqual([]);
    expect(rejected).toEqual([{ path: field, message: `Must be at most ${LIMITS.nameLength} characters` }]);
  });

  it.each([
    ["a lone high surrogate", "agent \uD800"],
    ["a lone low surrogate", "\uDC00 agent"],
    ["a surrogate pair in the wrong order", "\uDE00\uD83D"],
  ])("rejects a string with %s", (_label, value) => {
    // Prepare
    const body = { ...VALID, agentName: value };

    // Act
    const issues = issuesOf(createSessionBody, body);

    // Assess
    expect(issues).toEqual([{ path: "agentName", message: "Must be valid Unicode text (no lone surrogates)" }]);
  });

  it("accepts well-formed text outside the BMP", () => {
    // Prepare
    const body = { ...VALID, name: "deploy 🚀 ünïcödé" };

    // Act
    const issues = issuesOf(createSessionBody, body);

    // Assess
    expect(issues).toEqual([]);
  });

  it("names each unknown top-level field", () => {
    // Prepare
    const body = { ...VALID, status: "active", sessionId: "x", extra: 1 };

    // Act
    const issues = issuesOf(createSessionBody, body);

    // Assess
    expect(issues).toEqual(
      sortedIssues([
        { path: "status", message: "Unknown field" },
        { path: "sessionId", message: "Unknown field" },
        { path: "extra", message: "Unknown field" },
      ]),
    );
  });

  it("treats a top-level __proto__ key as an unknown field", () => {
    // Prepare
    const body: unknown = JSON.parse('{"name":"n","agentName":"a","userId":"u","__proto__":{"admin":true}}');

    // Act
    const issues = issuesOf(createSessionBody, body);

    // Assess
    expect(issues).toEqual([{ path: "__proto__", message: "Unknown field" }]);
  });

  describe("metadata", () => {
    it("accepts a JSON object and passes on the very object sent", () => {
      // Prepare
      const metadata = { team: "data", tags: ["a", "b"], nested: { n: 1, ok: true, none: null } };
      const body = { ...VALID, metadata };

      // Act
      const result = createSessionBody.safeParse(body);

      // Assess
      expect(result.success).toBe(true);
      expect(result.data?.metadata).toBe(metadata);
    });

    it.each([
      ["an array", [1, 2]],
      ["a string", '{"a":1}'],
      ["a number", 7],
      ["a boolean", true],
    ])("rejects %s", (_label, metadata) => {
      // Prepare
      const body = { ...VALID, metadata };

      // Act
      const issues = issuesOf(createSessionBody, body);

      // Assess
      expect(issues).toEqual([{ path: "metadata", message: "Must be a JSON object" }]);
    });

    it("treats null as not sent", () => {
      // Prepare
      const body = { ...VALID, metadata: null };

      // Act
      const result = createSessionBody.safeParse(body);

      // Assess
      expect(result.success).toBe(true);
      expect(result.data?.metadata).toBeUndefined();
    });

    it(`accepts ${LIMITS.jsonDepth} levels of nesting and rejects one more`, () => {
      // Prepare
      const deepest = { ...VALID, metadata: nestedObject(LIMITS.jsonDepth) };
      const tooDeep = { ...VALID, metadata: nestedObject(LIMITS.jsonDepth + 1) };

      // Act
      const accepted = issuesOf(createSessionBody, deepest);
      const rejected = issuesOf(createSessionBody, tooDeep);

      // Assess
      expect(accepted).toEqual([]);
      expect(rejected).toEqual([{ path: "metadata", message: `Must nest at most ${LIMITS.jsonDepth} levels deep` }]);
    });

    it("counts arrays as nesting levels", () => {
      // Prepare: an object holding arrays of arrays, one level too deep in all.
      let value: unknown = [];
      for (let level = 2; level <= LIMITS.jsonDepth; level++) value = [value];
      const body = { ...VALID, metadata: { list: value } };

      // Act
      const issues = issuesOf(createSessionBody, body);

      // Assess
      expect(issues).toEqual([{ path: "metadata", message: `Must nest at most ${LIMITS.jsonDepth} levels deep` }]);
    });

    it("rejects a very deep object without overflowing the stack", () => {
      // Prepare
      const body = { ...VALID, metadata: nestedObject(100_000) };

      // Act
      const issues = issuesOf(createSessionBody, body);

      // Assess
      expect(issues).toEqual([{ path: "metadata", message: `Must nest at most ${LIMITS.jsonDepth} levels deep` }]);
    });

    it(`accepts ${LIMITS.metadataBytes} bytes of JSON and rejects one byte more`, () => {
      // Prepare
      const largest = { ...VALID, metadata: objectOfJsonBytes(LIMITS.metadataBytes) };
      const tooLarge = { ...VALID, metadata: objectOfJsonBytes(LIMITS.metadataBytes + 1) };

      // Act
      const accepted = issuesOf(createSessionBody, largest);
      const rejected = issuesOf(createSessionBody, tooLarge);

      // Assess
      expect(accepted).toEqual([]);
      expect(rejected).toEqual([
        { path: "metadata", message: `Must be at most ${LIMITS.metadataBytes} bytes as JSON` },
      ]);
    });

    it("measures the size in UTF-8 bytes, not characters", () => {
      // Prepare: "é" is 2 bytes; fewer characters than the limit, more bytes.
      const text = "é".repeat(LIMITS.metadataBytes / 2);
      const body = { ...VALID, metadata: { a: text } };

      // Act
      const issues = issuesOf(createSessionBody, body);

      // Assess
      expect(JSON.stringify(body.metadata).length).toBeLessThan(LIMITS.metadataBytes);
      expect(issues).toEqual([{ path: "metadata", message: `Must be at most ${LIMITS.metadataBytes} bytes as JSON` }]);
    });

    it("keeps a __proto__ key as an own data property of the object sent", () => {
      // Prepare
      const body = JSON.parse(
        '{"name":"n","agentName":"a","userId":"u","metadata":{"__proto__":{"polluted":true},"plain":1}}',
      ) as { metadata: Record<string, unknown> };
      const sent = body.metadata;

      // Act
      const result = createSessionBody.safeParse(body);

      // Assess
      expect(result.success).toBe(true);
      const metadata = result.data?.metadata;
      expect(metadata).toBe(sent);
      expect(metadata !== undefined && Object.hasOwn(metadata, "__proto__")).toBe(true);
      expect(Object.getPrototypeOf(metadata)).toBe(Object.prototype);
      expect(JSON.stringify(metadata)).toBe('{"__proto__":{"polluted":true},"plain":1}');
      expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    });
  });

  it("names every bad field of one body", () => {
    // Prepare
    const body = {
      name: "",
      agentName: 5,
      userId: "u".repeat(LIMITS.nameLength + 1),
      metadata: [],
      colour: "blue",
    };

    // Act
    const issues = issuesOf(createSessionBody, body);

    // Assess
    expect(issues).toEqual(
      sortedIssues([
        { path: "name", message: "Must not be empty" },
        { path: "agentName", message: "Must be a string" },
        { path: "userId", message: `Must be at most ${LIMITS.nameLength} characters` },
        { path: "metadata", message: "Must be a JSON object" },
        { path: "colour", message: "Unknown field" },
      ]),
    );
  });
});

describe("updateSessionBody", () => {
  it("accepts every field at once and passes the values on", () => {
    // Prepare
    const body = {
      status: "completed",
      success: true,
      failureReason: "retried twice",
      estimatedCost: 0.125,
      durationMs: 1500.5,
      promptTokens: 100,
      completionTokens: 20,
      totalTokens: 120,
      customMetrics: { latencyMs: 12.5, retries: 2, negative: -1 },
    };

    // Act
    const result = updateSessionBody.safeParse(body);

    // Assess
    expect(result.success).toBe(true);
    expect(result.data).toEqual(body);
  });

  it.each(["completed", "failed"])("accepts the final status %s alone", (status) => {
    // Prepare
    const body = { status };

    // Act
    const issues = issuesOf(updateSessionBody, body);

    // Assess
    expect(issues).toEqual([]);
  });

  it("rejects an empty body as having nothing to update", () => {
    // Prepare
    const body = {};

    // Act
    const issues = issuesOf(updateSessionBody, body);

    // Assess
    expect(issues).toEqual([{ path: "(body)", message: "Send at least one field to update" }]);
  });

  it("rejects a body whose fields are all null (null means not sent)", () => {
    // Prepare
    const body = { status: null, success: null, customMetrics: null };

    // Act
    const issues = issuesOf(updateSessionBody, body);

    // Assess
    expect(issues).toEqual([{ path: "(body)", message: "Send at least one field to update" }]);
  });

  it("accepts null for optional fields next to a real one, as not sent", () => {
    // Prepare
    const body = { durationMs: 10, status: null, failureReason: null, customMetrics: null };

    // Act
    const result = updateSessionBody.safeParse(body);

    // Assess
    expect(result.success).toBe(true);
    expect(result.data?.durationMs).toBe(10);
    expect(result.data?.status).toBeUndefined();
    expect(result.data?.failureReason).toBeUndefined();
    expect(result.data?.customMetrics).toBeUndefined();
  });

  it.each(["active", "COMPLETED", "done", 1])("rejects the status %j", (status) => {
    // Prepare
    const body = { status };

    // Act
    const issues = issuesOf(updateSessionBody, body);

    // Assess
    expect(issues).toEqual([{ path: "status", message: "Must be one of: completed, failed" }]);
  });

  it.each(["true", 1, {}])("rejects success %j that is not a boolean", (success) => {
    // Prepare
    const body = { success };

    // Act
    const issues = issuesOf(updateSessionBody, body);

    // Assess
    expect(issues).toEqual([{ path: "success", message: "Must be true or false" }]);
  });

  it("rejects a failed session that claims success, on the success field", () => {
    // Prepare
    const body = { status: "failed", success: true };

    // Act
    const issues = issuesOf(updateSessionBody, body);

    // Assess
    expect(issues).toEqual([{ path: "success", message: "A failed session cannot be successful" }]);
  });

  it.each([
    ["a wrong type", { durationMs: "fast" }, "durationMs", `Must be a number from 0 to ${LIMITS.maxDurationMs}`],
    [
      "a non-integer token count",
      { promptTokens: 1.5 },
      "promptTokens",
      `Must be an integer from 0 to ${LIMITS.maxTokens}`,
    ],
  ])("still reports a failed session that claims success when another field has %s", (_label, extra, path, message) => {
    // Prepare
    const body = { status: "failed", success: true, ...extra };

    // Act
    const issues = issuesOf(updateSessionBody, body);

    // Assess
    expect(issues).toEqual(
      sortedIssues([
        { path, message },
        { path: "success", message: "A failed session cannot be successful" },
      ]),
    );
  });

  it("accepts a failed session with success false and a completed one with either", () => {
    // Prepare
    const bodies = [
      { status: "failed", success: false },
      { status: "completed", success: true },
      { status: "completed", success: false },
    ];

    // Act
    const issues = bodies.map((body) => issuesOf(updateSessionBody, body));

    // Assess
    expect(issues).toEqual([[], [], []]);
  });

  it(`accepts a failureReason of ${LIMITS.failureReasonLength} characters and rejects one more or an empty one`, () => {
    // Prepare
    const longest = { failureReason: "r".repeat(LIMITS.failureReasonLength) };
    const tooLong = { failureReason: "r".repeat(LIMITS.failureReasonLength + 1) };
    const empty = { failureReason: "" };

    // Act
    const results = [longest, tooLong, empty].map((body) => issuesOf(updateSessionBody, body));

    // Assess
    expect(results).toEqual([
      [],
      [{ path: "failureReason", message: `Must be at most ${LIMITS.failureReasonLength} characters` }],
      [{ path: "failureReason", message: "Must not be empty" }],
    ]);
  });

  it("rejects a failureReason with a lone surrogate", () => {
    // Prepare
    const body = { failureReason: "broke \uDBFF here" };

    // Act
    const issues = issuesOf(updateSessionBody, body);

    // Assess
    expect(issues).toEqual([{ path: "failureReason", message: "Must be valid Unicode text (no lone surrogates)" }]);
  });

  describe.each([
    ["estimatedCost", LIMITS.maxCostUsd, "Must be a number from 0 to 1000000"],
    ["durationMs", LIMITS.maxDurationMs, "Must be a number from 0 to 31536000000"],
  ] as const)("%s", (field, max, message) => {
    it(`accepts 0, a fraction, the smallest non-zero magnitude and ${max}`, () => {
      // Prepare
      const values = [0, 0.5, LIMITS.smallestNonZero, max];

      // Act
      const results = values.map((value) => issuesOf(updateSessionBody, { [field]: value }));

      // Assess
      expect(results).toEqual([[], [], [], []]);
    });

    it.each([-1, -0.001, max + 1, "5", true])("rejects %j", (value) => {
      // Prepare
      const body = { [field]: value };

      // Act
      const issues = issuesOf(updateSessionBody, body);

      // Assess
      expect(issues).toEqual([{ path: field, message }]);
    });

    it("rejects a non-zero magnitude below the smallest DynamoDB can keep", () => {
      // Prepare
      const body = { [field]: LIMITS.smallestNonZero / 10 };

      // Act
      const issues = issuesOf(updateSessionBody, body);

      // Assess
      expect(issues).toEqual([{ path: field, message: TINY_MESSAGE }]);
    });
  });

  describe.each(["promptTokens", "completionTokens", "totalTokens"] as const)("%s", (field) => {
    const message = `Must be an integer from 0 to ${LIMITS.maxTokens}`;

    it(`accepts 0, 1 and ${LIMITS.maxTokens}`, () => {
      // Prepare
      const values = [0, 1, LIMITS.maxTokens];

      // Act
      const results = values.map((value) => issuesOf(updateSessionBody, { [field]: value }));

      // Assess
      expect(results).toEqual([[], [], []]);
    });

    it.each([-1, 1.5, LIMITS.maxTokens + 1, "10", LIMITS.smallestNonZero / 10])("rejects %j", (value) => {
      // Prepare
      const body = { [field]: value };

      // Act
      const issues = issuesOf(updateSessionBody, body);

      // Assess
      expect(issues).toEqual([{ path: field, message }]);
    });
  });

  describe("customMetrics", () => {
    it("passes on the very object sent", () => {
      // Prepare
      const customMetrics = { latencyMs: 12.5, "cache.hits": 3, zero: 0 };

      // Act
      const result = updateSessionBody.safeParse({ customMetrics });

      // Assess
      expect(result.success).toBe(true);
      expect(result.data?.customMetrics).toBe(customMetrics);
    });

    it.each([
      ["an array", [1, 2]],
      ["a string", "latency=1"],
      ["a number", 3],
    ])("rejects %s", (_label, customMetrics) => {
      // Prepare
      const body = { customMetrics };

      // Act
      const issues = issuesOf(updateSessionBody, body);

      // Assess
      expect(issues).toEqual([{ path: "customMetrics", message: "Must be a JSON object of metric name to number" }]);
    });

    it.each([
      ["a string", "12"],
      ["a nested object", { p50: 1 }],
      ["an array", [1]],
      ["null", null],
      ["a boolean", true],
    ])("rejects %s as a value, naming the metric", (_label, value) => {
      // Prepare
      const body = { customMetrics: { fine: 1, latency: value } };

      // Act
      const issues = issuesOf(updateSessionBody, body);

      // Assess
      expect(issues).toEqual([{ path: "customMetrics.latency", message: "Must be a finite number" }]);
    });

    it(`accepts ${LIMITS.customMetricCount} metrics and rejects one more`, () => {
      // Prepare
      const metrics = (count: number) => Object.fromEntries(Array.from({ length: count }, (_, i) => [`m${i}`, i]));

      // Act
      const accepted = issuesOf(updateSessionBody, { customMetrics: metrics(LIMITS.customMetricCount) });
      const rejected = issuesOf(updateSessionBody, { customMetrics: metrics(LIMITS.customMetricCount + 1) });

      // Assess
      expect(accepted).toEqual([]);
      expect(rejected).toEqual([
        { path: "customMetrics", message: `Must have at most ${LIMITS.customMetricCount} metrics` },
      ]);
    });

    it(`accepts a metric name of ${LIMITS.metricNameLength} characters and rejects a longer or empty one`, () => {
      // Prepare
      const longest = "n".repeat(LIMITS.metricNameLength);
      const tooLong = "n".repeat(LIMITS.metricNameLength + 1);
      const message = `Metric names must be 1 to ${LIMITS.metricNameLength} characters`;

      // Act
      const accepted = issuesOf(updateSessionBody, { customMetrics: { [longest]: 1 } });
      const rejected = issuesOf(updateSessionBody, { customMetrics: { [tooLong]: 1, "": 2 } });

      // Assess
      expect(accepted).toEqual([]);
      expect(rejected).toEqual(
        sortedIssues([
          { path: `customMetrics.${tooLong}`, message },
          { path: "customMetrics.", message },
        ]),
      );
    });
  });

  it("names every bad field of one body", () => {
    // Prepare
    const body = {
      status: "failed",
      success: true,
      failureReason: "",
      estimatedCost: -1,
      durationMs: "fast",
      promptTokens: 1.5,
      completionTokens: -3,
      totalTokens: LIMITS.maxTokens + 1,
      customMetrics: { latency: "slow" },
      colour: "blue",
    };

    // Act
    const issues = issuesOf(updateSessionBody, body);

    // Assess
    const tokens = `Must be an integer from 0 to ${LIMITS.maxTokens}`;
    expect(issues).toEqual(
      sortedIssues([
        { path: "success", message: "A failed session cannot be successful" },
        { path: "failureReason", message: "Must not be empty" },
        { path: "estimatedCost", message: `Must be a number from 0 to ${LIMITS.maxCostUsd}` },
        { path: "durationMs", message: `Must be a number from 0 to ${LIMITS.maxDurationMs}` },
        { path: "promptTokens", message: tokens },
        { path: "completionTokens", message: tokens },
        { path: "totalTokens", message: tokens },
        { path: "customMetrics.latency", message: "Must be a finite number" },
        { path: "colour", message: "Unknown field" },
      ]),
    );
  });
});
