"""Ids the client mints: session ids in the service's own format (``ses_`` + a ULID), so a run has its id before
the service has answered; event ids (``evt_`` + a ULID, monotonic within the process) so a retry names the same
event; and random keys that make every retried request idempotent."""

from __future__ import annotations

import base64
import os
import threading
import time
import uuid

CROCKFORD = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"
_RFC4648 = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"
# base32 (RFC 4648) digits have the same values as Crockford's, in another alphabet: translating keeps the number.
_TO_CROCKFORD = bytes.maketrans(_RFC4648.encode(), CROCKFORD.encode())
_RANDOM_BITS = 80
_RANDOM_MASK = (1 << _RANDOM_BITS) - 1


def time_digits(milliseconds: int) -> str:
    """The 10 Crockford base32 digits of a ULID's 48-bit millisecond time."""
    remaining = max(0, int(milliseconds))
    digits = []
    for _ in range(10):
        digits.append(CROCKFORD[remaining & 31])
        remaining >>= 5
    return "".join(reversed(digits))


def random_digits(value: int) -> str:
    """The 16 Crockford base32 digits of an 80-bit number."""
    return base64.b32encode(value.to_bytes(10, "big")).translate(_TO_CROCKFORD).decode("ascii")


def now_ms() -> int:
    """Milliseconds since the epoch, as ULIDs and the service count them."""
    return time.time_ns() // 1_000_000


def new_session_id(milliseconds: "int | None" = None) -> str:
    """A session id the service accepts as the ``id`` of ``POST /api/sdk/sessions``: ``ses_`` + ULID."""
    ms = now_ms() if milliseconds is None else milliseconds
    return "ses_" + time_digits(ms) + random_digits(int.from_bytes(os.urandom(10), "big"))


def new_score_id(milliseconds: "int | None" = None) -> str:
    """A score id the service accepts as a score's ``id``: ``scr_`` + ULID; sending it again replaces that score."""
    ms = now_ms() if milliseconds is None else milliseconds
    return "scr_" + time_digits(ms) + random_digits(int.from_bytes(os.urandom(10), "big"))


class _EventIds:
    """Monotonic ULIDs: in the same millisecond (or when the clock steps back) the random part is incremented,
    so the events of a run sort in the order they were recorded."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.last_ms = -1
        self.time_text = ""
        self.random = 0

    def next(self, milliseconds: "int | None" = None) -> str:
        ms = now_ms() if milliseconds is None else milliseconds
        with self.lock:
            if ms <= self.last_ms:
                self.random = (self.random + 1) & _RANDOM_MASK
            else:
                self.last_ms = ms
                self.time_text = time_digits(ms)
                self.random = int.from_bytes(os.urandom(10), "big")
            return "evt_" + self.time_text + random_digits(self.random)


_event_ids = _EventIds()


def new_event_id(milliseconds: "int | None" = None) -> str:
    """An event id the service accepts as an event's ``id``: ``evt_`` + a ULID, monotonic within this process."""
    return _event_ids.next(milliseconds)


def new_idempotency_key() -> str:
    """A fresh key for ``Idempotency-Key`` headers."""
    return str(uuid.uuid4())


def _reset_after_fork() -> None:
    # A child continuing the parent's sequence would mint the parent's next ids.
    global _event_ids
    _event_ids = _EventIds()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_reset_after_fork)
