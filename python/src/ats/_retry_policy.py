"""Which failures a retry can fix."""

from __future__ import annotations

from typing import Any


def is_retryable_status(status: int, body: Any) -> bool:
    """Network errors and these statuses are retried: 408 (timeout), 425, 429 (rate limited), every 5xx, and the 409
    that says a request with the same Idempotency-Key is still being processed. Any other 4xx is the request's own
    fault and is reported instead."""
    if status == 409:
        return _is_idempotency_in_progress(body)
    return status in (408, 425, 429) or status >= 500


def _is_idempotency_in_progress(body: Any) -> bool:
    if not isinstance(body, dict):
        return False
    message = body.get("message")
    return isinstance(message, str) and "Idempotency-Key" in message and "still being processed" in message
