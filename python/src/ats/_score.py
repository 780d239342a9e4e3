"""Scores: verdicts on a run, one of its events, or a whole conversation (a user's thumbs-down, a reviewer's label,
an evaluator's number), sent to ``POST /api/sdk/scores``. The value's JSON type is its kind: a number, a boolean, or a label."""

from __future__ import annotations

import math
from typing import Any, Dict, Optional, Union

ScoreValue = Union[int, float, bool, str]


def score_problem(name: Any, value: Any) -> Optional[str]:
    """Why ``name`` and ``value`` cannot be sent as a score, or ``None`` when they can."""
    if not isinstance(name, str) or name.strip() == "":
        return "a score needs a name"
    if isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        return None if math.isfinite(value) else f"score {name}: value must be finite"
    if isinstance(value, str):
        return None if value != "" else f"score {name}: a label must not be empty"
    return f"score {name}: value must be a number, a boolean or a label"


def score_body(
    session_id: Optional[str],
    score_id: str,
    name: str,
    value: ScoreValue,
    *,
    event_id: Optional[str],
    comment: Optional[str],
    data_type: Optional[str],
    source: Optional[str],
    conversation_id: Optional[str] = None,
) -> Dict[str, Any]:
    """The request body of one score, with its id: of ``session_id`` (and ``event_id``), or without a session, of
    ``conversation_id`` (a conversation's score names no session and no event)."""
    target: Dict[str, Any] = {"sessionId": session_id} if session_id is not None else {"conversationId": conversation_id}
    body: Dict[str, Any] = {
        "id": score_id,
        **target,
        "name": name,
        "value": value,
        "source": source or "sdk",
    }
    if event_id is not None:
        body["eventId"] = event_id
    if comment is not None:
        body["comment"] = comment
    if data_type is not None:
        body["dataType"] = data_type
    return body
