/**
 * The payload store against a local S3 (s3rver, started by this file): what
 * is offloaded, how it comes back, idempotent retries, session deletion and a
 * missing object. The S3 client's `send` is spied on to count S3 calls.
 */
import { randomUUID } from "node:crypto";
import {
  GetObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  type PutObjectCommandInput,
  S3Client,
} from "@aws-sdk/client-s3";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import type { PayloadLocation } from "../../functions/store/payloads/payload-layout.js";
import { DEFAULT_LOCAL_CREDENTIALS as LOCAL_CREDENTIALS, LOCAL_REGION } from "../../local/dynamo-credentials.js";
import { type RunningS3, s3Environment, startS3Local } from "../../local/s3-local.js";

type PayloadStore = typeof import("../../functions/store/payloads/payload-store.js");

let s3: RunningS3;
let store: PayloadStore;
let inspector: S3Client;

beforeAll(async () => {
  s3 = await startS3Local();
  const { hostname } = new URL(s3.endpoint);
  if (hostname !== "127.0.0.1") throw new Error(`Tests only run against a local S3, not ${s3.endpoint}`);
  Object.assign(process.env, s3Environment(s3));
  process.env.AWS_REGION = LOCAL_REGION;
  process.env.AWS_ACCESS_KEY_ID = LOCAL_CREDENTIALS.accessKeyId;
  process.env.AWS_SECRET_ACCESS_KEY = LOCAL_CREDENTIALS.secretAccessKey;
  store = await import("../../functions/store/payloads/payload-store.js");
  inspector = new S3Client({
    endpoint: s3.endpoint,
    forcePathStyle: true,
    region: LOCAL_REGION,
    credentials: { ...s3.credentials },
  });
});

afterAll(async () => {
  inspector?.destroy();
  await s3?.stop();
});

afterEach(() => {
  vi.restoreAllMocks();
});

/** A fresh event location, so no test sees another's objects. */
function newLocation(overrides: Partial<PayloadLocation> = {}): PayloadLocation {
  const id = randomUUID().replaceAll("-", "").toUpperCase();
  return {
    orgId: `org-${id.slice(0, 8).toLowerCase()}`,
    environment: "test",
    sessionId: `ses_${id}`,
    eventId: `evt_${randomUUID().replaceAll("-", "").toUpperCase()}`,
    ...overrides,
  };
}

/** Counts every command the S3 clients send (the store's and the inspector's share the prototype). */
function spyOnS3() {
  return vi.spyOn(S3Client.prototype, "send");
}

/** A JSON text of exactly `bytes` UTF-8 bytes, mixing 1-, 2-, 3- and 4-byte characters. */
function jsonOfBytes(bytes: number): string {
  const unit = "aé€🙂"; // 1 + 2 + 3 + 4 = 10 bytes
  const frame = '{"text":""}';
  const body = unit.repeat(Math.floor((bytes - frame.length) / 10));
  const padding = "x".repeat(bytes - frame.length - Buffer.byteLength(body, "utf8"));
  const text = `{"text":"${body}${padding}"}`;
  expect(Buffer.byteLength(text, "utf8")).toBe(bytes);
  return text;
}

async function keysUnder(prefix: string): Promise<string[]> {
  const page = await inspector.send(new ListObjectsV2Command({ Bucket: s3.bucket, Prefix: prefix }));
  return (page.Contents ?? []).flatMap((object) => (object.Key === undefined ? [] : [object.Key])).sort();
}

function sessionPrefix(location: PayloadLocation): string {
  return `payloads/${location.orgId}/${location.environment}/${location.sessionId}/`;
}

