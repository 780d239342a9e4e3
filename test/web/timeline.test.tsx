// @vitest-environment jsdom
import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { cleanup, render, screen, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { afterEach, describe, expect, test, vi } from "vitest";
import type { SessionEvent } from "../../web/src/api/types";
import { Timeline } from "../../web/src/components/Timeline";
import { buildTimeline } from "../../web/src/lib/timeline";

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

function renderTimeline(list: SessionEvent[]) {
  return render(
    <QueryClientProvider client={new QueryClient()}>
      <Timeline events={list} sessionStart={START} />
    </QueryClientProvider>,
  );
}

const START = "2026-11-22T10:00:00.000Z";

function event(id: string, fields: Partial<SessionEvent>): SessionEvent {
  return { id, sessionId: "ses_1", eventType: "tool_call", createdAt: START, ...fields };
}

const events: SessionEvent[] = [
  // Stored first, but happened last (a late batch): occurredAt wins over createdAt.
  event("evt_c", { toolName: "refund", createdAt: "2026-11-22T10:00:01.000Z", occurredAt: "2026-11-22T10:00:09.000Z" }),
  event("evt_a", {
    eventType: "llm_decision",
    createdAt: "2026-11-22T10:00:02.000Z",
    occurredAt: "2026-11-22T10:00:00.500Z",
    confidence: 0.42,
    reasoning: "The order shipped",
    alternativesConsidered: ["escalate", "refuse"],
  }),
  // No occurredAt: falls back to createdAt.
  event("evt_b", {
    eventType: "error",
    toolName: "lookup_order",
    createdAt: "2026-11-22T10:00:03.250Z",
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

describe("Timeline", () => {
  test("shows type, tool, reasoning, confidence, alternatives, cost and offset; errors stand out", async () => {
    // Prepare
    const user = userEvent.setup();
    renderTimeline(events);
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
    expect(within(error).getByText("+3.25 s")).toBeTruthy();
    expect(within(error).getByText("$0.0020")).toBeTruthy();
    expect(error.closest("li")?.className).toContain("timeline__item--error");
    // Act: expand the payload
    await user.click(within(error).getByRole("button", { name: "Show input and output" }));
    // Assess
    expect(within(error).getByRole("button", { name: "Hide input and output" }).getAttribute("aria-expanded")).toBe(
      "true",
    );
    expect(within(error).getByText('"A-1"')).toBeTruthy();
  });
});
