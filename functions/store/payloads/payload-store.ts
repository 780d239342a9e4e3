/**
 * Large event fields in S3. A DynamoDB item must stay under 400 KB, so any of
 * `toolInputJson`, `toolOutputJson` and `reasoning` whose UTF-8 size exceeds
 * {@link OFFLOAD_THRESHOLD_BYTES} is written to the payload bucket and the
 * item keeps only a pointer, `<field>Ref` (the object key), and the size,
 * `<field>Bytes`. Reads put the text back before the item is turned into an
 * event, so clients never see the difference — except for a field too large
 * to send inline (over {@link INLINE_FIELD_BYTES}), which a read answers with
 * a short-lived presigned GET URL, `<field>Url`, and its size instead.
 *
 * Configuration: `PAYLOAD_BUCKET`, read on first use (functions that never meet
 * a large field need not be given it); the S3 client as buckets/s3-client.ts
 * builds it (locally `S3_ENDPOINT`), imported on first use.
 */
import { requireEnv } from "../../runtime/env.js";
import { loadS3 } from "../buckets/s3-client.js";
import {
  OFFLOADABLE_FIELDS,
  type OffloadableField,
  type PayloadLocation,
  payloadKey,
  RETENTION_TAG,
  retentionTierDays,
  type SessionLocation,
  sessionPayloadPrefix,
} from "./payload-layout.js";

/**
 * Fields larger than this many bytes (UTF-8) are offloaded to S3. With the
 * three fields at most this size each, an event item stays far below
 * DynamoDB's 400 KB item limit whatever else the 256 KiB request body held.
 */
export const OFFLOAD_THRESHOLD_BYTES = 32 * 1024;

/**
 * The largest offloaded field a read puts back inline (as serialized in the response); a larger one is
 * answered with a presigned URL, so that a response never nears Lambda's 6 MB limit.
 */
export const INLINE_FIELD_BYTES = 1024 * 1024;
/** How long a presigned URL of a large field works. */
export const PRESIGNED_URL_SECONDS = 15 * 60;

/** The event fields {@link offloadLargeFields} looks at (JSON text of the tool objects, and the reasoning). */
export type LargeFields = { readonly [F in OffloadableField]?: string | undefined };

/**
 * An offloaded payload that the item points to is not in the bucket (deleted
 * out of band, or expired by a lifecycle rule shorter than the item's TTL).
 * Not an `AtsError`: the HTTP layer answers it with a generic 500 and logs it.
 */
export class PayloadMissingError extends Error {
  /** The object key the item pointed to. */
  readonly key: string;

  constructor(key: string, options?: { cause?: unknown }) {
    super(`Offloaded payload ${key} is missing from the payload bucket`, options);
    this.name = "PayloadMissingError";
    this.key = key;
  }
}

let bucketName: string | undefined;

/** `PAYLOAD_BUCKET`, read on first use and then kept. */
function payloadBucket(): string {
  bucketName ??= requireEnv("PAYLOAD_BUCKET");
  return bucketName;
}

const CONTENT_TYPES: Readonly<Record<OffloadableField, string>> = {
  toolInputJson: "application/json; charset=utf-8",
  toolOutputJson: "application/json; charset=utf-8",
  reasoning: "text/plain; charset=utf-8",
};

/** The pointer attribute of a field: `<field>Ref`. */
function refAttribute(field: OffloadableField): `${OffloadableField}Ref` {
  return `${field}Ref`;
}

/** The size attribute of an offloaded field (UTF-8 bytes): `<field>Bytes`. */
function sizeAttribute(field: OffloadableField): `${OffloadableField}Bytes` {
  return `${field}Bytes`;
}

/** The attribute a read puts a presigned URL under, for a field too large to inline: `<field>Url`. */
function urlAttribute(field: OffloadableField): `${OffloadableField}Url` {
  return `${field}Url`;
}

let presigner: Promise<typeof import("@aws-sdk/s3-request-presigner")> | undefined;

/** A GET URL of the object, valid for PRESIGNED_URL_SECONDS (signed with the function's own credentials). */
async function presignedUrl(key: string): Promise<string> {
  const { module, client } = await loadS3();
  presigner ??= import("@aws-sdk/s3-request-presigner");
  const { getSignedUrl } = await presigner;
  return getSignedUrl(client, new module.GetObjectCommand({ Bucket: payloadBucket(), Key: key }), {
    expiresIn: PRESIGNED_URL_SECONDS,
  });
}

