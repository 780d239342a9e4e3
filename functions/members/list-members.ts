/** GET /api/members: the organisation's members (any member). */
import { jsonResponse } from "../http/responses.js";
import { userRoute } from "../http/user-route.js";
import { listMembers } from "../store/members/membership-store.js";
import { memberView } from "./member-view.js";

export const handler = userRoute("ListMembers", {}, async ({ caller }) => {
  const members = await listMembers(caller.orgId);
  return jsonResponse(200, { items: members.map(memberView) });
});
