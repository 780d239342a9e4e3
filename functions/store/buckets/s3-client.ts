/**
 * The S3 client every bucket of the service is reached through (the payload bucket, the export bucket), built
 * once per container on first use. Its module is imported then too, not at load: most requests never touch a
 * bucket, so it costs a cold start nothing; on Lambda the bundle leaves `@aws-sdk/client-s3` to the runtime
 * (lib/constructs/api-function.ts).
 *
 * Configuration, read on first use: on AWS nothing (the default credential chain). Locally `S3_ENDPOINT`, a
 * local S3-compatible server (s3rver) addressed path-style, with `S3_ACCESS_KEY_ID` / `S3_SECRET_ACCESS_KEY`:
 * the local S3's own credential, so that neither its requests nor the URLs it presigns carry the process's
 * `AWS_ACCESS_KEY_ID` (locally DynamoDB Local's secret).
 */
import { optionalEnv } from "../../runtime/env.js";

type S3Module = typeof import("@aws-sdk/client-s3");
type S3 = InstanceType<S3Module["S3Client"]>;

let loaded: Promise<{ readonly module: S3Module; readonly client: S3 }> | undefined;

/** The client's settings: none on AWS; the local endpoint, path-style, with its own credential when given. */
function s3ClientSettings(): { endpoint?: string; forcePathStyle?: boolean; credentials?: S3Credential } {
  const endpoint = optionalEnv("S3_ENDPOINT");
  if (endpoint === undefined) return {};
  const accessKeyId = optionalEnv("S3_ACCESS_KEY_ID");
  const secretAccessKey = optionalEnv("S3_SECRET_ACCESS_KEY");
  return {
    endpoint,
    forcePathStyle: true,
    ...(accessKeyId !== undefined && secretAccessKey !== undefined
      ? { credentials: { accessKeyId, secretAccessKey } }
      : {}),
  };
}

interface S3Credential {
  readonly accessKeyId: string;
  readonly secretAccessKey: string;
}

/** The S3 module (its commands) and the one client, loaded on the first call. */
export function loadS3(): NonNullable<typeof loaded> {
  loaded ??= import("@aws-sdk/client-s3").then((module) => ({
    module,
    client: new module.S3Client(s3ClientSettings()),
  }));
  return loaded;
}
