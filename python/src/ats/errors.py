"""Everything the client reports is an :class:`AtsError`.

Only :class:`AtsConfigurationError` is ever raised (by ``AgentTracker(...)``, for
misuse); delivery problems go to the ``on_error`` callback and never into the
agent's code.
"""

from __future__ import annotations

from typing import Any, Dict, Optional

__all__ = [
    "AtsConfigurationError",
    "AtsDeliveryError",
    "AtsDroppedEventsError",
    "AtsError",
    "AtsUsageError",
]


class AtsError(Exception):
    """Base class of every error the client creates.

    Attributes:
        code: what went wrong, machine-readable: ``configuration``, ``rejected``,
            ``retries_exhausted``, ``shutdown``, ``session_not_created``,
            ``queue_overflow``, ``event_too_large`` or ``usage``.
        message: a sentence saying what happened and what it cost.
        lost_events: how many events this problem cost (0 when none was lost).
        session_id: the session concerned, when there is one (none for a conversation's score).
        conversation_id: the conversation concerned, for a problem with a conversation's score.
    """

    def __init__(
        self,
        code: str,
        message: str,
        *,
        lost_events: int = 0,
        session_id: Optional[str] = None,
        conversation_id: Optional[str] = None,
    ) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.lost_events = lost_events
        self.session_id = session_id
        self.conversation_id = conversation_id

    def __repr__(self) -> str:
        return f"{type(self).__name__}(code={self.code!r}, message={self.message!r}, lost_events={self.lost_events})"


class AtsConfigurationError(AtsError):
    """Raised by ``AgentTracker(...)`` when the options cannot work (no API key, a base URL that is not http(s), …)."""

    def __init__(self, message: str) -> None:
        super().__init__("configuration", message)


class AtsDeliveryError(AtsError):
    """A request the service refused (a 4xx nothing a retry could fix), one that still failed after every retry,
    one stopped by ``shutdown``'s deadline, or a session that could not be created.

    Attributes:
        operation: ``createSession``, ``recordEvents``, ``endSession``, ``score`` or ``feedbackToken``.
        status: the last HTTP status, or ``None`` after a network error.
        body: the service's JSON error body, when it sent one (for refused events: the first 20 refusals).
        attempts: how many times the request was sent.
    """

    def __init__(
        self,
        code: str,
        message: str,
        *,
        operation: str,
        status: Optional[int] = None,
        body: Any = None,
        attempts: int = 0,
        lost_events: int = 0,
        session_id: Optional[str] = None,
        conversation_id: Optional[str] = None,
    ) -> None:
        super().__init__(
            code, message, lost_events=lost_events, session_id=session_id, conversation_id=conversation_id
        )
        self.operation = operation
        self.status = status
        self.body = body
        self.attempts = attempts


class AtsDroppedEventsError(AtsError):
    """Events dropped before they were sent: the queue was full (``queue_overflow``), or one event was larger than
    the service accepts (``event_too_large``; ``sizes`` then gives the event's and its fields' bytes of JSON)."""

    def __init__(
        self,
        code: str,
        message: str,
        *,
        lost_events: int,
        session_id: Optional[str] = None,
        sizes: Optional[Dict[str, Any]] = None,
    ) -> None:
        super().__init__(code, message, lost_events=lost_events, session_id=session_id)
        self.sizes = sizes


class AtsUsageError(AtsError):
    """A call that makes no sense (ending a run twice, an event after ``shutdown()``, a ``mask`` that raised):
    reported, never raised."""

    def __init__(self, message: str, session_id: Optional[str] = None, conversation_id: Optional[str] = None) -> None:
        super().__init__("usage", message, session_id=session_id, conversation_id=conversation_id)
