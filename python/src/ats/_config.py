"""The tracker's options: defaults, environment variables and the checks that make misuse fail at construction."""

from __future__ import annotations

import math
import os
import re
import sys
from dataclasses import dataclass
from typing import Any, Callable, Dict, Optional
from urllib.parse import urlsplit

from .errors import AtsConfigurationError, AtsError

OnError = Callable[[AtsError], None]
Mask = Callable[[Dict[str, Any]], Optional[Dict[str, Any]]]

_API_KEY = re.compile(r"^ats_[a-z]+_[A-Za-z0-9_-]{8,}$")


@dataclass(frozen=True)
class Options:
    """The resolved options (see ``AgentTracker`` for their meaning)."""

    api_key: str
    base_url: str
    on_error: OnError
    immediate: bool
    mask: Optional[Mask]
    sample_rate: float
    max_queue_size: int
    max_retries: int
    flush_interval: float
    max_batch_size: int
    max_concurrency: int
    request_timeout: float
    shutdown_timeout: float


def warn_to_stderr(error: AtsError) -> None:
    """The default ``on_error``: one line per problem on standard error."""
    try:
        sys.stderr.write(f"[ats] {error.code}: {error.message}\n")
    except Exception:  # noqa: BLE001 - a closed stderr must not fail the agent
        pass


def _integer(name: str, value: Any, low: int, high: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise AtsConfigurationError(f"{name} must be an integer from {low} to {high} (got {value!r})")
    return value


def _seconds(name: str, value: Any, low: float, high: float) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise AtsConfigurationError(f"{name} must be a number of seconds from {low} to {high} (got {value!r})")
    if not low <= value <= high:
        raise AtsConfigurationError(f"{name} must be a number of seconds from {low} to {high} (got {value!r})")
    return float(value)


def _environment(name: str) -> Optional[str]:
    value = os.environ.get(name)
    return value if value else None


def _base_url(value: Optional[str]) -> str:
    if value is None:
        raise AtsConfigurationError("No base URL: pass base_url or set ATS_BASE_URL (e.g. http://127.0.0.1:3000)")
    if not isinstance(value, str):
        raise AtsConfigurationError(f"base_url must be a string (got {type(value).__name__})")
    try:
        parts = urlsplit(value.strip())
        port = parts.port
    except ValueError:
        raise AtsConfigurationError(f"base_url is not a URL: {value!r}") from None
    if parts.scheme not in ("http", "https"):
        raise AtsConfigurationError(f"base_url must be http(s), not {parts.scheme or 'a relative URL'}: {value!r}")
    if not parts.hostname:
        raise AtsConfigurationError(f"base_url has no host: {value!r}")
    if parts.query or parts.fragment or parts.username is not None or parts.password is not None:
        raise AtsConfigurationError("base_url must not carry credentials, a query or a fragment")
    del port
    return value.strip().rstrip("/")


def _api_key(value: Optional[str]) -> str:
    if value is None:
        raise AtsConfigurationError("No API key: pass api_key or set ATS_API_KEY (keys look like ats_live_…)")
    if not isinstance(value, str) or not _API_KEY.match(value):
        raise AtsConfigurationError("api_key does not look like an ats key (ats_<environment>_<secret>)")
    return value


def resolve_options(
    *,
    api_key: Optional[str],
    base_url: Optional[str],
    on_error: Optional[OnError],
    mode: str,
    mask: Optional[Mask],
    sample_rate: float,
    max_queue_size: int,
    max_retries: int,
    flush_interval: float,
    max_batch_size: int,
    max_concurrency: int,
    request_timeout: float,
    shutdown_timeout: float,
) -> Options:
    """Checks every option; raises :class:`AtsConfigurationError` for the first that cannot work."""
    if mode not in ("background", "immediate"):
        raise AtsConfigurationError(f'mode must be "background" or "immediate" (got {mode!r})')
    if (
        isinstance(sample_rate, bool)
        or not isinstance(sample_rate, (int, float))
        or not (0 <= sample_rate <= 1)
    ):
        raise AtsConfigurationError(f"sample_rate must be a number from 0 to 1 (got {sample_rate!r})")
    for name, function in (("on_error", on_error), ("mask", mask)):
        if function is not None and not callable(function):
            raise AtsConfigurationError(f"{name} must be callable")
    return Options(
        api_key=_api_key(api_key if api_key is not None else _environment("ATS_API_KEY")),
        base_url=_base_url(base_url if base_url is not None else _environment("ATS_BASE_URL")),
        on_error=on_error if on_error is not None else warn_to_stderr,
        immediate=mode == "immediate",
        mask=mask,
        sample_rate=float(sample_rate),
        max_queue_size=_integer("max_queue_size", max_queue_size, 1, 10_000_000),
        max_retries=_integer("max_retries", max_retries, 0, 100),
        flush_interval=_seconds("flush_interval", flush_interval, 0.001, 3600),
        max_batch_size=_integer("max_batch_size", max_batch_size, 1, 100),
        max_concurrency=_integer("max_concurrency", max_concurrency, 1, 64),
        request_timeout=_seconds("request_timeout", request_timeout, 0.001, 900),
        shutdown_timeout=_seconds("shutdown_timeout", shutdown_timeout, 0, 3600),
    )
