/**
 * The credential provider of the Lambda bundles: esbuild aliases
 * `@aws-sdk/credential-provider-node` (the SDK's default chain) to this module
 * (lib/constructs/api-function.ts), so a bundle carries only the environment
 * provider instead of the whole chain (SSO, INI files, processes, web
 * identity, IMDS and their nested STS/SSO clients: about 135 KB minified).
 *
 * On Lambda the execution role's credentials are always in the environment
 * (`AWS_ACCESS_KEY_ID`, `AWS_SECRET_ACCESS_KEY`, `AWS_SESSION_TOKEN`), and
 * the environment is the first link of the default chain, so behaviour does
 * not change. Local runs (`npm start`, tests, the bench) are not bundled and
 * keep the default chain.
 */
import { fromEnv } from "@aws-sdk/credential-provider-env";

/** Same name and call shape as the default chain's export that the SDK clients import. */
export function defaultProvider(init: Parameters<typeof fromEnv>[0] = {}): ReturnType<typeof fromEnv> {
  return fromEnv(init);
}
