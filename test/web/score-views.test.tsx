// @vitest-environment jsdom
import { screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { describe, expect, test } from "vitest";
import type { AgentStats } from "../../web/src/api/types";
import {
  labelMixSeries,
  MAX_LABELS_CHARTED,
  OTHER_LABEL,
  type ScoreNameStats,
  scoreChartKind,
  scoreMeanSeries,
} from "../../web/src/lib/score-series";
import {
  describeScoreFilter,
  NO_FILTERS,
  readFilters,
  scoreConditionOf,
  sessionsLink,
  toApiFilters,
  writeFilters,
} from "../../web/src/lib/session-filters";
import { apiError, baseRoutes, json, mockFetch, renderApp } from "./support/render-app";

const none = { numeric: null, boolean: null, labels: [] };

function figures(fields: Partial<ScoreNameStats>) {
  return { count: 0, ...none, ...fields };
}

const HELPFULNESS: ScoreNameStats = {
  name: "helpfulness",
  ...figures({ count: 3, numeric: { count: 3, mean: 0.7, p50: 0.8, p90: 0.9, p99: 0.9 } }),
  days: [
    {
      day: "2026-11-20",
      ...figures({ count: 2, numeric: { count: 2, mean: 0.6, p50: 0.6, p90: 0.8, p99: 0.8 } }),
    },
    { day: "2026-11-22", ...figures({ count: 1, numeric: { count: 1, mean: 0.9, p50: 0.9, p90: 0.9, p99: 0.9 } }) },
  ],
};

const RESOLVED: ScoreNameStats = {
  name: "resolved",
  ...figures({ count: 4, boolean: { count: 4, trueCount: 3, trueShare: 0.75 } }),
  days: [{ day: "2026-11-21", ...figures({ count: 4, boolean: { count: 4, trueCount: 3, trueShare: 0.75 } }) }],
};

const TONE: ScoreNameStats = {
  name: "tone",
  ...figures({
    count: 6,
    labels: [
      { label: "friendly", count: 3 },
      { label: "rude", count: 2 },
      { label: "(other)", count: 1 },
    ],
  }),
  days: [
    {
      day: "2026-11-21",
      ...figures({
        count: 6,
        labels: [
          { label: "friendly", count: 3 },
          { label: "rude", count: 2 },
          { label: "(other)", count: 1 },
        ],
      }),
    },
  ],
};

describe("score charts' data", () => {
  test("a name is charted as the kind most of its scores have (numbers before yes/no before labels on a tie)", () => {
    expect(scoreChartKind(HELPFULNESS)).toBe("numeric");
    expect(scoreChartKind(RESOLVED)).toBe("boolean");
    expect(scoreChartKind(TONE)).toBe("categorical");
    const mixed = figures({
      count: 5,
      numeric: { count: 1, mean: 1, p50: 1, p90: 1, p99: 1 },
      boolean: { count: 1, trueCount: 1, trueShare: 1 },
      labels: [{ label: "a", count: 3 }],
    });
    expect(scoreChartKind(mixed)).toBe("categorical");
    expect(
      scoreChartKind(
        figures({
          count: 2,
          numeric: { count: 1, mean: 1, p50: 1, p90: 1, p99: 1 },
          boolean: { count: 1, trueCount: 0, trueShare: 0 },
        }),
      ),
    ).toBe("numeric");
  });

  test("the daily mean has a point for every day of the period: null and 0 scores on a day without any", () => {
    expect(scoreMeanSeries(HELPFULNESS, "numeric", "2026-11-19", "2026-11-22")).toEqual([
      { day: "2026-11-19", value: null, count: 0 },
      { day: "2026-11-20", value: 0.6, count: 2 },
      { day: "2026-11-21", value: null, count: 0 },
      { day: "2026-11-22", value: 0.9, count: 1 },
    ]);
  });

  test("yes/no reads as the % true per day", () => {
    expect(scoreMeanSeries(RESOLVED, "boolean", "2026-11-21", "2026-11-22")).toEqual([
      { day: "2026-11-21", value: 75, count: 4 },
      { day: "2026-11-22", value: null, count: 0 },
    ]);
  });

  test("the label mix: the period's labels each on its own, the API's (other) as Other, every day a point", () => {
    const mix = labelMixSeries(TONE, "2026-11-21", "2026-11-22");
    expect(mix.labels).toEqual([
      { label: "friendly", key: "label-0", total: 3 },
      { label: "rude", key: "label-1", total: 2 },
      { label: OTHER_LABEL, key: "label-other", total: 1 },
    ]);
    expect(mix.points).toEqual([
      { day: "2026-11-21", total: 6, counts: { "label-0": 3, "label-1": 2, "label-other": 1 } },
      { day: "2026-11-22", total: 0, counts: {} },
    ]);
  });

  test(`past ${MAX_LABELS_CHARTED} labels the rest are summed as Other; a label named like a prototype key is only a label`, () => {
    const labels = ["__proto__", ...Array.from({ length: 11 }, (_, index) => `label ${index}`)].map((label, index) => ({
      label,
      count: 20 - index,
    }));
    const stats: ScoreNameStats = {
      name: "topic",
      ...figures({ count: 200, labels }),
      days: [{ day: "2026-11-21", ...figures({ count: 200, labels }) }],
    };
    const mix = labelMixSeries(stats, "2026-11-21", "2026-11-21");
    expect(mix.labels.map((entry) => entry.label)).toEqual([
      ...labels.slice(0, MAX_LABELS_CHARTED).map((entry) => entry.label),
      OTHER_LABEL,
    ]);
    const rest = labels.slice(MAX_LABELS_CHARTED).reduce((sum, entry) => sum + entry.count, 0);
    expect(mix.labels.at(-1)?.total).toBe(rest);
    expect(mix.points[0]?.counts["label-0"]).toBe(20);
    expect(mix.points[0]?.total).toBe(labels.reduce((sum, entry) => sum + entry.count, 0));
    // No "Other" when every label has its own colour.
    expect(
      labelMixSeries({ ...TONE, labels: TONE.labels.slice(0, 2), days: [] }, "2026-11-21", "2026-11-21").labels,
    ).toEqual([
      { label: "friendly", key: "label-0", total: 0 },
      { label: "rude", key: "label-1", total: 0 },
    ]);
  });
});

describe("the score filter in the URL", () => {
  test("round trip: written to the URL, read back the same, sent to the API under the API's names", () => {
    const written = writeFilters(new URLSearchParams("env=test"), {
      ...NO_FILTERS,
      agentName: "support-bot",
      scoreName: "helpfulness",
      scoreMin: "0.5",
      scoreMax: " 1 ",
    });
    expect(written.toString()).toBe("env=test&agentName=support-bot&scoreName=helpfulness&scoreMin=0.5&scoreMax=1");
    const read = readFilters(new URLSearchParams(written.toString()));
    expect(read).toEqual({
      ...NO_FILTERS,
      agentName: "support-bot",
      scoreName: "helpfulness",
      scoreMin: "0.5",
      scoreMax: "1",
    });
    expect(toApiFilters(read)).toEqual({
      agentName: "support-bot",
      scoreName: "helpfulness",
      scoreMin: "0.5",
      scoreMax: "1",
    });
    expect(scoreConditionOf(read)).toBe("range");
    expect(describeScoreFilter(read)).toBe("helpfulness from 0.5 to 1");
  });

  test("each condition reads back as itself and in words", () => {
    const label = readFilters(new URLSearchParams("scoreName=tone&scoreLabel=friendly"));
    expect([scoreConditionOf(label), describeScoreFilter(label)]).toEqual(["label", "tone is friendly"]);
    const yes = readFilters(new URLSearchParams("scoreName=resolved&scoreValue=false"));
    expect([scoreConditionOf(yes), describeScoreFilter(yes)]).toEqual(["false", "resolved is false"]);
    const any = readFilters(new URLSearchParams("scoreName=thumbs"));
    expect([scoreConditionOf(any), describeScoreFilter(any)]).toEqual(["any", "thumbs (any value)"]);
    const atMost = readFilters(new URLSearchParams("scoreName=stars&scoreMax=2"));
    expect(describeScoreFilter(atMost)).toBe("stars at most 2");
  });

  test("clearing writes the score parameters away, keeping the others", () => {
    const cleared = writeFilters(new URLSearchParams("status=failed&scoreName=tone&scoreLabel=rude"), {
      scoreName: "",
      scoreLabel: "",
    });
    expect(cleared.toString()).toBe("status=failed");
  });

  test("a chart's link lists the agent's sessions with that score over the same days", () => {
    expect(
      sessionsLink({ agentName: "support-bot", from: "2026-11-01", to: "2026-11-30", scoreName: "tone" }, "live"),
    ).toBe("/sessions?agentName=support-bot&from=2026-11-01&to=2026-11-30&scoreName=tone");
  });
});

const summary = {
  sessions: 4,
  completed: 3,
  failed: 1,
  successRate: 0.75,
  reportedCost: 0.5,
  eventCost: 0.1,
  events: 20,
  promptTokens: 1000,
  completionTokens: 500,
  totalTokens: 1500,
  durationMs: { p50: 2487, p95: 29830, p99: 61200, mean: 6000, precision: "fine" as const },
};

function agentStats(scores: ScoreNameStats[], scoresTruncated = false): AgentStats {
  return {
    agentName: "support-bot",
    from: "2026-11-20",
    to: "2026-11-22",
    totals: summary,
    days: [{ day: "2026-11-21", ...summary }],
    topFailureReasons: [],
    scores,
    scoresTruncated,
    topToolsByCalls: [],
    topToolsByErrors: [],
  };
}

function agentRoutes(stats: AgentStats) {
  return {
    ...baseRoutes("member"),
    "GET /api/sdk/agents/support-bot/stats": json(stats),
    // The cost by model (…/models) is not this file's: unanswered, that section shows its error.
  };
}

describe("the agent page's scores", () => {
  test("one chart per score name, captioned by its kind, with its legend of labels and figures per day", async () => {
    mockFetch(agentRoutes(agentStats([TONE, RESOLVED, HELPFULNESS])));
    renderApp("/agents/support-bot?days=7");
    const section = await screen.findByRole("region", { name: "Scores" });
    const captions = within(section)
      .getAllByRole("figure")
      .map((figure) => figure.querySelector("figcaption")?.firstChild?.textContent);
    expect(captions).toEqual(["tone: labels per day", "resolved: % true per day", "helpfulness: mean per day"]);
    const legend = within(section).getByRole("list", { name: "Labels of tone: labels per day" });
    expect(
      within(legend)
        .getAllByRole("listitem")
        .map((item) => item.textContent),
    ).toEqual(["friendly (3)", "rude (2)", "Other (1)"]);
    expect(within(section).getByText(/^4 scores, 75% true ·/)).toBeTruthy();
    expect(within(section).getByText(/3 scores, mean 0\.7/)).toBeTruthy();
    const table = within(section).getByRole("table", { name: "helpfulness: mean per day: figures per day" });
    expect(
      within(table)
        .getAllByRole("row")
        .slice(1)
        .map((row) => row.textContent),
    ).toEqual(["20 Nov 20260.62", "22 Nov 20260.91"]);
    const link = within(section).getAllByRole("link", { name: "sessions with this score" })[0];
    expect(link?.getAttribute("href")).toBe(
      "/sessions?agentName=support-bot&from=2026-11-20&to=2026-11-22&scoreName=tone",
    );
    expect(within(section).queryByRole("note")).toBeNull();
  });

  test("a period without scores says so; names left out by the stats are said to be", async () => {
    mockFetch(agentRoutes(agentStats([])));
    renderApp("/agents/support-bot?days=7");
    const section = await screen.findByRole("region", { name: "Scores" });
    expect(within(section).getByText("No scores in this period.")).toBeTruthy();
    expect(within(section).queryByRole("figure")).toBeNull();
  });

  test("truncated stats: the note says more names exist than shown", async () => {
    mockFetch(agentRoutes(agentStats([HELPFULNESS], true)));
    renderApp("/agents/support-bot?days=7");
    const section = await screen.findByRole("region", { name: "Scores" });
    expect(within(section).getByRole("note").textContent).toBe(
      "The 1 most given score names; this agent has more in this period, not shown.",
    );
  });
});

const location = () => screen.getByRole("status", { name: "Current location" }).textContent ?? "";

function session(id: string) {
  return {
    id,
    name: `Run ${id}`,
    agentName: "support-bot",
    userId: "customer-42",
    environment: "live",
    metadata: null,
    conversationId: null,
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
    toolCalls: {},
    toolErrors: {},
    createdAt: "2026-11-22T10:00:00.000Z",
    updatedAt: "2026-11-22T10:00:05.400Z",
    lastActivityAt: "2026-11-22T10:00:05.400Z",
    completedAt: "2026-11-22T10:00:05.400Z",
    stale: false,
  };
}

const CONFIGS = {
  items: [
    {
      name: "tone",
      dataType: "categorical",
      labels: ["friendly", "rude"],
      updatedAt: "2026-11-01T00:00:00.000Z",
      updatedBy: "ada",
    },
    { name: "stars", dataType: "numeric", min: 1, max: 5, updatedAt: "2026-11-01T00:00:00.000Z", updatedBy: "ada" },
  ],
};

describe("the sessions list filtered by a score", () => {
  test("a configured number: name, range → the URL and the API; the chip removes it", async () => {
    const user = userEvent.setup();
    const requests = mockFetch({
      ...baseRoutes("member"),
      "GET /api/sdk/agents": json({ items: [] }),
      "GET /api/sdk/score-configs": json(CONFIGS),
      "GET /api/sdk/sessions": json({ items: [session("ses_1")], nextCursor: null }),
    });
    renderApp("/sessions");
    const form = await screen.findByRole("form", { name: "Session filters" });
    await user.type(within(form).getByLabelText("Score name"), "stars");
    const condition = within(form).getByLabelText("Its latest score");
    // A configured number offers only a range.
    await waitFor(() =>
      expect(
        within(condition)
          .getAllByRole("option")
          .map((option) => option.textContent),
      ).toEqual(["Any value", "A number between"]),
    );
    await user.selectOptions(condition, "range");
    await user.type(within(form).getByLabelText("At least"), "4");
    await user.type(within(form).getByLabelText("At most"), "5");
    await user.click(within(form).getByRole("button", { name: "Apply filters" }));
    await waitFor(() => expect(location()).toBe("/sessions?scoreName=stars&scoreMin=4&scoreMax=5"));
    await waitFor(() => expect(requests.some((request) => request.query.get("scoreMin") === "4")).toBe(true));
    const sent = requests.filter((request) => request.path === "/api/sdk/sessions").at(-1);
    expect([sent?.query.get("scoreName"), sent?.query.get("scoreMin"), sent?.query.get("scoreMax")]).toEqual([
      "stars",
      "4",
      "5",
    ]);
    expect(screen.getByText("Filters (1)")).toBeTruthy();
    await user.click(screen.getByRole("button", { name: "Remove the score filter stars from 4 to 5" }));
    await waitFor(() => expect(location()).toBe("/sessions"));
    expect((within(form).getByLabelText("Score name") as HTMLInputElement).value).toBe("");
  });

  test("a label from the URL fills the form; choosing another condition drops the label", async () => {
    const user = userEvent.setup();
    mockFetch({
      ...baseRoutes("member"),
      "GET /api/sdk/agents": json({ items: [] }),
      "GET /api/sdk/score-configs": json(CONFIGS),
      "GET /api/sdk/sessions": json({ items: [session("ses_1")], nextCursor: null }),
    });
    renderApp("/sessions?scoreName=tone&scoreLabel=rude");
    const form = await screen.findByRole("form", { name: "Session filters" });
    expect((within(form).getByLabelText("Label") as HTMLInputElement).value).toBe("rude");
    expect(screen.getByRole("list", { name: "Also filtered by" }).textContent).toContain("Score: tone is rude");
    await user.selectOptions(within(form).getByLabelText("Its latest score"), "any");
    expect(within(form).queryByLabelText("Label")).toBeNull();
    await user.click(within(form).getByRole("button", { name: "Apply filters" }));
    await waitFor(() => expect(location()).toBe("/sessions?scoreName=tone"));
  });

  test("an invalid combination (a hand-made URL) shows the API's 400 inline, with the filters still there", async () => {
    mockFetch({
      ...baseRoutes("member"),
      "GET /api/sdk/agents": json({ items: [] }),
      "GET /api/sdk/score-configs": json({ items: [] }),
      "GET /api/sdk/sessions": {
        status: 400,
        body: {
          error: "Bad Request",
          message: "Invalid query parameters",
          issues: [{ path: "scoreMin", message: "Must not be above scoreMax" }],
        },
      },
    });
    renderApp("/sessions?scoreName=stars&scoreMin=5&scoreMax=1");
    const alert = await screen.findByRole("alert");
    expect(alert.textContent).toContain("Invalid query parameters scoreMin: Must not be above scoreMax");
    expect(screen.getByRole("form", { name: "Session filters" })).toBeTruthy();
    expect(screen.getByRole("button", { name: "Remove the score filter stars from 5 to 1" })).toBeTruthy();
  });

  test("a name without a configuration offers every condition; yes/no goes to the API as scoreValue", async () => {
    const user = userEvent.setup();
    const requests = mockFetch({
      ...baseRoutes("member"),
      "GET /api/sdk/agents": json({ items: [] }),
      "GET /api/sdk/score-configs": apiError(500, "Internal Server Error", "boom"),
      "GET /api/sdk/sessions": json({ items: [], nextCursor: null }),
    });
    renderApp("/sessions");
    const form = await screen.findByRole("form", { name: "Session filters" });
    await user.type(within(form).getByLabelText("Score name"), "resolved");
    const condition = within(form).getByLabelText("Its latest score");
    expect(within(condition).getAllByRole("option")).toHaveLength(5);
    await user.selectOptions(condition, "true");
    await user.click(within(form).getByRole("button", { name: "Apply filters" }));
    await waitFor(() => expect(location()).toBe("/sessions?scoreName=resolved&scoreValue=true"));
    await waitFor(() => expect(requests.some((request) => request.query.get("scoreValue") === "true")).toBe(true));
    expect(await screen.findByText("No sessions match these filters.")).toBeTruthy();
  });
});

function conversation(id: string, fields: Record<string, unknown> = {}) {
  return {
    id,
    agentName: "support-chat",
    userId: "customer-7",
    startedAt: "2026-11-22T10:00:00.000Z",
    lastRunAt: "2026-11-22T10:05:00.000Z",
    runCount: 3,
    ...fields,
  };
}

describe("the conversations list", () => {
  test("from the navigation: rows open their conversation; filters go to the URL and the API; Load more follows the cursor", async () => {
    const user = userEvent.setup();
    const requests = mockFetch({
      ...baseRoutes("member"),
      "GET /api/sdk/agents": json({ items: [] }),
      "GET /api/sdk/sessions": json({ items: [], nextCursor: null }),
      "GET /api/sdk/conversations": (request) =>
        request.query.get("cursor") === "next-1"
          ? json({ items: [conversation("chat-2")], nextCursor: null })
          : json({ items: [conversation("chat-1")], nextCursor: "next-1" }),
    });
    renderApp("/sessions");
    await user.click(await screen.findByRole("link", { name: "Conversations" }));
    expect(await screen.findByRole("heading", { level: 1, name: "Conversations" })).toBeTruthy();
    const link = await screen.findByRole("link", { name: "chat-1" });
    expect(link.getAttribute("href")).toBe("/conversations/chat-1");
    await user.click(screen.getByRole("button", { name: "Load more conversations" }));
    expect(await screen.findByRole("link", { name: "chat-2" })).toBeTruthy();
    expect(screen.getByText("2 conversations shown")).toBeTruthy();

    const form = screen.getByRole("form", { name: "Conversation filters" });
    await user.type(within(form).getByLabelText("Agent"), "support-chat");
    await user.type(within(form).getByLabelText("From (UTC day)"), "2026-11-01");
    await user.click(within(form).getByRole("button", { name: "Apply filters" }));
    await waitFor(() => expect(location()).toBe("/conversations?agentName=support-chat&from=2026-11-01"));
    await waitFor(() =>
      expect(requests.some((request) => request.query.get("agentName") === "support-chat")).toBe(true),
    );
    const sent = requests.filter((request) => request.path === "/api/sdk/conversations").at(-1);
    expect([sent?.query.get("from"), sent?.query.get("to"), sent?.query.get("limit")]).toEqual([
      "2026-11-01T00:00:00.000Z",
      null,
      "25",
    ]);
    await user.click(within(form).getByRole("button", { name: "Clear filters" }));
    await waitFor(() => expect(location()).toBe("/conversations"));
  });

  test("none yet, or none matching, says which", async () => {
    mockFetch({
      ...baseRoutes("member"),
      "GET /api/sdk/agents": json({ items: [] }),
      "GET /api/sdk/conversations": json({ items: [], nextCursor: null }),
    });
    renderApp("/conversations?userId=nobody");
    expect(await screen.findByText("No conversations match these filters.")).toBeTruthy();
  });

  test("the API's refusal is shown, not a blank page", async () => {
    mockFetch({
      ...baseRoutes("member"),
      "GET /api/sdk/agents": json({ items: [] }),
      "GET /api/sdk/conversations": apiError(400, "Bad Request", "from must not be after to"),
    });
    renderApp("/conversations?from=2026-11-30&to=2026-11-01");
    expect((await screen.findByRole("alert")).textContent).toContain("from must not be after to");
  });
});
