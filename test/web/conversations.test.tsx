// @vitest-environment jsdom
import { screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { describe, expect, test } from "vitest";
import type { ConversationTotals, Role, Score, ScoreConfig } from "../../web/src/api/types";
import { scoreFiguresParts } from "../../web/src/lib/score-figures";
import {
  apiError,
  baseRoutes,
  json,
  mockFetch,
  type RecordedRequest,
  type Routes,
  renderApp,
} from "./support/render-app";

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

const totals: ConversationTotals = {
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
  scores: [],
  scoresComplete: true,
};

/** The conversation's read beyond its runs: its first scores (none here) and whether it has more. */
const noScores = { scores: [], scoresTruncated: false };

const location = () => screen.getByRole("status", { name: "Current location" }).textContent ?? "";

describe("Conversation page", () => {
  test("its totals, its runs as turns in order (more on request), each opening its session", async () => {
    const user = userEvent.setup();
    const requests = mockFetch({
      ...baseRoutes("member"),
      "GET /api/sdk/conversations/chat%237": (request) =>
        request.query.has("cursor")
          ? json({ ...conversation, ...noScores, totals: null, runs: [run("ses_3")], nextCursor: null })
          : json({
              ...conversation,
              ...noScores,
              totals,
              runs: [run("ses_1"), run("ses_2", { status: "failed", failureReason: "timeout" })],
              nextCursor: "next",
            }),
      "GET /api/sdk/conversations/chat%237/scores": json({ items: [], nextCursor: null }),
      "GET /api/sdk/score-configs": json({ items: [] }),
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
    expect(requests.filter((request) => request.path === "/api/sdk/conversations/chat%237")).toHaveLength(2);

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

const AT = "2026-11-22T10:06:00.000Z";
const TONE: ScoreConfig = {
  name: "tone",
  dataType: "categorical",
  labels: ["friendly", "neutral", "rude"],
  updatedAt: AT,
  updatedBy: "ada@example.com",
};

let scoreCount = 0;
function conversationScore(fields: Partial<Score>): Score {
  scoreCount += 1;
  return {
    id: `scr_01KAZ3X8Q9M4T7V2N6P5R1S${String(scoreCount).padStart(3, "0")}`,
    sessionId: null,
    eventId: null,
    conversationId: "chat#7",
    name: "resolved",
    value: true,
    valueKind: "boolean",
    comment: null,
    source: "end_user",
    author: { kind: "apiKey", id: "key_01KAZ3X8Q9M4T7V2N6P5R1S0WE" },
    createdAt: AT,
    updatedAt: AT,
    ...fields,
  };
}

/** The figures the API would give a name's stored scores (its runs' left out: none here). */
function figuresOf(scores: readonly Score[]): ConversationTotals["scores"] {
  const names = [...new Set(scores.map((score) => score.name))];
  return names.map((name) => {
    const values = scores.filter((score) => score.name === name).map((score) => score.value);
    const booleans = values.filter((value) => typeof value === "boolean");
    const trueCount = booleans.filter((value) => value).length;
    const labels = values.filter((value) => typeof value === "string");
    return {
      name,
      count: values.length,
      numeric: null,
      boolean:
        booleans.length === 0 ? null : { count: booleans.length, trueCount, trueShare: trueCount / booleans.length },
      labels: [...new Set(labels)].map((label) => ({
        label,
        count: labels.filter((value) => value === label).length,
      })),
    };
  });
}

/**
 * The conversation page's routes with a store of its own scores that POST and DELETE change as the API does; its
 * read answers the totals of what is stored.
 */
function scoredConversationRoutes(role: Role, initial: Score[]): Routes {
  let stored = [...initial];
  const routes: Routes = {
    ...baseRoutes(role),
    "GET /api/sdk/conversations/chat%237": () =>
      json({
        ...conversation,
        scores: stored.slice(0, 20),
        scoresTruncated: stored.length > 20,
        totals: { ...totals, scores: figuresOf(stored) },
        runs: [run("ses_1")],
        nextCursor: null,
      }),
    "GET /api/sdk/conversations/chat%237/scores": () => json({ items: stored, nextCursor: null }),
    "GET /api/sdk/score-configs": json({ items: [TONE] }),
    "POST /api/sdk/scores": (request: RecordedRequest) => {
      const body = request.body as Partial<Score> & { value: Score["value"] };
      const saved = conversationScore({
        ...body,
        ...(body.id === undefined ? {} : { id: body.id }),
        comment: body.comment ?? null,
        valueKind: typeof body.value === "boolean" ? "boolean" : "categorical",
        source: "console",
        author: { kind: "user", id: "user-1" },
      });
      const replaced = stored.some((existing) => existing.id === saved.id);
      stored = replaced ? stored.map((existing) => (existing.id === saved.id ? saved : existing)) : [...stored, saved];
      return json(saved, replaced ? 200 : 201);
    },
  };
  for (const existing of initial) {
    routes[`DELETE /api/sdk/conversations/chat%237/scores/${existing.id}`] = () => {
      stored = stored.filter((candidate) => candidate.id !== existing.id);
      return { status: 204 };
    };
  }
  return routes;
}

const posts = (requests: RecordedRequest[]) => requests.filter((request) => request.method === "POST");
const TOTALS_TABLE = "Totals per name: the conversation's scores and its runs'";
/** A name's row of the totals per name, cell by cell; undefined when the name has none. */
function totalsRow(name: string): (string | null)[] | undefined {
  const table = screen.queryByRole("table", { name: TOTALS_TABLE });
  const row = table === null ? null : within(table).queryByRole("rowheader", { name })?.closest("tr");
  return row === null || row === undefined ? undefined : [...row.children].map((cell) => cell.textContent);
}

describe("Conversation scores", () => {
  test("a thumbs down goes on the conversation (its id, no session), is listed and counted in the totals read again", async () => {
    // Prepare
    const user = userEvent.setup();
    const requests = mockFetch(scoredConversationRoutes("member", []));
    renderApp("/conversations/chat%237");
    const section = await screen.findByRole("region", { name: "Scores" });
    expect(
      await within(section).findByText(/None of the conversation yet; a run's scores are on its page/),
    ).toBeTruthy();
    expect(within(section).getByText("No scores on the conversation or its runs yet.")).toBeTruthy();
    const reads = () => requests.filter((request) => request.path === "/api/sdk/conversations/chat%237").length;
    const readsBefore = reads();

    // Act
    await user.click(within(section).getByRole("button", { name: "Thumbs down" }));

    // Assess
    await waitFor(() =>
      expect(within(section).getByRole("button", { name: "Thumbs down" }).getAttribute("aria-pressed")).toBe("true"),
    );
    expect(posts(requests)[0]?.body).toEqual({
      conversationId: "chat#7",
      name: "thumbs",
      value: false,
      source: "console",
    });
    expect(posts(requests)[0]?.headers.get("X-Environment")).toBe("live");
    expect(within(section).getByRole("list", { name: "Scores of this conversation" }).textContent).toContain(
      "thumbs✗noconsole, you",
    );
    await waitFor(() => expect(totalsRow("thumbs")).toEqual(["thumbs", "1", "0% true (0 of 1)"]));
    expect(reads()).toBeGreaterThan(readsBefore);
    expect(await within(section).findByText("Thumbs down given.")).toBeTruthy();
  });

  test("a label with a comment (its configuration's labels offered); one's own deleted after confirming, not another's", async () => {
    // Prepare
    const user = userEvent.setup();
    const endUsers = conversationScore({ name: "resolved", value: true });
    const mine = conversationScore({
      name: "escalated",
      value: false,
      source: "console",
      author: { kind: "user", id: "user-1" },
    });
    const requests = mockFetch(scoredConversationRoutes("member", [endUsers, mine]));
    renderApp("/conversations/chat%237");
    const section = await screen.findByRole("region", { name: "Scores" });
    const list = await within(section).findByRole("list", { name: "Scores of this conversation" });
    const [theirs] = within(list).getAllByRole("listitem");
    expect(within(theirs as HTMLElement).queryByRole("button", { name: /Edit|Delete/ })).toBeNull();

    // Act: a label
    await user.click(within(section).getByRole("button", { name: "Add a score" }));
    const dialog = screen.getByRole("dialog", { name: "Score this conversation" });
    await user.type(within(dialog).getByLabelText("Name"), "tone");
    const label = within(dialog).getByLabelText("Label") as HTMLSelectElement;
    expect([...label.options].map((option) => option.value)).toEqual(["", "friendly", "neutral", "rude"]);
    await user.selectOptions(label, "friendly");
    await user.type(within(dialog).getByLabelText("Comment (optional)"), "patient over three turns");
    await user.click(within(dialog).getByRole("button", { name: "Save score" }));

    // Assess
    await waitFor(() => expect(screen.queryByRole("dialog")).toBeNull());
    expect(posts(requests)[0]?.body).toEqual({
      conversationId: "chat#7",
      name: "tone",
      value: "friendly",
      comment: "patient over three turns",
      source: "console",
    });
    expect(await within(section).findByText("patient over three turns")).toBeTruthy();
    await waitFor(() => expect(totalsRow("tone")).toEqual(["tone", "1", "friendly 1"]));

    // Act: delete one's own
    await user.click(within(section).getByRole("button", { name: "Delete the score escalated" }));
    const confirm = screen.getByRole("dialog", { name: "Delete the score escalated?" });
    expect(within(confirm).getByText("The score escalated of this conversation is deleted for good.")).toBeTruthy();
    await user.click(within(confirm).getByRole("button", { name: "Delete score" }));

    // Assess
    await waitFor(() => expect(screen.queryByRole("dialog")).toBeNull());
    const deleted = requests.find((request) => request.method === "DELETE");
    expect(deleted?.path).toBe(`/api/sdk/conversations/chat%237/scores/${mine.id}`);
    expect(await within(section).findByText("Score escalated deleted.")).toBeTruthy();
    await waitFor(() => expect(totalsRow("escalated")).toBeUndefined());
    expect(totalsRow("resolved")).toEqual(["resolved", "1", "100% true (1 of 1)"]);
  });

  test("an admin may delete another's score on the conversation", async () => {
    mockFetch(scoredConversationRoutes("admin", [conversationScore({ name: "resolved" })]));
    renderApp("/conversations/chat%237");
    const section = await screen.findByRole("region", { name: "Scores" });
    expect(await within(section).findByRole("button", { name: "Delete the score resolved" })).toBeTruthy();
    expect(within(section).queryByRole("button", { name: "Edit the score resolved" })).toBeNull();
  });

  test("the totals per name read as mean, % true and labels with their counts; partial figures are said so", async () => {
    // Prepare: figures of its runs' scores too, more than one read covers
    const partial: ConversationTotals = {
      ...totals,
      scores: [
        {
          name: "quality",
          count: 3,
          numeric: { count: 3, mean: 0.6333333, p50: 0.8, p90: 0.9, p99: 0.9 },
          boolean: null,
          labels: [],
        },
        {
          name: "tone",
          count: 4,
          numeric: null,
          boolean: null,
          labels: [
            { label: "friendly", count: 3 },
            { label: "rude", count: 1 },
          ],
        },
        { name: "thumbs", count: 3, numeric: null, boolean: { count: 3, trueCount: 2, trueShare: 2 / 3 }, labels: [] },
      ],
      scoresComplete: false,
    };
    mockFetch({
      ...scoredConversationRoutes("member", []),
      "GET /api/sdk/conversations/chat%237": json({
        ...conversation,
        ...noScores,
        totals: partial,
        runs: [run("ses_1")],
        nextCursor: null,
      }),
    });

    // Act
    renderApp("/conversations/chat%237");

    // Assess
    const table = await screen.findByRole("table", { name: TOTALS_TABLE });
    expect(
      within(table)
        .getAllByRole("row")
        .map((row) => [...row.children].map((cell) => cell.textContent)),
    ).toEqual([
      ["Score", "Count", "Figures"],
      ["quality", "3", "mean 0.633 of 3 numbers"],
      ["tone", "4", "friendly 3, rude 1"],
      ["thumbs", "3", "67% true (2 of 3)"],
    ]);
    expect(screen.getByRole("note").textContent).toMatch(
      /^These figures cover only part of the conversation: its own first 100 scores/,
    );
  });

  test("a name holding several kinds reads each with its count", () => {
    expect(
      scoreFiguresParts({
        numeric: { count: 2, mean: 4.5, p50: 4, p90: 5, p99: 5 },
        boolean: { count: 1, trueCount: 0, trueShare: 0 },
        labels: [{ label: "(other)", count: 1234 }],
      }),
    ).toEqual(["mean 4.5 of 2 numbers", "0% true (0 of 1)", "(other) 1,234"]);
    expect(scoreFiguresParts({ numeric: null, boolean: null, labels: [] })).toEqual([]);
  });

  test("a score given on one of its runs' pages: the conversation, opened again, is read again (its totals count it)", async () => {
    // Prepare: the conversation read once, then its turn opened
    const user = userEvent.setup();
    const requests = mockFetch({
      ...scoredConversationRoutes("member", []),
      "GET /api/sdk/sessions/ses_1": json({ ...run("ses_1"), ...noScores }),
      "GET /api/sdk/sessions/ses_1/events": json({ items: [], nextCursor: null }),
      "GET /api/sdk/sessions/ses_1/scores": json({ items: [], nextCursor: null }),
    });
    renderApp("/conversations/chat%237");
    await user.click(await within(await screen.findByRole("list", { name: "Turns" })).findByRole("link"));
    const section = await screen.findByRole("region", { name: "Scores" });
    const reads = () => requests.filter((request) => request.path === "/api/sdk/conversations/chat%237").length;
    const readsBefore = reads();

    // Act: a thumbs up on the run, then back to its conversation
    await user.click(await within(section).findByRole("button", { name: "Thumbs up" }));
    await waitFor(() => expect(posts(requests)).toHaveLength(1));
    await user.click(screen.getByRole("link", { name: "conversation chat#7" }));

    // Assess
    expect(posts(requests)[0]?.body).toEqual({ sessionId: "ses_1", name: "thumbs", value: true, source: "console" });
    await waitFor(() => expect(reads()).toBe(readsBefore + 1));
  });
});
