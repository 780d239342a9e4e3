/**
 * Who is signed in: the console configuration, the tokens and the sign-in notice. Tokens live in memory; a local
 * sign-in is also kept for the tab (tab-session.ts), so a reload keeps it.
 */
import { useQuery, useQueryClient } from "@tanstack/react-query";
import { createContext, type ReactNode, useCallback, useContext, useEffect, useMemo, useState } from "react";
import { cognitoLogoutUrl, refreshCognitoTokens } from "./cognito";
import { type AuthConfig, fetchConsoleConfig } from "./config";
import { forgetLocalSession, rememberLocalSession, restoreLocalSession } from "./tab-session";
import { REFRESH_MARGIN_MS, type TokenSet } from "./tokens";

export interface AuthState {
  config: AuthConfig | undefined;
  configError: Error | null;
  tokens: TokenSet | null;
  /** Why the user is asked to sign in (e.g. their session expired). */
  notice: string | null;
  /** `keepForTab`: a local sign-in, kept across reloads of this tab. */
  signIn: (tokens: TokenSet, options?: { keepForTab?: boolean }) => void;
  signOut: () => void;
  /** The API refused the token: forget it and ask for a new sign-in, keeping the page. */
  expire: (message?: string) => void;
}

const AuthContext = createContext<AuthState | null>(null);

export const EXPIRED_NOTICE = "Your session has expired. Sign in again to continue where you were.";

export function AuthProvider({
  children,
  initialTokens = null,
}: {
  children: ReactNode;
  initialTokens?: TokenSet | null;
}) {
  const queryClient = useQueryClient();
  const configQuery = useQuery({ queryKey: ["console-config"], queryFn: fetchConsoleConfig, staleTime: Infinity });
  const [tokens, setTokens] = useState<TokenSet | null>(() => initialTokens ?? restoreLocalSession());
  const [notice, setNotice] = useState<string | null>(null);
  const config = configQuery.data?.auth;

  const signIn = useCallback((next: TokenSet, options: { keepForTab?: boolean } = {}) => {
    if (options.keepForTab === true) rememberLocalSession(next);
    setNotice(null);
    setTokens(next);
  }, []);

  const expire = useCallback(
    (message: string = EXPIRED_NOTICE) => {
      forgetLocalSession();
      setTokens(null);
      setNotice(message);
      queryClient.removeQueries({ predicate: (query) => query.queryKey[0] !== "console-config" });
    },
    [queryClient],
  );

  // A local session kept for the tab means nothing to a deployment that signs in through Cognito.
  useEffect(() => {
    if (config?.kind === "cognito" && initialTokens === null && restoreLocalSession() !== null) {
      forgetLocalSession();
      setTokens(null);
    }
  }, [config, initialTokens]);

  const signOut = useCallback(() => {
    forgetLocalSession();
    setTokens(null);
    setNotice(null);
    queryClient.removeQueries({ predicate: (query) => query.queryKey[0] !== "console-config" });
    if (config?.kind === "cognito") window.location.assign(cognitoLogoutUrl(config));
  }, [config, queryClient]);

  // Cognito: refresh the access token shortly before it expires.
  useEffect(() => {
    if (config?.kind !== "cognito" || tokens?.refreshToken === undefined) return;
    const refreshToken = tokens.refreshToken;
    const delay = Math.max(0, tokens.expiresAt - Date.now() - REFRESH_MARGIN_MS);
    const timer = window.setTimeout(() => {
      refreshCognitoTokens(config, refreshToken).then(setTokens, () => expire());
    }, delay);
    return () => window.clearTimeout(timer);
  }, [config, tokens, expire]);

  const value = useMemo<AuthState>(
    () => ({ config, configError: configQuery.error, tokens, notice, signIn, signOut, expire }),
    [config, configQuery.error, tokens, notice, signIn, signOut, expire],
  );
  return <AuthContext value={value}>{children}</AuthContext>;
}

export function useAuth(): AuthState {
  const value = useContext(AuthContext);
  if (value === null) throw new Error("useAuth needs an AuthProvider");
  return value;
}
