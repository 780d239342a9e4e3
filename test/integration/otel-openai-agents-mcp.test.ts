/**
 * A provider SDK's own tool span, real: the OpenAI Agents SDK (`@openai/agents`) traced by OpenInference's
 * instrumentation of it (`@arizeai/openinference-instrumentation-openai-agents`), its agent given an MCP server
 * (the SDK's `MCPServerStreamableHttp` against a `@modelcontextprotocol/sdk` server on 127.0.0.1) and its model
 * the fake chat server. The SDK records an MCP tool's result on its function span as the MCP content item it
 * got (`{"type":"text","text":…}`), which OpenInference passes on as `output.value`: the `tool_call` event
 * holds what the tool returned (the item's text, read as JSON), not the protocol's wrapper; the SDK's listing
 * of the server's tools (an `mcp_tools` TOOL span) is no tool call.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { OpenAIAgentsInstrumentation } from "@arizeai/openinference-instrumentation-openai-agents";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import * as agents from "@openai/agents";
import { resourceFromAttributes } from "@opentelemetry/resources";
import { InMemorySpanExporter, SimpleSpanProcessor, TracerProvider } from "@opentelemetry/sdk-trace";
import OpenAI from "openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as z from "zod";
import type { LocalApi } from "../../local/http-adapter.js";
import {
  CHAT_MODEL,
  type FakeChatServer,
  FINAL_ANSWER,
  startFakeChatServer,
  TOOL_ARGUMENTS,
  TOOL_NAME,
  TOOL_RESULT,
} from "../support/fake-chat-server.js";
import { createTestKey, readAllEvents, settleCounts, startTestApi } from "../support/fixtures.js";
import { sessionsOf, tracesExporter } from "../support/otel-library-run.js";

let api: LocalApi;
let chat: FakeChatServer;
let mcpHttp: Server;
let mcpUrl: string;

/** A stateless MCP server over streamable HTTP on 127.0.0.1: a new server and transport per request. */
function startMcpServer(): Promise<Server> {
  const server = createServer((req, res) => {
    const mcp = new McpServer({ name: "weather-server", version: "1.0.0" });
    mcp.registerTool(
      TOOL_NAME,
      { description: "The weather of a city", inputSchema: { city: z.string() } },
      async ({ city }) => ({ content: [{ type: "text", text: JSON.stringify({ city, ...TOOL_RESULT }) }] }),
    );
    const transport = new StreamableHTTPServerTransport({});
    res.on("close", () => {
      void transport.close();
      void mcp.close();
    });
    mcp
      .connect(transport)
      .then(() => transport.handleRequest(req, res))
      .catch(() => res.destroy());
  });
  return new Promise((resolve) => server.listen(0, "127.0.0.1", () => resolve(server)));
}

beforeAll(async () => {
  [api, chat, mcpHttp] = await Promise.all([startTestApi(), startFakeChatServer(), startMcpServer()]);
  mcpUrl = `http://127.0.0.1:${(mcpHttp.address() as AddressInfo).port}/mcp`;
});
afterAll(async () => {
  mcpHttp.closeAllConnections();
  await new Promise<void>((resolve) => mcpHttp.close(() => resolve()));
  await Promise.all([api.close(), chat.close()]);
});

describe("the OpenAI Agents SDK with an MCP server, traced by OpenInference", () => {
  it("the MCP tool's function span becomes a tool_call holding the arguments and what the tool returned", async () => {
    const { key } = await createTestKey();
    const recorded = new InMemorySpanExporter();
    const provider = new TracerProvider({
      resource: resourceFromAttributes({ "service.name": "agents-mcp-service" }),
      spanProcessors: [new SimpleSpanProcessor({ exporter: recorded })],
    });
    const instrumentation = new OpenAIAgentsInstrumentation({ tracerProvider: provider, exclusiveProcessor: true });
    instrumentation.manuallyInstrument(agents as unknown as Parameters<typeof instrumentation.manuallyInstrument>[0]);
    agents.setDefaultOpenAIClient(new OpenAI({ baseURL: chat.baseURL, apiKey: "x" }) as never);
    agents.setOpenAIAPI("chat_completions");
    // The SDK keeps its traces to itself under NODE_ENV=test (vitest's): the app turns them on.
    agents.setTracingDisabled(false);
    const mcpServer = new agents.MCPServerStreamableHttp({ url: mcpUrl, name: "weather-server" });
    try {
      await mcpServer.connect();
      const agent = new agents.Agent({ name: "weather-agent", model: CHAT_MODEL, mcpServers: [mcpServer] });
      const result = await agents.run(agent, "What is the weather in Oslo?");
      expect(result.finalOutput).toBe(FINAL_ANSWER);
      await agents.getGlobalTraceProvider().forceFlush();
    } finally {
      await mcpServer.close();
      instrumentation.disable();
    }
    const spans = [...recorded.getFinishedSpans()];
    await provider.shutdown();
    // What the SDK recorded on its function span: the MCP content item, as OpenInference passes it on.
    const toolSpan = spans.find((span) => span.attributes["tool.name"] === TOOL_NAME);
    expect(JSON.parse(String(toolSpan?.attributes["output.value"]))).toEqual({
      type: "text",
      text: JSON.stringify({ ...TOOL_ARGUMENTS, ...TOOL_RESULT }),
    });

    const exporter = tracesExporter(api, key);
    const exported = await new Promise<{ code: number; error?: Error }>((resolve) => exporter.export(spans, resolve));
    expect(exported.error, String(exported.error)).toBeUndefined();
    await exporter.shutdown();
    await settleCounts();

    const sessions = await sessionsOf(api, key);
    expect(sessions).toHaveLength(1);
    const { events } = await readAllEvents(api, key, String(sessions[0]?.id));
    const tools = events.filter((event) => event.eventType === "tool_call");
    expect(spans.filter((span) => span.name === "mcp_tools").length).toBeGreaterThan(0);
    expect(tools.map((event) => event.toolName)).toEqual([TOOL_NAME]);
    expect(tools[0]?.toolInput).toEqual(TOOL_ARGUMENTS);
    expect(tools[0]?.toolOutput).toEqual({ ...TOOL_ARGUMENTS, ...TOOL_RESULT });
  });
});
