/**
 * OpenInference (Arize Phoenix; its instrumentations of OpenAI, LangChain, LlamaIndex, CrewAI, DSPy, the
 * OpenAI Agents SDK…): `openinference.span.kind` says what a span is (LLM, EMBEDDING, TOOL, AGENT, CHAIN…);
 * `llm.*` attributes a model call (messages flattened as `llm.input_messages.<n>.message.<field>`),
 * `tool.name` with `input.value` / `output.value` a tool call (an MCP tool's content item read as what the tool
 * returned: domain/mcp-content.ts); `session.id`, `user.id`, `metadata` and `agent.name` the run. An AGENT span
 * below the root names its agent; the root CHAIN or AGENT span without `agent.name` names the run (a stand-in for
 * the agent, weaker than any span naming it).
 * Table: docs/otel.md.
 */

import { answerText, attributeJson } from "../../domain/genai-messages.js";
import {
  type Dialect,
  isJsonObject,
  jsonAttribute,
  objectAttribute,
  ownString,
  type SpanFacts,
  type SpanIdentity,
  type SpanRole,
  unflattened,
  usageFrom,
  usdCost,
} from "../../domain/genai-span.js";
import type { JsonValue } from "../../domain/json.js";
import { mcpToolValue } from "../../domain/mcp-content.js";
import {
  type Attributes,
  firstString,
  numberAttribute,
  type OtelSpan,
  stringAttribute,
} from "../../domain/otel-span.js";

const KIND = "openinference.span.kind";
const ROLES: Readonly<Record<string, { role: SpanRole; operation?: string }>> = {
  LLM: { role: "inference", operation: "chat" },
  EMBEDDING: { role: "inference", operation: "embeddings" },
  TOOL: { role: "tool", operation: "execute_tool" },
  AGENT: { role: "agent", operation: "invoke_agent" },
};
const RUN_KINDS = ["AGENT", "CHAIN"];

function kindOf(span: OtelSpan): string {
  return (stringAttribute(span.attributes, KIND) ?? "").toUpperCase();
}

function identity(span: OtelSpan): SpanIdentity {
  const attributes = span.attributes;
  const metadata = objectAttribute(attributes, "metadata");
  const kind = kindOf(span);
  const root = span.parentSpanId === undefined;
  const ownName = span.name === "" ? undefined : span.name;
  const named = stringAttribute(attributes, "agent.name");
  // An agent span below the root names its agent. The root of the run (an agent span, or the application's
  // chain) without `agent.name` names only the run: the OpenAI Agents SDK's trace ("Agent workflow", or the
  // workflow name the user gave) is such an AGENT root, above the agent spans that name the agent.
  return {
    agentName: named ?? (kind === "AGENT" && !root ? ownName : undefined),
    runName: named === undefined && root && RUN_KINDS.includes(kind) ? ownName : undefined,
    userId: stringAttribute(attributes, "user.id") ?? ownString(metadata, ["user_id", "userId"]),
    conversationId:
      stringAttribute(attributes, "session.id") ??
      ownString(metadata, ["session_id", "sessionId", "thread_id", "conversation_id"]),
    metadata: metadata === undefined ? undefined : { "openinference.metadata": metadata },
  };
}

/** The messages flattened as `<prefix><n>.message.<field>` (role, content, tool_calls…). */
function messages(attributes: Attributes, prefix: string): JsonValue[] | undefined {
  return unflattened(attributes, prefix)?.map((entry) =>
    isJsonObject(entry) && isJsonObject(entry.message) ? entry.message : entry,
  );
}

/**
 * The answer's text: each output message's `content` text, else the text of its `contents` parts
 * (`contents.<m>.message_content.text`: the OpenAI Agents SDK's Responses API messages).
 */
function answerOf(output: JsonValue[] | undefined): string | undefined {
  return answerText(
    output?.map((message) =>
      isJsonObject(message) && typeof message.content !== "string" && Array.isArray(message.contents)
        ? {
            role: message.role ?? null,
            content: message.contents.map((part) =>
              isJsonObject(part) && isJsonObject(part.message_content) ? part.message_content : part,
            ),
          }
        : message,
    ),
  );
}

