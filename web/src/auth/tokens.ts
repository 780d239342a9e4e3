/**
 * A signed-in user's tokens, in memory (React state). A local sign-in is also kept for the tab (tab-session.ts);
 * Cognito's are renewed through Cognito's session on a reload, never stored.
 */
export interface TokenSet {
  accessToken: string;
  /** Epoch milliseconds. */
  expiresAt: number;
  refreshToken?: string;
  idToken?: string;
}

/** Refresh this long before the access token expires. */
export const REFRESH_MARGIN_MS = 60_000;
