/**
 * GET /api/me: the signed-in user, the organisations they belong to (the console picks one) and, apart,
 * the invitations waiting for their answer (never an organisation until accepted).
 */
import { jsonResponse } from "../http/responses.js";
import { signedInRoute } from "../http/user-route.js";
import { listUserInvitations } from "../store/members/invitation-store.js";
import { listUserMemberships } from "../store/members/membership-store.js";
import { myInvitationView } from "./invitation-view.js";

export const handler = signedInRoute("GetMe", {}, async ({ caller }) => {
  const [memberships, invitations] = await Promise.all([
    listUserMemberships(caller.userId),
    listUserInvitations(caller.userId),
  ]);
  return jsonResponse(200, {
    userId: caller.userId,
    // Access tokens carry no email claim: memberships and invitations record it (given by email).
    email: memberships[0]?.email ?? invitations[0]?.email ?? caller.username,
    organisations: memberships
      .map((membership) => ({ orgId: membership.orgId, role: membership.role }))
      .sort((a, b) => a.orgId.localeCompare(b.orgId)),
    invitations: invitations.map(myInvitationView),
  });
});
