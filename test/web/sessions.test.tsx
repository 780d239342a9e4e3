// @vitest-environment jsdom
import { screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { describe, expect, test } from "vitest";
import { formatDateTime } from "../../web/src/lib/format";
import { apiError, baseRoutes, json, type MockAnswer, mockFetch, renderApp } from "./support/render-app";

function session(id: string, fields: Record<string, unknown> = {}) {
  return {
    id,
    name: `Run ${id}`,
    agentName: "support-bot",
    userId: "customer-42",
    environment: "live",
    metadata: null,
    status: "completed",
    success: true,
    failureReason: null,
    estimatedCost: 0.042,
    durationMs: 5400,
    promptTokens: 1200,
    completionTokens: 300,
    totalTokens: 1500,
    customMetrics: null,
    eventCount: 3,
    eventCost: 0.002,
    toolCalls: { lookup: 2 },
    toolErrors: {},
    createdAt: "2026-11-22T10:00:00.000Z",
    updatedAt: "2026-11-22T10:00:05.400Z",
    lastActivityAt: "2026-11-22T10:00:05.400Z",
    completedAt: "2026-11-22T10:00:05.400Z",
    stale: false,
    ...fields,
  };
}

const location = () => screen.getByRole("status", { name: "Current location" }).textContent ?? "";

describe("Sessions page", () => {
  test("what is typed in the filters survives the list loading (re-renders do not reset the form)", async () => {
    const user = userEvent.setup();
    let answer: (value: MockAnswer) => void = () => {};
    mockFetch({
      ...baseRoutes("member"),
      "GET /api/sdk/agents": json({ items: [] }),
      "GET /api/sdk/sessions": () =>
        new Promise<MockAnswer>((resolve) => {
          answer = resolve;
        }),
    });
    renderApp("/sessions");
    const form = await screen.findByRole("form", { name: "Session filters" });
    await user.type(within(form).getByLabelText("User"), "customer-42");
    answer(json({ items: [session("ses_1")], nextCursor: null }));
    expect(await screen.findByRole("link", { name: "Run ses_1" })).toBeTruthy();
    expect((within(form).getByLabelText("User") as HTMLInputElement).value).toBe("customer-42");
  });

  test("filters go to the URL and to the API; Load more follows the cursor", async () => {
    // Prepare
    const user = userEvent.setup();
    const requests = mockFetch({
      ...baseRoutes("member"),
      "GET /api/sdk/agents": json({ items: [{ agentName: "support-bot", sessionCount: 2 }] }),
      "GET /api/sdk/sessions": (request) =>
        request.query.get("cursor") === "page-2"
          ? json({ items: [session("ses_2", { status: "active", success: null, stale: true })], nextCursor: null })
          : json({ items: [session("ses_1")], nextCursor: "page-2" }),
    });
    renderApp("/sessions");
    expect(await screen.findByRole("link", { name: "Run ses_1" })).toBeTruthy();

    // Act
    const form = screen.getByRole("form", { name: "Session filters" });
    await user.type(within(form).getByLabelText("Agent"), "support-bot");
    await user.selectOptions(within(form).getByLabelText("Status"), "failed");
    await user.type(within(form).getByLabelText("From (UTC day)"), "2026-11-01");
    await user.click(within(form).getByRole("button", { name: "Apply filters" }));

    // Assess
    await waitFor(() => expect(location()).toBe("/sessions?agentName=support-bot&status=failed&from=2026-11-01"));
    await waitFor(() => expect(requests.some((request) => request.query.get("status") === "failed")).toBe(true));
    const filtered = requests.filter((request) => request.path === "/api/sdk/sessions").at(-1);
    expect(filtered?.query.get("agentName")).toBe("support-bot");
    expect(filtered?.query.get("from")).toBe("2026-11-01T00:00:00.000Z");
    expect(filtered?.headers.get("X-Environment")).toBe("live");

    // Act: next page
    await user.click(await screen.findByRole("button", { name: "Load more sessions" }));
    // Assess: both pages, the stale one marked, no more button
    expect(await screen.findByRole("link", { name: "Run ses_2" })).toBeTruthy();
    const table = screen.getByRole("table", { name: "Sessions (live), newest first" });
    expect(within(table).getByText("stale")).toBeTruthy();
    expect(screen.queryByRole("button", { name: "Load more sessions" })).toBeNull();
  });

  test("filters in the URL are read back into the form and the request", async () => {
    const requests = mockFetch({
      ...baseRoutes("member"),
      "GET /api/sdk/agents": json({ items: [] }),
      "GET /api/sdk/sessions": json({ items: [], nextCursor: null }),
    });
    renderApp("/sessions?userId=customer-7&env=test");
    expect(await screen.findByText("No sessions match these filters.")).toBeTruthy();
    expect((screen.getByLabelText("User") as HTMLInputElement).value).toBe("customer-7");
    const list = requests.find((request) => request.path === "/api/sdk/sessions");
    expect(list?.query.get("userId")).toBe("customer-7");
    expect(list?.headers.get("X-Environment")).toBe("test");
    expect((screen.getByRole("radio", { name: "Test" }) as HTMLInputElement).checked).toBe(true);
  });

  test("the environment switch is kept in the URL", async () => {
    const user = userEvent.setup();
    mockFetch({
      ...baseRoutes("member"),
      "GET /api/sdk/agents": json({ items: [] }),
      "GET /api/sdk/sessions": json({ items: [], nextCursor: null }),
    });
    renderApp("/sessions");
    expect(await screen.findByText("No sessions in live yet.")).toBeTruthy();
    await user.click(screen.getByRole("radio", { name: "Test" }));
    await waitFor(() => expect(location()).toBe("/sessions?env=test"));
    expect(await screen.findByText("No sessions in test yet.")).toBeTruthy();
  });

  test("one line per session: no Success column, a failure reason column, missing cost as —", async () => {
    mockFetch({
      ...baseRoutes("member"),
      "GET /api/sdk/agents": json({ items: [] }),
      "GET /api/sdk/sessions": json({
        items: [
          session("ses_1", { status: "failed", success: false, failureReason: "Card declined", estimatedCost: null }),
          session("ses_2", { estimatedCost: null, eventCost: 0 }),
          session("ses_3", { estimatedCost: 1.5 }),
        ],
        nextCursor: null,
      }),
    });
    renderApp("/sessions");
    const table = await screen.findByRole("table", { name: "Sessions (live), newest first" });
    const headers = within(table)
      .getAllByRole("columnheader")
      .map((header) => header.textContent);
    expect(headers).toEqual([
      "Name",
      "Agent",
      "User",
      "Status",
      "Failure reason",
      "Cost",
      "Tokens",
      "Duration",
      "Events",
      "Started",
    ]);
    const costs = within(table)
      .getAllByRole("row")
      .slice(1)
      .map((row) => within(row).getAllByRole("cell")[4]?.textContent);
    // No reported cost: the events' ($0.0020), or none at all (—); a reported cost to the cent from $1.
    expect(costs).toEqual(["$0.0020", "—", "$1.50"]);
    expect(within(table).getByText("Card declined")).toBeTruthy();
  });

  test("a drill-down (failure reason) is a removable chip; its short pages are read on until the page fills", async () => {
    // Prepare: the refined listing answers one session per page, then an empty page, then the last.
    const user = userEvent.setup();
    const pages: Record<string, { items: unknown[]; nextCursor: string | null }> = {
      first: { items: [session("ses_1", { status: "failed" })], nextCursor: "p2" },
      p2: { items: [], nextCursor: "p3" },
      p3: { items: [session("ses_3", { status: "failed" })], nextCursor: null },
    };
    const requests = mockFetch({
      ...baseRoutes("member"),
      "GET /api/sdk/agents": json({ items: [] }),
      "GET /api/sdk/sessions": (request) => json(pages[request.query.get("cursor") ?? "first"]),
    });
    renderApp(
      "/sessions?agentName=support-bot&status=failed&failureReason=Card+declined&from=2026-11-20&to=2026-11-22",
    );

    // Assess: every page read without a click, exactly the drill-down's filters sent
    expect(await screen.findByRole("link", { name: "Run ses_3" })).toBeTruthy();
    const listed = requests.filter((request) => request.path === "/api/sdk/sessions");
    expect(listed.map((request) => request.query.get("cursor"))).toEqual([null, "p2", "p3"]);
    expect(Object.fromEntries(listed[0]?.query ?? [])).toEqual({
      agentName: "support-bot",
      status: "failed",
      failureReason: "Card declined",
      from: "2026-11-20T00:00:00.000Z",
      to: "2026-11-22T23:59:59.999Z",
      limit: "25",
    });
    expect(await screen.findByText("2 sessions shown")).toBeTruthy();

    // Act: remove the chip
    await user.click(screen.getByRole("button", { name: "Remove the filter Failure reason: Card declined" }));
    // Assess
    await waitFor(() =>
      expect(location()).toBe("/sessions?agentName=support-bot&status=failed&from=2026-11-20&to=2026-11-22"),
    );
  });

  test("search: a name is sent as nameContains; a session id opens that session", async () => {
    const user = userEvent.setup();
    const id = "ses_01KAZ3X8Q9M4T7V2N6P5R1S0WE";
    const requests = mockFetch({
      ...baseRoutes("member"),
      "GET /api/sdk/agents": json({ items: [] }),
      "GET /api/sdk/sessions": json({ items: [session("ses_1")], nextCursor: null }),
      [`GET /api/sdk/sessions/${id}`]: json(session(id, { name: "The one" })),
    });
    renderApp("/sessions");
    const form = await screen.findByRole("form", { name: "Session filters" });
    await user.type(within(form).getByLabelText("Search"), "refund");
    await user.click(within(form).getByRole("button", { name: "Apply filters" }));
    await waitFor(() => expect(requests.some((request) => request.query.get("nameContains") === "refund")).toBe(true));

    await user.clear(within(form).getByLabelText("Search"));
    await user.type(within(form).getByLabelText("Search"), id.toLowerCase());
    await user.click(within(form).getByRole("button", { name: "Apply filters" }));
    expect(await screen.findByRole("link", { name: "The one" })).toBeTruthy();
    expect(requests.filter((request) => request.query.get("nameContains") !== null)).toHaveLength(1);
  });

  test("an empty test environment does not suggest npm run demo (it writes to live)", async () => {
    mockFetch({
      ...baseRoutes("member"),
      "GET /api/sdk/agents": json({ items: [] }),
      "GET /api/sdk/sessions": json({ items: [], nextCursor: null }),
    });
    renderApp("/sessions?env=test");
    const empty = (await screen.findByText("No sessions in test yet.")).parentElement;
    expect(empty?.textContent).toContain("ats_test_");
    expect(empty?.textContent).not.toContain("npm run demo");
  });

  test("an error is shown with a way to retry", async () => {
    mockFetch({
      ...baseRoutes("member"),
      "GET /api/sdk/agents": json({ items: [] }),
      "GET /api/sdk/sessions": apiError(500, "Internal Server Error", "Something failed."),
    });
    renderApp("/sessions");
    const alert = await screen.findByRole("alert");
    expect(alert.textContent).toContain("The service had a problem");
    expect(within(alert).getByRole("button", { name: "Try again" })).toBeTruthy();
  });
});

describe("Session detail", () => {
  test("metrics, the timeline, and delete for admins only", async () => {
    const user = userEvent.setup();
    const requests = mockFetch({
      ...baseRoutes("admin"),
      "GET /api/sdk/agents": json({ items: [] }),
      "GET /api/sdk/sessions": json({ items: [], nextCursor: null }),
      "GET /api/sdk/sessions/ses_1": json(
        session("ses_1", { status: "failed", success: false, failureReason: "Order not found", eventCount: 1 }),
      ),
      "GET /api/sdk/sessions/ses_1/events": json({
        items: [
          {
            id: "evt_1",
            sessionId: "ses_1",
            eventType: "error",
            toolName: "lookup",
            createdAt: "2026-11-22T10:00:01.000Z",
          },
        ],
        nextCursor: null,
      }),
      "DELETE /api/sdk/sessions/ses_1": { status: 204 },
    });
    renderApp("/sessions/ses_1");
    expect(await screen.findByRole("heading", { name: "Run ses_1", level: 1 })).toBeTruthy();
    expect(screen.getByText("Order not found")).toBeTruthy();
    expect(await screen.findByRole("article", { name: "Error: lookup" })).toBeTruthy();

    await user.click(screen.getByRole("button", { name: "Delete session" }));
    const dialog = screen.getByRole("dialog", { name: "Delete this session?" });
    expect(document.activeElement).toBe(within(dialog).getByRole("button", { name: "Cancel" }));
    expect(dialog.textContent).toContain("its 1 event and");
    await user.click(within(dialog).getByRole("button", { name: "Delete session" }));
    await waitFor(() => expect(location()).toBe("/sessions"));
    expect(requests.some((request) => request.method === "DELETE" && request.path === "/api/sdk/sessions/ses_1")).toBe(
      true,
    );
    // The deleted session and its events are not asked for again (they would answer 404).
    await screen.findByText("No sessions in live yet.");
    expect(requests.filter((request) => request.path === "/api/sdk/sessions/ses_1").map((r) => r.method)).toEqual([
      "GET",
      "DELETE",
    ]);
    expect(requests.filter((request) => request.path === "/api/sdk/sessions/ses_1/events")).toHaveLength(1);
  });

  test("a field over 1 MiB is loaded through the API on the console's own origin, never from its S3 URL", async () => {
    // Issue 21: the CSP (connect-src 'self') blocks the presigned URL the events route gives for large fields.
    const user = userEvent.setup();
    const requests = mockFetch({
      ...baseRoutes("member"),
      "GET /api/sdk/sessions/ses_1": json(session("ses_1")),
      "GET /api/sdk/sessions/ses_1/events": json({
        items: [
          {
            id: "evt_big",
            sessionId: "ses_1",
            eventType: "tool_call",
            toolName: "export",
            toolOutputUrl: "https://payloads.s3.test/presigned",
            toolOutputBytes: 2_097_152,
            createdAt: "2026-11-22T10:00:01.000Z",
          },
        ],
        nextCursor: null,
      }),
      "GET /api/sdk/sessions/ses_1/events/evt_big/toolOutput": json({ rows: 3 }),
    });
    renderApp("/sessions/ses_1?env=test");
    await user.click(await screen.findByRole("button", { name: "Show input and output" }));
    expect(requests.some((request) => request.path.endsWith("/toolOutput"))).toBe(false);

    await user.click(screen.getByRole("button", { name: "Load output (2.0 MiB)" }));

    expect(await screen.findByText('"rows"')).toBeTruthy();
    const field = requests.find((request) => request.path === "/api/sdk/sessions/ses_1/events/evt_big/toolOutput");
    expect(field?.headers.get("authorization")).toBe("Bearer token-1");
    expect(field?.headers.get("x-organization-id")).toBe("acme");
    expect(field?.headers.get("x-environment")).toBe("test");
    expect(requests.some((request) => request.path === "/presigned")).toBe(false);
  });

  test("a run delivered late: Last activity is when it last acted (its latest event, its end), Last received when it was stored", async () => {
    // Prepare: a run of 10 Nov, delivered on 22 Nov with its true times (startedAt, occurredAt, completedAt).
    const requests = mockFetch({
      ...baseRoutes("member"),
      "GET /api/sdk/sessions/ses_1": json(
        session("ses_1", {
          createdAt: "2026-11-10T09:00:00.000Z",
          completedAt: "2026-11-10T09:00:05.000Z",
          updatedAt: "2026-11-22T10:00:00.000Z",
          lastActivityAt: "2026-11-22T10:00:00.000Z",
        }),
      ),
      "GET /api/sdk/sessions/ses_1/events": json({
        items: [
          {
            id: "evt_1",
            sessionId: "ses_1",
            eventType: "tool_call",
            toolName: "lookup",
            occurredAt: "2026-11-10T09:00:01.000Z",
            createdAt: "2026-11-22T10:00:00.000Z",
          },
          {
            id: "evt_2",
            sessionId: "ses_1",
            eventType: "state_change",
            occurredAt: "2026-11-10T09:00:07.000Z",
            createdAt: "2026-11-22T10:00:00.000Z",
          },
        ],
        nextCursor: null,
      }),
    });
    // Act
    renderApp("/sessions/ses_1");
    await screen.findByRole("list", { name: "Run waterfall" });
    // Assess: the latest event (09:00:07) came after the end it reported (09:00:05); the delivery is "Last received".
    const metric = (label: string) =>
      screen.getByText(label, { selector: "dt" }).closest("div")?.querySelector("dd")?.textContent;
    expect(metric("Last activity")).toBe(formatDateTime("2026-11-10T09:00:07.000Z"));
    expect(metric("Last received")).toBe(formatDateTime("2026-11-22T10:00:00.000Z"));
    expect(requests.filter((request) => request.path === "/api/sdk/sessions/ses_1/events")).toHaveLength(1);
  });

  test("a run still going: Last activity is its latest event's time, said to be of the events loaded when more remain", async () => {
    mockFetch({
      ...baseRoutes("member"),
      "GET /api/sdk/sessions/ses_1": json(
        session("ses_1", {
          status: "active",
          completedAt: null,
          durationMs: null,
          lastActivityAt: "2026-11-22T10:05:00.000Z",
        }),
      ),
      "GET /api/sdk/sessions/ses_1/events": json({
        items: [
          {
            id: "evt_1",
            sessionId: "ses_1",
            eventType: "tool_call",
            toolName: "lookup",
            occurredAt: "2026-11-22T10:01:00.000Z",
            createdAt: "2026-11-22T10:04:00.000Z",
          },
        ],
        nextCursor: "more",
      }),
    });
    renderApp("/sessions/ses_1");
    await screen.findByRole("list", { name: "Run waterfall" });
    const metric = (label: string) =>
      screen.getByText(label, { selector: "dt" }).closest("div")?.querySelector("dd")?.textContent;
    expect(metric("Last activity")).toBe(`${formatDateTime("2026-11-22T10:01:00.000Z")} (of the events loaded)`);
    expect(metric("Last received")).toBe(formatDateTime("2026-11-22T10:05:00.000Z"));
  });

  test("members get no delete button", async () => {
    mockFetch({
      ...baseRoutes("member"),
      "GET /api/sdk/sessions/ses_1": json(session("ses_1")),
      "GET /api/sdk/sessions/ses_1/events": json({ items: [], nextCursor: null }),
    });
    renderApp("/sessions/ses_1");
    expect(await screen.findByText("This session has no events yet.")).toBeTruthy();
    expect(screen.queryByRole("button", { name: "Delete session" })).toBeNull();
  });
});
