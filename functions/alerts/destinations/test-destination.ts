/** POST /api/alerts/destinations/{destinationId}/test: an admin sends a test notification once and sees the outcome. */
import { jsonResponse } from "../../http/responses.js";
import { userRoute } from "../../http/user-route.js";
import { destinationIdParameter, testAlertDestination } from "./destination-commands.js";

export const handler = userRoute("TestAlertDestination", {}, async ({ caller, pathParameters }) => {
  const destinationId = destinationIdParameter(caller.orgId, pathParameters.destinationId);
  return jsonResponse(200, await testAlertDestination(caller, destinationId));
});
