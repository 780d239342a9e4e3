/**
 * GenAI event log records: instrumentations that keep message content out of spans (the OpenTelemetry
 * project's own `@opentelemetry/instrumentation-openai`, and others under the GenAI conventions) emit it
 * as OTel log records tied to the model call's span by trace and span id:
 * - `gen_ai.system.message`, `gen_ai.user.message`, `gen_ai.assistant.message`, `gen_ai.tool.message`:
 *   one input message each (the body: `content`, `tool_calls`, `id`…);
 * - `gen_ai.choice`: one output message (the body: `index`, `finish_reason`, `message`);
 * - `gen_ai.client.inference.operation.details` (current conventions): the whole `gen_ai.input.messages`,
 *   `gen_ai.output.messages` and `gen_ai.system_instructions`, as attributes.
 * Their messages join the `llm_decision` of the span (`withLogMessages`). Pure.
 */

import type { AgentEvent } from "./event.js";
import { answerText, attributeJson } from "./genai-messages.js";
import { isJsonObject } from "./genai-span.js";
import { ANSWER_CHARS, cutText } from "./genai-trace-plan.js";
import type { JsonObject, JsonValue } from "./json.js";
import type { Attributes, AttributeValue } from "./otel-span.js";

const INPUT_ROLES: Readonly<Record<string, string>> = {
  "gen_ai.system.message": "system",
  "gen_ai.user.message": "user",
  "gen_ai.assistant.message": "assistant",
  "gen_ai.tool.message": "tool",
};
export const CHOICE_EVENT = "gen_ai.choice";
export const DETAILS_EVENT = "gen_ai.client.inference.operation.details";

/** What one GenAI event log record adds to its model call. */
export interface LogMessages {
  readonly input?: readonly JsonValue[] | undefined;
  readonly output?: readonly JsonValue[] | undefined;
  readonly systemInstructions?: JsonValue | undefined;
}

/** Whether an event name is a GenAI event this service attaches to a model call. */
export function isGenAiLogEvent(name: string): boolean {
  return Object.hasOwn(INPUT_ROLES, name) || name === CHOICE_EVENT || name === DETAILS_EVENT;
}

function asList(value: JsonValue | undefined): JsonValue[] | undefined {
  if (value === undefined) return undefined;
  return Array.isArray(value) ? value : [value];
}

/** The messages of a GenAI event log record (undefined for any other record). */
export function logMessages(name: string, body: AttributeValue, attributes: Attributes): LogMessages | undefined {
  const content = attributeJson(body ?? undefined) ?? null;
  if (Object.hasOwn(INPUT_ROLES, name)) {
    const role = INPUT_ROLES[name] as string;
    return { input: [isJsonObject(content) ? { role, ...content } : { role, content }] };
  }
  if (name === CHOICE_EVENT) {
    if (!isJsonObject(content)) return { output: [{ role: "assistant", content }] };
    const { message, ...rest } = content;
    return { output: [{ role: "assistant", ...(isJsonObject(message) ? message : {}), ...rest }] };
  }
  if (name === DETAILS_EVENT) {
    return {
      input: asList(attributeJson(attributes.get("gen_ai.input.messages"))),
      output: asList(attributeJson(attributes.get("gen_ai.output.messages"))),
      systemInstructions: attributeJson(attributes.get("gen_ai.system_instructions")),
    };
  }
  return undefined;
}

/**
 * An `llm_decision` with the messages of its span's log records (in their order): input messages where
 * the span had none, output messages likewise, the answer's text as `reasoning` when it had none.
 */
export function withLogMessages<T extends Pick<AgentEvent, "toolInput" | "toolOutput" | "reasoning">>(
  event: T,
  logs: readonly LogMessages[],
): T {
  const input = logs.flatMap((log) => log.input ?? []);
  const output = logs.flatMap((log) => log.output ?? []);
  const system = logs.find((log) => log.systemInstructions !== undefined)?.systemInstructions;
  const toolInput: JsonObject = { ...event.toolInput };
  const toolOutput: JsonObject = { ...event.toolOutput };
  if (toolInput.messages === undefined && input.length > 0) toolInput.messages = input;
  if (toolInput.systemInstructions === undefined && system !== undefined) toolInput.systemInstructions = system;
  if (toolOutput.messages === undefined && output.length > 0) toolOutput.messages = output;
  const answer = event.reasoning ?? answerText(toolOutput.messages);
  return {
    ...event,
    toolInput,
    toolOutput,
    ...(answer === undefined ? {} : { reasoning: cutText(answer, ANSWER_CHARS) }),
  };
}
