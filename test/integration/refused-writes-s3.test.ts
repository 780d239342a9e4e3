/**
 * Issue 11, defect 3: fields over 32 KiB are written to S3 before the session is checked, and refused
 * writes left their objects behind (one batch to an unknown session left 30 objects, ~1.5 MB) where no
 * deletion or erasure would ever find them. Every refusal now removes what it uploaded.
 */
import { randomUUID } from "node:crypto";
import { ListObjectsV2Command, S3Client } from "@aws-sdk/client-s3";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { LOCAL_REGION } from "../../local/dynamo-credentials.js";
import type { LocalApi } from "../../local/http-adapter.js";
import { call, createTestKey, createTestSession, startTestApi, type TestKey } from "../support/fixtures.js";

let api: LocalApi;
let inspector: S3Client;
let owner: TestKey;
let stranger: TestKey;

beforeAll(async () => {
  api = await startTestApi();
  inspector = new S3Client({
    endpoint: inject("s3Endpoint"),
    forcePathStyle: true,
    region: LOCAL_REGION,
    credentials: {
      accessKeyId: inject("s3Environment").S3_ACCESS_KEY_ID ?? "",
      secretAccessKey: inject("s3Environment").S3_SECRET_ACCESS_KEY ?? "",
    },
  });
  owner = await createTestKey({ scopes: ["sessions:write", "events:write", "read"] });
  stranger = await createTestKey({ scopes: ["sessions:write", "events:write", "read"] });
});
afterAll(async () => {
  inspector.destroy();
  await api.close();
});

/** Every payload object of the owner's organisation (its events, whatever session they name). */
async function ownerObjects(): Promise<string[]> {
  const keys: string[] = [];
  let token: string | undefined;
  do {
    const page = await inspector.send(
      new ListObjectsV2Command({
        Bucket: inject("payloadBucket"),
        Prefix: `payloads/${owner.orgId}/`,
        ContinuationToken: token,
      }),
    );
    keys.push(...(page.Contents ?? []).flatMap((object) => (object.Key === undefined ? [] : [object.Key])));
    token = page.IsTruncated === true ? page.NextContinuationToken : undefined;
  } while (token !== undefined);
  return keys.sort();
}

/** An event with a toolOutput over the 32 KiB offload threshold (50 KB by default), so it goes to S3. */
const largeEvent = (sessionId: string, units = 5_500) => ({
  sessionId,
  eventType: "tool_call",
  toolName: "fetch",
  toolOutput: { page: "<p>ok</p>".repeat(units) },
});

const UNKNOWN_SESSION = "ses_01JAAAAAAAAAAAAAAAAAAAAAAA";

describe("refused writes leave nothing in S3", () => {
  it("a 404 for an unknown session", async () => {
    const before = await ownerObjects();
    const response = await call(api, "POST", "/api/sdk/events", { key: owner.key, body: largeEvent(UNKNOWN_SESSION) });
    expect(response.status).toBe(404);
    expect(await ownerObjects()).toEqual(before);
  });

  it("a 403 for another organisation's session", async () => {
    const foreign = await createTestSession(api, stranger.key);
    const before = await ownerObjects();
    const response = await call(api, "POST", "/api/sdk/events", { key: owner.key, body: largeEvent(foreign) });
    expect(response.status).toBe(403);
    expect(await ownerObjects()).toEqual(before);
  });

  it("a batch of 30 large events to an unknown session", async () => {
    const before = await ownerObjects();
    const events = Array.from({ length: 30 }, () => largeEvent(UNKNOWN_SESSION, 3_700));
    const response = await call(api, "POST", "/api/sdk/events/batch", { key: owner.key, body: { events } });
    expect(response.status).toBe(200);
    expect((response.body.results as { status: number }[]).every((result) => result.status === 404)).toBe(true);
    expect(await ownerObjects()).toEqual(before);
  });

  it("a mixed batch keeps exactly the objects of the events it stored", async () => {
    const sessionId = await createTestSession(api, owner.key);
    const before = await ownerObjects();
    const events = [largeEvent(sessionId), largeEvent(UNKNOWN_SESSION), largeEvent(sessionId)];
    const response = await call(api, "POST", "/api/sdk/events/batch", { key: owner.key, body: { events } });
    const results = response.body.results as { status: number; id?: string }[];
    expect(results.map((result) => result.status)).toEqual([201, 404, 201]);
    const added = (await ownerObjects()).filter((key) => !before.includes(key));
    expect(added.sort()).toEqual(
      [results[0]?.id, results[2]?.id]
        .map((id) => `payloads/${owner.orgId}/live/${sessionId}/${id}/toolOutputJson`)
        .sort(),
    );
  });

  it("a replayed or mismatched batch event (same idempotencyKey) adds no object", async () => {
    const sessionId = await createTestSession(api, owner.key);
    const idempotencyKey = randomUUID();
    const first = await call(api, "POST", "/api/sdk/events/batch", {
      key: owner.key,
      body: { events: [{ ...largeEvent(sessionId), idempotencyKey }] },
    });
    const afterFirst = await ownerObjects();

    const replay = await call(api, "POST", "/api/sdk/events/batch", {
      key: owner.key,
      body: { events: [{ ...largeEvent(sessionId), idempotencyKey }] },
    });
    const mismatch = await call(api, "POST", "/api/sdk/events/batch", {
      key: owner.key,
      body: { events: [{ ...largeEvent(sessionId), toolName: "other", idempotencyKey }] },
    });

    expect(first.body.results).toMatchObject([{ status: 201 }]);
    expect(replay.body.results).toMatchObject([{ status: 201, replayed: true }]);
    expect(mismatch.body.results).toMatchObject([{ status: 422 }]);
    expect(await ownerObjects()).toEqual(afterFirst);
  });
});
