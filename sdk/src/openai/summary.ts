/**
 * The `reasoning` of an LLM call: a short transcript of the prompt and the
 * answer (`role: text` lines), each part cut to {@link PART_CHARS} and the
 * whole to {@link SUMMARY_CHARS}. Pure functions.
 */

/** One line of the summary. */
export interface SummaryPart {
  readonly role: string;
  readonly text: string;
}

/** Longest text of one message or answer in the summary. */
export const PART_CHARS = 300;
/** Longest summary. */
export const SUMMARY_CHARS = 2000;

type Json = Record<string, unknown>;

export function isRecord(value: unknown): value is Json {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** `text` cut to `max` characters (an ellipsis last), never inside a surrogate pair. */
export function cut(text: string, max: number): string {
  if (text.length <= max) return text;
  if (max <= 1) return "…".slice(0, max);
  let end = max - 1;
  const last = text.charCodeAt(end - 1);
  if (last >= 0xd800 && last <= 0xdbff) end--;
  return `${text.slice(0, end)}…`;
}

function squeeze(text: string): string {
  return text.replace(/\s+/g, " ").trim();
}

function line(part: SummaryPart): string {
  return `${part.role}: ${cut(squeeze(part.text), PART_CHARS)}`;
}

/**
 * The summary: the answer in full (cut per part), preceded by as many of the
 * latest prompt messages as fit; a first line counts the ones left out.
 */
export function summarize(prompt: readonly SummaryPart[], answer: readonly SummaryPart[]): string {
  const answerLines = answer.map(line);
  let budget = SUMMARY_CHARS - answerLines.reduce((sum, text) => sum + text.length + 1, 0);
  const kept: string[] = [];
  let index = prompt.length - 1;
  for (; index >= 0; index--) {
    const part = prompt[index];
    if (part === undefined) continue;
    const text = line(part);
    // Keep room for the "… N earlier messages" line while messages remain.
    const reserve = index > 0 ? 40 : 0;
    if (text.length + 1 + reserve > budget) break;
    kept.unshift(text);
    budget -= text.length + 1;
  }
  const omitted = index + 1;
  if (omitted > 0) kept.unshift(`… ${omitted} earlier message${omitted === 1 ? "" : "s"}`);
  return cut([...kept, ...answerLines].join("\n"), SUMMARY_CHARS);
}

function toolCallText(name: unknown, args: unknown): string {
  const argText = typeof args === "string" ? args : args === undefined ? "" : JSON.stringify(args);
  return `[tool call ${typeof name === "string" ? name : "?"}(${argText})]`;
}

/** The text of a message's `content`: a string, or text parts with placeholders for images, audio and files. */
export function contentText(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  const texts: string[] = [];
  for (const part of content) {
    if (typeof part === "string") texts.push(part);
    else if (isRecord(part)) {
      if (typeof part.text === "string") texts.push(part.text);
      else if (typeof part.refusal === "string") texts.push(`[refusal] ${part.refusal}`);
      else if (typeof part.type === "string") texts.push(`[${part.type.replace(/^input_/, "")}]`);
    }
  }
  return texts.join(" ");
}

function chatToolCalls(toolCalls: unknown): string[] {
  if (!Array.isArray(toolCalls)) return [];
  return toolCalls.filter(isRecord).map((call) => {
    const fn = isRecord(call.function) ? call.function : isRecord(call.custom) ? call.custom : {};
    return toolCallText(fn.name, fn.arguments ?? fn.input);
  });
}

/** One chat message (request or answer) as a summary part. */
export function chatMessagePart(message: unknown): SummaryPart | undefined {
  if (!isRecord(message)) return undefined;
  const role = typeof message.role === "string" ? message.role : "message";
  const texts = [contentText(message.content)];
  if (typeof message.refusal === "string") texts.push(`[refusal] ${message.refusal}`);
  texts.push(...chatToolCalls(message.tool_calls));
  return { role, text: texts.filter((text) => text !== "").join(" ") };
}

/** The prompt parts of a chat request. */
export function chatPromptParts(messages: unknown): SummaryPart[] {
  if (!Array.isArray(messages)) return [];
  return messages.map(chatMessagePart).filter((part): part is SummaryPart => part !== undefined);
}

/** One Responses API input or output item as a summary part. */
export function responseItemPart(item: unknown): SummaryPart | undefined {
  if (typeof item === "string") return { role: "user", text: item };
  if (!isRecord(item)) return undefined;
  const type = typeof item.type === "string" ? item.type : "message";
  if (type === "message" || (item.type === undefined && "role" in item)) {
    return { role: typeof item.role === "string" ? item.role : "message", text: contentText(item.content) };
  }
  if (type === "function_call" || type === "custom_tool_call") {
    return { role: "assistant", text: toolCallText(item.name, item.arguments ?? item.input) };
  }
  if (type === "function_call_output" || type === "custom_tool_call_output") {
    const output = item.output;
    return { role: "tool", text: typeof output === "string" ? output : contentText(output) };
  }
  if (type === "reasoning") return undefined;
  return { role: "item", text: `[${type}]` };
}

/** The prompt parts of a Responses API request: `instructions` as `system`, then `input`. */
export function responsesPromptParts(instructions: unknown, input: unknown): SummaryPart[] {
  const parts: SummaryPart[] = [];
  if (typeof instructions === "string" && instructions !== "") parts.push({ role: "system", text: instructions });
  const items = Array.isArray(input) ? input : input === undefined ? [] : [input];
  for (const item of items) {
    const part = responseItemPart(item);
    if (part !== undefined) parts.push(part);
  }
  return parts;
}

/** The answer parts of a Responses API response's `output`. */
export function responsesAnswerParts(output: unknown): SummaryPart[] {
  if (!Array.isArray(output)) return [];
  return output
    .map(responseItemPart)
    .filter((part): part is SummaryPart => part !== undefined && part.text !== "")
    .map((part) => (part.role === "message" ? { role: "assistant", text: part.text } : part));
}
