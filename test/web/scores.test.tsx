// @vitest-environment jsdom
import { screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { describe, expect, test } from "vitest";
import type { Score, ScoreConfig } from "../../web/src/api/types";
import { configProblem, parseScoreValue } from "../../web/src/lib/score-values";
import { configBody, fieldsOf } from "../../web/src/pages/score-configs/score-config-form";
import { baseRoutes, json, type MockAnswer, mockFetch, type RecordedRequest, renderApp } from "./support/render-app";

const SESSION_ID = "ses_01KAZ3X8Q9M4T7V2N6P5R1S0WE";
const EVENT_ID = "evt_01KAZ3X8Q9M4T7V2N6P5R1S0WF";
const AT = "2026-11-22T10:00:00.000Z";

const SESSION = {
  id: SESSION_ID,
  name: "Refund request",
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
  eventCount: 1,
  eventCost: 0.002,
  toolCalls: { lookup_order: 1 },
  toolErrors: {},
  createdAt: AT,
  updatedAt: AT,
  lastActivityAt: AT,
  completedAt: AT,
  stale: false,
  scores: [],
  scoresTruncated: false,
};

const EVENT = {
  id: EVENT_ID,
  sessionId: SESSION_ID,
  eventType: "tool_call",
  toolName: "lookup_order",
  createdAt: "2026-11-22T10:00:01.000Z",
};

let scoreCount = 0;
function score(fields: Partial<Score>): Score {
  scoreCount += 1;
  return {
    id: `scr_01KAZ3X8Q9M4T7V2N6P5R1S${String(scoreCount).padStart(3, "0")}`,
    sessionId: SESSION_ID,
    eventId: null,
    conversationId: null,
    name: "helpfulness",
    value: 0.8,
    valueKind: "numeric",
    comment: null,
    source: "evaluator",
    author: { kind: "apiKey", id: "key_01KAZ3X8Q9M4T7V2N6P5R1S0WE" },
    createdAt: AT,
    updatedAt: AT,
    ...fields,
  };
}

const TONE: ScoreConfig = {
  name: "tone",
  dataType: "categorical",
  labels: ["friendly", "neutral", "rude"],
  description: "How the answer sounded",
  updatedAt: AT,
  updatedBy: "ada@example.com",
};
const QUALITY: ScoreConfig = {
  name: "quality",
  dataType: "numeric",
  min: 0,
  max: 1,
  updatedAt: AT,
  updatedBy: "ada@example.com",
};

/** The session page's routes, with a store of scores the POST and DELETE change as the API does. */
function sessionRoutes(role: "member" | "admin", initial: Score[], overrides: Record<string, MockAnswer> = {}) {
  let stored = [...initial];
  const routes = {
    ...baseRoutes(role),
    [`GET /api/sdk/sessions/${SESSION_ID}`]: () => json({ ...SESSION, scores: stored.slice(0, 20) }),
    [`GET /api/sdk/sessions/${SESSION_ID}/events`]: json({ items: [EVENT], nextCursor: null }),
    [`GET /api/sdk/sessions/${SESSION_ID}/scores`]: () => json({ items: stored, nextCursor: null }),
    "GET /api/sdk/score-configs": json({ items: [QUALITY, TONE] }),
    "POST /api/sdk/scores": (request: RecordedRequest) => {
      const override = overrides["POST /api/sdk/scores"];
      if (override !== undefined) return override;
      const body = request.body as Partial<Score> & { value: Score["value"] };
      const kind =
        typeof body.value === "number" ? "numeric" : typeof body.value === "boolean" ? "boolean" : "categorical";
      const saved = score({
        ...body,
        ...(body.id === undefined ? {} : { id: body.id }),
        eventId: body.eventId ?? null,
        comment: body.comment ?? null,
        valueKind: kind,
        source: "console",
        author: { kind: "user", id: "user-1" },
      });
      const replaced = stored.some((existing) => existing.id === saved.id);
      stored = replaced ? stored.map((existing) => (existing.id === saved.id ? saved : existing)) : [...stored, saved];
      return json(saved, replaced ? 200 : 201);
    },
  };
  const deleteRoutes = Object.fromEntries(
    initial.map((existing) => [
      `DELETE /api/sdk/sessions/${SESSION_ID}/scores/${existing.id}`,
      () => {
        stored = stored.filter((candidate) => candidate.id !== existing.id);
        return { status: 204 };
      },
    ]),
  );
  return { ...routes, ...deleteRoutes };
}

const posts = (requests: RecordedRequest[]) => requests.filter((request) => request.method === "POST");

describe("Session scores", () => {
  test("each kind reads as itself: a number, ✓/✗, a label chip; with its comment, source, who and when", async () => {
    // Prepare
    mockFetch(
      sessionRoutes("member", [
        score({ name: "helpfulness", value: 0.8, comment: "found the policy" }),
        score({ name: "resolved", value: false, valueKind: "boolean", source: "end_user" }),
        score({
          name: "tone",
          value: "friendly",
          valueKind: "categorical",
          source: "console",
          author: { kind: "user", id: "user-1" },
        }),
        score({ name: "correct", value: true, valueKind: "boolean", eventId: EVENT_ID }),
      ]),
    );

    // Act
    renderApp(`/sessions/${SESSION_ID}`);

    // Assess: the session's own three, in the Scores section
    const list = await screen.findByRole("list", { name: "Scores of this session" });
    const items = within(list).getAllByRole("listitem");
    expect(items.map((item) => item.textContent?.replace(/\s+/g, " ").split(",")[0])).toEqual([
      "helpfulness0.8evaluator",
      "resolved✗noend user",
      "tonefriendlyconsole",
    ]);
    expect(within(items[0] as HTMLElement).getByText("found the policy")).toBeTruthy();
    expect(items[0]?.textContent).toContain("key key_01KAZ3X8Q9M4T7V2N6P5R1S0WE");
    expect(items[2]?.textContent).toContain("you");
    // Only one's own score may be edited; a member deletes only their own
    expect(within(items[0] as HTMLElement).queryByRole("button", { name: /Edit|Delete/ })).toBeNull();
    expect(within(items[2] as HTMLElement).getByRole("button", { name: "Edit the score tone" })).toBeTruthy();
    expect(within(items[2] as HTMLElement).getByRole("button", { name: "Delete the score tone" })).toBeTruthy();
    // The step's score is on its card
    const card = screen.getByRole("article", { name: "Tool call: lookup_order" });
    const stepScores = within(card).getByRole("list", { name: "Scores of Tool call: lookup_order" });
    expect(stepScores.textContent).toContain("correct✓yes");
  });

  test("a thumbs down is a boolean `thumbs` score from the console; a thumbs up then replaces it (same id)", async () => {
    // Prepare
    const user = userEvent.setup();
    const requests = mockFetch(sessionRoutes("member", []));
    renderApp(`/sessions/${SESSION_ID}`);
    const section = await screen.findByRole("region", { name: "Scores" });
    const down = await within(section).findByRole("button", { name: "Thumbs down" });

    // Act
    await user.click(down);

    // Assess
    await waitFor(() => expect(down.getAttribute("aria-pressed")).toBe("true"));
    expect(posts(requests)[0]?.body).toEqual({
      sessionId: SESSION_ID,
      name: "thumbs",
      value: false,
      source: "console",
    });
    expect(posts(requests)[0]?.headers.get("X-Environment")).toBe("live");
    expect(within(section).getByRole("list", { name: "Scores of this session" }).textContent).toContain("thumbs✗no");

    // Act: changing one's mind
    await user.click(within(section).getByRole("button", { name: "Thumbs up" }));

    // Assess
    await waitFor(() =>
      expect(within(section).getByRole("button", { name: "Thumbs up" }).getAttribute("aria-pressed")).toBe("true"),
    );
    const [first, second] = posts(requests).map((request) => request.body as { id?: string });
    expect(second).toMatchObject({ name: "thumbs", value: true });
    expect(second?.id).toMatch(/^scr_/);
    expect(first?.id).toBeUndefined();
    expect(within(section).getAllByRole("listitem")).toHaveLength(1);
  });

  test("by keyboard: a step's thumbs up is given with Enter and the focus stays on it", async () => {
    // Prepare
    const user = userEvent.setup();
    const requests = mockFetch(sessionRoutes("member", []));
    renderApp(`/sessions/${SESSION_ID}`);
    const card = await screen.findByRole("article", { name: "Tool call: lookup_order" });
    const up = await within(card).findByRole("button", { name: "Thumbs up" });

    // Act
    up.focus();
    await user.keyboard("{Enter}");

    // Assess
    await waitFor(() => expect(up.getAttribute("aria-pressed")).toBe("true"));
    expect(document.activeElement).toBe(up);
    expect(posts(requests)[0]?.body).toEqual({
      sessionId: SESSION_ID,
      eventId: EVENT_ID,
      name: "thumbs",
      value: true,
      source: "console",
    });
  });

  test("labelling a step offers its configuration's labels and sends the event's id with the comment", async () => {
    // Prepare
    const user = userEvent.setup();
    const requests = mockFetch(sessionRoutes("member", []));
    renderApp(`/sessions/${SESSION_ID}`);
    const card = await screen.findByRole("article", { name: "Tool call: lookup_order" });

    // Act
    await user.click(await within(card).findByRole("button", { name: "Label this step" }));
    const dialog = screen.getByRole("dialog", { name: "Score Tool call: lookup_order" });
    await user.type(within(dialog).getByLabelText("Name"), "tone");
    expect(
      within(dialog).getByText(/Configured: one of: friendly, neutral, rude\. How the answer sounded/),
    ).toBeTruthy();
    const label = within(dialog).getByLabelText("Label") as HTMLSelectElement;
    expect([...label.options].map((option) => option.value)).toEqual(["", "friendly", "neutral", "rude"]);
    await user.selectOptions(label, "rude");
    await user.type(within(dialog).getByLabelText("Comment (optional)"), "snapped at the customer");
    await user.click(within(dialog).getByRole("button", { name: "Save score" }));

    // Assess
    await waitFor(() => expect(screen.queryByRole("dialog")).toBeNull());
    expect(posts(requests)[0]?.body).toEqual({
      sessionId: SESSION_ID,
      eventId: EVENT_ID,
      name: "tone",
      value: "rude",
      comment: "snapped at the customer",
      source: "console",
    });
    const stepScores = await within(card).findByRole("list", { name: "Scores of Tool call: lookup_order" });
    expect(stepScores.textContent).toContain("snapped at the customer");
    expect(screen.queryByRole("list", { name: "Scores of this session" })).toBeNull();
  });

  test("a value outside the configured range is refused before sending; the API's field-level 400 is shown", async () => {
    // Prepare
    const user = userEvent.setup();
    const requests = mockFetch(
      sessionRoutes("member", [], {
        "POST /api/sdk/scores": {
          status: 400,
          body: {
            error: "Bad Request",
            message: "Invalid score",
            issues: [{ path: "value", message: "Must be at most 5 (the configuration of score stars)" }],
          },
        },
      }),
    );
    renderApp(`/sessions/${SESSION_ID}`);
    const section = await screen.findByRole("region", { name: "Scores" });
    await user.click(await within(section).findByRole("button", { name: "Add a score" }));
    const dialog = screen.getByRole("dialog", { name: "Score this session" });

    // Act: a configured number out of its range
    await user.type(within(dialog).getByLabelText("Name"), "quality");
    await user.type(within(dialog).getByLabelText("Value"), "1.5");
    await user.click(within(dialog).getByRole("button", { name: "Save score" }));

    // Assess
    expect(within(dialog).getByRole("alert").textContent).toBe("quality takes a number from 0 to 1.");
    expect(posts(requests)).toHaveLength(0);

    // Act: a name configured since the page read the configurations: the API refuses it
    await user.clear(within(dialog).getByLabelText("Name"));
    await user.type(within(dialog).getByLabelText("Name"), "stars");
    await user.selectOptions(within(dialog).getByLabelText("Kind"), "numeric");
    await user.type(within(dialog).getByLabelText("Value"), "7");
    await user.click(within(dialog).getByRole("button", { name: "Save score" }));

    // Assess
    expect(
      await within(dialog).findByText(/value: Must be at most 5 \(the configuration of score stars\)/),
    ).toBeTruthy();
    expect(posts(requests)[0]?.body).toEqual({ sessionId: SESSION_ID, name: "stars", value: 7, source: "console" });
  });

  test("a member edits their score (same id) and deletes it after confirming", async () => {
    // Prepare
    const user = userEvent.setup();
    const mine = score({ name: "quality", value: 0.4, source: "console", author: { kind: "user", id: "user-1" } });
    const requests = mockFetch(sessionRoutes("member", [mine]));
    renderApp(`/sessions/${SESSION_ID}`);
    const section = await screen.findByRole("region", { name: "Scores" });

    // Act: edit
    await user.click(await within(section).findByRole("button", { name: "Edit the score quality" }));
    const dialog = screen.getByRole("dialog", { name: "Edit the score quality" });
    expect((within(dialog).getByLabelText("Name") as HTMLInputElement).readOnly).toBe(true);
    const value = within(dialog).getByLabelText("Value");
    expect((value as HTMLInputElement).value).toBe("0.4");
    await user.clear(value);
    await user.type(value, "0.9");
    await user.click(within(dialog).getByRole("button", { name: "Save score" }));

    // Assess
    await waitFor(() => expect(screen.queryByRole("dialog")).toBeNull());
    expect(posts(requests)[0]?.body).toEqual({
      id: mine.id,
      sessionId: SESSION_ID,
      name: "quality",
      value: 0.9,
      source: "console",
    });
    await waitFor(() => expect(within(section).getByRole("listitem").textContent).toContain("quality0.9"));

    // Act: delete
    await user.click(within(section).getByRole("button", { name: "Delete the score quality" }));
    const confirm = screen.getByRole("dialog", { name: "Delete the score quality?" });
    await user.click(within(confirm).getByRole("button", { name: "Delete score" }));

    // Assess
    await waitFor(() => expect(screen.queryByRole("dialog")).toBeNull());
    expect(requests.some((request) => request.method === "DELETE" && request.path.endsWith(`/scores/${mine.id}`))).toBe(
      true,
    );
    await waitFor(() => expect(within(section).queryByRole("list", { name: "Scores of this session" })).toBeNull());
    expect(await within(section).findByText("Score quality deleted.")).toBeTruthy();
    expect(document.activeElement).toBe(within(section).getByRole("button", { name: "Add a score" }));
  });

  test("an admin may delete any score, not edit another's", async () => {
    mockFetch(sessionRoutes("admin", [score({ name: "helpfulness" })]));
    renderApp(`/sessions/${SESSION_ID}`);
    const section = await screen.findByRole("region", { name: "Scores" });
    expect(await within(section).findByRole("button", { name: "Delete the score helpfulness" })).toBeTruthy();
    expect(within(section).queryByRole("button", { name: "Edit the score helpfulness" })).toBeNull();
  });

  test("more scores than a page: loaded on demand", async () => {
    // Prepare
    const user = userEvent.setup();
    const first = score({ name: "first" });
    const later = score({ name: "later" });
    const requests = mockFetch({
      ...sessionRoutes("member", []),
      [`GET /api/sdk/sessions/${SESSION_ID}/scores`]: (request: RecordedRequest) =>
        request.query.get("cursor") === "next"
          ? json({ items: [later], nextCursor: null })
          : json({ items: [first], nextCursor: "next" }),
    });
    renderApp(`/sessions/${SESSION_ID}`);
    const section = await screen.findByRole("region", { name: "Scores" });

    // Act
    await user.click(await within(section).findByRole("button", { name: "Load more scores" }));

    // Assess
    await waitFor(() => expect(within(section).getAllByRole("listitem")).toHaveLength(2));
    expect(within(section).queryByRole("button", { name: "Load more scores" })).toBeNull();
    expect(requests.find((request) => request.path.endsWith("/scores"))?.query.get("limit")).toBe("100");
  });
});

describe("Score configurations page", () => {
  const configRoutes = (role: "member" | "admin") => ({
    ...baseRoutes(role),
    "GET /api/sdk/score-configs": json({ items: [QUALITY, TONE] }),
  });

  test("a member reads the configurations and changes nothing", async () => {
    mockFetch(configRoutes("member"));
    renderApp("/settings/scores");
    const table = await screen.findByRole("table", { name: "Score configurations of acme" });
    const rows = within(table).getAllByRole("row").slice(1);
    expect(rows.map((row) => within(row).getAllByRole("cell")[1]?.textContent)).toEqual([
      "a number from 0 to 1",
      "one of: friendly, neutral, rude",
    ]);
    expect(screen.queryByRole("button", { name: "Add a configuration" })).toBeNull();
    expect(screen.queryByRole("button", { name: /Delete the configuration/ })).toBeNull();
    expect(screen.getByText(/owners and admins change configurations/)).toBeTruthy();
    expect(screen.getByRole("link", { name: "Score configurations" }).getAttribute("aria-current")).toBe("page");
  });

  test("an admin adds a labelled configuration (checked before sending), changes a range and deletes one", async () => {
    // Prepare
    const user = userEvent.setup();
    const requests = mockFetch({
      ...configRoutes("admin"),
      "PUT /api/sdk/score-configs/resolved%20%3F": (request) =>
        json({ name: "resolved ?", ...(request.body as object), updatedAt: AT, updatedBy: "ada@example.com" }),
      "PUT /api/sdk/score-configs/quality": (request) =>
        json({ name: "quality", ...(request.body as object), updatedAt: AT, updatedBy: "ada@example.com" }),
      "DELETE /api/sdk/score-configs/tone": { status: 204 },
    });
    renderApp("/settings/scores");

    // Act: add, with a label listed twice first
    await user.click(await screen.findByRole("button", { name: "Add a configuration" }));
    let dialog = screen.getByRole("dialog", { name: "Add a score configuration" });
    await user.type(within(dialog).getByLabelText("Score name"), "resolved ?");
    await user.type(within(dialog).getByLabelText(/Labels, one a line/), "yes\npartly\nyes");
    await user.click(within(dialog).getByRole("button", { name: "Save configuration" }));
    expect(within(dialog).getByRole("alert").textContent).toBe("The label yes is listed twice.");
    await user.clear(within(dialog).getByLabelText(/Labels, one a line/));
    await user.type(within(dialog).getByLabelText(/Labels, one a line/), "yes\npartly\nno");
    await user.type(within(dialog).getByLabelText("Description (optional)"), "Did it resolve the question?");
    await user.click(within(dialog).getByRole("button", { name: "Save configuration" }));

    // Assess
    await waitFor(() => expect(screen.queryByRole("dialog")).toBeNull());
    expect(requests.find((request) => request.method === "PUT")?.body).toEqual({
      dataType: "categorical",
      labels: ["yes", "partly", "no"],
      description: "Did it resolve the question?",
    });
    expect(await screen.findByText("Configuration of resolved ? saved.")).toBeTruthy();

    // Act: change a range
    await user.click(screen.getByRole("button", { name: "Change the configuration of quality" }));
    dialog = screen.getByRole("dialog", { name: "Change the configuration of quality" });
    await user.clear(within(dialog).getByLabelText("Highest"));
    await user.type(within(dialog).getByLabelText("Highest"), "10");
    await user.click(within(dialog).getByRole("button", { name: "Save configuration" }));
    await waitFor(() => expect(screen.queryByRole("dialog")).toBeNull());
    expect(requests.filter((request) => request.method === "PUT")[1]?.body).toEqual({
      dataType: "numeric",
      min: 0,
      max: 10,
    });

    // Act: delete
    await user.click(screen.getByRole("button", { name: "Delete the configuration of tone" }));
    const confirm = screen.getByRole("dialog", { name: "Delete the configuration of tone?" });
    await user.click(within(confirm).getByRole("button", { name: "Delete configuration" }));
    await waitFor(() => expect(screen.queryByRole("dialog")).toBeNull());
    expect(requests.some((request) => request.method === "DELETE" && request.path.endsWith("/tone"))).toBe(true);
  });
});

describe("score values and configuration forms", () => {
  test("what is typed becomes a value of its kind, within the configuration", () => {
    expect(parseScoreValue("numeric", " 0.5 ", QUALITY)).toEqual({ value: 0.5 });
    expect(parseScoreValue("numeric", "abc", undefined)).toEqual({ error: expect.stringMatching(/must be a number/) });
    expect(parseScoreValue("numeric", "1e16", undefined)).toEqual({ error: expect.stringMatching(/at most/) });
    expect(parseScoreValue("boolean", "false", undefined)).toEqual({ value: false });
    expect(parseScoreValue("boolean", "", undefined)).toEqual({ error: "Give a value." });
    expect(parseScoreValue("categorical", "neutral", TONE)).toEqual({ value: "neutral" });
    expect(parseScoreValue("categorical", "angry", TONE)).toEqual({
      error: "tone takes one of: friendly, neutral, rude.",
    });
    expect(parseScoreValue("categorical", "x".repeat(201), undefined)).toEqual({
      error: "A label has at most 200 characters.",
    });
    expect(configProblem(QUALITY, "high")).toBe("quality takes a number from 0 to 1.");
    expect(configProblem(undefined, "__proto__")).toBeUndefined();
  });

  test("the configuration form keeps only the fields of its kind and refuses crossed bounds", () => {
    const fields = { ...fieldsOf(QUALITY), labels: "ignored" };
    expect(configBody(fields)).toEqual({ body: { name: "quality", dataType: "numeric", min: 0, max: 1 } });
    expect(configBody({ ...fields, min: "2" })).toEqual({ error: "The lowest value must not be above the highest." });
    expect(configBody({ ...fields, max: "many" })).toEqual({
      error: "Highest must be a number, or empty for no bound.",
    });
    expect(configBody({ ...fieldsOf(TONE), dataType: "boolean" })).toEqual({
      body: { name: "tone", dataType: "boolean", description: "How the answer sounded" },
    });
    expect(configBody({ ...fieldsOf(undefined), name: "  " })).toEqual({
      error: "Name the score (1 to 200 characters), exactly as scores carry it.",
    });
  });
});
