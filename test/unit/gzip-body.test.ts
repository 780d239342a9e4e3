/** Gzip request bodies (functions/http/json-body.ts): a bomb stops at the limit without being inflated. */
import { gzipSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { PayloadTooLargeError, ValidationError } from "../../functions/domain/errors.js";
import { decodedBody } from "../../functions/http/json-body.js";
import type { SdkEvent } from "../../functions/http/sdk-event.js";

const LIMIT = 5 * 1024 * 1024;

function gzipEvent(body: Buffer): SdkEvent {
  return {
    headers: { "content-encoding": "gzip" },
    body: body.toString("base64"),
    isBase64Encoded: true,
  } as unknown as SdkEvent;
}

describe("decodedBody", () => {
  it("a 1 GiB gzip bomb (64 gzip members of 16 MiB of zeros, 1 MB sent) is 413 without inflating it", () => {
    const member = gzipSync(Buffer.alloc(16 * 1024 * 1024), { level: 9 });
    const bomb = Buffer.concat(Array.from({ length: 64 }, () => member));
    expect(bomb.length).toBeLessThan(2 * 1024 * 1024);
    const rssBefore = process.memoryUsage().rss;

    expect(() => decodedBody(gzipEvent(bomb), LIMIT)).toThrow(
      new PayloadTooLargeError(`Request body is over ${LIMIT} bytes (decompressed); the limit is ${LIMIT} bytes`),
    );
    // Inflating the whole of it would take the process's memory up by a gigabyte.
    expect(process.memoryUsage().rss - rssBefore).toBeLessThan(256 * 1024 * 1024);
  });

  it("a body of several gzip members is one body, decompressed whole", () => {
    const body = Buffer.concat([gzipSync('{"a":'), gzipSync('"b"}')]);
    expect(decodedBody(gzipEvent(body), LIMIT).toString()).toBe('{"a":"b"}');
  });

  it("a truncated gzip body is a validation error", () => {
    const body = gzipSync(JSON.stringify({ text: "x".repeat(10_000) }));
    expect(() => decodedBody(gzipEvent(body.subarray(0, body.length - 20)), LIMIT)).toThrow(
      new ValidationError("Request body is not valid gzip (Content-Encoding: gzip)"),
    );
  });
});
