/** PUT /api/alerts/destinations/{destinationId}: an admin sets name, URL and enabled (audited; enabling clears the failures). */
import { jsonResponse } from "../../http/responses.js";
import { userRoute } from "../../http/user-route.js";
import { updateDestinationBody } from "../../schemas/alert-destination-schemas.js";
import { destinationView } from "../../store/alerts/alert-destination-store.js";
import { destinationIdParameter, updateAlertDestination } from "./destination-commands.js";

export const handler = userRoute(
  "UpdateAlertDestination",
  { body: updateDestinationBody },
  async ({ caller, body, pathParameters }) => {
    const destinationId = destinationIdParameter(caller.orgId, pathParameters.destinationId);
    return jsonResponse(200, destinationView(await updateAlertDestination(caller, destinationId, body)));
  },
);
