/**
 * The handler of a function group (functions/route-table.ts `functionGroups`): one Lambda function that serves
 * several routes by running each route's own handler module, chosen by the request's route key.
 *
 * The group lists its modules as `import()` loaders, keyed by each module's path in the route table: a bundler can
 * only follow literal imports, and the route table stays the one place that says which route runs which module.
 * A route of the group without a loader, or a loader no route names, throws at cold start: caught by
 * test/unit/function-groups.test.ts before it could ship.
 */
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from "aws-lambda";
import { type FunctionGroupId, type RouteEntry, routeTable } from "../route-table.js";
import { jsonResponse } from "./responses.js";

export type RouteHandler = (
  event: APIGatewayProxyEventV2,
  context: Context,
) => Promise<APIGatewayProxyStructuredResultV2>;

/** Loaders of the group's handler modules, by their path in the route table. */
export type HandlerModules = Readonly<Record<string, () => Promise<{ readonly handler: RouteHandler }>>>;

/** The route key API Gateway sends for a route (`GET /api/alerts/destinations/{destinationId}`). */
export function routeKeyOf(route: Pick<RouteEntry, "method" | "path">): string {
  return `${route.method} ${route.path}`;
}

/** The group's routes by route key, each with its module's loader; throws when the loaders and the table differ. */
export function groupRoutes(
  group: FunctionGroupId,
  modules: HandlerModules,
): Map<string, () => Promise<{ readonly handler: RouteHandler }>> {
  const members: readonly RouteEntry[] = routeTable.filter((route: RouteEntry) => route.functionGroup === group);
  const byKey = new Map<string, () => Promise<{ readonly handler: RouteHandler }>>();
  for (const route of members) {
    const load = Object.hasOwn(modules, route.entry) ? modules[route.entry] : undefined;
    if (load === undefined) throw new Error(`Function group ${group}: no module loader for ${route.entry}`);
    byKey.set(routeKeyOf(route), load);
  }
  const named = new Set(members.map((route) => route.entry));
  const stray = Object.keys(modules).filter((entry) => !named.has(entry));
  if (stray.length > 0) throw new Error(`Function group ${group}: no route runs ${stray.join(", ")}`);
  return byKey;
}

/** The group's Lambda handler: the route's own handler, loaded on its first request in this container. */
export function groupHandler(group: FunctionGroupId, modules: HandlerModules): RouteHandler {
  const byKey = groupRoutes(group, modules);
  const handlers = new Map<string, Promise<RouteHandler>>();
  return async (event, context) => {
    const load = byKey.get(event.routeKey);
    if (load === undefined) {
      // Only API Gateway invokes the function, with the routes it was given; anything else is not ours to serve.
      return jsonResponse(404, { error: "Not Found", message: "No such route" });
    }
    let handler = handlers.get(event.routeKey);
    if (handler === undefined) {
      handler = load().then((module) => module.handler);
      handlers.set(event.routeKey, handler);
      // A module that failed to load is tried again by the next request, not remembered as failed.
      handler.catch(() => handlers.delete(event.routeKey));
    }
    return (await handler)(event, context);
  };
}
