"""An event's ``model`` and token ``usage`` as the service takes them: pure, never raises. A value the service would
refuse is left out (the rest of the event is sent), as the token counts of ``llm_call`` always were."""

from __future__ import annotations

import math
from typing import Any, Dict, Mapping, Optional

from ._json_value import to_text

#: The usage keys the service takes (its wire names), in the order it documents them.
USAGE_KEYS = (
    "promptTokens",
    "completionTokens",
    "totalTokens",
    "cacheReadTokens",
    "cacheWriteTokens",
    "reasoningTokens",
)
#: The Python spelling of each usage key, accepted beside the wire name.
_SNAKE_KEYS = {
    "promptTokens": "prompt_tokens",
    "completionTokens": "completion_tokens",
    "totalTokens": "total_tokens",
    "cacheReadTokens": "cache_read_tokens",
    "cacheWriteTokens": "cache_write_tokens",
    "reasoningTokens": "reasoning_tokens",
}
#: The service's bound on one token count.
MAX_TOKENS = 1_000_000_000_000
#: The service's bound on a model name, in characters after trimming.
MAX_MODEL_LENGTH = 256


def token_count(value: Any) -> Optional[int]:
    """``value`` as a token count the service takes (a non-negative integer up to ``MAX_TOKENS``; a whole float is
    taken as its integer), else ``None``."""
    if isinstance(value, bool):
        return None
    if isinstance(value, float):
        if not math.isfinite(value) or not value.is_integer():
            return None
        value = int(value)
    if not isinstance(value, int):
        return None
    return value if 0 <= value <= MAX_TOKENS else None


def event_model(value: Any) -> Optional[str]:
    """A model name trimmed, or ``None`` when it is not a string of 1–256 characters once trimmed."""
    if not isinstance(value, str):
        return None
    model = to_text(value.strip())
    return model if model is not None and 1 <= len(model) <= MAX_MODEL_LENGTH else None


def event_usage(value: Any) -> Optional[Dict[str, int]]:
    """The known keys of the mapping ``value`` (``prompt_tokens`` or ``promptTokens``…) whose counts the service
    takes, by their wire names; ``None`` when none is left. Unknown keys and bad counts (negative, fractional, too
    large, not numbers) are left out."""
    if not isinstance(value, Mapping):
        return None
    usage: Dict[str, int] = {}
    for key in USAGE_KEYS:
        given = value.get(key)
        if given is None:
            given = value.get(_SNAKE_KEYS[key])
        count = token_count(given)
        if count is not None:
            usage[key] = count
    return usage or None


def merged_usage(*sources: Optional[Mapping[str, Any]]) -> Optional[Dict[str, int]]:
    """The usable counts of every source, a later source winning for a key given twice; ``None`` when none."""
    usage: Dict[str, int] = {}
    for source in sources:
        usage.update(event_usage(source) or {})
    return usage or None
