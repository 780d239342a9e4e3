/** Routes anyone may call (the API description): no credential, no table. */
import type { RouteId } from "../route-table.js";
import { routeChain } from "./route-chain.js";
import { routeOfKind } from "./route-of-kind.js";
import type { HttpResult } from "./sdk-event.js";

export function publicRoute(routeId: RouteId, routeHandler: () => Promise<HttpResult>) {
  routeOfKind(routeId, "public");
  return routeChain({}, []).handler(async function runPublicRoute() {
    return routeHandler();
  });
}
