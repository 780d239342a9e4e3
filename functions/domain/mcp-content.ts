/**
 * What an MCP tool returned, read from the result as an instrumentation records it. An MCP tool answers with
 * content items (`{type: "text", text}`, …); a library that passes a tool's result on as it got it (the OpenAI
 * Agents SDK's MCP tools: the one content item, or the list) leaves that wrapper on the tool span. The text of
 * a single text item is what the tool returned — read as JSON when it holds JSON. Pure.
 */
import { attributeJson, isJsonObject } from "./genai-messages.js";
import type { JsonValue } from "./json.js";

/** The keys an MCP text content item may carry (the protocol's `TextContent`). */
const TEXT_ITEM_KEYS = ["type", "text", "annotations", "_meta"];

function isTextItem(value: JsonValue | undefined): value is { type: "text"; text: string } {
  return (
    isJsonObject(value) &&
    value.type === "text" &&
    typeof value.text === "string" &&
    Object.keys(value).every((key) => TEXT_ITEM_KEYS.includes(key))
  );
}

/**
 * The value of an MCP tool's result: a single text content item (alone, or the only one of a list) as its text,
 * JSON text parsed; anything else (several items, images, any other value) as it is.
 */
export function mcpToolValue(value: JsonValue | undefined): JsonValue | undefined {
  const item = Array.isArray(value) && value.length === 1 ? value[0] : value;
  if (!isTextItem(item)) return value;
  return attributeJson(item.text) ?? item.text;
}
