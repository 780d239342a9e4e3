/**
 * Reads the request body: content type, content encoding (`gzip` or none),
 * size limit — on the decompressed size, so a gzip bomb stops at the limit
 * without inflating further —, JSON syntax, a JSON object at the top, then the
 * route's zod schema. Every failing field is reported in `issues`. The decoded
 * body is kept on the event (`decodedBody`) for the Idempotency-Key fingerprint.
 */
import { gunzipSync } from "node:zlib";
import type { MiddlewareObj, Request } from "@middy/core";
import type { Context } from "aws-lambda";
import type * as z from "zod/mini";
import {
  type FieldIssue,
  invalidFieldsError,
  PayloadTooLargeError,
  UnsupportedMediaTypeError,
  ValidationError,
} from "../domain/errors.js";
import { LIMITS } from "../domain/limits.js";
import type { HttpResult, SdkEvent } from "./sdk-event.js";

const JSON_MEDIA_TYPE = /^application\/([\w.+-]+\+)?json\s*(;|$)/i;

function rawBody(event: SdkEvent): Buffer {
  if (event.body === undefined || event.body === null) return Buffer.alloc(0);
  return event.isBase64Encoded ? Buffer.from(event.body, "base64") : Buffer.from(event.body, "utf8");
}

function tooLarge(limit: number): PayloadTooLargeError {
  return new PayloadTooLargeError(`Request body is over ${limit} bytes (decompressed); the limit is ${limit} bytes`);
}

/** The body as sent, decompressed when `Content-Encoding: gzip`; at most `limit` bytes or 413. */
export function decodedBody(event: SdkEvent, limit: number): Buffer {
  const body = rawBody(event);
  const encoding = (event.headers?.["content-encoding"] ?? "identity").trim().toLowerCase();
  if (encoding === "identity" || encoding === "") {
    if (body.length > limit) {
      throw new PayloadTooLargeError(`Request body is ${body.length} bytes; the limit is ${limit} bytes`);
    }
    return body;
  }
  if (encoding !== "gzip") {
    throw new UnsupportedMediaTypeError(`Unsupported Content-Encoding "${encoding.slice(0, 40)}": send gzip or none`);
  }
  if (body.length > limit) throw tooLarge(limit);
  try {
    // maxOutputLength: zlib stops (RangeError) once the output would pass the limit, so nothing larger is ever held.
    return gunzipSync(body, { maxOutputLength: limit });
  } catch (error) {
    if (error instanceof RangeError) throw tooLarge(limit);
    throw new ValidationError("Request body is not valid gzip (Content-Encoding: gzip)");
  }
}

function parseJson(body: Buffer): unknown {
  if (body.length === 0) {
    throw new ValidationError("Request body is empty: send a JSON object");
  }
  try {
    return JSON.parse(body.toString("utf8"));
  } catch {
    throw new ValidationError("Request body is not valid JSON");
  }
}

/** Flattens zod issues to `{ path, message }`, one per field (unknown fields named one by one). */
export function toFieldIssues(issues: readonly z.core.$ZodIssue[]): FieldIssue[] {
  return issues.flatMap((issue) => {
    const path = issue.path.map(String).join(".");
    if (issue.code === "unrecognized_keys") {
      return issue.keys.map((key) => ({ path: path ? `${path}.${key}` : key, message: "Unknown field" }));
    }
    return [{ path: path || "(body)", message: issue.message }];
  });
}

export function jsonBody(
  schema: z.ZodMiniType,
  options: { readonly optional: boolean; readonly maxBytes?: number } = { optional: false },
): MiddlewareObj<SdkEvent, HttpResult, Error, Context> {
  function jsonBodyBefore(request: Request<SdkEvent, HttpResult, Error, Context>): void {
    const event = request.event;
    const contentType = event.headers?.["content-type"];
    if (contentType !== undefined && !JSON_MEDIA_TYPE.test(contentType)) {
      throw new UnsupportedMediaTypeError("Send the request body as JSON with Content-Type: application/json");
    }
    const body = decodedBody(event, options.maxBytes ?? LIMITS.bodyBytes);
    event.decodedBody = body;
    const json = body.length === 0 && options.optional ? {} : parseJson(body);
    if (typeof json !== "object" || json === null || Array.isArray(json)) {
      throw new ValidationError("Request body must be a JSON object");
    }
    const result = schema.safeParse(json);
    if (!result.success) {
      throw invalidFieldsError("request body", toFieldIssues(result.error.issues));
    }
    event.input = result.data;
  }
  return { before: jsonBodyBefore };
}

/** Reads a body the handler decodes itself: decompressed and size-checked (`decodedBody`), kept on the event. */
export function rawBodyReader(maxBytes: number): MiddlewareObj<SdkEvent, HttpResult, Error, Context> {
  function rawBodyBefore(request: Request<SdkEvent, HttpResult, Error, Context>): void {
    request.event.decodedBody = decodedBody(request.event, maxBytes);
  }
  return { before: rawBodyBefore };
}
