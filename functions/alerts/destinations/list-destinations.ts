/** GET /api/alerts/destinations: the organisation's alert destinations (any member); never a signing secret. */
import { jsonResponse } from "../../http/responses.js";
import { userRoute } from "../../http/user-route.js";
import { destinationView, listDestinations } from "../../store/alerts/alert-destination-store.js";

export const handler = userRoute("ListAlertDestinations", {}, async ({ caller }) => {
  const destinations = await listDestinations(caller.orgId);
  return jsonResponse(200, { destinations: destinations.map(destinationView) });
});
