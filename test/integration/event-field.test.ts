/**
 * Issue 21, finding 8: the console could not open fields over 1 MiB — its CSP (`connect-src 'self'`) blocks
 * the presigned S3 URL the events route gives for them, and the AWS payload bucket has no CORS. The field
 * route serves any field whole from the API's own origin (gzip when accepted, so a field near the 5 MiB body
 * limit still fits Lambda's 6 MB response), with the tenancy of every read route.
 */
import { get } from "node:http";
import { gunzipSync, gzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { LocalApi } from "../../local/http-adapter.js";
import {
  call,
  createTestKey,
  createTestSession,
  createTestUser,
  readAllEvents,
  startTestApi,
  type TestKey,
  type TestUser,
} from "../support/fixtures.js";

let api: LocalApi;
let owner: TestKey;
let member: TestUser;
let sessionId: string;
const large = { html: `<p>${"w".repeat(1_200_000)}</p>`, quote: 'a "quoted" word' };
let largeEventId: string;
let smallEventId: string;

const fieldPath = (eventId: string, field: string, session = sessionId) =>
  `/api/sdk/sessions/${session}/events/${eventId}/${field}`;
const asMember = (encoding: string) => ({
  key: member.token,
  headers: { "x-organization-id": owner.orgId, "accept-encoding": encoding },
});

async function record(event: Record<string, unknown>): Promise<string> {
  const body = gzipSync(JSON.stringify({ sessionId, ...event }));
  const response = await call(api, "POST", "/api/sdk/events", {
    key: owner.key,
    body,
    headers: { "content-encoding": "gzip" },
  });
  if (response.status !== 201) throw new Error(`event not recorded: ${response.text}`);
  return String(response.body.id);
}

/** The raw answer (fetch undoes gzip itself; this keeps the bytes to show they came compressed). */
async function rawGet(path: string, headers: Record<string, string>) {
  const response = await fetch(`${api.url}${path}`, { headers: { ...headers, "accept-encoding": "gzip" } });
  return { status: response.status, headers: response.headers, text: await response.text() };
}

beforeAll(async () => {
  api = await startTestApi();
  owner = await createTestKey();
  member = await createTestUser(api, { orgId: owner.orgId, role: "member" });
  sessionId = await createTestSession(api, owner.key);
  largeEventId = await record({
    eventType: "tool_call",
    toolName: "crawl",
    toolInput: { url: "x" },
    toolOutput: large,
  });
  smallEventId = await record({ eventType: "llm_decision", reasoning: "because\nit is cheaper" });
});
afterAll(() => api.close());

describe("GET /api/sdk/sessions/{id}/events/{eventId}/{field}", () => {
  it("serves a field over 1 MiB to a console user from the API's origin, gzip-compressed, exactly as recorded", async () => {
    const { events } = await readAllEvents(api, owner.key, sessionId);
    expect(events.find((event) => event.id === largeEventId)?.toolOutputUrl).toMatch(/X-Amz-Signature=/);

    const compressed = await call(api, "GET", fieldPath(largeEventId, "toolOutput"), asMember("gzip, deflate, br"));
    const plain = await call(api, "GET", fieldPath(largeEventId, "toolOutput"), asMember("identity"));

    expect(compressed.status).toBe(200);
    expect(compressed.headers.get("content-encoding")).toBe("gzip");
    expect(compressed.headers.get("content-type")).toBe("application/json; charset=utf-8");
    expect(compressed.headers.get("cache-control")).toBe("no-store");
    expect(JSON.parse(compressed.text)).toEqual(large);
    expect(plain.status).toBe(200);
    expect(plain.headers.get("content-encoding")).toBeNull();
    expect(JSON.parse(plain.text)).toEqual(large);
  });

  it("compresses on the wire (a 1.2 MB field of one letter is a few KB)", async () => {
    // node:http, unlike fetch, hands over the bytes as sent.
    const wire = await new Promise<Buffer>((resolve, reject) => {
      const url = new URL(`${api.url}${fieldPath(largeEventId, "toolOutput")}`);
      get(url, { headers: { authorization: `Bearer ${owner.key}`, "accept-encoding": "gzip" } }, (response) => {
        const chunks: Buffer[] = [];
        response.on("data", (chunk: Buffer) => chunks.push(chunk));
        response.on("end", () => resolve(Buffer.concat(chunks)));
      }).on("error", reject);
    });
    expect(wire.length).toBeLessThan(20_000);
    expect(JSON.parse(gunzipSync(wire).toString())).toEqual(large);
  });

  it("serves small and inline fields too: the reasoning as text, a small toolInput as its JSON", async () => {
    const reasoning = await rawGet(fieldPath(smallEventId, "reasoning"), { authorization: `Bearer ${owner.key}` });
    const input = await rawGet(fieldPath(largeEventId, "toolInput"), { authorization: `Bearer ${owner.key}` });

    expect(reasoning.status).toBe(200);
    expect(reasoning.headers.get("content-type")).toBe("text/plain; charset=utf-8");
    expect(reasoning.text).toBe("because\nit is cheaper");
    expect(input.status).toBe(200);
    expect(JSON.parse(input.text)).toEqual({ url: "x" });
  });

  it("answers 406 for a field too large to send uncompressed, and sends it compressed", async () => {
    // 1.45 M quotes: 2.9 MB of JSON text, twice that once escaped into Lambda's response.
    const quotes = { s: '"'.repeat(1_450_000) };
    const eventId = await record({ eventType: "tool_call", toolName: "quotes", toolOutput: quotes });

    const refused = await call(api, "GET", fieldPath(eventId, "toolOutput"), asMember("identity"));
    const compressed = await call(api, "GET", fieldPath(eventId, "toolOutput"), asMember("gzip"));

    expect(refused.status).toBe(406);
    expect(refused.body).toEqual({
      error: "Not Acceptable",
      message: `The toolOutput of event ${eventId} is ${JSON.stringify(quotes).length} bytes, too large to send uncompressed within Lambda's 6 MB response limit; send Accept-Encoding: gzip`,
    });
    expect(compressed.status).toBe(200);
    expect(JSON.parse(compressed.text)).toEqual(quotes);
  });

  it("refuses what is not there, and other tenants' sessions, with clear messages", async () => {
    const stranger = await createTestKey();
    const theirSession = await createTestSession(api, stranger.key);
    const otherSession = await createTestSession(api, owner.key);
    const key = { key: owner.key };

    const badField = await call(api, "GET", fieldPath(largeEventId, "secrets"), key);
    const noSuchField = await call(api, "GET", fieldPath(smallEventId, "toolInput"), key);
    const unknownEvent = await call(api, "GET", fieldPath("evt_01KAZ3Y0A1B2C3D4E5F6G7H8J9", "toolOutput"), key);
    const notAnId = await call(api, "GET", fieldPath("__proto__", "toolOutput"), key);
    const wrongSession = await call(api, "GET", fieldPath(largeEventId, "toolOutput", otherSession), key);
    const foreign = await call(api, "GET", fieldPath(largeEventId, "toolOutput", theirSession), key);

    expect([badField.status, badField.body.message]).toEqual([
      400,
      "Invalid field in the path: toolInput, toolOutput, reasoning are served",
    ]);
    expect([noSuchField.status, noSuchField.body.message]).toEqual([404, `Event ${smallEventId} has no toolInput`]);
    expect([unknownEvent.status, unknownEvent.body.message]).toEqual([
      404,
      `Event evt_01KAZ3Y0A1B2C3D4E5F6G7H8J9 not found in session ${sessionId}`,
    ]);
    expect(notAnId.status).toBe(404);
    expect([wrongSession.status, wrongSession.body.message]).toEqual([
      404,
      `Event ${largeEventId} not found in session ${otherSession}`,
    ]);
    expect(foreign.status).toBe(403);
  });
});
