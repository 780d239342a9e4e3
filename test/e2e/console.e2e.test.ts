/**
 * The console in a real browser (Debian's Chromium) against a real `npm start`:
 * sign in as dev@localhost, every page reachable from the navigation, no
 * serious or critical accessibility violation, no page error (a CSP
 * violation is one), screenshots of every page light and dark, desktop and
 * phone.
 */
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { captureVariants } from "./support/artifacts.js";
import { describeViolations, seriousViolations } from "./support/axe.js";
import { launchBrowser, newPage } from "./support/browser.js";
import { heading, navigateTo, openSignedIn, PAGES, signIn } from "./support/console.js";
import { type Stack, startStack } from "./support/stack.js";

let browser: Browser | undefined;
let stack: Stack | undefined;

beforeAll(async () => {
  // The browser first: without Chromium the file fails at once, saying how to install it.
  browser = await launchBrowser();
  stack = await startStack();
}, 300_000);

afterAll(async () => {
  await browser?.close();
  await stack?.stop();
});

function ready(): { browser: Browser; stack: Stack } {
  if (browser === undefined || stack === undefined) throw new Error("beforeAll did not finish");
  return { browser, stack };
}

describe("the console", () => {
  it("offers dev@localhost on the sign-in page, signs in and lands on Sessions; the navigation reaches every page", async () => {
    const { browser, stack } = ready();
    const { context, page, problems } = await newPage(browser);
    try {
      await page.goto(stack.url);
      await heading(page, "Sign in to Agent Tracking").waitFor();
      const signInViolations = await seriousViolations(page);

      await signIn(page);
      await heading(page, "Sessions").waitFor();
      const navigation = page.getByRole("navigation", { name: "Main" });
      const links = await navigation.getByRole("link").allTextContents();
      for (const name of PAGES) await navigateTo(page, name);

      expect(new URL(page.url()).origin).toBe(stack.url);
      expect(links).toEqual(expect.arrayContaining([...PAGES]));
      expect(signInViolations, describeViolations(signInViolations)).toEqual([]);
      expect(problems).toEqual([]);
    } finally {
      await context.close();
    }
  }, 120_000);

  it("has no serious or critical accessibility violations on any page, light or dark, desktop or phone", async () => {
    const { browser, stack } = ready();
    const found: string[] = [];
    const check =
      (name: string) =>
      async (page: import("playwright-core").Page, variant: { colorScheme: string; device: string }) => {
        const violations = await seriousViolations(page);
        if (violations.length > 0)
          found.push(`${name} (${variant.colorScheme}, ${variant.device}):\n${describeViolations(violations)}`);
      };

    await captureVariants(browser, "sign-in", async (page, variant) => {
      await page.goto(stack.url);
      await page.getByRole("button", { name: "Sign in as dev@localhost" }).waitFor();
      await check("sign-in")(page, variant);
    });
    for (const [name, path] of [
      ["sessions", "/sessions"],
      ["agents", "/agents"],
      ["keys", "/settings/keys"],
      ["members", "/settings/members"],
    ] as const) {
      const title = { sessions: "Sessions", agents: "Agents", keys: "API keys", members: "Members" }[name];
      await captureVariants(browser, name, async (page, variant) => {
        await openSignedIn(page, stack, path, title);
        await check(name)(page, variant);
      });
    }

    expect(found, found.join("\n")).toEqual([]);
  }, 240_000);
});
