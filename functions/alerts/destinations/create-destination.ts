/** POST /api/alerts/destinations: an admin adds a destination (audited); 201 with a webhook's secret, shown once. */
import { jsonResponse } from "../../http/responses.js";
import { userRoute } from "../../http/user-route.js";
import { createDestinationBody } from "../../schemas/alert-destination-schemas.js";
import { destinationView } from "../../store/alerts/alert-destination-store.js";
import { createAlertDestination } from "./destination-commands.js";

export const handler = userRoute(
  "CreateAlertDestination",
  { body: createDestinationBody },
  async ({ caller, body }) => {
    const { destination, secret } = await createAlertDestination(caller, body);
    return jsonResponse(201, { ...destinationView(destination), ...(secret !== undefined && { secret }) });
  },
);
