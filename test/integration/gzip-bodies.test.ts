/**
 * Issue 11, large payloads: gzip bodies on routes other than the event routes, the exact 5 MiB edge,
 * what API Gateway does to a body before Lambda sees it (a JSON body travels as an escaped JSON string,
 * a gzip body as base64: both must fit Lambda's 6 MB invocation limit, which the local adapter
 * enforces like AWS), and the read route's largest page.
 */
import { randomBytes } from "node:crypto";
import { gzipSync } from "node:zlib";
import { GetObjectCommand, S3Client } from "@aws-sdk/client-s3";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
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
afterEach(() => {
  vi.restoreAllMocks();
});

const send = (path: string, body: Buffer, headers: Record<string, string> = {}): Promise<ApiResponse> =>
  call(api, "POST", path, { key: owner.key, body, headers });

/** A single-event body of exactly `bytes` bytes, its toolOutput string filled with `filler`. */
function eventBodyOf(sessionId: string, bytes: number, filler: (length: number) => string): Buffer {
  const empty = JSON.stringify({ sessionId, eventType: "tool_call", toolName: "fetch", toolOutput: { text: "" } });
  const body = Buffer.from(empty.replace('"text":""', `"text":"${filler(bytes - empty.length)}"`));
  expect(body.length).toBe(bytes);
  return body;
}

const readAll = async (sessionId: string) => {
  const { events, pageBytes } = await readAllEvents(api, owner.key, sessionId);
  return { events, responseBytes: pageBytes };
};

describe("gzip bodies on every route that takes a body", () => {
  it("a gzip body on POST /api/sdk/sessions is accepted", async () => {
    const body = { name: "gzip run", agentName: "gzip-agent", userId: "user-gz", metadata: { note: "compressed" } };
    const created = await send("/api/sdk/sessions", gzipSync(JSON.stringify(body)), { "content-encoding": "gzip" });
    expect(created.status).toBe(201);
    const read = await call(api, "GET", `/api/sdk/sessions/${String(created.body.id)}`, { key: owner.key });
    expect(read.body).toMatchObject(body);
  });

  it("a gzip body on POST /api/sdk/sessions over 256 KiB once decompressed is 413, though 1 KB compressed", async () => {
    const body = JSON.stringify({ name: "x".repeat(LIMITS.bodyBytes), agentName: "a", userId: "u" });
    const compressed = gzipSync(body);
    expect(compressed.length).toBeLessThan(2_000);
    const response = await send("/api/sdk/sessions", compressed, { "content-encoding": "gzip" });
    expect(response.status).toBe(413);
    expect(response.body).toEqual({
      error: "Payload Too Large",
      message: `Request body is over ${LIMITS.bodyBytes} bytes (decompressed); the limit is ${LIMITS.bodyBytes} bytes`,
    });
  });

  it("Content-Encoding names are case-insensitive (GZIP)", async () => {
    const sessionId = await createTestSession(api, owner.key);
    const body = gzipSync(JSON.stringify({ sessionId, eventType: "state_change", reasoning: "upper-case encoding" }));
    const response = await send("/api/sdk/events", body, { "content-encoding": "GZIP" });
    expect(response.status).toBe(201);
  });
});

describe("the 5 MiB event body as Lambda receives it", () => {
  it("a plain JSON body of exactly 5 MiB is accepted (its event fits Lambda's 6 MB) and read back byte for byte", async () => {
    const sessionId = await createTestSession(api, owner.key);
    const body = eventBodyOf(sessionId, LIMITS.eventBodyBytes, (length) => "w".repeat(length));

    const created = await send("/api/sdk/events", body);
    const { events } = await readAll(sessionId);

    expect(created.status).toBe(201);
    const sent = JSON.parse(body.toString()) as { toolOutput: unknown };
    const download = await fetch(String(events[0]?.toolOutputUrl));
    expect(events[0]?.toolOutputBytes).toBe(Buffer.byteLength(JSON.stringify(sent.toolOutput)));
    expect(JSON.parse(await download.text())).toEqual(sent.toolOutput);
  });

  it("a gzip body of 5 MiB of hardly compressible JSON is accepted: base64 of its ~3.8 MiB still fits 6 MB", async () => {
    const sessionId = await createTestSession(api, owner.key);
    const body = eventBodyOf(sessionId, LIMITS.eventBodyBytes, (length) =>
      randomBytes(length).toString("base64").slice(0, length),
    );
    const compressed = gzipSync(body);
    expect(compressed.length).toBeGreaterThan(3.5 * 1024 * 1024);

    const created = await send("/api/sdk/events", compressed, { "content-encoding": "gzip" });
    const { events } = await readAll(sessionId);

    expect(created.status).toBe(201);
    const download = await fetch(String(events[0]?.toolOutputUrl));
    expect(await download.text()).toBe(
      JSON.stringify((JSON.parse(body.toString()) as { toolOutput: unknown }).toolOutput),
    );
  });

  it("a body whose escaping takes the Lambda event over 6 MB is 413 JSON before any function runs", async () => {
    const sessionId = await createTestSession(api, owner.key);
    // 3.5 MiB of escaped backslashes ("\\" in the JSON): API Gateway sends each as four bytes.
    const body = eventBodyOf(sessionId, 3.5 * 1024 * 1024, (length) => "\\\\".repeat(length / 2));
    const response = await send("/api/sdk/events", body);
    expect(response.status).toBe(413);
    expect(response.body.error).toBe("Payload Too Large");
    expect(String(response.body.message)).toMatch(
      /^Request is \d+ bytes as API Gateway passes it to Lambda \(body escaped or base64-encoded\); Lambda's limit is 6291456 bytes$/,
    );
  });
});

