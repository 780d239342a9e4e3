import { describe, expect, it } from "vitest";
import { invalidFieldsError, NotFoundError, RateLimitedError, ValidationError } from "../../functions/domain/errors.js";
import { errorResponse, isThrottling, MAX_ERROR_TEXT, MAX_REPORTED_ISSUES } from "../../functions/http/error-mapper.js";

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

describe("error bodies are bounded (issue 11: a 1 MB body of unknown fields gave a 6.4 MB 400)", () => {
  it("lists the first 20 of 100,000 issues, counts them all, and cuts every text", () => {
    const issues = Array.from({ length: 100_000 }, (_, index) => ({
      path: `field${index}${"x".repeat(2_000)}`,
      message: "Unknown field",
    }));
    const response = errorResponse(invalidFieldsError("request body", issues));
    const body = JSON.parse(String(response.body));

    expect(response.statusCode).toBe(400);
    expect(body.issues).toHaveLength(MAX_REPORTED_ISSUES);
    expect(body.issueCount).toBe(100_000);
    expect(body.issues[0].path.length).toBeLessThanOrEqual(MAX_ERROR_TEXT);
    expect(body.message.length).toBeLessThanOrEqual(MAX_ERROR_TEXT);
    expect(body.message).toMatch(/^Invalid request body: field0x+…$/);
    expect(String(response.body).length).toBeLessThan(15_000);
  });

  it("names five paths in the message and says how many more", () => {
    const issues = ["a", "b", "c", "d", "e", "f", "g"].map((path) => ({ path, message: "Unknown field" }));
    expect(invalidFieldsError("event", issues).message).toBe("Invalid event: a, b, c, d, e and 2 more");
  });

  it("sends every issue, and no issueCount, up to 20", () => {
    const issues = Array.from({ length: 20 }, (_, index) => ({ path: `f${index}`, message: "Unknown field" }));
    const body = JSON.parse(String(errorResponse(new ValidationError("Invalid request body", issues)).body));
    expect(body.issues).toHaveLength(20);
    expect(body.issueCount).toBeUndefined();
  });

  it("never cuts a character in half", () => {
    const message = `${"a".repeat(MAX_ERROR_TEXT - 2)}😀😀`;
    const body = JSON.parse(String(errorResponse(new NotFoundError(message)).body));
    expect(body.message.isWellFormed()).toBe(true);
    expect(body.message.endsWith("…")).toBe(true);
  });
});