/**
 * Prepares an event's large fields for its DynamoDB item. Each field whose
 * UTF-8 size exceeds {@link OFFLOAD_THRESHOLD_BYTES} is PUT (SSE-S3) to
 * `payloads/<orgId>/<environment>/<sessionId>/<eventId>/<field>`, tagged
 * with the retention tier of `retentionDays` (see `retentionTierDays`), and
 * all PUTs have completed when the promise resolves: the event may then be
 * written and acknowledged.
 *
 * Keys are deterministic, so retrying the write of the same event overwrites
 * the same objects.
 *
 * @returns the attributes to spread over the item: a small field unchanged
 * under its own name; an offloaded one as `<field>Ref` = the object key and
 * `<field>Bytes` = its UTF-8 size, with
 * `<field>` itself set to `undefined` so that spreading the result over an
 * item that already holds the field removes it (the document client drops
 * undefined attributes). Absent fields are absent from the result.
 * @throws Error when `PAYLOAD_BUCKET` is unset and a field needs offloading,
 * when a field is not well-formed Unicode (it could not round-trip), or
 * when S3 refuses the write; RangeError for a retention no tier fits.
 */
export async function offloadLargeFields(
  location: PayloadLocation,
  fields: LargeFields,
  retentionDays: number,
): Promise<Record<string, string | number | undefined>> {
  const attributes: Record<string, string | number | undefined> = {};
  const offloaded: { readonly field: OffloadableField; readonly key: string; readonly value: string }[] = [];
  for (const field of OFFLOADABLE_FIELDS) {
    const value = fields[field];
    if (value === undefined) continue;
    if (Buffer.byteLength(value, "utf8") <= OFFLOAD_THRESHOLD_BYTES) {
      attributes[field] = value;
      continue;
    }
    if (!value.isWellFormed()) throw new Error(`Field ${field} is not well-formed Unicode and cannot be offloaded`);
    const key = payloadKey(location, field);
    offloaded.push({ field, key, value });
    attributes[field] = undefined;
    attributes[refAttribute(field)] = key;
    attributes[sizeAttribute(field)] = Buffer.byteLength(value, "utf8");
  }
  if (offloaded.length === 0) return attributes;

  // Everything that can fail before S3 is checked before the first PUT starts.
  const bucket = payloadBucket();
  const tagging = `${RETENTION_TAG}=${retentionTierDays(retentionDays)}`;
  const { module, client } = await loadS3();
  await Promise.all(
    offloaded.map(({ field, key, value }) =>
      client.send(
        new module.PutObjectCommand({
          Bucket: bucket,
          Key: key,
          Body: value,
          ContentType: CONTENT_TYPES[field],
          ServerSideEncryption: "AES256",
          Tagging: tagging,
        }),
      ),
    ),
  );
  return attributes;
}

async function readPayload(key: string): Promise<string> {
  const { module, client } = await loadS3();
  try {
    const response = await client.send(new module.GetObjectCommand({ Bucket: payloadBucket(), Key: key }));
    if (response.Body === undefined) throw new Error(`Offloaded payload ${key} came back without a body`);
    return await response.Body.transformToString("utf-8");
  } catch (error) {
    if (error instanceof module.NoSuchKey) throw new PayloadMissingError(key, { cause: error });
    throw error;
  }
}

/**
 * The text of one field of a stored event item, wherever it is: inline in the item, or the offloaded
 * object its `<field>Ref` points to (read whatever its size: for a caller that streams it on, such as the
 * console's field route). Undefined when the item has no such field.
 *
 * @throws PayloadMissingError when the object the item points to is not in the bucket.
 */
export async function readStoredField(
  item: Readonly<Record<string, unknown>>,
  field: OffloadableField,
): Promise<string | undefined> {
  const key = item[refAttribute(field)];
  if (typeof key === "string") return readPayload(key);
  const inline = item[field];
  return typeof inline === "string" ? inline : undefined;
}

/**
 * Puts offloaded fields back into a stored item: for each `<field>Ref`
 * attribute of a field in `fields`, GETs the object and sets `<field>` to its
 * text. Every `<field>Ref` attribute is removed from the result, also those of
 * fields left out of `fields` (a summary read that omits the tool payloads
 * passes `["reasoning"]` and pays for no other GET). An item without any
 * `…Ref` attribute is returned as is (the same object) without calling S3.
 *
 * The objects of one item are fetched concurrently.
 *
 * @throws PayloadMissingError when an object the item points to is not in the
 * bucket: an internal error (HTTP 500), never a silently shortened event. On
 * AWS, S3 reports a missing key as `NoSuchKey` only to a caller allowed
 * `s3:ListBucket`; without it the error is `AccessDenied`, rethrown as is.
 */
