/** DELETE /api/keys/{id}: revoke a key (idempotent) → 204. */
import { userRoute } from "../http/user-route.js";
import { revokeApiKey } from "../store/keys/api-key-store.js";

export const handler = userRoute("RevokeApiKey", {}, async ({ caller, pathParameters }) => {
  await revokeApiKey(caller.orgId, pathParameters.id ?? "", { name: caller.username, id: caller.userId });
  return { statusCode: 204 };
});
