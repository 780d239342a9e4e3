/** PATCH /api/members/{userId}: an owner changes a member's role → 200; never the last owner's (409). */
import { jsonResponse } from "../http/responses.js";
import { userRoute } from "../http/user-route.js";
import { updateMemberBody } from "../schemas/member-schemas.js";
import { changeMemberRole } from "../store/members/membership-store.js";
import { memberView } from "./member-view.js";

export const handler = userRoute(
  "UpdateMember",
  { body: updateMemberBody },
  async ({ caller, body, pathParameters }) => {
    const membership = await changeMemberRole(caller.orgId, pathParameters.userId ?? "", body.role, {
      name: caller.username,
      id: caller.userId,
    });
    return jsonResponse(200, memberView(membership));
  },
);
