/**
 * Cognito hosted UI: authorization code + PKCE for a public client. Only the PKCE verifier, the state and the page
 * to return to cross the redirect (sessionStorage); tokens stay in memory.
 */
import type { CognitoAuthConfig } from "./config";
import { randomString, s256Challenge } from "./pkce";
import type { TokenSet } from "./tokens";

const PENDING_KEY = "ats.oauth.pending";
const SCOPES = "openid email profile";

interface PendingSignIn {
  state: string;
  verifier: string;
  returnTo: string;
}

export async function startCognitoSignIn(config: CognitoAuthConfig, returnTo: string): Promise<void> {
  const pending: PendingSignIn = { state: randomString(16), verifier: randomString(48), returnTo };
  sessionStorage.setItem(PENDING_KEY, JSON.stringify(pending));
  const url = new URL(`${config.domain}/oauth2/authorize`);
  url.search = new URLSearchParams({
    response_type: "code",
    client_id: config.clientId,
    redirect_uri: config.redirectUri,
    scope: SCOPES,
    state: pending.state,
    code_challenge_method: "S256",
    code_challenge: await s256Challenge(pending.verifier),
  }).toString();
  window.location.assign(url.toString());
}

interface TokenResponse {
  access_token: string;
  expires_in: number;
  refresh_token?: string;
  id_token?: string;
}

async function tokenRequest(config: CognitoAuthConfig, form: Record<string, string>): Promise<TokenSet> {
  const response = await fetch(`${config.domain}/oauth2/token`, {
    method: "POST",
    headers: { "Content-Type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ client_id: config.clientId, ...form }).toString(),
  });
  if (!response.ok) throw new Error(`Sign-in failed: the identity provider answered ${response.status}.`);
  const body = (await response.json()) as TokenResponse;
  const tokens: TokenSet = { accessToken: body.access_token, expiresAt: Date.now() + body.expires_in * 1000 };
  if (body.refresh_token !== undefined) tokens.refreshToken = body.refresh_token;
  if (body.id_token !== undefined) tokens.idToken = body.id_token;
  return tokens;
}

/** Exchanges the callback's code; returns the tokens and the page the user was on. */
export async function completeCognitoSignIn(
  config: CognitoAuthConfig,
  params: URLSearchParams,
): Promise<{ tokens: TokenSet; returnTo: string }> {
  const raw = sessionStorage.getItem(PENDING_KEY);
  sessionStorage.removeItem(PENDING_KEY);
  const error = params.get("error");
  if (error !== null) throw new Error(`Sign-in failed: ${params.get("error_description") ?? error}.`);
  const pending = raw === null ? null : (JSON.parse(raw) as PendingSignIn);
  const code = params.get("code");
  if (pending === null || code === null || params.get("state") !== pending.state) {
    throw new Error("This sign-in link is not valid any more. Sign in again.");
  }
  const tokens = await tokenRequest(config, {
    grant_type: "authorization_code",
    code,
    redirect_uri: config.redirectUri,
    code_verifier: pending.verifier,
  });
  return { tokens, returnTo: pending.returnTo };
}

export async function refreshCognitoTokens(config: CognitoAuthConfig, refreshToken: string): Promise<TokenSet> {
  const tokens = await tokenRequest(config, { grant_type: "refresh_token", refresh_token: refreshToken });
  // Cognito does not return a new refresh token on refresh: keep the one we have.
  return { ...tokens, refreshToken: tokens.refreshToken ?? refreshToken };
}

export function cognitoLogoutUrl(config: CognitoAuthConfig): string {
  const url = new URL(`${config.domain}/logout`);
  url.search = new URLSearchParams({ client_id: config.clientId, logout_uri: config.logoutUri }).toString();
  return url.toString();
}
