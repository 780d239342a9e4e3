/**
 * POST /api/members: an owner adds a person by email with a role. The user is
 * found or created in the user directory (on AWS Cognito emails the
 * invitation), then the membership and its audit item are written → 201;
 * a member already → 409.
 */
import { userDirectory } from "../directory/user-directory.js";
import { jsonResponse } from "../http/responses.js";
import { userRoute } from "../http/user-route.js";
import { addMemberBody } from "../schemas/member-schemas.js";
import { addMember } from "../store/membership-store.js";
import { memberView } from "./member-view.js";

export const handler = userRoute("AddMember", { body: addMemberBody }, async ({ caller, body }) => {
  const directory = await userDirectory();
  const user = await directory.ensureUser(body.email.toLowerCase());
  const membership = await addMember(
    { orgId: caller.orgId, userId: user.userId, email: user.email, role: body.role },
    { name: caller.username, id: caller.userId },
  );
  return jsonResponse(201, memberView(membership));
});