describe("offloadLargeFields", () => {
  it("returns small fields unchanged without calling S3", async () => {
    // Prepare
    const send = spyOnS3();
    const fields = {
      toolInputJson: '{"query":"refund policy"}',
      toolOutputJson: jsonOfBytes(store.OFFLOAD_THRESHOLD_BYTES),
      reasoning: "Because the customer asked twice — ✓",
    };

    // Act
    const attributes = await store.offloadLargeFields(newLocation(), fields, 90);

    // Assess
    expect(attributes).toEqual(fields);
    expect(send).not.toHaveBeenCalled();
  });

  it("leaves absent fields absent", async () => {
    const send = spyOnS3();

    const attributes = await store.offloadLargeFields(newLocation(), { reasoning: "short" }, 90);

    expect(attributes).toEqual({ reasoning: "short" });
    expect(send).not.toHaveBeenCalled();
  });

  it("offloads fields over the threshold, replaces them by refs and resolves them back byte-identical", async () => {
    // Prepare
    const location = newLocation();
    const toolInputJson = jsonOfBytes(100 * 1024);
    const reasoning = "Weighing 🙂 options, ünïcödé and 漢字. ".repeat(1300);
    expect(Buffer.byteLength(reasoning, "utf8")).toBeGreaterThan(50 * 1024);
    const toolOutputJson = '{"hits":3}';

    // Act
    const attributes = await store.offloadLargeFields(location, { toolInputJson, toolOutputJson, reasoning }, 90);

    // Assess: pointers at the deterministic keys, originals gone (undefined), small field kept
    const prefix = `${sessionPrefix(location)}${location.eventId}/`;
    expect(attributes).toEqual({
      toolInputJson: undefined,
      toolInputJsonRef: `${prefix}toolInputJson`,
      toolInputJsonBytes: Buffer.byteLength(toolInputJson, "utf8"),
      toolOutputJson,
      reasoning: undefined,
      reasoningRef: `${prefix}reasoning`,
      reasoningBytes: Buffer.byteLength(reasoning, "utf8"),
    });
    const item = {
      PK: `SESSION#${location.sessionId}`,
      SK: `EVENT#${location.eventId}`,
      ...Object.fromEntries(Object.entries(attributes).filter(([, value]) => value !== undefined)),
    };
    expect(Object.keys(item)).not.toContain("toolInputJson");
    expect(Object.keys(item)).not.toContain("reasoning");
    expect(await keysUnder(prefix)).toEqual([`${prefix}reasoning`, `${prefix}toolInputJson`]);

    // Act: the read side
    const resolved = await store.resolvePayloadRefs(item);

    // Assess
    expect(resolved).toEqual({
      PK: item.PK,
      SK: item.SK,
      toolInputJson,
      toolOutputJson,
      reasoning,
    });
    expect(Buffer.from(String(resolved.toolInputJson), "utf8").equals(Buffer.from(toolInputJson, "utf8"))).toBe(true);
    expect(Buffer.from(String(resolved.reasoning), "utf8").equals(Buffer.from(reasoning, "utf8"))).toBe(true);
  });

  it("stores the objects encrypted, with their content type and the retention tier tag", async () => {
    // Prepare
    const send = spyOnS3();
    const location = newLocation();

    // Act
    const attributes = await store.offloadLargeFields(
      location,
      { toolOutputJson: jsonOfBytes(40 * 1024), reasoning: "r".repeat(40 * 1024) },
      100,
    );

    // Assess
    const puts: PutObjectCommandInput[] = send.mock.calls.flatMap(([command]: readonly unknown[]) =>
      command instanceof PutObjectCommand ? [command.input] : [],
    );
    expect(puts).toHaveLength(2);
    expect(
      puts.map(({ Key, ContentType, ServerSideEncryption, Tagging }) => ({
        Key,
        ContentType,
        ServerSideEncryption,
        Tagging,
      })),
    ).toEqual([
      {
        Key: attributes.toolOutputJsonRef,
        ContentType: "application/json; charset=utf-8",
        ServerSideEncryption: "AES256",
        Tagging: "retention-days=180",
      },
      {
        Key: attributes.reasoningRef,
        ContentType: "text/plain; charset=utf-8",
        ServerSideEncryption: "AES256",
        Tagging: "retention-days=180",
      },
    ]);
    const object = await inspector.send(
      new GetObjectCommand({ Bucket: s3.bucket, Key: String(attributes.reasoningRef) }),
    );
    expect(object.ContentType).toBe("text/plain; charset=utf-8");
  });

  it("overwrites the same object when the write of the same event is retried", async () => {
    // Prepare
    const location = newLocation();
    await store.offloadLargeFields(location, { toolInputJson: jsonOfBytes(60 * 1024) }, 90);
    const retried = jsonOfBytes(70 * 1024);

    // Act
    const attributes = await store.offloadLargeFields(location, { toolInputJson: retried }, 90);

    // Assess: still one object, now holding the retried text
    expect(await keysUnder(sessionPrefix(location))).toEqual([attributes.toolInputJsonRef]);
    const resolved = await store.resolvePayloadRefs({ toolInputJsonRef: attributes.toolInputJsonRef });
    expect(resolved).toEqual({ toolInputJson: retried });
  });

  it("refuses a retention that no lifecycle tier covers, before writing anything", async () => {
    const send = spyOnS3();

    await expect(store.offloadLargeFields(newLocation(), { reasoning: "r".repeat(40 * 1024) }, 4000)).rejects.toThrow(
      "Retention of 4000 days is outside 0 < days ≤ 3650: no payload lifecycle tier fits",
    );
    expect(send).not.toHaveBeenCalled();
  });
});

