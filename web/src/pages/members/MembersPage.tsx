/**
 * Organisation settings → Members: everyone sees the list; owners invite people (who join when they accept),
 * see and revoke pending invitations, change roles and remove members. What the service would refuse (the last
 * owner demoted or removed) is disabled, with the reason beside it; confirmations clear themselves.
 */
import { type FormEvent, useEffect, useState } from "react";
import { isApiError } from "../../api/errors";
import {
  useChangeRole,
  useInvitations,
  useInvite,
  useMembers,
  useRemoveMember,
  useRevokeInvitation,
} from "../../api/members";
import type { Member, Role } from "../../api/types";
import { hasRole, useOrganisation } from "../../auth/organisation-context";
import { ConfirmDialog } from "../../components/ConfirmDialog";
import { EmptyState } from "../../components/EmptyState";
import { ErrorState, InlineError } from "../../components/ErrorState";
import { Loading } from "../../components/Loading";
import { formatDateTime } from "../../lib/format";
import { useTransient } from "../../lib/use-transient";

const ROLES: readonly Role[] = ["member", "admin", "owner"];

function InviteForm() {
  const invite = useInvite();
  const [email, setEmail] = useState("");
  const [role, setRole] = useState<Role>("member");
  // The confirmation clears itself; each invitation sent shows it again.
  const [sent, showSent] = useTransient<string>();
  useEffect(() => {
    if (invite.data !== undefined) {
      showSent(`Invitation sent to ${invite.data.email}: they join as ${invite.data.role} once they accept.`);
    }
  }, [invite.data, showSent]);
  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    invite.mutate({ email: email.trim(), role }, { onSuccess: () => setEmail("") });
  }
  return (
    <form className="inline-form" onSubmit={submit} aria-label="Invite a member">
      <label className="field">
        <span>Email</span>
        <input
          type="email"
          value={email}
          onChange={(event) => setEmail(event.target.value)}
          required
          autoComplete="off"
        />
      </label>
      <label className="field">
        <span>Role</span>
        <select value={role} onChange={(event) => setRole(event.target.value as Role)}>
          {ROLES.map((value) => (
            <option key={value} value={value}>
              {value}
            </option>
          ))}
        </select>
      </label>
      <button type="submit" className="button button--primary" disabled={invite.isPending}>
        {invite.isPending ? "Inviting…" : "Invite"}
      </button>
      {/* The daily limit is not a moment's wait: its message says when. */}
      {isApiError(invite.error, 429) ? (
        <p className="inline-error" role="alert">
          {invite.error.message}
        </p>
      ) : (
        <InlineError error={invite.error} />
      )}
      <p role="status" className="inline-form__status">
        {sent ?? ""}
      </p>
    </form>
  );
}

/** Why the service would refuse to demote or remove this member, or null. */
function lastOwnerReason(member: Member, members: readonly Member[]): string | null {
  const owners = members.filter((candidate) => candidate.role === "owner").length;
  return member.role === "owner" && owners === 1 ? "The only owner: make another member an owner first." : null;
}

