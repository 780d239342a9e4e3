/**
 * POST /api/otel/v1/traces driven by the real OpenTelemetry JS SDK (TracerProvider, span processors and the
 * OTLP/HTTP exporters, protobuf and JSON, gzip or not): GenAI agent runs become sessions and events as the
 * mapping says (functions/domain/genai-trace-plan.ts), an exporter's retry stores nothing twice, a root span
 * arriving after its children ends the session, bad bodies are refused and store nothing, and a trace id is
 * its tenant's own. Span times are explicit (Date inputs), and every export is awaited (forceFlush), so
 * nothing waits for a batch delay.
 */
import { randomBytes, randomUUID } from "node:crypto";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { type Attributes, context, type Span, SpanStatusCode, type Tracer, trace } from "@opentelemetry/api";
import { OTLPTraceExporter as JsonTraceExporter } from "@opentelemetry/exporter-trace-otlp-http";
import { OTLPTraceExporter as ProtoTraceExporter } from "@opentelemetry/exporter-trace-otlp-proto";
import { resourceFromAttributes } from "@opentelemetry/resources";
import {
  BatchSpanProcessor,
  InMemorySpanExporter,
  type ReadableSpan,
  SimpleSpanProcessor,
  type SpanExporter,
  TracerProvider,
} from "@opentelemetry/sdk-trace";
import protobuf from "protobufjs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FILLERS, gzippedInflatingBody } from "../../bench/fixtures/inflating-bodies.js";
import { gatewayEvent, lambdaContext } from "../../bench/harness/gateway-event.js";
import { planTraces } from "../../functions/domain/genai-trace-plan.js";
import { LIMITS } from "../../functions/domain/limits.js";
import { normaliseSpan } from "../../functions/otel/dialects/normalise.js";
import { readExportRequest } from "../../functions/otel/otlp-spans.js";
import { routeById } from "../../functions/routes.js";
import { ensureOrganisation, updateOrganisationSettings } from "../../functions/store/members/organisation-store.js";
import { startTraceSessions } from "../../functions/store/otel/trace-session-store.js";
import { documentClient, tableName } from "../../functions/store/table/dynamo-client.js";
import type { LocalApi } from "../../local/http-adapter.js";
import { REPOSITORY_ROOT } from "../../local/settings.js";
import {
  call,
  createTestKey,
  readAllEvents,
  scanTable,
  settleCounts,
  startTestApi,
  storedEvents,
  type TestKey,
  uniqueOrgId,
} from "../support/fixtures.js";
import { principalFor } from "../support/seed.js";
import { expectExactDerivedData, settledGet } from "../support/stream-recount.js";

let api: LocalApi;
let responseType: protobuf.Type;
let requestType: protobuf.Type;

beforeAll(async () => {
  api = await startTestApi();
  const root = new protobuf.Root();
  root.resolvePath = (_origin, target) => join(REPOSITORY_ROOT, "proto", target);
  await root.load("opentelemetry/proto/collector/trace/v1/trace_service.proto", { keepCase: false });
  responseType = root.lookupType("opentelemetry.proto.collector.trace.v1.ExportTraceServiceResponse");
  requestType = root.lookupType("opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest");
});
afterAll(() => api.close());

const TRACES_PATH = "/api/otel/v1/traces";

type Encoding = "protobuf" | "json";
type ExportResult = Parameters<Parameters<SpanExporter["export"]>[1]>[0];
type ProtoConfig = NonNullable<ConstructorParameters<typeof ProtoTraceExporter>[0]>;
type JsonConfig = NonNullable<ConstructorParameters<typeof JsonTraceExporter>[0]>;

/** An OTLP/HTTP exporter to the local API, authenticated with `key`. */
function otlpExporter(options: { encoding: Encoding; key?: string; gzip?: boolean }): SpanExporter {
  const base = {
    url: `${api.url}${TRACES_PATH}`,
    headers: options.key === undefined ? {} : { authorization: `Bearer ${options.key}` },
    keepAlive: false,
    timeoutMillis: 20_000,
  };
  if (options.encoding === "protobuf") {
    const compression = (options.gzip === true ? "gzip" : "none") as NonNullable<ProtoConfig["compression"]>;
    return new ProtoTraceExporter({ ...base, compression });
  }
  const compression = (options.gzip === true ? "gzip" : "none") as NonNullable<JsonConfig["compression"]>;
  return new JsonTraceExporter({ ...base, compression });
}

/** An exporter that remembers the result of every export it passes on. */
class RecordingExporter implements SpanExporter {
  readonly results: ExportResult[] = [];
  readonly inner: SpanExporter;

  constructor(inner: SpanExporter) {
    this.inner = inner;
  }

  export(spans: ReadableSpan[], done: (result: ExportResult) => void): void {
    this.inner.export(spans, (result) => {
      this.results.push(result);
      done(result);
    });
  }

  shutdown(): Promise<void> {
    return this.inner.shutdown();
  }
}

/** One export of `spans`, as an exporter's retry would send them again. */
function exportOnce(exporter: SpanExporter, spans: ReadableSpan[]): Promise<ExportResult> {
  return new Promise((resolve) => exporter.export(spans, resolve));
}

const SUCCESS = 0;

interface Run {
  readonly traceId: string;
  readonly agent: string;
  readonly user: string;
  readonly conversation: string;
  readonly service: string;
  /** Unix ms of the root span's start; every span's time is an offset from it. */
  readonly base: number;
}

function newRun(): Run {
  const id = randomUUID().slice(0, 8);
  return {
    traceId: "",
    agent: `travel-planner-${id}`,
    user: `user-${id}`,
    conversation: `conv-${id}`,
    service: `trip-service-${id}`,
    base: Date.now() - 10 * 60_000,
  };
}

const at = (run: Run, offsetMs: number) => new Date(run.base + offsetMs);

function resourceOf(run: Run) {
  return resourceFromAttributes({
    "service.name": run.service,
    "service.version": "1.2.3",
    "deployment.environment.name": "test",
  });
}

function child(tracer: Tracer, parent: Span, name: string, startTime: Date, attributes: Attributes): Span {
  return tracer.startSpan(name, { startTime, attributes }, trace.setSpan(context.active(), parent));
}

const PROMPT = [{ role: "user", parts: [{ type: "text", content: "What is the weather in Paris?" }] }];
const TOOL_REQUEST = [
  {
    role: "assistant",
    parts: [{ type: "tool_call", id: "call_1", name: "get_weather", arguments: { city: "Paris" } }],
    finish_reason: "tool_call",
  },
];
const ANSWER_TEXT = "It is 21°C and clear in Paris.";
const ANSWER = [{ role: "assistant", parts: [{ type: "text", content: ANSWER_TEXT }], finish_reason: "stop" }];
const SYSTEM = [{ type: "text", content: "You are a travel assistant." }];

/**
 * The scripted agent run: a root `invoke_agent` span (0–5000 ms, with tokens of its own that must not count),
 * a `chat` span (100–1100 ms, 100 + 20 tokens, asking for a tool), an `execute_tool` span (1200–3200 ms: two
 * seconds) and a second `chat` span (3300–4300 ms, 150 + 40 tokens, the answer).
 */
