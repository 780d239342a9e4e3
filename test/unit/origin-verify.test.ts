/**
 * With edge protection on, the API answers only what came through the
 * distribution: the origin secret's comparison (functions/edge/origin-verify.ts)
 * and the authorizer built on it (origin-verify-authorizer.ts).
 */
import type { APIGatewayRequestAuthorizerEventV2 } from "aws-lambda";
import { afterAll, describe, expect, it, vi } from "vitest";
import { newOriginSecret } from "../../functions/deploy/origin-secret-resource.js";
import { ORIGIN_VERIFY_HEADER, originSecretMatches } from "../../functions/edge/origin-verify.js";

describe("originSecretMatches", () => {
  const secret = newOriginSecret();

  it("accepts the secret", () => {
    expect(originSecretMatches(secret, secret)).toBe(true);
  });

  it.each([
    ["no header", undefined],
    ["an empty header", ""],
    ["another secret", newOriginSecret()],
    ["the secret with one character changed", `${secret.slice(0, -1)}${secret.endsWith("A") ? "B" : "A"}`],
    ["a prefix of the secret", secret.slice(0, 20)],
    ["the secret with more after it", `${secret}x`],
    ["the secret in other case", secret.toUpperCase() === secret ? secret.toLowerCase() : secret.toUpperCase()],
  ])("refuses %s", (_label, presented) => {
    expect(originSecretMatches(presented, secret)).toBe(false);
  });

  it("refuses everything when the secret is empty (a broken deployment must not let everything through)", () => {
    expect(originSecretMatches("", "")).toBe(false);
  });
});

describe("newOriginSecret", () => {
  it("draws 256 bits as 43 base64url characters, fit for an HTTP header, different every time", () => {
    const secrets = Array.from({ length: 50 }, newOriginSecret);

    for (const secret of secrets) expect(secret).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(new Set(secrets).size).toBe(50);
  });
});

describe("the origin authorizer", () => {
  const secret = newOriginSecret();
  afterAll(() => {
    vi.unstubAllEnvs();
  });

  async function authorize(headers: Record<string, string> | undefined) {
    vi.stubEnv("ORIGIN_SECRET", secret);
    const { handler } = await import("../../functions/edge/origin-verify-authorizer.js");
    const event = {
      version: "2.0",
      type: "REQUEST",
      routeArn: "arn:aws:execute-api:eu-west-1:123456789012:api/$default/GET/api/me",
      identitySource: headers === undefined ? [] : Object.values(headers),
      routeKey: "GET /api/me",
      rawPath: "/api/me",
      rawQueryString: "",
      headers,
    } as unknown as APIGatewayRequestAuthorizerEventV2;
    return handler(event);
  }

  it("authorises a request carrying the secret CloudFront adds", async () => {
    await expect(authorize({ [ORIGIN_VERIFY_HEADER]: secret, authorization: "Bearer x" })).resolves.toEqual({
      isAuthorized: true,
    });
  });

  it("refuses a request with another value, or without headers", async () => {
    await expect(authorize({ [ORIGIN_VERIFY_HEADER]: newOriginSecret() })).resolves.toEqual({ isAuthorized: false });
    await expect(authorize(undefined)).resolves.toEqual({ isAuthorized: false });
  });

  it("refuses to start without its secret", async () => {
    vi.resetModules();
    vi.stubEnv("ORIGIN_SECRET", "");
    await expect(import("../../functions/edge/origin-verify-authorizer.js")).rejects.toThrow(
      /ORIGIN_SECRET must be set/,
    );
    vi.resetModules();
  });
});
