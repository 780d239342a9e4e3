"""The client: starts runs, queues their events and delivers them to the service in batches from one background
thread, with retries that never duplicate and a bounded queue that never fails silently."""

from __future__ import annotations

import asyncio
import atexit
import functools
import inspect
import os
import threading
import time
import weakref
from concurrent.futures import Future
from concurrent.futures import TimeoutError as FutureTimeoutError
from dataclasses import dataclass
from typing import Any, Callable, Dict, Mapping, Optional, Sequence, TypeVar, Union, overload

from ._backoff import DEFAULT_BACKOFF
from ._config import Mask, OnError, resolve_options
from ._context import current_run_var
from ._feedback import FEEDBACK_TOKENS_PATH, FeedbackToken, feedback_token_body, feedback_token_of
from ._ids import new_event_id, new_idempotency_key, new_score_id, new_session_id
from ._json_value import dumps, to_json_object
from ._queue import DeliveryQueue, QueueSettings
from ._run import Run, describe_error, failure_reason_of
from ._sampling import is_sampled
from ._score import ScoreValue, score_body, score_problem
from ._times import iso_of_ms, ms_of, now_ms
from ._transport import Answered, ApiRequest, Transport
from ._worker import Worker
from .errors import AtsDeliveryError, AtsDroppedEventsError, AtsError, AtsUsageError

F = TypeVar("F", bound=Callable[..., Any])
T = TypeVar("T")

__version__ = "0.1.0"

# The service takes request bodies up to 5 MiB on the event routes: one event must fit one batch.
MAX_EVENT_BYTES = 5 * 1024 * 1024 - 64
# Batches stay under 4 MiB of JSON, well inside the 5 MiB body (and Lambda's 6 MB event once encoded).
MAX_BATCH_BYTES = 4 * 1024 * 1024


@dataclass(frozen=True)
class TrackerStats:
    """What the client has done so far (``AgentTracker.stats()``)."""

    #: Events the agent recorded on sampled runs (after masking).
    events_recorded: int
    #: Events the service confirmed stored (201, or an idempotent replay of one).
    events_delivered: int
    #: Events dropped because the queue was full.
    events_dropped: int
    #: Events refused by the service, given up after retries, too large, or lost at shutdown.
    events_failed: int
    #: Events of runs left out by ``sample_rate``.
    events_sampled_out: int
    #: Events ``mask`` returned ``None`` for (or raised on).
    events_masked: int
    #: Events waiting to be sent.
    queued: int
    requests_in_flight: int
    sessions_started: int
    sessions_created: int
    sessions_failed: int
    sessions_ended: int
    #: Scores queued (of sampled runs, of ``score(session_id, …)`` and of ``score_conversation(…)``).
    scores_recorded: int
    #: Scores the service confirmed stored.
    scores_delivered: int
    #: Scores refused (a conversation's included), given up after retries, of a session that could not be started, or
    #: lost at shutdown.
    scores_failed: int
    requests: int
    retries: int
    #: Request body bytes on the wire (after gzip).
    bytes_sent: int
    #: The same bodies uncompressed.
    bytes_before_compression: int


_trackers: "weakref.WeakSet[AgentTracker]" = weakref.WeakSet()
# In a forked child, the parent's delivery objects are kept referenced and never used: were they collected, closing
# their sockets would unregister them from the event loop's epoll instance, which the child shares with the parent.
_parent_objects: list = []


def _after_fork_in_child() -> None:
    for tracker in list(_trackers):
        tracker._reset_after_fork()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_after_fork_in_child)


