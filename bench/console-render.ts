/**
 * `npm run bench:console`: how fast the console shows the demo's sessions, in
 * Debian's Chromium (playwright-core). A real `npm start` (its own DATA_DIR,
 * DynamoDB Local and port), `npm run demo` into it, then per round a fresh
 * browser context: the cold load of the console (first contentful paint of
 * the sign-in page), the time from the sign-in click to the first row of the
 * sessions table, and a warm in-app navigation (Agents → Sessions) to the
 * first row; then another fresh context signing in at `/`, the first page after
 * sign-in: the time from the sign-in click to the first visible row of the
 * overview (its rankings, the latest failures). Times are taken inside the page
 * (`performance.now()`), medians of the rounds; the console's bundle sizes
 * (gzip) are read from `web/dist`.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { chromium } from "playwright-core";
import { freePort } from "../local/dynamodb-local.js";
import { REPOSITORY_ROOT } from "../local/settings.js";
import { findChromium } from "../test/e2e/support/browser.js";
import { machineInfo } from "./harness/machine.js";
import { median } from "./harness/stats.js";

const ROUNDS = Number(process.env.ROUNDS ?? 7);
const NODE = [process.execPath, "--import", "tsx"];

function startStack(dataDirectory: string, port: number): ChildProcess {
  return spawn(NODE[0] as string, [...NODE.slice(1), "local/start.ts"], {
    cwd: REPOSITORY_ROOT,
    env: { ...process.env, DATA_DIR: dataDirectory, PORT: String(port) },
    stdio: "ignore",
  });
}

async function waitForLocalJson(path: string, child: ChildProcess): Promise<{ apiUrl: string }> {
  for (let waited = 0; waited < 240_000; waited += 200) {
    if (child.exitCode !== null) throw new Error(`npm start exited with ${child.exitCode}`);
    try {
      return JSON.parse(readFileSync(path, "utf8")) as { apiUrl: string };
    } catch {
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }
  throw new Error("npm start did not become ready");
}

function runDemo(dataDirectory: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(NODE[0] as string, [...NODE.slice(1), "scripts/demo/run-demo.ts", "--quiet"], {
      cwd: REPOSITORY_ROOT,
      env: { ...process.env, DATA_DIR: dataDirectory },
      stdio: "inherit",
    });
    child.on("close", (code) => (code === 0 ? resolve() : reject(new Error(`demo exited with ${code}`))));
  });
}

function bundleSizes(): { file: string; bytes: number; gzipBytes: number }[] {
  const assets = join(REPOSITORY_ROOT, "web/dist/assets");
  return readdirSync(assets)
    .filter((file) => file.endsWith(".js") || file.endsWith(".css"))
    .map((file) => {
      const content = readFileSync(join(assets, file));
      return { file, bytes: content.length, gzipBytes: gzipSync(content, { level: 9 }).length };
    });
}

interface Round {
  readonly signInFirstContentfulPaintMs: number;
  readonly signInToFirstRowMs: number;
  readonly inAppNavigationToFirstRowMs: number;
  readonly rowsShown: number;
  readonly signInToOverviewRowMs: number;
}

// In-page code as strings: the root project compiles without the DOM library.
const RECORD_NEXT_CLICK = `document.addEventListener("click", () => { window.__clickAt = performance.now(); }, { capture: true, once: true })`;
const ROWS_SHOWN = `(() => { if (document.querySelector("table tbody tr") === null) return false; window.__rowsAt = performance.now(); return true; })()`;
// A row a person sees (not one in a closed <details>, which has no layout).
const VISIBLE_ROW_SHOWN = `(() => { if (![...document.querySelectorAll("table tbody tr")].some((row) => row.getClientRects().length > 0)) return false; window.__rowsAt = performance.now(); return true; })()`;
const CLICK_TO_ROWS_MS = "window.__rowsAt - window.__clickAt";
const FIRST_CONTENTFUL_PAINT = `performance.getEntriesByName("first-contentful-paint")[0]?.startTime ?? NaN`;

type Browser = import("playwright-core").Browser;

function newContext(browser: Browser) {
  // bypassCSP: the probes below are evaluated as strings, which the console's CSP (no unsafe-eval) would refuse.
  return browser.newContext({ viewport: { width: 1280, height: 800 }, colorScheme: "light", bypassCSP: true });
}

/** Signs in at `/` (the overview, the first page after sign-in) and times the click to its first visible row. */
async function measureOverview(browser: Browser, url: string): Promise<number> {
  const context = await newContext(browser);
  const page = await context.newPage();
  try {
    await page.goto(`${url}/`);
    const signInButton = page.getByRole("button", { name: "Sign in as dev@localhost" });
    await signInButton.waitFor();
    await page.evaluate(RECORD_NEXT_CLICK);
    await signInButton.click();
    await page.waitForFunction(VISIBLE_ROW_SHOWN, undefined, { polling: "raf", timeout: 30_000 });
    return page.evaluate<number>(CLICK_TO_ROWS_MS);
  } finally {
    await context.close();
  }
}

