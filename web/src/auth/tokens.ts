/** A signed-in user's tokens. They live in memory only (React state): a reload signs in again. */
export interface TokenSet {
  accessToken: string;
  /** Epoch milliseconds. */
  expiresAt: number;
  refreshToken?: string;
  idToken?: string;
}

/** Refresh this long before the access token expires. */
export const REFRESH_MARGIN_MS = 60_000;