class AgentTracker:
    """Records agent runs into the Agent Tracking Service.

    Args:
        api_key: an API key (``ats_live_…``); defaults to ``ATS_API_KEY``.
        base_url: the service's URL (``https://….execute-api.eu-west-1.amazonaws.com``, locally
            ``http://127.0.0.1:3000``); defaults to ``ATS_BASE_URL``. A trailing ``/`` is ignored.
        on_error: receives every :class:`~ats.AtsError` (what could not be delivered, and why), possibly on the
            delivery thread: keep it quick. Defaults to one line on standard error per problem.
        mode: ``"background"`` (default) sends batches from the delivery thread; ``"immediate"`` sends at once and
            makes ``run.end()`` wait for delivery (AWS Lambda, short scripts).
        mask: ``(event: dict) -> dict | None``, run on every event (its wire fields: ``sessionId``, ``eventType``,
            ``toolName``, ``toolInput``, ``toolOutput``, ``reasoning``, …) before it leaves the process; return the
            event to send (changed or not) or ``None`` to drop it. A mask that raises drops the event.
        sample_rate: the fraction of sessions recorded, 0–1, decided by session id (default 1).
        max_queue_size: events kept waiting at most; beyond it the oldest are dropped and reported (10,000).
        max_retries: retries of one request (10: about 75 s of outage on average before giving up).
        flush_interval: seconds a partial batch may wait in background mode (1.0).
        max_batch_size: events per batch request, 1–100 (100).
        max_concurrency: requests in flight at once, for different sessions (4).
        request_timeout: seconds per request attempt (30).
        shutdown_timeout: seconds ``shutdown()`` and the exit hook wait by default (10).

    Raises:
        AtsConfigurationError: when there is no API key or base URL, or an option cannot work. Nothing else the
            client does ever raises into your code.
    """

    def __init__(
        self,
        api_key: Optional[str] = None,
        base_url: Optional[str] = None,
        *,
        on_error: Optional[OnError] = None,
        mode: str = "background",
        mask: Optional[Mask] = None,
        sample_rate: float = 1.0,
        max_queue_size: int = 10_000,
        max_retries: int = 10,
        flush_interval: float = 1.0,
        max_batch_size: int = 100,
        max_concurrency: int = 4,
        request_timeout: float = 30.0,
        shutdown_timeout: float = 10.0,
    ) -> None:
        self._options = resolve_options(
            api_key=api_key,
            base_url=base_url,
            on_error=on_error,
            mode=mode,
            mask=mask,
            sample_rate=sample_rate,
            max_queue_size=max_queue_size,
            max_retries=max_retries,
            flush_interval=flush_interval,
            max_batch_size=max_batch_size,
            max_concurrency=max_concurrency,
            request_timeout=request_timeout,
            shutdown_timeout=shutdown_timeout,
        )
        self._closed = False
        self._shutdown_stats: Optional[TrackerStats] = None
        self._shutdown_lock = threading.Lock()
        self._generation = 0
        self._start_delivery()
        _trackers.add(self)
        atexit.register(self._at_exit)

    def _start_delivery(self) -> None:
        options = self._options
        self._counters_lock = threading.Lock()
        self._sessions_started = 0
        self._events_sampled_out = 0
        self._events_masked = 0
        self._events_too_large = 0
        self._worker = Worker("ats-delivery", self._report_internal)
        self._transport = Transport(
            base_url=options.base_url,
            api_key=options.api_key,
            max_retries=options.max_retries,
            backoff=DEFAULT_BACKOFF,
            request_timeout=options.request_timeout,
            user_agent=f"ats-client-python/{__version__}",
        )
        self._queue = DeliveryQueue(
            QueueSettings(
                max_batch_size=options.max_batch_size,
                max_batch_bytes=MAX_BATCH_BYTES,
                max_queue_size=options.max_queue_size,
                max_concurrency=options.max_concurrency,
                flush_interval=options.flush_interval,
                immediate=options.immediate,
                max_retries=options.max_retries,
                backoff=DEFAULT_BACKOFF,
            ),
            self._transport,
            self._report,
            self._worker,
        )

    # ---- runs ----

    def start_session(
        self,
        name: str,
        agent_name: str,
        user_id: str,
        *,
        metadata: Optional[Mapping[str, Any]] = None,
        started_at: Any = None,
        conversation_id: Optional[str] = None,
    ) -> Run:
        """Starts a session and returns its run at once; the session is created in the background (and retried
        while the service is unreachable), and the run's events follow it. ``started_at`` (a ``datetime``, an
        ISO 8601 string or epoch seconds) places a replayed or imported run in the past. ``conversation_id`` (your
        chat's thread or session id) makes the run a turn of that conversation: runs naming the same one are read
        together (``GET /api/sdk/conversations/{id}``, the console's conversation page)."""
        given = None if started_at is None else ms_of(started_at)
        started_ms = now_ms() if given is None else given
        session_id = new_session_id(started_ms)
        sampled = not self._closed and is_sampled(session_id, self._options.sample_rate)
        run = Run(
            self,
            id=session_id,
            name=str(name),
            agent_name=str(agent_name),
            user_id=str(user_id),
            sampled=sampled,
            started_at_ms=started_ms,
            lane=None,
            generation=self._generation,
        )
        if self._closed:
            self._report(AtsUsageError(f"start_session after shutdown: session {session_id} is not recorded", session_id))
            return run
        with self._counters_lock:
            self._sessions_started += 1
        if not sampled:
            return run
        body: Dict[str, Any] = {
            "id": session_id,
            "name": run.name,
            "agentName": run.agent_name,
            "userId": run.user_id,
            "startedAt": iso_of_ms(started_ms),
        }
        if metadata is not None:
            body["metadata"] = to_json_object(metadata)
        if conversation_id is not None:
            body["conversationId"] = str(conversation_id)
        run._lane = self._queue.start_session(session_id, dumps(body).encode("utf-8"), body.get("conversationId"))
        return run

    def session(
        self,
        name: str,
        agent_name: str,
        user_id: str,
        *,
        metadata: Optional[Mapping[str, Any]] = None,
        started_at: Any = None,
        conversation_id: Optional[str] = None,
    ) -> Run:
        """``start_session``, named for ``with`` blocks: ``with ats.session(...) as run:`` makes the run current
        inside the block and ends it ``completed``, or ``failed`` with the exception's message (re-raised)."""
        return self.start_session(
            name, agent_name, user_id, metadata=metadata, started_at=started_at, conversation_id=conversation_id
        )

    @overload
    def trace(self, fn: F) -> F: ...

    @overload
    def trace(
        self,
        fn: None = None,
        *,
        name: Optional[str] = None,
        agent_name: Optional[str] = None,
        user_id: Union[str, Callable[..., str], None] = None,
        metadata: Optional[Mapping[str, Any]] = None,
        conversation_id: Union[str, Callable[..., Optional[str]], None] = None,
    ) -> Callable[[F], F]: ...

    def trace(
        self,
        fn: Optional[F] = None,
        *,
        name: Optional[str] = None,
        agent_name: Optional[str] = None,
        user_id: Union[str, Callable[..., str], None] = None,
        metadata: Optional[Mapping[str, Any]] = None,
        conversation_id: Union[str, Callable[..., Optional[str]], None] = None,
    ) -> Union[F, Callable[[F], F]]:
        """Decorator: each call of the function is one session, current inside it (``current_run()``,
        ``wrap_tool``), ended ``completed`` — or ``failed`` with the exception's message when it raises, re-raising
        it. Works on plain, ``async def``, generator and async generator functions.

        ``name`` defaults to the function's qualified name, ``agent_name`` to its name; ``user_id`` is a string or
        a function of the call's arguments returning one (default ``"anonymous"``); ``conversation_id`` likewise (a
        function returning ``None`` leaves that call's run out of any conversation). In immediate mode the call
        returns after the session's delivery (awaited without blocking, in ``async`` functions)."""

        def decorate(function: F) -> F:
            return self._traced(function, name, agent_name, user_id, metadata, conversation_id)

        return decorate(fn) if fn is not None else decorate

    def run_with(self, run: Run, fn: Callable[..., T], *args: Any, **kwargs: Any) -> T:
        """Calls ``fn(*args, **kwargs)`` with ``run`` as the current run (for runs from ``start_session``)."""
        token = current_run_var.set(run)
        try:
            return fn(*args, **kwargs)
        finally:
            current_run_var.reset(token)

    # ---- delivery ----

    def flush(self, timeout: Optional[float] = None) -> bool:
        """Waits until everything recorded before the call has been delivered, refused or given up, at most
        ``timeout`` seconds (default: no limit). Returns whether it all settled in time; never raises."""
        if not self._can_wait():
            return False
        future = self._queue.flush()
        try:
            future.result(timeout)
            return True
        except FutureTimeoutError:
            return False
        except Exception:  # noqa: BLE001
            return False

    async def flush_async(self, timeout: Optional[float] = None) -> bool:
        """``flush`` for ``async`` code: awaits without blocking the event loop."""
        if not self._can_wait():
            return False
        future = self._queue.flush()
        try:
            await asyncio.wait_for(asyncio.wrap_future(future), timeout)
            return True
        except asyncio.TimeoutError:
            return False
        except Exception:  # noqa: BLE001
            return False

    def shutdown(self, timeout: Optional[float] = None) -> TrackerStats:
        """Sends what is queued, waiting at most ``timeout`` seconds (default ``shutdown_timeout``, 10 s); what is
        still unsent then is reported as lost and in-flight requests are stopped. Later calls on the tracker are
        reported and ignored. Returns the final stats; never raises. A second call returns the first's stats."""
        with self._shutdown_lock:
            if self._shutdown_stats is not None:
                return self._shutdown_stats
            self._closed = True
            try:
                atexit.unregister(self._at_exit)
            except Exception:  # noqa: BLE001
                pass
            limit = self._options.shutdown_timeout if timeout is None else max(0.0, float(timeout))
            deadline = time.monotonic() + limit
            settled = False
            if self._can_wait():
                settled = self.flush(max(0.0, limit * 0.95 - 0.05))
            elif self._queue.queued_events == 0 and not self._queue.in_flight:
                settled = True
            if not settled:
                self._queue.abandon()
                # In-flight requests stop at their next step; give them what is left of the time to say so.
                while self._queue.in_flight and time.monotonic() < deadline:
                    time.sleep(0.005)
            self._shutdown_stats = self.stats()
            self._transport_close()
            return self._shutdown_stats

    def stats(self) -> TrackerStats:
        """Counters of what was recorded, sent, dropped and failed, and the bytes on the wire."""
        queue = self._queue
        transport = self._transport
        with queue.lock:
            return TrackerStats(
                events_recorded=queue.events_queued + self._events_too_large,
                events_delivered=queue.events_delivered,
                events_dropped=queue.events_dropped,
                events_failed=queue.events_failed + self._events_too_large,
                events_sampled_out=self._events_sampled_out,
                events_masked=self._events_masked,
                queued=queue.queued_events,
                requests_in_flight=len(queue.in_flight),
                sessions_started=self._sessions_started,
                sessions_created=queue.sessions_created,
                sessions_failed=queue.sessions_failed,
                sessions_ended=queue.sessions_ended,
                scores_recorded=queue.scores_queued,
                scores_delivered=queue.scores_delivered,
                scores_failed=queue.scores_failed,
                requests=transport.requests,
                retries=transport.retries,
                bytes_sent=transport.bytes_sent,
                bytes_before_compression=transport.bytes_before_compression,
            )

    def score(
        self,
        session_id: str,
        name: str,
        value: ScoreValue,
        *,
        event_id: Optional[str] = None,
        comment: Optional[str] = None,
        data_type: Optional[str] = None,
        source: Optional[str] = None,
        id: Optional[str] = None,  # noqa: A002 - the score's id, as the API names it
    ) -> Optional[str]:
        """Records a score of any session: one this client started, or one started elsewhere (an evaluator judging
        runs after the fact). Sent in the background with retries, after the session's start when this client is
        still sending it. Returns the score's id (``id``, or one minted: give it again to change the score), or
        ``None`` when nothing was queued (the problem goes to ``on_error``)."""
        if not isinstance(session_id, str) or session_id == "":
            self._report(AtsUsageError("score needs the id of the session it judges"))
            return None
        return self._queue_score(session_id, None, name, value, event_id, comment, data_type, source, id)

    def score_conversation(
        self,
        conversation_id: str,
        name: str,
        value: ScoreValue,
        *,
        comment: Optional[str] = None,
        data_type: Optional[str] = None,
        source: Optional[str] = None,
        id: Optional[str] = None,  # noqa: A002 - the score's id, as the API names it
    ) -> Optional[str]:
        """Records a score of a whole conversation (the runs whose ``conversation_id`` is this one): "resolved: True"
        for the chat rather than for one turn. Sent in the background with retries, after everything this client
        queued before it for the conversation's runs (their starts create the conversation: the service refuses a
        score of one it does not know with a 404, reported, not retried). Returns the score's id (``id``, or one
        minted: give it again to change the score), or ``None`` when nothing was queued (the problem goes to
        ``on_error``)."""
        if not isinstance(conversation_id, str) or conversation_id == "":
            self._report(AtsUsageError("score_conversation needs the id of the conversation it judges"))
            return None
        if self._closed:
            self._report(
                AtsUsageError(
                    f"A score of conversation {conversation_id} was recorded after shutdown and is not sent",
                    conversation_id=conversation_id,
                )
            )
            return None
        problem = score_problem(name, value)
        if problem is not None:
            self._report(AtsUsageError(f"{problem}; the score is not sent", conversation_id=conversation_id))
            return None
        chosen = id or new_score_id()
        body = score_body(
            None,
            chosen,
            name,
            value,
            event_id=None,
            comment=comment,
            data_type=data_type,
            source=source,
            conversation_id=conversation_id,
        )
        self._queue.add_conversation_score(conversation_id, dumps(body).encode("utf-8"))
        return chosen

    def feedback_token(
        self,
        session_id: str,
        *,
        event_id: Optional[str] = None,
        expires_in_seconds: Optional[int] = None,
        names: Optional[Sequence[str]] = None,
        timeout: Optional[float] = None,
    ) -> FeedbackToken:
        """Mints an end user's feedback token for a session (and optionally one event of it): a direct request to
        ``POST /api/sdk/feedback-tokens`` (retried like every request, never queued) that waits for the answer, at
        most ``timeout`` seconds. Needs a key with ``scores:write``. Raises ``AtsDeliveryError`` when the service
        refuses (unknown session: 404, another tenant's: 403, bad options: 400) or cannot be reached, and
        ``AtsUsageError`` after ``shutdown()`` or on the delivery thread."""
        if self._closed:
            raise AtsUsageError(f"feedback_token after shutdown: no token for session {session_id}", session_id)
        if self._worker.in_worker_thread():
            raise AtsUsageError("feedback_token cannot wait on the delivery thread", session_id)
        request = ApiRequest(
            "POST",
            FEEDBACK_TOKENS_PATH,
            dumps(feedback_token_body(session_id, event_id, expires_in_seconds, names)).encode("utf-8"),
            new_idempotency_key(),
        )
        answer: "Future[Any]" = Future()

        def start() -> None:
            task = asyncio.ensure_future(self._transport.deliver(request, self._queue.stop_event()))

            def settle(done: "asyncio.Future[Any]") -> None:
                error = done.exception()
                if error is not None:
                    answer.set_exception(error)
                else:
                    answer.set_result(done.result())

            task.add_done_callback(settle)

        if not self._worker.call_soon(start):
            raise AtsUsageError(f"feedback_token: no delivery thread can run; no token for {session_id}", session_id)
        try:
            delivery = answer.result(timeout)
        except FutureTimeoutError:
            raise AtsDeliveryError(
                "retries_exhausted",
                f"No feedback token for session {session_id}: no answer within {timeout} s",
                operation="feedbackToken",
                session_id=session_id,
            ) from None
        if isinstance(delivery, Answered):
            token = feedback_token_of(delivery.body) if delivery.status == 201 else None
            if token is not None:
                return token
            status, body = delivery.status, delivery.body
        else:
            status, body = delivery.last_status, delivery.last_body
        message = body.get("message") if isinstance(body, dict) else None
        if not isinstance(message, str):
            message = getattr(delivery, "last_error", None) or "no answer"
        raise AtsDeliveryError(
            "rejected" if isinstance(delivery, Answered) else "retries_exhausted",
            f"No feedback token for session {session_id}{'' if status is None else f' ({status})'}: {message}",
            operation="feedbackToken",
            status=status,
            body=body,
            attempts=delivery.attempts,
            session_id=session_id,
        )

    # ---- used by Run ----

    def _queue_score(
        self,
        session_id: str,
        lane: Any,
        name: Any,
        value: Any,
        event_id: Optional[str],
        comment: Optional[str],
        data_type: Optional[str],
        source: Optional[str],
        score_id: Optional[str],
    ) -> Optional[str]:
        if self._closed:
            self._report(
                AtsUsageError(f"A score of session {session_id} was recorded after shutdown and is not sent", session_id)
            )
            return None
        problem = score_problem(name, value)
        if problem is not None:
            self._report(AtsUsageError(f"{problem}; the score is not sent", session_id))
            return None
        chosen = score_id or new_score_id()
        body = score_body(
            session_id, chosen, name, value, event_id=event_id, comment=comment, data_type=data_type, source=source
        )
        self._queue.add_score(session_id, dumps(body).encode("utf-8"), lane)
        return chosen

    def _score_run(self, run: Run, name: Any, value: Any, **fields: Any) -> Optional[str]:
        if not run.sampled or run._generation != self._generation:
            return None
        return self._queue_score(
            run.id, run._lane, name, value, fields["event_id"], fields["comment"], fields["data_type"],
            fields["source"], fields["id"],
        )  # fmt: skip

    def _record(self, run: Run, event: Dict[str, Any]) -> None:
        if not run.sampled:
            with self._counters_lock:
                self._events_sampled_out += 1
            return
        if self._closed:
            self._report(
                AtsUsageError(f"An event of session {run.id} was recorded after shutdown and is not sent", run.id)
            )
            return
        lane = run._lane
        if lane is None or run._generation != self._generation:
            self._report(
                AtsUsageError(
                    f"An event of session {run.id}, started before os.fork(), was recorded in the child process and "
                    "is not sent (start a new session in the child)",
                    run.id,
                )
            )
            return
        event_type = event["eventType"]
        mask = self._options.mask
        if mask is not None:
            try:
                masked = mask(event)
            except Exception as error:  # noqa: BLE001 - never send what the mask was meant to redact
                with self._counters_lock:
                    self._events_masked += 1
                self._report(
                    AtsUsageError(
                        f"mask raised ({describe_error(error)}); the event was dropped, not sent unmasked", run.id
                    )
                )
                return
            if masked is None:
                with self._counters_lock:
                    self._events_masked += 1
                return
            event = dict(masked)
            event["sessionId"] = run.id
            event["eventType"] = event_type
        # The event's own id: every retry names the same event, and ids minted in order keep the timeline's order.
        event["id"] = new_event_id()
        try:
            body = dumps(event).encode("utf-8")
        except (TypeError, ValueError, UnicodeEncodeError):
            # A mask that returned objects, NaN or lone surrogates: converted like any agent value.
            body = dumps(to_json_object(event)).encode("utf-8")
        if len(body) > MAX_EVENT_BYTES:
            with self._counters_lock:
                self._events_too_large += 1
            self._report(
                AtsDroppedEventsError(
                    "event_too_large",
                    f"A {event_type} event of session {run.id} is {len(body)} bytes of JSON, over the service's "
                    f"{MAX_EVENT_BYTES}; it was not sent (nothing is cut silently)",
                    lost_events=1,
                    session_id=run.id,
                    sizes={
                        "eventBytes": len(body),
                        "limitBytes": MAX_EVENT_BYTES,
                        "fields": {key: len(dumps(to_json_object({key: value}))) for key, value in event.items()},
                    },
                )
            )
            return
        self._queue.add_event(lane, event_type, body)

    def _end_run(self, run: Run, body: Dict[str, Any]) -> "Optional[Future[None]]":
        lane = run._lane
        if not run.sampled or lane is None or run._generation != self._generation:
            return None
        if self._closed:
            self._report(AtsUsageError(f"Session {run.id} was ended after shutdown; the end is not sent", run.id))
            return None
        future = self._queue.end_session(lane, dumps(body).encode("utf-8"))
        return future if self._options.immediate else None

    def _can_wait(self) -> bool:
        """Whether the caller may wait for the delivery thread (not from the delivery thread itself, e.g. in
        ``on_error``: that would wait for itself)."""
        return not self._worker.in_worker_thread()

    def _wait_for(self, future: "Future[None]") -> None:
        if not self._can_wait():
            return
        try:
            future.result()
        except Exception:  # noqa: BLE001 - never raised into the agent
            pass

    def _report(self, error: AtsError) -> None:
        try:
            self._options.on_error(error)
        except Exception:  # noqa: BLE001 - on_error is the agent's code; its failure must not become ours
            pass

    def _report_internal(self, message: str) -> None:
        self._report(AtsDeliveryError("rejected", f"Internal client error: {message}", operation="deliver"))

    def _transport_close(self) -> None:
        worker = self._worker
        if worker.started:
            worker.call_soon(self._transport.close)

    def _at_exit(self) -> None:
        queue = self._queue
        if queue.queued_events == 0 and not queue.in_flight and not queue.waiting:
            return
        self.shutdown()

    def _reset_after_fork(self) -> None:
        # The child gets a fresh, empty outbox and no thread; the parent's queue stays the parent's.
        self._generation += 1
        _parent_objects.append((self._worker, self._transport, self._queue))
        self._shutdown_lock = threading.Lock()
        self._start_delivery()

    # ---- @trace ----

    def _traced(
        self,
        function: F,
        name: Optional[str],
        agent_name: Optional[str],
        user_id: Union[str, Callable[..., str], None],
        metadata: Optional[Mapping[str, Any]],
        conversation_id: Union[str, Callable[..., Optional[str]], None] = None,
    ) -> F:
        session_name = name or getattr(function, "__qualname__", None) or getattr(function, "__name__", "run")
        agent = agent_name or getattr(function, "__name__", None) or "agent"

        def begin(args: Any, kwargs: Any) -> Run:
            user = "anonymous"
            if callable(user_id):
                try:
                    user = str(user_id(*args, **kwargs))
                except Exception as error:  # noqa: BLE001
                    self._report(AtsUsageError(f"user_id({describe_error(error)}) raised; using 'anonymous'"))
            elif user_id is not None:
                user = str(user_id)
            conversation: Optional[str] = None
            if callable(conversation_id):
                try:
                    given = conversation_id(*args, **kwargs)
                    conversation = None if given is None else str(given)
                except Exception as error:  # noqa: BLE001
                    self._report(AtsUsageError(f"conversation_id({describe_error(error)}) raised; the run names none"))
            elif conversation_id is not None:
                conversation = str(conversation_id)
            return self.start_session(session_name, agent, user, metadata=metadata, conversation_id=conversation)

        if inspect.isasyncgenfunction(function):

            @functools.wraps(function)
            async def traced_async_generator(*args: Any, **kwargs: Any) -> Any:
                run = begin(args, kwargs)
                generator = function(*args, **kwargs)
                try:
                    while True:
                        token = current_run_var.set(run)
                        try:
                            item = await generator.__anext__()
                        except StopAsyncIteration:
                            break
                        finally:
                            current_run_var.reset(token)
                        yield item
                except BaseException as error:
                    if not isinstance(error, GeneratorExit):
                        await run.end_async("failed", success=False, failure_reason=failure_reason_of(error))
                        raise
                    await generator.aclose()
                    await run.end_async("completed")
                    raise
                await run.end_async("completed")

            return traced_async_generator  # type: ignore[return-value]

        if inspect.isgeneratorfunction(function):

            @functools.wraps(function)
            def traced_generator(*args: Any, **kwargs: Any) -> Any:
                run = begin(args, kwargs)
                generator = function(*args, **kwargs)
                try:
                    while True:
                        token = current_run_var.set(run)
                        try:
                            item = next(generator)
                        except StopIteration as stop:
                            result = stop.value
                            break
                        finally:
                            current_run_var.reset(token)
                        yield item
                except BaseException as error:
                    if not isinstance(error, GeneratorExit):
                        run.end("failed", success=False, failure_reason=failure_reason_of(error))
                        raise
                    generator.close()
                    run.end("completed")
                    raise
                run.end("completed")
                return result

            return traced_generator  # type: ignore[return-value]

        if inspect.iscoroutinefunction(function):

            @functools.wraps(function)
            async def traced_async(*args: Any, **kwargs: Any) -> Any:
                async with begin(args, kwargs):
                    return await function(*args, **kwargs)

            return traced_async  # type: ignore[return-value]

        @functools.wraps(function)
        def traced(*args: Any, **kwargs: Any) -> Any:
            with begin(args, kwargs):
                return function(*args, **kwargs)

        return traced  # type: ignore[return-value]
