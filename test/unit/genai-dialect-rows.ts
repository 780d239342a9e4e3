/**
 * One check per row of the dialect tables of docs/otel.md, keyed by the row's first cell exactly as the
 * document writes it: test/unit/genai-dialects.test.ts runs them, test/unit/otel-doc.test.ts holds the keys to
 * the document's rows (a row without its check, or a check without its row, fails there). Each check reads
 * spans (or log records) the row describes through the dialects (functions/otel/dialects/normalise.ts) and
 * asserts the normalised span the row names.
 */
import { expect } from "vitest";
import { withLogMessages } from "../../functions/domain/genai-log-events.js";
import type { GenAiSpan } from "../../functions/domain/genai-span.js";
import { planTraces } from "../../functions/domain/genai-trace-plan.js";
import type { AttributeValue } from "../../functions/domain/otel-span.js";
import { normaliseSpan } from "../../functions/otel/dialects/normalise.js";
import { readExportLogsRequest } from "../../functions/otel/otlp-logs.js";
import { mastraRows } from "./mastra-dialect-rows.js";
import { id, nanos, span, T0, TRACE_ID } from "./otlp-fixtures.js";

type Attributes = Record<string, AttributeValue>;
type Check = () => void;

const ROOT = id(1);

interface SpanOptions {
  readonly name?: string;
  /** The root span (no parent). */
  readonly root?: boolean;
  readonly events?: { name: string; attributes?: Attributes }[];
  readonly resource?: Attributes;
}

/** A child span (or the root) with these attributes, read through the dialects. */
function read(attributes: Attributes, options: SpanOptions = {}): GenAiSpan {
  return normaliseSpan(
    span({
      spanId: options.root === true ? ROOT : id(2),
      ...(options.root === true ? {} : { parentSpanId: ROOT }),
      name: options.name ?? "a span",
      attributes,
      ...(options.events === undefined ? {} : { events: options.events }),
      ...(options.resource === undefined ? {} : { resource: options.resource }),
    }),
  );
}

const OI_LLM = { "openinference.span.kind": "LLM" } as const;
const OI_TOOL = { "openinference.span.kind": "TOOL" } as const;
const TL_TOOL = { "traceloop.span.kind": "tool" } as const;
const TL_CHAT = { "llm.request.type": "chat" } as const;
const AI_CALL = { "ai.operationId": "ai.generateText.doGenerate" } as const;

