/**
 * The signed-in user's pending invitations, each with Accept and Decline. Shown above every page (and on
 * the "no organisation" page): accepting is the only way into another organisation, and the console then
 * acts for the organisation just accepted, the user's own choice.
 */
import { useAnswerInvitation, useMe } from "../../api/me";
import type { MyInvitation } from "../../api/types";
import { rememberOrganisation, useOptionalOrganisation } from "../../auth/organisation-context";
import { InlineError } from "../../components/ErrorState";
import { formatDateTime } from "../../lib/format";

function InvitationItem({ invitation }: { invitation: MyInvitation }) {
  const answer = useAnswerInvitation();
  const organisation = useOptionalOrganisation();
  const { orgId } = invitation;
  function respond(choice: "accept" | "decline") {
    const accepted = choice === "accept";
    answer.mutate(
      {
        orgId,
        answer: choice,
        // Outside an organisation (none yet, or none chosen): remembered before /api/me lists the new one.
        ...(accepted && organisation === null ? { beforeRefresh: () => rememberOrganisation(orgId) } : {}),
      },
      // Inside one: switched once /api/me lists the new one.
      { onSuccess: () => (accepted && organisation !== null ? organisation.setOrgId(orgId) : undefined) },
    );
  }
  return (
    <li>
      <p>
        <strong>{orgId}</strong> invites you as <strong>{invitation.role}</strong>{" "}
        <span className="muted">
          (invited by {invitation.invitedBy}; open until {formatDateTime(invitation.expiresAt)})
        </span>
      </p>
      <div className="actions">
        <button
          type="button"
          className="button button--primary button--small"
          disabled={answer.isPending}
          onClick={() => respond("accept")}
          aria-label={`Accept the invitation to ${orgId}`}
        >
          Accept
        </button>
        <button
          type="button"
          className="button button--small"
          disabled={answer.isPending}
          onClick={() => respond("decline")}
          aria-label={`Decline the invitation to ${orgId}`}
        >
          Decline
        </button>
      </div>
      <InlineError error={answer.error} />
    </li>
  );
}

export function InvitationsPrompt() {
  const me = useMe();
  const invitations = me.data?.invitations ?? [];
  if (invitations.length === 0) return null;
  return (
    <aside className="notice" aria-label="Your invitations">
      <p>
        {invitations.length === 1
          ? "You have been invited to an organisation."
          : `You have been invited to ${invitations.length} organisations.`}{" "}
        You join only if you accept.
      </p>
      <ul className="user-list">
        {invitations.map((invitation) => (
          <InvitationItem key={invitation.orgId} invitation={invitation} />
        ))}
      </ul>
    </aside>
  );
}
