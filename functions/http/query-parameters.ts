/** Validates the query string against the route's zod schema; every bad parameter is named. */
import type { MiddlewareObj, Request } from "@middy/core";
import type { Context } from "aws-lambda";
import type * as z from "zod/mini";
import { invalidFieldsError } from "../domain/errors.js";
import { toFieldIssues } from "./json-body.js";
import type { HttpResult, SdkEvent } from "./sdk-event.js";

export function queryParameters(schema: z.ZodMiniType): MiddlewareObj<SdkEvent, HttpResult, Error, Context> {
  function queryParametersBefore(request: Request<SdkEvent, HttpResult, Error, Context>): void {
    const result = schema.safeParse(request.event.queryStringParameters ?? {});
    if (!result.success) {
      throw invalidFieldsError("query parameters", toFieldIssues(result.error.issues));
    }
    request.event.query = result.data;
  }
  return { before: queryParametersBefore };
}