function PendingInvitations() {
  const { orgId } = useOrganisation();
  const invitations = useInvitations(true);
  const revoke = useRevokeInvitation();
  if (invitations.isPending) return <Loading label="Loading invitations…" />;
  if (invitations.isError) return <ErrorState error={invitations.error} onRetry={() => invitations.refetch()} />;
  if (invitations.data.length === 0) return <p className="muted">No pending invitations.</p>;
  return (
    <div className="table-scroll">
      <table className="table table--cards">
        <caption>Pending invitations to {orgId}</caption>
        <thead>
          <tr>
            <th scope="col">Email</th>
            <th scope="col">Role</th>
            <th scope="col">Invited by</th>
            <th scope="col">Open until</th>
            <th scope="col">Actions</th>
          </tr>
        </thead>
        <tbody>
          {invitations.data.map((invitation) => (
            <tr key={invitation.userId}>
              <th scope="row" data-label="Email">
                {invitation.email}
              </th>
              <td data-label="Role">{invitation.role}</td>
              <td data-label="Invited by">{invitation.invitedBy}</td>
              <td data-label="Open until">{formatDateTime(invitation.expiresAt)}</td>
              <td data-label="Actions">
                <button
                  type="button"
                  className="button button--small button--danger"
                  disabled={revoke.isPending}
                  onClick={() => revoke.mutate(invitation.userId)}
                  aria-label={`Revoke the invitation of ${invitation.email}`}
                >
                  Revoke
                </button>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      <InlineError error={revoke.error} />
    </div>
  );
}

function RoleCell({ member, editable, locked }: { member: Member; editable: boolean; locked: string | null }) {
  const change = useChangeRole();
  if (!editable) return <>{member.role}</>;
  return (
    <>
      <select
        aria-label={`Role of ${member.email}`}
        value={member.role}
        disabled={change.isPending || locked !== null}
        title={locked ?? undefined}
        onChange={(event) => change.mutate({ userId: member.userId, role: event.target.value as Role })}
      >
        {ROLES.map((value) => (
          <option key={value} value={value}>
            {value}
          </option>
        ))}
      </select>
      <InlineError error={change.error} />
    </>
  );
}

export function MembersPage() {
  const { orgId, role, me } = useOrganisation();
  const members = useMembers();
  const remove = useRemoveMember();
  const [removing, setRemoving] = useState<Member | null>(null);
  const isOwner = hasRole(role, "owner");
  const [removed, showRemoved] = useTransient<string>();
  const close = () => {
    remove.reset();
    setRemoving(null);
  };
  return (
    <>
      <div className="page__header">
        <h1>Members</h1>
      </div>
      {isOwner ? (
        <>
          <InviteForm />
          <PendingInvitations />
        </>
      ) : (
        <p className="muted">Only owners of {orgId} invite members, change roles and remove members.</p>
      )}
      <p className="muted status-line" role="status">
        {removed ?? ""}
      </p>
      {members.isPending ? <Loading label="Loading members…" /> : null}
      {members.isError ? <ErrorState error={members.error} onRetry={() => members.refetch()} /> : null}
      {members.data?.length === 0 ? <EmptyState title="No members." /> : null}
      {members.data !== undefined && members.data.length > 0 ? (
        <div className="table-scroll">
          <table className="table table--cards">
            <caption>Members of {orgId}</caption>
            <thead>
              <tr>
                <th scope="col">Email</th>
                <th scope="col">Role</th>
                <th scope="col">Member since</th>
                {isOwner ? <th scope="col">Actions</th> : null}
              </tr>
            </thead>
            <tbody>
              {members.data.map((member) => {
                const locked = lastOwnerReason(member, members.data);
                return (
                  <tr key={member.userId}>
                    <th scope="row" data-label="Email">
                      {member.email}
                      {member.userId === me.userId ? <span className="muted"> (you)</span> : null}
                    </th>
                    <td data-label="Role">
                      <RoleCell member={member} editable={isOwner} locked={locked} />
                    </td>
                    <td data-label="Member since">{formatDateTime(member.createdAt)}</td>
                    {isOwner ? (
                      <td data-label="Actions">
                        <button
                          type="button"
                          className="button button--small button--danger"
                          onClick={() => setRemoving(member)}
                          aria-label={`Remove ${member.email}`}
                          disabled={locked !== null}
                          title={locked ?? undefined}
                        >
                          Remove
                        </button>
                        {locked === null ? null : <p className="muted action-note">{locked}</p>}
                      </td>
                    ) : null}
                  </tr>
                );
              })}
            </tbody>
          </table>
        </div>
      ) : null}
      {removing === null ? null : (
        <ConfirmDialog
          title={`Remove ${removing.email}?`}
          confirmLabel="Remove member"
          onCancel={close}
          onConfirm={() =>
            remove.mutate(removing.userId, {
              onSuccess: () => {
                close();
                showRemoved(`${removing.email} removed.`);
              },
            })
          }
          pending={remove.isPending}
          error={remove.error}
        >
          <p>They lose access to {orgId} at once. You can invite them again later.</p>
        </ConfirmDialog>
      )}
    </>
  );
}