function recordScriptedRun(tracer: Tracer, run: Run): Run {
  const root = tracer.startSpan(`invoke_agent ${run.agent}`, {
    startTime: at(run, 0),
    attributes: {
      "gen_ai.operation.name": "invoke_agent",
      "gen_ai.agent.name": run.agent,
      "gen_ai.agent.id": "asst_42",
      "user.id": run.user,
      "gen_ai.conversation.id": run.conversation,
      "gen_ai.usage.input_tokens": 9_999,
      "gen_ai.usage.output_tokens": 9_999,
    },
  });
  const firstChat = child(tracer, root, "chat gpt-4o", at(run, 100), {
    "gen_ai.operation.name": "chat",
    "gen_ai.provider.name": "openai",
    "gen_ai.request.model": "gpt-4o",
    "gen_ai.response.model": "gpt-4o-2024-08-06",
    "gen_ai.response.id": "chatcmpl-1",
    "gen_ai.response.finish_reasons": ["tool_calls"],
    "gen_ai.request.temperature": 0.2,
    "gen_ai.request.max_tokens": 512,
    "gen_ai.usage.input_tokens": 100,
    "gen_ai.usage.output_tokens": 20,
    "gen_ai.usage.cost": 0.001,
    "gen_ai.system_instructions": JSON.stringify(SYSTEM),
    "gen_ai.input.messages": JSON.stringify(PROMPT),
    "gen_ai.output.messages": JSON.stringify(TOOL_REQUEST),
  });
  firstChat.end(at(run, 1100));
  const tool = child(tracer, root, "execute_tool get_weather", at(run, 1200), {
    "gen_ai.operation.name": "execute_tool",
    "gen_ai.tool.name": "get_weather",
    "gen_ai.tool.call.id": "call_1",
    "gen_ai.tool.call.arguments": JSON.stringify({ city: "Paris" }),
    "gen_ai.tool.call.result": JSON.stringify({ temperatureC: 21, sky: "clear" }),
  });
  tool.end(at(run, 3200));
  const secondChat = child(tracer, root, "chat gpt-4o", at(run, 3300), {
    "gen_ai.operation.name": "chat",
    "gen_ai.provider.name": "openai",
    "gen_ai.request.model": "gpt-4o",
    "gen_ai.usage.input_tokens": 150,
    "gen_ai.usage.output_tokens": 40,
    "gen_ai.usage.cost": 0.002,
    "gen_ai.input.messages": JSON.stringify(PROMPT),
    "gen_ai.output.messages": JSON.stringify(ANSWER),
  });
  secondChat.end(at(run, 4300));
  root.end(at(run, 5000));
  return { ...run, traceId: root.spanContext().traceId };
}

/** The spans of a scripted run, captured in memory (not exported). */
async function capturedRun(run: Run): Promise<{ run: Run; spans: ReadableSpan[] }> {
  const memory = new InMemorySpanExporter();
  const provider = new TracerProvider({
    resource: resourceOf(run),
    spanProcessors: [new SimpleSpanProcessor({ exporter: memory })],
  });
  const recorded = recordScriptedRun(provider.getTracer("otel-export-test"), run);
  await provider.forceFlush();
  const spans = memory.getFinishedSpans();
  await provider.shutdown();
  return { run: recorded, spans };
}

type Json = Record<string, unknown>;

/** The sessions a key's organisation has, through the read API. */
async function sessionsOf(key: string): Promise<Json[]> {
  const response = await call(api, "GET", "/api/sdk/sessions?limit=100", { key });
  expect(response.status).toBe(200);
  return response.body.items as Json[];
}

/** The one session of the trace, found through the list (metadata `otel.trace_id`), read with GET. */
async function sessionOfTrace(key: string, traceId: string): Promise<Json> {
  const matching = (await sessionsOf(key)).filter(
    (session) => (session.metadata as Json | null)?.["otel.trace_id"] === traceId,
  );
  expect(matching).toHaveLength(1);
  const response = await call(api, "GET", `/api/sdk/sessions/${String(matching[0]?.id)}`, { key });
  expect(response.status).toBe(200);
  return response.body;
}

async function eventsOf(key: string, sessionId: string): Promise<Json[]> {
  return (await readAllEvents(api, key, sessionId)).events;
}

/** Every mapped field of the scripted run's session and events. */
async function expectScriptedSession(
  key: string,
  run: Run,
  environment = "live",
): Promise<{ session: Json; events: Json[] }> {
  const session = await sessionOfTrace(key, run.traceId);
  expect(session).toMatchObject({
    name: `invoke_agent ${run.agent}`,
    agentName: run.agent,
    userId: run.user,
    environment,
    status: "completed",
    success: true,
    failureReason: null,
    durationMs: 5000,
    // The two chat spans only: the root's own 9,999 tokens are not counted.
    promptTokens: 250,
    completionTokens: 60,
    totalTokens: 310,
    completedAt: at(run, 5000).toISOString(),
    eventCount: 3,
    toolCalls: { get_weather: 1 },
  });
  expect(session.estimatedCost).toBeCloseTo(0.003, 10);
  expect(session.metadata).toEqual({
    "otel.trace_id": run.traceId,
    "gen_ai.conversation.id": run.conversation,
    "gen_ai.agent.id": "asst_42",
    "gen_ai.provider.name": "openai",
    "gen_ai.request.model": "gpt-4o",
    resource: { "service.name": run.service, "service.version": "1.2.3", "deployment.environment.name": "test" },
  });

  const events = await eventsOf(key, String(session.id));
  // Each event starts at its span's start and keeps its span's duration: the two-second tool call is 2000 ms.
  expect(events.map((event) => [event.eventType, event.occurredAt, event.durationMs])).toEqual([
    ["llm_decision", at(run, 100).toISOString(), 1000],
    ["tool_call", at(run, 1200).toISOString(), 2000],
    ["llm_decision", at(run, 3300).toISOString(), 1000],
  ]);
  const [firstChat, tool, secondChat] = events;
  expect(firstChat).toMatchObject({
    sessionId: session.id,
    toolInput: {
      operation: "chat",
      provider: "openai",
      model: "gpt-4o",
      temperature: 0.2,
      maxTokens: 512,
      systemInstructions: SYSTEM,
      messages: PROMPT,
    },
    toolOutput: {
      model: "gpt-4o-2024-08-06",
      responseId: "chatcmpl-1",
      finishReasons: ["tool_calls"],
      promptTokens: 100,
      completionTokens: 20,
      totalTokens: 120,
      durationMs: 1000,
      messages: TOOL_REQUEST,
    },
    estimatedCost: 0.001,
  });
  // A tool request has no answer text.
  expect(firstChat?.reasoning ?? null).toBeNull();
  expect(tool).toMatchObject({
    sessionId: session.id,
    toolName: "get_weather",
    toolInput: { city: "Paris" },
    toolOutput: { temperatureC: 21, sky: "clear" },
  });
  expect(secondChat).toMatchObject({
    reasoning: ANSWER_TEXT,
    toolInput: { operation: "chat", provider: "openai", model: "gpt-4o", messages: PROMPT },
    toolOutput: { promptTokens: 150, completionTokens: 40, totalTokens: 190, durationMs: 1000, messages: ANSWER },
    estimatedCost: 0.002,
  });
  return { session, events };
}

/** Runs the scripted agent through a TracerProvider whose BatchSpanProcessor exports with `exporter`. */
async function exportScriptedRun(exporter: SpanExporter): Promise<{ run: Run; results: ExportResult[] }> {
  const recording = new RecordingExporter(exporter);
  const run = newRun();
  const provider = new TracerProvider({
    resource: resourceOf(run),
    // No scheduled export within the test: forceFlush sends the batch.
    spanProcessors: [new BatchSpanProcessor({ exporter: recording, scheduledDelayMillis: 3_600_000 })],
  });
  const recorded = recordScriptedRun(provider.getTracer("otel-export-test", "1.0.0"), run);
  await provider.forceFlush();
  await provider.shutdown();
  return { run: recorded, results: recording.results };
}

