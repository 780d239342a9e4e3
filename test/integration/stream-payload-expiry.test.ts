/**
 * Issue 21, finding 5: S3 lifecycle tiers kept offloaded payloads up to twice the retention after DynamoDB
 * TTL removed their session, where erasure could no longer find them. Now counting marks a session whose
 * events offloaded a field (`hasPayloads`), and the stream's TTL deletion of a marked session deletes its
 * payloads. DynamoDB Local does not expire items, so the TTL deletion is the record DynamoDB's stream would
 * deliver (a REMOVE by the DynamoDB service), given to the consumer module itself.
 */

import { ListObjectsV2Command, S3Client } from "@aws-sdk/client-s3";
import { DeleteCommand } from "@aws-sdk/lib-dynamodb";
import { marshall } from "@aws-sdk/util-dynamodb";
import type { DynamoDBRecord } from "aws-lambda";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { sessionPayloadPrefix } from "../../functions/store/payloads/payload-layout.js";
import { documentClient, tableName } from "../../functions/store/table/dynamo-client.js";
import { sessionKey } from "../../functions/store/table/keys.js";
import { handler as consumeStream } from "../../functions/stream/stream-consumer.js";
import { LOCAL_REGION } from "../../local/dynamo-credentials.js";
import type { LocalApi } from "../../local/http-adapter.js";
import {
  call,
  createTestKey,
  createTestSession,
  startTestApi,
  storedSession,
  type TestKey,
} from "../support/fixtures.js";

let api: LocalApi;
let owner: TestKey;
let inspector: S3Client;

beforeAll(async () => {
  api = await startTestApi();
  owner = await createTestKey();
  const environment = inject("s3Environment");
  inspector = new S3Client({
    endpoint: inject("s3Endpoint"),
    forcePathStyle: true,
    region: LOCAL_REGION,
    credentials: {
      accessKeyId: environment.S3_ACCESS_KEY_ID ?? "",
      secretAccessKey: environment.S3_SECRET_ACCESS_KEY ?? "",
    },
  });
});
afterAll(async () => {
  inspector.destroy();
  await api.close();
});

async function payloadObjects(sessionId: string): Promise<string[]> {
  const page = await inspector.send(
    new ListObjectsV2Command({
      Bucket: inject("payloadBucket"),
      Prefix: sessionPayloadPrefix({ orgId: owner.orgId, environment: "live", sessionId }),
    }),
  );
  return (page.Contents ?? []).flatMap((object) => (object.Key === undefined ? [] : [object.Key]));
}

/** The stream record of the session item's deletion: by DynamoDB TTL, or by a request of the service. */
function removal(item: Record<string, unknown>, sequence: string, byTtl: boolean): DynamoDBRecord {
  return {
    eventName: "REMOVE",
    ...(byTtl ? { userIdentity: { type: "Service", principalId: "dynamodb.amazonaws.com" } } : {}),
    dynamodb: {
      Keys: marshall(sessionKey(String(item.id))) as never,
      OldImage: marshall(item, { removeUndefinedValues: true }) as never,
      SequenceNumber: sequence,
      StreamViewType: "NEW_AND_OLD_IMAGES",
    },
  };
}

describe("a session's expiry", () => {
  it("takes its offloaded payloads with it: counting marks the session, the TTL deletion's record deletes them", async () => {
    const sessionId = await createTestSession(api, owner.key);
    const plain = await createTestSession(api, owner.key);
    for (const [session, size] of [
      [sessionId, 50_000],
      [plain, 100],
    ] as const) {
      const written = await call(api, "POST", "/api/sdk/events", {
        key: owner.key,
        body: { sessionId: session, eventType: "tool_call", toolName: "fetch", toolOutput: { page: "p".repeat(size) } },
      });
      expect(written.status).toBe(201);
    }
    const marked = await storedSession(sessionId);
    const unmarked = await storedSession(plain);
    expect(marked?.hasPayloads).toBe(true);
    expect(unmarked?.hasPayloads).toBeUndefined();
    expect(await payloadObjects(sessionId)).toHaveLength(1);
    await documentClient.send(new DeleteCommand({ TableName: tableName, Key: sessionKey(sessionId) }));

    // A deletion by a request leaves the payloads to the path that made it (session deletion, erasure).
    const byRequest = await consumeStream({ Records: [removal(marked ?? {}, "100", false)], shardId: "solo-expiry" });
    expect(await payloadObjects(sessionId)).toHaveLength(1);

    const byTtl = await consumeStream({
      Records: [removal(unmarked ?? {}, "101", true), removal(marked ?? {}, "102", true)],
      shardId: "solo-expiry",
    });

    expect(byRequest.batchItemFailures).toEqual([]);
    expect(byTtl.batchItemFailures).toEqual([]);
    expect(await payloadObjects(sessionId)).toEqual([]);
  });
});
