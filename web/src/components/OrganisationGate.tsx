/**
 * Loads /api/me and provides the organisation the user chose to everything inside. A user of no
 * organisation sees their invitations (if any); a user of several who has not chosen one yet chooses.
 */
import type { ReactNode } from "react";
import { useMe } from "../api/me";
import type { Me } from "../api/types";
import { OrganisationProvider } from "../auth/organisation-context";
import { InvitationsPrompt } from "../pages/members/InvitationsPrompt";
import { EmptyState } from "./EmptyState";
import { ErrorState } from "./ErrorState";
import { Loading } from "./Loading";

function ChooseOrganisation({ me, choose }: { me: Me; choose: (orgId: string) => void }) {
  return (
    <main id="main" className="page">
      <h1>Choose an organisation</h1>
      <p>{me.email} belongs to several organisations. Which one do you want to work in? You can switch later.</p>
      <ul className="user-list">
        {me.organisations.map((org) => (
          <li key={org.orgId}>
            <button type="button" className="button button--wide" onClick={() => choose(org.orgId)}>
              {org.orgId} ({org.role})
            </button>
          </li>
        ))}
      </ul>
      <InvitationsPrompt />
    </main>
  );
}

export function OrganisationGate({ children }: { children: ReactNode }) {
  const me = useMe();
  if (me.isPending) return <Loading label="Loading your organisations…" />;
  if (me.isError) return <ErrorState error={me.error} onRetry={() => me.refetch()} />;
  if (me.data.organisations.length === 0) {
    return (
      <main id="main" className="page">
        <h1>No organisation</h1>
        <InvitationsPrompt />
        {(me.data.invitations ?? []).length === 0 ? (
          <EmptyState title={`${me.data.email} is not a member of any organisation yet.`}>
            Ask an owner of your organisation to invite you.
          </EmptyState>
        ) : null}
      </main>
    );
  }
  return (
    <OrganisationProvider me={me.data} chooser={(choose) => <ChooseOrganisation me={me.data} choose={choose} />}>
      {children}
    </OrganisationProvider>
  );
}
