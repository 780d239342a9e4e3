/**
 * `Idempotency-Key` on the SDK's POST and PATCH routes (IETF draft "The
 * Idempotency-Key HTTP Header Field"): the first request with a key is
 * processed and its response stored; a retry with the same key and body
 * within 24 h gets that response again (`Idempotent-Replayed: true`) and
 * writes nothing; the same key with another body is 422; a retry while the
 * first is still being processed is 409. Keys are scoped per tenant
 * (organisation + environment), and the fingerprint names the environment too.
 *
 * Runs after authentication and body validation (an invalid request is
 * answered the same way every time, so it is not recorded) and before the
 * handler. Responses the client caused (< 500) are stored; after a server
 * error the claim is released, keeping the planned id, so a retry writes the
 * very same item rather than a second one.
 */
import { createHash } from "node:crypto";
import type { MiddlewareObj, Request } from "@middy/core";
import type { Context } from "aws-lambda";
import { ConflictError, UnprocessableError, ValidationError } from "../domain/errors.js";
import { claim, complete, release } from "../store/events/idempotency-store.js";
import { errorResponse } from "./error-mapper.js";
import type { HttpResult, SdkEvent } from "./sdk-event.js";

const HEADER = "idempotency-key";
const KEY_PATTERN = /^[\x21-\x7e]{1,255}$/;

export { isWrite } from "./write-methods.js";

/** What makes two requests "the same request": environment, method, path and body. */
export function requestFingerprint(environment: string, method: string, path: string, body: string): string {
  return createHash("sha256").update(`${environment} ${method} ${path}\n${body}`).digest("hex");
}

function fingerprintOf(event: SdkEvent, environment: string): string {
  // The decoded body: the same request sent gzip-compressed or not is the same request.
  const body = (event.decodedBody ?? Buffer.alloc(0)).toString("utf8");
  return requestFingerprint(environment, event.requestContext.http.method, event.rawPath, body);
}

function storable(response: HttpResult) {
  const contentType = response.headers?.["content-type"];
  return {
    statusCode: response.statusCode ?? 200,
    body: response.body ?? "",
    ...(typeof contentType === "string" ? { contentType } : {}),
  };
}

export function idempotency(): MiddlewareObj<SdkEvent, HttpResult, Error, Context> {
  async function idempotencyBefore(
    request: Request<SdkEvent, HttpResult, Error, Context>,
  ): Promise<HttpResult | undefined> {
    const key = request.event.headers?.[HEADER];
    const principal = request.event.principal;
    if (key === undefined || principal === undefined) return undefined;
    if (!KEY_PATTERN.test(key)) {
      throw new ValidationError("Invalid Idempotency-Key: use 1 to 255 visible ASCII characters, e.g. a UUID", [
        { path: "Idempotency-Key", message: "Must be 1 to 255 visible ASCII characters" },
      ]);
    }
    const outcome = await claim(principal, key, fingerprintOf(request.event, principal.environment));
    switch (outcome.outcome) {
      case "claimed":
        request.event.idempotency = { key, plannedUlid: outcome.plannedUlid };
        return undefined;
      case "replay":
        return {
          statusCode: outcome.response.statusCode,
          headers: {
            "idempotent-replayed": "true",
            ...(outcome.response.contentType ? { "content-type": outcome.response.contentType } : {}),
          },
          body: outcome.response.body,
        };
      case "mismatch":
        throw new UnprocessableError(
          "This Idempotency-Key was already used with a different request; use a new key for a new request",
        );
      case "in_flight":
        throw new ConflictError("A request with this Idempotency-Key is still being processed; retry it shortly");
    }
  }

  async function idempotencyAfter(request: Request<SdkEvent, HttpResult, Error, Context>): Promise<void> {
    const claimed = request.event.idempotency;
    const principal = request.event.principal;
    if (claimed === undefined || principal === undefined || request.response == null) return;
    await complete(principal, claimed.key, storable(request.response));
  }

  async function idempotencyOnError(request: Request<SdkEvent, HttpResult, Error, Context>): Promise<void> {
    const claimed = request.event.idempotency;
    const principal = request.event.principal;
    if (claimed === undefined || principal === undefined) return;
    const response = errorResponse(request.error);
    if ((response.statusCode ?? 500) < 500) await complete(principal, claimed.key, storable(response));
    else await release(principal, claimed.key);
  }

  return { before: idempotencyBefore, after: idempotencyAfter, onError: idempotencyOnError };
}
