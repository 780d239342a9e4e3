/** GET /api/me: the signed-in user and the organisations they belong to (the console picks one). */
import { jsonResponse } from "../http/responses.js";
import { signedInRoute } from "../http/user-route.js";
import { listUserMemberships } from "../store/membership-store.js";

export const handler = signedInRoute("GetMe", {}, async ({ caller }) => {
  const memberships = await listUserMemberships(caller.userId);
  return jsonResponse(200, {
    userId: caller.userId,
    // Access tokens carry no email claim: the memberships record it (added by email).
    email: memberships[0]?.email ?? caller.username,
    organisations: memberships
      .map((membership) => ({ orgId: membership.orgId, role: membership.role }))
      .sort((a, b) => a.orgId.localeCompare(b.orgId)),
  });
});
