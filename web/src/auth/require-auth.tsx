/** Signed-in pages: without tokens, go to sign-in and come back to this very page afterwards. */
import type { ReactNode } from "react";
import { Navigate, useLocation } from "react-router";
import { ErrorState } from "../components/ErrorState";
import { Loading } from "../components/Loading";
import { useAuth } from "./auth-context";

export function RequireAuth({ children }: { children: ReactNode }) {
  const { config, configError, tokens } = useAuth();
  const location = useLocation();
  if (configError !== null) return <ErrorState error={configError} />;
  if (config === undefined) return <Loading label="Loading the console…" />;
  if (tokens === null) {
    const next = `${location.pathname}${location.search}`;
    return <Navigate to={`/sign-in?next=${encodeURIComponent(next)}`} replace />;
  }
  return children;
}

/** Only same-site paths are followed after sign-in (never an absolute URL from a crafted link). */
export function safeReturnPath(value: string | null): string {
  if (value === null || !value.startsWith("/") || value.startsWith("//") || value.startsWith("/\\")) return "/sessions";
  return value;
}