describe("a scripted agent run through the OpenTelemetry SDK", () => {
  it.each([
    { encoding: "protobuf", gzip: false },
    { encoding: "json", gzip: false },
    { encoding: "json", gzip: true },
    { encoding: "protobuf", gzip: true },
  ] as const)("becomes one session and its events ($encoding, gzip: $gzip)", async ({ encoding, gzip }) => {
    const owner = await createTestKey();

    const { run, results } = await exportScriptedRun(otlpExporter({ encoding, key: owner.key, gzip }));

    expect(results).toEqual([{ code: SUCCESS }]);
    await expectScriptedSession(owner.key, run);
    expect(await sessionsOf(owner.key)).toHaveLength(1);
  });

  it("maps the older GenAI conventions (per-message span events, gen_ai.system, prompt/completion tokens), sub-agents and wrapped tool payloads", async () => {
    const owner = await createTestKey();
    const run = newRun();
    const recording = new RecordingExporter(otlpExporter({ encoding: "protobuf", key: owner.key }));
    // No gen_ai.agent.name and no user anywhere: the service name and `anonymous` stand in.
    const provider = new TracerProvider({
      resource: resourceOf(run),
      spanProcessors: [new BatchSpanProcessor({ exporter: recording, scheduledDelayMillis: 3_600_000 })],
    });
    const tracer = provider.getTracer("otel-export-test");
    const root = tracer.startSpan("handle request", { startTime: at(run, 0) });
    const subAgent = child(tracer, root, "invoke_agent researcher", at(run, 10), {
      "gen_ai.operation.name": "invoke_agent",
      "gen_ai.agent.name": "researcher",
      "gen_ai.agent.id": "agent-r",
    });
    const chat = child(tracer, subAgent, "chat claude", at(run, 20), {
      "gen_ai.system": "anthropic",
      "gen_ai.request.model": "claude-3-5-sonnet",
      "gen_ai.usage.prompt_tokens": 7,
      "gen_ai.usage.completion_tokens": 3,
    });
    chat.addEvent("gen_ai.system.message", { content: "Be brief." }, at(run, 21));
    chat.addEvent("gen_ai.user.message", { content: "Say hi" }, at(run, 22));
    chat.addEvent(
      "gen_ai.choice",
      { index: 0, finish_reason: "stop", message: JSON.stringify({ content: "Hi!" }) },
      at(run, 30),
    );
    chat.end(at(run, 40));
    const tool = child(tracer, subAgent, "execute_tool calculator", at(run, 50), {
      "gen_ai.tool.call.arguments": "two plus two",
      "gen_ai.tool.call.result": "[4]",
    });
    tool.end(at(run, 60));
    subAgent.end(at(run, 70));
    root.end(at(run, 80));
    await provider.forceFlush();
    await provider.shutdown();
    expect(recording.results).toEqual([{ code: SUCCESS }]);

    const session = await sessionOfTrace(owner.key, root.spanContext().traceId);
    expect(session).toMatchObject({
      // The root span has no GenAI operation: its name is the session's; the first agent span names the agent.
      name: "handle request",
      agentName: "researcher",
      userId: "anonymous",
      status: "completed",
      success: true,
      durationMs: 80,
      promptTokens: 7,
      completionTokens: 3,
      totalTokens: 10,
      metadata: {
        "otel.trace_id": root.spanContext().traceId,
        "gen_ai.agent.id": "agent-r",
        "gen_ai.provider.name": "anthropic",
        "gen_ai.request.model": "claude-3-5-sonnet",
      },
    });
    const events = await eventsOf(owner.key, String(session.id));
    expect(events.map((event) => event.eventType)).toEqual(["state_change", "llm_decision", "tool_call"]);
    expect(events[0]).toMatchObject({
      reasoning: "invoke_agent researcher",
      toolInput: { operation: "invoke_agent", agentName: "researcher", agentId: "agent-r" },
    });
    expect(events[1]).toMatchObject({
      reasoning: "Hi!",
      toolInput: {
        operation: "chat",
        provider: "anthropic",
        model: "claude-3-5-sonnet",
        messages: [
          { role: "system", content: "Be brief." },
          { role: "user", content: "Say hi" },
        ],
      },
      toolOutput: {
        promptTokens: 7,
        completionTokens: 3,
        totalTokens: 10,
        messages: [{ role: "assistant", content: "Hi!" }],
      },
    });
    // Text, and JSON that is not an object, are wrapped.
    expect(events[2]).toMatchObject({
      toolName: "calculator",
      toolInput: { arguments: "two plus two" },
      toolOutput: { result: [4] },
    });
  });
});

describe("an exporter's retry", () => {
  it("stores nothing twice: the same spans exported again (protobuf, then JSON) keep one session, its events and its tokens", async () => {
    const owner = await createTestKey();
    const { run, spans } = await capturedRun(newRun());
    const proto = otlpExporter({ encoding: "protobuf", key: owner.key });
    const json = otlpExporter({ encoding: "json", key: owner.key, gzip: true });

    expect(await exportOnce(proto, spans)).toEqual({ code: SUCCESS });
    const first = await expectScriptedSession(owner.key, run);
    const firstStored = await storedEvents(String(first.session.id));

    expect(await exportOnce(proto, spans)).toEqual({ code: SUCCESS });
    expect(await exportOnce(json, spans)).toEqual({ code: SUCCESS });
    // Two requests at once, as a retry overlapping a slow first attempt would.
    expect(await Promise.all([exportOnce(proto, spans), exportOnce(json, spans)])).toEqual([
      { code: SUCCESS },
      { code: SUCCESS },
    ]);

    const again = await expectScriptedSession(owner.key, run);
    expect(again.session.id).toBe(first.session.id);
    expect(again.events.map((event) => event.id)).toEqual(first.events.map((event) => event.id));
    expect((await storedEvents(String(first.session.id))).length).toBe(firstStored.length);
    expect(await sessionsOf(owner.key)).toHaveLength(1);
    await Promise.all([proto.shutdown(), json.shutdown()]);
  });

  it("new traces exported by overlapping requests at once make one session each", async () => {
    const owner = await createTestKey();
    const traces = Array.from({ length: 12 }, () => ({ traceId: hex(16), spanId: hex(8) }));
    const requests = [traces.slice(0, 8), traces.slice(4), traces.slice(2, 10), traces];

    const responses = await Promise.all(
      requests.map((spans) => post(JSON.stringify(jsonRequest(spans)), JSON_TYPE, owner.key)),
    );

    expect(responses.map((response) => [response.status, jsonOf(response)])).toEqual(requests.map(() => [200, {}]));
    const sessions = await sessionsOf(owner.key);
    expect(sessions.map((session) => (session.metadata as Json)["otel.trace_id"]).sort()).toEqual(
      traces.map((trace) => trace.traceId).sort(),
    );
  });

  it("new traces are started together; when another request started one of them since they were read, none is, and each is then settled on its own", async () => {
    const owner = await createTestKey();
    const traces = Array.from({ length: 3 }, () => ({ traceId: hex(16), spanId: hex(8) }));
    const plans = planTraces(readExportRequest(jsonRequest(traces)).spans.map(normaliseSpan));
    const raced = traces[1] as (typeof traces)[number];
    expect((await post(JSON.stringify(jsonRequest([raced])), JSON_TYPE, owner.key)).status).toBe(200);
    const first = await sessionOfTrace(owner.key, raced.traceId);

    // As read before that request: no record of any of the three. The one transaction starts none.
    expect(await startTraceSessions(principalFor(owner.orgId), plans, new Map(), Date.now())).toEqual(new Map());
    expect(await sessionsOf(owner.key)).toHaveLength(1);

    const response = await post(JSON.stringify(jsonRequest(traces)), JSON_TYPE, owner.key);
    expect([response.status, jsonOf(response)]).toEqual([200, {}]);
    expect(await sessionsOf(owner.key)).toHaveLength(3);
    expect((await sessionOfTrace(owner.key, raced.traceId)).id).toBe(first.id);
  });

  it("a new trace exported by two requests at once makes one session", async () => {
    const owner = await createTestKey();
    const { run, spans } = await capturedRun(newRun());
    const proto = otlpExporter({ encoding: "protobuf", key: owner.key });

    const results = await Promise.all([exportOnce(proto, spans), exportOnce(proto, spans), exportOnce(proto, spans)]);

    expect(results).toEqual([{ code: SUCCESS }, { code: SUCCESS }, { code: SUCCESS }]);
    await expectScriptedSession(owner.key, run);
    expect(await sessionsOf(owner.key)).toHaveLength(1);
    await proto.shutdown();
  });
});

