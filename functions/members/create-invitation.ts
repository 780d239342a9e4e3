/**
 * POST /api/invitations: an owner invites a person by email with a role → 201 with the invitation. The
 * person becomes a member only when they accept it (POST /api/me/invitations/{orgId}/accept). 409 for a
 * member or a person invited already; 429 past the organisation's invitations of the day.
 */
import { userDirectory } from "../directory/user-directory.js";
import { normaliseEmailAddress } from "../domain/email-address.js";
import { jsonResponse } from "../http/responses.js";
import { userRoute } from "../http/user-route.js";
import { createInvitationBody } from "../schemas/member-schemas.js";
import { invitationView } from "./invitation-view.js";
import { invitePerson } from "./invite-person.js";

export const handler = userRoute("CreateInvitation", { body: createInvitationBody }, async ({ caller, body }) => {
  const request = { email: normaliseEmailAddress(body.email), role: body.role };
  const invitation = await invitePerson(caller, request, await userDirectory());
  return jsonResponse(201, invitationView(invitation));
});
