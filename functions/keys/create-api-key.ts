/** POST /api/keys: an owner or admin creates a key; this response is the only time it is shown. */
import { DEFAULT_SCOPES } from "../domain/scopes.js";
import { jsonResponse } from "../http/responses.js";
import { userRoute } from "../http/user-route.js";
import { createApiKeyBody } from "../schemas/api-key-schemas.js";
import { createApiKey } from "../store/keys/api-key-store.js";
import { createdKeyView } from "./api-key-view.js";

export const handler = userRoute("CreateApiKey", { body: createApiKeyBody }, async ({ caller, body }) => {
  const { record, plaintext } = await createApiKey(
    {
      orgId: caller.orgId,
      name: body.name,
      environment: body.environment ?? "live",
      scopes: body.scopes === undefined ? DEFAULT_SCOPES : [...new Set(body.scopes)],
    },
    { name: caller.username, id: caller.userId },
  );
  return jsonResponse(201, createdKeyView(record, plaintext));
});
