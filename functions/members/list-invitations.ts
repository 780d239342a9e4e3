/** GET /api/invitations: the organisation's pending invitations, oldest first (owners). */
import { jsonResponse } from "../http/responses.js";
import { userRoute } from "../http/user-route.js";
import { listOrganisationInvitations } from "../store/members/invitation-store.js";
import { invitationView } from "./invitation-view.js";

export const handler = userRoute("ListInvitations", {}, async ({ caller }) => {
  const invitations = await listOrganisationInvitations(caller.orgId);
  return jsonResponse(200, { items: invitations.map(invitationView) });
});
