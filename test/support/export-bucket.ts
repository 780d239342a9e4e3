/**
 * The export bucket of the tests (issue 35): created on the run's local S3 by global-setup.ts, and named in
 * every test file's environment as `EXPORT_BUCKET` (so every route, `GET /api/exports` included, runs as on
 * `npm start`). TODO(merge): the name is local/s3-local.ts's LOCAL_EXPORT_BUCKET once the lead's local stack has it.
 */
import { CreateBucketCommand, S3Client } from "@aws-sdk/client-s3";
import { LOCAL_REGION } from "../../local/dynamo-endpoint.js";
import type { RunningS3 } from "../../local/s3-local.js";

export const TEST_EXPORT_BUCKET = "ats-export-local";

/** A client of the run's local S3, with its own credential. */
export function localS3Client(environment: Readonly<Record<string, string>>): S3Client {
  return new S3Client({
    endpoint: environment.S3_ENDPOINT ?? "http://127.0.0.1:1",
    forcePathStyle: true,
    region: LOCAL_REGION,
    credentials: {
      accessKeyId: environment.S3_ACCESS_KEY_ID ?? "",
      secretAccessKey: environment.S3_SECRET_ACCESS_KEY ?? "",
    },
  });
}

/** Creates the export bucket on the local S3 (idempotent: an existing bucket is kept). */
export async function createExportBucket(s3: RunningS3): Promise<void> {
  const client = localS3Client({
    S3_ENDPOINT: s3.endpoint,
    S3_ACCESS_KEY_ID: s3.credentials.accessKeyId,
    S3_SECRET_ACCESS_KEY: s3.credentials.secretAccessKey,
  });
  try {
    await client.send(new CreateBucketCommand({ Bucket: TEST_EXPORT_BUCKET }));
  } catch (error) {
    if (!(error instanceof Error && /BucketAlready/.test(error.name))) throw error;
  } finally {
    client.destroy();
  }
}
