// @vitest-environment jsdom
import { screen, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { describe, expect, test } from "vitest";
import { apiError, baseRoutes, json, mockFetch, renderApp } from "./support/render-app";

function run(id: string, fields: Record<string, unknown> = {}) {
  return {
    id,
    name: `Turn ${id}`,
    agentName: "chat-bot",
    userId: "customer-42",
    environment: "live",
    metadata: null,
    conversationId: "chat#7",
    status: "completed",
    success: true,
    failureReason: null,
    estimatedCost: 0.01,
    durationMs: 1000,
    promptTokens: 80,
    completionTokens: 20,
    totalTokens: 100,
    cacheReadTokens: null,
    cacheWriteTokens: null,
    reasoningTokens: null,
    modelCalls: 1,
    unpricedCalls: 0,
    customMetrics: null,
    eventCount: 1,
    eventCost: 0.01,
    toolCalls: {},
    toolErrors: {},
    countsAsOf: null,
    createdAt: "2026-11-22T10:00:00.000Z",
    updatedAt: "2026-11-22T10:00:01.000Z",
    lastActivityAt: "2026-11-22T10:00:01.000Z",
    completedAt: "2026-11-22T10:00:01.000Z",
    stale: false,
    ...fields,
  };
}

const conversation = {
  id: "chat#7",
  agentName: "chat-bot",
  userId: "customer-42",
  startedAt: "2026-11-22T10:00:00.000Z",
  lastRunAt: "2026-11-22T10:05:00.000Z",
  runCount: 3,
};

const totals = {
  runs: 3,
  active: 0,
  completed: 2,
  failed: 1,
  estimatedCost: 0.03,
  promptTokens: 240,
  completionTokens: 60,
  totalTokens: 300,
  modelCalls: 3,
  eventCount: 3,
  durationMs: 3000,
  durationCount: 3,
  complete: true,
};

const location = () => screen.getByRole("status", { name: "Current location" }).textContent ?? "";

describe("Conversation page", () => {
  test("its totals, its runs as turns in order (more on request), each opening its session", async () => {
    const user = userEvent.setup();
    const requests = mockFetch({
      ...baseRoutes("member"),
      "GET /api/sdk/conversations/chat%237": (request) =>
        request.query.has("cursor")
          ? json({ ...conversation, totals: null, runs: [run("ses_3")], nextCursor: null })
          : json({
              ...conversation,
              totals,
              runs: [run("ses_1"), run("ses_2", { status: "failed", failureReason: "timeout" })],
              nextCursor: "next",
            }),
      "GET /api/sdk/sessions/ses_2": json(run("ses_2")),
      "GET /api/sdk/sessions/ses_2/events": json({ items: [], nextCursor: null }),
    });
    renderApp("/conversations/chat%237");

    expect(await screen.findByRole("heading", { name: "Conversation chat#7", level: 1 })).toBeTruthy();
    const metrics = screen.getByRole("region", { name: "Conversation totals" });
    expect(within(metrics).getByText("Runs").nextSibling?.textContent).toBe("3");
    expect(within(metrics).getByText("Failed").nextSibling?.textContent).toBe("1");
    const turns = screen.getByRole("list", { name: "Turns" });
    expect(
      within(turns)
        .getAllByRole("link")
        .map((link) => link.textContent),
    ).toEqual(["Turn ses_1", "Turn ses_2"]);
    expect(within(turns).getByText("timeout")).toBeTruthy();

    await user.click(screen.getByRole("button", { name: "Load more turns" }));
    expect(await within(turns).findByRole("link", { name: "Turn ses_3" })).toBeTruthy();
    expect(requests.filter((request) => request.path.startsWith("/api/sdk/conversations/"))).toHaveLength(2);

    await user.click(within(turns).getByRole("link", { name: "Turn ses_2" }));
    expect(location()).toBe("/sessions/ses_2");
    expect(await screen.findByRole("link", { name: "conversation chat#7" })).toBeTruthy();
  });

  test("an unknown conversation says so", async () => {
    mockFetch({
      ...baseRoutes("member"),
      "GET /api/sdk/conversations/gone": apiError(404, "Not Found", "Conversation gone not found"),
    });
    renderApp("/conversations/gone");
    expect(await screen.findByText(/Conversation gone not found/)).toBeTruthy();
  });
});
