/**
 * DELETE /api/members/{userId}: an owner removes a member → 204; never the last owner (409). The
 * user stays in the user directory (they may belong to other organisations).
 */
import { userRoute } from "../http/user-route.js";
import { removeMember } from "../store/members/membership-store.js";

export const handler = userRoute("RemoveMember", {}, async ({ caller, pathParameters }) => {
  await removeMember(caller.orgId, pathParameters.userId ?? "", { name: caller.username, id: caller.userId });
  return { statusCode: 204 };
});
