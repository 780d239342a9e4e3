/**
 * Mastra's spans as its OpenTelemetry exporter (`@mastra/otel-exporter`) writes them: `mastra.span.type` says
 * what a span is (`agent_run`, `workflow_run`, `workflow_step`, `model_generation` → `model_step` →
 * `model_inference` → `model_chunk`, `tool_call`, `mcp_tool_call`…). The exporter also writes the GenAI
 * conventions' names on them (a model call's usage and messages, a tool's name, arguments and result), read here
 * as that dialect reads them; what only Mastra's namespace has is read from it: the span's metadata (inherited by
 * every span of the run: `mastra.metadata.resourceId`, `…threadId`, `…runId` and the application's own
 * `tracingOptions.metadata`), a turn's messages (`mastra.model_step.input` / `…output`) and a workflow step's
 * input and output. Table: docs/otel.md.
 */
import { answerText } from "../../domain/genai-messages.js";
import {
  type Dialect,
  isJsonObject,
  jsonAttribute,
  ownString,
  prefixedObject,
  type SpanFacts,
  type SpanIdentity,
  type SpanRole,
} from "../../domain/genai-span.js";
import type { JsonObject, JsonValue } from "../../domain/json.js";
import { type Attributes, firstString, type OtelSpan, stringAttribute } from "../../domain/otel-span.js";
import { semconvInference } from "./genai-semconv.js";

const TYPE = "mastra.span.type";
const METADATA = "mastra.metadata.";

/** What each of Mastra's span types is, and the operation it performs. */
const ROLES: Readonly<Record<string, { role: SpanRole; operation: string }>> = {
  agent_run: { role: "agent", operation: "invoke_agent" },
  workflow_run: { role: "agent", operation: "invoke_workflow" },
  workflow_step: { role: "event", operation: "workflow_step" },
  model_inference: { role: "inference", operation: "chat" },
  rag_embedding: { role: "inference", operation: "embeddings" },
  model_step: { role: "step", operation: "agent_step" },
  tool_call: { role: "tool", operation: "execute_tool" },
  mcp_tool_call: { role: "tool", operation: "execute_tool" },
  provider_tool_call: { role: "tool", operation: "execute_tool" },
  client_tool_call: { role: "tool", operation: "execute_tool" },
};
/** The runs: their metadata is the run's (a step's adds the provider's raw answer, which is no run metadata). */
const RUN_TYPES = ["agent_run", "workflow_run"];

function typeOf(span: OtelSpan): string {
  return stringAttribute(span.attributes, TYPE) ?? "";
}

/**
 * What a span of `type` is. `model_generation` (the agent's loop of model calls) is the model call itself only
 * when the exporter says so (`gen_ai.operation.name` `chat`: a `@mastra/core` too old for `model_inference`
 * spans); otherwise its usage is the loop's total, counted by its calls.
 */
function roleOf(span: OtelSpan, type: string): { role: SpanRole; operation: string | undefined } {
  if (Object.hasOwn(ROLES, type)) return ROLES[type] as { role: SpanRole; operation: string };
  if (type === "model_generation" && stringAttribute(span.attributes, "gen_ai.operation.name") === "chat") {
    return { role: "inference", operation: "chat" };
  }
  return { role: "other", operation: type === "" ? undefined : type };
}

/** The span name after its operation's word (`invoke_workflow nightly-report` → `nightly-report`). */
function nameAfter(span: OtelSpan, operation: string): string | undefined {
  const prefix = `${operation} `;
  return span.name.startsWith(prefix) && span.name.length > prefix.length ? span.name.slice(prefix.length) : undefined;
}

function agentNameOf(span: OtelSpan, type: string): string | undefined {
  if (type === "agent_run") {
    return stringAttribute(span.attributes, "gen_ai.agent.name") ?? nameAfter(span, "invoke_agent");
  }
  return type === "workflow_run" ? nameAfter(span, "invoke_workflow") : undefined;
}

/** The run's metadata and tags, from a run span (`mastra.metadata.*`, `mastra.tags`). */
function runMetadata(attributes: Attributes, type: string): JsonObject | undefined {
  if (!RUN_TYPES.includes(type)) return undefined;
  const metadata: JsonObject = { ...prefixedObject(attributes, METADATA, "mastra.metadata") };
  const tags = jsonAttribute(attributes, "mastra.tags");
  if (tags !== undefined) metadata["mastra.tags"] = tags;
  return Object.keys(metadata).length === 0 ? undefined : metadata;
}

function identity(span: OtelSpan): SpanIdentity {
  const attributes = span.attributes;
  const type = typeOf(span);
  return {
    agentName: agentNameOf(span, type),
    agentId: type === "agent_run" ? stringAttribute(attributes, "gen_ai.agent.id") : undefined,
    userId: firstString(attributes, [`${METADATA}userId`, `${METADATA}resourceId`]),
    conversationId: firstString(attributes, [`${METADATA}threadId`, `${METADATA}sessionId`]),
    metadata: runMetadata(attributes, type),
  };
}

/**
 * A turn's answer (`mastra.model_step.output`: `{ text, toolCalls }`) as one assistant message; text that is not
 * such an object as the message's content.
 */
function turnOutput(output: JsonValue | undefined): JsonValue[] | undefined {
  if (typeof output === "string") return [{ role: "assistant", content: output }];
  if (!isJsonObject(output)) return undefined;
  const message: JsonObject = { role: "assistant", content: ownString(output, ["text"]) ?? "" };
  if (Object.hasOwn(output, "toolCalls") && Array.isArray(output.toolCalls) && output.toolCalls.length > 0) {
    message.toolCalls = output.toolCalls;
  }
  return [message];
}

/** The tool's name: `gen_ai.tool.name`, else the span name after `execute_tool ` or `client_tool_call `. */
function toolNameOf(span: OtelSpan, type: string): string | undefined {
  return (
    stringAttribute(span.attributes, "gen_ai.tool.name") ?? nameAfter(span, "execute_tool") ?? nameAfter(span, type)
  );
}

function read(span: OtelSpan): SpanFacts {
  const attributes = span.attributes;
  const type = typeOf(span);
  const { role, operation } = roleOf(span, type);
  const base = { role, operation, ...identity(span) };
  const ownInput = jsonAttribute(attributes, `mastra.${type}.input`);
  const ownOutput = jsonAttribute(attributes, `mastra.${type}.output`);
  if (role === "inference") return { ...semconvInference(span), ...base };
  if (role === "tool") {
    return {
      ...base,
      toolName: toolNameOf(span, type),
      toolArguments: jsonAttribute(attributes, "gen_ai.tool.call.arguments") ?? ownInput,
      toolResult: jsonAttribute(attributes, "gen_ai.tool.call.result") ?? ownOutput,
    };
  }
  if (role === "step") {
    const outputMessages = turnOutput(ownOutput);
    return {
      ...base,
      inputMessages: ownInput,
      outputMessages,
      answer: answerText(outputMessages),
    };
  }
  if (role === "event") return { ...base, toolArguments: ownInput, toolResult: ownOutput };
  return base;
}

export const mastra: Dialect = {
  name: "mastra",
  recognises: (span) => stringAttribute(span.attributes, TYPE) !== undefined,
  read,
  identity,
};
