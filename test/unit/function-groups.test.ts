/**
 * Function groups (functions/route-table.ts `functionGroups`, functions/http/function-group.ts): each group's
 * dispatcher serves exactly the routes the route table puts in the group, each with that route's own handler
 * module, and nothing else.
 */
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from "aws-lambda";
import { describe, expect, it } from "vitest";
import { groupHandler, groupRoutes, type RouteHandler, routeKeyOf } from "../../functions/http/function-group.js";
import { type FunctionGroupId, functionGroups, type RouteEntry, routeTable } from "../../functions/route-table.js";

const groups = Object.keys(functionGroups) as FunctionGroupId[];
const membersOf = (group: FunctionGroupId): RouteEntry[] =>
  routeTable.filter((route: RouteEntry) => route.functionGroup === group);

function eventFor(routeKey: string): APIGatewayProxyEventV2 {
  return { routeKey } as APIGatewayProxyEventV2;
}
const context = {} as Context;

/** Loaders for a group's routes whose handlers answer with their module's path. */
function answeringLoaders(group: FunctionGroupId): Record<string, () => Promise<{ handler: RouteHandler }>> {
  return Object.fromEntries(
    membersOf(group).map((route) => [
      route.entry,
      async () => ({ handler: async () => ({ statusCode: 200, body: route.entry }) }),
    ]),
  );
}

describe("function groups", () => {
  it.each(groups)("%s: its dispatcher's loaders load exactly the modules its routes name", async (group) => {
    const members = membersOf(group);
    expect(members.length).toBeGreaterThan(1);
    // Importing the dispatcher checks its loaders against the route table (it throws at load otherwise).
    const dispatcher = (await import(`../../${functionGroups[group].entry}`)) as { handler: RouteHandler };
    expect(typeof dispatcher.handler).toBe("function");
    for (const route of members) {
      const own = (await import(`../../${route.entry}`)) as { handler: RouteHandler };
      expect(typeof own.handler, route.entry).toBe("function");
    }
  });

  it.each(groups)("%s: each route key runs its own route's handler; another route's key is a 404", async (group) => {
    const handler = groupHandler(group, answeringLoaders(group));
    for (const route of membersOf(group)) {
      const result = (await handler(eventFor(routeKeyOf(route)), context)) as APIGatewayProxyStructuredResultV2;
      expect(result.body).toBe(route.entry);
    }
    const outsider = routeTable.find((route: RouteEntry) => route.functionGroup !== group) as RouteEntry;
    const refused = await handler(eventFor(routeKeyOf(outsider)), context);
    expect(refused.statusCode).toBe(404);
    expect(JSON.parse(String(refused.body))).toMatchObject({ error: "Not Found" });
    expect((await handler(eventFor("GET /__proto__"), context)).statusCode).toBe(404);
  });

  it("refuses, at load, a group whose loaders miss a route or name a module no route runs", () => {
    const [group] = groups as [FunctionGroupId];
    const loaders = answeringLoaders(group);
    const [first] = Object.keys(loaders) as [string];
    const { [first]: _missing, ...withoutFirst } = loaders;
    expect(() => groupRoutes(group, withoutFirst)).toThrow(`no module loader for ${first}`);
    expect(() =>
      groupRoutes(group, {
        ...loaders,
        "functions/events/create-event.ts": async () => ({ handler: async () => ({}) }),
      }),
    ).toThrow("no route runs functions/events/create-event.ts");
  });

  it("loads a route's module once per container, and again after a failed load", async () => {
    const [group] = groups as [FunctionGroupId];
    const [route] = membersOf(group) as [RouteEntry];
    let loads = 0;
    const loaders = answeringLoaders(group);
    loaders[route.entry] = async () => {
      loads += 1;
      if (loads === 1) throw new Error("cold start failed");
      return { handler: async () => ({ statusCode: 204 }) };
    };
    const handler = groupHandler(group, loaders);
    await expect(handler(eventFor(routeKeyOf(route)), context)).rejects.toThrow("cold start failed");
    expect((await handler(eventFor(routeKeyOf(route)), context)).statusCode).toBe(204);
    expect((await handler(eventFor(routeKeyOf(route)), context)).statusCode).toBe(204);
    expect(loads).toBe(2);
  });
});
