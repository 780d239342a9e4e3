/**
 * Reading the Parquet export back in tests: objects of the local S3's export bucket (the environment the global
 * setup provides), a run's manifest, and a file's rows through hyparquet (ZSTD through node:zlib).
 */
import { zstdDecompressSync } from "node:zlib";
import { GetObjectCommand, ListObjectsV2Command, S3Client } from "@aws-sdk/client-s3";
import { parquetReadObjects } from "hyparquet";
import type { ExportManifest } from "../../functions/export/export-manifest.js";

let client: S3Client | undefined;

function s3(): S3Client {
  client ??= new S3Client({
    endpoint: process.env.S3_ENDPOINT ?? "",
    forcePathStyle: true,
    region: "us-east-1",
    credentials: {
      accessKeyId: process.env.S3_ACCESS_KEY_ID ?? "",
      secretAccessKey: process.env.S3_SECRET_ACCESS_KEY ?? "",
    },
  });
  return client;
}

function bucket(): string {
  const name = process.env.EXPORT_BUCKET;
  if (name === undefined) throw new Error("EXPORT_BUCKET is not set (test/support/global-setup.ts)");
  return name;
}

/** The object's bytes, or undefined when there is none. */
export async function exportObject(key: string): Promise<Uint8Array | undefined> {
  try {
    const answer = await s3().send(new GetObjectCommand({ Bucket: bucket(), Key: key }));
    return await answer.Body?.transformToByteArray();
  } catch (error) {
    if (error instanceof Error && (error.name === "NoSuchKey" || error.name === "NotFound")) return undefined;
    throw error;
  }
}

export async function exportKeys(prefix: string): Promise<string[]> {
  const keys: string[] = [];
  let token: string | undefined;
  do {
    const page = await s3().send(
      new ListObjectsV2Command({ Bucket: bucket(), Prefix: prefix, ContinuationToken: token }),
    );
    keys.push(...(page.Contents ?? []).map((object) => String(object.Key)));
    token = page.NextContinuationToken;
  } while (token !== undefined);
  return keys;
}

export async function exportManifest(key: string): Promise<ExportManifest | undefined> {
  const bytes = await exportObject(key);
  return bytes === undefined ? undefined : (JSON.parse(new TextDecoder().decode(bytes)) as ExportManifest);
}

/** A Parquet file's rows (INT64 as BigInt, timestamps as Date). */
export async function parquetRows(bytes: Uint8Array): Promise<Record<string, unknown>[]> {
  const file = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
  return (await parquetReadObjects({
    file,
    compressors: { ZSTD: (input: Uint8Array) => new Uint8Array(zstdDecompressSync(input)) },
  })) as Record<string, unknown>[];
}

/** The rows of every file of a table under a prefix (e.g. one organisation's). */
export async function tableRows(prefix: string): Promise<Record<string, unknown>[]> {
  const rows: Record<string, unknown>[] = [];
  for (const key of await exportKeys(prefix)) {
    const bytes = await exportObject(key);
    if (bytes !== undefined) rows.push(...(await parquetRows(bytes)));
  }
  return rows;
}
