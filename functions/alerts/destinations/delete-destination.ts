/** DELETE /api/alerts/destinations/{destinationId}: an admin removes a destination (audited) → 204; monitors keep the id. */
import { userRoute } from "../../http/user-route.js";
import { deleteDestination } from "../../store/alerts/alert-destination-store.js";
import { destinationIdParameter } from "./destination-commands.js";

export const handler = userRoute("DeleteAlertDestination", {}, async ({ caller, pathParameters }) => {
  const destinationId = destinationIdParameter(caller.orgId, pathParameters.destinationId);
  await deleteDestination(caller.orgId, destinationId, { name: caller.username, id: caller.userId });
  return { statusCode: 204 };
});
