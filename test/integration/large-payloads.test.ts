/**
 * Issue 11, "limits that fall short of what users send": event bodies up to 5 MiB with fields of any
 * size (offloaded to S3), gzip request bodies (limits on the decompressed size, bomb-safe), and a read
 * API that never builds a response near Lambda's 6 MB limit (pages stop early; a field over 1 MiB comes
 * back as a presigned URL).
 */
import { randomUUID } from "node:crypto";
import { gzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { LIMITS } from "../../functions/domain/limits.js";
import type { LocalApi } from "../../local/http-adapter.js";
import {
  type ApiResponse,
  call,
  createTestKey,
  createTestSession,
  readAllEvents,
  startTestApi,
  type TestKey,
} from "../support/fixtures.js";

let api: LocalApi;
let owner: TestKey;

beforeAll(async () => {
  api = await startTestApi();
  owner = await createTestKey({ scopes: ["sessions:write", "events:write", "read"] });
});
afterAll(() => api.close());

/** A JSON object of about `bytes` bytes, like a fetched web page. */
const page = (bytes: number, seed = "a") => ({
  url: `https://example.com/${seed}`,
  html: `<p>${"w".repeat(bytes)}</p>`,
});

const send = (path: string, body: Buffer, headers: Record<string, string> = {}): Promise<ApiResponse> =>
  call(api, "POST", path, { key: owner.key, body, headers });

const readAll = async (sessionId: string) => {
  const { events, pageBytes } = await readAllEvents(api, owner.key, sessionId);
  return { events, pageSizes: pageBytes };
};

describe("large bodies and fields", () => {
  it("a 200 KB toolOutput (a fetched web page) is accepted and read back intact", async () => {
    const sessionId = await createTestSession(api, owner.key);
    const toolOutput = page(200_000);
    const created = await call(api, "POST", "/api/sdk/events", {
      key: owner.key,
      body: { sessionId, eventType: "tool_call", toolName: "fetch", toolOutput },
    });
    expect(created.status).toBe(201);
    const { events } = await readAll(sessionId);
    expect(events[0]?.toolOutput).toEqual(toolOutput);
  });

  it("a 4.5 MiB single event is accepted; its field comes back as a presigned URL of the exact JSON", async () => {
    const sessionId = await createTestSession(api, owner.key);
    const toolOutput = page(4.5 * 1024 * 1024);
    const body = Buffer.from(JSON.stringify({ sessionId, eventType: "tool_call", toolName: "crawl", toolOutput }));
    expect(body.length).toBeGreaterThan(4.5 * 1024 * 1024);

    const created = await send("/api/sdk/events", body);
    const { events, pageSizes } = await readAll(sessionId);

    expect(created.status).toBe(201);
    const event = events[0] ?? {};
    expect(event.toolOutput).toBeUndefined();
    expect(event.toolOutputBytes).toBe(Buffer.byteLength(JSON.stringify(toolOutput)));
    expect(String(event.toolOutputUrl)).toMatch(/X-Amz-Signature=/);
    const download = await fetch(String(event.toolOutputUrl));
    expect(download.status).toBe(200);
    expect(JSON.parse(await download.text())).toEqual(toolOutput);
    expect(Math.max(...pageSizes)).toBeLessThan(10_000);
  });

  it("a 4.5 MiB batch is accepted; its events come back across pages cut before 4 MiB, each exactly once", async () => {
    const sessionId = await createTestSession(api, owner.key);
    const events = Array.from({ length: 9 }, (_, index) => ({
      sessionId,
      eventType: "tool_call",
      toolName: "fetch",
      toolOutput: page(500_000, `page-${index}`),
    }));
    const body = Buffer.from(JSON.stringify({ events }));
    expect(body.length).toBeGreaterThan(4.2 * 1024 * 1024);

    const created = await send("/api/sdk/events/batch", body);
    const read = await readAll(sessionId);

    expect((created.body.results as { status: number }[]).map((result) => result.status)).toEqual(
      Array.from({ length: 9 }, () => 201),
    );
    expect(read.events.map((event) => event.toolOutput)).toEqual(events.map((event) => event.toolOutput));
    expect(read.pageSizes.length).toBeGreaterThan(1);
    expect(Math.max(...read.pageSizes)).toBeLessThanOrEqual(4 * 1024 * 1024 + 1_000);
  });

  it("a body of 5 MiB + 1 byte is 413 with the limit in the message", async () => {
    const body = Buffer.alloc(LIMITS.eventBodyBytes + 1, " ");
    body.write('{"events":[]}');
    const response = await send("/api/sdk/events/batch", body);
    expect(response.status).toBe(413);
    expect(response.body).toEqual({
      error: "Payload Too Large",
      message: `Request body is ${LIMITS.eventBodyBytes + 1} bytes; the limit is ${LIMITS.eventBodyBytes} bytes`,
    });
  });
});

describe("gzip request bodies", () => {
  it("a gzip body is accepted, and is the same request as its plain form for Idempotency-Key", async () => {
    const sessionId = await createTestSession(api, owner.key);
    const plain = Buffer.from(
      JSON.stringify({ sessionId, eventType: "tool_call", toolName: "fetch", toolOutput: page(300_000) }),
    );
    const key = randomUUID();

    const compressed = await send("/api/sdk/events", gzipSync(plain), {
      "content-encoding": "gzip",
      "idempotency-key": key,
    });
    const retried = await send("/api/sdk/events", plain, { "idempotency-key": key });

    expect(compressed.status).toBe(201);
    expect(retried.status).toBe(201);
    expect(retried.headers.get("idempotent-replayed")).toBe("true");
    expect(retried.body.id).toBe(compressed.body.id);
  });

  it("a gzip bomb (64 MiB of one letter in 65 KB) is 413 on the decompressed size", async () => {
    const bomb = gzipSync(Buffer.alloc(64 * 1024 * 1024, "a"));
    expect(bomb.length).toBeLessThan(100_000);
    const response = await send("/api/sdk/events", bomb, { "content-encoding": "gzip" });
    expect(response.status).toBe(413);
    expect(response.body.message).toBe(
      `Request body is over ${LIMITS.eventBodyBytes} bytes (decompressed); the limit is ${LIMITS.eventBodyBytes} bytes`,
    );
  });

  it("a body that is not valid gzip is 400", async () => {
    const response = await send("/api/sdk/events", Buffer.from("not gzip at all"), { "content-encoding": "gzip" });
    expect(response.status).toBe(400);
    expect(response.body.message).toBe("Request body is not valid gzip (Content-Encoding: gzip)");
  });

  it("another Content-Encoding is 415", async () => {
    const response = await send("/api/sdk/events", Buffer.from("{}"), { "content-encoding": "br" });
    expect(response.status).toBe(415);
    expect(response.body.message).toBe('Unsupported Content-Encoding "br": send gzip or none');
  });
});
