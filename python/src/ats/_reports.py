"""What the outbox tells ``on_error``: the service's answers turned into errors that say what was lost and why."""

from __future__ import annotations

from typing import Any, Dict, List, Optional

from ._transport import Answered, Delivery
from .errors import AtsDeliveryError


def batch_results(body: Any, count: int) -> Optional[List[Dict[str, Any]]]:
    """The per-event results of a batch answer, when it has one (with a numeric status) for each event sent."""
    results = body.get("results") if isinstance(body, dict) else None
    if not isinstance(results, list) or len(results) != count:
        return None
    for result in results:
        status = result.get("status") if isinstance(result, dict) else None
        if isinstance(status, bool) or not isinstance(status, int):
            return None
    return results


def _message_of(body: Any) -> str:
    message = body.get("message") if isinstance(body, dict) else None
    return message if isinstance(message, str) else ""


def delivery_failure(
    delivery: Delivery,
    operation: str,
    session_id: Optional[str],
    lost_events: int,
    conversation_id: Optional[str] = None,
) -> AtsDeliveryError:
    """A request that ended without success: refused (an answer a retry cannot change), given up, or stopped."""
    # Named with where it went: a wrong base URL or key shows in the warning itself.
    request = f"{operation} ({delivery.target})" if delivery.target else operation
    if isinstance(delivery, Answered):
        return AtsDeliveryError(
            "rejected",
            f"{request}: {delivery.status} {_message_of(delivery.body)}".strip(),
            operation=operation,
            status=delivery.status,
            body=delivery.body,
            attempts=delivery.attempts,
            lost_events=lost_events,
            session_id=session_id,
            conversation_id=conversation_id,
        )
    if delivery.last_status is not None:
        last = f"{delivery.last_status} {_message_of(delivery.last_body)}".strip()
    else:
        last = delivery.last_error or "no answer"
    stopped = delivery.reason == "stopped"
    why = "stopped by shutdown" if stopped else f"gave up after {delivery.attempts} attempts"
    return AtsDeliveryError(
        "shutdown" if stopped else "retries_exhausted",
        f"{request}: {why} (last: {last})",
        operation=operation,
        status=delivery.last_status,
        body=delivery.last_body,
        attempts=delivery.attempts,
        lost_events=lost_events,
        session_id=session_id,
        conversation_id=conversation_id,
    )


def session_not_created_error(session_id: str, cause: AtsDeliveryError) -> AtsDeliveryError:
    """A session start that failed for good: the session's events go with it."""
    return AtsDeliveryError(
        "session_not_created",
        f"Session {session_id} was not created ({cause.message}); its {cause.lost_events} queued events and any "
        "later ones are dropped",
        operation="createSession",
        status=cause.status,
        body=cause.body,
        attempts=cause.attempts,
        lost_events=cause.lost_events,
        session_id=session_id,
    )


def refused_events_error(refused: List[Dict[str, Any]]) -> AtsDeliveryError:
    """Events the service refused in a batch answer (4xx per event), with the first 20 refusals as the body."""
    first = refused[0]
    message = _message_of(first.get("error")) or f"status {first['status']}"
    plural = "" if len(refused) == 1 else "s"
    return AtsDeliveryError(
        "rejected",
        f"The service refused {len(refused)} event{plural} (first: {first['status']} {message})",
        operation="recordEvents",
        status=first["status"],
        body=refused[:20],
        attempts=1,
        lost_events=len(refused),
        session_id=first.get("sessionId"),
    )
