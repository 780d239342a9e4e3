/** POST /api/me/invitations/{orgId}/decline: the signed-in user declines their invitation → 204; none pending → 404. */
import { signedInRoute } from "../http/user-route.js";
import { declineInvitation } from "../store/members/invitation-store.js";

export const handler = signedInRoute("DeclineInvitation", {}, async ({ caller, pathParameters }) => {
  await declineInvitation(caller.userId, pathParameters.orgId ?? "");
  return { statusCode: 204 };
});
