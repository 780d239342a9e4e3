/**
 * The console in a real browser (Debian's Chromium) against a real `npm start`:
 * sign in as dev@localhost; a team's whole journey (a key created and copied,
 * used by the SDK over HTTP, the session found, its timeline, the agent's
 * charts, a member invited, the key revoked); an invited person signing in,
 * accepting and landing in the organisation; every page free of serious or
 * critical accessibility violations and of page errors (a CSP violation is
 * one), photographed light and dark, desktop and phone.
 */
import { randomUUID } from "node:crypto";
import type { Browser, Locator, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AgentTracker, type AtsError } from "../../sdk/src/index.js";
import { formatCost } from "../../web/src/lib/format.js";
import { runTool } from "../support/processes.js";
import { rememberSecretsIn } from "../support/secrets-ledger.js";
import {
  artifactPath,
  type ConsolePage,
  captureSignedInPages,
  captureVariants,
  type Variant,
} from "./support/artifacts.js";
import { describeViolations, seriousViolations } from "./support/axe.js";
import { type Device, launchBrowser, newPage } from "./support/browser.js";
import { heading, navigateTo, openSignedIn, PAGES, signIn } from "./support/console.js";
import { type Stack, startStack } from "./support/stack.js";

let browser: Browser | undefined;
let stack: Stack | undefined;

beforeAll(async () => {
  // The browser first: without Chromium the file fails at once, saying how to install it.
  browser = await launchBrowser();
  stack = await startStack();
  // Some history for the pages to show: the demo's scripted agents over the last 14 days, with the dev key.
  const demo = await runTool("scripts/demo/run-demo.ts", ["--sessions", "24", "--quiet"], {
    ATS_BASE_URL: stack.url,
    ATS_API_KEY: stack.local.apiKey,
  });
  if (demo.code !== 0) throw new Error(`npm run demo failed:\n${demo.stdout}\n${demo.stderr}`);
}, 300_000);

afterAll(async () => {
  await browser?.close();
  await stack?.stop();
});

/** The agent page's per-day charts, by their captions. */
const CHARTS = ["Sessions per day", "Success rate per day (%)", "Cost per day (USD)", "Tokens per day"] as const;

function ready(): { browser: Browser; stack: Stack } {
  if (browser === undefined || stack === undefined) throw new Error("beforeAll did not finish");
  return { browser, stack };
}

/** A read with the dev key (the demo's data), for ids the pages link to. */
async function readAsDev(stack: Stack, path: string): Promise<Record<string, unknown>> {
  const response = await fetch(`${stack.url}${path}`, { headers: { authorization: `Bearer ${stack.local.apiKey}` } });
  if (response.status !== 200) throw new Error(`GET ${path} answered ${response.status}`);
  return (await response.json()) as Record<string, unknown>;
}

const MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];
/** A chart's day label as the console writes it ("28 Oct", "2 Jan 2027" when the period spans two years). */
const DAY_LABEL = /^\d{1,2} (Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)( \d{4})?$/;

/** The last `days` UTC days' first and last days as a chart labels them. */
function periodEdges(days: number): [string, string] {
  const to = new Date(`${new Date().toISOString().slice(0, 10)}T00:00:00Z`);
  const from = new Date(to.getTime() - (days - 1) * 86_400_000);
  const label = (day: Date) =>
    `${day.getUTCDate()} ${MONTHS[day.getUTCMonth()]}${from.getUTCFullYear() === to.getUTCFullYear() ? "" : ` ${day.getUTCFullYear()}`}`;
  return [label(from), label(to)];
}

/**
 * A chart's day labels as drawn: their text and boxes, left to right, and what is wrong with them: two that
 * overlap, or one past the chart's edges (its SVG's, which cut what is drawn past them).
 */
async function dayLabels(chart: Locator): Promise<{ texts: string[]; problems: string[] }> {
  const frame = await chart.boundingBox();
  const found = new Map<
    string,
    { text: string; x: number; right: number; clip: { x: number; right: number } | null }
  >();
  for (const label of await chart.getByText(DAY_LABEL).all()) {
    const box = await label.boundingBox();
    if (box === null || box.width === 0) continue;
    const text = ((await label.textContent()) ?? "").trim();
    // A label drawn in an SVG is cut at the SVG's edges.
    const clip = await label.evaluate((element) => {
      const rect = element.closest("svg")?.getBoundingClientRect();
      return rect === undefined ? null : { x: rect.x, right: rect.right };
    });
    // An SVG <text> and its <tspan> are the same label.
    found.set(`${text}@${Math.round(box.x)}`, { text, x: box.x, right: box.x + box.width, clip });
  }
  const labels = [...found.values()].sort((a, b) => a.x - b.x);
  const problems: string[] = [];
  labels.forEach((label, index) => {
    const next = labels[index + 1];
    if (next !== undefined && label.right > next.x) problems.push(`"${label.text}" overlaps "${next.text}"`);
    const edges = label.clip ?? (frame === null ? null : { x: frame.x, right: frame.x + frame.width });
    if (edges !== null && (label.x < edges.x - 0.5 || label.right > edges.right + 0.5)) {
      problems.push(`"${label.text}" is past the chart's edge`);
    }
  });
  return { texts: labels.map((label) => label.text), problems };
}

/** Whether an element shows all of its text: nothing cut off to the side or below (an ellipsis, a line clamp). */
function showsAllOf(locator: Locator): Promise<boolean> {
  return locator.evaluate(
    (element) => element.scrollWidth <= element.clientWidth + 1 && element.scrollHeight <= element.clientHeight + 1,
  );
}