describe("a failed run", () => {
  it("ends the session failed with the root's status message; exceptions and failed tools are error events", async () => {
    const owner = await createTestKey();
    const run = newRun();
    const recording = new RecordingExporter(otlpExporter({ encoding: "protobuf", key: owner.key }));
    const provider = new TracerProvider({
      resource: resourceOf(run),
      spanProcessors: [new BatchSpanProcessor({ exporter: recording, scheduledDelayMillis: 3_600_000 })],
    });
    const tracer = provider.getTracer("otel-export-test");
    const root = tracer.startSpan(`invoke_agent ${run.agent}`, {
      startTime: at(run, 0),
      attributes: { "gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": run.agent, "user.id": run.user },
    });
    const search = child(tracer, root, "execute_tool search_flights", at(run, 100), {
      "gen_ai.operation.name": "execute_tool",
      "gen_ai.tool.name": "search_flights",
      "gen_ai.tool.call.arguments": JSON.stringify({ from: "CDG", to: "JFK" }),
    });
    search.recordException(new TypeError("flights API timed out"), at(run, 400));
    search.setStatus({ code: SpanStatusCode.ERROR, message: "flights API timed out" });
    search.end(at(run, 500));
    // ERROR without an exception event: the status message is the error.
    const book = child(tracer, root, "execute_tool book_hotel", at(run, 600), {
      "gen_ai.operation.name": "execute_tool",
      "gen_ai.tool.name": "book_hotel",
      "error.type": "HotelUnavailable",
    });
    book.setStatus({ code: SpanStatusCode.ERROR, message: "no rooms left" });
    book.end(at(run, 700));
    root.recordException(new Error("budget exceeded"), at(run, 900));
    root.setStatus({ code: SpanStatusCode.ERROR, message: "Agent gave up: budget exceeded" });
    root.end(at(run, 1000));
    await provider.forceFlush();
    await provider.shutdown();
    expect(recording.results).toEqual([{ code: SUCCESS }]);

    const session = await sessionOfTrace(owner.key, root.spanContext().traceId);
    expect(session).toMatchObject({
      name: `invoke_agent ${run.agent}`,
      status: "failed",
      success: false,
      failureReason: "Agent gave up: budget exceeded",
      durationMs: 1000,
      completedAt: at(run, 1000).toISOString(),
      promptTokens: null,
      completionTokens: null,
      totalTokens: null,
      toolCalls: { search_flights: 1, book_hotel: 1 },
      toolErrors: { search_flights: 1, book_hotel: 1 },
    });
    const events = await eventsOf(owner.key, String(session.id));
    // Tool calls last as long as their spans; error events are points in time (durationMs null).
    expect(
      events.map((event) => [
        event.eventType,
        event.toolName ?? null,
        event.reasoning ?? null,
        event.occurredAt,
        event.durationMs,
      ]),
    ).toEqual([
      ["tool_call", "search_flights", null, at(run, 100).toISOString(), 400],
      ["error", "search_flights", "flights API timed out", at(run, 400).toISOString(), null],
      ["tool_call", "book_hotel", null, at(run, 600).toISOString(), 100],
      ["error", "book_hotel", "no rooms left", at(run, 700).toISOString(), null],
      ["error", null, "budget exceeded", at(run, 900).toISOString(), null],
    ]);
    expect(events[1]?.toolOutput).toMatchObject({
      spanName: "execute_tool search_flights",
      exceptionType: "TypeError",
    });
    expect(String((events[1]?.toolOutput as Json | undefined)?.stacktrace)).toContain("flights API timed out");
    expect(events[3]?.toolOutput).toEqual({ spanName: "execute_tool book_hotel", errorType: "HotelUnavailable" });
    expect(events[4]?.toolOutput).toMatchObject({ spanName: `invoke_agent ${run.agent}`, exceptionType: "Error" });
  });
});

describe("children first, the root in a later request", () => {
  it("starts the session active under a stand-in name, then ends it with the root's name and every inference span's tokens", async () => {
    const owner = await createTestKey();
    const run = newRun();
    const recording = new RecordingExporter(otlpExporter({ encoding: "protobuf", key: owner.key }));
    const provider = new TracerProvider({
      resource: resourceOf(run),
      spanProcessors: [new BatchSpanProcessor({ exporter: recording, scheduledDelayMillis: 3_600_000 })],
    });
    const tracer = provider.getTracer("otel-export-test");
    const root = tracer.startSpan("plan a trip", {
      startTime: at(run, 0),
      attributes: { "gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": run.agent, "user.id": run.user },
    });
    const traceId = root.spanContext().traceId;
    const inference = {
      "gen_ai.operation.name": "chat",
      "gen_ai.provider.name": "openai",
      "gen_ai.request.model": "gpt-4o-mini",
    };
    // The children carry the agent and the user too (as a baggage span processor copies them).
    const identity = { "gen_ai.agent.name": run.agent, "user.id": run.user };
    const firstChat = child(tracer, root, "chat gpt-4o-mini", at(run, 100), {
      ...inference,
      ...identity,
      "gen_ai.usage.input_tokens": 10,
      "gen_ai.usage.output_tokens": 5,
    });
    firstChat.end(at(run, 200));
    const tool = child(tracer, root, "execute_tool lookup", at(run, 300), {
      ...identity,
      "gen_ai.tool.name": "lookup",
    });
    tool.end(at(run, 400));
    await provider.forceFlush();

    const started = await sessionOfTrace(owner.key, traceId);
    expect(started).toMatchObject({
      name: `invoke_agent ${run.agent}`,
      agentName: run.agent,
      userId: run.user,
      status: "active",
      success: null,
      completedAt: null,
      // Not reported by a root yet: the sum of the model calls counted so far (docs/read-api.md, session totals).
      promptTokens: 10,
      eventCount: 2,
    });

    const secondChat = child(tracer, root, "chat gpt-4o-mini", at(run, 500), {
      ...inference,
      "gen_ai.usage.input_tokens": 20,
      "gen_ai.usage.output_tokens": 10,
    });
    secondChat.end(at(run, 600));
    root.end(at(run, 700));
    await provider.forceFlush();
    await provider.shutdown();
    expect(recording.results).toEqual([{ code: SUCCESS }, { code: SUCCESS }]);

    const ended = await sessionOfTrace(owner.key, traceId);
    expect(ended).toMatchObject({
      id: started.id,
      name: "plan a trip",
      agentName: run.agent,
      userId: run.user,
      status: "completed",
      success: true,
      durationMs: 700,
      promptTokens: 30,
      completionTokens: 15,
      totalTokens: 45,
      eventCount: 3,
    });
    const events = await eventsOf(owner.key, String(started.id));
    expect(events.map((event) => event.eventType)).toEqual(["llm_decision", "tool_call", "llm_decision"]);
    expect(await sessionsOf(owner.key)).toHaveLength(1);
  });
});

/**
 * What happens when a run's spans reach the service out of their natural order (docs/otel.md, "Order of
 * arrival"): the documented limits of a session that must exist before its root span does.
 */