export async function resolvePayloadRefs(
  item: Record<string, unknown>,
  fields: readonly OffloadableField[] = OFFLOADABLE_FIELDS,
): Promise<Record<string, unknown>> {
  const refs = OFFLOADABLE_FIELDS.filter((field) => Object.hasOwn(item, refAttribute(field)));
  if (refs.length === 0) return item;
  const resolved: Record<string, unknown> = { ...item };
  for (const field of refs) {
    delete resolved[refAttribute(field)];
    delete resolved[sizeAttribute(field)];
  }
  await Promise.all(
    refs
      .filter((field) => fields.includes(field))
      .map(async (field) => {
        const key = item[refAttribute(field)];
        if (typeof key !== "string") throw new Error(`Attribute ${refAttribute(field)} is not an object key`);
        const storedBytes = item[sizeAttribute(field)];
        // Decided before any GET when the size is known; after it, on the size as it will be sent (escapes included).
        const text =
          typeof storedBytes === "number" && storedBytes > INLINE_FIELD_BYTES ? undefined : await readPayload(key);
        // JSON fields go out as the JSON they are; the reasoning as a JSON string (with its escapes).
        const sent = field === "reasoning" ? JSON.stringify(text) : text;
        if (sent !== undefined && Buffer.byteLength(sent, "utf8") <= INLINE_FIELD_BYTES) {
          resolved[field] = text;
          return;
        }
        resolved[urlAttribute(field)] = await presignedUrl(key);
        resolved[sizeAttribute(field)] =
          typeof storedBytes === "number" ? storedBytes : Buffer.byteLength(text ?? "", "utf8");
      }),
  );
  return resolved;
}

async function deleteKeys(keys: readonly string[]): Promise<void> {
  if (keys.length === 0) return;
  const { module, client } = await loadS3();
  const response = await client.send(
    new module.DeleteObjectsCommand({
      Bucket: payloadBucket(),
      Delete: { Objects: keys.map((Key) => ({ Key })), Quiet: true },
    }),
  );
  const failed = response.Errors ?? [];
  if (failed.length > 0) {
    const first = failed[0];
    throw new Error(
      `Could not delete ${failed.length} payload object(s), e.g. ${first?.Key ?? "?"}: ${first?.Code ?? "?"} ${first?.Message ?? ""}`.trim(),
    );
  }
}

/**
 * Deletes every offloaded payload of a session (everything under
 * `payloads/<orgId>/<environment>/<sessionId>/`), a page of up to 1000 keys
 * at a time (ListObjectsV2, then DeleteObjects). Run it when the session is
 * deleted; running it again deletes nothing more and succeeds.
 *
 * @returns how many objects were deleted.
 * @throws Error when S3 reports a key it could not delete.
 */
export async function deletePayloadsOf(location: SessionLocation): Promise<number> {
  const prefix = sessionPayloadPrefix(location);
  let deleted = 0;
  let continuationToken: string | undefined;
  const { module, client } = await loadS3();
  do {
    const page = await client.send(
      new module.ListObjectsV2Command({
        Bucket: payloadBucket(),
        Prefix: prefix,
        ContinuationToken: continuationToken,
      }),
    );
    const keys = (page.Contents ?? []).flatMap((object) => (object.Key === undefined ? [] : [object.Key]));
    await deleteKeys(keys);
    deleted += keys.length;
    continuationToken = page.IsTruncated === true ? page.NextContinuationToken : undefined;
  } while (continuationToken !== undefined);
  return deleted;
}

/** Whether an item (or the attributes returned by {@link offloadLargeFields}) points to S3 objects. */
export function hasOffloadedFields(attributes: Readonly<Record<string, unknown>>): boolean {
  return OFFLOADABLE_FIELDS.some((field) => typeof attributes[refAttribute(field)] === "string");
}

/**
 * Deletes the objects that the attributes returned by
 * {@link offloadLargeFields} point to: for a write that was refused for good
 * after its payloads were stored (unknown session, another tenant's session),
 * so they do not wait for the lifecycle expiry. Does nothing (no S3 call)
 * when nothing was offloaded.
 */
export async function discardOffloadedFields(attributes: Readonly<Record<string, unknown>>): Promise<void> {
  const keys = OFFLOADABLE_FIELDS.flatMap((field) => {
    const key = attributes[refAttribute(field)];
    return typeof key === "string" ? [key] : [];
  });
  await deleteKeys(keys);
}