/** LangChain's serialised objects (`{lc, type: "constructor", kwargs}`) read as their content. */
function unwrapped(value: JsonValue | undefined): JsonValue | undefined {
  let current = value;
  for (let depth = 0; depth < 3 && isJsonObject(current); depth++) {
    if (Object.keys(current).length === 1 && Object.hasOwn(current, "output")) current = current.output;
    else if (current.type === "constructor" && Object.hasOwn(current, "lc") && isJsonObject(current.kwargs)) {
      const content = Object.hasOwn(current.kwargs, "content") ? current.kwargs.content : undefined;
      current = typeof content === "string" ? (attributeJson(content) ?? content) : (content ?? current.kwargs);
    } else break;
  }
  return current;
}

function invocationParameter(attributes: Attributes, key: string): number | undefined {
  const parameters = objectAttribute(attributes, "llm.invocation_parameters");
  const value = parameters !== undefined && Object.hasOwn(parameters, key) ? parameters[key] : undefined;
  return typeof value === "number" && Number.isFinite(value) ? value : undefined;
}

/**
 * A TOOL span that is no tool call: the OpenAI Agents SDK listing an MCP server's tools (`mcp_tools`, no
 * `tool.name`, the tools' names as its output).
 */
function listsMcpTools(span: OtelSpan): boolean {
  return span.name === "mcp_tools" && stringAttribute(span.attributes, "tool.name") === undefined;
}

function read(span: OtelSpan): SpanFacts {
  const attributes = span.attributes;
  const { role, operation } =
    Object.hasOwn(ROLES, kindOf(span)) && !listsMcpTools(span)
      ? (ROLES[kindOf(span)] as { role: SpanRole; operation?: string })
      : { role: "other" as const, operation: undefined };
  const base = { role, operation, ...identity(span) };
  if (role === "tool") {
    return {
      ...base,
      toolName: stringAttribute(attributes, "tool.name") ?? span.name,
      toolArguments: unwrapped(jsonAttribute(attributes, "input.value")),
      toolResult: mcpToolValue(unwrapped(jsonAttribute(attributes, "output.value"))),
      cost: usdCost(numberAttribute(attributes, "llm.cost.total")),
    };
  }
  const usage = usageFrom(attributes, {
    prompt: ["llm.token_count.prompt"],
    completion: ["llm.token_count.completion"],
    total: ["llm.token_count.total"],
    cacheRead: ["llm.token_count.prompt_details.cache_read"],
    cacheCreation: ["llm.token_count.prompt_details.cache_write"],
    reasoning: ["llm.token_count.completion_details.reasoning"],
    cost: ["llm.cost.total"],
  });
  if (role !== "inference") return { ...base, usage };
  const output = messages(attributes, "llm.output_messages.") ?? jsonAttribute(attributes, "output.value");
  return {
    ...base,
    provider: firstString(attributes, ["llm.provider", "llm.system"]),
    model: firstString(attributes, ["llm.model_name", "llm.request.model_name", "embedding.model_name"]),
    responseModel: stringAttribute(attributes, "llm.response.model_name"),
    finishReasons: jsonAttribute(attributes, "llm.finish_reason"),
    temperature: invocationParameter(attributes, "temperature"),
    maxTokens:
      invocationParameter(attributes, "max_tokens") ?? invocationParameter(attributes, "max_completion_tokens"),
    topP: invocationParameter(attributes, "top_p"),
    usage,
    inputMessages: messages(attributes, "llm.input_messages.") ?? jsonAttribute(attributes, "input.value"),
    outputMessages: output,
    answer: answerOf(messages(attributes, "llm.output_messages.")),
  };
}

export const openInference: Dialect = {
  name: "openinference",
  recognises: (span) => stringAttribute(span.attributes, KIND) !== undefined,
  read,
  identity,
};
