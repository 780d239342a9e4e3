"""When to try again: exponential backoff with full jitter, never sooner than the service's ``Retry-After``."""

from __future__ import annotations

import random as _random
import re
import time
from dataclasses import dataclass
from email.utils import parsedate_to_datetime
from typing import Callable, Optional


@dataclass(frozen=True)
class BackoffPolicy:
    """The first retry waits up to ``base_delay`` seconds; no wait is longer than ``max_delay`` (unless the service
    asks for longer with ``Retry-After``)."""

    base_delay: float = 0.25
    max_delay: float = 30.0


DEFAULT_BACKOFF = BackoffPolicy()


def retry_delay(
    retry: int,
    policy: BackoffPolicy = DEFAULT_BACKOFF,
    retry_after: Optional[float] = None,
    random: Callable[[], float] = _random.random,
) -> float:
    """The wait in seconds before retry number ``retry`` (0 for the first): a uniformly random time between 0 and
    ``min(max_delay, base_delay * 2**retry)`` ("full jitter", so clients that failed together do not retry
    together), raised to ``retry_after`` when the service sent one."""
    ceiling = min(policy.max_delay, policy.base_delay * 2 ** min(retry, 30))
    jittered = random() * ceiling
    if retry_after is None:
        return jittered
    return min(max(jittered, retry_after), max(policy.max_delay, retry_after))


_DELTA_SECONDS = re.compile(r"^\d+$")
_HTTP_DATE = re.compile(r"^[A-Za-z]{3}, ")


def parse_retry_after(value: Optional[str], now: Optional[float] = None) -> Optional[float]:
    """``Retry-After`` in seconds: delta-seconds or an HTTP date; ``None`` when absent or unreadable."""
    if value is None:
        return None
    text = value.strip()
    if text == "":
        return None
    if _DELTA_SECONDS.match(text):
        return float(int(text))
    if not _HTTP_DATE.match(text):
        return None
    try:
        when = parsedate_to_datetime(text)
    except (TypeError, ValueError, IndexError):
        return None
    if when is None:
        return None
    current = time.time() if now is None else now
    return max(0.0, when.timestamp() - current)
