/** POST /api/keys/{id}/rotate: a replacement key; the old one works until now + overlapSeconds. */
import { ROTATION_OVERLAP } from "../domain/api-key-record.js";
import { jsonResponse } from "../http/responses.js";
import { userRoute } from "../http/user-route.js";
import { rotateApiKeyBody } from "../schemas/api-key-schemas.js";
import { rotateApiKey } from "../store/keys/api-key-store.js";
import { apiKeyView, createdKeyView } from "./api-key-view.js";

export const handler = userRoute(
  "RotateApiKey",
  { body: rotateApiKeyBody, bodyOptional: true },
  async ({ caller, body, pathParameters }) => {
    const { record, plaintext, previous } = await rotateApiKey(
      caller.orgId,
      pathParameters.id ?? "",
      body.overlapSeconds ?? ROTATION_OVERLAP.defaultSeconds,
      { name: caller.username, id: caller.userId },
    );
    return jsonResponse(201, { ...createdKeyView(record, plaintext), rotatedFrom: apiKeyView(previous) });
  },
);
