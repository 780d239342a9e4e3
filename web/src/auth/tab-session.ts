/**
 * The local sign-in kept for the tab (`npm start` only): its access token in sessionStorage, so a reload keeps the
 * session; another tab, or the browser closed, signs in again. Cognito's tokens are never stored: a reload renews
 * them through Cognito's own session (require-auth.tsx).
 */
import type { TokenSet } from "./tokens";

const KEY = "ats.local.session";
/** A token this close to its expiry is not restored (the first request would fail with 401). */
const RESTORE_MARGIN_MS = 30_000;

export function rememberLocalSession(tokens: TokenSet): void {
  try {
    sessionStorage.setItem(KEY, JSON.stringify({ accessToken: tokens.accessToken, expiresAt: tokens.expiresAt }));
  } catch {
    // Storage refused (private mode, quota): the session lasts for this page only.
  }
}

export function forgetLocalSession(): void {
  try {
    sessionStorage.removeItem(KEY);
  } catch {
    // Nothing was stored.
  }
}

/** The tab's local session, when there is one that has not expired. */
export function restoreLocalSession(now = Date.now()): TokenSet | null {
  let raw: string | null = null;
  try {
    raw = sessionStorage.getItem(KEY);
  } catch {
    return null;
  }
  if (raw === null) return null;
  try {
    const value = JSON.parse(raw) as { accessToken?: unknown; expiresAt?: unknown };
    if (typeof value.accessToken === "string" && typeof value.expiresAt === "number") {
      if (value.expiresAt - RESTORE_MARGIN_MS > now)
        return { accessToken: value.accessToken, expiresAt: value.expiresAt };
    }
  } catch {
    // Not ours, or damaged: forgotten below.
  }
  forgetLocalSession();
  return null;
}
