/**
 * The prompt and answer of an inference span under both generations of the GenAI conventions:
 * - current: `gen_ai.input.messages` / `gen_ai.output.messages` (JSON text, or structured values),
 *   `gen_ai.system_instructions`;
 * - up to v1.36: one span event per message (`gen_ai.system.message`, `gen_ai.user.message`,
 *   `gen_ai.assistant.message`, `gen_ai.tool.message`, `gen_ai.choice`), and the older
 *   `gen_ai.content.prompt` / `gen_ai.content.completion` events with `gen_ai.prompt` / `gen_ai.completion`.
 * Pure functions.
 */
import { type JsonObject, type JsonValue, nestingDepth } from "./json.js";
import { LIMITS } from "./limits.js";
import type { Attributes, AttributeValue, OtelSpan } from "./otel-span.js";

/**
 * Deepest JSON parsed from an attribute: it goes one or two levels down into an event's `toolInput` /
 * `toolOutput` (`{ messages: [...] }`), which may nest LIMITS.jsonDepth levels like any client's payload.
 */
const PARSED_DEPTH = LIMITS.jsonDepth - 2;

/**
 * An attribute as JSON: structured values as they are, text holding JSON parsed — else, or when it nests
 * deeper than an event's payload may, the text itself.
 */
export function attributeJson(value: AttributeValue | undefined): JsonValue | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== "string") return value as JsonValue;
  const trimmed = value.trim();
  if (trimmed.startsWith("{") || trimmed.startsWith("[")) {
    try {
      const parsed = JSON.parse(trimmed) as JsonValue;
      return nestingDepth(parsed, PARSED_DEPTH) > PARSED_DEPTH ? value : parsed;
    } catch {
      return value;
    }
  }
  return value;
}

const MESSAGE_EVENTS: Readonly<Record<string, { role: string; output: boolean }>> = {
  "gen_ai.system.message": { role: "system", output: false },
  "gen_ai.user.message": { role: "user", output: false },
  "gen_ai.assistant.message": { role: "assistant", output: false },
  "gen_ai.tool.message": { role: "tool", output: false },
  "gen_ai.choice": { role: "assistant", output: true },
};

function eventMessage(role: string, attributes: Attributes): JsonObject {
  const body = attributeJson(attributes.get("gen_ai.event.content") ?? attributes.get("message"));
  if (body !== undefined && typeof body === "object" && body !== null && !Array.isArray(body)) {
    return { role, ...body };
  }
  const content = attributeJson(attributes.get("content") ?? attributes.get("gen_ai.content"));
  return content === undefined ? { role } : { role, content };
}

export interface SpanMessages {
  readonly input?: JsonValue | undefined;
  readonly output?: JsonValue | undefined;
  readonly systemInstructions?: JsonValue | undefined;
}

/** The messages an inference span carries, from attributes (current names) or span events (older ones). */
export function spanMessages(span: OtelSpan): SpanMessages {
  const input = attributeJson(span.attributes.get("gen_ai.input.messages"));
  const output = attributeJson(span.attributes.get("gen_ai.output.messages"));
  const systemInstructions = attributeJson(span.attributes.get("gen_ai.system_instructions"));
  const eventInput: JsonValue[] = [];
  const eventOutput: JsonValue[] = [];
  let promptText: JsonValue | undefined;
  let completionText: JsonValue | undefined;
  for (const event of span.events) {
    const kind = MESSAGE_EVENTS[event.name];
    if (kind !== undefined && Object.hasOwn(MESSAGE_EVENTS, event.name)) {
      (kind.output ? eventOutput : eventInput).push(eventMessage(kind.role, event.attributes));
    } else if (event.name === "gen_ai.content.prompt") {
      promptText = attributeJson(event.attributes.get("gen_ai.prompt"));
    } else if (event.name === "gen_ai.content.completion") {
      completionText = attributeJson(event.attributes.get("gen_ai.completion"));
    }
  }
  return {
    input: input ?? (eventInput.length > 0 ? eventInput : promptText),
    output: output ?? (eventOutput.length > 0 ? eventOutput : completionText),
    systemInstructions,
  };
}

export function isJsonObject(value: JsonValue | undefined): value is JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** The text of one message: its `content` text, or its text `parts` (current conventions). */
function messageText(message: JsonValue): string {
  if (typeof message === "string") return message;
  if (!isJsonObject(message)) return "";
  const inner = isJsonObject(message.message) ? message.message : message;
  if (typeof inner.content === "string") return inner.content;
  const parts = Array.isArray(inner.parts) ? inner.parts : Array.isArray(inner.content) ? inner.content : [];
  return parts
    .map((part) => (isJsonObject(part) && typeof part.content === "string" ? part.content : ""))
    .concat(parts.map((part) => (isJsonObject(part) && typeof part.text === "string" ? part.text : "")))
    .filter((text) => text.length > 0)
    .join("\n");
}

/** The answer's text (every output message's text, in order), or undefined when there is none. */
export function answerText(output: JsonValue | undefined): string | undefined {
  if (output === undefined) return undefined;
  const messages = Array.isArray(output) ? output : [output];
  const text = messages
    .map(messageText)
    .filter((part) => part.length > 0)
    .join("\n");
  return text.length > 0 ? text : undefined;
}
