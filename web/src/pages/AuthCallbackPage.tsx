/** /auth/callback: the hosted UI sends the user back here with a code; exchange it and go back to their page. */
import { useEffect, useRef, useState } from "react";
import { Link, useNavigate } from "react-router";
import { useAuth } from "../auth/auth-context";
import { completeCognitoSignIn } from "../auth/cognito";
import { safeReturnPath } from "../auth/require-auth";
import { Loading } from "../components/Loading";

export function AuthCallbackPage() {
  const { config, signIn } = useAuth();
  const navigate = useNavigate();
  const [error, setError] = useState<string | null>(null);
  const started = useRef(false);
  useEffect(() => {
    if (config?.kind !== "cognito" || started.current) return;
    started.current = true;
    completeCognitoSignIn(config, new URLSearchParams(window.location.search)).then(
      ({ tokens, returnTo }) => {
        signIn(tokens);
        navigate(safeReturnPath(returnTo), { replace: true });
      },
      (cause: unknown) => setError(cause instanceof Error ? cause.message : String(cause)),
    );
  }, [config, navigate, signIn]);
  return (
    <main id="main" className="sign-in" tabIndex={-1}>
      <div className="sign-in__panel">
        <h1>Signing in</h1>
        {error === null ? (
          <Loading label="Completing the sign-in…" />
        ) : (
          <>
            <p role="alert">{error}</p>
            <Link to="/sign-in">Sign in again</Link>
          </>
        )}
      </div>
    </main>
  );
}