describe("spans out of order", () => {
  /** A run's spans in memory: root (agent, user, conversation), a chat span (10 + 5 tokens) and a late one (100 + 50). */
  async function identityRun(childrenNameTheAgent: boolean) {
    const run = newRun();
    const memory = new InMemorySpanExporter();
    const provider = new TracerProvider({
      resource: resourceOf(run),
      spanProcessors: [new SimpleSpanProcessor({ exporter: memory })],
    });
    const tracer = provider.getTracer("otel-export-test");
    const root = tracer.startSpan(`invoke_agent ${run.agent}`, {
      startTime: at(run, 0),
      attributes: {
        "gen_ai.operation.name": "invoke_agent",
        "gen_ai.agent.name": run.agent,
        "user.id": run.user,
        "gen_ai.conversation.id": run.conversation,
      },
    });
    const chatAttributes = (input: number, output: number): Attributes => ({
      "gen_ai.operation.name": "chat",
      "gen_ai.usage.input_tokens": input,
      "gen_ai.usage.output_tokens": output,
      ...(childrenNameTheAgent ? { "gen_ai.agent.name": run.agent } : {}),
    });
    child(tracer, root, "chat gpt-4o", at(run, 10), chatAttributes(10, 5)).end(at(run, 20));
    child(tracer, root, "chat gpt-4o", at(run, 30), chatAttributes(100, 50)).end(at(run, 40));
    root.end(at(run, 50));
    await provider.forceFlush();
    const [chat, lateChat, rootSpan] = memory.getFinishedSpans();
    await provider.shutdown();
    if (chat === undefined || lateChat === undefined || rootSpan === undefined) throw new Error("spans missing");
    return { run: { ...run, traceId: root.spanContext().traceId }, chat, lateChat, root: rootSpan };
  }

  // BatchSpanProcessor exports every 5 s: in any longer run the children reach the service before the root,
  // which often alone carries gen_ai.agent.name, user.id and gen_ai.conversation.id. The session is started
  // from the children under stand-ins (service.name, anonymous); the root's stronger claims move it to the
  // real agent and user (its counts with it: test/integration/otel-*.test.ts compare them with a recount),
  // replace its name and start, and merge its metadata.
  it("children exported before the root: the session, awaiting its root meanwhile, moves to the root's agent and user, named and dated by the root", async () => {
    const owner = await createTestKey();
    const { run, chat, lateChat, root } = await identityRun(false);
    const exporter = otlpExporter({ encoding: "protobuf", key: owner.key });
    expect(await exportOnce(exporter, [chat, lateChat])).toEqual({ code: SUCCESS });
    const started = await sessionOfTrace(owner.key, run.traceId);
    expect(started).toMatchObject({
      status: "active",
      agentName: run.service,
      userId: "anonymous",
      metadata: { "otel.awaiting_root": true },
    });
    expect(await exportOnce(exporter, [root])).toEqual({ code: SUCCESS });
    await exporter.shutdown();

    const session = await sessionOfTrace(owner.key, run.traceId);
    expect(session).toMatchObject({ name: `invoke_agent ${run.agent}`, status: "completed", totalTokens: 165 });
    expect(session).toMatchObject({
      agentName: run.agent,
      userId: run.user,
      createdAt: new Date(run.base).toISOString(),
      metadata: { "gen_ai.conversation.id": run.conversation, "otel.trace_id": run.traceId },
    });
    expect(session.metadata).not.toHaveProperty(["otel.awaiting_root"]);
  });

  // The session's tokens are summed when its root span is ingested: an inference span that reaches the
  // service after the root (with BatchSpanProcessor, only when an export failed and was retried after the
  // root's) is stored as an event, but the ended session's totals do not change.
  it("an inference span exported after the root is stored as an event; the ended session's tokens stay", async () => {
    const owner = await createTestKey();
    const { run, chat, lateChat, root } = await identityRun(true);
    const exporter = otlpExporter({ encoding: "protobuf", key: owner.key });
    expect(await exportOnce(exporter, [chat, root])).toEqual({ code: SUCCESS });
    expect(await exportOnce(exporter, [lateChat])).toEqual({ code: SUCCESS });
    await exporter.shutdown();

    const session = await sessionOfTrace(owner.key, run.traceId);
    expect(session).toMatchObject({ status: "completed", eventCount: 2, agentName: run.agent, userId: run.user });
    expect(session).toMatchObject({ promptTokens: 10, completionTokens: 5, totalTokens: 15 });
  });
});

/** What an organisation has stored besides its key and request bookkeeping: sessions, events, trace records… */
const BOOKKEEPING = new Set(["organisation", "apiKey", "apiKeyCredential", "audit", "rateLimitWindow"]);
async function storedData(orgId: string): Promise<Json[]> {
  await settleCounts();
  return (await scanTable()).filter(
    (item) =>
      (item.orgId === orgId || String(item.PK).includes(`ORG#${orgId}#`)) && !BOOKKEEPING.has(String(item.entity)),
  );
}

interface RawResponse {
  readonly status: number;
  readonly headers: Headers;
  readonly contentType: string;
  readonly bytes: Buffer;
}

async function post(body: Uint8Array | string, headers: Record<string, string>, key?: string): Promise<RawResponse> {
  const response = await fetch(`${api.url}${TRACES_PATH}`, {
    method: "POST",
    headers: { ...headers, ...(key === undefined ? {} : { authorization: `Bearer ${key}` }) },
    body,
  });
  return {
    status: response.status,
    headers: response.headers,
    contentType: response.headers.get("content-type") ?? "",
    bytes: Buffer.from(await response.arrayBuffer()),
  };
}

const jsonOf = (response: RawResponse) => JSON.parse(response.bytes.toString("utf8")) as Json;
const PROTOBUF = { "content-type": "application/x-protobuf" };
const JSON_TYPE = { "content-type": "application/json" };

const nanos = (ms: number) => `${BigInt(ms) * 1_000_000n}`;
const hex = (bytes: number) => randomBytes(bytes).toString("hex");

/** An OTLP JSON request of spans (each given its ids; times 1 s apart, a minute ago). */
function jsonRequest(spans: readonly { traceId: string; spanId: string; name?: string; parentSpanId?: string }[]) {
  const start = Date.now() - 60_000;
  return {
    resourceSpans: [
      {
        resource: { attributes: [{ key: "service.name", value: { stringValue: "raw-client" } }] },
        scopeSpans: [
          {
            scope: { name: "raw" },
            spans: spans.map((span) => ({
              name: "invoke_agent raw",
              ...span,
              kind: 1,
              startTimeUnixNano: nanos(start),
              endTimeUnixNano: nanos(start + 1000),
              attributes: [{ key: "gen_ai.operation.name", value: { stringValue: "invoke_agent" } }],
              status: {},
            })),
          },
        ],
      },
    ],
  };
}

