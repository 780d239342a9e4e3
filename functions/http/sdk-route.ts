/**
 * The shared middy chain of every SDK route:
 *   error mapping (sees every error) → API-key auth + scope → JSON body + zod
 *   → the route's handler.
 * A route handler receives typed, validated input and returns a response.
 */
import middy from "@middy/core";
import type { Context } from "aws-lambda";
import type { z } from "zod";
import type { Principal } from "../domain/principal.js";
import type { Scope } from "../domain/scopes.js";
import { apiKeyAuth } from "./api-key-auth.js";
import { httpErrorMapper } from "./error-mapper.js";
import { jsonBody } from "./json-body.js";
import type { HttpResult, SdkEvent } from "./sdk-event.js";

export interface SdkRequest<TBody> {
  readonly principal: Principal;
  readonly body: TBody;
  readonly pathParameters: Readonly<Record<string, string | undefined>>;
}

export interface SdkRouteOptions<TSchema extends z.ZodType> {
  readonly scope: Scope;
  readonly body: TSchema;
}

export function sdkRoute<TSchema extends z.ZodType>(
  options: SdkRouteOptions<TSchema>,
  routeHandler: (request: SdkRequest<z.output<TSchema>>) => Promise<HttpResult>,
) {
  return middy<SdkEvent, HttpResult, Error, Context>()
    .use(httpErrorMapper())
    .use(apiKeyAuth({ scope: options.scope }))
    .use(jsonBody(options.body))
    .handler(async function runRoute(event) {
      if (event.principal === undefined) throw new Error("apiKeyAuth did not run before the handler");
      return routeHandler({
        principal: event.principal,
        // Set by jsonBody from `options.body`, the schema that types it.
        body: event.input as z.output<TSchema>,
        pathParameters: event.pathParameters ?? {},
      });
    });
}
