/**
 * POST /api/me/invitations/{orgId}/accept: the signed-in user accepts their invitation → 201 with the
 * membership it became `{ orgId, role, createdAt }`; none pending (or expired) → 404; a member already → 409.
 */
import { jsonResponse } from "../http/responses.js";
import { signedInRoute } from "../http/user-route.js";
import { acceptInvitation } from "../store/members/invitation-store.js";

export const handler = signedInRoute("AcceptInvitation", {}, async ({ caller, pathParameters }) => {
  const membership = await acceptInvitation(caller.userId, pathParameters.orgId ?? "");
  return jsonResponse(201, { orgId: membership.orgId, role: membership.role, createdAt: membership.createdAt });
});
