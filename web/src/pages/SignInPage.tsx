/** Sign in: pick a local user (npm start), or go through the Cognito hosted UI (AWS). */
import { useMutation, useQuery } from "@tanstack/react-query";
import { useEffect } from "react";
import { Navigate, useNavigate, useSearchParams } from "react-router";
import { useAuth } from "../auth/auth-context";
import { startCognitoSignIn } from "../auth/cognito";
import { listLocalUsers, localSignIn } from "../auth/local";
import { safeReturnPath } from "../auth/require-auth";
import { EmptyState } from "../components/EmptyState";
import { ErrorState, InlineError } from "../components/ErrorState";
import { Loading } from "../components/Loading";

function LocalSignIn({ returnTo }: { returnTo: string }) {
  const { signIn } = useAuth();
  const navigate = useNavigate();
  const users = useQuery({ queryKey: ["local-users"], queryFn: listLocalUsers });
  const mutation = useMutation({
    mutationFn: localSignIn,
    onSuccess: (tokens) => {
      signIn(tokens, { keepForTab: true });
      navigate(returnTo, { replace: true });
    },
  });
  if (users.isPending) return <Loading label="Loading the local users…" />;
  if (users.isError) return <ErrorState error={users.error} onRetry={() => users.refetch()} />;
  if (users.data.length === 0) {
    return (
      <EmptyState title="No local users yet">
        Create one with <code>npm run -s users -- token --email you@example.com --org dev</code>, then reload.
      </EmptyState>
    );
  }
  return (
    <>
      <p>This is the local development server: choose who to sign in as.</p>
      <ul className="user-list">
        {users.data.map((user) => (
          <li key={user.userId}>
            <button
              type="button"
              className="button button--wide"
              onClick={() => mutation.mutate(user.email)}
              disabled={mutation.isPending}
            >
              Sign in as {user.email}
            </button>
          </li>
        ))}
      </ul>
      <InlineError error={mutation.error} />
    </>
  );
}

function CognitoSignIn({ returnTo, automatic }: { returnTo: string; automatic: boolean }) {
  const { config } = useAuth();
  useEffect(() => {
    if (automatic && config?.kind === "cognito") void startCognitoSignIn(config, returnTo);
  }, [automatic, config, returnTo]);
  if (config?.kind !== "cognito") return null;
  return (
    <button type="button" className="button button--primary" onClick={() => void startCognitoSignIn(config, returnTo)}>
      Sign in
    </button>
  );
}

export function SignInPage() {
  const { config, configError, tokens, notice } = useAuth();
  const [params] = useSearchParams();
  const returnTo = safeReturnPath(params.get("next"));
  if (tokens !== null) return <Navigate to={returnTo} replace />;
  return (
    <main id="main" className="sign-in" tabIndex={-1}>
      <div className="sign-in__panel">
        <h1>Sign in to Agent Tracking</h1>
        {notice === null ? null : (
          <p className="notice" role="alert">
            {notice}
          </p>
        )}
        {configError !== null ? <ErrorState error={configError} /> : null}
        {config === undefined && configError === null ? <Loading /> : null}
        {config?.kind === "local" ? <LocalSignIn returnTo={returnTo} /> : null}
        {config?.kind === "cognito" ? <CognitoSignIn returnTo={returnTo} automatic={notice === null} /> : null}
      </div>
    </main>
  );
}
