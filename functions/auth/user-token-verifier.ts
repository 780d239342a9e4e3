/**
 * Verifies signed-in users' access tokens with aws-jwt-verify. On AWS the
 * issuer is the Cognito user pool; locally it is the local issuer of
 * `npm start`. The code path is the same: RS256 JWTs from `JWT_ISSUER`, keys
 * from its JWKS (`JWT_JWKS_URI`, default `<issuer>/.well-known/jwks.json`),
 * `token_use = access`, `client_id = JWT_CLIENT_ID` and an `exp` claim
 * (aws-jwt-verify checks `exp` only when present; a token without one would never expire).
 *
 * Configuration is read on first use (once per container).
 */
import { JwtRsaVerifier } from "aws-jwt-verify";
import type { Fetcher } from "aws-jwt-verify/https";
import { SimpleJwksCache } from "aws-jwt-verify/jwk";
import type { JwtPayload } from "aws-jwt-verify/jwt-model";
import { optionalEnv, requireEnv } from "../runtime/env.js";

/** Fetches the JWKS with the runtime's fetch (HTTPS on AWS; the local issuer serves HTTP). */
class RuntimeFetcher implements Fetcher {
  async fetch(uri: string): Promise<ArrayBuffer> {
    const response = await fetch(uri, { signal: AbortSignal.timeout(3000) });
    if (!response.ok) throw new Error(`JWKS fetch from ${uri} answered ${response.status}`);
    return response.arrayBuffer();
  }
}

function createVerifier() {
  const issuer = requireEnv("JWT_ISSUER");
  const clientId = requireEnv("JWT_CLIENT_ID");
  return JwtRsaVerifier.create(
    {
      issuer,
      audience: null,
      jwksUri: optionalEnv("JWT_JWKS_URI") ?? `${issuer}/.well-known/jwks.json`,
      customJwtCheck: ({ payload }) => {
        if (payload.token_use !== "access") throw new Error("token_use must be access");
        if (payload.client_id !== clientId) throw new Error("client_id does not match");
        if (typeof payload.exp !== "number") throw new Error("exp is required");
      },
    },
    { jwksCache: new SimpleJwksCache({ fetcher: new RuntimeFetcher() }) },
  );
}

let verifier: ReturnType<typeof createVerifier> | undefined;

/** The verified claims of `token`; throws on any invalid token. */
export async function verifyUserToken(token: string): Promise<JwtPayload> {
  verifier ??= createVerifier();
  return verifier.verify(token);
}
