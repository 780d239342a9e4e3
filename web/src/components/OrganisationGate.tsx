/** Loads /api/me and provides the chosen organisation to everything inside. */
import type { ReactNode } from "react";
import { useMe } from "../api/me";
import { OrganisationProvider } from "../auth/organisation-context";
import { EmptyState } from "./EmptyState";
import { ErrorState } from "./ErrorState";
import { Loading } from "./Loading";

export function OrganisationGate({ children }: { children: ReactNode }) {
  const me = useMe();
  if (me.isPending) return <Loading label="Loading your organisations…" />;
  if (me.isError) return <ErrorState error={me.error} onRetry={() => me.refetch()} />;
  if (me.data.organisations.length === 0) {
    return (
      <main id="main" className="page">
        <h1>No organisation</h1>
        <EmptyState title={`${me.data.email} is not a member of any organisation yet.`}>
          Ask an owner of your organisation to add you as a member.
        </EmptyState>
      </main>
    );
  }
  return <OrganisationProvider me={me.data}>{children}</OrganisationProvider>;
}
