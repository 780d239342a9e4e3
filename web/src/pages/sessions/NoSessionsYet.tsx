/**
 * An environment without sessions, and how to record the first: with a key of that environment. `npm run demo`
 * writes to live with the local dev key, so it is suggested only for live, and only on `npm start`.
 */
import { Link } from "react-router";
import type { Environment } from "../../api/types";
import { useAuth } from "../../auth/auth-context";
import { EmptyState } from "../../components/EmptyState";
import { withEnvironment } from "../../lib/environment";

export function NoSessionsYet({ environment }: { environment: Environment }) {
  const { config } = useAuth();
  const keys = <Link to={withEnvironment("/settings/keys", environment)}>API keys</Link>;
  return (
    <EmptyState title={`No sessions in ${environment} yet.`}>
      {environment === "test" ? (
        <p>
          Sessions land here when an agent records with a test key (<code>ats_test_…</code>): create one under {keys}{" "}
          with the environment “Test”, and give it to the SDK or to your OpenTelemetry exporter.
        </p>
      ) : (
        <p>
          Record one with the SDK or OpenTelemetry and a live key from {keys}
          {config?.kind === "local" ? (
            <>
              , or fill this local server with sample runs: <code>npm run demo</code>
            </>
          ) : null}
          .
        </p>
      )}
    </EmptyState>
  );
}