/** Signs in at `/sessions` and times the click to its first row, then a warm navigation back to it. */
async function measureSessions(browser: Browser, url: string): Promise<Omit<Round, "signInToOverviewRowMs">> {
  const context = await newContext(browser);
  const page = await context.newPage();
  try {
    await page.goto(`${url}/sessions`);
    const signInButton = page.getByRole("button", { name: "Sign in as dev@localhost" });
    await signInButton.waitFor();
    const firstContentfulPaint = await page.evaluate<number>(FIRST_CONTENTFUL_PAINT);
    const clickToRows = async (click: () => Promise<void>): Promise<number> => {
      await page.evaluate(RECORD_NEXT_CLICK);
      await click();
      await page.waitForFunction(ROWS_SHOWN, undefined, { polling: "raf", timeout: 30_000 });
      return page.evaluate<number>(CLICK_TO_ROWS_MS);
    };
    const signInToFirstRowMs = await clickToRows(() => signInButton.click());
    const rowsShown = await page.locator("table tbody tr").count();
    await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Agents", exact: true }).click();
    await page.getByRole("heading", { level: 1, name: "Agents" }).waitFor();
    const inAppNavigationToFirstRowMs = await clickToRows(() =>
      page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Sessions", exact: true }).click(),
    );
    return {
      signInFirstContentfulPaintMs: firstContentfulPaint,
      signInToFirstRowMs,
      inAppNavigationToFirstRowMs,
      rowsShown,
    };
  } finally {
    await context.close();
  }
}

async function measureRound(browser: Browser, url: string): Promise<Round> {
  const sessions = await measureSessions(browser, url);
  return { ...sessions, signInToOverviewRowMs: await measureOverview(browser, url) };
}

async function main(): Promise<void> {
  const startedAt = new Date();
  const dataDirectory = mkdtempSync(join(tmpdir(), "ats-bench-console-"));
  const port = await freePort();
  const server = startStack(dataDirectory, port);
  try {
    const { apiUrl } = await waitForLocalJson(join(dataDirectory, "local.json"), server);
    console.log(`stack ready at ${apiUrl}; recording the demo…`);
    await runDemo(dataDirectory);
    const browser = await chromium.launch({ executablePath: findChromium(), args: ["--no-sandbox"], headless: true });
    const rounds: Round[] = [];
    try {
      await measureRound(browser, apiUrl); // warm-up: the server's modules and DynamoDB Local's first queries
      for (let round = 1; round <= ROUNDS; round++) {
        const result = await measureRound(browser, apiUrl);
        rounds.push(result);
        console.log(
          `round ${round}: FCP ${result.signInFirstContentfulPaintMs.toFixed(0)} ms · sign-in → rows ${result.signInToFirstRowMs.toFixed(0)} ms · Agents → Sessions rows ${result.inAppNavigationToFirstRowMs.toFixed(0)} ms (${result.rowsShown} rows) · sign-in → overview row ${result.signInToOverviewRowMs.toFixed(0)} ms`,
        );
      }
    } finally {
      await browser.close();
    }
    const bundles = bundleSizes();
    const summary = {
      signInFirstContentfulPaintMs: median(rounds.map((round) => round.signInFirstContentfulPaintMs)),
      signInToFirstRowMs: median(rounds.map((round) => round.signInToFirstRowMs)),
      inAppNavigationToFirstRowMs: median(rounds.map((round) => round.inAppNavigationToFirstRowMs)),
      rowsShown: rounds[0]?.rowsShown ?? 0,
      signInToOverviewRowMs: median(rounds.map((round) => round.signInToOverviewRowMs)),
      initialGzipBytes: bundles
        .filter((bundle) => !bundle.file.startsWith("AgentDetailPage"))
        .reduce((sum, b) => sum + b.gzipBytes, 0),
    };
    const results = {
      meta: { startedAt: startedAt.toISOString(), ...machineInfo(), rounds: ROUNDS },
      summary,
      rounds,
      bundles,
    };
    writeFileSync(join(REPOSITORY_ROOT, "bench/console-results.json"), `${JSON.stringify(results, null, 2)}\n`);
    console.log(JSON.stringify(summary, null, 2));
  } finally {
    server.kill("SIGTERM");
    await new Promise((resolve) => server.once("exit", resolve));
    rmSync(dataDirectory, { recursive: true, force: true });
  }
}

await main();
