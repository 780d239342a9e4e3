// @vitest-environment jsdom
import { screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { describe, expect, test } from "vitest";
import type { Destination, Monitor, MonitorDefinition, PreviewPoint } from "../../web/src/api/alert-types";
import { concurrencyLimit } from "../../web/src/lib/concurrency-limit";
import { niceCeiling, previewSentence, summarisePreview } from "../../web/src/lib/monitor-preview";
import { describeMetric, formatWindow } from "../../web/src/lib/monitor-text";
import { sparklineGeometry } from "../../web/src/lib/sparkline";
import {
  definitionOf,
  fieldsOf,
  issuesByField,
  monitorDefinition,
  previewDefinition,
} from "../../web/src/pages/alerts/monitor-form";
import { baseRoutes, json, mockFetch, type RecordedRequest, renderApp } from "./support/render-app";

const AT = "2026-11-27T09:00:00.000Z";

const DEFINITION: MonitorDefinition = {
  name: "Support bot failing",
  enabled: true,
  metric: "failure_rate",
  filters: { agent: "support-bot" },
  windowMinutes: 15,
  comparison: "above",
  warningThreshold: 5,
  alertThreshold: 10,
  minSessions: 10,
  noData: "keep",
  renotifyMinutes: 60,
  notifyOnRecovery: true,
  destinationIds: ["dst_hook"],
};

const MONITOR: Monitor = {
  ...DEFINITION,
  id: "mon_01",
  environment: "live",
  createdAt: AT,
  updatedAt: AT,
  createdBy: "ada@example.com",
  state: {
    status: "alert",
    since: AT,
    figure: 12.5,
    samples: 40,
    evaluatedAt: AT,
    windowStart: "2026-11-27T08:45:00.000Z",
    windowEnd: AT,
  },
};

const HOOK: Destination = {
  id: "dst_hook",
  name: "On-call webhook",
  kind: "webhook",
  url: "https://hooks.example.com/ats",
  enabled: true,
  disabledReason: null,
  consecutiveFailures: 0,
  lastDeliveryAt: AT,
  lastError: null,
  createdAt: AT,
  updatedAt: AT,
};

const SLACK: Destination = {
  ...HOOK,
  id: "dst_slack",
  name: "Team channel",
  kind: "slack",
  url: "https://hooks.slack.com/services/T/B/X",
  enabled: false,
  disabledReason: "10 deliveries failed in a row (HTTP 500)",
  consecutiveFailures: 10,
  lastError: "HTTP 500",
};

const SECRET = "whsec_0123456789abcdefghijABCDEFGHIJ";

/** 72 hourly windows: 2 % for 60 hours, 12 % for the last 12, none in hours 10–11. */
function points(): PreviewPoint[] {
  const end = Date.parse(AT);
  return Array.from({ length: 72 }, (_, index) => {
    const windowEnd = new Date(end - (71 - index) * 3_600_000);
    const noData = index === 10 || index === 11;
    return {
      start: new Date(windowEnd.getTime() - 15 * 60_000).toISOString(),
      end: windowEnd.toISOString(),
      figure: noData ? null : index >= 60 ? 12 : 2,
      samples: noData ? 0 : 30,
    };
  });
}

function alertRoutes(role: "member" | "admin", extra: Record<string, unknown> = {}) {
  return {
    ...baseRoutes(role),
    "GET /api/alerts/monitors/mon_01": json(MONITOR),
    "GET /api/alerts/monitors/mon_01/history": json({ history: [], nextCursor: null }),
    "GET /api/sdk/agents": json({ items: [{ agentName: "support-bot", sessionCount: 10 }] }),
    "GET /api/alerts/monitors": json({ monitors: [MONITOR] }),
    "POST /api/alerts/monitors/preview": json({ points: points() }),
    "GET /api/alerts/destinations": json({ destinations: [HOOK, SLACK] }),
    ...extra,
  } as Parameters<typeof mockFetch>[0];
}

describe("the monitor form's rules (pure)", () => {
  test("a definition round-trips through the fields; the API's bounds are field errors", () => {
    expect(monitorDefinition(fieldsOf(DEFINITION))).toEqual({ definition: DEFINITION });
    expect(definitionOf(MONITOR)).toEqual(DEFINITION);
    expect(definitionOf({ ...MONITOR, version: 3 } as Monitor)).toEqual(DEFINITION);

    const wrong = monitorDefinition({
      ...fieldsOf(DEFINITION),
      name: " ",
      metric: "tool_failure_rate",
      windowMinutes: "7",
      alertThreshold: "120",
      warningThreshold: "5",
      minSessions: "-1",
      renotifyMinutes: "3",
    });
    expect(wrong).toEqual({
      errors: {
        name: "Name the monitor (1 to 100 characters).",
        "filters.tool": "Tool failure rate needs a tool.",
        windowMinutes: "A window is 5 to 10080 minutes (7 days), in steps of 5.",
        alertThreshold: "A rate is a percentage from 0 to 100.",
        minSessions: "A whole number from 0 to 1,000,000.",
        renotifyMinutes: "0 for never, or 5 to 1440 minutes.",
      },
    });
    const farSide = monitorDefinition({ ...fieldsOf(DEFINITION), comparison: "below" });
    expect(farSide).toEqual({ errors: { warningThreshold: "The warning comes before the alert: above 10." } });
  });

  test("filters the metric does not take are dropped; two narrowing filters are refused", () => {
    const fields = fieldsOf(DEFINITION);
    const cost = monitorDefinition({
      ...fields,
      metric: "cost",
      filters: { ...fields.filters, model: "gpt-4o", tool: "search" },
    });
    expect("definition" in cost && cost.definition.filters).toEqual({ agent: "support-bot", model: "gpt-4o" });
    const both = monitorDefinition({
      ...fields,
      metric: "cost",
      filters: { ...fields.filters, user: "u1", model: "m" },
    });
    expect(both).toEqual({ errors: { "filters.model": "Filter by one of user or model, not both." } });
  });

  test("a preview needs only what the figure depends on; the API's issues land on their fields", () => {
    const unnamed = previewDefinition({ ...fieldsOf(DEFINITION), name: "", destinationIds: [] });
    expect(unnamed).toMatchObject({ name: "Preview", alertThreshold: 10, destinationIds: [] });
    expect(previewDefinition({ ...fieldsOf(DEFINITION), alertThreshold: "" })).toBeNull();

    expect(
      issuesByField([
        { path: "filters.agent", message: "Unknown agent" },
        { path: "destinationIds.1", message: "No such destination" },
        { path: "filters.__proto__", message: "Unknown field" },
        { path: "(body)", message: "Too many monitors" },
      ]),
    ).toEqual({
      fields: { "filters.agent": "Unknown agent", destinationIds: "No such destination", metric: "Unknown field" },
      other: [{ path: "(body)", message: "Too many monitors" }],
    });
  });

  test("words and shapes: metric, window, sparkline, preview summary", () => {
    expect(describeMetric(DEFINITION)).toBe("Failure rate of agent support-bot");
    expect(describeMetric({ metric: "score_mean", filters: { score: "helpfulness" } })).toBe(
      "Score mean of score helpfulness, all agents",
    );
    expect([5, 90, 1440, 10_080].map(formatWindow)).toEqual(["5 min", "1 h 30 min", "1 day", "7 days"]);
    const geometry = sparklineGeometry([1, 2, null, 4, null], 100, 20, 5, 0);
    expect(geometry).toEqual({ lines: ["0,16 25,12"], dots: [{ x: 75, y: 4 }], thresholdY: 0 });
    const summary = summarisePreview(points(), DEFINITION);
    expect(summary).toEqual({ windows: 72, alert: 12, warning: 0, noData: 2 });
    expect(previewSentence(summary)).toBe("In alert 12 of the last 72 hours; no data in 2.");
    expect([0, 0.7, 10, 10.5, 15.4, 26, 60, 1200].map(niceCeiling)).toEqual([1, 1, 10, 20, 20, 50, 100, 2000]);
  });
});

test("previews are read at most 4 at once, in order", async () => {
  const limit = concurrencyLimit(4);
  let running = 0;
  let most = 0;
  const order: number[] = [];
  await Promise.all(
    Array.from({ length: 10 }, (_, index) =>
      limit(async () => {
        running += 1;
        most = Math.max(most, running);
        order.push(index);
        await new Promise((resolve) => setTimeout(resolve, 5));
        running -= 1;
      }),
    ),
  );
  expect(most).toBe(4);
  expect(order).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
});

describe("the Alerts page", () => {
  test("lists the environment's monitors in words, with state, last figure and a sparkline of the last 72 h; and the destinations", async () => {
    // Prepare
    const requests = mockFetch(alertRoutes("member"));

    // Act
    renderApp("/alerts");

    // Assess
    const table = await screen.findByRole("table", { name: "Monitors of acme (live)" });
    const row = within(table).getByRole("row", { name: /Support bot failing/ });
    expect(within(row).getByRole("link", { name: "Support bot failing" }).getAttribute("href")).toBe("/alerts/mon_01");
    expect(row.textContent).toContain("Failure rate of agent support-bot");
    expect(row.textContent).toContain("Alert above 10% (warning at 5%)");
    expect(row.textContent).toContain("15 min");
    expect(within(row).getByText("Alert").className).toContain("badge--monitor-alert");
    expect(row.textContent).toContain("12.5% vs 10%");
    const sparkline = await within(row).findByRole("img");
    expect(sparkline.getAttribute("aria-label")).toBe("Last 72 h: from 2% to 12%, highest 12%; alert at 10%");
    const preview = requests.find((request) => request.path === "/api/alerts/monitors/preview");
    expect(preview?.body).toEqual(DEFINITION);
    expect(preview?.headers.get("X-Environment")).toBe("live");

    const destinations = screen.getByRole("table", { name: "Destinations of acme" });
    const slack = within(destinations).getByRole("row", { name: /Team channel/ });
    expect(slack.textContent).toContain("Disabled 10 deliveries failed in a row (HTTP 500)");
    expect(slack.textContent).toContain("Last error: HTTP 500");
  });

  test("a member reads but gets no way to change: no New monitor, no destination actions, the form refused", async () => {
    // Prepare
    mockFetch(alertRoutes("member"));

    // Act
    const { unmount } = renderApp("/alerts");
    await screen.findByRole("table", { name: "Destinations of acme" });

    // Assess
    expect(screen.queryByRole("link", { name: "New monitor" })).toBeNull();
    expect(screen.queryByRole("button", { name: "Add a destination" })).toBeNull();
    expect(screen.queryByRole("button", { name: /Send a test|Rotate|Delete|Re-enable/ })).toBeNull();
    expect(screen.getByText(/owners and admins create and change monitors/)).toBeTruthy();
    unmount();
    const { unmount: leave } = renderApp("/alerts/mon_01");
    expect(await screen.findByRole("heading", { level: 1, name: "Support bot failing" })).toBeTruthy();
    expect(screen.queryByRole("link", { name: "Change" })).toBeNull();
    expect(screen.queryByRole("button", { name: /Send a test notification|Delete/ })).toBeNull();
    leave();
    renderApp("/alerts/new");
    expect(
      await screen.findByText(/You are a member of acme: owners and admins create and change monitors/),
    ).toBeTruthy();
    expect(screen.queryByRole("form", { name: "Monitor" })).toBeNull();
  });

  test("an admin adds a webhook: its secret is shown once with a copy button, then never again; rotating shows the new one once", async () => {
    // Prepare
    const user = userEvent.setup();
    let stored = [HOOK, SLACK];
    const requests = mockFetch(
      alertRoutes("admin", {
        "GET /api/alerts/destinations": () => json({ destinations: stored }),
        "POST /api/alerts/destinations": (request: RecordedRequest) => {
          const created = { ...HOOK, id: "dst_new", ...(request.body as object) };
          stored = [...stored, created];
          return json({ ...created, secret: SECRET }, 201);
        },
        "POST /api/alerts/destinations/dst_new/rotate-secret": json({ secret: `${SECRET}-2` }),
      }),
    );
    renderApp("/alerts");
    await screen.findByRole("table", { name: "Destinations of acme" });

    // Act
    await user.click(screen.getByRole("button", { name: "Add a destination" }));
    const dialog = screen.getByRole("dialog", { name: "Add a destination" });
    await user.type(within(dialog).getByLabelText("Name"), "Pager");
    await user.type(within(dialog).getByLabelText("URL"), "https://pager.example.com/hook");
    await user.click(within(dialog).getByRole("button", { name: "Add destination" }));

    // Assess: the request, the secret once with its warning and copy button
    const created = await screen.findByRole("dialog", { name: 'Destination "Pager" created' });
    expect(
      requests.find((request) => request.path === "/api/alerts/destinations" && request.method === "POST")?.body,
    ).toEqual({
      name: "Pager",
      kind: "webhook",
      url: "https://pager.example.com/hook",
    });
    expect((within(created).getByLabelText("Signing secret") as HTMLInputElement).value).toBe(SECRET);
    expect(within(created).getByRole("alert").textContent).toContain("shown only once");
    await user.click(within(created).getByRole("button", { name: "Copy secret" }));
    expect(await navigator.clipboard.readText()).toBe(SECRET);
    await user.click(within(created).getByRole("button", { name: "Done" }));
    expect(screen.queryByRole("dialog")).toBeNull();
    expect(document.body.textContent).not.toContain(SECRET);
    await screen.findByRole("row", { name: /Pager/ });

    // Act: rotate its secret
    await user.click(screen.getByRole("button", { name: "Rotate secret of Pager" }));
    await user.click(screen.getByRole("button", { name: "Rotate secret" }));

    // Assess
    const rotated = await screen.findByRole("dialog", { name: "New secret of Pager" });
    expect((within(rotated).getByLabelText("Signing secret") as HTMLInputElement).value).toBe(`${SECRET}-2`);
    await user.click(within(rotated).getByRole("button", { name: "Done" }));
    expect(document.body.textContent).not.toContain(SECRET);
    expect(screen.getByText("Secret of Pager rotated.")).toBeTruthy();
  });

  test("an admin tests a destination and re-enables a disabled one", async () => {
    // Prepare
    const user = userEvent.setup();
    const requests = mockFetch(
      alertRoutes("admin", {
        "POST /api/alerts/destinations/dst_hook/test": json({ delivered: false, status: 500, error: "HTTP 500" }),
        "PUT /api/alerts/destinations/dst_slack": (request: RecordedRequest) =>
          json({ ...SLACK, ...(request.body as object), disabledReason: null, consecutiveFailures: 0 }),
      }),
    );
    renderApp("/alerts");
    await screen.findByRole("table", { name: "Destinations of acme" });

    // Act
    await user.click(screen.getByRole("button", { name: "Send a test to On-call webhook" }));

    // Assess
    expect(await screen.findByText("Test to On-call webhook failed: HTTP 500.")).toBeTruthy();

    // Act
    await user.click(screen.getByRole("button", { name: "Re-enable Team channel" }));

    // Assess
    expect(await screen.findByText("Team channel re-enabled.")).toBeTruthy();
    await waitFor(() => expect(requests.some((request) => request.method === "PUT")).toBe(true));
    expect(requests.find((request) => request.method === "PUT")?.body).toEqual({
      name: "Team channel",
      enabled: true,
      url: SLACK.url,
    });
  });
});

describe("the monitor form", () => {
  test("shows mistakes on their fields, previews the figure as the form changes, and places the API's 400 on its field", async () => {
    // Prepare
    const user = userEvent.setup();
    const requests = mockFetch(
      alertRoutes("admin", {
        "POST /api/alerts/monitors": {
          status: 400,
          body: {
            error: "Bad Request",
            message: "Invalid request body",
            issues: [{ path: "filters.agent", message: "No such agent may be watched here" }],
          },
        },
      }),
    );
    renderApp("/alerts/new");
    const form = await screen.findByRole("form", { name: "Monitor" });

    // Act: submit the empty form
    await user.click(within(form).getByRole("button", { name: "Create monitor" }));

    // Assess: errors under their fields, no request
    const name = within(form).getByLabelText("Name");
    expect(name.getAttribute("aria-invalid")).toBe("true");
    expect(name.getAttribute("aria-describedby")).toBeTruthy();
    expect(document.getElementById(String(name.getAttribute("aria-describedby")))?.textContent).toBe(
      "Name the monitor (1 to 100 characters).",
    );
    expect(within(form).getByLabelText("Alert threshold (%)").getAttribute("aria-invalid")).toBe("true");
    expect(requests.some((request) => request.path === "/api/alerts/monitors" && request.method === "POST")).toBe(
      false,
    );
    expect(
      screen.getByText("Fill in the metric, its filters, the window and the thresholds to see the figure."),
    ).toBeTruthy();

    // Act: fill it in
    await user.type(name, "Support bot failing");
    await user.selectOptions(within(form).getByLabelText("Agent"), "support-bot");
    await user.type(within(form).getByLabelText("Alert threshold (%)"), "10");
    await user.click(within(form).getByRole("checkbox", { name: /On-call webhook/ }));

    // Assess: one preview of the settled form (the typing in between is not sent), and its summary
    expect(await screen.findByText("In alert 12 of the last 72 hours; no data in 2.")).toBeTruthy();
    const previews = requests.filter((request) => request.path === "/api/alerts/monitors/preview");
    expect(previews.at(-1)?.body).toMatchObject({
      metric: "failure_rate",
      filters: { agent: "support-bot" },
      alertThreshold: 10,
      windowMinutes: 15,
    });
    expect(previews.length).toBeLessThanOrEqual(2);

    // Act: save; the API refuses the agent
    await user.click(within(form).getByRole("button", { name: "Create monitor" }));

    // Assess: the API's message on the agent field
    const agent = within(form).getByLabelText("Agent");
    await waitFor(() => expect(agent.getAttribute("aria-invalid")).toBe("true"));
    expect(within(form).getByText("No such agent may be watched here")).toBeTruthy();
    const post = requests.find((request) => request.path === "/api/alerts/monitors" && request.method === "POST");
    expect(post?.body).toEqual({
      name: "Support bot failing",
      enabled: true,
      metric: "failure_rate",
      filters: { agent: "support-bot" },
      windowMinutes: 15,
      comparison: "above",
      alertThreshold: 10,
      minSessions: 10,
      noData: "keep",
      renotifyMinutes: 0,
      notifyOnRecovery: true,
      destinationIds: ["dst_hook"],
    });
  });

  test("a saved monitor opens on its page, with its history", async () => {
    // Prepare
    const user = userEvent.setup();
    mockFetch(
      alertRoutes("admin", {
        "POST /api/alerts/monitors": (request: RecordedRequest) =>
          json({ ...MONITOR, ...(request.body as object), id: "mon_02" }, 201),
        "GET /api/alerts/monitors/mon_02": json({ ...MONITOR, id: "mon_02", name: "Costly" }),
        "GET /api/alerts/monitors/mon_02/history": json({
          history: [
            {
              id: "h1",
              at: AT,
              from: "ok",
              to: "alert",
              kind: "change",
              figure: 12.5,
              samples: 40,
              threshold: 10,
              windowStart: "2026-11-27T08:45:00.000Z",
              windowEnd: AT,
              notificationId: "ntf_1",
            },
          ],
          nextCursor: null,
        }),
      }),
    );
    renderApp("/alerts/new");
    const form = await screen.findByRole("form", { name: "Monitor" });

    // Act
    await user.type(within(form).getByLabelText("Name"), "Costly");
    await user.selectOptions(within(form).getByLabelText("Metric"), "cost");
    await user.type(within(form).getByLabelText("Alert threshold (USD)"), "50");
    await user.click(within(form).getByRole("button", { name: "Create monitor" }));

    // Assess
    expect(await screen.findByRole("heading", { level: 1, name: "Costly" })).toBeTruthy();
    expect(screen.getByLabelText("Current location").textContent).toBe("/alerts/mon_02");
    const history = await screen.findByRole("table", { name: "State changes of Costly, newest first" });
    const row = within(history).getAllByRole("row")[1];
    expect(row?.textContent).toContain("OK → Alert");
    expect(row?.textContent).toContain("12.5%");
    expect(row?.textContent).toContain("10%");
  });
});