describe("fields too large to inline", () => {
  it("toolInput and a non-ASCII reasoning over 1 MiB come back as presigned URLs of their exact bytes, summary too", async () => {
    const sessionId = await createTestSession(api, owner.key);
    const toolInput = { query: "q", documents: ["d".repeat(700_000), "e".repeat(700_000)] };
    const reasoning = "Überlegung: ".repeat(110_000); // 1,430,000 bytes of UTF-8, fewer characters
    const small = { status: "ok" };
    const created = await call(api, "POST", "/api/sdk/events", {
      key: owner.key,
      body: { sessionId, eventType: "tool_call", toolName: "search", toolInput, toolOutput: small, reasoning },
    });
    expect(created.status).toBe(201);

    for (const fields of ["", "?fields=summary"]) {
      const read = await call(api, "GET", `/api/sdk/sessions/${sessionId}/events${fields}`, { key: owner.key });
      const [event = {}] = read.body.items as Record<string, unknown>[];
      expect(event.reasoning).toBeUndefined();
      expect(event.reasoningBytes).toBe(Buffer.byteLength(reasoning, "utf8"));
      expect(await (await fetch(String(event.reasoningUrl))).text()).toBe(reasoning);
      if (fields === "") {
        expect(event.toolInput).toBeUndefined();
        expect(event.toolInputBytes).toBe(Buffer.byteLength(JSON.stringify(toolInput)));
        expect(await (await fetch(String(event.toolInputUrl))).json()).toEqual(toolInput);
        expect(event.toolOutput).toEqual(small);
        expect(event.toolOutputUrl).toBeUndefined();
      } else {
        expect(Object.keys(event).filter((key) => key.startsWith("tool") && key !== "toolName")).toEqual([]);
      }
      expect(String(event.reasoningUrl)).toMatch(/X-Amz-Expires=900&/);
    }
  });
});

describe("the read route's largest response", () => {
  it("pages of ten 1 MB inline events are cut before 4 MiB, continue by cursor, and return each event once", async () => {
    const sessionId = await createTestSession(api, owner.key);
    const outputs = Array.from({ length: 10 }, (_, index) => ({ index, html: String(index).repeat(1_000_000) }));
    for (const half of [outputs.slice(0, 5), outputs.slice(5)]) {
      const events = half.map((toolOutput) => ({ sessionId, eventType: "tool_call", toolName: "fetch", toolOutput }));
      const created = await send("/api/sdk/events/batch", Buffer.from(JSON.stringify({ events })));
      expect(created.status).toBe(200);
      expect((created.body.results as { status: number }[]).every((result) => result.status === 201)).toBe(true);
    }

    const { events, responseBytes } = await readAll(sessionId);

    expect(events.map((event) => event.toolOutput)).toEqual(outputs);
    expect(responseBytes.length).toBeGreaterThanOrEqual(3);
    expect(Math.max(...responseBytes)).toBeLessThanOrEqual(4 * 1024 * 1024 + 1_000);
    console.info(`read route response sizes (bytes): ${responseBytes.join(", ")}`);
  });

  it("a page cut by its budget does not download the fields of the events it leaves for the next page", async () => {
    const sessionId = await createTestSession(api, owner.key);
    for (let batch = 0; batch < 3; batch += 1) {
      const events = Array.from({ length: 4 }, (_, index) => ({
        sessionId,
        eventType: "tool_call",
        toolName: "fetch",
        toolOutput: { html: String(index).repeat(1_000_000) },
      }));
      const created = await send("/api/sdk/events/batch", Buffer.from(JSON.stringify({ events })));
      expect(created.status).toBe(200);
    }
    const s3Send = vi.spyOn(S3Client.prototype, "send");

    const first = await call(api, "GET", `/api/sdk/sessions/${sessionId}/events`, { key: owner.key });

    expect(first.status).toBe(200);
    expect((first.body.items as unknown[]).length).toBe(4);
    const gets = s3Send.mock.calls.filter(([command]) => command instanceof GetObjectCommand);
    // Four events returned, and at most one group of four fetched ahead (not all twelve).
    expect(gets.length).toBeLessThanOrEqual(8);
  });
});
