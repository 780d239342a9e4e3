// @vitest-environment jsdom
import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { cleanup, render, screen, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { afterEach, describe, expect, test, vi } from "vitest";
import type { SessionEvent } from "../../web/src/api/types";
import { Timeline } from "../../web/src/components/Timeline";
import { Waterfall } from "../../web/src/components/Waterfall";
import { formatTickOffset } from "../../web/src/lib/format";
import { buildTimeline, modelUsage, stackTraceOf, timeAxis, timeTicks } from "../../web/src/lib/timeline";

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

const START = "2026-11-22T10:00:00.000Z";
const SESSION = {
  createdAt: START,
  completedAt: "2026-11-22T10:00:10.000Z",
  durationMs: 10_000,
  lastActivityAt: "2026-11-22T10:00:10.000Z",
};

function renderRun(list: SessionEvent[]) {
  const entries = buildTimeline(list, START);
  return render(
    <QueryClientProvider client={new QueryClient()}>
      <Waterfall entries={entries} session={SESSION} />
      <Timeline entries={entries} />
    </QueryClientProvider>,
  );
}

function event(id: string, fields: Partial<SessionEvent>): SessionEvent {
  return {
    id,
    sessionId: "ses_1",
    eventType: "tool_call",
    createdAt: START,
    model: null,
    usage: null,
    estimatedCost: null,
    durationMs: null,
    costSource: null,
    priceEffectiveFrom: null,
    ...fields,
  };
}

const at = (seconds: number) => new Date(Date.parse(START) + seconds * 1000).toISOString();

const events: SessionEvent[] = [
  // Stored first, but happened last (a late batch): occurredAt wins over createdAt.
  event("evt_c", { toolName: "refund", createdAt: at(1), occurredAt: at(9) }),
  event("evt_a", {
    eventType: "llm_decision",
    createdAt: at(2),
    occurredAt: at(0.5),
    confidence: 0.42,
    reasoning: "The order shipped",
    alternativesConsidered: ["escalate", "refuse"],
  }),
  // No occurredAt: falls back to createdAt.
  event("evt_b", {
    eventType: "error",
    toolName: "lookup_order",
    createdAt: at(3.25),
    toolInput: { orderId: "A-1" },
    estimatedCost: 0.002,
  }),
];

describe("timeline ordering", () => {
  test("by occurredAt, falling back to createdAt, with offsets from the session start", () => {
    const entries = buildTimeline(events, START);
    expect(entries.map((entry) => entry.event.id)).toEqual(["evt_a", "evt_b", "evt_c"]);
    expect(entries.map((entry) => entry.offsetMs)).toEqual([500, 3250, 9000]);
  });

  test("equal times keep the API's order", () => {
    const same = [event("evt_2", {}), event("evt_1", {})];
    expect(buildTimeline(same, START).map((entry) => entry.event.id)).toEqual(["evt_2", "evt_1"]);
  });
});

describe("a run's steps", () => {
  test("durations come from toolOutput.durationMs; a tool call fails by its output's error or by its tool's error event during it", () => {
    // Prepare: the SDK's wrapTool (error in the output), the demo (an error event at the call's end), a call that
    // went well followed much later by an error of the same tool, which is not the call's.
    const entries = buildTimeline(
      [
        event("evt_1", {
          toolName: "search",
          occurredAt: at(0),
          toolOutput: { error: { message: "boom" }, durationMs: 40 },
        }),
        event("evt_2", { toolName: "refund", occurredAt: at(1), toolOutput: { durationMs: 1200 } }),
        event("evt_3", { eventType: "error", toolName: "refund", occurredAt: at(2.2), reasoning: "Gateway timed out" }),
        event("evt_4", { toolName: "email", occurredAt: at(3), toolOutput: { ok: true, durationMs: -5 } }),
        event("evt_5", { eventType: "error", toolName: "email", occurredAt: at(8), reasoning: "Bounced" }),
      ],
      START,
    );

    // Assess
    expect(entries.map((entry) => [entry.event.id, entry.durationMs, entry.failure])).toEqual([
      ["evt_1", 40, "boom"],
      ["evt_2", 1200, "Gateway timed out"],
      ["evt_3", undefined, undefined],
      ["evt_4", undefined, undefined],
      ["evt_5", undefined, undefined],
    ]);
  });

  test("the event's own durationMs is the step's duration, ahead of toolOutput.durationMs (older events); null or bad is none", () => {
    // Prepare: an OpenTelemetry tool span (durationMs only), an SDK call (both), an older event, points in time.
    const entries = buildTimeline(
      [
        event("evt_1", { toolName: "search", occurredAt: at(0), durationMs: 2000 }),
        event("evt_2", { toolName: "refund", occurredAt: at(3), durationMs: 750, toolOutput: { durationMs: 749 } }),
        event("evt_3", { toolName: "email", occurredAt: at(4), toolOutput: { durationMs: 40 } }),
        event("evt_4", { eventType: "state_change", occurredAt: at(5), durationMs: 0 }),
        event("evt_5", { eventType: "error", occurredAt: at(6), durationMs: null }),
        event("evt_6", { eventType: "error", occurredAt: at(7), durationMs: -1 }),
      ],
      START,
    );

    // Assess
    expect(entries.map((entry) => [entry.event.id, entry.durationMs])).toEqual([
      ["evt_1", 2000],
      ["evt_2", 750],
      ["evt_3", 40],
      ["evt_4", 0],
      ["evt_5", undefined],
      ["evt_6", undefined],
    ]);
  });

  test("a model call's usage from the SDK's llmCall and from the OpenTelemetry receiver; other decisions have none", () => {
    const sdk = event("evt_1", {
      eventType: "llm_decision",
      toolInput: { model: "gpt-4o-mini" },
      toolOutput: { promptTokens: 1200, completionTokens: 300, durationMs: 820 },
    });
    const otel = event("evt_2", {
      eventType: "llm_decision",
      toolInput: { operation: "chat", provider: "openai", model: "gpt-4o" },
      toolOutput: { model: "gpt-4o-2024-08-06", totalTokens: 99 },
    });
    expect(modelUsage(sdk)).toEqual({
      model: "gpt-4o-mini",
      provider: undefined,
      promptTokens: 1200,
      completionTokens: 300,
      totalTokens: 1500,
    });
    expect(modelUsage(otel)).toMatchObject({ model: "gpt-4o-2024-08-06", provider: "openai", totalTokens: 99 });
    expect(modelUsage(event("evt_3", { eventType: "llm_decision", reasoning: "refund" }))).toBeUndefined();
  });

  test("stack traces: OpenTelemetry's stacktrace, a serialised Error's stack", () => {
    const trace = "Error: boom\n    at refund (refund.ts:12:5)";
    expect(stackTraceOf(event("e", { eventType: "error", toolOutput: { stacktrace: trace } }))).toBe(trace);
    expect(
      stackTraceOf(event("e", { eventType: "error", toolOutput: { error: { message: "boom", stack: trace } } })),
    ).toBe(trace);
    expect(stackTraceOf(event("e", { eventType: "error", toolOutput: { stack: "" } }))).toBeUndefined();
  });

  test("the time axis runs from the session start to its end or its last step's end, whichever is later", () => {
    const entries = buildTimeline([event("evt_1", { occurredAt: at(9), toolOutput: { durationMs: 3000 } })], START);
    expect(timeAxis(entries, SESSION)).toEqual({ startMs: Date.parse(START), endMs: Date.parse(START) + 12_000 });
    expect(timeAxis([], { ...SESSION, completedAt: null, durationMs: null })).toEqual({
      startMs: Date.parse(START),
      endMs: Date.parse(SESSION.lastActivityAt),
    });
  });
});

/** A browser whose elements are all `width` pixels wide, as ResizeObserver reports them. */
function stubElementWidth(width: number) {
  vi.stubGlobal(
    "ResizeObserver",
    class {
      readonly #callback: ResizeObserverCallback;
      constructor(callback: ResizeObserverCallback) {
        this.#callback = callback;
      }
      observe(target: Element) {
        const entry = { target, contentRect: { width } } as unknown as ResizeObserverEntry;
        this.#callback([entry], this as unknown as ResizeObserver);
      }
      unobserve() {}
      disconnect() {}
    },
  );
}

describe("the waterfall's time ticks", () => {
  const labels = (fromMs: number, toMs: number, width: number | undefined) =>
    timeTicks(fromMs, toMs, width, 12).map((tick) => tick.label);

  test("land on round times (1, 2, 5 × 10ⁿ ms; 1, 2, 5, 10, 15, 30 s or min; hours), as many as the width holds", () => {
    // A 10.8 s run: whole seconds at 600 px, +10 s alone beside the start at phone width.
    expect(labels(0, 10_800, 600)).toEqual([
      "0",
      "+1 s",
      "+2 s",
      "+3 s",
      "+4 s",
      "+5 s",
      "+6 s",
      "+7 s",
      "+8 s",
      "+9 s",
      "+10 s",
    ]);
    expect(labels(0, 10_800, 120)).toEqual(["0", "+10 s"]);
    expect(labels(0, 4_800, 850)).toEqual([
      "0",
      "+500 ms",
      "+1 s",
      "+1.5 s",
      "+2 s",
      "+2.5 s",
      "+3 s",
      "+3.5 s",
      "+4 s",
      "+4.5 s",
    ]);
    expect(labels(0, 54_000, 300)).toEqual(["0", "+15 s", "+30 s", "+45 s"]);
    expect(labels(0, 754_000, 850)).toEqual(["0", "+2 min", "+4 min", "+6 min", "+8 min", "+10 min", "+12 min"]);
    expect(labels(0, 11_300_000, 850)).toEqual(["0", "+30 min", "+1 h", "+1 h 30 min", "+2 h", "+2 h 30 min", "+3 h"]);
  });

  test("an axis starting before the session (an event came first) has ticks before 0; unmeasured, only the start", () => {
    expect(labels(-1_200, 10_000, 600)).toEqual([
      "−1 s",
      "0",
      "+1 s",
      "+2 s",
      "+3 s",
      "+4 s",
      "+5 s",
      "+6 s",
      "+7 s",
      "+8 s",
      "+9 s",
      "+10 s",
    ]);
    expect(labels(0, 10_800, undefined)).toEqual(["0"]);
  });

  test("labels never touch: neighbours are at least a label's width and a gap apart, placed in proportion to their time", () => {
    for (const [toMs, width] of [
      [10_800, 600],
      [10_800, 120],
      [754_000, 850],
      [3_700, 390],
      [86_400_000, 700],
    ] as const) {
      const ticks = timeTicks(0, toMs, width, 12);
      const labelWidth = Math.max(...ticks.map((tick) => tick.label.length * 12 * 0.68));
      const lefts = ticks.map((tick) => (tick.offsetMs / toMs) * (width - labelWidth));
      lefts.slice(1).forEach((left, index) => {
        expect(left - (lefts[index] ?? 0), `${toMs} ms at ${width} px`).toBeGreaterThanOrEqual(labelWidth + 8);
      });
    }
  });

  test("a tick reads as round as it is", () => {
    expect([0, 200, 1_500, 10_000, 90_000, 120_000, 5_400_000, -1_000].map(formatTickOffset)).toEqual([
      "0",
      "+200 ms",
      "+1.5 s",
      "+10 s",
      "+1 min 30 s",
      "+2 min",
      "+1 h 30 min",
      "−1 s",
    ]);
  });
});

describe("Waterfall and cards", () => {
  test("the axis of a 10.8 s run is marked at round seconds, each with its line across the rows (not +2.7 s, +5.4 s)", () => {
    // Prepare: a 10.8 s session, its axis 600 px wide
    stubElementWidth(600);
    const session = { ...SESSION, completedAt: at(10.8), durationMs: 10_800, lastActivityAt: at(10.8) };
    const entries = buildTimeline(
      [event("evt_1", { toolName: "search", occurredAt: at(0), toolOutput: { durationMs: 5_400 } })],
      START,
    );
    // Act
    render(<Waterfall entries={entries} session={session} />);
    // Assess
    const ticks = [...document.querySelectorAll<HTMLElement>(".waterfall__tick")];
    expect(ticks.map((tick) => tick.textContent)).toEqual([
      "0",
      "+1 s",
      "+2 s",
      "+3 s",
      "+4 s",
      "+5 s",
      "+6 s",
      "+7 s",
      "+8 s",
      "+9 s",
      "+10 s",
    ]);
    // +5 s is at 5 / 10.8 of the axis, its label shifted by as much of its own width.
    expect([ticks[5]?.style.left, ticks[5]?.style.transform]).toEqual(["46.2963%", "translateX(-46.2963%)"]);
    const lines = [...document.querySelectorAll<HTMLElement>(".waterfall__gridline")];
    expect(lines.map((line) => line.style.left)).toEqual(ticks.map((tick) => tick.style.left));
  });

  test("every event is a row with its duration; slow and failing steps are drawn to scale; rows link to their cards", () => {
    // Prepare
    renderRun([
      event("evt_1", { toolName: "search", occurredAt: at(0), toolOutput: { durationMs: 500 } }),
      event("evt_2", { toolName: "refund", occurredAt: at(1), toolOutput: { error: "declined", durationMs: 5000 } }),
      event("evt_3", { eventType: "state_change", occurredAt: at(6), toolInput: { from: "a", to: "b" } }),
    ]);

    // Assess
    const rows = within(screen.getByRole("list", { name: "Run waterfall" })).getAllByRole("link");
    expect(rows.map((row) => row.textContent)).toEqual([
      "⚙Tool call: search, at +0 ms, 500 ms",
      "⚙Tool call: refund, at +1.0 s, 5.0 s failed",
      "↻State change: a → b, at +6.0 s, —a moment",
    ]);
    expect(rows.map((row) => row.getAttribute("href"))).toEqual(["#event-evt_1", "#event-evt_2", "#event-evt_3"]);
    const bars = [...document.querySelectorAll<HTMLElement>(".waterfall__bar")];
    // The axis is the session's 10 s: 500 ms is 5 % wide at 0 %, 5 s is 50 % wide at 10 %.
    expect(bars.map((bar) => [bar.style.left, bar.style.width])).toEqual([
      ["0%", "5%"],
      ["10%", "50%"],
    ]);
    expect(bars[1]?.className).toContain("waterfall__bar--failed");
    expect(document.getElementById("event-evt_2")?.className).toContain("timeline__item--failed");
  });

  test("an event with durationMs is a bar from its start for its duration, with a Duration chip on its card; one without is a mark", () => {
    // Prepare: a 2 s tool span as the OpenTelemetry receiver stores it (no toolOutput.durationMs), then a point.
    renderRun([
      event("evt_1", { toolName: "get_weather", occurredAt: at(1), durationMs: 2000, toolOutput: { sky: "clear" } }),
      event("evt_2", { eventType: "error", toolName: "get_weather", occurredAt: at(6), reasoning: "Later failure" }),
    ]);

    // Assess: on the session's 10 s axis, the bar starts at 10 % and is 20 % wide.
    const bars = [...document.querySelectorAll<HTMLElement>(".waterfall__bar")];
    expect(bars.map((bar) => [bar.style.left, bar.style.width])).toEqual([["10%", "20%"]]);
    const marks = [...document.querySelectorAll<HTMLElement>(".waterfall__mark")];
    expect(marks.map((mark) => mark.style.left)).toEqual(["60%"]);
    const rows = within(screen.getByRole("list", { name: "Run waterfall" })).getAllByRole("link");
    expect(rows.map((row) => row.textContent)).toEqual([
      "⚙Tool call: get_weather, at +1.0 s, 2.0 s",
      "!Error: get_weather, at +6.0 s, —a moment",
    ]);
    const card = screen.getByRole("article", { name: "Tool call: get_weather" });
    const chips = [...card.querySelectorAll(".chip")].map((chip) => [
      chip.querySelector("dt")?.textContent,
      chip.querySelector("dd")?.textContent,
    ]);
    expect(chips).toContainEqual(["Duration", "2.0 s"]);
  });

  test("cards show type, tool, reasoning, confidence, alternatives, chips and offset; errors stand out", async () => {
    // Prepare
    const user = userEvent.setup();
    renderRun(events);
    // Assess
    const items = within(screen.getByRole("list", { name: "Event timeline" })).getAllByRole("article");
    expect(items.map((item) => item.getAttribute("aria-label"))).toEqual([
      "Decision",
      "Error: lookup_order",
      "Tool call: refund",
    ]);
    const [decision, error] = items;
    if (decision === undefined || error === undefined) throw new Error("missing items");
    expect(within(decision).getByText("Confidence 42%")).toBeTruthy();
    expect(within(decision).getByText("The order shipped")).toBeTruthy();
    expect(within(decision).getByText("escalate")).toBeTruthy();
    expect(within(decision).getByText("+500 ms")).toBeTruthy();
    expect(within(error).getByText("+3.3 s")).toBeTruthy();
    expect(within(error).getByText("$0.0020")).toBeTruthy();
    expect(error.closest("li")?.className).toContain("timeline__item--error");
    // Act: expand the payload
    await user.click(within(error).getByRole("button", { name: "Show details" }));
    // Assess
    expect(within(error).getByRole("button", { name: "Hide details" }).getAttribute("aria-expanded")).toBe("true");
    expect(within(error).getByText('"A-1"')).toBeTruthy();
  });

  test("a model call's model, tokens, cost and duration are chips on its card; its payloads are its request and response", async () => {
    const user = userEvent.setup();
    renderRun([
      event("evt_1", {
        eventType: "llm_decision",
        reasoning: "Refund it",
        estimatedCost: 0.00042,
        toolInput: { model: "gpt-4o-mini", messages: [] },
        toolOutput: { promptTokens: 1200, completionTokens: 300, durationMs: 820 },
      }),
    ]);
    const card = screen.getByRole("article", { name: "Model call: gpt-4o-mini" });
    expect([...card.querySelectorAll(".chip dd")].map((chip) => chip.textContent)).toEqual([
      "gpt-4o-mini",
      "1,500 (1,200 in, 300 out)",
      "$0.0004",
      "820 ms",
    ]);
    await user.click(within(card).getByRole("button", { name: "Show request and response" }));
    expect(within(card).getByRole("heading", { name: "Request" })).toBeTruthy();
    expect(within(card).getByRole("heading", { name: "Response" })).toBeTruthy();
  });

  test("a model call the service could not price says so; an event without a cost shows no cost chip", () => {
    renderRun([
      event("evt_1", {
        eventType: "llm_decision",
        occurredAt: at(1),
        model: "my-own-model",
        costSource: "unpriced",
        toolInput: { model: "my-own-model", messages: [] },
      }),
      event("evt_2", { toolName: "lookup", occurredAt: at(2) }),
    ]);
    const call = screen.getByRole("article", { name: "Model call: my-own-model" });
    expect([...call.querySelectorAll(".chip dd")].map((chip) => chip.textContent)).toEqual([
      "my-own-model",
      "unpriced",
    ]);
    const tool = screen.getByRole("article", { name: "Tool call: lookup" });
    expect([...tool.querySelectorAll(".chip dd")].map((chip) => chip.textContent)).toEqual([]);
  });

  test("a failing tool call says so on its card; a stack trace reads as lines of text", () => {
    const trace = "TimeoutError: gateway\n    at pay (pay.ts:3:9)";
    renderRun([
      event("evt_1", { toolName: "pay", occurredAt: at(1), toolOutput: { durationMs: 300 } }),
      event("evt_2", {
        eventType: "error",
        toolName: "pay",
        occurredAt: at(1.3),
        reasoning: "Gateway timed out",
        toolOutput: { stacktrace: trace },
      }),
    ]);
    const call = screen.getByRole("article", { name: "Tool call: pay" });
    expect(within(call).getByText("failed")).toBeTruthy();
    expect(call.textContent).toContain("Failed: Gateway timed out");
    const error = screen.getByRole("article", { name: "Error: pay" });
    const pre = error.querySelector("pre.stack");
    expect(pre?.textContent).toBe(trace);
    expect(pre?.textContent).not.toContain("\\n");
  });
});
