/**
 * Screenshots of the console's pages in every look it has: light and dark,
 * desktop (1280×800) and phone (390×844), written to
 * `test/e2e/artifacts/<page>-<light|dark>-<desktop|phone>.png` (git-ignored;
 * the docs' pictures are copied from there to docs/screenshots/).
 */
import { mkdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import type { Browser, Page } from "playwright-core";
import { type ColorScheme, type Device, newPage } from "./browser.js";
import { heading, signIn } from "./console.js";

export const ARTIFACTS_DIRECTORY = join(dirname(fileURLToPath(import.meta.url)), "..", "artifacts");

const SCHEMES: readonly ColorScheme[] = ["light", "dark"];
const DEVICES: readonly Device[] = ["desktop", "phone"];

export function artifactPath(page: string, colorScheme: ColorScheme, device: Device): string {
  return join(ARTIFACTS_DIRECTORY, `${page}-${colorScheme}-${device}.png`);
}

export interface Variant {
  readonly colorScheme: ColorScheme;
  readonly device: Device;
}

/**
 * Opens a page in a fresh context for each of the four looks (`open` signs
 * in and brings the page to the state to show), takes a full-page
 * screenshot, and returns the files written. Whatever went wrong in a page
 * (errors, CSP violations) fails the capture.
 */
export async function captureVariants(
  browser: Browser,
  name: string,
  open: (page: Page, variant: Variant) => Promise<void>,
): Promise<string[]> {
  mkdirSync(ARTIFACTS_DIRECTORY, { recursive: true });
  const written: string[] = [];
  for (const colorScheme of SCHEMES) {
    for (const device of DEVICES) {
      const { context, page, problems } = await newPage(browser, { colorScheme, device });
      const path = artifactPath(name, colorScheme, device);
      try {
        await open(page, { colorScheme, device });
        await page.screenshot({ path, fullPage: true, animations: "disabled", caret: "hide" });
        if (problems.length > 0) throw new Error(`${name} (${colorScheme}, ${device}):\n${problems.join("\n")}`);
        written.push(path);
      } catch (error) {
        // What the page showed when it went wrong, beside the screenshots.
        await page.screenshot({ path: path.replace(/\.png$/, "-failed.png"), fullPage: true }).catch(() => undefined);
        throw error;
      } finally {
        await context.close();
      }
    }
  }
  return written;
}

/** One page of the console to photograph in every look: its path, its heading, and what shows it is ready. */
export interface ConsolePage {
  readonly name: string;
  readonly path: string;
  readonly title: string | RegExp;
  readonly ready?: (page: Page) => Promise<void>;
}

/**
 * Photographs `pages` in each of the four looks like {@link captureVariants}, but signed in once per look: one
 * context per look opens the first page through the sign-in, and each next page by its address (a deep link keeps
 * the session), then `check`s it. 4 sign-ins instead of one per page and look (56 at 14 pages). Whatever went wrong
 * in a page (errors, CSP violations) fails the capture, named by its page.
 */
export async function captureSignedInPages(
  browser: Browser,
  baseUrl: string,
  pages: readonly ConsolePage[],
  check: (name: string, page: Page, variant: Variant) => Promise<void>,
): Promise<string[]> {
  mkdirSync(ARTIFACTS_DIRECTORY, { recursive: true });
  const written: string[] = [];
  for (const colorScheme of SCHEMES) {
    for (const device of DEVICES) {
      const { context, page, problems } = await newPage(browser, { colorScheme, device });
      try {
        let signedIn = false;
        for (const { name, path: address, title, ready } of pages) {
          const path = artifactPath(name, colorScheme, device);
          const before = problems.length;
          try {
            await page.goto(`${baseUrl}${address}`);
            if (!signedIn) {
              await signIn(page);
              signedIn = true;
            }
            await heading(page, title).waitFor();
            await ready?.(page);
            await check(name, page, { colorScheme, device });
            await page.screenshot({ path, fullPage: true, animations: "disabled", caret: "hide" });
            const found = problems.slice(before);
            if (found.length > 0) throw new Error(`${name} (${colorScheme}, ${device}):\n${found.join("\n")}`);
            written.push(path);
          } catch (error) {
            await page
              .screenshot({ path: path.replace(/\.png$/, "-failed.png"), fullPage: true })
              .catch(() => undefined);
            throw error;
          }
        }
      } finally {
        await context.close();
      }
    }
  }
  return written;
}