const semconv: Record<string, Check> = {
  "`gen_ai.operation.name`; without it, the span name's first word when that is an operation (`chat`, `text_completion`, `generate_content`, `embeddings`, `invoke_agent`, `create_agent`, `execute_tool`)":
    () => {
      expect(read({ "gen_ai.operation.name": "generate_content" }).operation).toBe("generate_content");
      expect(read({}, { name: "embeddings text-embedding-3-small" }).operation).toBe("embeddings");
      expect(read({}, { name: "summarise the notes" }).operation).toBeUndefined();
    },
  "operation `chat`, `text_completion`, `generate_content` or `embeddings`": () => {
    for (const operation of ["chat", "text_completion", "generate_content", "embeddings"]) {
      expect(read({ "gen_ai.operation.name": operation }).role).toBe("inference");
    }
  },
  "operation `execute_tool`": () => {
    expect(read({ "gen_ai.operation.name": "execute_tool" }).role).toBe("tool");
  },
  "operation `invoke_agent` or `create_agent`": () => {
    expect(read({}, { name: "invoke_agent planner" }).role).toBe("agent");
    expect(read({ "gen_ai.operation.name": "create_agent" }).role).toBe("agent");
  },
  "any other span (HTTP, database, your own)": () => {
    const other = read({ "http.request.method": "GET" }, { name: "GET /weather" });
    expect(other).toMatchObject({ role: "other", dialect: "genai-semconv" });
  },
  "`gen_ai.agent.name`": () => {
    expect(read({ "gen_ai.agent.name": "planner" }).agentName).toBe("planner");
  },
  "`gen_ai.agent.id`": () => {
    expect(read({ "gen_ai.agent.id": "asst_1" }).agentId).toBe("asst_1");
  },
  "`user.id`, else `enduser.id`": () => {
    expect(read({ "user.id": "u1", "enduser.id": "e1" }).userId).toBe("u1");
    expect(read({ "enduser.id": "e1" }).userId).toBe("e1");
  },
  "`gen_ai.conversation.id`, else `session.id`": () => {
    expect(read({ "gen_ai.conversation.id": "c1", "session.id": "s1" }).conversationId).toBe("c1");
    expect(read({ "session.id": "s1" }).conversationId).toBe("s1");
  },
  "`gen_ai.provider.name`, else ≤ v1.36 `gen_ai.system`": () => {
    expect(
      read({ "gen_ai.operation.name": "chat", "gen_ai.provider.name": "openai", "gen_ai.system": "x" }).provider,
    ).toBe("openai");
    expect(read({ "gen_ai.operation.name": "chat", "gen_ai.system": "anthropic" }).provider).toBe("anthropic");
  },
  "`gen_ai.request.model`, else `gen_ai.response.model`": () => {
    expect(
      read({ "gen_ai.operation.name": "chat", "gen_ai.request.model": "m1", "gen_ai.response.model": "m2" }).model,
    ).toBe("m1");
    expect(read({ "gen_ai.operation.name": "chat", "gen_ai.response.model": "m2" }).model).toBe("m2");
  },
  "`gen_ai.response.model`, `gen_ai.response.id`, `gen_ai.response.finish_reasons`": () => {
    expect(
      read({
        "gen_ai.operation.name": "chat",
        "gen_ai.response.model": "m2",
        "gen_ai.response.id": "r1",
        "gen_ai.response.finish_reasons": ["stop"],
      }),
    ).toMatchObject({ responseModel: "m2", responseId: "r1", finishReasons: ["stop"] });
  },
  "`gen_ai.request.temperature`, `gen_ai.request.max_tokens`, `gen_ai.request.top_p`": () => {
    expect(
      read({
        "gen_ai.operation.name": "chat",
        "gen_ai.request.temperature": 0.3,
        "gen_ai.request.max_tokens": 200,
        "gen_ai.request.top_p": 0.9,
      }),
    ).toMatchObject({ temperature: 0.3, maxTokens: 200, topP: 0.9 });
  },
  "`gen_ai.usage.input_tokens`, else ≤ v1.36 `gen_ai.usage.prompt_tokens`": () => {
    expect(
      read({ "gen_ai.operation.name": "chat", "gen_ai.usage.input_tokens": 7, "gen_ai.usage.prompt_tokens": 9 }).usage,
    ).toMatchObject({ promptTokens: 7 });
    expect(read({ "gen_ai.operation.name": "chat", "gen_ai.usage.prompt_tokens": 9 }).usage).toMatchObject({
      promptTokens: 9,
    });
  },
  "`gen_ai.usage.output_tokens`, else ≤ v1.36 `gen_ai.usage.completion_tokens`": () => {
    expect(read({ "gen_ai.operation.name": "chat", "gen_ai.usage.output_tokens": "3" }).usage).toMatchObject({
      completionTokens: 3,
    });
    expect(read({ "gen_ai.operation.name": "chat", "gen_ai.usage.completion_tokens": 4 }).usage).toMatchObject({
      completionTokens: 4,
    });
  },
  "`gen_ai.usage.total_tokens`, else prompt + completion": () => {
    const given = { "gen_ai.operation.name": "chat", "gen_ai.usage.input_tokens": 7, "gen_ai.usage.output_tokens": 3 };
    expect(read({ ...given, "gen_ai.usage.total_tokens": 11 }).usage?.totalTokens).toBe(11);
    expect(read(given).usage?.totalTokens).toBe(10);
  },
  "`gen_ai.usage.cache_read.input_tokens`, else `gen_ai.usage.cache_read_input_tokens`": () => {
    expect(
      read({ "gen_ai.operation.name": "chat", "gen_ai.usage.cache_read.input_tokens": 4 }).usage?.cacheReadTokens,
    ).toBe(4);
    expect(
      read({ "gen_ai.operation.name": "chat", "gen_ai.usage.cache_read_input_tokens": 5 }).usage?.cacheReadTokens,
    ).toBe(5);
  },
  "`gen_ai.usage.cache_creation.input_tokens`, else `gen_ai.usage.cache_creation_input_tokens`": () => {
    expect(
      read({ "gen_ai.operation.name": "chat", "gen_ai.usage.cache_creation.input_tokens": 6 }).usage
        ?.cacheCreationTokens,
    ).toBe(6);
    expect(
      read({ "gen_ai.operation.name": "chat", "gen_ai.usage.cache_creation_input_tokens": 8 }).usage
        ?.cacheCreationTokens,
    ).toBe(8);
  },
  "`gen_ai.usage.reasoning.output_tokens`, else `gen_ai.usage.reasoning_tokens` (OpenLLMetry's name)": () => {
    const chat = { "gen_ai.operation.name": "chat", "gen_ai.usage.output_tokens": 50 };
    expect(
      read({ ...chat, "gen_ai.usage.reasoning.output_tokens": 20, "gen_ai.usage.reasoning_tokens": 30 }).usage,
    ).toMatchObject({ completionTokens: 50, reasoningTokens: 20 });
    expect(read({ ...chat, "gen_ai.usage.reasoning_tokens": 30 }).usage?.reasoningTokens).toBe(30);
  },
  "cache-read + cache-creation tokens larger than the prompt tokens (any dialect)": () => {
    const chat = { "gen_ai.operation.name": "chat", "gen_ai.usage.output_tokens": 5 };
    // Anthropic's input_tokens passed on as it is: 10 new tokens, 300 read from the cache, 40 written to it.
    expect(
      read({
        ...chat,
        "gen_ai.usage.input_tokens": 10,
        "gen_ai.usage.cache_read.input_tokens": 300,
        "gen_ai.usage.cache_creation.input_tokens": 40,
        "gen_ai.usage.total_tokens": 15,
      }).usage,
    ).toMatchObject({ promptTokens: 350, totalTokens: 355, cacheReadTokens: 300, cacheCreationTokens: 40 });
    // The conventions' own count (cached tokens included) is read as it is.
    expect(
      read({ ...chat, "gen_ai.usage.input_tokens": 400, "gen_ai.usage.cache_read.input_tokens": 300 }).usage,
    ).toMatchObject({ promptTokens: 400, totalTokens: 405 });
    expect(
      read({ ...OI_LLM, "llm.token_count.prompt": 3, "llm.token_count.prompt_details.cache_read": 8 }).usage
        ?.promptTokens,
    ).toBe(11);
  },
  "`gen_ai.usage.cost` (USD; not a semantic-convention attribute)": () => {
    expect(read({ "gen_ai.operation.name": "chat", "gen_ai.usage.cost": 0.01 }).usage?.cost).toBe(0.01);
    expect(read({ "gen_ai.operation.name": "execute_tool", "gen_ai.usage.cost": 0.02 }).cost).toBe(0.02);
  },
  "`gen_ai.input.messages` (JSON text or structured)": () => {
    const messages = [{ role: "user", parts: [{ type: "text", content: "Hi" }] }];
    expect(
      read({ "gen_ai.operation.name": "chat", "gen_ai.input.messages": JSON.stringify(messages) }).inputMessages,
    ).toEqual(messages);
  },
  "≤ v1.36 span events `gen_ai.system.message`, `gen_ai.user.message`, `gen_ai.assistant.message`, `gen_ai.tool.message` (body from `gen_ai.event.content` or `message` when an object, else `content` or `gen_ai.content`), when `gen_ai.input.messages` is absent":
    () => {
      const chat = read(
        { "gen_ai.operation.name": "chat" },
        {
          events: [
            { name: "gen_ai.system.message", attributes: { content: "Be brief." } },
            { name: "gen_ai.user.message", attributes: { "gen_ai.event.content": '{"content":"Hi"}' } },
            { name: "gen_ai.tool.message", attributes: { "gen_ai.content": "42" } },
          ],
        },
      );
      expect(chat.inputMessages).toEqual([
        { role: "system", content: "Be brief." },
        { role: "user", content: "Hi" },
        { role: "tool", content: "42" },
      ]);
    },
  "older `gen_ai.content.prompt` event's `gen_ai.prompt` (when neither of the above)": () => {
    const chat = read(
      { "gen_ai.operation.name": "chat" },
      { events: [{ name: "gen_ai.content.prompt", attributes: { "gen_ai.prompt": "Hello?" } }] },
    );
    expect(chat.inputMessages).toBe("Hello?");
  },
  "`gen_ai.output.messages`; else ≤ v1.36 `gen_ai.choice` events (role `assistant`); else the `gen_ai.content.completion` event's `gen_ai.completion`":
    () => {
      const output = [{ role: "assistant", parts: [{ type: "text", content: "Yes." }] }];
      expect(
        read({ "gen_ai.operation.name": "chat", "gen_ai.output.messages": JSON.stringify(output) }).outputMessages,
      ).toEqual(output);
      const choice = read(
        { "gen_ai.operation.name": "chat" },
        { events: [{ name: "gen_ai.choice", attributes: { message: '{"content":"No."}' } }] },
      );
      expect(choice.outputMessages).toEqual([{ role: "assistant", content: "No." }]);
      const completion = read(
        { "gen_ai.operation.name": "chat" },
        { events: [{ name: "gen_ai.content.completion", attributes: { "gen_ai.completion": "Maybe." } }] },
      );
      expect(completion.outputMessages).toBe("Maybe.");
    },
  "`gen_ai.system_instructions`": () => {
    const system = [{ type: "text", content: "Be brief." }];
    expect(
      read({ "gen_ai.operation.name": "chat", "gen_ai.system_instructions": JSON.stringify(system) })
        .systemInstructions,
    ).toEqual(system);
  },
  "the text of the output messages (`content` text, or text `parts`)": () => {
    const output = [
      { role: "assistant", parts: [{ type: "text", content: "First." }] },
      { role: "assistant", content: "Second." },
    ];
    expect(read({ "gen_ai.operation.name": "chat", "gen_ai.output.messages": JSON.stringify(output) }).answer).toBe(
      "First.\nSecond.",
    );
  },
  "`gen_ai.tool.name`, else the span name after `execute_tool `": () => {
    expect(read({ "gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "search" }).toolName).toBe("search");
    expect(read({}, { name: "execute_tool get_weather" }).toolName).toBe("get_weather");
  },
  "`gen_ai.tool.call.arguments`": () => {
    expect(
      read({ "gen_ai.operation.name": "execute_tool", "gen_ai.tool.call.arguments": '{"city":"Oslo"}' }).toolArguments,
    ).toEqual({ city: "Oslo" });
  },
  "`gen_ai.tool.call.result`": () => {
    expect(read({ "gen_ai.operation.name": "execute_tool", "gen_ai.tool.call.result": "sunny" }).toolResult).toBe(
      "sunny",
    );
  },
};

const openInference: Record<string, Check> = {
  "`openinference.span.kind` `LLM` or `EMBEDDING`": () => {
    expect(read(OI_LLM)).toMatchObject({ dialect: "openinference", role: "inference", operation: "chat" });
    expect(read({ "openinference.span.kind": "EMBEDDING" })).toMatchObject({
      role: "inference",
      operation: "embeddings",
    });
  },
  "`openinference.span.kind` `TOOL` (but a span named `mcp_tools` without `tool.name`: the OpenAI Agents SDK listing an MCP server's tools, role: other)":
    () => {
      expect(read(OI_TOOL).role).toBe("tool");
      expect(read({ ...OI_TOOL, "output.value": '["get_weather"]' }, { name: "mcp_tools" }).role).toBe("other");
      expect(read({ ...OI_TOOL, "tool.name": "mcp_tools" }, { name: "mcp_tools" }).role).toBe("tool");
    },
  "`openinference.span.kind` `AGENT`": () => {
    expect(read({ "openinference.span.kind": "AGENT" })).toMatchObject({ role: "agent", operation: "invoke_agent" });
  },
  "`openinference.span.kind` `CHAIN`, `RETRIEVER`, `RERANKER`, `GUARDRAIL`, `EVALUATOR`, `PROMPT`": () => {
    for (const kind of ["CHAIN", "RETRIEVER", "RERANKER", "GUARDRAIL", "EVALUATOR", "PROMPT"]) {
      expect(read({ "openinference.span.kind": kind })).toMatchObject({ dialect: "openinference", role: "other" });
    }
  },
  "`agent.name`; else the name of an `AGENT` span below the root": () => {
    expect(read({ "openinference.span.kind": "LLM", "agent.name": "planner" }).agentName).toBe("planner");
    expect(read({ "openinference.span.kind": "AGENT" }, { name: "researcher" }).agentName).toBe("researcher");
    const namedRoot = read({ "openinference.span.kind": "AGENT", "agent.name": "planner" }, { root: true, name: "r" });
    expect(namedRoot).toMatchObject({ agentName: "planner", runName: undefined });
    expect(read({ "openinference.span.kind": "CHAIN" }, { name: "RunnableSequence" }).agentName).toBeUndefined();
  },
  "the name of the root span when it is an `AGENT` or `CHAIN` span without `agent.name` (a LangChain run's `runName`, the OpenAI Agents SDK's workflow)":
    () => {
      expect(read({ "openinference.span.kind": "CHAIN" }, { name: "weather-agent", root: true })).toMatchObject({
        agentName: undefined,
        runName: "weather-agent",
      });
      expect(read({ "openinference.span.kind": "AGENT" }, { name: "Agent workflow", root: true })).toMatchObject({
        agentName: undefined,
        runName: "Agent workflow",
      });
      expect(read({ "openinference.span.kind": "CHAIN" }, { name: "RunnableSequence" }).runName).toBeUndefined();
      expect(read({ "openinference.span.kind": "LLM" }, { name: "response", root: true }).runName).toBeUndefined();
    },
  "`user.id`, else the `metadata` object's `user_id` or `userId`": () => {
    expect(read({ ...OI_LLM, "user.id": "u1", metadata: '{"user_id":"u2"}' }).userId).toBe("u1");
    expect(read({ ...OI_LLM, metadata: '{"user_id":"u2"}' }).userId).toBe("u2");
    expect(read({ ...OI_LLM, metadata: '{"userId":"u3"}' }).userId).toBe("u3");
  },
  "`session.id`, else the `metadata` object's `session_id`, `sessionId`, `thread_id` or `conversation_id`": () => {
    expect(read({ ...OI_LLM, "session.id": "s1", metadata: '{"thread_id":"t1"}' }).conversationId).toBe("s1");
    for (const key of ["session_id", "sessionId", "thread_id", "conversation_id"]) {
      expect(read({ ...OI_LLM, metadata: JSON.stringify({ [key]: "t1" }) }).conversationId).toBe("t1");
    }
  },
  "`metadata` (a JSON object)": () => {
    expect(read({ ...OI_LLM, metadata: '{"team":"support"}' }).metadata).toEqual({
      "openinference.metadata": { team: "support" },
    });
    expect(read({ ...OI_LLM, metadata: "not json" }).metadata).toBeUndefined();
  },
  "`llm.provider`, else `llm.system`": () => {
    expect(read({ ...OI_LLM, "llm.provider": "azure", "llm.system": "openai" }).provider).toBe("azure");
    expect(read({ ...OI_LLM, "llm.system": "openai" }).provider).toBe("openai");
  },
  "`llm.model_name`, else `llm.request.model_name`, else `embedding.model_name`": () => {
    expect(read({ ...OI_LLM, "llm.model_name": "m1", "llm.request.model_name": "m2" }).model).toBe("m1");
    expect(read({ ...OI_LLM, "llm.request.model_name": "m2" }).model).toBe("m2");
    expect(read({ "openinference.span.kind": "EMBEDDING", "embedding.model_name": "e1" }).model).toBe("e1");
  },
  "`llm.response.model_name`": () => {
    expect(read({ ...OI_LLM, "llm.response.model_name": "m-2024" }).responseModel).toBe("m-2024");
  },
  "`llm.finish_reason`": () => {
    expect(read({ ...OI_LLM, "llm.finish_reason": "stop" }).finishReasons).toBe("stop");
  },
  "`llm.invocation_parameters` (JSON): its `temperature`, `max_tokens` (else `max_completion_tokens`) and `top_p`":
    () => {
      expect(
        read({ ...OI_LLM, "llm.invocation_parameters": '{"temperature":0.1,"max_tokens":99,"top_p":0.5}' }),
      ).toMatchObject({
        temperature: 0.1,
        maxTokens: 99,
        topP: 0.5,
      });
      expect(read({ ...OI_LLM, "llm.invocation_parameters": '{"max_completion_tokens":77}' }).maxTokens).toBe(77);
    },
  "`llm.token_count.prompt`, `llm.token_count.completion`, `llm.token_count.total` (else prompt + completion)": () => {
    expect(
      read({ ...OI_LLM, "llm.token_count.prompt": 11, "llm.token_count.completion": 5, "llm.token_count.total": 17 })
        .usage,
    ).toMatchObject({ promptTokens: 11, completionTokens: 5, totalTokens: 17 });
    expect(read({ ...OI_LLM, "llm.token_count.prompt": 11, "llm.token_count.completion": 5 }).usage?.totalTokens).toBe(
      16,
    );
  },
  "`llm.token_count.prompt_details.cache_read`, `llm.token_count.prompt_details.cache_write`": () => {
    expect(
      read({
        ...OI_LLM,
        "llm.token_count.prompt_details.cache_read": 4,
        "llm.token_count.prompt_details.cache_write": 2,
      }).usage,
    ).toMatchObject({ cacheReadTokens: 4, cacheCreationTokens: 2 });
  },
  "`llm.token_count.completion_details.reasoning`": () => {
    expect(
      read({ ...OI_LLM, "llm.token_count.completion": 40, "llm.token_count.completion_details.reasoning": 25 }).usage,
    ).toMatchObject({ completionTokens: 40, reasoningTokens: 25 });
  },
  "`llm.cost.total`": () => {
    expect(read({ ...OI_LLM, "llm.cost.total": 0.003 }).usage?.cost).toBe(0.003);
    expect(read({ ...OI_TOOL, "llm.cost.total": 0.004 }).cost).toBe(0.004);
  },
  "`llm.input_messages.<n>.message.<field>` (`role`, `content`, `contents.<m>.message_content.*`, `tool_calls.<m>.tool_call.*`, `tool_call_id`, `name`: each message as the object its paths describe, in index order); else `input.value`":
    () => {
      const llm = read({
        ...OI_LLM,
        "llm.input_messages.1.message.role": "assistant",
        "llm.input_messages.1.message.tool_calls.0.tool_call.function.name": "get_weather",
        "llm.input_messages.1.message.tool_calls.0.tool_call.function.arguments": '{"city":"Oslo"}',
        "llm.input_messages.0.message.role": "user",
        "llm.input_messages.0.message.contents.0.message_content.type": "text",
        "llm.input_messages.0.message.contents.0.message_content.text": "Weather?",
        "llm.input_messages.2.message.role": "tool",
        "llm.input_messages.2.message.content": "sunny",
        "llm.input_messages.2.message.tool_call_id": "call_1",
        "input.value": "ignored: the messages are there",
      });
      expect(llm.inputMessages).toEqual([
        { role: "user", contents: [{ message_content: { type: "text", text: "Weather?" } }] },
        {
          role: "assistant",
          tool_calls: [{ tool_call: { function: { name: "get_weather", arguments: '{"city":"Oslo"}' } } }],
        },
        { role: "tool", content: "sunny", tool_call_id: "call_1" },
      ]);
      expect(read({ ...OI_LLM, "input.value": '{"messages":[]}' }).inputMessages).toEqual({ messages: [] });
    },
  "`llm.output_messages.<n>.message.<field>` (the same); else `output.value`": () => {
    expect(
      read({
        ...OI_LLM,
        "llm.output_messages.0.message.role": "assistant",
        "llm.output_messages.0.message.content": "Yes",
      }).outputMessages,
    ).toEqual([{ role: "assistant", content: "Yes" }]);
    expect(read({ ...OI_LLM, "output.value": "plain" }).outputMessages).toBe("plain");
  },
  "the text of the output messages": () => {
    expect(read({ ...OI_LLM, "llm.output_messages.0.message.content": "It is sunny." }).answer).toBe("It is sunny.");
    const parts = {
      ...OI_LLM,
      "llm.output_messages.0.message.role": "assistant",
      "llm.output_messages.0.message.contents.0.message_content.type": "text",
      "llm.output_messages.0.message.contents.0.message_content.text": "It is sunny",
      "llm.output_messages.0.message.contents.1.message_content.type": "image",
      "llm.output_messages.0.message.contents.2.message_content.text": "in Oslo.",
    };
    expect(read(parts).answer).toBe("It is sunny\nin Oslo.");
  },
  "`tool.name`, else the span name": () => {
    expect(read({ ...OI_TOOL, "tool.name": "search" }, { name: "x" }).toolName).toBe("search");
    expect(read(OI_TOOL, { name: "get_weather" }).toolName).toBe("get_weather");
  },
  '`input.value` (JSON parsed; LangChain\'s serialised objects `{lc, type: "constructor", kwargs}` read as their content)':
    () => {
      expect(read({ ...OI_TOOL, "input.value": '{"city":"Oslo"}' }).toolArguments).toEqual({ city: "Oslo" });
      const serialised = {
        lc: 1,
        type: "constructor",
        id: ["langchain_core", "messages", "ToolMessage"],
        kwargs: { content: '{"a":1}' },
      };
      expect(read({ ...OI_TOOL, "input.value": JSON.stringify({ output: serialised }) }).toolArguments).toEqual({
        a: 1,
      });
    },
  '`output.value` (the same; an MCP text content item `{"type": "text", "text": …}`, alone or the only one of a list, as its text, JSON parsed)':
    () => {
      const serialised = { lc: 1, type: "constructor", kwargs: { content: "sunny" } };
      expect(read({ ...OI_TOOL, "output.value": JSON.stringify({ output: serialised }) }).toolResult).toBe("sunny");
      expect(read({ ...OI_TOOL, "output.value": "42" }).toolResult).toBe("42");
      const item = { type: "text", text: '{"forecast":"sunny"}' };
      expect(read({ ...OI_TOOL, "output.value": JSON.stringify(item) }).toolResult).toEqual({ forecast: "sunny" });
      expect(read({ ...OI_TOOL, "output.value": JSON.stringify([item]) }).toolResult).toEqual({ forecast: "sunny" });
      expect(read({ ...OI_TOOL, "output.value": JSON.stringify([item, item]) }).toolResult).toEqual([item, item]);
      const image = { type: "image", data: "AAAA", mimeType: "image/png" };
      expect(read({ ...OI_TOOL, "output.value": JSON.stringify(image) }).toolResult).toEqual(image);
    },
};

const openLlmetry: Record<string, Check> = {
  "`traceloop.span.kind` `tool`": () => {
    expect(read(TL_TOOL)).toMatchObject({ dialect: "openllmetry", role: "tool", operation: "execute_tool" });
  },
  "`traceloop.span.kind` `agent`": () => {
    expect(read({ "traceloop.span.kind": "agent" })).toMatchObject({ role: "agent", operation: "invoke_agent" });
  },
  "`traceloop.span.kind` `workflow` or `task`": () => {
    expect(read({ "traceloop.span.kind": "workflow" }).role).toBe("other");
    expect(read({ "traceloop.span.kind": "task" }).role).toBe("other");
  },
  "no `traceloop.span.kind`: a model call; `llm.request.type` `chat`, `completion` or `embedding` (default `chat`)":
    () => {
      expect(read(TL_CHAT)).toMatchObject({ dialect: "openllmetry", role: "inference", operation: "chat" });
      expect(read({ "llm.request.type": "completion" }).operation).toBe("text_completion");
      expect(read({ "llm.request.type": "embedding" }).operation).toBe("embeddings");
      expect(read({ "gen_ai.prompt.0.content": "Hi" })).toMatchObject({ role: "inference", operation: "chat" });
    },
  "`traceloop.entity.name` of an `agent` span": () => {
    expect(read({ "traceloop.span.kind": "agent", "traceloop.entity.name": "planner" }).agentName).toBe("planner");
    expect(read({ "traceloop.span.kind": "workflow", "traceloop.entity.name": "trip" }, { root: true }).agentName).toBe(
      undefined,
    );
  },
  "`traceloop.entity.name` of the root `workflow` span, else its `traceloop.workflow.name`": () => {
    expect(read({ "traceloop.span.kind": "workflow", "traceloop.entity.name": "trip" }, { root: true }).runName).toBe(
      "trip",
    );
    expect(
      read({ "traceloop.span.kind": "workflow", "traceloop.workflow.name": "trip-2" }, { root: true }).runName,
    ).toBe("trip-2");
    expect(read({ "traceloop.span.kind": "workflow", "traceloop.entity.name": "nested" }).runName).toBeUndefined();
  },
  "`traceloop.association.properties.userId` or `…user_id`": () => {
    expect(read({ ...TL_CHAT, "traceloop.association.properties.userId": "u1" }).userId).toBe("u1");
    expect(read({ ...TL_CHAT, "traceloop.association.properties.user_id": "u2" }).userId).toBe("u2");
    // On a span of another dialect too (OpenLLMetry's current chat spans are GenAI-convention spans).
    expect(read({ "gen_ai.operation.name": "chat", "traceloop.association.properties.userId": "u3" }).userId).toBe(
      "u3",
    );
  },
  "`traceloop.association.properties.sessionId`, `…session_id`, `…conversationId`, `…conversation_id`, `…chatId`, `…chat_id`, `…threadId` or `…thread_id`":
    () => {
      for (const key of [
        "sessionId",
        "session_id",
        "conversationId",
        "conversation_id",
        "chatId",
        "chat_id",
        "threadId",
        "thread_id",
      ]) {
        expect(read({ ...TL_CHAT, [`traceloop.association.properties.${key}`]: "c1" }).conversationId).toBe("c1");
      }
    },
  "`traceloop.association.properties.*`": () => {
    expect(
      read({
        ...TL_CHAT,
        "traceloop.association.properties.tier": "gold",
        "traceloop.association.properties.__proto__": "x",
      }).metadata,
    ).toEqual({ "traceloop.association.properties": JSON.parse('{"tier":"gold","__proto__":"x"}') });
  },
  "`traceloop.entity.name` of a `tool` span, else its name without `.tool`": () => {
    expect(read({ ...TL_TOOL, "traceloop.entity.name": "search" }).toolName).toBe("search");
    expect(read(TL_TOOL, { name: "get_weather.tool" }).toolName).toBe("get_weather");
  },
  '`traceloop.entity.input` (JSON; `{"args": [], "kwargs": {…}}` reads as the keyword arguments; an MCP call\'s `{"tool_name", "arguments"}` naming the tool as its `arguments`)':
    () => {
      const mcp = { ...TL_TOOL, "traceloop.entity.name": "get_weather" };
      const input = JSON.stringify({ tool_name: "get_weather", arguments: { city: "Oslo" } });
      expect(read({ ...mcp, "traceloop.entity.input": input }).toolArguments).toEqual({ city: "Oslo" });
      const other = JSON.stringify({ tool_name: "another", arguments: { city: "Oslo" } });
      expect(read({ ...mcp, "traceloop.entity.input": other }).toolArguments).toEqual(JSON.parse(other));
      expect(
        read({ ...TL_TOOL, "traceloop.entity.input": '{"args":[],"kwargs":{"city":"Oslo"}}' }).toolArguments,
      ).toEqual({
        city: "Oslo",
      });
      expect(read({ ...TL_TOOL, "traceloop.entity.input": '{"args":["Oslo"],"kwargs":{}}' }).toolArguments).toEqual({
        args: ["Oslo"],
        kwargs: {},
      });
    },
  '`traceloop.entity.output` (an MCP call\'s `{"result", "is_error"}`: its `result`, JSON parsed; as it is when `is_error`)':
    () => {
      expect(read({ ...TL_TOOL, "traceloop.entity.output": '{"forecast":"sunny"}' }).toolResult).toEqual({
        forecast: "sunny",
      });
      const output = JSON.stringify({ result: '{"forecast":"sunny"}', is_error: false });
      expect(read({ ...TL_TOOL, "traceloop.entity.output": output }).toolResult).toEqual({ forecast: "sunny" });
      expect(read({ ...TL_TOOL, "traceloop.entity.output": '{"result":"plain"}' }).toolResult).toBe("plain");
      const failed = JSON.stringify({ result: "offline", is_error: true });
      expect(read({ ...TL_TOOL, "traceloop.entity.output": failed }).toolResult).toEqual(JSON.parse(failed));
    },
  "a model call's GenAI-convention attributes (provider, model, response, temperature…, usage, messages)": () => {
    expect(
      read({
        ...TL_CHAT,
        "gen_ai.system": "openai",
        "gen_ai.request.model": "gpt-4o",
        "gen_ai.response.id": "r1",
        "gen_ai.request.temperature": 0.5,
        "gen_ai.usage.prompt_tokens": 9,
        "gen_ai.usage.completion_tokens": 3,
        "gen_ai.input.messages": '[{"role":"user","content":"Hi"}]',
      }),
    ).toMatchObject({
      provider: "openai",
      model: "gpt-4o",
      responseId: "r1",
      temperature: 0.5,
      usage: { promptTokens: 9, completionTokens: 3, totalTokens: 12 },
      inputMessages: [{ role: "user", content: "Hi" }],
    });
  },
  "`llm.usage.total_tokens`, else `gen_ai.usage.total_tokens`": () => {
    expect(read({ ...TL_CHAT, "llm.usage.total_tokens": 20, "gen_ai.usage.total_tokens": 30 }).usage?.totalTokens).toBe(
      20,
    );
    expect(read({ ...TL_CHAT, "gen_ai.usage.total_tokens": 30 }).usage?.totalTokens).toBe(30);
  },
  "a model call of provider `anthropic` (`gen_ai.provider.name`, else `gen_ai.system`) whose resource's `telemetry.sdk.language` is not `python`":
    () => {
      // What @traceloop/instrumentation-anthropic sets: input_tokens as Anthropic gives it, the total input + output.
      const span = {
        "gen_ai.operation.name": "chat",
        "gen_ai.provider.name": "anthropic",
        "gen_ai.usage.input_tokens": 100,
        "gen_ai.usage.output_tokens": 20,
        "gen_ai.usage.cache_read.input_tokens": 30,
        "gen_ai.usage.cache_creation.input_tokens": 10,
        "llm.usage.total_tokens": 120,
        ...TL_CHAT,
      };
      expect(read(span, { resource: { "telemetry.sdk.language": "nodejs" } }).usage).toMatchObject({
        promptTokens: 140,
        completionTokens: 20,
        totalTokens: 160,
      });
      const { "gen_ai.provider.name": _provider, ...older } = span;
      expect(read({ ...older, "gen_ai.system": "Anthropic" }).usage?.promptTokens).toBe(140);
      // The Python instrumentation's input count already holds the cache; another provider's too.
      expect(read(span, { resource: { "telemetry.sdk.language": "python" } }).usage?.promptTokens).toBe(100);
      expect(read({ ...span, "gen_ai.provider.name": "openai" }).usage?.promptTokens).toBe(100);
    },
  "flattened `gen_ai.prompt.<n>.<field>` (`role`, `content`, `tool_call_id`, `tool_calls.<m>.id` / `name` / `arguments`), in index order":
    () => {
      const chat = read({
        ...TL_CHAT,
        "gen_ai.prompt.1.role": "tool",
        "gen_ai.prompt.1.content": "sunny",
        "gen_ai.prompt.1.tool_call_id": "call_1",
        "gen_ai.prompt.0.role": "assistant",
        "gen_ai.prompt.0.tool_calls.0.id": "call_1",
        "gen_ai.prompt.0.tool_calls.0.name": "get_weather",
        "gen_ai.prompt.0.tool_calls.0.arguments": '{"city":"Oslo"}',
        "gen_ai.input.messages": '[{"role":"user"}]',
      });
      expect(chat.inputMessages).toEqual([
        { role: "assistant", tool_calls: [{ id: "call_1", name: "get_weather", arguments: '{"city":"Oslo"}' }] },
        { role: "tool", content: "sunny", tool_call_id: "call_1" },
      ]);
    },
  "flattened `gen_ai.completion.<n>.<field>` (`role`, `content`, `finish_reason`, `tool_calls.<m>.*`)": () => {
    const chat = read({
      ...TL_CHAT,
      "gen_ai.completion.0.role": "assistant",
      "gen_ai.completion.0.content": "It is sunny.",
      "gen_ai.completion.0.finish_reason": "stop",
    });
    expect(chat.outputMessages).toEqual([{ role: "assistant", content: "It is sunny.", finish_reason: "stop" }]);
    expect(chat.answer).toBe("It is sunny.");
  },
};

const vercelAi: Record<string, Check> = {
  "`ai.generateText`, `ai.streamText`, `ai.generateObject`, `ai.streamObject` (`ai.operationId`, else the span name)":
    () => {
      for (const call of ["ai.generateText", "ai.streamText", "ai.generateObject", "ai.streamObject"]) {
        expect(read({ "ai.operationId": call })).toMatchObject({ dialect: "vercel-ai", role: "agent" });
        expect(read({}, { name: call }).role).toBe("agent");
      }
    },
  "`ai.<call>.doGenerate` or `ai.<call>.doStream`; `ai.embed.doEmbed`, `ai.embedMany.doEmbed`": () => {
    for (const call of ["ai.generateText.doGenerate", "ai.streamText.doStream", "ai.generateObject.doGenerate"]) {
      expect(read({ "ai.operationId": call })).toMatchObject({ role: "inference", operation: "chat" });
    }
    for (const call of ["ai.embed.doEmbed", "ai.embedMany.doEmbed"]) {
      expect(read({ "ai.operationId": call })).toMatchObject({ role: "inference", operation: "embeddings" });
    }
  },
  "`ai.toolCall`": () => {
    expect(read({ "ai.operationId": "ai.toolCall" })).toMatchObject({ role: "tool", operation: "execute_tool" });
  },
  "any other `ai.*` call (`ai.embed`, …)": () => {
    expect(read({ "ai.operationId": "ai.embed" })).toMatchObject({ dialect: "vercel-ai", role: "other" });
  },
  "`ai.telemetry.functionId`": () => {
    expect(read({ ...AI_CALL, "ai.telemetry.functionId": "weather-agent" }).agentName).toBe("weather-agent");
  },
  "`ai.telemetry.metadata.userId` (or `.user_id`, `.user`); `ai.settings.context.userId` (the same)": () => {
    for (const key of ["userId", "user_id", "user"]) {
      expect(read({ ...AI_CALL, [`ai.telemetry.metadata.${key}`]: "u1" }).userId).toBe("u1");
      expect(read({ "gen_ai.operation.name": "chat", [`ai.settings.context.${key}`]: "u2" }).userId).toBe("u2");
    }
  },
  "`ai.telemetry.metadata.sessionId` (or `.session_id`, `.conversationId`, `.conversation_id`, `.threadId`, `.thread_id`); `ai.settings.context.*` (the same)":
    () => {
      for (const key of ["sessionId", "session_id", "conversationId", "conversation_id", "threadId", "thread_id"]) {
        expect(read({ ...AI_CALL, [`ai.telemetry.metadata.${key}`]: "c1" }).conversationId).toBe("c1");
        expect(read({ "gen_ai.operation.name": "chat", [`ai.settings.context.${key}`]: "c2" }).conversationId).toBe(
          "c2",
        );
      }
    },
  "`ai.telemetry.metadata.*`": () => {
    expect(
      read({ ...AI_CALL, "ai.telemetry.metadata.plan": "pro", "ai.telemetry.metadata.attempt": 2 }).metadata,
    ).toEqual({
      "ai.telemetry.metadata": { plan: "pro", attempt: 2 },
    });
  },
  "`ai.model.provider`, else `gen_ai.system`": () => {
    expect(read({ ...AI_CALL, "ai.model.provider": "openai.chat", "gen_ai.system": "x" }).provider).toBe("openai.chat");
    expect(read({ ...AI_CALL, "gen_ai.system": "anthropic.messages" }).provider).toBe("anthropic.messages");
  },
  "`ai.model.id`, else `gen_ai.request.model`": () => {
    expect(read({ ...AI_CALL, "ai.model.id": "gpt-4o", "gen_ai.request.model": "x" }).model).toBe("gpt-4o");
    expect(read({ ...AI_CALL, "gen_ai.request.model": "claude" }).model).toBe("claude");
  },
  "`ai.response.model`, `ai.response.id` (else `gen_ai.response.model`, `gen_ai.response.id`)": () => {
    expect(read({ ...AI_CALL, "ai.response.model": "m1", "ai.response.id": "r1" })).toMatchObject({
      responseModel: "m1",
      responseId: "r1",
    });
    expect(read({ ...AI_CALL, "gen_ai.response.model": "m2", "gen_ai.response.id": "r2" })).toMatchObject({
      responseModel: "m2",
      responseId: "r2",
    });
  },
  "`gen_ai.response.finish_reasons`, else `ai.response.finishReason`": () => {
    expect(
      read({ ...AI_CALL, "gen_ai.response.finish_reasons": ["stop"], "ai.response.finishReason": "x" }).finishReasons,
    ).toEqual(["stop"]);
    expect(read({ ...AI_CALL, "ai.response.finishReason": "tool-calls" }).finishReasons).toBe("tool-calls");
  },
  "`ai.usage.inputTokens`, else `ai.usage.promptTokens`, else the GenAI names": () => {
    expect(read({ ...AI_CALL, "ai.usage.inputTokens": 11, "gen_ai.usage.input_tokens": 99 }).usage?.promptTokens).toBe(
      11,
    );
    expect(read({ ...AI_CALL, "ai.usage.promptTokens": 12 }).usage?.promptTokens).toBe(12);
    expect(read({ ...AI_CALL, "gen_ai.usage.input_tokens": 13 }).usage?.promptTokens).toBe(13);
  },
  "`ai.usage.outputTokens`, else `ai.usage.completionTokens`, else the GenAI names": () => {
    expect(read({ ...AI_CALL, "ai.usage.outputTokens": 5 }).usage?.completionTokens).toBe(5);
    expect(read({ ...AI_CALL, "ai.usage.completionTokens": 6 }).usage?.completionTokens).toBe(6);
    expect(read({ ...AI_CALL, "gen_ai.usage.output_tokens": 7 }).usage?.completionTokens).toBe(7);
  },
  "`ai.usage.totalTokens`, else the GenAI name, else prompt + completion": () => {
    expect(read({ ...AI_CALL, "ai.usage.totalTokens": 20, "ai.usage.inputTokens": 1 }).usage?.totalTokens).toBe(20);
    expect(read({ ...AI_CALL, "gen_ai.usage.total_tokens": 21 }).usage?.totalTokens).toBe(21);
    expect(read({ ...AI_CALL, "ai.usage.inputTokens": 11, "ai.usage.outputTokens": 5 }).usage?.totalTokens).toBe(16);
  },
  "`ai.usage.inputTokenDetails.cacheReadTokens`, else `ai.usage.cachedInputTokens`, else the GenAI names": () => {
    expect(
      read({ ...AI_CALL, "ai.usage.inputTokenDetails.cacheReadTokens": 4, "ai.usage.cachedInputTokens": 9 }).usage
        ?.cacheReadTokens,
    ).toBe(4);
    expect(read({ ...AI_CALL, "ai.usage.cachedInputTokens": 9 }).usage?.cacheReadTokens).toBe(9);
    expect(read({ ...AI_CALL, "gen_ai.usage.cache_read.input_tokens": 7 }).usage?.cacheReadTokens).toBe(7);
  },
  "`ai.usage.inputTokenDetails.cacheWriteTokens`, else the GenAI names": () => {
    expect(read({ ...AI_CALL, "ai.usage.inputTokenDetails.cacheWriteTokens": 3 }).usage?.cacheCreationTokens).toBe(3);
    expect(read({ ...AI_CALL, "gen_ai.usage.cache_creation.input_tokens": 2 }).usage?.cacheCreationTokens).toBe(2);
  },
  "`ai.usage.reasoningTokens`, else `ai.usage.outputTokenDetails.reasoningTokens`, else the GenAI names": () => {
    expect(
      read({ ...AI_CALL, "ai.usage.reasoningTokens": 12, "ai.usage.outputTokenDetails.reasoningTokens": 13 }).usage
        ?.reasoningTokens,
    ).toBe(12);
    expect(read({ ...AI_CALL, "ai.usage.outputTokenDetails.reasoningTokens": 13 }).usage?.reasoningTokens).toBe(13);
    expect(read({ ...AI_CALL, "gen_ai.usage.reasoning.output_tokens": 14 }).usage?.reasoningTokens).toBe(14);
  },
  "`ai.prompt.messages`, else `ai.prompt`": () => {
    expect(read({ ...AI_CALL, "ai.prompt.messages": '[{"role":"user","content":"Hi"}]' }).inputMessages).toEqual([
      { role: "user", content: "Hi" },
    ]);
    expect(read({ ...AI_CALL, "ai.prompt": '{"prompt":"Hi"}' }).inputMessages).toEqual({ prompt: "Hi" });
  },
  "`ai.response.text` (or `ai.response.object`) and `ai.response.toolCalls`": () => {
    const call = read({
      ...AI_CALL,
      "ai.response.text": "Checking.",
      "ai.response.toolCalls": '[{"toolCallId":"c1","toolName":"get_weather","input":{"city":"Oslo"}}]',
    });
    expect(call.outputMessages).toEqual([
      {
        role: "assistant",
        content: "Checking.",
        toolCalls: [{ toolCallId: "c1", toolName: "get_weather", input: { city: "Oslo" } }],
      },
    ]);
    expect(call.answer).toBe("Checking.");
    expect(
      read({ "ai.operationId": "ai.generateObject.doGenerate", "ai.response.object": '{"a":1}' }).outputMessages,
    ).toEqual([{ role: "assistant", content: '{"a":1}' }]);
  },
  "`ai.toolCall.name`": () => {
    expect(read({ "ai.operationId": "ai.toolCall", "ai.toolCall.name": "get_weather" }).toolName).toBe("get_weather");
  },
  "`ai.toolCall.args` (else `ai.toolCall.input`)": () => {
    expect(read({ "ai.operationId": "ai.toolCall", "ai.toolCall.args": '{"city":"Oslo"}' }).toolArguments).toEqual({
      city: "Oslo",
    });
    expect(read({ "ai.operationId": "ai.toolCall", "ai.toolCall.input": '{"city":"Bergen"}' }).toolArguments).toEqual({
      city: "Bergen",
    });
  },
  "`ai.toolCall.result` (else `ai.toolCall.output`)": () => {
    expect(read({ "ai.operationId": "ai.toolCall", "ai.toolCall.result": '{"forecast":"sunny"}' }).toolResult).toEqual({
      forecast: "sunny",
    });
    expect(read({ "ai.operationId": "ai.toolCall", "ai.toolCall.output": "rain" }).toolResult).toBe("rain");
  },
};

/** Log records as the logs route reads them (OTLP JSON). */
function logRecords(records: Record<string, unknown>[]) {
  return readExportLogsRequest({ resourceLogs: [{ scopeLogs: [{ logRecords: records }] }] });
}
const text = (value: string) => ({ stringValue: value });
const list = (entries: Record<string, unknown>) => ({
  kvlistValue: { values: Object.entries(entries).map(([key, value]) => ({ key, value })) },
});
const record = (eventName: string, body: unknown, extra: Record<string, unknown> = {}) => ({
  timeUnixNano: nanos(T0),
  eventName,
  body,
  traceId: TRACE_ID,
  spanId: id(2),
  ...extra,
});

const logs: Record<string, Check> = {
  "`eventName`, else the `event.name` attribute: `gen_ai.system.message`, `gen_ai.user.message`, `gen_ai.assistant.message` or `gen_ai.tool.message`":
    () => {
      const { records, refused } = logRecords([
        record("gen_ai.system.message", list({ content: text("Be brief.") })),
        {
          ...record("", list({ content: text("Hi") })),
          attributes: [{ key: "event.name", value: text("gen_ai.user.message") }],
        },
        record(
          "gen_ai.assistant.message",
          list({ tool_calls: { arrayValue: { values: [list({ id: text("c1") })] } } }),
        ),
        record("gen_ai.tool.message", list({ id: text("c1"), content: text("sunny") })),
      ]);
      expect(refused).toEqual([]);
      expect(records.flatMap((read) => read.messages.input ?? [])).toEqual([
        { role: "system", content: "Be brief." },
        { role: "user", content: "Hi" },
        { role: "assistant", tool_calls: [{ id: "c1" }] },
        { role: "tool", id: "c1", content: "sunny" },
      ]);
    },
  "`gen_ai.choice`": () => {
    const { records } = logRecords([
      record(
        "gen_ai.choice",
        list({ index: { intValue: "0" }, finish_reason: text("stop"), message: list({ content: text("Yes.") }) }),
      ),
    ]);
    expect(records[0]?.messages.output).toEqual([
      { role: "assistant", content: "Yes.", index: 0, finish_reason: "stop" },
    ]);
  },
  "`gen_ai.client.inference.operation.details`: its attributes `gen_ai.input.messages`, `gen_ai.output.messages`, `gen_ai.system_instructions`":
    () => {
      const { records } = logRecords([
        {
          ...record("gen_ai.client.inference.operation.details", null),
          attributes: [
            { key: "gen_ai.input.messages", value: text('[{"role":"user","parts":[{"type":"text","content":"Hi"}]}]') },
            {
              key: "gen_ai.output.messages",
              value: text('[{"role":"assistant","parts":[{"type":"text","content":"Yo"}]}]'),
            },
            { key: "gen_ai.system_instructions", value: text('[{"type":"text","content":"Be brief."}]') },
          ],
        },
      ]);
      expect(records[0]?.messages).toEqual({
        input: [{ role: "user", parts: [{ type: "text", content: "Hi" }] }],
        output: [{ role: "assistant", parts: [{ type: "text", content: "Yo" }] }],
        systemInstructions: [{ type: "text", content: "Be brief." }],
      });
    },
  "`traceId`, `spanId`": () => {
    const { records } = logRecords([record("gen_ai.choice", list({}))]);
    expect(records[0]).toMatchObject({ traceId: TRACE_ID, spanId: id(2) });
    // The span's llm_decision gets the messages where it has none.
    const decision = planTraces([
      normaliseSpan(
        span({ spanId: id(2), parentSpanId: ROOT, name: "chat m", attributes: { "gen_ai.operation.name": "chat" } }),
      ),
    ])[0]?.events[0]?.event;
    expect(
      withLogMessages(decision ?? {}, [
        { input: [{ role: "user", content: "Hi" }] },
        { output: [{ role: "assistant", content: "Yo" }] },
      ]),
    ).toMatchObject({
      toolInput: { messages: [{ role: "user", content: "Hi" }] },
      toolOutput: { messages: [{ role: "assistant", content: "Yo" }] },
      reasoning: "Yo",
    });
  },
  "`timeUnixNano` (else `observedTimeUnixNano`), then the record's place in the request": () => {
    const { records } = logRecords([
      { ...record("gen_ai.choice", list({})), timeUnixNano: "0", observedTimeUnixNano: nanos(T0 + 5) },
      record("gen_ai.choice", list({})),
    ]);
    expect(records.map((read) => [read.timeNanos, read.position])).toEqual([
      [nanos(T0 + 5), 0],
      [nanos(T0), 1],
    ]);
  },
  "any other record, or one without a trace and span id": () => {
    const { records, refused } = logRecords([
      record("http.request", text("GET /")),
      { body: text("a log line") },
      record("gen_ai.choice", list({}), { traceId: undefined, spanId: undefined }),
    ]);
    expect(records).toEqual([]);
    expect(refused.map((refusal) => refusal.message)).toEqual([
      "Only GenAI event log records (gen_ai.*.message, gen_ai.choice, …) are recorded",
      "Only GenAI event log records (gen_ai.*.message, gen_ai.choice, …) are recorded",
      "A GenAI event log record needs the traceId and spanId of its model call",
    ]);
  },
};

const LF_GENERATION = { "langfuse.observation.type": "generation" } as const;
const LF_TOOL = { "langfuse.observation.type": "tool" } as const;
const usage = (details: Record<string, unknown>) => ({
  ...LF_GENERATION,
  "langfuse.observation.usage_details": JSON.stringify(details),
});

const langfuse: Record<string, Check> = {
  "`langfuse.observation.type` `generation` or `embedding`": () => {
    expect(read(LF_GENERATION)).toMatchObject({ dialect: "langfuse", role: "inference", operation: "chat" });
    expect(read({ "langfuse.observation.type": "embedding" })).toMatchObject({
      role: "inference",
      operation: "embeddings",
    });
  },
  "`langfuse.observation.type` `tool`": () => {
    expect(read(LF_TOOL, { name: "get_weather" })).toMatchObject({
      role: "tool",
      operation: "execute_tool",
      toolName: "get_weather",
    });
  },
  "`langfuse.observation.type` `agent`": () => {
    expect(read({ "langfuse.observation.type": "agent" }, { name: "planner" })).toMatchObject({
      role: "agent",
      agentName: "planner",
    });
  },
  "`langfuse.observation.type` `event`": () => {
    const marked = read(
      {
        "langfuse.observation.type": "event",
        "langfuse.observation.input": '{"step":"plan"}',
        "langfuse.observation.output": "done",
      },
      { name: "plan-ready" },
    );
    expect(marked).toMatchObject({ role: "event", toolArguments: { step: "plan" }, toolResult: "done" });
    const [plan] = planTraces([read({ "langfuse.observation.type": "agent" }, { root: true }), marked]);
    expect(plan?.events.map((planned) => planned.event)).toEqual([
      expect.objectContaining({
        eventType: "state_change",
        reasoning: "plan-ready",
        toolInput: { step: "plan" },
        toolOutput: { output: "done" },
      }),
    ]);
  },
  "any other type (`span`, `chain`, `retriever`, `evaluator`, `guardrail`…)": () => {
    for (const type of ["span", "chain", "retriever", "evaluator", "guardrail"]) {
      expect(read({ "langfuse.observation.type": type })).toMatchObject({ role: "other", operation: type });
    }
    expect(read({ "langfuse.observation.type": "span" }, { root: true, name: "handle" })).toMatchObject({
      agentName: undefined,
      runName: "handle",
    });
    expect(read({ "langfuse.observation.type": "retriever" }, { root: true, name: "x" }).runName).toBeUndefined();
    expect(read({ "langfuse.observation.type": "span" }, { name: "child" }).runName).toBeUndefined();
  },
  "`langfuse.trace.name`": () => {
    expect(read({ ...LF_GENERATION, "langfuse.trace.name": "support-bot" }).agentName).toBe("support-bot");
    const agent = { "langfuse.observation.type": "agent", "langfuse.trace.name": "t" };
    expect(read(agent, { name: "own" }).agentName).toBe("own");
    // Copied by the processor onto another library's spans too.
    expect(read({ "gen_ai.operation.name": "chat", "langfuse.trace.name": "support-bot" }).agentName).toBe(
      "support-bot",
    );
  },
  "`user.id`, else `langfuse.user.id`": () => {
    expect(read({ ...LF_GENERATION, "user.id": "u1", "langfuse.user.id": "u2" }).userId).toBe("u1");
    expect(read({ ...LF_GENERATION, "langfuse.user.id": "u2" }).userId).toBe("u2");
  },
  "`session.id`, else `langfuse.session.id`": () => {
    expect(read({ ...LF_GENERATION, "session.id": "s1", "langfuse.session.id": "s2" }).conversationId).toBe("s1");
    expect(read({ ...LF_GENERATION, "langfuse.session.id": "s2" }).conversationId).toBe("s2");
  },
  "`langfuse.trace.metadata` (JSON, or one attribute per key `langfuse.trace.metadata.<key>`), `langfuse.trace.tags`, `langfuse.environment`, `langfuse.release`, `langfuse.version`":
    () => {
      const metadata = read({
        ...LF_GENERATION,
        "langfuse.trace.metadata": '{"plan":"pro"}',
        "langfuse.trace.metadata.region": "eu",
        "langfuse.trace.metadata.__proto__": "only a key",
        "langfuse.trace.tags": ["beta", "eu"],
        "langfuse.environment": "production",
        "langfuse.release": "v42",
        "langfuse.version": "3",
      }).metadata;
      expect(metadata).toMatchObject({
        "langfuse.trace.tags": ["beta", "eu"],
        "langfuse.environment": "production",
        "langfuse.release": "v42",
        "langfuse.version": "3",
      });
      const trace = metadata?.["langfuse.trace.metadata"] as Record<string, unknown>;
      expect(Object.getPrototypeOf(trace)).toBe(Object.prototype);
      expect(Object.entries(trace)).toEqual([
        ["plan", "pro"],
        ["region", "eu"],
        ["__proto__", "only a key"],
      ]);
    },
  "`langfuse.observation.metadata` of the root observation (JSON, or `langfuse.observation.metadata.<key>`)": () => {
    const attributes = { "langfuse.observation.type": "agent", "langfuse.observation.metadata.step": "plan" };
    expect(read(attributes, { root: true }).metadata).toEqual({ "langfuse.observation.metadata": { step: "plan" } });
    expect(read(attributes).metadata).toBeUndefined();
  },
  "`langfuse.observation.model.name`": () => {
    expect(read({ ...LF_GENERATION, "langfuse.observation.model.name": "gpt-4o-mini" }).model).toBe("gpt-4o-mini");
  },
  "`langfuse.observation.model.parameters`: `temperature`, `max_tokens` (or `maxTokens`, `max_completion_tokens`), `top_p` (or `topP`)":
    () => {
      const parameters = (value: Record<string, unknown>) =>
        read({ ...LF_GENERATION, "langfuse.observation.model.parameters": JSON.stringify(value) });
      expect(parameters({ temperature: 0.2, max_tokens: 256, top_p: 0.9 })).toMatchObject({
        temperature: 0.2,
        maxTokens: 256,
        topP: 0.9,
      });
      expect(parameters({ temperature: "0.5", maxTokens: "64", topP: "x" })).toMatchObject({
        temperature: 0.5,
        maxTokens: 64,
        topP: undefined,
      });
    },
  "`langfuse.observation.usage_details`: the sum of the usage types whose name contains `input` (or starts `prompt`)":
    () => {
      expect(read(usage({ input: 60, input_cached_tokens: 40, output: 10 })).usage?.promptTokens).toBe(100);
      expect(read(usage({ prompt_tokens: 12, completion_tokens: 3 })).usage?.promptTokens).toBe(12);
    },
  "the sum of the usage types whose name contains `output` (or starts `completion`)": () => {
    expect(read(usage({ input: 1, output: 7, output_reasoning_tokens: 5 })).usage?.completionTokens).toBe(12);
    expect(read(usage({ completion_tokens: 3 })).usage?.completionTokens).toBe(3);
  },
  "`total` (or `total_tokens`), else prompt + completion": () => {
    expect(read(usage({ input: 1, output: 2, total: 9 })).usage?.totalTokens).toBe(9);
    expect(read(usage({ prompt_tokens: 1, completion_tokens: 2, total_tokens: 3 })).usage?.totalTokens).toBe(3);
    expect(read(usage({ input: 1, output: 2 })).usage?.totalTokens).toBe(3);
  },
  "input types with `cache_read` or `cached` in their name": () => {
    expect(read(usage({ input: 5, input_cached_tokens: 40 })).usage?.cacheReadTokens).toBe(40);
    expect(read(usage({ input: 5, cache_read_input_tokens: 30 })).usage).toMatchObject({
      cacheReadTokens: 30,
      promptTokens: 35,
    });
  },
  "input types with `cache_creation` or `cache_write` in their name": () => {
    expect(read(usage({ input: 5, cache_creation_input_tokens: 20 })).usage).toMatchObject({
      cacheCreationTokens: 20,
      promptTokens: 25,
    });
    expect(read(usage({ input: 5, input_cache_write: 2 })).usage?.cacheCreationTokens).toBe(2);
  },
  "output types with `reasoning` in their name": () => {
    expect(read(usage({ output: 7, output_reasoning_tokens: 5 })).usage?.reasoningTokens).toBe(5);
  },
  "a count that is negative or past `LIMITS.maxTokens`, or not a number": () => {
    const odd = read(usage({ input: -1, output: 1e13, total: "9" })).usage;
    expect(odd).toMatchObject({ promptTokens: undefined, completionTokens: undefined, totalTokens: undefined });
    const prototype = read({
      ...LF_GENERATION,
      "langfuse.observation.usage_details": '{"__proto__": {"input": 5}, "input": 3, "constructor": 9}',
    }).usage;
    expect(prototype).toMatchObject({ promptTokens: 3, completionTokens: undefined, totalTokens: 3 });
    expect(
      read({ ...LF_GENERATION, "langfuse.observation.usage_details": '{"input": 1e999}' }).usage?.promptTokens,
    ).toBe(undefined);
  },
  "`langfuse.observation.cost_details`: its `total`, else the sum of its parts (USD)": () => {
    const cost = (details: string) =>
      read({ ...LF_GENERATION, "langfuse.observation.cost_details": details }).usage?.cost;
    expect(cost('{"input": 0.001, "output": 0.002, "total": 0.0031}')).toBe(0.0031);
    expect(cost('{"input": 0.001, "output": 0.002}')).toBeCloseTo(0.003, 12);
    expect(cost('{"total": -1}')).toBeUndefined();
    expect(cost('{"input": -0.5, "output": 1}')).toBeUndefined();
    expect(cost('{"total": 1e999}')).toBeUndefined();
    expect(read({ ...LF_TOOL, "langfuse.observation.cost_details": '{"total": 0.5}' }).cost).toBe(0.5);
  },
  "`langfuse.observation.input`": () => {
    const messages = [{ role: "user", content: "Weather in Paris?" }];
    expect(read({ ...LF_GENERATION, "langfuse.observation.input": JSON.stringify(messages) }).inputMessages).toEqual(
      messages,
    );
    expect(read({ ...LF_TOOL, "langfuse.observation.input": '{"city":"Paris"}' }).toolArguments).toEqual({
      city: "Paris",
    });
  },
  "`langfuse.observation.output`": () => {
    const answer = { role: "assistant", content: "Sunny." };
    expect(read({ ...LF_GENERATION, "langfuse.observation.output": JSON.stringify(answer) })).toMatchObject({
      outputMessages: answer,
      answer: "Sunny.",
    });
    expect(read({ ...LF_TOOL, "langfuse.observation.output": "sunny" }).toolResult).toBe("sunny");
  },
  "`langfuse.observation.level` `ERROR`, with `langfuse.observation.status_message`": () => {
    const failed = { ...LF_TOOL, "langfuse.observation.level": "ERROR" };
    expect(read({ ...failed, "langfuse.observation.status_message": "quota" }).failure).toBe("quota");
    expect(read(failed, { name: "lookup" }).failure).toBe("lookup failed");
    expect(read({ ...LF_TOOL, "langfuse.observation.level": "WARNING" }).failure).toBeUndefined();
    const [plan] = planTraces([
      read({ "langfuse.observation.type": "agent", "langfuse.observation.level": "ERROR" }, { root: true }),
      read({ ...failed, "langfuse.observation.status_message": "quota" }),
    ]);
    expect(plan?.events.map((planned) => [planned.event.eventType, planned.event.reasoning])).toEqual([
      ["error", "a span failed"],
      ["tool_call", undefined],
      ["error", "quota"],
    ]);
    expect(plan?.end).toMatchObject({ status: "failed", failureReason: "a span failed" });
  },
};

/** The checks of each dialect table, by the table's heading in docs/otel.md. */
export const DIALECT_ROWS: Readonly<Record<string, Readonly<Record<string, Check>>>> = {
  "GenAI semantic conventions": semconv,
  OpenInference: openInference,
  "OpenLLMetry / Traceloop": openLlmetry,
  "Vercel AI SDK": vercelAi,
  Langfuse: langfuse,
  Mastra: mastraRows,
  "GenAI event log records": logs,
};