describe("the console", () => {
  it("offers dev@localhost on the sign-in page, signs in and lands on the overview; the navigation reaches every page; a reload or a deep link keeps the session; /favicon.ico is served", async () => {
    const { browser, stack } = ready();
    const { context, page, problems } = await newPage(browser);
    try {
      await page.goto(stack.url);
      await heading(page, "Sign in to Agent Tracking").waitFor();
      const signInViolations = await seriousViolations(page);

      await signIn(page);
      await heading(page, "Overview").waitFor();
      const landedOn = new URL(page.url()).pathname;
      const navigation = page.getByRole("navigation", { name: "Main" });
      const links = await navigation.getByRole("link").allTextContents();
      for (const name of PAGES) await navigateTo(page, name);

      // A reload, and a deep link typed into the same tab, keep the session.
      await navigateTo(page, "Agents");
      await page.reload();
      await heading(page, "Agents").waitFor();
      const afterReload = new URL(page.url()).pathname;
      await page.goto(`${stack.url}/settings/members?env=test`);
      await heading(page, "Members").waitFor();
      const signInShown = await heading(page, "Sign in to Agent Tracking").count();
      const favicon = await fetch(`${stack.url}/favicon.ico`);

      expect(landedOn).toBe("/");
      expect(new URL(page.url()).origin).toBe(stack.url);
      expect(links).toEqual([...PAGES]);
      expect(afterReload).toBe("/agents");
      expect(signInShown).toBe(0);
      expect(favicon.status).toBe(200);
      expect(favicon.headers.get("content-type")).toBe("image/x-icon");
      expect(signInViolations, describeViolations(signInViolations)).toEqual([]);
      expect(problems).toEqual([]);
    } finally {
      await context.close();
    }
  }, 120_000);

  it("a team's journey: create and copy a key, record with the SDK, find the session, read its timeline and the agent's charts, invite a member, revoke the key", async () => {
    const { browser, stack } = ready();
    const suffix = randomUUID().slice(0, 8);
    const keyName = `journey key ${suffix}`;
    const agentName = `journey-agent-${suffix}`;
    const sessionName = `Refund request ${suffix}`;
    const newMember = `teammate-${suffix}@example.com`;
    const { context, page, problems } = await newPage(browser, { permissions: ["clipboard-read", "clipboard-write"] });
    try {
      await page.goto(stack.url);
      await signIn(page);

      // Create a key and copy it.
      await navigateTo(page, "API keys");
      await page.getByRole("button", { name: "Create key" }).click();
      const create = page.getByRole("dialog", { name: "Create an API key" });
      await create.getByLabel("Name").fill(keyName);
      await create.getByRole("button", { name: "Create key" }).click();
      const created = page.getByRole("dialog", { name: `Key "${keyName}" created` });
      const shown = await created.getByLabel("API key").inputValue();
      rememberSecretsIn(shown);
      await created.getByRole("button", { name: "Copy key" }).click();
      await created.getByRole("status").filter({ hasText: "Copied to the clipboard" }).waitFor();
      // The key once, and how to use it (a throwaway stack's key, revoked below): for docs/console.md.
      await page.screenshot({ path: artifactPath("key-created", "light", "desktop") });
      const copied = String(await page.evaluate("navigator.clipboard.readText()"));
      await created.getByRole("button", { name: "Done" }).click();
      await page.getByRole("rowheader", { name: keyName }).waitFor();

      // Use it over HTTP through the SDK: one session with one event of each kind; the order lookup is a wrapped
      // tool that takes 800 ms (recorded from its start, for its duration: a bar in the waterfall).
      const errors: AtsError[] = [];
      const ats = new AgentTracker({ apiKey: copied, baseUrl: stack.url, onError: (error) => errors.push(error) });
      const run = await ats.startSession({ name: sessionName, agentName, userId: `customer-${suffix}` });
      const lookupOrder = run.wrapTool("lookup_order", async (_order: { orderId: string }) => {
        await new Promise((resolve) => setTimeout(resolve, 800));
        return { status: "delivered" };
      });
      await lookupOrder({ orderId: "A-1" });
      run.decision({
        reasoning: "The order arrived damaged: refund rather than replace",
        confidence: 0.82,
        alternativesConsidered: ["replace", "refund"],
      });
      run.stateChange({ from: "investigating", to: "refunding" });
      run.error({ message: "Payment gateway timed out", toolName: "issue_refund" });
      run.toolCall({
        toolName: "issue_refund",
        toolInput: { orderId: "A-1" },
        toolOutput: { refunded: true, durationMs: 1250 },
        estimatedCost: 0.01,
      });
      await run.end({ status: "completed" });
      const stats = await ats.shutdown({ timeoutMs: 30_000 });

      // Find it under Sessions with a filter.
      await navigateTo(page, "Sessions");
      await page
        .getByRole("status")
        .filter({ hasText: /sessions? shown$/ })
        .waitFor();
      const filters = page.getByRole("form", { name: "Session filters" });
      await filters.getByLabel("Agent").fill(agentName);
      await filters.getByRole("button", { name: "Apply filters" }).click();
      await page
        .getByRole("status")
        .filter({ hasText: /^1 session shown$/ })
        .waitFor();
      const sessionRows = await page.getByRole("table").getByRole("rowheader").allTextContents();
      const filteredUrl = new URL(page.url());

      // Its timeline: every event, as a card and as a row of the waterfall with its duration.
      await page.getByRole("link", { name: sessionName }).click();
      await heading(page, sessionName).waitFor();
      const timeline = page.getByRole("list", { name: "Event timeline" });
      await timeline.getByRole("listitem").first().waitFor();
      const events = await Promise.all(
        (await timeline.getByRole("article").all()).map((article) => article.getAttribute("aria-label")),
      );
      const waterfall = await page.getByRole("list", { name: "Run waterfall" }).getByRole("link").allTextContents();
      const bars = await page.getByRole("list", { name: "Run waterfall" }).locator(".waterfall__bar").count();
      // The waterfall with its bars, for a look (test/e2e/artifacts).
      await page
        .getByRole("figure")
        .filter({ has: page.getByRole("list", { name: "Run waterfall" }) })
        .screenshot({
          path: artifactPath("session-durations", "light", "desktop"),
        });

      // The agent's charts. The console keeps lists for a while, and the agents list was read before the SDK
      // recorded: reload the console, as a person coming back to it does (the tab stays signed in).
      await page.goto(`${stack.url}/agents`);
      await heading(page, "Agents").waitFor();
      await page.getByRole("link", { name: agentName, exact: true }).click();
      await heading(page, agentName).waitFor();
      const drawn: Record<string, number> = {};
      for (const title of CHARTS) {
        const chart = page.getByRole("figure", { name: title });
        await chart.locator("svg").first().waitFor();
        drawn[title] = await chart.locator("svg").count();
      }

      // Invite a member and see the invitation pending (they join once they accept: the next test).
      await navigateTo(page, "Members");
      const inviteForm = page.getByRole("form", { name: "Invite a member" });
      await inviteForm.getByLabel("Email").fill(newMember);
      await inviteForm.getByLabel("Role").selectOption("member");
      await inviteForm.getByRole("button", { name: "Invite" }).click();
      await inviteForm
        .getByRole("status")
        .filter({ hasText: `Invitation sent to ${newMember}` })
        .waitFor();
      const pending = page.getByRole("table", { name: "Pending invitations to dev" });
      const invitedRow = pending.getByRole("row").filter({ has: page.getByRole("rowheader", { name: newMember }) });
      const memberRole = await invitedRow.getByRole("cell").first().textContent();

      // Revoke the key: the next API call with it is refused (within the key cache's lifetime).
      await navigateTo(page, "API keys");
      await page.getByRole("button", { name: `Revoke ${keyName}` }).click();
      const confirm = page.getByRole("dialog", { name: `Revoke "${keyName}"?` });
      await confirm.getByRole("button", { name: "Revoke key" }).click();
      await confirm.waitFor({ state: "detached" });
      const revokedRow = page.getByRole("row").filter({ has: page.getByRole("rowheader", { name: keyName }) });
      await revokedRow.getByText("revoked", { exact: true }).waitFor();
      const afterRevocation = async () =>
        (
          await fetch(`${stack.url}/api/sdk/sessions`, {
            method: "POST",
            headers: { authorization: `Bearer ${copied}`, "content-type": "application/json" },
            body: JSON.stringify({ name: "after revocation", agentName, userId: "u" }),
          })
        ).status;

      expect(copied).toMatch(/^ats_live_[0-9A-Za-z]{38}$/);
      expect(copied).toBe(shown);
      expect(errors).toEqual([]);
      expect(stats).toMatchObject({ eventsRecorded: 5, eventsDelivered: 5, eventsFailed: 0, eventsDropped: 0 });
      expect(filteredUrl.searchParams.get("agentName")).toBe(agentName);
      expect(sessionRows).toEqual([sessionName]);
      // Events recorded within the same millisecond have no order of their own: compare them as a set.
      const recorded = [
        "Tool call: lookup_order",
        "Decision",
        "State change: investigating → refunding",
        "Error: issue_refund",
        "Tool call: issue_refund",
      ];
      expect([...events].sort()).toEqual([...recorded].sort());
      // Every event is a row of the waterfall, with its duration (a recorded one, or none: a moment): the wrapped
      // tool's own durationMs (≥ its 800 ms), the other tool call's toolOutput.durationMs (as events recorded
      // before durationMs existed keep it); the two are bars.
      expect(waterfall).toHaveLength(recorded.length);
      const durations: Record<string, RegExp> = {
        "Tool call: lookup_order": /, (8\d\d ms|\d\.\d s)$/,
        "Tool call: issue_refund": /, 1\.3 s$/,
      };
      for (const title of recorded) {
        const row = waterfall.find((text) => text.includes(`${title}, at +`));
        expect(row, title).toBeDefined();
        expect(row, title).toMatch(durations[title] ?? /, —a moment$/);
      }
      expect(bars).toBe(2);
      for (const title of CHARTS) expect(drawn[title], title).toBeGreaterThan(0);
      expect(memberRole).toBe("member");
      expect(await page.getByRole("table", { name: "Members of dev" }).getByText(newMember).count()).toBe(0);
      await expect.poll(afterRevocation, { timeout: 20_000, interval: 500 }).toBe(401);
      expect(problems).toEqual([]);
    } catch (error) {
      await page.screenshot({ path: artifactPath("journey", "light", "desktop").replace(/\.png$/, "-failed.png") });
      throw error;
    } finally {
      await context.close();
    }
  }, 180_000);

  it("a reviewer scores a run: the owner configures a label and invites a member, who reads the configurations (read-only), gives a thumbs-down and labels a step; the API and the console read the scores back (photographed light and dark)", async () => {
    const { browser, stack } = ready();
    const suffix = randomUUID().slice(0, 8);
    const scoreName = `tone-${suffix}`;
    const sessionName = `Scored run ${suffix}`;
    const reviewer = `reviewer-${suffix}@example.com`;
    // A run recorded with the dev key: a tool call and a decision.
    const errors: AtsError[] = [];
    const ats = new AgentTracker({
      apiKey: stack.local.apiKey,
      baseUrl: stack.url,
      onError: (error) => errors.push(error),
    });
    const run = await ats.startSession({
      name: sessionName,
      agentName: `scored-agent-${suffix}`,
      userId: "customer-7",
    });
    run.toolCall({ toolName: "lookup_order", toolInput: { orderId: "B-2" }, toolOutput: { status: "lost" } });
    run.decision({ reasoning: "The parcel is lost: refund", confidence: 0.9 });
    await run.end({ status: "completed" });
    await ats.shutdown({ timeoutMs: 30_000 });
    const sessionPath = `/sessions/${encodeURIComponent(run.id)}`;
    const contexts: Awaited<ReturnType<typeof newPage>>[] = [];
    const owner = await newPage(browser);
    contexts.push(owner);
    try {
      // The owner: a configuration (the labels a reviewer may give), and a member invited to review.
      await openSignedIn(owner.page, stack, "/settings/scores", "Score configurations");
      await owner.page.getByRole("button", { name: "Add a configuration" }).click();
      const configure = owner.page.getByRole("dialog", { name: "Add a score configuration" });
      await configure.getByLabel("Score name").fill(scoreName);
      await configure.getByLabel("Kind").selectOption("categorical");
      await configure.getByLabel(/Labels, one a line/).fill("friendly\nneutral\nrude");
      await configure.getByLabel("Description (optional)").fill("How the step treated the customer");
      await configure.getByRole("button", { name: "Save configuration" }).click();
      await configure.waitFor({ state: "detached" });
      const configRow = owner.page
        .getByRole("row")
        .filter({ has: owner.page.getByRole("rowheader", { name: scoreName }) });
      await configRow.getByText("one of: friendly, neutral, rude").waitFor();
      const configViolations = await seriousViolations(owner.page);
      await owner.page.screenshot({ path: artifactPath("score-configs", "light", "desktop"), fullPage: true });
      await navigateTo(owner.page, "Members");
      const inviteForm = owner.page.getByRole("form", { name: "Invite a member" });
      await inviteForm.getByLabel("Email").fill(reviewer);
      await inviteForm.getByLabel("Role").selectOption("member");
      await inviteForm.getByRole("button", { name: "Invite" }).click();
      await inviteForm
        .getByRole("status")
        .filter({ hasText: `Invitation sent to ${reviewer}` })
        .waitFor();

      // The member accepts, and reads the configurations without the owners' buttons.
      const member = await newPage(browser);
      contexts.push(member);
      const { page } = member;
      await page.goto(stack.url);
      await signIn(page, reviewer);
      await page.getByRole("button", { name: "Accept the invitation to dev" }).click();
      await heading(page, "Overview").waitFor();
      await navigateTo(page, "Score configurations");
      await page.getByRole("rowheader", { name: scoreName }).waitFor();
      const memberConfigButtons = await page.getByRole("button", { name: /configuration/ }).count();
      const memberNote = await page.getByText("You are a member: owners and admins change configurations.").count();

      // The session: a thumbs-down on the run, a label on its tool call.
      await page.goto(`${stack.url}${sessionPath}`);
      await heading(page, sessionName).waitFor();
      const scores = page.getByRole("region", { name: "Scores" });
      await scores.getByRole("button", { name: "Thumbs down" }).click();
      await scores.getByRole("button", { name: "Thumbs down", pressed: true }).waitFor();
      const step = page.getByRole("article", { name: "Tool call: lookup_order" });
      await step.getByRole("button", { name: "Label this step" }).click();
      const label = page.getByRole("dialog", { name: "Score Tool call: lookup_order" });
      await label.getByLabel("Name").fill(scoreName);
      const offered = await label.getByLabel("Label").locator("option").allTextContents();
      await label.getByLabel("Label").selectOption("rude");
      await label.getByLabel("Comment (optional)").fill("Told the customer to wait a week");
      await label.getByRole("button", { name: "Save score" }).click();
      await label.waitFor({ state: "detached" });
      const stepScores = step.getByRole("list", { name: "Scores of Tool call: lookup_order" });
      await stepScores.getByText("Told the customer to wait a week").waitFor();
      const sessionList = await scores.getByRole("list", { name: "Scores of this session" }).textContent();
      const sessionViolations = await seriousViolations(page);
      await scores.screenshot({ path: artifactPath("session-scores", "light", "desktop") });
      await step.screenshot({ path: artifactPath("step-scores", "light", "desktop") });

      // What the API holds, and what a fresh page shows in the dark (read again, not the page's cache).
      const listed = (await readAsDev(stack, `/api/sdk/sessions/${run.id}/scores`)).items as {
        eventId: string | null;
        name: string;
        value: unknown;
        comment: string | null;
        source: string;
        author: { kind: string; id: string };
      }[];
      const events = (await readAsDev(stack, `/api/sdk/sessions/${run.id}/events`)).items as {
        id: string;
        toolName?: string;
      }[];
      const detail = await readAsDev(stack, `/api/sdk/sessions/${run.id}`);
      const dark = await newPage(browser, { colorScheme: "dark" });
      contexts.push(dark);
      await dark.page.goto(`${stack.url}${sessionPath}`);
      await signIn(dark.page, reviewer);
      await heading(dark.page, sessionName).waitFor();
      const darkScores = dark.page.getByRole("region", { name: "Scores" });
      await darkScores.getByRole("list", { name: "Scores of this session" }).waitFor();
      const darkStep = dark.page.getByRole("article", { name: "Tool call: lookup_order" });
      await darkStep.getByText("Told the customer to wait a week").waitFor();
      const darkViolations = await seriousViolations(dark.page);
      await darkScores.screenshot({ path: artifactPath("session-scores", "dark", "desktop") });
      await darkStep.screenshot({ path: artifactPath("step-scores", "dark", "desktop") });
      const ownerDark = await newPage(browser, { colorScheme: "dark" });
      contexts.push(ownerDark);
      await openSignedIn(ownerDark.page, stack, "/settings/scores", "Score configurations");
      await ownerDark.page.getByRole("rowheader", { name: scoreName }).waitFor();
      const darkConfigViolations = await seriousViolations(ownerDark.page);
      await ownerDark.page.screenshot({ path: artifactPath("score-configs", "dark", "desktop"), fullPage: true });

      const toolEvent = events.find((event) => event.toolName === "lookup_order");
      expect(errors).toEqual([]);
      expect(memberConfigButtons).toBe(0);
      expect(memberNote).toBe(1);
      expect(offered).toEqual(["Choose a label", "friendly", "neutral", "rude"]);
      expect(sessionList).toMatch(/^thumbs✗noconsole, you, /);
      expect(listed).toEqual([
        expect.objectContaining({ eventId: null, name: "thumbs", value: false, source: "console", comment: null }),
        expect.objectContaining({
          eventId: toolEvent?.id,
          name: scoreName,
          value: "rude",
          comment: "Told the customer to wait a week",
          source: "console",
        }),
      ]);
      // Both given by the member, as a user (not a key), and the same person
      expect(listed.map((score) => score.author.kind)).toEqual(["user", "user"]);
      expect(new Set(listed.map((score) => score.author.id)).size).toBe(1);
      expect((detail.scores as unknown[]).length).toBe(2);
      expect(detail.scoresTruncated).toBe(false);
      for (const violations of [configViolations, sessionViolations, darkViolations, darkConfigViolations]) {
        expect(violations, describeViolations(violations)).toEqual([]);
      }
      for (const { problems } of contexts) expect(problems).toEqual([]);
    } catch (error) {
      const last = contexts[contexts.length - 1];
      await last?.page
        .screenshot({ path: artifactPath("scores", "light", "desktop").replace(/\.png$/, "-failed.png") })
        .catch(() => undefined);
      throw error;
    } finally {
      for (const { context } of contexts) await context.close();
    }
  }, 180_000);

  it("the overview's figures equal the API's; a drill-down from a failure reason lands on exactly those sessions; the agent's cost by model shows an unpriced model's calls, which the prices page lists", async () => {
    const { browser, stack } = ready();
    const suffix = randomUUID().slice(0, 8);
    const agentName = `drill-agent-${suffix}`;
    const reason = `Card declined ${suffix}`;
    const ownModel = `our-llama-ft-${suffix}`;
    // Prepare: four runs of one agent, two failing for the same reason, one for another, one fine.
    const ats = new AgentTracker({ apiKey: stack.local.apiKey, baseUrl: stack.url });
    const outcomes = [reason, "Out of stock", reason, null] as const;
    const ids: { id: string; reason: string | null }[] = [];
    for (const [index, failure] of outcomes.entries()) {
      const run = await ats.startSession({ name: `Checkout ${index} ${suffix}`, agentName, userId: `buyer-${index}` });
      run.toolCall({ toolName: "charge_card", toolInput: { index }, toolOutput: { durationMs: 80 } });
      // Model calls: one the shipped table prices, one of a model no price covers.
      run.decision({
        reasoning: "Charge now",
        model: "gpt-4o-mini",
        usage: { promptTokens: 1_000, completionTokens: 200 },
      });
      if (index === 0)
        run.decision({ reasoning: "Explain", model: ownModel, usage: { promptTokens: 100, completionTokens: 10 } });
      await run.end(
        failure === null ? { status: "completed", success: true } : { status: "failed", failureReason: failure },
      );
      ids.push({ id: run.id, reason: failure });
    }
    await ats.shutdown({ timeoutMs: 30_000 });
    const today = new Date().toISOString().slice(0, 10);
    const from = new Date(Date.parse(today) - 29 * 86_400_000).toISOString().slice(0, 10);
    // The rollups are counted from the table's stream, a moment after the writes.
    const overview = async () => readAsDev(stack, `/api/sdk/agents?from=${from}&to=${today}`);
    await expect
      .poll(
        async () =>
          ((await overview()).items as { agentName: string; totals?: { failed: number } }[]).find(
            (agent) => agent.agentName === agentName,
          )?.totals?.failed,
        { timeout: 30_000, interval: 500 },
      )
      .toBe(3);
    type ModelLine = { model: string | null; calls: number; estimatedCost: number; unpricedCalls: number };
    const agentModels = async () =>
      (await readAsDev(stack, `/api/sdk/agents/${agentName}/models?from=${from}&to=${today}`)) as {
        models: ModelLine[];
        totals: ModelLine;
      };
    await expect.poll(async () => (await agentModels()).totals.calls, { timeout: 30_000, interval: 500 }).toBe(5);
    const models = await agentModels();
    // The organisation's totals also count the sessions earlier tests (and the demo) recorded, which the stack may
    // still be counting: compare the page with totals that held still across two reads (a page read between two
    // moving reads could show either).
    type Totals = { totals: { sessions: number; failed: number; successRate: number | null } };
    let api = (await overview()) as Totals;
    await expect
      .poll(
        async () => {
          await new Promise((resolve) => setTimeout(resolve, 1_500));
          const again = (await overview()) as Totals;
          const settled = JSON.stringify(again.totals) === JSON.stringify(api.totals);
          api = again;
          return settled;
        },
        { timeout: 60_000, interval: 0 },
      )
      .toBe(true);
    const { context, page, problems } = await newPage(browser);
    try {
      // Act: the overview's tiles
      await openSignedIn(page, stack, "/", "Overview");
      const tile = (label: string) =>
        page
          .getByLabel("Totals of the period")
          .getByRole("link", { name: new RegExp(`^${label}:`) })
          .textContent();
      const shown = {
        sessions: await tile("Sessions"),
        failed: await tile("Failed"),
        rate: await tile("Success rate"),
      };

      // Act: the agent's top failure reason → its sessions
      await page.goto(`${stack.url}/agents/${encodeURIComponent(agentName)}`);
      await heading(page, agentName).waitFor();
      const costByModel = page.getByRole("table", {
        name: `Model calls of ${agentName} per model, the costliest first`,
      });
      // The table comes with a request of its own, after the page's stats: wait for its rows before reading them.
      await costByModel.getByRole("row", { name: /^Calls without a price/ }).waitFor();
      const modelRow = async (name: RegExp) =>
        (await costByModel.getByRole("row", { name }).getByRole("cell").allTextContents()).map((text) => text.trim());
      const shownModels = {
        priced: await modelRow(/^gpt-4o-mini/),
        unpriced: await modelRow(new RegExp(`^${ownModel}`)),
        gap: await modelRow(/^Calls without a price/),
      };
      await page.screenshot({ path: artifactPath("agent-cost-by-model", "light", "desktop"), fullPage: true });
      await page.getByRole("table", { name: "Top failure reasons" }).getByRole("link", { name: reason }).click();
      await heading(page, "Sessions").waitFor();
      await page
        .getByRole("status")
        .filter({ hasText: /^2 sessions shown$/ })
        .waitFor();
      const listed = await page
        .getByRole("table", { name: /^Sessions/ })
        .getByRole("rowheader")
        .getByRole("link")
        .evaluateAll((links) => links.map((link) => (link as { href: string }).href.split("/").at(-1)));
      const chip = await page.getByRole("list", { name: "Also filtered by" }).textContent();

      // Assess
      expect(shown).toEqual({
        sessions: String(api.totals.sessions),
        failed: String(api.totals.failed),
        rate: api.totals.successRate === null ? "—" : `${Math.round(api.totals.successRate * 1000) / 10}%`,
      });
      expect([...listed].sort()).toEqual(
        ids
          .filter((run) => run.reason === reason)
          .map((run) => run.id)
          .sort(),
      );
      expect(chip).toContain(`Failure reason: ${reason}`);
      const priced = models.models.find((line) => line.model === "gpt-4o-mini");
      expect(priced).toMatchObject({ calls: 4, unpricedCalls: 0 });
      expect(priced?.estimatedCost).toBeGreaterThan(0);
      expect(models.models.find((line) => line.model === ownModel)).toMatchObject({ calls: 1, unpricedCalls: 1 });
      expect(shownModels).toEqual({
        priced: ["4", expect.stringMatching(/^4[.,]?\d*[kK]$/), formatCost(priced?.estimatedCost ?? 0)],
        unpriced: ["1", "110", "$0.00 + 1 unpriced"],
        gap: ["1", "", "unknown"],
      });

      // Assess: the prices page lists the model used without a price (and no error in its place).
      await page.goto(`${stack.url}/settings/prices`);
      await heading(page, "Models and prices").waitFor();
      const unpricedSection = page.getByRole("region", { name: "Models without a price" });
      await unpricedSection.getByText(ownModel).waitFor();
      expect(await unpricedSection.getByRole("alert").count()).toBe(0);
      expect(problems).toEqual([]);
    } finally {
      await context.close();
    }
  }, 120_000);

  it("labels the 30-day charts' days without overlap, the first and the last day included, on the overview and an agent's page, at 1280 px and on a phone", async () => {
    const { browser, stack } = ready();
    const agents = (await readAsDev(stack, "/api/sdk/agents")).items as { agentName: string }[];
    const agent = agents[0];
    if (agent === undefined) throw new Error("the demo recorded nothing");
    const [first, last] = periodEdges(30);
    const found: string[] = [];
    for (const device of ["desktop", "phone"] as const satisfies readonly Device[]) {
      const { context, page, problems } = await newPage(browser, { device });
      const check = async (where: string, chart: Locator) => {
        const labels = await dayLabels(chart);
        for (const problem of labels.problems) found.push(`${where} (${device}): ${problem}`);
        if (labels.texts[0] !== first || labels.texts.at(-1) !== last || labels.texts.length < 3) {
          found.push(`${where} (${device}): labels ${labels.texts.join(", ")}`);
        }
      };
      try {
        await openSignedIn(page, stack, "/?days=30", "Overview");
        for (const title of ["Sessions", "Success rate", "Cost", "Tokens"]) {
          const chart = page.getByRole("figure", { name: new RegExp(`^${title} per day`) });
          await chart.getByText(last, { exact: true }).waitFor();
          await check(`overview, ${title} per day`, chart);
        }
        await page.goto(`${stack.url}/agents/${encodeURIComponent(agent.agentName)}?days=30`);
        await heading(page, agent.agentName).waitFor();
        for (const title of CHARTS) {
          const chart = page.getByRole("figure", { name: title });
          await chart.getByText(last, { exact: true }).first().waitFor();
          await check(`${agent.agentName}, ${title}`, chart);
        }
        expect(problems).toEqual([]);
      } finally {
        await context.close();
      }
    }
    expect(found, found.join("\n")).toEqual([]);
  }, 120_000);

  it("shows a session's whole name and failure reason at 1280 px: in the list and the overview when they fit two lines (three for a reason), on the session's page, one link away, when longer", async () => {
    const { browser, stack } = ready();
    const suffix = randomUUID().slice(0, 8);
    const agentName = `readable-agent-${suffix}`;
    const usual = {
      name: `Summarise EU AI Act obligations ${suffix}`,
      reason: `lookup_customer failed: CRM timeout after 5000 ms ${suffix}`,
    };
    const long = {
      name: `Reconcile the November invoices of ACME Corporation against the purchase orders in the ERP ${suffix}`,
      reason: `erp_lookup failed: the ERP answered 503 Service Unavailable three times in a row; gave up after 45 s waiting for purchase order PO-2026-11-0042 ${suffix}`,
    };
    const ats = new AgentTracker({ apiKey: stack.local.apiKey, baseUrl: stack.url });
    for (const run of [long, usual]) {
      const session = await ats.startSession({ name: run.name, agentName, userId: `reader-${suffix}` });
      await session.end({ status: "failed", failureReason: run.reason });
    }
    await ats.shutdown({ timeoutMs: 30_000 });
    const { context, page, problems } = await newPage(browser, { device: "desktop" });
    try {
      // The sessions list, at 1280 px
      await openSignedIn(page, stack, `/sessions?agentName=${agentName}`, "Sessions");
      const table = page.getByRole("table", { name: /^Sessions/ });
      await table.getByRole("link", { name: usual.name }).waitFor();
      const inList = {
        usualName: await showsAllOf(table.getByRole("link", { name: usual.name })),
        usualReason: await showsAllOf(table.getByText(usual.reason)),
        longName: await table.getByRole("link", { name: long.name }).textContent(),
      };
      // The overview's latest failures (these two are the newest)
      await page.goto(`${stack.url}/`);
      const latest = page.getByRole("table", { name: "Latest failed sessions" });
      await latest.getByRole("link", { name: usual.name }).waitFor();
      const inOverview = {
        usualName: await showsAllOf(latest.getByRole("link", { name: usual.name })),
        usualReason: await showsAllOf(latest.getByText(usual.reason)),
        longReason: await showsAllOf(latest.getByText(long.reason)),
      };
      // The long one's page, one link away
      await latest.getByRole("link", { name: long.name }).click();
      await heading(page, long.name).waitFor();
      const onItsPage = {
        name: await showsAllOf(heading(page, long.name)),
        reason: await page.getByRole("note").filter({ hasText: "Failure reason:" }).textContent(),
      };

      expect(inList).toEqual({ usualName: true, usualReason: true, longName: long.name });
      expect(inOverview).toEqual({ usualName: true, usualReason: true, longReason: true });
      expect(onItsPage).toEqual({ name: true, reason: `Failure reason: ${long.reason}` });
      expect(problems).toEqual([]);
    } catch (error) {
      await page.screenshot({ path: artifactPath("readable", "light", "desktop").replace(/\.png$/, "-failed.png") });
      throw error;
    } finally {
      await context.close();
    }
  }, 120_000);

  it("shows a new key's OpenTelemetry variables whole (the headers line wraps, nothing to scroll) and copies them whole, at 1280 px and on a phone", async () => {
    const { browser, stack } = ready();
    for (const device of ["desktop", "phone"] as const satisfies readonly Device[]) {
      const keyName = `otel key ${device} ${randomUUID().slice(0, 8)}`;
      const { context, page, problems } = await newPage(browser, {
        device,
        permissions: ["clipboard-read", "clipboard-write"],
      });
      try {
        await openSignedIn(page, stack, "/settings/keys", "API keys");
        await page.getByRole("button", { name: "Create key" }).click();
        const create = page.getByRole("dialog", { name: "Create an API key" });
        await create.getByLabel("Name").fill(keyName);
        await create.getByRole("button", { name: "Create key" }).click();
        const created = page.getByRole("dialog", { name: `Key "${keyName}" created` });
        const key = await created.getByLabel("API key").inputValue();
        rememberSecretsIn(key);
        const headers = created.getByText(`export OTEL_EXPORTER_OTLP_HEADERS="Authorization=Bearer%20${key}"`);
        const whole = await headers.evaluate((line) => {
          const block = line.closest("pre") ?? line;
          const box = line.getBoundingClientRect();
          const frame = block.getBoundingClientRect();
          return block.scrollWidth <= block.clientWidth && box.left >= frame.left && box.right <= frame.right;
        });
        await created.getByRole("button", { name: "Copy OpenTelemetry variables" }).click();
        await created.getByRole("status").filter({ hasText: "Copied to the clipboard" }).waitFor();
        const copied = String(await page.evaluate("navigator.clipboard.readText()"));

        expect(whole, device).toBe(true);
        expect(copied).toBe(
          [
            `export OTEL_EXPORTER_OTLP_ENDPOINT="${stack.url}/api/otel"`,
            `export OTEL_EXPORTER_OTLP_HEADERS="Authorization=Bearer%20${key}"`,
            `export OTEL_EXPORTER_OTLP_PROTOCOL="http/protobuf"`,
          ].join("\n"),
        );
        expect(problems).toEqual([]);
      } finally {
        await context.close();
      }
    }
  }, 120_000);

  it("a conversation: its runs as turns in order, each opening its session, which links back; a thumbs-down on it is listed and counted in its totals with its runs' scores (axe-clean light and dark, photographed)", async () => {
    const { browser, stack } = ready();
    const errors: AtsError[] = [];
    const ats = new AgentTracker({
      apiKey: stack.local.apiKey,
      baseUrl: stack.url,
      onError: (error) => errors.push(error),
    });
    const conversationId = `chat-${randomUUID().slice(0, 8)}`;
    const questions = ["Where is my order?", "Can I get a refund?", "Thanks, that helps"];
    // Each turn graded by an evaluator: the conversation's totals count its runs' scores with its own.
    const helpfulness = [0.9, 0.3, 0.8];
    const turns = [];
    for (const [index, question] of questions.entries()) {
      const run = await ats.startSession({
        name: question,
        agentName: "support-chat",
        userId: "customer-7",
        conversationId,
      });
      run.decision({ reasoning: `Answer turn ${index + 1}`, estimatedCost: 0.002 * (index + 1) });
      run.score({ name: "helpfulness", value: helpfulness[index] ?? 0, source: "evaluator" });
      await run.end(
        index === 1 ? { status: "failed", failureReason: "refund tool timed out" } : { status: "completed" },
      );
      turns.push(run);
    }
    await ats.shutdown({ timeoutMs: 30_000 });
    const { context, page, problems } = await newPage(browser);
    const dark = await newPage(browser, { colorScheme: "dark" });
    const path = `/conversations/${conversationId}`;
    /** A row of the totals per score name, cell by cell. */
    const totalsRow = (target: Page, name: string) =>
      target
        .getByRole("table", { name: "Totals per name: the conversation's scores and its runs'" })
        .getByRole("row")
        .filter({ has: target.getByRole("rowheader", { name, exact: true }) });
    try {
      await openSignedIn(page, stack, path, `Conversation ${conversationId}`);
      const listed = page.getByRole("list", { name: "Turns" }).getByRole("link");
      await listed.nth(2).waitFor();
      const shown = await listed.allTextContents();

      // The owner's verdict on the whole chat: a thumbs-down, listed and counted at once.
      const scores = page.getByRole("region", { name: "Scores" });
      await scores.getByRole("button", { name: "Thumbs down" }).click();
      await scores.getByRole("button", { name: "Thumbs down", pressed: true }).waitFor();
      const ownList = await scores.getByRole("list", { name: "Scores of this conversation" }).textContent();
      await totalsRow(page, "thumbs").waitFor();
      const thumbsRow = await totalsRow(page, "thumbs").getByRole("cell").allTextContents();
      const helpfulnessRow = await totalsRow(page, "helpfulness").getByRole("cell").allTextContents();
      const lightViolations = await seriousViolations(page);
      await page.screenshot({ path: artifactPath("conversation", "light", "desktop"), fullPage: true });
      const stored = (await readAsDev(stack, `/api/sdk/conversations/${conversationId}/scores`)).items;

      // A fresh page in the dark: the score read back (not the page's cache).
      await openSignedIn(dark.page, stack, path, `Conversation ${conversationId}`);
      await totalsRow(dark.page, "thumbs").waitFor();
      const darkViolations = await seriousViolations(dark.page);
      await dark.page.screenshot({ path: artifactPath("conversation", "dark", "desktop"), fullPage: true });

      // The list was re-rendered by the score's refresh while the dark page was checked: a click that lands on the
      // link being replaced is lost (once in a loaded clean-clone run), so a turn not opened is clicked once more.
      const opened = heading(page, questions[1] ?? "");
      await listed.nth(1).click();
      await opened.waitFor({ timeout: 7_500 }).catch(async () => {
        await listed.nth(1).click();
        await opened.waitFor();
      });
      await page.getByRole("link", { name: `conversation ${conversationId}` }).click();
      await heading(page, `Conversation ${conversationId}`).waitFor();

      expect(errors).toEqual([]);
      expect(shown).toEqual(questions);
      expect(ownList).toMatch(/^thumbs✗noconsole, you, /);
      expect(thumbsRow).toEqual(["1", "0% true (0 of 1)"]);
      expect(helpfulnessRow).toEqual(["3", "mean 0.667 of 3 numbers"]);
      expect(stored).toEqual([
        expect.objectContaining({
          conversationId,
          sessionId: null,
          eventId: null,
          name: "thumbs",
          value: false,
          source: "console",
          author: expect.objectContaining({ kind: "user" }),
        }),
      ]);
      for (const violations of [lightViolations, darkViolations]) {
        expect(violations, describeViolations(violations)).toEqual([]);
      }
      expect(problems).toEqual([]);
      expect(dark.problems).toEqual([]);
    } catch (error) {
      await page
        .screenshot({ path: artifactPath("conversation", "light", "desktop").replace(/\.png$/, "-failed.png") })
        .catch(() => undefined);
      throw error;
    } finally {
      await context.close();
      await dark.context.close();
    }
  }, 120_000);

  it("scores in the console: an agent's charts per score name, the sessions list filtered by a score (a crossed range's 400 inline), its conversations listed; axe-clean and photographed, light and dark", async () => {
    const { browser, stack } = ready();
    const suffix = randomUUID().slice(0, 8);
    const agentName = `graded-${suffix}`;
    const conversationId = `graded-chat-${suffix}`;
    const errors: AtsError[] = [];
    const ats = new AgentTracker({
      apiKey: stack.local.apiKey,
      baseUrl: stack.url,
      onError: (error) => errors.push(error),
    });
    // 12 runs over the last 6 days (2 a day), each scored three ways; the last two are turns of one conversation.
    const TONES = ["friendly", "friendly", "neutral", "rude"] as const;
    const quality = (index: number) => Math.round(((index % 4) * 0.3 + 0.1) * 10) / 10;
    const names: string[] = [];
    const today = new Date().toISOString().slice(0, 10);
    for (let index = 0; index < 12; index += 1) {
      const daysAgo = 5 - Math.floor(index / 2);
      // A second or two into its UTC day: the day is certain, and in the past.
      const startedAt = Date.parse(`${today}T00:00:00Z`) - daysAgo * 86_400_000 + (1 + (index % 2)) * 1000;
      const run = await ats.startSession({
        name: `Graded run ${suffix} #${index}`,
        agentName,
        userId: "customer-9",
        startedAt: new Date(startedAt),
        ...(index >= 10 ? { conversationId } : {}),
      });
      run.score({ name: "quality", value: quality(index) });
      run.score({ name: "resolved", value: index % 3 !== 0 });
      run.score({ name: "tone", value: TONES[index % 4] ?? "friendly" });
      run.decision({ reasoning: "Answered from the order history", estimatedCost: 0.002 });
      const durationMs = 40_000 + index * 1_000;
      await run.end({ status: "completed", durationMs, completedAt: new Date(startedAt + durationMs) });
      names.push(run.name);
    }
    await ats.shutdown({ timeoutMs: 30_000 });
    const from = new Date(Date.now() - 6 * 86_400_000).toISOString().slice(0, 10);
    type ScoreStats = { name: string; count: number };
    const counted = async () =>
      ((await readAsDev(stack, `/api/sdk/agents/${agentName}/stats?from=${from}&to=${today}`)).scores as ScoreStats[])
        .map((score) => `${score.name}:${score.count}`)
        .join(",");
    await expect.poll(counted, { timeout: 30_000, interval: 500 }).toBe("quality:12,resolved:12,tone:12");

    const seen: Record<string, unknown> = {};
    const axes: string[] = [];
    const [firstDay, lastDay] = periodEdges(7);
    const found: string[] = [];
    const problems: string[] = [];
    for (const colorScheme of ["light", "dark"] as const) {
      const { context, page, problems: pageProblems } = await newPage(browser, { colorScheme });
      const check = async (name: string) => {
        const violations = await seriousViolations(page);
        if (violations.length > 0) found.push(`${name} (${colorScheme}):\n${describeViolations(violations)}`);
      };
      try {
        // The agent's page: a chart per score name.
        await openSignedIn(page, stack, `/agents/${agentName}?days=7`, agentName);
        const scores = page.getByRole("region", { name: "Scores" });
        const figures = scores.getByRole("figure");
        await figures.nth(2).locator("svg").first().waitFor();
        if (colorScheme === "light") {
          // The day axis as the other charts draw it: the period's first and last day, no label over another.
          for (const index of [0, 1, 2]) {
            const labels = await dayLabels(figures.nth(index).locator("svg").first());
            axes.push(
              `${labels.texts[0]}…${labels.texts.at(-1)}${labels.problems.map((problem) => ` ${problem}`).join("")}`,
            );
          }
        }
        const quality = figures.filter({ hasText: "quality: mean per day" });
        await quality.getByText("Figures per day", { exact: true }).click();
        const perDay = quality.getByRole("table", { name: "quality: mean per day: figures per day" });
        if (colorScheme === "light") {
          seen.captions = await figures.evaluateAll((all) =>
            all.map((figure) => figure.querySelector("figcaption")?.firstChild?.textContent),
          );
          seen.summaries = await scores.locator("figcaption").allInnerTexts();
          seen.legend = await scores
            .getByRole("list", { name: "Labels of tone: labels per day" })
            .getByRole("listitem")
            .allTextContents();
          seen.perDayCounts = await perDay
            .getByRole("row")
            .evaluateAll((rows) => rows.slice(1).map((row) => row.lastElementChild?.textContent));
        }
        await check("agent-scores");
        await scores.screenshot({ path: artifactPath("agent-scores", colorScheme, "desktop"), animations: "disabled" });

        // The sessions list: quality at least 0.8, through the form.
        await page.goto(`${stack.url}/sessions?agentName=${agentName}`);
        await heading(page, "Sessions").waitFor();
        await page.getByText("12 sessions shown").waitFor();
        const form = page.getByRole("form", { name: "Session filters" });
        await form.getByLabel("Score name").fill("quality");
        await form.getByLabel("Its latest score").selectOption({ label: "A number between" });
        await form.getByLabel("At least").fill("0.8");
        await form.getByRole("button", { name: "Apply filters" }).click();
        await page.getByText("3 sessions shown").waitFor();
        if (colorScheme === "light") {
          seen.filteredUrl = new URL(page.url()).search;
          seen.filtered = await page
            .getByRole("table", { name: /^Sessions/ })
            .getByRole("rowheader")
            .allTextContents();
        }
        await check("sessions-score-filter");
        await page.screenshot({ path: artifactPath("sessions-score-filter", colorScheme, "desktop"), fullPage: true });
        if (colorScheme === "light") {
          // A crossed range: the API's 400, inline; removing the filter brings every session back.
          await form.getByLabel("At most").fill("0.1");
          await form.getByRole("button", { name: "Apply filters" }).click();
          seen.refusal = await page.getByRole("alert").innerText();
          await page.getByRole("button", { name: "Remove the score filter quality from 0.8 to 0.1" }).click();
          await page.getByText("12 sessions shown").waitFor();
        }

        // The conversations list, from the navigation; its row opens the conversation.
        await navigateTo(page, "Conversations");
        const filters = page.getByRole("form", { name: "Conversation filters" });
        await filters.getByLabel("Agent").fill(agentName);
        await filters.getByRole("button", { name: "Apply filters" }).click();
        const row = page.getByRole("link", { name: conversationId });
        await row.waitFor();
        await page.getByText("1 conversation shown").waitFor();
        await check("conversations");
        await page.screenshot({ path: artifactPath("conversations-agent", colorScheme, "desktop"), fullPage: true });
        await row.click();
        await heading(page, `Conversation ${conversationId}`).waitFor();
        problems.push(...pageProblems);
      } finally {
        await context.close();
      }
    }

    expect(errors).toEqual([]);
    expect(seen.captions).toEqual(["quality: mean per day", "resolved: % true per day", "tone: labels per day"]);
    expect(seen.summaries).toEqual([
      expect.stringContaining("12 scores, mean 0.55 · sessions with this score"),
      expect.stringContaining("12 scores, 67% true · sessions with this score"),
      expect.stringContaining("12 scores · sessions with this score"),
    ]);
    expect(seen.legend).toEqual(["friendly (6)", "neutral (3)", "rude (3)"]);
    expect(axes).toEqual([1, 2, 3].map(() => `${firstDay}…${lastDay}`));
    expect(seen.perDayCounts).toEqual(["2", "2", "2", "2", "2", "2"]);
    expect(seen.filteredUrl).toBe(`?agentName=${agentName}&scoreName=quality&scoreMin=0.8`);
    expect(seen.filtered).toEqual([names[11], names[7], names[3]]);
    expect(seen.refusal).toContain("scoreMax: Must not be below scoreMin");
    expect(found, found.join("\n")).toEqual([]);
    expect(problems).toEqual([]);
  }, 180_000);

  it("opens a field over 1 MiB through the API on its own origin: no CSP violation, the whole field shown (issue 21)", async () => {
    const { browser, stack } = ready();
    const headers = { authorization: `Bearer ${stack.local.apiKey}`, "content-type": "application/json" };
    const name = `Large export ${randomUUID().slice(0, 8)}`;
    const created = await fetch(`${stack.url}/api/sdk/sessions`, {
      method: "POST",
      headers,
      body: JSON.stringify({ name, agentName: "exporter", userId: "customer-large" }),
    });
    const { id: sessionId } = (await created.json()) as { id: string };
    const rows = Array.from({ length: 12_000 }, (_, index) => ({ row: index, text: "x".repeat(90) }));
    const recorded = await fetch(`${stack.url}/api/sdk/events`, {
      method: "POST",
      headers,
      body: JSON.stringify({ sessionId, eventType: "tool_call", toolName: "export_rows", toolOutput: { rows } }),
    });
    const { context, page, problems } = await newPage(browser);
    try {
      await openSignedIn(page, stack, `/sessions/${sessionId}`, name);
      await page.getByRole("button", { name: "Show input and output" }).click();
      await page.getByRole("button", { name: /^Load output \(1\.\d MiB\)$/ }).click();
      await page.getByText('"row"').first().waitFor();
      const shown = await page.getByText(/"row"/).count();

      expect(recorded.status).toBe(201);
      expect(shown).toBeGreaterThan(0);
      expect(problems).toEqual([]);
    } finally {
      await context.close();
    }
  }, 120_000);

  it("an invited person: the owner invites, they sign in, see the invitation (and nothing of the organisation), accept and land in it", async () => {
    const { browser, stack } = ready();
    const invitee = `invitee-${randomUUID().slice(0, 8)}@example.com`;
    const owner = await newPage(browser);
    const guest = await newPage(browser);
    try {
      // The owner invites them as an admin.
      await owner.page.goto(stack.url);
      await signIn(owner.page);
      await navigateTo(owner.page, "Members");
      const inviteForm = owner.page.getByRole("form", { name: "Invite a member" });
      await inviteForm.getByLabel("Email").fill(invitee);
      await inviteForm.getByLabel("Role").selectOption("admin");
      await inviteForm.getByRole("button", { name: "Invite" }).click();
      await inviteForm
        .getByRole("status")
        .filter({ hasText: `Invitation sent to ${invitee}` })
        .waitFor();

      // They sign in (the invitation made them a local user): no organisation yet, the invitation apart.
      await guest.page.goto(stack.url);
      await signIn(guest.page, invitee);
      await heading(guest.page, "No organisation").waitFor();
      const prompt = guest.page.getByRole("complementary", { name: "Your invitations" });
      const promptText = await prompt.textContent();
      const promptViolations = await seriousViolations(guest.page);
      const navigationBefore = await guest.page.getByRole("navigation", { name: "Main" }).count();

      // They accept, and land in the organisation, with the role they were invited with.
      await prompt.getByRole("button", { name: "Accept the invitation to dev" }).click();
      await heading(guest.page, "Overview").waitFor();
      const organisation = await guest.page.getByText("dev (admin)").first().textContent();
      await navigateTo(guest.page, "Members");
      const members = guest.page.getByRole("table", { name: "Members of dev" });
      await members.getByRole("rowheader", { name: new RegExp(`^${invitee}`) }).waitFor();

      expect(promptText).toContain("dev invites you as admin");
      expect(promptText).toContain("dev@localhost");
      expect(navigationBefore).toBe(0);
      expect(promptViolations, describeViolations(promptViolations)).toEqual([]);
      expect(organisation).toContain("dev (admin)");
      expect(await guest.page.getByRole("complementary", { name: "Your invitations" }).count()).toBe(0);
      expect(owner.problems).toEqual([]);
      expect(guest.problems).toEqual([]);
    } catch (error) {
      await guest.page.screenshot({
        path: artifactPath("invitation", "light", "desktop").replace(/\.png$/, "-failed.png"),
      });
      throw error;
    } finally {
      await owner.context.close();
      await guest.context.close();
    }
  }, 180_000);

  it("alerts: an admin adds a webhook destination (its secret shown once) and a monitor on a demo agent with the live preview, and sees it listed (axe-clean, photographed light and dark)", async () => {
    const { browser, stack } = ready();
    const suffix = randomUUID().slice(0, 8);
    const destinationName = `On-call ${suffix}`;
    const monitorName = `Failing ${suffix}`;
    const agents = (await readAsDev(stack, "/api/sdk/agents")).items as { agentName: string }[];
    const agent = agents[0]?.agentName;
    if (agent === undefined) throw new Error("the demo recorded nothing");
    const found: string[] = [];
    const light = await newPage(browser);
    const dark = await newPage(browser, { colorScheme: "dark" });
    try {
      const { page } = light;
      await openSignedIn(page, stack, "/alerts", "Alerts");
      // A webhook destination: its signing secret is shown once.
      await page.getByRole("button", { name: "Add a destination" }).click();
      const add = page.getByRole("dialog", { name: "Add a destination" });
      await add.getByLabel("Name").fill(destinationName);
      await add.getByLabel("URL").fill("http://127.0.0.1:9/ats-hook");
      await add.getByRole("button", { name: "Add destination" }).click();
      const created = page.getByRole("dialog", { name: `Destination "${destinationName}" created` });
      const secret = await created.getByLabel("Signing secret").inputValue();
      await created.getByRole("button", { name: "Done" }).click();
      await created.waitFor({ state: "detached" });
      const secretShownAfter = await page.getByText(secret).count();
      // A monitor on the demo's agent, previewed as it is filled in.
      await page.getByRole("link", { name: "New monitor" }).click();
      const form = page.getByRole("form", { name: "Monitor" });
      await form.getByLabel("Name", { exact: true }).fill(monitorName);
      await form.getByLabel("Agent").selectOption(agent);
      await form.getByLabel("Alert threshold (%)").fill("20");
      await form.getByLabel("Warning threshold (%)").fill("10");
      await form.getByLabel("Minimum samples").fill("1");
      await form.getByRole("checkbox", { name: new RegExp(destinationName) }).check();
      const preview = page.getByRole("status").filter({ hasText: /of the last \d+ hours|No data in any/ });
      await preview.waitFor();
      const previewText = await preview.textContent();
      const formViolations = await seriousViolations(page);
      await page.evaluate("window.scrollTo(0, 0)");
      await page.screenshot({ path: artifactPath("alerts-monitor-form", "light", "desktop") });
      await form.getByRole("button", { name: "Create monitor" }).click();
      await heading(page, monitorName).waitFor();
      await page.getByRole("link", { name: "← Alerts" }).click();
      const listed = page.getByRole("row").filter({ has: page.getByRole("link", { name: monitorName }) });
      await listed.waitFor();
      const listedText = await listed.textContent();
      const listViolations = await seriousViolations(page);
      await page.screenshot({ path: artifactPath("alerts", "light", "desktop"), fullPage: true });
      // The same in dark.
      await openSignedIn(dark.page, stack, "/alerts", "Alerts");
      await dark.page.getByRole("link", { name: monitorName }).waitFor();
      await dark.page.screenshot({ path: artifactPath("alerts", "dark", "desktop"), fullPage: true });
      await dark.page.getByRole("link", { name: "New monitor" }).click();
      await dark.page.getByLabel("Agent").selectOption(agent);
      await dark.page.getByLabel("Alert threshold (%)").fill("20");
      await dark.page.getByLabel("Minimum samples").fill("1");
      await dark.page
        .getByRole("status")
        .filter({ hasText: /of the last \d+ hours|No data in any/ })
        .waitFor();
      await dark.page.evaluate("window.scrollTo(0, 0)");
      await dark.page.screenshot({ path: artifactPath("alerts-monitor-form", "dark", "desktop") });
      for (const [name, violations] of [
        ["form", formViolations],
        ["list", listViolations],
      ] as const) {
        if (violations.length > 0) found.push(`${name}:\n${describeViolations(violations)}`);
      }

      expect(secret.length).toBeGreaterThan(20);
      expect(secretShownAfter).toBe(0);
      expect(previewText).toMatch(/^(In alert \d+ of the last \d+ hours|No data in any of the last \d+ hours)/);
      expect(listedText).toContain(`Failure rate of agent ${agent}`);
      expect(listedText).toContain("Alert above 20% (warning at 10%)");
      expect(found, found.join("\n")).toEqual([]);
      expect(light.problems).toEqual([]);
      expect(dark.problems).toEqual([]);
    } catch (error) {
      await light.page
        .screenshot({
          path: artifactPath("alerts", "light", "desktop").replace(/\.png$/, "-failed.png"),
          fullPage: true,
        })
        .catch(() => undefined);
      throw error;
    } finally {
      await light.context.close();
      await dark.context.close();
    }
  }, 120_000);

  it("has no serious or critical accessibility violations on any page, light or dark, desktop or phone (and photographs each)", async () => {
    const { browser, stack } = ready();
    const sessions = (await readAsDev(stack, "/api/sdk/sessions?limit=1")).items as { id: string; name: string }[];
    const agents = (await readAsDev(stack, "/api/sdk/agents")).items as { agentName: string }[];
    const session = sessions[0];
    const agent = agents[0];
    if (session === undefined || agent === undefined) throw new Error("the demo recorded nothing");
    const found: string[] = [];
    const check = async (name: string, page: Page, variant: Variant) => {
      const violations = await seriousViolations(page);
      if (violations.length > 0) {
        found.push(`${name} (${variant.colorScheme}, ${variant.device}):\n${describeViolations(violations)}`);
      }
    };
    // The failed session with the most events: a run worth a picture.
    const failed = (
      (await readAsDev(stack, "/api/sdk/sessions?status=failed&limit=50")).items as {
        id: string;
        name: string;
        eventCount: number;
      }[]
    ).sort((a, b) => b.eventCount - a.eventCount)[0];
    if (failed === undefined) throw new Error("no failed session recorded");
    const pages: readonly ConsolePage[] = [
      {
        name: "overview",
        path: "/?days=14",
        title: "Overview",
        ready: (page) => page.getByRole("table", { name: "Latest failed sessions" }).waitFor(),
      },
      { name: "sessions", path: "/sessions", title: "Sessions" },
      {
        name: "conversations",
        path: "/conversations",
        title: "Conversations",
        ready: (page) =>
          page
            .getByRole("status")
            .filter({ hasText: /conversations? shown/ })
            .waitFor(),
      },
      {
        name: "session-failed",
        path: `/sessions/${encodeURIComponent(failed.id)}`,
        title: failed.name,
        ready: (page) => page.getByRole("list", { name: "Run waterfall" }).waitFor(),
      },
      {
        name: "session-timeline",
        path: `/sessions/${encodeURIComponent(session.id)}`,
        title: session.name,
        ready: (page) => page.getByRole("list", { name: "Event timeline" }).waitFor(),
      },
      {
        name: "agents",
        path: "/agents",
        title: "Agents",
        ready: (page) => page.getByRole("table", { name: /^Agents/ }).waitFor(),
      },
      {
        name: "agent-stats",
        path: `/agents/${encodeURIComponent(agent.agentName)}`,
        title: agent.agentName,
        ready: (page) => page.getByRole("figure").first().locator("svg").first().waitFor(),
      },
      {
        name: "prices",
        path: "/settings/prices",
        title: "Models and prices",
        ready: (page) => page.getByRole("table", { name: /shipped with the service/ }).waitFor(),
      },
      {
        name: "monitors",
        path: "/alerts",
        title: "Alerts",
        ready: async (page) => {
          await page.getByRole("heading", { level: 2, name: "Destinations" }).waitFor();
          await page
            .getByText(/^Loading (monitors|destinations)…$/)
            .first()
            .waitFor({ state: "detached" });
        },
      },
      {
        name: "monitor-new",
        path: "/alerts/new",
        title: "New monitor",
        ready: (page) => page.getByRole("form", { name: "Monitor" }).waitFor(),
      },
      { name: "score-configs-list", path: "/settings/scores", title: "Score configurations" },
      { name: "keys", path: "/settings/keys", title: "API keys" },
      { name: "members", path: "/settings/members", title: "Members" },
      // Last: its address switches the look to the test environment, which the pages after it would keep.
      {
        name: "overview-empty",
        path: "/?env=test",
        title: "Overview",
        ready: (page) => page.getByText("No sessions in test yet.").waitFor(),
      },
    ];

    const written = await captureVariants(browser, "sign-in", async (page, variant) => {
      await page.goto(stack.url);
      await page.getByRole("button", { name: "Sign in as dev@localhost" }).waitFor();
      await check("sign-in", page, variant);
    });
    written.push(...(await captureSignedInPages(browser, stack.url, pages, check)));

    expect(found, found.join("\n")).toEqual([]);
    expect(written).toHaveLength((pages.length + 1) * 4);
  }, 300_000);
});
