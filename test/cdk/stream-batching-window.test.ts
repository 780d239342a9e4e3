import { App, Stack } from "aws-cdk-lib";
import { describe, expect, it } from "vitest";
import {
  STREAM_BATCHING_WINDOW_CONTEXT_KEY,
  streamBatchingWindowSeconds,
} from "../../lib/constructs/stream-counting.js";

function stackWith(context: Record<string, unknown>): Stack {
  return new Stack(new App({ context }), "Stack");
}

describe("the stream consumer's batching window (context streamBatchingWindowSeconds)", () => {
  it("is 0 (invoke at once) unless set", () => {
    expect(streamBatchingWindowSeconds(stackWith({}))).toBe(0);
  });

  it("takes whole seconds up to Lambda's 300, as a number or as `-c` passes it, a string", () => {
    expect(streamBatchingWindowSeconds(stackWith({ [STREAM_BATCHING_WINDOW_CONTEXT_KEY]: 10 }))).toBe(10);
    expect(streamBatchingWindowSeconds(stackWith({ [STREAM_BATCHING_WINDOW_CONTEXT_KEY]: "300" }))).toBe(300);
    expect(streamBatchingWindowSeconds(stackWith({ [STREAM_BATCHING_WINDOW_CONTEXT_KEY]: "0" }))).toBe(0);
  });

  it.each([301, -1, 2.5, "ten", "", "1e2", true])(
    "refuses %j at synthesis, naming the setting and its range",
    (value) => {
      expect(() => streamBatchingWindowSeconds(stackWith({ [STREAM_BATCHING_WINDOW_CONTEXT_KEY]: value }))).toThrow(
        /streamBatchingWindowSeconds must be a whole number of seconds from 0 to 300/,
      );
    },
  );
});
