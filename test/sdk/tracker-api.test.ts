/** Construction checks, the current run through `await`, and what `trace`, `wrapTool` and `end` send. */
import { afterEach, describe, expect, it, vi } from "vitest";
import { AgentTracker, AtsConfigurationError, currentRun, type Run, wrapTool } from "../../sdk/src/index.js";
import { scriptedFetch, sentEvents, TEST_KEY, TEST_URL, scriptedTracker as tracker } from "./support/scripted-fetch.js";

afterEach(() => {
  vi.unstubAllEnvs();
});

describe("construction", () => {
  it("misuse is a typed error at construction, naming the problem", () => {
    vi.stubEnv("ATS_API_KEY", "");
    vi.stubEnv("ATS_BASE_URL", "");
    const cases: [Record<string, unknown>, RegExp][] = [
      [{ baseUrl: TEST_URL }, /No API key/],
      [{ apiKey: "sk-not-ours", baseUrl: TEST_URL }, /does not look like an ats key/],
      [{ apiKey: TEST_KEY }, /No base URL/],
      [{ apiKey: TEST_KEY, baseUrl: "localhost:3000" }, /must be http\(s\)|not a URL/],
      [{ apiKey: TEST_KEY, baseUrl: "ftp://example.com" }, /must be http\(s\)/],
      [{ apiKey: TEST_KEY, baseUrl: "https://user:pw@example.com" }, /credentials/],
      [{ apiKey: TEST_KEY, baseUrl: TEST_URL, sampleRate: 2 }, /sampleRate/],
      [{ apiKey: TEST_KEY, baseUrl: TEST_URL, maxBatchSize: 500 }, /maxBatchSize/],
      [{ apiKey: TEST_KEY, baseUrl: TEST_URL, mode: "sometimes" }, /mode/],
      [{ apiKey: TEST_KEY, baseUrl: TEST_URL, onError: "log" }, /onError/],
    ];
    for (const [options, message] of cases) {
      let thrown: unknown;
      try {
        new AgentTracker(options as never);
      } catch (error) {
        thrown = error;
      }
      expect(thrown, JSON.stringify(options)).toBeInstanceOf(AtsConfigurationError);
      expect((thrown as Error).message).toMatch(message);
    }
  });

  it("takes the key and URL from ATS_API_KEY / ATS_BASE_URL, and trims a trailing slash", async () => {
    vi.stubEnv("ATS_API_KEY", TEST_KEY);
    vi.stubEnv("ATS_BASE_URL", "http://env.test/");
    const service = scriptedFetch();
    const ats = new AgentTracker({ fetch: service.fetch });
    await ats.startSession({ name: "n", agentName: "a", userId: "u" });
    await ats.shutdown();
    expect(service.requests[0]?.path).toBe("/api/sdk/sessions");
    expect(service.requests[0]?.headers.authorization).toBe(`Bearer ${TEST_KEY}`);
  });
});

describe("the current run", () => {
  it("follows each trace through awaits, timers and Promise.all, without mixing concurrent traces", async () => {
    const { ats, errors } = tracker();
    const seen: [string, string | undefined][] = [];
    const step = async (label: string) => {
      await new Promise((resolve) => setTimeout(resolve, Math.random() * 5));
      seen.push([label, currentRun()?.name]);
    };
    await Promise.all(
      ["alpha", "beta", "gamma"].map((name) =>
        ats.trace({ name, agentName: "ctx", userId: "u" }, async () => {
          await step(name);
          await Promise.all([step(name), step(name)]);
          setTimeout(() => seen.push([name, currentRun()?.name]), 1);
          await new Promise((resolve) => setTimeout(resolve, 5));
        }),
      ),
    );
    expect(seen).toHaveLength(12);
    for (const [label, name] of seen) expect(name).toBe(label);
    expect(currentRun()).toBeUndefined();
    await ats.shutdown();
    expect(errors).toEqual([]);
  });

  it("runWith makes a startSession run current", async () => {
    const { ats } = tracker();
    const run = await ats.startSession({ name: "n", agentName: "a", userId: "u" });
    const inside = await ats.runWith(run, async () => {
      await Promise.resolve();
      return currentRun();
    });
    expect(inside).toBe(run);
    await ats.shutdown();
  });
});

