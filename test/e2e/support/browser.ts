/**
 * Debian's Chromium driven by playwright-core: never a downloaded browser.
 * The executable is `$CHROMIUM_PATH`, else `chromium` (or
 * `chromium-browser`) on the PATH, else `/usr/bin/chromium`; without one the
 * tests fail and say how to install it (CI installs it in `.ci/run`).
 */
import { accessSync, constants } from "node:fs";
import { delimiter, join } from "node:path";
import { type Browser, type BrowserContext, chromium, type Page } from "playwright-core";

export type ColorScheme = "light" | "dark";
export type Device = "desktop" | "phone";

export const VIEWPORTS: Readonly<Record<Device, { width: number; height: number }>> = {
  desktop: { width: 1280, height: 800 },
  phone: { width: 390, height: 844 },
};

function executable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** The Chromium to drive, or an error that says how to get one. */
export function findChromium(env: NodeJS.ProcessEnv = process.env): string {
  const configured = env.CHROMIUM_PATH;
  if (configured !== undefined && configured !== "") {
    if (executable(configured)) return configured;
    throw new Error(`CHROMIUM_PATH=${configured} is not an executable file`);
  }
  const onPath = (env.PATH ?? "")
    .split(delimiter)
    .filter(Boolean)
    .flatMap((directory) => ["chromium", "chromium-browser"].map((name) => join(directory, name)));
  const found = [...onPath, "/usr/bin/chromium"].find(executable);
  if (found !== undefined) return found;
  throw new Error(
    "Chromium not found: the browser tests (test/e2e) drive Debian's Chromium and never download one. " +
      "Install it with `apt-get install -y --no-install-recommends chromium` (.ci/run does) or set CHROMIUM_PATH.",
  );
}

/** Launches a headless Chromium (one per test file; give each test its own context). */
export function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: findChromium(),
    args: ["--no-sandbox"],
    headless: true,
  });
}

export interface PageOptions {
  readonly colorScheme?: ColorScheme;
  readonly device?: Device;
  /** Browser permissions for the page's origin, e.g. `clipboard-read` to check what "Copy" copied. */
  readonly permissions?: readonly string[];
}

/** A fresh context (no cookies, storage or tokens shared with other tests) and its page. */
export async function newPage(
  browser: Browser,
  options: PageOptions = {},
): Promise<{ context: BrowserContext; page: Page; problems: string[] }> {
  const context = await browser.newContext({
    colorScheme: options.colorScheme ?? "light",
    viewport: VIEWPORTS[options.device ?? "desktop"],
    reducedMotion: "reduce",
    locale: "en-GB",
    timezoneId: "UTC",
  });
  if (options.permissions !== undefined) await context.grantPermissions([...options.permissions]);
  context.setDefaultTimeout(15_000);
  const page = await context.newPage();
  return { context, page, problems: watchProblems(page) };
}

/**
 * What went wrong in the page: uncaught errors and console errors (a CSP
 * violation shows as one). Failed API calls the console handles (a 401 after
 * a revoked key) are not page errors, but the browser logs them as
 * "Failed to load resource"; those are left out.
 */
export function watchProblems(page: Page): string[] {
  const problems: string[] = [];
  page.on("pageerror", (error) => problems.push(`page error: ${error.message}`));
  page.on("console", (message) => {
    if (message.type() !== "error") return;
    if (message.text().startsWith("Failed to load resource")) return;
    problems.push(`console error: ${message.text()}`);
  });
  return problems;
}
