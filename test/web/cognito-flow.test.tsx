// @vitest-environment jsdom
/** The Cognito hosted-UI flow's client side: PKCE S256, state, the code exchange and refresh, sign-out. */
import { afterEach, describe, expect, test, vi } from "vitest";
import {
  cognitoLogoutUrl,
  completeCognitoSignIn,
  refreshCognitoTokens,
  startCognitoSignIn,
} from "../../web/src/auth/cognito";
import type { CognitoAuthConfig } from "../../web/src/auth/config";
import { s256Challenge } from "../../web/src/auth/pkce";

const config = {
  kind: "cognito",
  domain: "https://ats-test.auth.eu-west-1.amazoncognito.com",
  clientId: "client-123",
  redirectUri: "https://console.example/auth/callback",
  logoutUri: "https://console.example/",
} as CognitoAuthConfig;

afterEach(() => {
  vi.unstubAllGlobals();
  vi.restoreAllMocks();
  sessionStorage.clear();
});

async function startAndCapture(returnTo: string): Promise<URL> {
  const assign = vi.fn();
  vi.stubGlobal("location", { ...window.location, assign });
  await startCognitoSignIn(config, returnTo);
  return new URL(String(assign.mock.calls[0]?.[0]));
}

describe("Cognito sign-in", () => {
  test("RFC 7636's S256 example (Appendix B)", async () => {
    expect(await s256Challenge("dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk")).toBe(
      "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM",
    );
  });

  test("redirects to the hosted UI with a code request, S256 challenge of a kept verifier, and state", async () => {
    const url = await startAndCapture("/sessions?agentName=bot");
    expect(url.origin + url.pathname).toBe(`${config.domain}/oauth2/authorize`);
    const params = url.searchParams;
    expect(params.get("response_type")).toBe("code");
    expect(params.get("client_id")).toBe("client-123");
    expect(params.get("redirect_uri")).toBe(config.redirectUri);
    expect(params.get("scope")).toBe("openid email profile");
    expect(params.get("code_challenge_method")).toBe("S256");
    const pending = JSON.parse(sessionStorage.getItem("ats.oauth.pending") ?? "{}") as {
      state: string;
      verifier: string;
    };
    expect(params.get("state")).toBe(pending.state);
    expect(params.get("code_challenge")).toBe(await s256Challenge(pending.verifier));
    expect(pending.verifier.length).toBeGreaterThanOrEqual(43);
  });

  test("the callback exchanges the code with the verifier and returns to the page asked for; the state must match", async () => {
    const url = await startAndCapture("/agents");
    const pending = JSON.parse(sessionStorage.getItem("ats.oauth.pending") ?? "{}") as {
      state: string;
      verifier: string;
    };
    const fetchMock = vi.fn(async () =>
      Response.json({ access_token: "at-1", expires_in: 3600, refresh_token: "rt-1" }),
    );
    vi.stubGlobal("fetch", fetchMock);
    const { tokens, returnTo } = await completeCognitoSignIn(
      config,
      new URLSearchParams({ code: "the-code", state: url.searchParams.get("state") ?? "" }),
    );
    expect(returnTo).toBe("/agents");
    expect(tokens).toMatchObject({ accessToken: "at-1", refreshToken: "rt-1" });
    const [endpoint, init] = fetchMock.mock.calls[0] as unknown as [string, RequestInit];
    expect(endpoint).toBe(`${config.domain}/oauth2/token`);
    expect(Object.fromEntries(new URLSearchParams(String(init.body)))).toEqual({
      client_id: "client-123",
      grant_type: "authorization_code",
      code: "the-code",
      redirect_uri: config.redirectUri,
      code_verifier: pending.verifier,
    });
    // The pending sign-in is used once: replaying the callback fails.
    await expect(
      completeCognitoSignIn(config, new URLSearchParams({ code: "the-code", state: pending.state })),
    ).rejects.toThrow(/not valid any more/);
  });

  test("a forged state or an error from the identity provider is refused without a token request", async () => {
    await startAndCapture("/");
    const fetchMock = vi.fn();
    vi.stubGlobal("fetch", fetchMock);
    await expect(completeCognitoSignIn(config, new URLSearchParams({ code: "c", state: "forged" }))).rejects.toThrow(
      /not valid any more/,
    );
    await expect(
      completeCognitoSignIn(
        config,
        new URLSearchParams({ error: "access_denied", error_description: "User cancelled" }),
      ),
    ).rejects.toThrow(/User cancelled/);
    expect(fetchMock).not.toHaveBeenCalled();
  });

  test("refresh keeps the refresh token Cognito does not return again; sign-out goes through /logout", async () => {
    vi.stubGlobal(
      "fetch",
      vi.fn(async () => Response.json({ access_token: "at-2", expires_in: 3600 })),
    );
    const tokens = await refreshCognitoTokens(config, "rt-1");
    expect(tokens).toMatchObject({ accessToken: "at-2", refreshToken: "rt-1" });
    expect(tokens.expiresAt).toBeGreaterThan(Date.now() + 3_000_000);
    const logout = new URL(cognitoLogoutUrl(config));
    expect(logout.pathname).toBe("/logout");
    expect(logout.searchParams.get("client_id")).toBe("client-123");
    expect(logout.searchParams.get("logout_uri")).toBe(config.logoutUri);
  });
});
