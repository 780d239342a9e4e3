/**
 * Signed-in pages. Without tokens: on AWS (Cognito), renew them silently through Cognito's own session (a redirect
 * that comes straight back while that session lasts, to this very page); locally, or after the session expired,
 * the sign-in page, which comes back to this very page afterwards.
 */
import { type ReactNode, useEffect } from "react";
import { Navigate, useLocation } from "react-router";
import { ErrorState } from "../components/ErrorState";
import { Loading } from "../components/Loading";
import { useAuth } from "./auth-context";
import { startCognitoSignIn } from "./cognito";

export function RequireAuth({ children }: { children: ReactNode }) {
  const { config, configError, tokens, notice } = useAuth();
  const location = useLocation();
  const next = `${location.pathname}${location.search}`;
  const renewThroughCognito = config?.kind === "cognito" && tokens === null && notice === null;
  useEffect(() => {
    if (renewThroughCognito && config?.kind === "cognito") void startCognitoSignIn(config, next);
  }, [renewThroughCognito, config, next]);
  if (configError !== null) return <ErrorState error={configError} />;
  if (config === undefined) return <Loading label="Loading the console…" />;
  if (renewThroughCognito) return <Loading label="Signing you in…" />;
  if (tokens === null) return <Navigate to={`/sign-in?next=${encodeURIComponent(next)}`} replace />;
  return children;
}

/** Only same-site paths are followed after sign-in (never an absolute URL from a crafted link). */
export function safeReturnPath(value: string | null): string {
  if (value === null || !value.startsWith("/") || value.startsWith("//") || value.startsWith("/\\")) return "/";
  return value;
}
