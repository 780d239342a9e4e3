"""Times on the wire: ISO 8601 UTC with milliseconds (``2026-11-22T10:00:00.000Z``), from what the agent passes."""

from __future__ import annotations

import datetime
import math
import time
from typing import Any, Optional

# (second, its "YYYY-MM-DDTHH:MM:SS"), replaced as one tuple so threads never see half of an update.
_cache = (-1, "")


def now_ms() -> int:
    """Milliseconds since the epoch."""
    return time.time_ns() // 1_000_000


def iso_of_ms(milliseconds: int) -> str:
    """``milliseconds`` since the epoch as the service's timestamp format."""
    global _cache
    second, millis = divmod(milliseconds, 1000)
    cached_second, prefix = _cache
    if second != cached_second:
        prefix = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(second))
        _cache = (second, prefix)
    return f"{prefix}.{millis:03d}Z"


def ms_of(value: Any) -> Optional[int]:
    """Milliseconds since the epoch of a ``datetime`` (naive ones are local time, as Python reads them), an ISO 8601
    string, or a number of seconds since the epoch; ``None`` when unreadable."""
    try:
        if isinstance(value, datetime.datetime):
            return int(math.floor(value.timestamp() * 1000))
        if isinstance(value, str):
            text = value.strip()
            if text.endswith(("Z", "z")):
                text = text[:-1] + "+00:00"
            parsed = datetime.datetime.fromisoformat(text)
            if parsed.tzinfo is None:
                parsed = parsed.replace(tzinfo=datetime.timezone.utc)
            return int(math.floor(parsed.timestamp() * 1000))
        if isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value):
            return int(math.floor(value * 1000))
    except (ValueError, OverflowError, OSError):
        return None
    return None


# The longest ``durationMs`` the service takes (one year, its ``LIMITS.maxDurationMs``).
MAX_DURATION_MS = 365 * 24 * 60 * 60 * 1000


def event_duration_ms(value: Any) -> Optional[int]:
    """An event's ``durationMs`` as the service takes it: whole milliseconds from 0 to a year; ``None`` (not sent)
    for anything else (a negative, non-finite or non-numeric value, a bool)."""
    if not isinstance(value, (int, float)) or isinstance(value, bool) or not math.isfinite(value) or value < 0:
        return None
    whole = int(round(value))
    return whole if whole <= MAX_DURATION_MS else None


def timestamp(value: Any = None) -> str:
    """The wire timestamp of ``value``, or of now when it is ``None`` or unreadable."""
    if value is None:
        return iso_of_ms(now_ms())
    milliseconds = ms_of(value)
    return iso_of_ms(now_ms() if milliseconds is None else milliseconds)
