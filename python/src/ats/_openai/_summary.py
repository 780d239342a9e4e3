"""The ``reasoning`` of an LLM call: a short transcript of the prompt and the answer (``role: text`` lines), each
part cut to ``PART_CHARS`` and the whole to ``SUMMARY_CHARS``. Pure functions over the openai package's objects
(read by their public attributes) and plain dicts alike."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any, List, Optional

PART_CHARS = 300
SUMMARY_CHARS = 2000


@dataclass(frozen=True)
class SummaryPart:
    """One line of the summary."""

    role: str
    text: str


def field(value: Any, name: str) -> Any:
    """``value[name]`` for a mapping, ``value.name`` for an object (an openai model), else ``None``."""
    if value is None:
        return None
    if isinstance(value, dict):
        return value.get(name)
    try:
        return getattr(value, name, None)
    except Exception:  # noqa: BLE001 - a hostile property
        return None


def is_present(value: Any) -> bool:
    """Whether ``value`` is an object or mapping to read fields from."""
    return value is not None and not isinstance(value, (str, bytes, int, float, bool, list, tuple))


def text_of(value: Any) -> Optional[str]:
    """A non-empty string, or ``None``."""
    return value if isinstance(value, str) and value != "" else None


def cut(text: str, limit: int) -> str:
    """``text`` cut to ``limit`` characters, an ellipsis last."""
    if len(text) <= limit:
        return text
    return text[: max(0, limit - 1)] + "…" if limit > 0 else ""


def _squeeze(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip()


def _line(part: SummaryPart) -> str:
    return f"{part.role}: {cut(_squeeze(part.text), PART_CHARS)}"


def summarize(prompt: List[SummaryPart], answer: List[SummaryPart]) -> str:
    """The answer in full (cut per part), preceded by as many of the latest prompt messages as fit; a first line
    counts the ones left out."""
    answer_lines = [_line(part) for part in answer]
    budget = SUMMARY_CHARS - sum(len(text) + 1 for text in answer_lines)
    kept: List[str] = []
    index = len(prompt) - 1
    while index >= 0:
        text = _line(prompt[index])
        reserve = 40 if index > 0 else 0  # room for the "… N earlier messages" line while messages remain
        if len(text) + 1 + reserve > budget:
            break
        kept.insert(0, text)
        budget -= len(text) + 1
        index -= 1
    omitted = index + 1
    if omitted > 0:
        kept.insert(0, f"… {omitted} earlier message{'' if omitted == 1 else 's'}")
    return cut("\n".join(kept + answer_lines), SUMMARY_CHARS)


def _tool_call_text(name: Any, arguments: Any) -> str:
    if isinstance(arguments, str):
        argument_text = arguments
    elif arguments is None:
        argument_text = ""
    else:
        try:
            argument_text = json.dumps(arguments, default=str)
        except Exception:  # noqa: BLE001
            argument_text = str(arguments)
    return f"[tool call {name if isinstance(name, str) else '?'}({argument_text})]"


def content_text(content: Any) -> str:
    """The text of a message's ``content``: a string, or text parts with placeholders for images, audio, files."""
    if isinstance(content, str):
        return content
    if not isinstance(content, (list, tuple)):
        return ""
    texts: List[str] = []
    for part in content:
        if isinstance(part, str):
            texts.append(part)
            continue
        text = field(part, "text")
        refusal = field(part, "refusal")
        kind = field(part, "type")
        if isinstance(text, str):
            texts.append(text)
        elif isinstance(refusal, str):
            texts.append(f"[refusal] {refusal}")
        elif isinstance(kind, str):
            texts.append(f"[{re.sub(r'^input_', '', kind)}]")
    return " ".join(texts)


def _chat_tool_calls(tool_calls: Any) -> List[str]:
    if not isinstance(tool_calls, (list, tuple)):
        return []
    out = []
    for call in tool_calls:
        function = field(call, "function") or field(call, "custom")
        out.append(_tool_call_text(field(function, "name"), field(function, "arguments") or field(function, "input")))
    return out


def chat_message_part(message: Any) -> Optional[SummaryPart]:
    """One chat message (request or answer) as a summary part."""
    if message is None or isinstance(message, (str, int, float, list)):
        return None
    role = field(message, "role")
    texts = [content_text(field(message, "content"))]
    refusal = field(message, "refusal")
    if isinstance(refusal, str):
        texts.append(f"[refusal] {refusal}")
    texts.extend(_chat_tool_calls(field(message, "tool_calls")))
    return SummaryPart(role if isinstance(role, str) else "message", " ".join(text for text in texts if text))


def chat_prompt_parts(messages: Any) -> List[SummaryPart]:
    """The prompt parts of a chat request."""
    if not isinstance(messages, (list, tuple)):
        return []
    return [part for part in (chat_message_part(message) for message in messages) if part is not None]


def response_item_part(item: Any) -> Optional[SummaryPart]:
    """One Responses API input or output item as a summary part."""
    if isinstance(item, str):
        return SummaryPart("user", item)
    if item is None or isinstance(item, (int, float, list)):
        return None
    kind = field(item, "type")
    role = field(item, "role")
    if kind == "message" or (kind is None and role is not None):
        return SummaryPart(role if isinstance(role, str) else "message", content_text(field(item, "content")))
    if kind in ("function_call", "custom_tool_call"):
        return SummaryPart("assistant", _tool_call_text(field(item, "name"), field(item, "arguments") or field(item, "input")))
    if kind in ("function_call_output", "custom_tool_call_output"):
        output = field(item, "output")
        return SummaryPart("tool", output if isinstance(output, str) else content_text(output))
    if kind == "reasoning":
        return None
    return SummaryPart("item", f"[{kind if isinstance(kind, str) else 'item'}]")


def responses_prompt_parts(instructions: Any, input_value: Any) -> List[SummaryPart]:
    """The prompt parts of a Responses API request: ``instructions`` as ``system``, then ``input``."""
    parts: List[SummaryPart] = []
    if isinstance(instructions, str) and instructions:
        parts.append(SummaryPart("system", instructions))
    items = input_value if isinstance(input_value, (list, tuple)) else ([] if input_value is None else [input_value])
    for item in items:
        part = response_item_part(item)
        if part is not None:
            parts.append(part)
    return parts


def responses_answer_parts(output: Any) -> List[SummaryPart]:
    """The answer parts of a Responses API response's ``output``."""
    if not isinstance(output, (list, tuple)):
        return []
    parts = []
    for item in output:
        part = response_item_part(item)
        if part is not None and part.text:
            parts.append(SummaryPart("assistant", part.text) if part.role == "message" else part)
    return parts
