/**
 * Reads of the export bucket (issue 35) for `GET /api/exports`: key listings, JSON manifests and presigned GET
 * URLs. Nothing here knows about organisations; the caller (organisation-exports.ts) decides which keys it may
 * touch and checks every key it presigns (organisation-export-keys.ts).
 *
 * Configuration: `EXPORT_BUCKET`, read on first use; the S3 client as buckets/s3-client.ts builds it. The
 * presigner is imported on first use too; on Lambda the bundle leaves it to the runtime
 * (lib/constructs/api-function.ts).
 */
import { requireEnv } from "../../runtime/env.js";
import { loadS3 } from "../buckets/s3-client.js";

/** How long a presigned download works (15 minutes). */
export const EXPORT_URL_SECONDS = 15 * 60;

let presigner: Promise<typeof import("@aws-sdk/s3-request-presigner")> | undefined;
let bucketName: string | undefined;

/** `EXPORT_BUCKET`, read on first use and then kept. */
function exportBucket(): string {
  bucketName ??= requireEnv("EXPORT_BUCKET");
  return bucketName;
}

/** A range of keys under one prefix, in S3's (ascending) order: after `startAfter`, before `endBefore`. */
export interface KeyRange {
  readonly prefix: string;
  /** Exclusive; absent: from the prefix's first key. */
  readonly startAfter?: string;
  /** Exclusive upper bound. */
  readonly endBefore: string;
  /** At most this many keys are read (whole listing pages); more: `truncated`. */
  readonly maxKeys: number;
}

export interface ListedKeys {
  /** Ascending. */
  readonly keys: readonly string[];
  /** The range held more than `maxKeys` keys: `keys` are its first ones only. */
  readonly truncated: boolean;
  /** Listing requests made. */
  readonly requests: number;
}

/** The keys of a range, one ListObjectsV2 page (1,000 keys) after another until `endBefore` or `maxKeys`. */
export async function listKeyRange(range: KeyRange): Promise<ListedKeys> {
  const { module, client } = await loadS3();
  const keys: string[] = [];
  let continuationToken: string | undefined;
  let requests = 0;
  for (;;) {
    const page = await client.send(
      new module.ListObjectsV2Command({
        Bucket: exportBucket(),
        Prefix: range.prefix,
        MaxKeys: Math.min(1000, range.maxKeys - keys.length + 1),
        ...(continuationToken === undefined
          ? range.startAfter === undefined
            ? {}
            : { StartAfter: range.startAfter }
          : { ContinuationToken: continuationToken }),
      }),
    );
    requests += 1;
    for (const object of page.Contents ?? []) {
      const key = object.Key;
      if (key === undefined) continue;
      if (key >= range.endBefore) return { keys, truncated: false, requests };
      if (keys.length === range.maxKeys) return { keys, truncated: true, requests };
      keys.push(key);
    }
    if (page.IsTruncated !== true || page.NextContinuationToken === undefined) {
      return { keys, truncated: false, requests };
    }
    continuationToken = page.NextContinuationToken;
  }
}

/** The object's text parsed as JSON; `undefined` when there is no such object. */
export async function readJsonObject(key: string): Promise<unknown> {
  const { module, client } = await loadS3();
  try {
    const object = await client.send(new module.GetObjectCommand({ Bucket: exportBucket(), Key: key }));
    const text = await object.Body?.transformToString("utf-8");
    return text === undefined ? undefined : (JSON.parse(text) as unknown);
  } catch (error) {
    if (error instanceof Error && (error.name === "NoSuchKey" || error.name === "NotFound")) return undefined;
    throw error;
  }
}

/** A GET URL of the object valid for {@link EXPORT_URL_SECONDS}, signed with the function's own credentials. */
export async function presignedDownloadUrl(key: string): Promise<string> {
  const { module, client } = await loadS3();
  presigner ??= import("@aws-sdk/s3-request-presigner");
  const { getSignedUrl } = await presigner;
  return getSignedUrl(client, new module.GetObjectCommand({ Bucket: exportBucket(), Key: key }), {
    expiresIn: EXPORT_URL_SECONDS,
  });
}
