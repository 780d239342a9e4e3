/** POST /api/alerts/destinations/{destinationId}/rotate-secret: an admin replaces a webhook's signing secret (audited). */
import { jsonResponse } from "../../http/responses.js";
import { userRoute } from "../../http/user-route.js";
import { destinationIdParameter, rotateAlertDestinationSecret } from "./destination-commands.js";

export const handler = userRoute("RotateAlertDestinationSecret", {}, async ({ caller, pathParameters }) => {
  const destinationId = destinationIdParameter(caller.orgId, pathParameters.destinationId);
  return jsonResponse(200, { secret: await rotateAlertDestinationSecret(caller, destinationId) });
});