describe("trace, wrapTool and end", () => {
  it("end fills in duration, token totals and cost from the run unless given", async () => {
    const { ats, requests } = tracker();
    const run = await ats.startSession({ name: "n", agentName: "a", userId: "u" });
    run.llmCall({ model: "m", promptTokens: 10, completionTokens: 5, estimatedCost: 0.5 });
    run.llmCall({ model: "m", promptTokens: 20, completionTokens: 1, totalTokens: 22, estimatedCost: 0.25 });
    run.toolCall({ toolName: "t", estimatedCost: 0.25 });
    await new Promise((resolve) => setTimeout(resolve, 20));
    await run.end();
    const other = await ats.startSession({ name: "n2", agentName: "a", userId: "u" });
    await other.end({ durationMs: 5, promptTokens: 1, estimatedCost: 9, status: "failed", failureReason: "x" });
    await ats.shutdown();
    const end = requests.find((request) => request.path === `/api/sdk/sessions/${run.id}`)?.body;
    expect(end).toMatchObject({
      status: "completed",
      promptTokens: 30,
      completionTokens: 6,
      totalTokens: 37,
      estimatedCost: 1,
    });
    expect(end?.durationMs).toBeGreaterThanOrEqual(20);
    const otherEnd = requests.find((request) => request.path === `/api/sdk/sessions/${other.id}`)?.body;
    expect(otherEnd).toEqual({
      status: "failed",
      durationMs: 5,
      completedAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT.*Z$/),
      promptTokens: 1,
      estimatedCost: 9,
      failureReason: "x",
    });
  });

  it("a second end is reported and not sent; an event after end is still sent (late events are kept)", async () => {
    const { ats, requests, errors } = tracker();
    const run: Run = await ats.startSession({ name: "n", agentName: "a", userId: "u" });
    await run.end();
    run.toolCall({ toolName: "late" });
    await run.end({ status: "failed" });
    await ats.shutdown();
    expect(requests.filter((request) => request.method === "PATCH")).toHaveLength(1);
    expect(sentEvents(requests).map((event) => event.toolName)).toEqual(["late"]);
    expect(errors.map((error) => error.code)).toEqual(["usage"]);
  });

  it("wrapTool outside any run just calls the tool; sync and async results and errors pass through unchanged", async () => {
    const { ats, requests } = tracker();
    const double = wrapTool("double", (n: number) => n * 2);
    const fail = wrapTool("fail", async () => {
      throw new SyntaxError("nope");
    });
    expect(double(2)).toBe(4);
    await expect(fail()).rejects.toBeInstanceOf(SyntaxError);
    const result = await ats.trace({ name: "n", agentName: "a", userId: "u" }, async () => {
      const value = double(21);
      await fail().catch(() => undefined);
      return value;
    });
    expect(result).toBe(42);
    await ats.shutdown();
    expect(sentEvents(requests).map((event) => [event.eventType, event.toolName])).toEqual([
      ["tool_call", "double"],
      ["tool_call", "fail"],
      ["error", "fail"],
    ]);
  });

  it("wrapTool stamps a call's start as occurredAt and sends how long it took as durationMs; the error event is at its end", async () => {
    // Prepare: an async tool that takes 30 ms, and a sync one that throws at once.
    const { ats, requests, errors } = tracker();
    const slow = wrapTool("slow", async (order: string) => {
      await new Promise((resolve) => setTimeout(resolve, 30));
      return order;
    });
    const broken = wrapTool("broken", () => {
      throw new RangeError("bad");
    });
    let before = 0;
    let after = 0;

    // Act
    await ats.trace({ name: "n", agentName: "a", userId: "u" }, async () => {
      before = Date.now();
      await slow("A-1");
      after = Date.now();
      expect(() => broken()).toThrow(RangeError);
    });
    await ats.shutdown();

    // Assess
    const [timed, failed, failure] = sentEvents(requests);
    expect([timed?.toolName, failed?.toolName, failure?.eventType]).toEqual(["slow", "broken", "error"]);
    const started = Date.parse(String(timed?.occurredAt));
    expect(started).toBeGreaterThanOrEqual(before);
    expect(started).toBeLessThanOrEqual(after - 25);
    expect(timed?.durationMs).toBeGreaterThanOrEqual(25);
    expect(started + Number(timed?.durationMs)).toBeLessThanOrEqual(after);
    expect(Number.isInteger(timed?.durationMs)).toBe(true);
    expect((timed?.toolOutput as { durationMs?: number } | undefined)?.durationMs).toBe(timed?.durationMs);
    expect(failed?.durationMs).toBeGreaterThanOrEqual(0);
    expect(failure).not.toHaveProperty("durationMs");
    expect(errors).toEqual([]);
  });

  it("every event method sends a given durationMs rounded to whole milliseconds, and leaves out one the service would refuse", async () => {
    // Prepare
    const { ats, requests } = tracker();
    const run = await ats.startSession({ name: "n", agentName: "a", userId: "u" });

    // Act
    run.toolCall({ toolName: "t", occurredAt: "2026-11-22T10:00:00Z", durationMs: 1234.4 });
    run.decision({ reasoning: "r", durationMs: 0 });
    run.stateChange({ to: "b", durationMs: -1 });
    run.error({ message: "m", durationMs: Number.POSITIVE_INFINITY });
    run.llmCall({ model: "gpt-4o-mini", durationMs: 366 * 24 * 60 * 60 * 1000 });
    await run.end();
    await ats.shutdown();

    // Assess
    expect(sentEvents(requests).map((event) => [event.eventType, event.durationMs])).toEqual([
      ["tool_call", 1234],
      ["llm_decision", 0],
      ["state_change", undefined],
      ["error", undefined],
      ["llm_decision", undefined],
    ]);
    expect(sentEvents(requests)[0]?.occurredAt).toBe("2026-11-22T10:00:00.000Z");
  });

  it("a failure reason built from a huge exception message is cut to the service's 4,096 characters", async () => {
    const { ats, requests } = tracker();
    await expect(
      ats.trace({ name: "n", agentName: "a", userId: "u" }, () => {
        throw new Error("x".repeat(10_000));
      }),
    ).rejects.toThrow();
    await ats.shutdown();
    const end = requests.find((request) => request.method === "PATCH")?.body;
    expect(String(end?.failureReason).length).toBe(4_096);
    expect(end).toMatchObject({ status: "failed", success: false });
  });

  it("prototype names as tool names, metadata keys and metric names are sent as data", async () => {
    const { ats, requests } = tracker();
    const run = await ats.startSession({
      name: "n",
      agentName: "a",
      userId: "u",
      metadata: JSON.parse('{"__proto__":{"polluted":true},"constructor":1}'),
    });
    run.toolCall({ toolName: "__proto__", toolInput: JSON.parse('{"__proto__":{"x":1}}') });
    await run.end({ customMetrics: JSON.parse('{"__proto__":1,"toString":2}') });
    await ats.shutdown();
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    const create = requests.find((request) => request.path === "/api/sdk/sessions");
    expect(Object.keys(create?.body.metadata as object)).toEqual(["__proto__", "constructor"]);
    expect(Object.keys(sentEvents(requests)[0]?.toolInput as object)).toEqual(["__proto__"]);
  });
});