describe("bad input", () => {
  let refused: TestKey;
  beforeAll(async () => {
    refused = await createTestKey();
  });

  const expectNothingStored = async () => expect(await storedData(refused.orgId)).toEqual([]);

  it.each([
    ["garbage bytes as protobuf", Buffer.from([0xff, 0xff, 0xff, 0xff, 0x0f, 0x0a, 0x80]), PROTOBUF, /protobuf/],
    ["a length running past the end", Buffer.from([0x0a, 0x50, 0x0a]), PROTOBUF, /protobuf/],
    ["invalid JSON", Buffer.from('{"resourceSpans": ['), JSON_TYPE, /not valid JSON/],
    ["an empty JSON body", Buffer.alloc(0), JSON_TYPE, /empty/],
    [
      "JSON that is not an export request",
      Buffer.from('{"resourceSpans": 42}'),
      JSON_TYPE,
      /ExportTraceServiceRequest/,
    ],
    ["invalid gzip", Buffer.from("not gzip at all"), { ...JSON_TYPE, "content-encoding": "gzip" }, /gzip/],
  ])("%s is 400 JSON and stores nothing", async (_name, body, headers, message) => {
    const response = await post(body, headers, refused.key);
    expect(response.status).toBe(400);
    expect(response.contentType).toMatch(/^application\/json/);
    expect(jsonOf(response)).toMatchObject({ error: "Bad Request", message: expect.stringMatching(message) });
    await expectNothingStored();
  });

  it(`an export of more than ${LIMITS.otlpSpans} spans is 400 naming the limit and stores nothing`, async () => {
    const traceId = hex(16);
    const spans = Array.from({ length: LIMITS.otlpSpans + 1 }, () => ({ traceId, spanId: hex(8) }));
    const response = await post(JSON.stringify(jsonRequest(spans)), JSON_TYPE, refused.key);
    expect(response.status).toBe(400);
    expect(jsonOf(response)).toMatchObject({
      error: "Bad Request",
      message: `A request may hold at most ${LIMITS.otlpSpans} spans; lower the exporter's batch size (OTEL_BSP_MAX_EXPORT_BATCH_SIZE)`,
    });
    await expectNothingStored();
  });

  it.each([
    ["text/plain", { "content-type": "text/plain" }],
    ["no content type", {}],
    ["application/grpc", { "content-type": "application/grpc" }],
  ])("%s is 415 and stores nothing", async (_name, headers) => {
    const response = await post(
      JSON.stringify(jsonRequest([{ traceId: hex(16), spanId: hex(8) }])),
      headers,
      refused.key,
    );
    expect(response.status).toBe(415);
    expect(jsonOf(response)).toMatchObject({ error: "Unsupported Media Type" });
    await expectNothingStored();
  });

  it("a body over 5 MiB is 413 and stores nothing", async () => {
    const body = Buffer.alloc(LIMITS.eventBodyBytes + 1, " ");
    body.write(JSON.stringify(jsonRequest([{ traceId: hex(16), spanId: hex(8) }])));
    const response = await post(body, JSON_TYPE, refused.key);
    expect(response.status).toBe(413);
    expect(jsonOf(response)).toMatchObject({ error: "Payload Too Large" });
    await expectNothingStored();
  });

  it("a gzip bomb (50 MiB of zeros in ~50 KB) is 413 and stores nothing", async () => {
    const bomb = gzipSync(Buffer.alloc(50 * 1024 * 1024));
    expect(bomb.length).toBeLessThan(100_000);
    for (const headers of [PROTOBUF, JSON_TYPE]) {
      const response = await post(bomb, { ...headers, "content-encoding": "gzip" }, refused.key);
      expect(response.status).toBe(413);
      expect(jsonOf(response)).toMatchObject({ error: "Payload Too Large" });
    }
    await expectNothingStored();
  });

  it("spans with bad ids are 200 with partialSuccess counting them (JSON), and store nothing", async () => {
    const body = jsonRequest([
      { traceId: "abc", spanId: hex(8) },
      { traceId: hex(16), spanId: "0000000000000000" },
      { traceId: "0".repeat(32), spanId: hex(8) },
      { traceId: hex(16), spanId: hex(8), parentSpanId: "xyz" },
    ]);
    const response = await post(JSON.stringify(body), JSON_TYPE, refused.key);
    expect(response.status).toBe(200);
    expect(response.contentType).toMatch(/^application\/json/);
    const partial = jsonOf(response).partialSuccess as Json;
    expect(partial.rejectedSpans).toBe("4");
    expect(partial.errorMessage).toMatch(/^4 spans refused: /);
    expect(partial.errorMessage).toContain("traceId must be 16 bytes (32 hex digits)");
    expect(partial.errorMessage).toContain("spanId must not be all zeros");
    expect(partial.errorMessage).toContain("parentSpanId must be 8 bytes");
    await expectNothingStored();
  });

  it("a protobuf request with a bad span gets a protobuf partialSuccess; the good span is stored", async () => {
    const owner = await createTestKey();
    const start = Date.now() - 60_000;
    const traceId = randomBytes(16);
    const span = (spanId: Buffer, name: string) => ({
      traceId,
      spanId,
      name,
      startTimeUnixNano: nanos(start),
      endTimeUnixNano: nanos(start + 250),
      status: { code: 1 },
    });
    const message = requestType.fromObject({
      resourceSpans: [
        {
          resource: { attributes: [{ key: "service.name", value: { stringValue: "proto-client" } }] },
          scopeSpans: [{ spans: [span(randomBytes(8), "invoke_agent good"), span(randomBytes(3), "bad id")] }],
        },
      ],
    });
    const response = await post(requestType.encode(message).finish(), PROTOBUF, owner.key);

    expect(response.status).toBe(200);
    expect(response.contentType).toBe("application/x-protobuf");
    const decoded = responseType.toObject(responseType.decode(response.bytes), { longs: String, defaults: true });
    expect(decoded).toMatchObject({ partialSuccess: { rejectedSpans: "1" } });
    expect(String((decoded.partialSuccess as Json).errorMessage)).toMatch(
      /^1 span refused: spanId must be 8 bytes \(16 hex digits\)$/,
    );
    const session = await sessionOfTrace(owner.key, traceId.toString("hex"));
    expect(session).toMatchObject({
      name: "invoke_agent good",
      agentName: "proto-client",
      status: "completed",
      durationMs: 250,
    });
  });

  it("a fully accepted protobuf request gets an empty protobuf ExportTraceServiceResponse; JSON gets {}", async () => {
    const owner = await createTestKey();
    const start = Date.now() - 60_000;
    const message = requestType.fromObject({
      resourceSpans: [
        {
          scopeSpans: [
            {
              spans: [
                {
                  traceId: randomBytes(16),
                  spanId: randomBytes(8),
                  name: "ok",
                  startTimeUnixNano: nanos(start),
                  endTimeUnixNano: nanos(start + 1),
                },
              ],
            },
          ],
        },
      ],
    });
    const proto = await post(requestType.encode(message).finish(), PROTOBUF, owner.key);
    expect(proto.status).toBe(200);
    expect(proto.contentType).toBe("application/x-protobuf");
    expect(proto.bytes.length).toBe(0);
    expect(responseType.toObject(responseType.decode(proto.bytes))).toEqual({});

    const json = await post(JSON.stringify(jsonRequest([{ traceId: hex(16), spanId: hex(8) }])), JSON_TYPE, owner.key);
    expect(json.status).toBe(200);
    expect(json.contentType).toMatch(/^application\/json/);
    expect(jsonOf(json)).toEqual({});
    expect(await sessionsOf(owner.key)).toHaveLength(2);
  });

  it("a missing or unknown API key is 401, and the SDK exporter reports the failure", async () => {
    const body = JSON.stringify(jsonRequest([{ traceId: hex(16), spanId: hex(8) }]));
    const missing = await post(body, JSON_TYPE);
    const unknown = await post(body, JSON_TYPE, `${refused.key.slice(0, -4)}AAAA`);
    const garbage = await post(body, JSON_TYPE, "not-a-key");
    expect([missing.status, unknown.status, garbage.status]).toEqual([401, 401, 401]);
    expect(jsonOf(missing)).toMatchObject({ error: "Unauthorized" });

    const { spans } = await capturedRun(newRun());
    const exporter = otlpExporter({ encoding: "protobuf", key: "ats_live_not_a_real_key" });
    const result = await exportOnce(exporter, spans);
    expect(result.code).not.toBe(SUCCESS);
    await exporter.shutdown();
    await expectNothingStored();
  });

  it("a key without events:write is 403 and stores nothing", async () => {
    const readOnly = await createTestKey({ orgId: refused.orgId, scopes: ["read"] });
    const body = JSON.stringify(jsonRequest([{ traceId: hex(16), spanId: hex(8) }]));
    const response = await post(body, JSON_TYPE, readOnly.key);
    expect(response.status).toBe(403);
    expect(jsonOf(response)).toMatchObject({ error: "Forbidden" });
    await expectNothingStored();
  });
});

describe("a failure of the service itself", () => {
  it("is 503 with Retry-After (which exporters retry, unlike a 500); the retried export is stored once", async () => {
    const owner = await createTestKey();
    const request = JSON.stringify(jsonRequest([{ traceId: hex(16), spanId: hex(8) }]));
    const failing =
      (next: (args: unknown) => Promise<unknown>, context: { commandName?: string }) => async (args: unknown) => {
        // The session's start (a transaction with the trace record) fails as DynamoDB's own errors do.
        if (context.commandName === "TransactWriteCommand" || context.commandName === "TransactWriteItemsCommand") {
          throw Object.assign(new Error("Internal server error"), { name: "InternalServerError" });
        }
        return next(args);
      };
    documentClient.middlewareStack.add(failing as never, { step: "initialize", name: "otlpFailure" });
    let response: RawResponse;
    try {
      response = await post(request, JSON_TYPE, owner.key);
    } finally {
      documentClient.middlewareStack.remove("otlpFailure");
    }
    expect(response.status).toBe(503);
    expect(response.headers.get("retry-after")).toBe("2");
    expect(jsonOf(response)).toEqual({
      error: "Service Unavailable",
      message: "The export could not be stored now; retry after the Retry-After delay",
    });
    expect(await storedData(owner.orgId)).toEqual([]);

    const retried = await post(request, JSON_TYPE, owner.key);
    expect(retried.status).toBe(200);
    expect(jsonOf(retried)).toEqual({});
    expect(await sessionsOf(owner.key)).toHaveLength(1);
  });
});

