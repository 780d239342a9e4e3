/** Validates the query string against the route's zod schema; every bad parameter is named. */
import type { MiddlewareObj, Request } from "@middy/core";
import type { Context } from "aws-lambda";
import type * as z from "zod/mini";
import { ValidationError } from "../domain/errors.js";
import { toFieldIssues } from "./json-body.js";
import type { HttpResult, SdkEvent } from "./sdk-event.js";

export function queryParameters(schema: z.ZodMiniType): MiddlewareObj<SdkEvent, HttpResult, Error, Context> {
  function queryParametersBefore(request: Request<SdkEvent, HttpResult, Error, Context>): void {
    const result = schema.safeParse(request.event.queryStringParameters ?? {});
    if (!result.success) {
      const issues = toFieldIssues(result.error.issues);
      throw new ValidationError(`Invalid query parameters: ${issues.map((issue) => issue.path).join(", ")}`, issues);
    }
    request.event.query = result.data;
  }
  return { before: queryParametersBefore };
}
