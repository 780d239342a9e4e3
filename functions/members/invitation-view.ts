/** How an invitation is shown: to the organisation's owners, and to the invited person. */
import type { Invitation } from "../domain/invitation.js";

/** For the organisation's owners (GET/POST /api/invitations): who, which role, by whom, until when. */
export function invitationView(invitation: Invitation) {
  return {
    userId: invitation.userId,
    email: invitation.email,
    role: invitation.role,
    invitedBy: invitation.invitedBy,
    createdAt: invitation.createdAt,
    expiresAt: invitation.expiresAt,
  };
}

/** For the invited person (GET /api/me): which organisation, which role, by whom, until when. */
export function myInvitationView(invitation: Invitation) {
  return {
    orgId: invitation.orgId,
    role: invitation.role,
    invitedBy: invitation.invitedBy,
    createdAt: invitation.createdAt,
    expiresAt: invitation.expiresAt,
  };
}
