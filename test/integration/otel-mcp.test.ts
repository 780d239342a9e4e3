/**
 * MCP, real: a `@modelcontextprotocol/sdk` server and client in-process (the SDK's in-memory transport), the
 * client instrumented by OpenLLMetry's MCP instrumentation (`@traceloop/instrumentation-mcp`), calling a tool
 * inside the app's own agent span. The instrumentation records the call's input as the request's params
 * (`traceloop.entity.input` = `{tool_name, arguments}`) and its output as the text of the result's first
 * content item (`traceloop.entity.output` = `{result}`, and `is_error` when the result carries the flag): the `tool_call` event holds what the tool
 * received (the arguments, unwrapped) and what it returned (its JSON text, read as JSON), under the tool's name.
 */

import * as McpClientModule from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { context } from "@opentelemetry/api";
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";
import { resourceFromAttributes } from "@opentelemetry/resources";
import { InMemorySpanExporter, type ReadableSpan, SimpleSpanProcessor, TracerProvider } from "@opentelemetry/sdk-trace";
import { McpInstrumentation } from "@traceloop/instrumentation-mcp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as z from "zod";
import type { LocalApi } from "../../local/http-adapter.js";
import { createTestKey, readAllEvents, settleCounts, startTestApi } from "../support/fixtures.js";
import { sessionsOf, tracesExporter } from "../support/otel-library-run.js";

let api: LocalApi;
const contextManager = new AsyncLocalStorageContextManager();

beforeAll(async () => {
  api = await startTestApi();
  context.setGlobalContextManager(contextManager.enable());
});
afterAll(async () => {
  context.disable();
  await api.close();
});

const TOOL = "get_forecast";
const ARGUMENTS = { city: "Oslo", days: 2 };
const FORECAST = {
  city: "Oslo",
  days: [
    { day: 1, sky: "sunny" },
    { day: 2, sky: "rain" },
  ],
};

/** The app's agent run: it connects to the MCP server, calls the tool (and one that fails), and closes. */
async function mcpRun(): Promise<ReadableSpan[]> {
  const recorded = new InMemorySpanExporter();
  const provider = new TracerProvider({
    resource: resourceFromAttributes({ "service.name": "mcp-service" }),
    spanProcessors: [new SimpleSpanProcessor({ exporter: recorded })],
  });
  const instrumentation = new McpInstrumentation({ traceContent: true });
  instrumentation.setTracerProvider(provider);
  instrumentation.manuallyInstrument(McpClientModule);
  const server = new McpServer({ name: "weather-server", version: "1.0.0" });
  server.registerTool(
    TOOL,
    { description: "The forecast of a city", inputSchema: { city: z.string(), days: z.number() } },
    async ({ city, days }) => {
      expect({ city, days }).toEqual(ARGUMENTS);
      return { content: [{ type: "text", text: JSON.stringify(FORECAST) }] };
    },
  );
  server.registerTool("broken", { description: "Always fails", inputSchema: {} }, async () => ({
    content: [{ type: "text", text: "the station is offline" }],
    isError: true,
  }));
  const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair();
  await server.connect(serverTransport);
  const tracer = provider.getTracer("weather-agent");
  try {
    await tracer.startActiveSpan(
      "invoke_agent weather-agent",
      { attributes: { "gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "weather-agent" } },
      async (root) => {
        const client = new McpClientModule.Client({ name: "weather-agent", version: "1.0.0" });
        await client.connect(clientTransport);
        const result = await client.callTool({ name: TOOL, arguments: ARGUMENTS });
        expect(result.content).toEqual([{ type: "text", text: JSON.stringify(FORECAST) }]);
        await client.callTool({ name: "broken", arguments: {} });
        await client.close();
        root.end();
      },
    );
    await provider.forceFlush();
  } finally {
    instrumentation.disable();
    await server.close();
  }
  const spans = [...recorded.getFinishedSpans()];
  await provider.shutdown();
  // What the instrumentation records of the call: the request's params and the first content item's text.
  const toolSpan = spans.find((span) => span.name === `${TOOL}.tool`);
  expect(JSON.parse(String(toolSpan?.attributes["traceloop.entity.input"]))).toEqual({
    tool_name: TOOL,
    arguments: ARGUMENTS,
  });
  expect(JSON.parse(String(toolSpan?.attributes["traceloop.entity.output"]))).toEqual({
    result: JSON.stringify(FORECAST),
  });
  return spans;
}

describe("OpenLLMetry's MCP instrumentation", () => {
  it("a tool call's event holds the MCP tool's name, the arguments it received and what it returned", async () => {
    const { key } = await createTestKey();
    const spans = await mcpRun();
    const exporter = tracesExporter(api, key);
    const result = await new Promise<{ code: number; error?: Error }>((resolve) => exporter.export(spans, resolve));
    expect(result.error, String(result.error)).toBeUndefined();
    await exporter.shutdown();
    await settleCounts();

    const sessions = await sessionsOf(api, key);
    expect(sessions.map((session) => session.agentName)).toEqual(["weather-agent"]);
    const { events } = await readAllEvents(api, key, String(sessions[0]?.id));
    const tools = events.filter((event) => event.eventType === "tool_call");
    expect(tools.map((event) => event.toolName).sort()).toEqual(["broken", TOOL]);
    const forecast = tools.find((event) => event.toolName === TOOL);
    expect(forecast?.toolInput).toEqual(ARGUMENTS);
    expect(forecast?.toolOutput).toEqual(FORECAST);
    // A failed call keeps what the instrumentation recorded (its error flag with the text), and is an error event.
    const broken = tools.find((event) => event.toolName === "broken");
    expect(broken?.toolOutput).toEqual({ result: "the station is offline", is_error: true });
    const errors = events.filter((event) => event.eventType === "error");
    expect(errors.map((event) => [event.toolName, event.reasoning])).toEqual([["broken", "the station is offline"]]);
  });
});
