/** DELETE /api/invitations/{userId}: an owner withdraws a pending invitation → 204; none pending → 404. */
import { userRoute } from "../http/user-route.js";
import { revokeInvitation } from "../store/members/invitation-store.js";

export const handler = userRoute("RevokeInvitation", {}, async ({ caller, pathParameters }) => {
  await revokeInvitation(caller.orgId, pathParameters.userId ?? "", { name: caller.username, id: caller.userId });
  return { statusCode: 204 };
});
