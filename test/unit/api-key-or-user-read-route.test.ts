/**
 * The read routes' builder (functions/http/api-key-or-user-read-route.ts) leaves the idempotency middleware out, so
 * it must refuse a route that takes an Idempotency-Key: such a route built with it would drop the header's promise.
 */
import { describe, expect, it } from "vitest";
import { apiKeyOrUserReadRoute } from "../../functions/http/api-key-or-user-read-route.js";
import { jsonResponse } from "../../functions/http/responses.js";

const answer = async () => jsonResponse(200, {});

describe("apiKeyOrUserReadRoute", () => {
  it("builds a GET route and a POST route that takes no Idempotency-Key", () => {
    expect(typeof apiKeyOrUserReadRoute("ListSessions", {}, answer)).toBe("function");
    expect(typeof apiKeyOrUserReadRoute("QueryMetrics", {}, answer)).toBe("function");
  });

  it("refuses a route that takes an Idempotency-Key, and a route of another kind", () => {
    expect(() => apiKeyOrUserReadRoute("CreateScore", {}, answer)).toThrow(
      "Route CreateScore takes an Idempotency-Key: build it with apiKeyOrUserRoute",
    );
    expect(() => apiKeyOrUserReadRoute("CreateEvent", {}, answer)).toThrow(/is not an apiKeyOrUser route/);
  });
});
