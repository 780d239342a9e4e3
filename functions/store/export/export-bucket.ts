/**
 * The export bucket (issue 35): Parquet files streamed in (one PutObject, or a multipart upload once a file passes
 * PART_BYTES: either way the object appears whole when the upload completes), files removed, manifests written.
 * Configuration, read on first use: `EXPORT_BUCKET`; the S3 client as buckets/s3-client.ts builds it.
 */
import { requireEnv } from "../../runtime/env.js";
import { loadS3 } from "../buckets/s3-client.js";

/** Multipart parts (S3's minimum is 5 MiB but for the last). */
export const PART_BYTES = 8 * 1024 * 1024;

function exportBucket(): string {
  return requireEnv("EXPORT_BUCKET");
}

/** An object being written: bytes in order, then `complete` (the object appears) or `abort` (nothing appears). */
export interface ObjectUpload {
  write(bytes: Uint8Array): Promise<void>;
  /** Resolves with the object's size in bytes. */
  complete(): Promise<number>;
  abort(): Promise<void>;
}

function joined(chunks: readonly Uint8Array[], length: number): Uint8Array {
  const out = new Uint8Array(length);
  let at = 0;
  for (const chunk of chunks) {
    out.set(chunk, at);
    at += chunk.length;
  }
  return out;
}

export function openObjectUpload(key: string, contentType = "application/vnd.apache.parquet"): ObjectUpload {
  const bucket = exportBucket();
  let chunks: Uint8Array[] = [];
  let buffered = 0;
  let total = 0;
  let uploadId: string | undefined;
  const parts: { PartNumber: number; ETag: string }[] = [];

  async function sendPart(body: Uint8Array): Promise<void> {
    const { module, client } = await loadS3();
    if (uploadId === undefined) {
      const created = await client.send(
        new module.CreateMultipartUploadCommand({ Bucket: bucket, Key: key, ContentType: contentType }),
      );
      uploadId = created.UploadId;
      if (uploadId === undefined) throw new Error(`S3 gave no upload id for ${key}`);
    }
    const PartNumber = parts.length + 1;
    const answer = await client.send(
      new module.UploadPartCommand({ Bucket: bucket, Key: key, UploadId: uploadId, PartNumber, Body: body }),
    );
    parts.push({ PartNumber, ETag: answer.ETag ?? "" });
  }

  function takeBuffered(): Uint8Array {
    const body = joined(chunks, buffered);
    chunks = [];
    buffered = 0;
    return body;
  }

  return {
    async write(bytes) {
      chunks.push(bytes);
      buffered += bytes.length;
      total += bytes.length;
      if (buffered >= PART_BYTES) await sendPart(takeBuffered());
    },
    async complete() {
      const { module, client } = await loadS3();
      if (uploadId === undefined) {
        await client.send(
          new module.PutObjectCommand({ Bucket: bucket, Key: key, Body: takeBuffered(), ContentType: contentType }),
        );
        return total;
      }
      if (buffered > 0) await sendPart(takeBuffered());
      await client.send(
        new module.CompleteMultipartUploadCommand({
          Bucket: bucket,
          Key: key,
          UploadId: uploadId,
          MultipartUpload: { Parts: parts },
        }),
      );
      return total;
    },
    async abort() {
      chunks = [];
      buffered = 0;
      if (uploadId === undefined) return;
      const { module, client } = await loadS3();
      await client.send(new module.AbortMultipartUploadCommand({ Bucket: bucket, Key: key, UploadId: uploadId }));
    },
  };
}

export async function deleteExportObject(key: string): Promise<void> {
  const { module, client } = await loadS3();
  await client.send(new module.DeleteObjectCommand({ Bucket: exportBucket(), Key: key }));
}

export async function putExportJson(key: string, value: unknown): Promise<void> {
  const upload = openObjectUpload(key, "application/json");
  await upload.write(new TextEncoder().encode(`${JSON.stringify(value, null, 1)}\n`));
  await upload.complete();
}
