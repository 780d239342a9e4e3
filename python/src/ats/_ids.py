"""Ids the client mints: session ids in the service's own format (``ses_`` + a ULID), so a run has its id before
the service has answered; event ids (``evt_`` + a ULID; both monotonic within the process) so a retry names the same
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


def new_score_id(milliseconds: "int | None" = None) -> str:
    """A score id the service accepts as a score's ``id``: ``scr_`` + ULID; sending it again replaces that score."""
    ms = now_ms() if milliseconds is None else milliseconds
    return "scr_" + time_digits(ms) + random_digits(int.from_bytes(os.urandom(10), "big"))


class _MonotonicIds:
    """Monotonic ULIDs under one prefix: in the same millisecond the random part is incremented, so ids sort in
    the order they were minted (a run's events; a conversation's turns started in the same millisecond, whose
    order the service breaks by id). ``through_step_back``: an earlier time than the last (the clock stepped
    back) keeps counting on from the last id, for events; session ids, whose time may be a replayed run's past
    start, take that time instead."""

    def __init__(self, prefix: str, through_step_back: bool) -> None:
        self.prefix = prefix
        self.through_step_back = through_step_back
        self.lock = threading.Lock()
        self.last_ms = -1
        self.time_text = ""
        self.random = 0

    def next(self, milliseconds: "int | None" = None) -> str:
        ms = now_ms() if milliseconds is None else milliseconds
        with self.lock:
            if ms == self.last_ms or (self.through_step_back and ms < self.last_ms):
                self.random = (self.random + 1) & _RANDOM_MASK
            else:
                self.last_ms = ms
                self.time_text = time_digits(ms)
                self.random = int.from_bytes(os.urandom(10), "big")
            return self.prefix + self.time_text + random_digits(self.random)


_event_ids = _MonotonicIds("evt_", through_step_back=True)
_session_ids = _MonotonicIds("ses_", through_step_back=False)


def new_session_id(milliseconds: "int | None" = None) -> str:
    """A session id the service accepts as the ``id`` of ``POST /api/sdk/sessions``: ``ses_`` + a ULID, monotonic
    within this process."""
    return _session_ids.next(milliseconds)


def new_event_id(milliseconds: "int | None" = None) -> str:
    """An event id the service accepts as an event's ``id``: ``evt_`` + a ULID, monotonic within this process."""
    return _event_ids.next(milliseconds)


def new_idempotency_key() -> str:
    """A fresh key for ``Idempotency-Key`` headers."""
    return str(uuid.uuid4())


def _reset_after_fork() -> None:
    # A child continuing the parent's sequence would mint the parent's next ids.
    global _event_ids, _session_ids
    _event_ids = _MonotonicIds("evt_", through_step_back=True)
    _session_ids = _MonotonicIds("ses_", through_step_back=False)


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_reset_after_fork)