describe("tenancy", () => {
  it("the same trace exported with two organisations' keys makes two sessions, each seen only by its own key (and another environment's key makes a third)", async () => {
    const first = await createTestKey();
    const second = await createTestKey();
    const { run, spans } = await capturedRun(newRun());
    const firstExporter = otlpExporter({ encoding: "protobuf", key: first.key });
    const secondExporter = otlpExporter({ encoding: "json", key: second.key });

    expect(await exportOnce(firstExporter, spans)).toEqual({ code: SUCCESS });
    expect(await exportOnce(secondExporter, spans)).toEqual({ code: SUCCESS });

    const mine = await expectScriptedSession(first.key, run);
    const theirs = await expectScriptedSession(second.key, run);
    expect(mine.session.id).not.toBe(theirs.session.id);
    const theirIds = theirs.events.map((event) => event.id);
    expect(mine.events.filter((event) => theirIds.includes(event.id))).toEqual([]);
    expect(await sessionsOf(first.key)).toHaveLength(1);
    expect(await sessionsOf(second.key)).toHaveLength(1);
    for (const [key, foreign] of [
      [first.key, theirs.session.id],
      [second.key, mine.session.id],
    ] as const) {
      const read = await call(api, "GET", `/api/sdk/sessions/${String(foreign)}`, { key });
      const events = await call(api, "GET", `/api/sdk/sessions/${String(foreign)}/events`, { key });
      // Another organisation's session is 403 on every read route (test/integration/read-api.test.ts).
      expect(read.status).toBe(403);
      expect(events.status).toBe(403);
    }

    // The same organisation's test environment is another tenant too.
    const testEnvironment = await createTestKey({ orgId: first.orgId, environment: "test" });
    const testExporter = otlpExporter({ encoding: "protobuf", key: testEnvironment.key });
    expect(await exportOnce(testExporter, spans)).toEqual({ code: SUCCESS });
    const other = await expectScriptedSession(testEnvironment.key, run, "test");
    expect(other.session.id).not.toBe(mine.session.id);
    expect(await sessionsOf(first.key)).toHaveLength(1);
    expect((await call(api, "GET", `/api/sdk/sessions/${String(other.session.id)}`, { key: first.key })).status).toBe(
      403,
    );
    await Promise.all([firstExporter.shutdown(), secondExporter.shutdown(), testExporter.shutdown()]);
  });
});

