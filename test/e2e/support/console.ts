/**
 * Moving through the console as a person does: by the roles and names on
 * the screen (Playwright locators), never by CSS paths.
 */
import type { Locator, Page } from "playwright-core";
import { DEV_USER_EMAIL } from "../../../local/dev-organisation.js";
import type { Stack } from "./stack.js";

export const PAGES = [
  "Overview",
  "Sessions",
  "Conversations",
  "Agents",
  "Alerts",
  "Models and prices",
  "Score configurations",
  "API keys",
  "Members",
] as const;
export type PageName = (typeof PAGES)[number];

/** The page's main heading. */
export function heading(page: Page, name: string | RegExp): Locator {
  return page.getByRole("heading", { level: 1, name });
}

/** Signs in on the sign-in page the console shows when nobody is signed in. */
export async function signIn(page: Page, email: string = DEV_USER_EMAIL): Promise<void> {
  await heading(page, "Sign in to Agent Tracking").waitFor();
  await page.getByRole("button", { name: `Sign in as ${email}` }).click();
  await heading(page, "Sign in to Agent Tracking").waitFor({ state: "detached" });
}

/** Opens `path` of the console in a fresh page, signs in (the console returns to `path`) and waits for `expected`. */
export async function openSignedIn(page: Page, stack: Stack, path: string, expected: string | RegExp): Promise<void> {
  await page.goto(`${stack.url}${path}`);
  await signIn(page);
  await heading(page, expected).waitFor();
}

/** The link to a page in the main navigation (behind the Menu button on a phone). */
export async function navigateTo(page: Page, name: PageName): Promise<void> {
  const navigation = page.getByRole("navigation", { name: "Main" });
  const link = navigation.getByRole("link", { name, exact: true });
  await navigation.waitFor({ state: "attached" });
  if (!(await link.isVisible())) await page.getByRole("button", { name: "Menu" }).click();
  await link.click();
  await heading(page, name).waitFor();
}
