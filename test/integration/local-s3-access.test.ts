/**
 * Issue 21, finding 1: offloaded fields over 1 MiB came back as presigned URLs signed with the process's
 * `AWS_ACCESS_KEY_ID` — DynamoDB Local's key id, the local stack's one secret (DynamoDB Local ignores
 * secrets and listens on every interface). A member reading a large event could then scan every tenant's
 * items. Now the local S3 signs with a credential of its own, and refuses whatever is not signed with it,
 * from anything but a loopback Host. (Every response of every test API is also audited for the DynamoDB
 * credential: test/support/response-audit.ts.)
 */
import { request as httpRequest } from "node:http";
import { networkInterfaces } from "node:os";
import { GetObjectCommand, S3Client } from "@aws-sdk/client-s3";
import { getSignedUrl } from "@aws-sdk/s3-request-presigner";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { LOCAL_REGION } from "../../local/dynamo-credentials.js";
import type { LocalApi } from "../../local/http-adapter.js";
import {
  call,
  createTestKey,
  createTestSession,
  readAllEvents,
  startTestApi,
  type TestKey,
} from "../support/fixtures.js";

let api: LocalApi;
let member: TestKey;
let largeFieldUrl: URL;

const s3Endpoint = new URL(inject("s3Endpoint"));
const bucket = inject("payloadBucket");
const dynamodb = inject("dynamodbCredentials");
const s3KeyId = inject("s3Environment").S3_ACCESS_KEY_ID ?? "";

/** A GET with a Host header of our choosing (fetch does not let a caller set Host). */
function getWithHost(url: URL, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const outgoing = httpRequest(
      { host: url.hostname, port: url.port, path: `${url.pathname}${url.search}`, headers: { host } },
      (response) => {
        response.resume();
        resolve(response.statusCode ?? 0);
      },
    );
    outgoing.on("error", reject);
    outgoing.end();
  });
}

/** A presigned GET of an object, signed by `credentials`. */
async function presign(
  key: string,
  credentials: { accessKeyId: string; secretAccessKey: string },
  options: { expiresIn?: number; signingDate?: Date } = {},
): Promise<string> {
  const client = new S3Client({ endpoint: s3Endpoint.origin, forcePathStyle: true, region: LOCAL_REGION, credentials });
  try {
    return await getSignedUrl(client, new GetObjectCommand({ Bucket: bucket, Key: key }), {
      expiresIn: options.expiresIn ?? 900,
      ...(options.signingDate === undefined ? {} : { signingDate: options.signingDate }),
    });
  } finally {
    client.destroy();
  }
}

beforeAll(async () => {
  api = await startTestApi();
  member = await createTestKey({ scopes: ["sessions:write", "events:write", "read"] });
  const sessionId = await createTestSession(api, member.key);
  const toolOutput = { html: "x".repeat(1_200_000) };
  const created = await call(api, "POST", "/api/sdk/events", {
    key: member.key,
    body: { sessionId, eventType: "tool_call", toolName: "crawl", toolOutput },
  });
  expect(created.status).toBe(201);
  const { events } = await readAllEvents(api, member.key, sessionId);
  largeFieldUrl = new URL(String(events[0]?.toolOutputUrl));
});
afterAll(() => api.close());

describe("a large field's presigned URL", () => {
  it("is signed by the local S3's own credential: it carries nothing of DynamoDB Local's", async () => {
    const url = largeFieldUrl.toString();
    expect(url).not.toContain(dynamodb.accessKeyId);
    expect(url).not.toContain(dynamodb.secretAccessKey);
    expect(largeFieldUrl.searchParams.get("X-Amz-Credential")).toMatch(new RegExp(`^${s3KeyId}/`));
    expect(s3KeyId).toMatch(/^ATSS3[0-9A-F]{20}$/);
    const download = await fetch(url);
    expect(download.status).toBe(200);
    expect(((await download.json()) as { html: string }).html).toHaveLength(1_200_000);
  });
});

describe("the local S3", () => {
  const objectKey = () => decodeURIComponent(largeFieldUrl.pathname.slice(`/${bucket}/`.length));

  it("refuses unsigned reads and listings: a page that finds its port cannot list every tenant's payloads", async () => {
    const unsigned = [
      `${s3Endpoint.origin}${largeFieldUrl.pathname}`,
      `${s3Endpoint.origin}/${bucket}?list-type=2`,
      `${s3Endpoint.origin}/${bucket}/`,
      `${s3Endpoint.origin}/`,
    ];
    for (const url of unsigned) {
      const response = await fetch(url);
      expect(response.status, url).toBe(403);
      expect(await response.text()).toMatch(/<Code>AccessDenied<\/Code><Message>Unsigned requests are refused/);
    }
  });

  it("refuses a tampered, expired or foreign signature — a URL signed with DynamoDB Local's key id included", async () => {
    const tampered = new URL(largeFieldUrl);
    const signature = tampered.searchParams.get("X-Amz-Signature") ?? "";
    tampered.searchParams.set("X-Amz-Signature", `${signature.startsWith("0") ? "1" : "0"}${signature.slice(1)}`);
    const expired = await presign(objectKey(), s3Credentials(), {
      expiresIn: 60,
      signingDate: new Date(Date.now() - 120_000),
    });
    const signedWithDynamoKey = await presign(objectKey(), dynamodb);
    const otherObject = new URL(largeFieldUrl);
    otherObject.pathname = `/${bucket}/payloads/another-org/live/x/y/toolOutputJson`;

    const answers = await Promise.all(
      [tampered.toString(), expired, signedWithDynamoKey, otherObject.toString()].map(async (url) => {
        const response = await fetch(url);
        return [response.status, /<Message>([^<]+)</.exec(await response.text())?.[1]];
      }),
    );
    expect(answers).toEqual([
      [403, "The signature does not match"],
      [403, "The URL has expired"],
      [403, "Unknown access key"],
      [403, "The signature does not match"],
    ]);
  });

  it("answers only a loopback Host (a DNS-rebound page is refused, even with a valid URL)", async () => {
    const port = largeFieldUrl.port;
    expect(await getWithHost(largeFieldUrl, `127.0.0.1:${port}`)).toBe(200);
    for (const host of [
      `evil.example:${port}`,
      `[::1].evil.example:${port}`,
      `127.0.0.1.evil.example:${port}`,
      "127.0.0.1",
    ]) {
      expect(await getWithHost(largeFieldUrl, host), host).toBe(403);
    }
  });

  it("listens on 127.0.0.1 only: not on ::1, nor on the machine's other addresses", async () => {
    expect(s3Endpoint.hostname).toBe("127.0.0.1");
    const others = Object.values(networkInterfaces())
      .flat()
      .flatMap((address) =>
        address !== undefined && !address.internal && address.family === "IPv4" ? [address.address] : [],
      );
    for (const host of ["[::1]", ...others]) {
      await expect(fetch(`http://${host}:${s3Endpoint.port}/`), host).rejects.toThrow();
    }
  });
});

function s3Credentials(): { accessKeyId: string; secretAccessKey: string } {
  const environment = inject("s3Environment");
  return { accessKeyId: environment.S3_ACCESS_KEY_ID ?? "", secretAccessKey: environment.S3_SECRET_ACCESS_KEY ?? "" };
}