describe("bounded work per export", () => {
  it(`records at most ${LIMITS.otlpTraces} traces of an export; the spans of the others are refused in partialSuccess, naming the limit`, async () => {
    const owner = await createTestKey();
    const traces = Array.from({ length: LIMITS.otlpTraces + 1 }, () => ({ traceId: hex(16), spanId: hex(8) }));

    const response = await post(JSON.stringify(jsonRequest(traces)), JSON_TYPE, owner.key);

    expect(response.status).toBe(200);
    expect(jsonOf(response)).toEqual({
      partialSuccess: {
        rejectedSpans: "1",
        errorMessage: `1 span refused: span ${traces.at(-1)?.spanId}: An export records at most ${LIMITS.otlpTraces} traces; lower OTEL_BSP_MAX_EXPORT_BATCH_SIZE`,
      },
    });
    const recorded = new Set(
      (await sessionsOf(owner.key)).map((session) => (session.metadata as Json)["otel.trace_id"]),
    );
    expect(recorded.size).toBe(LIMITS.otlpTraces);
    expect(recorded.has(traces.at(-1)?.traceId)).toBe(false);
  });

  it("spends one rate-limit request per trace: an export of more traces than the organisation's minute allows is 429 and stores nothing", async () => {
    const orgId = uniqueOrgId();
    await ensureOrganisation(orgId);
    await updateOrganisationSettings(orgId, { rateLimitPerMinute: 3 });
    const owner = await createTestKey({ orgId });
    const traces = Array.from({ length: 10 }, () => ({ traceId: hex(16), spanId: hex(8) }));

    const response = await post(JSON.stringify(jsonRequest(traces)), JSON_TYPE, owner.key);

    expect(response.status).toBe(429);
    expect(Number(response.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(jsonOf(response)).toEqual({
      error: "Too Many Requests",
      message: expect.stringMatching(
        /^Rate limit of 3 requests per minute reached \(an OTLP export costs one per trace\); retry in \d+ s$/,
      ),
    });
    expect(await storedData(orgId)).toEqual([]);
  });

  it("a request about to run past the function's timeout is 503 with Retry-After, never a 500; its retry stores every span once", async () => {
    const owner = await createTestKey();
    const traces = Array.from({ length: LIMITS.otlpTraces }, () => ({ traceId: hex(16), spanId: hex(8) }));
    const body = JSON.stringify(jsonRequest(traces));
    const route = routeById("ExportTraces");
    const { handler } = await import("../../functions/otel/export-traces.js");
    // 700 ms left: middy answers 500 ms before the end, long before a hundred traces are recorded.
    const deadline = Date.now() + 700;
    const result = await handler(
      gatewayEvent(route, {
        path: TRACES_PATH,
        headers: { "content-type": "application/json", authorization: `Bearer ${owner.key}` },
        body,
      }),
      { ...lambdaContext(route.id, 1024), getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()) },
    );

    expect(result.statusCode).toBe(503);
    expect(result.headers?.["retry-after"]).toBe("2");
    expect(JSON.parse(String(result.body))).toEqual({
      error: "Service Unavailable",
      message: "The request did not finish in time; retry after the Retry-After delay",
    });

    const retried = await post(body, JSON_TYPE, owner.key);
    expect(retried.status).toBe(200);
    expect(jsonOf(retried)).toEqual({});
    const sessions = await sessionsOf(owner.key);
    expect(new Set(sessions.map((session) => (session.metadata as Json)["otel.trace_id"])).size).toBe(traces.length);
    expect(sessions).toHaveLength(traces.length);
  });
});

describe("a deleted session", () => {
  it("takes its trace record with it: a later span of the trace starts a new session instead of being refused", async () => {
    const owner = await createTestKey({ scopes: ["sessions:write", "events:write", "read", "delete"] });
    const traceId = hex(16);
    const root = hex(8);
    const first = await post(JSON.stringify(jsonRequest([{ traceId, spanId: root }])), JSON_TYPE, owner.key);
    expect(jsonOf(first)).toEqual({});
    const [deleted] = await sessionsOf(owner.key);
    expect((await call(api, "DELETE", `/api/sdk/sessions/${String(deleted?.id)}`, { key: owner.key })).status).toBe(
      204,
    );
    expect((await storedData(owner.orgId)).filter((item) => item.entity === "otelTrace")).toEqual([]);

    const late = await post(
      JSON.stringify(jsonRequest([{ traceId, spanId: hex(8), parentSpanId: root, name: "execute_tool late" }])),
      JSON_TYPE,
      owner.key,
    );

    expect(late.status).toBe(200);
    expect(jsonOf(late)).toEqual({});
    const [session] = await sessionsOf(owner.key);
    expect(session?.id).not.toBe(deleted?.id);
    expect(session).toMatchObject({ status: "active", metadata: { "otel.trace_id": traceId } });
  });
});

describe("POST /api/otel/v1/logs", () => {
  const LOGS_PATH = "/api/otel/v1/logs";
  const record = (traceId: string | undefined, spanId: string | undefined, eventName: string, body: Json) => ({
    timeUnixNano: nanos(Date.now() - 30_000),
    severityNumber: 9,
    attributes: [{ key: "event.name", value: { stringValue: eventName } }],
    body,
    ...(traceId === undefined ? {} : { traceId }),
    ...(spanId === undefined ? {} : { spanId }),
  });
  const logsRequest = (records: unknown[]) => ({
    resourceLogs: [{ resource: {}, scopeLogs: [{ logRecords: records }] }],
  });
  const postLogs = (body: Uint8Array | string, headers: Record<string, string>, key?: string) =>
    fetch(`${api.url}${LOGS_PATH}`, {
      method: "POST",
      headers: { ...headers, ...(key === undefined ? {} : { authorization: `Bearer ${key}` }) },
      body,
    });

  it("keeps GenAI event records of a span and refuses any other record in partialSuccess, never a 4xx for the export", async () => {
    const owner = await createTestKey();
    const traceId = hex(16);
    const spanId = hex(8);
    const response = await postLogs(
      JSON.stringify(
        logsRequest([
          record(traceId, spanId, "gen_ai.user.message", {
            kvlistValue: { values: [{ key: "content", value: { stringValue: "Hi" } }] },
          }),
          record(traceId, spanId, "http.request", { stringValue: "GET /" }),
          record(undefined, undefined, "gen_ai.choice", { kvlistValue: { values: [] } }),
          { body: { stringValue: "a plain log line" } },
        ]),
      ),
      JSON_TYPE,
      owner.key,
    );

    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({
      partialSuccess: {
        rejectedLogRecords: "3",
        errorMessage:
          "3 log records refused: Only GenAI event log records (gen_ai.*.message, gen_ai.choice, …) are recorded; A GenAI event log record needs the traceId and spanId of its model call",
      },
    });
    const kept = (await storedData(owner.orgId)).filter((item) => item.entity === "otelLog");
    expect(kept).toHaveLength(1);
    expect(JSON.parse(String(kept[0]?.messagesJson))).toEqual({ input: [{ role: "user", content: "Hi" }] });
  });

  it("answers a protobuf export in protobuf, and refuses what is not an export request as the trace route does", async () => {
    const owner = await createTestKey();
    const empty = await postLogs(new Uint8Array(0), PROTOBUF, owner.key);
    expect(empty.status).toBe(200);
    expect(empty.headers.get("content-type")).toBe("application/x-protobuf");
    expect((await empty.arrayBuffer()).byteLength).toBe(0);

    const notList = await postLogs(JSON.stringify({ resourceLogs: "no" }), JSON_TYPE, owner.key);
    expect(notList.status).toBe(400);
    expect(await notList.json()).toMatchObject({
      error: "Bad Request",
      message: "Not an OTLP ExportLogsServiceRequest: resourceLogs must be an array",
    });
    const tooMany = Array.from({ length: LIMITS.otlpLogRecords + 1 }, () =>
      record(hex(16), hex(8), "gen_ai.choice", {}),
    );
    const over = await postLogs(JSON.stringify(logsRequest(tooMany)), JSON_TYPE, owner.key);
    expect(over.status).toBe(400);
    expect(((await over.json()) as Json).message).toContain(`at most ${LIMITS.otlpLogRecords} log records`);
    const text = await postLogs("x", { "content-type": "text/plain" }, owner.key);
    expect(text.status).toBe(415);
    expect(await text.json()).toEqual({
      error: "Unsupported Media Type",
      message: "Send OTLP logs as Content-Type: application/x-protobuf or application/json (OTLP/HTTP)",
    });
    expect((await postLogs(JSON.stringify(logsRequest([])), JSON_TYPE)).status).toBe(401);
    expect(await storedData(owner.orgId)).toEqual([]);
  });
});

describe("moves racing the stream consumer", () => {
  it("runs exported children first and their roots at once, while the consumer counts them: every count equals a recount", async () => {
    const owner = await createTestKey();
    const start = Date.now() - 60_000;
    const text = (key: string, value: string) => ({ key, value: { stringValue: value } });
    const int = (key: string, value: number) => ({ key, value: { intValue: String(value) } });
    const spanOf = (traceId: string, spanId: string, parentSpanId: string, name: string, attributes: unknown[]) => ({
      traceId,
      spanId,
      parentSpanId,
      name,
      startTimeUnixNano: nanos(start + (parentSpanId === "" ? 0 : 100)),
      endTimeUnixNano: nanos(start + (parentSpanId === "" ? 5_000 : 200)),
      attributes,
    });
    const exportOf = (spans: unknown[]) =>
      JSON.stringify({
        resourceSpans: [
          { resource: { attributes: [text("service.name", "racing-service")] }, scopeSpans: [{ spans }] },
        ],
      });
    const runs = Array.from({ length: 8 }, (_, index) => ({ traceId: hex(16), root: hex(8), index }));

    await Promise.all(
      runs.map(async ({ traceId, root, index }) => {
        const children = [
          spanOf(traceId, hex(8), root, "chat m", [
            text("gen_ai.operation.name", "chat"),
            int("gen_ai.usage.input_tokens", 10 + index),
          ]),
          spanOf(traceId, hex(8), root, "execute_tool lookup", [text("gen_ai.operation.name", "execute_tool")]),
        ];
        expect(jsonOf(await post(exportOf(children), JSON_TYPE, owner.key))).toEqual({});
        const rootSpan = spanOf(traceId, root, "", "invoke_agent racer", [
          text("gen_ai.operation.name", "invoke_agent"),
          text("gen_ai.agent.name", `racer-${index % 2}`),
          text("user.id", `racing-user-${index % 3}`),
        ]);
        expect(jsonOf(await post(exportOf([rootSpan]), JSON_TYPE, owner.key))).toEqual({});
      }),
    );

    const sessions = await sessionsOf(owner.key);
    expect(sessions.map((session) => session.status)).toEqual(Array(runs.length).fill("completed"));
    await expectExactDerivedData({
      reader: { client: documentClient, tableName },
      orgId: owner.orgId,
      sessionIds: sessions.map((session) => String(session.id)),
      get: settledGet(api, owner),
      agentNames: ["racing-service"],
      userIds: ["anonymous"],
    });
  });
});

describe("the review's inflating bodies (issue 30): a 5 KB gzip body of 5 MiB of two-byte fields", () => {
  let sender: TestKey;
  beforeAll(async () => {
    sender = await createTestKey();
  });

  const TOO_MANY = {
    spans: `A request may hold at most ${LIMITS.otlpSpans} spans; lower the exporter's batch size (OTEL_BSP_MAX_EXPORT_BATCH_SIZE)`,
    logRecords: `A request may hold at most ${LIMITS.otlpLogRecords} log records; lower the exporter's batch size (OTEL_BLRP_MAX_EXPORT_BATCH_SIZE)`,
    attributes: `A request may hold at most ${LIMITS.otlpAttributes} attributes; lower the exporter's batch size or its attribute count limit (OTEL_ATTRIBUTE_COUNT_LIMIT)`,
    values: `A request may hold at most ${LIMITS.otlpValues} values (spans, log records, events, attributes, array items and their fields); lower the exporter's batch size`,
  };
  const cases = (["traces", "logs"] as const).flatMap((signal) =>
    (["protobuf", "json"] as const).flatMap((encoding) =>
      FILLERS.map((filler) => {
        const records = signal === "traces" ? TOO_MANY.spans : TOO_MANY.logRecords;
        const message =
          filler === "records" ? records : filler === "attributes" ? TOO_MANY.attributes : TOO_MANY.values;
        return [signal, encoding, filler, message] as const;
      }),
    ),
  );

  it.each(cases)("%s, %s, %s: 400 naming the limit, nothing stored", async (signal, encoding, filler, message) => {
    const body = gzippedInflatingBody(signal, encoding, filler);
    expect(body.length).toBeLessThan(6 * 1024);
    const response = await fetch(`${api.url}/api/otel/v1/${signal}`, {
      method: "POST",
      headers: {
        "content-type": encoding === "protobuf" ? "application/x-protobuf" : "application/json",
        "content-encoding": "gzip",
        authorization: `Bearer ${sender.key}`,
      },
      body,
    });
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ error: "Bad Request", message });
    expect(await storedData(sender.orgId)).toEqual([]);
  });
});
