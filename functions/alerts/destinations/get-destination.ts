/** GET /api/alerts/destinations/{destinationId}: one destination (any member); 404 when not the organisation's. */
import { jsonResponse } from "../../http/responses.js";
import { userRoute } from "../../http/user-route.js";
import { destinationView, getDestination } from "../../store/alerts/alert-destination-store.js";
import { destinationIdParameter } from "./destination-commands.js";

export const handler = userRoute("GetAlertDestination", {}, async ({ caller, pathParameters }) => {
  const destinationId = destinationIdParameter(caller.orgId, pathParameters.destinationId);
  return jsonResponse(200, destinationView(await getDestination(caller.orgId, destinationId)));
});
