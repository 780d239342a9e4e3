/** The Lambda bundles' credential provider: the execution role's credentials from the environment, nothing else. */
import { afterEach, describe, expect, it, vi } from "vitest";
import { defaultProvider } from "../../functions/runtime/lambda-credentials.js";

afterEach(() => {
  vi.unstubAllEnvs();
});

describe("defaultProvider (aliased for @aws-sdk/credential-provider-node in the Lambda bundles)", () => {
  it("returns the credentials Lambda puts in the environment", async () => {
    vi.stubEnv("AWS_ACCESS_KEY_ID", "ASIAEXAMPLEEXAMPLE");
    vi.stubEnv("AWS_SECRET_ACCESS_KEY", "example-secret");
    vi.stubEnv("AWS_SESSION_TOKEN", "example-session-token");

    const credentials = await defaultProvider()();

    expect(credentials).toMatchObject({
      accessKeyId: "ASIAEXAMPLEEXAMPLE",
      secretAccessKey: "example-secret",
      sessionToken: "example-session-token",
    });
  });

  it("fails clearly instead of falling back to another source when the environment holds none", async () => {
    vi.stubEnv("AWS_ACCESS_KEY_ID", "");
    vi.stubEnv("AWS_SECRET_ACCESS_KEY", "");

    await expect(defaultProvider()()).rejects.toThrow(/environment/i);
  });
});