describe("resolvePayloadRefs", () => {
  it("returns an item without refs as is, without calling S3", async () => {
    const send = spyOnS3();
    const item = { PK: "SESSION#ses_X", SK: "EVENT#evt_Y", toolInputJson: "{}", reasoning: "because" };

    const resolved = await store.resolvePayloadRefs(item);

    expect(resolved).toBe(item);
    expect(send).not.toHaveBeenCalled();
  });

  it("fetches only the requested fields and still removes every ref attribute", async () => {
    // Prepare
    const location = newLocation();
    const reasoning = "ß".repeat(20 * 1024);
    const attributes = await store.offloadLargeFields(
      location,
      { toolInputJson: jsonOfBytes(40 * 1024), reasoning },
      30,
    );
    const send = spyOnS3();

    // Act: a summary read, which leaves the tool payloads out
    const resolved = await store.resolvePayloadRefs({ SK: "EVENT#x", ...attributes }, ["reasoning"]);

    // Assess
    expect(resolved).toEqual({ SK: "EVENT#x", toolInputJson: undefined, reasoning });
    expect(send).toHaveBeenCalledTimes(1);
  });

  it("raises PayloadMissingError, naming the key, when the object is gone", async () => {
    // Prepare
    const key = `${sessionPrefix(newLocation())}evt_GONE/toolOutputJson`;

    // Act
    const resolving = store.resolvePayloadRefs({ toolOutputJsonRef: key });

    // Assess
    await expect(resolving).rejects.toThrow(store.PayloadMissingError);
    await expect(resolving).rejects.toThrow(`Offloaded payload ${key} is missing from the payload bucket`);
    await expect(resolving).rejects.toMatchObject({ name: "PayloadMissingError", key });
  });
});

describe("deletePayloadsOf", () => {
  it("deletes every object of the session and leaves other sessions' objects", async () => {
    // Prepare: two events of one session, and one event of another session of the same tenant
    const first = newLocation();
    const second = { ...first, eventId: `${first.eventId}2` };
    const other = newLocation({ orgId: first.orgId });
    const large = { toolInputJson: jsonOfBytes(33 * 1024), reasoning: "ü".repeat(17 * 1024) };
    await store.offloadLargeFields(first, large, 90);
    await store.offloadLargeFields(second, large, 90);
    const kept = await store.offloadLargeFields(other, large, 90);

    // Act
    const deleted = await store.deletePayloadsOf(first);

    // Assess
    expect(deleted).toBe(4);
    expect(await keysUnder(sessionPrefix(first))).toEqual([]);
    expect(await keysUnder(sessionPrefix(other))).toEqual([kept.reasoningRef, kept.toolInputJsonRef].sort());
    await expect(store.deletePayloadsOf(first)).resolves.toBe(0);
  });
});

describe("discardOffloadedFields", () => {
  it("deletes the objects a refused write had stored, and does nothing for small fields", async () => {
    // Prepare
    const location = newLocation();
    const attributes = await store.offloadLargeFields(
      location,
      { toolOutputJson: jsonOfBytes(50 * 1024), reasoning: "short" },
      90,
    );

    // Act
    await store.discardOffloadedFields(attributes);

    // Assess
    expect(await keysUnder(sessionPrefix(location))).toEqual([]);
    const send = spyOnS3();
    await store.discardOffloadedFields({ reasoning: "short" });
    expect(send).not.toHaveBeenCalled();
  });
});
