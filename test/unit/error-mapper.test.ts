import { describe, expect, it } from "vitest";
import { NotFoundError, RateLimitedError } from "../../functions/domain/errors.js";
import { errorResponse, isThrottling } from "../../functions/http/error-mapper.js";

const named = (name: string, extra: Record<string, unknown> = {}) =>
  Object.assign(new Error("aws said no"), { name, ...extra });

describe("errorResponse", () => {
  it.each(["ProvisionedThroughputExceededException", "ThrottlingException", "RequestLimitExceeded", "SlowDown"])(
    "maps %s to 503 with Retry-After",
    (name) => {
      const response = errorResponse(named(name));
      expect(response.statusCode).toBe(503);
      expect(response.headers?.["retry-after"]).toBe("1");
      expect(JSON.parse(String(response.body))).toEqual({
        error: "Service Unavailable",
        message: "The service is busy; retry after the Retry-After delay",
      });
    },
  );

  it("treats a transaction cancelled for throttling as throttling, and one cancelled by a condition as not", () => {
    expect(
      isThrottling(
        named("TransactionCanceledException", { CancellationReasons: [{ Code: "None" }, { Code: "ThrottlingError" }] }),
      ),
    ).toBe(true);
    expect(
      isThrottling(
        named("TransactionCanceledException", { CancellationReasons: [{ Code: "ConditionalCheckFailed" }] }),
      ),
    ).toBe(false);
  });

  it("answers any other unexpected error with a generic 500 that reveals nothing", () => {
    const response = errorResponse(named("NetworkingError", { stack: "at /work/secret.ts:1" }));
    expect(response.statusCode).toBe(500);
    expect(response.body).not.toContain("secret");
    expect(response.body).not.toContain("aws said no");
  });

  it("maps service errors to their status and adds Retry-After to 429", () => {
    expect(errorResponse(new NotFoundError("Session x not found")).statusCode).toBe(404);
    const limited = errorResponse(new RateLimitedError("slow down", 42));
    expect(limited.statusCode).toBe(429);
    expect(limited.headers?.["retry-after"]).toBe("42");
  });
});
