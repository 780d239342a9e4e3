/**
 * Python agent frameworks emit the same conventions through OpenTelemetry's Python SDK. Two OTLP JSON exports
 * of the scripted agent run (test/fixtures/otlp/), written from the projects' published conventions:
 * - an OpenInference-instrumented run (an AGENT span with agent.name, LLM spans with llm.* attributes and the
 *   messages flattened as llm.input_messages.N.message.*, a TOOL span; session.id and user.id on every span,
 *   as openinference-instrumentation-openai-agents, -smolagents, -crewai, -dspy emit them);
 * - an OpenLLMetry-instrumented run (traceloop-sdk's @agent and @tool spans, traceloop.entity.input as
 *   {"args": …, "kwargs": …}; opentelemetry-instrumentation-openai's openai.chat spans with gen_ai.prompt.N /
 *   gen_ai.completion.N, gen_ai.usage.prompt_tokens and llm.usage.total_tokens; the user and the chat as
 *   traceloop.association.properties).
 * Each reads back whole, in one export and children first with the root last (counted exactly).
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { LocalApi } from "../../local/http-adapter.js";
import { CACHED_TOKENS, CHAT_MODEL } from "../support/fake-chat-server.js";
import { call, createTestKey, settleCounts, startTestApi } from "../support/fixtures.js";
import { expectCountedExactly, expectWholeRun } from "../support/otel-library-run.js";

let api: LocalApi;

beforeAll(async () => {
  api = await startTestApi();
});
afterAll(() => api.close());

type Json = Record<string, unknown>;
interface Span extends Json {
  readonly parentSpanId: string;
  readonly startTimeUnixNano: string;
  readonly endTimeUnixNano: string;
}

/** The fixture's run moved to the present (its first span starts 10 s ago), and its span time bounds (Unix ms). */
function fixtureRun(file: string) {
  // The recorded runs asked for "gpt-fake": the model the table prices stands in for it, so the calls are priced.
  const text = readFileSync(join(import.meta.dirname, "../fixtures/otlp", file), "utf8").replaceAll(
    '"gpt-fake"',
    JSON.stringify(CHAT_MODEL),
  );
  const request = JSON.parse(text) as { resourceSpans: { scopeSpans: { spans: Span[] }[] }[] };
  const spans = request.resourceSpans.flatMap((resource) => resource.scopeSpans.flatMap((scope) => scope.spans));
  const first = spans.reduce(
    (min, span) => (BigInt(span.startTimeUnixNano) < min ? BigInt(span.startTimeUnixNano) : min),
    BigInt(spans[0]?.startTimeUnixNano ?? 0),
  );
  const shift = BigInt(Date.now() - 10_000) * 1_000_000n - first;
  for (const span of spans as Json[]) {
    span.startTimeUnixNano = String(BigInt(span.startTimeUnixNano as string) + shift);
    span.endTimeUnixNano = String(BigInt(span.endTimeUnixNano as string) + shift);
  }
  const ms = (nanos: string) => Number(BigInt(nanos) / 1_000_000n);
  return {
    request,
    from: Math.min(...spans.map((span) => ms(span.startTimeUnixNano))),
    to: Math.max(...spans.map((span) => ms(span.endTimeUnixNano))),
    service: String(
      (
        request.resourceSpans[0] as unknown as { resource: { attributes: { key: string; value: Json }[] } }
      ).resource.attributes.find((attribute) => attribute.key === "service.name")?.value.stringValue ?? "",
    ),
  };
}

/** The same request holding only the spans `keep` keeps. */
function withSpans(request: ReturnType<typeof fixtureRun>["request"], keep: (span: Span) => boolean) {
  return {
    resourceSpans: request.resourceSpans.map((resource) => ({
      ...resource,
      scopeSpans: resource.scopeSpans.map((scope) => ({ ...scope, spans: scope.spans.filter(keep) })),
    })),
  };
}

async function exportTraces(key: string, body: unknown): Promise<void> {
  const response = await call(api, "POST", "/api/otel/v1/traces", { key, body });
  expect(response.status, response.text).toBe(200);
  expect(response.body).toEqual({});
}

const FIXTURES = [
  {
    framework: "OpenInference",
    file: "python-openinference-run.json",
    userId: "py-oi-user-1",
    conversationId: "py-oi-conversation-1",
    cacheReadTokens: 2 * CACHED_TOKENS,
  },
  {
    framework: "OpenLLMetry",
    file: "python-openllmetry-run.json",
    userId: "py-tl-user-1",
    conversationId: "py-tl-conversation-1",
    cacheReadTokens: undefined,
  },
] as const;

describe.each(FIXTURES)("a Python agent run instrumented with $framework", (fixture) => {
  const expected = (run: ReturnType<typeof fixtureRun>) => ({
    agentName: "weather-agent",
    userId: fixture.userId,
    from: run.from,
    to: run.to,
    conversationId: fixture.conversationId,
    ...(fixture.cacheReadTokens === undefined ? {} : { cacheReadTokens: fixture.cacheReadTokens }),
  });

  it("maps whole in one export", async () => {
    const { key } = await createTestKey();
    const run = fixtureRun(fixture.file);

    await exportTraces(key, run.request);

    await expectWholeRun(api, key, expected(run));
  });

  it("maps whole exported children first, in two exports, the root last: counted exactly", async () => {
    const owner = await createTestKey();
    const run = fixtureRun(fixture.file);
    const children = withSpans(run.request, (span) => span.parentSpanId !== "").resourceSpans.flatMap((resource) =>
      resource.scopeSpans.flatMap((scope) => scope.spans),
    );
    const firstBatch = new Set(children.slice(0, 1).map((span) => span.spanId));

    await exportTraces(
      owner.key,
      withSpans(run.request, (span) => firstBatch.has(span.spanId)),
    );
    await settleCounts();
    await exportTraces(
      owner.key,
      withSpans(run.request, (span) => span.parentSpanId !== "" && !firstBatch.has(span.spanId)),
    );
    await settleCounts();
    await exportTraces(
      owner.key,
      withSpans(run.request, (span) => span.parentSpanId === ""),
    );

    await expectWholeRun(api, owner.key, expected(run));
    await expectCountedExactly(api, owner, run.service);
  });
});
