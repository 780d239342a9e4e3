"""End-user feedback tokens (issue 33): minted by your backend for the session a user sees, handed to the browser,
which posts the user's score with it (``POST /api/public/feedback``) and can do nothing else."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Dict, Optional, Sequence

FEEDBACK_TOKENS_PATH = "/api/sdk/feedback-tokens"


@dataclass(frozen=True)
class FeedbackToken:
    """A minted token: give ``token`` to the browser (``Authorization: Bearer <token>``).

    Attributes:
        token: ``atsf_…``, the bearer token the browser sends.
        token_id: ``fbt_…``, the ``author.id`` of the scores posted with it.
        expires_at: when it stops working (ISO 8601).
    """

    token: str
    token_id: str
    expires_at: str


def feedback_token_body(
    session_id: str,
    event_id: Optional[str],
    expires_in_seconds: Optional[int],
    names: Optional[Sequence[str]],
) -> Dict[str, Any]:
    """The minting request's body."""
    body: Dict[str, Any] = {"sessionId": session_id}
    if event_id is not None:
        body["eventId"] = event_id
    if expires_in_seconds is not None:
        body["expiresInSeconds"] = expires_in_seconds
    if names is not None:
        body["names"] = list(names)
    return body


def feedback_token_of(body: Any) -> Optional[FeedbackToken]:
    """The token of a 201 answer's body, or ``None`` when the body is not one."""
    if not isinstance(body, dict):
        return None
    token, token_id, expires_at = body.get("token"), body.get("tokenId"), body.get("expiresAt")
    if not isinstance(token, str) or not isinstance(token_id, str) or not isinstance(expires_at, str):
        return None
    return FeedbackToken(token=token, token_id=token_id, expires_at=expires_at)
