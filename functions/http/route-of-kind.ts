/**
 * A handler's entry in the route table, checked to be of the kind of route its module builds. Apart from
 * route-chain.ts so that a chain which does not look its route up (the exporters', api-key-export-route.ts)
 * does not bundle the table; and from route-table.ts only, so that no handler bundles the routes' grants.
 */
import { type RouteAuth, type RouteEntry, type RouteId, routeEntryById } from "../route-table.js";

/** The route-table entry of a handler, checked to be of the expected kind. */
export function routeOfKind(routeId: RouteId, kinds: RouteAuth["kind"] | readonly RouteAuth["kind"][]): RouteEntry {
  const route = routeEntryById(routeId);
  const accepted: readonly RouteAuth["kind"][] = typeof kinds === "string" ? [kinds] : kinds;
  if (!accepted.includes(route.auth.kind)) throw new Error(`Route ${routeId} is not an ${accepted.join("/")} route`);
  return route;
}
