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
