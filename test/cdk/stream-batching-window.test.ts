import { App, Stack } from "aws-cdk-lib";
import { Template } from "aws-cdk-lib/assertions";
import { AttributeType, StreamViewType, Table } from "aws-cdk-lib/aws-dynamodb";
import { Code, Function as LambdaFunction, Runtime } from "aws-cdk-lib/aws-lambda";
import { describe, expect, it } from "vitest";
import { StreamCounting } from "../../lib/constructs/stream-counting.js";
import {
  DEFAULT_STREAM_BATCHING_WINDOW_SECONDS,
  STREAM_BATCH_SIZE,
  STREAM_BATCHING_WINDOW_CONTEXT_KEY,
  streamBatchingWindowSeconds,
  WINDOWED_STREAM_BATCH_SIZE,
} from "../../lib/constructs/stream-reader.js";

function stackWith(context: Record<string, unknown>): Stack {
  return new Stack(new App({ context }), "Stack");
}

describe("the stream consumer's batching window (context streamBatchingWindowSeconds)", () => {
  it("is 10 seconds unless set", () => {
    expect(streamBatchingWindowSeconds(stackWith({}))).toBe(DEFAULT_STREAM_BATCHING_WINDOW_SECONDS);
    expect(DEFAULT_STREAM_BATCHING_WINDOW_SECONDS).toBe(10);
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

describe("the stream mapping with and without a batching window", () => {
  function mappingOf(context: Record<string, unknown>) {
    // Prepare: a table with its stream and a stand-in consumer function.
    const stack = stackWith(context);
    const table = new Table(stack, "Table", {
      partitionKey: { name: "PK", type: AttributeType.STRING },
      sortKey: { name: "SK", type: AttributeType.STRING },
      stream: StreamViewType.NEW_AND_OLD_IMAGES,
    });
    const consumer = new LambdaFunction(stack, "Consumer", {
      runtime: Runtime.NODEJS_24_X,
      handler: "index.handler",
      code: Code.fromInline("export const handler = async () => ({ state: {}, batchItemFailures: [] });"),
    });

    // Act
    new StreamCounting(stack, "StreamCounting", { table, consumer: { function: consumer } });
    const mappings = Template.fromStack(stack).findResources("AWS::Lambda::EventSourceMapping");
    return Object.values(mappings)[0]?.Properties as Record<string, unknown>;
  }

  it("invokes at once, 100 records at most, when the window is set to 0", () => {
    const mapping = mappingOf({ [STREAM_BATCHING_WINDOW_CONTEXT_KEY]: 0 });

    expect(mapping.BatchSize).toBe(STREAM_BATCH_SIZE);
    expect(mapping).not.toHaveProperty("MaximumBatchingWindowInSeconds");
  });

  it("gathers for the window, up to 10,000 records, with one", () => {
    const mapping = mappingOf({ [STREAM_BATCHING_WINDOW_CONTEXT_KEY]: "30" });

    expect(mapping.BatchSize).toBe(WINDOWED_STREAM_BATCH_SIZE);
    expect(WINDOWED_STREAM_BATCH_SIZE).toBe(10_000);
    expect(mapping.MaximumBatchingWindowInSeconds).toBe(30);
    expect(mapping.TumblingWindowInSeconds).toBe(60);
  });

  it("gathers for 10 seconds by default", () => {
    const mapping = mappingOf({});

    expect(mapping.BatchSize).toBe(WINDOWED_STREAM_BATCH_SIZE);
    expect(mapping.MaximumBatchingWindowInSeconds).toBe(DEFAULT_STREAM_BATCHING_WINDOW_SECONDS);
  });
});
