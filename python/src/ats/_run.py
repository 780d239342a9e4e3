"""One agent run (a session): records its events and ends it. Every method returns at once and none raises into
the agent's code; problems go to ``on_error``."""

from __future__ import annotations

import asyncio
import math
import threading
from concurrent.futures import Future
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable, Dict, List, Mapping, Optional, Sequence, TypeVar, Union, overload

from ._context import current_run_var
from ._json_value import to_json_object, to_text
from ._times import event_duration_ms, now_ms, timestamp
from ._usage import event_model, event_usage, merged_usage
from .errors import AtsUsageError

if TYPE_CHECKING:
    from ._score import ScoreValue
    from ._tracker import AgentTracker

F = TypeVar("F", bound=Callable[..., Any])

# The service's limit on ``failureReason``; reasons built from exceptions are cut to it.
FAILURE_REASON_LENGTH = 4096


@dataclass(frozen=True)
class RunUsage:
    """Token and cost totals of a run so far."""

    prompt_tokens: int
    completion_tokens: int
    total_tokens: int
    #: Sum of the ``estimated_cost`` of the run's events.
    estimated_cost: float
    #: Whether any event reported tokens (only then are they sent with ``end``).
    has_tokens: bool
    #: Whether an event was left for the service to price (it had ``model`` or ``usage`` and no
    #: ``estimated_cost``); ``end`` then sends no default cost.
    has_server_priced_events: bool = False


def _non_negative(value: Any) -> Optional[float]:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return value if math.isfinite(value) and value >= 0 else None


def describe_error(error: Any) -> str:
    """``"TypeName: message"`` for an exception, the text of anything else."""
    if isinstance(error, BaseException):
        message = str(error)
        return f"{type(error).__name__}: {message}" if message else type(error).__name__
    return error if isinstance(error, str) else str(error)


def failure_reason_of(error: BaseException) -> str:
    """The ``failure_reason`` a failed block reports: its exception, cut to the service's 4,096 characters."""
    text = describe_error(error) or type(error).__name__
    return text if len(text) <= FAILURE_REASON_LENGTH else text[: FAILURE_REASON_LENGTH - 1] + "…"


class Run:
    """One agent run: a session of the service. Made by ``AgentTracker.start_session`` (or ``session``,
    ``@trace``). Every method returns at once and never raises into the agent; problems go to ``on_error``.

    A run is a context manager: ``with ats.session(...) as run:`` makes it the current run inside the block and
    ends it ``completed``, or ``failed`` with the exception's message when the block raises (re-raising it).
    ``async with`` does the same and, in immediate mode, waits for delivery without blocking the event loop.
    """

    __slots__ = (
        "id",
        "name",
        "agent_name",
        "user_id",
        "sampled",
        "started_at_ms",
        "_tracker",
        "_lane",
        "_generation",
        "_ended",
        "_lock",
        "_prompt_tokens",
        "_completion_tokens",
        "_total_tokens",
        "_has_tokens",
        "_server_priced",
        "_cost",
        "_tokens",
        "__weakref__",
    )

    def __init__(
        self,
        tracker: "AgentTracker",
        *,
        id: str,
        name: str,
        agent_name: str,
        user_id: str,
        sampled: bool,
        started_at_ms: int,
        lane: Any,
        generation: int,
    ) -> None:
        #: The session id (``ses_…``), known at once: the client mints it.
        self.id = id
        self.name = name
        self.agent_name = agent_name
        self.user_id = user_id
        #: Whether this run is recorded (see ``sample_rate``); an unsampled run accepts every call and sends nothing.
        self.sampled = sampled
        #: Milliseconds since the epoch at ``start_session``.
        self.started_at_ms = started_at_ms
        self._tracker = tracker
        self._lane = lane
        self._generation = generation
        self._ended = False
        self._lock = threading.Lock()
        self._prompt_tokens = 0
        self._completion_tokens = 0
        self._total_tokens = 0
        self._has_tokens = False
        self._server_priced = False
        self._cost = 0.0
        self._tokens: List[Any] = []

    def __repr__(self) -> str:
        return f"Run(id={self.id!r}, name={self.name!r}, agent_name={self.agent_name!r}, ended={self._ended})"

    @property
    def is_ended(self) -> bool:
        """Whether ``end`` was called."""
        return self._ended

    @property
    def usage(self) -> RunUsage:
        """Tokens and cost recorded so far."""
        with self._lock:
            return RunUsage(
                self._prompt_tokens,
                self._completion_tokens,
                self._total_tokens,
                self._cost,
                self._has_tokens,
                self._server_priced,
            )

    # ---- events ----

    def tool_call(
        self,
        tool_name: str,
        tool_input: Any = None,
        tool_output: Any = None,
        *,
        reasoning: Optional[str] = None,
        estimated_cost: Optional[float] = None,
        model: Optional[str] = None,
        usage: Optional[Mapping[str, int]] = None,
        occurred_at: Any = None,
        duration_ms: Optional[float] = None,
    ) -> None:
        """Records a ``tool_call`` event. ``tool_input``/``tool_output`` may be any value: mappings and objects with
        fields (dataclasses, pydantic models…) are sent as their fields, anything else as ``{"value": …}``.
        ``model`` and ``usage`` are taken by every event method (see ``llm_call``), and so are ``occurred_at`` (when
        it happened, or started) and ``duration_ms`` (how long it took from ``occurred_at``, sent as whole
        milliseconds; a negative, non-finite or over-a-year value is left out): an event with a duration is drawn as
        a bar by the console. ``wrap_tool`` and ``wrap_openai`` set both for you."""
        try:
            self._emit(
                "tool_call",
                occurred_at,
                estimated_cost,
                model,
                usage,
                duration_ms=duration_ms,
                toolName=to_text(tool_name),
                toolInput=None if tool_input is None else to_json_object(tool_input),
                toolOutput=None if tool_output is None else to_json_object(tool_output),
                reasoning=to_text(reasoning),
            )
        except Exception as error:  # noqa: BLE001
            self._report_failure(error)

    def decision(
        self,
        reasoning: Optional[str] = None,
        *,
        alternatives_considered: Optional[Sequence[str]] = None,
        confidence: Optional[float] = None,
        estimated_cost: Optional[float] = None,
        model: Optional[str] = None,
        usage: Optional[Mapping[str, int]] = None,
        occurred_at: Any = None,
        duration_ms: Optional[float] = None,
    ) -> None:
        """Records an ``llm_decision`` event: a decision point with its alternatives and confidence (0.0–1.0)."""
        try:
            alternatives = None
            if alternatives_considered is not None:
                alternatives = [to_text(entry) or "" for entry in alternatives_considered]
            self._emit(
                "llm_decision",
                occurred_at,
                estimated_cost,
                model,
                usage,
                duration_ms=duration_ms,
                reasoning=to_text(reasoning),
                alternativesConsidered=alternatives,
                confidence=confidence,
            )
        except Exception as error:  # noqa: BLE001
            self._report_failure(error)

    def state_change(
        self,
        from_: Optional[str] = None,
        to: Optional[str] = None,
        *,
        details: Optional[Mapping[str, Any]] = None,
        reasoning: Optional[str] = None,
        estimated_cost: Optional[float] = None,
        model: Optional[str] = None,
        usage: Optional[Mapping[str, int]] = None,
        occurred_at: Any = None,
        duration_ms: Optional[float] = None,
    ) -> None:
        """Records a ``state_change`` event; ``from_``, ``to`` and ``details`` go to ``toolInput`` (as ``from``,
        ``to`` and the details' own keys)."""
        try:
            state: Dict[str, Any] = dict(details) if details is not None else {}
            if from_ is not None:
                state["from"] = from_
            if to is not None:
                state["to"] = to
            self._emit(
                "state_change",
                occurred_at,
                estimated_cost,
                model,
                usage,
                duration_ms=duration_ms,
                toolInput=to_json_object(state) if state else None,
                reasoning=to_text(reasoning),
            )
        except Exception as error:  # noqa: BLE001
            self._report_failure(error)

    def error(
        self,
        error: Any,
        *,
        tool_name: Optional[str] = None,
        details: Optional[Mapping[str, Any]] = None,
        estimated_cost: Optional[float] = None,
        model: Optional[str] = None,
        usage: Optional[Mapping[str, int]] = None,
        occurred_at: Any = None,
        duration_ms: Optional[float] = None,
    ) -> None:
        """Records an ``error`` event from an exception (its type, message, traceback and cause) or a message.
        ``tool_name`` names the tool that failed (counted in the session's tool errors)."""
        try:
            if isinstance(error, BaseException):
                self._emit(
                    "error",
                    occurred_at,
                    estimated_cost,
                    model,
                    usage,
                    duration_ms=duration_ms,
                    reasoning=to_text(describe_error(error)),
                    toolName=to_text(tool_name),
                    toolInput=None if details is None else to_json_object(details),
                    toolOutput=to_json_object({"error": error}),
                )
            else:
                self._emit(
                    "error",
                    occurred_at,
                    estimated_cost,
                    model,
                    usage,
                    duration_ms=duration_ms,
                    reasoning=to_text(describe_error(error)),
                    toolName=to_text(tool_name),
                    toolInput=None if details is None else to_json_object(details),
                )
        except Exception as failure:  # noqa: BLE001
            self._report_failure(failure)

    def llm_call(
        self,
        model: str,
        *,
        reasoning: Optional[str] = None,
        prompt_tokens: Optional[int] = None,
        completion_tokens: Optional[int] = None,
        total_tokens: Optional[int] = None,
        usage: Optional[Mapping[str, int]] = None,
        estimated_cost: Optional[float] = None,
        duration_ms: Optional[float] = None,
        request: Optional[Mapping[str, Any]] = None,
        response: Optional[Mapping[str, Any]] = None,
        occurred_at: Any = None,
    ) -> None:
        """Records one language-model call as an ``llm_decision`` event and adds its tokens to the run's totals,
        sent with ``end`` unless ``end`` is given its own.

        ``model`` (trimmed; left out when empty or over 256 characters) and the token usage are the event's own
        ``model`` and ``usage``, from which the service prices the call unless ``estimated_cost`` (your own cost)
        is given. The counts may be given flat (``prompt_tokens``, ``completion_tokens``, ``total_tokens``) or as
        ``usage``, a mapping of ``prompt_tokens``, ``completion_tokens``, ``total_tokens``, ``cache_read_tokens``,
        ``cache_write_tokens``, ``reasoning_tokens`` (or their wire names, ``promptTokens``…), which wins for a
        count given both ways. OpenAI's convention: cache reads and writes are parts of the prompt tokens, reasoning
        a part of the completion tokens. A count that is not a non-negative integer up to 10^12, and any other key,
        is left out. As before, ``model`` and ``request`` also go to ``toolInput``, the counts (with a total),
        ``duration_ms`` and ``response`` to ``toolOutput``; ``duration_ms`` is also the event's own ``durationMs``
        (from ``occurred_at``, the call's start)."""
        try:
            counts = merged_usage(
                {"promptTokens": prompt_tokens, "completionTokens": completion_tokens, "totalTokens": total_tokens},
                usage,
            )
            prompt = None if counts is None else counts.get("promptTokens")
            completion = None if counts is None else counts.get("completionTokens")
            total = None if counts is None else counts.get("totalTokens")
            if total is None and (prompt is not None or completion is not None):
                total = (prompt or 0) + (completion or 0)
            output: Dict[str, Any] = {}
            if prompt is not None:
                output["promptTokens"] = prompt
            if completion is not None:
                output["completionTokens"] = completion
            if total is not None:
                output["totalTokens"] = total
            if duration_ms is not None:
                output["durationMs"] = duration_ms
            tool_input = dict(request) if request is not None else {}
            tool_input["model"] = model
            tool_output = dict(response) if response is not None else {}
            tool_output.update(output)
            self._emit(
                "llm_decision",
                occurred_at,
                estimated_cost,
                model,
                counts,
                duration_ms=duration_ms,
                reasoning=to_text(reasoning),
                toolInput=to_json_object(tool_input),
                toolOutput=to_json_object(tool_output) if tool_output else None,
            )
        except Exception as error:  # noqa: BLE001
            self._report_failure(error)

    @overload
    def wrap_tool(self, fn: F, *, name: Optional[str] = None) -> F: ...

    @overload
    def wrap_tool(self, fn: None = None, *, name: Optional[str] = None) -> Callable[[F], F]: ...

    def wrap_tool(self, fn: Optional[F] = None, *, name: Optional[str] = None) -> Union[F, Callable[[F], F]]:
        """``fn`` wrapped (or, without ``fn``, a decorator) so that every call records a ``tool_call`` on this run
        (the arguments by parameter name, ``{"result", "durationMs"}``, ``occurredAt`` at the call's start and its
        ``durationMs``) and, when it raises, an ``error`` event too (at the failure).
        Sync, ``async def`` and generator functions keep their kind; results and exceptions pass through."""
        from ._tools import instrument_tool

        if fn is None:
            return lambda inner: instrument_tool(inner, name, lambda: self)
        return instrument_tool(fn, name, lambda: self)

    # ---- verdicts ----

    def score(
        self,
        name: str,
        value: "ScoreValue",
        *,
        event_id: Optional[str] = None,
        comment: Optional[str] = None,
        data_type: Optional[str] = None,
        source: Optional[str] = None,
        id: Optional[str] = None,  # noqa: A002 - the score's id, as the API names it
    ) -> Optional[str]:
        """Records a verdict on this run, or on one of its events (``event_id``): a number, a boolean or a label,
        sent after the session's start with the events' retries. Allowed after ``end`` (a verdict often comes
        later). Returns the score's id (pass it as ``id`` to change the score), or ``None`` when nothing was queued
        (an unsampled run, or fields the service would refuse: reported to ``on_error``)."""
        return self._tracker._score_run(
            self, name, value, event_id=event_id, comment=comment, data_type=data_type, source=source, id=id
        )

    # ---- the end ----

    def end(
        self,
        status: Optional[str] = None,
        *,
        success: Optional[bool] = None,
        failure_reason: Optional[str] = None,
        estimated_cost: Optional[float] = None,
        duration_ms: Optional[float] = None,
        completed_at: Any = None,
        prompt_tokens: Optional[int] = None,
        completion_tokens: Optional[int] = None,
        total_tokens: Optional[int] = None,
        custom_metrics: Optional[Mapping[str, float]] = None,
    ) -> None:
        """Ends the session. ``status`` defaults to ``failed`` when ``success`` is false or a ``failure_reason`` is
        given, else ``completed``; duration, token totals and cost are filled in from the run unless given.
        Returns once queued (background mode) or delivered (immediate mode). A second call is reported and
        ignored."""
        future = self._queue_end(
            status, success, failure_reason, estimated_cost, duration_ms, completed_at,
            prompt_tokens, completion_tokens, total_tokens, custom_metrics,
        )  # fmt: skip
        if future is not None:
            self._tracker._wait_for(future)

    async def end_async(
        self,
        status: Optional[str] = None,
        *,
        success: Optional[bool] = None,
        failure_reason: Optional[str] = None,
        estimated_cost: Optional[float] = None,
        duration_ms: Optional[float] = None,
        completed_at: Any = None,
        prompt_tokens: Optional[int] = None,
        completion_tokens: Optional[int] = None,
        total_tokens: Optional[int] = None,
        custom_metrics: Optional[Mapping[str, float]] = None,
    ) -> None:
        """``end`` for ``async`` code: in immediate mode it awaits delivery without blocking the event loop."""
        future = self._queue_end(
            status, success, failure_reason, estimated_cost, duration_ms, completed_at,
            prompt_tokens, completion_tokens, total_tokens, custom_metrics,
        )  # fmt: skip
        if future is not None and self._tracker._can_wait():
            try:
                await asyncio.wrap_future(future)
            except Exception:  # noqa: BLE001 - never raised into the agent
                pass

    def _queue_end(
        self,
        status: Optional[str],
        success: Optional[bool],
        failure_reason: Optional[str],
        estimated_cost: Optional[float],
        duration_ms: Optional[float],
        completed_at: Any,
        prompt_tokens: Optional[int],
        completion_tokens: Optional[int],
        total_tokens: Optional[int],
        custom_metrics: Optional[Mapping[str, float]],
    ) -> "Optional[Future[None]]":
        try:
            with self._lock:
                if self._ended:
                    already = True
                else:
                    already = False
                    self._ended = True
            if already:
                self._tracker._report(AtsUsageError(f"Session {self.id} was already ended", self.id))
                return None
            failed = status == "failed" or (status is None and (success is False or failure_reason is not None))
            end_ms = now_ms()
            body: Dict[str, Any] = {
                "status": status if status is not None else ("failed" if failed else "completed"),
                "durationMs": duration_ms if duration_ms is not None else max(0, end_ms - self.started_at_ms),
                "completedAt": timestamp(end_ms / 1000 if completed_at is None else completed_at),
            }
            if success is not None:
                body["success"] = success
            reason = to_text(failure_reason)
            if reason is not None:
                body["failureReason"] = reason
            with self._lock:
                # The sum of the known costs is the session's cost only when the service priced none of its events.
                default_cost = self._cost if self._cost > 0 and not self._server_priced else None
                cost = estimated_cost if estimated_cost is not None else default_cost
                has_tokens = self._has_tokens
                totals = (self._prompt_tokens, self._completion_tokens, self._total_tokens)
            if cost is not None:
                body["estimatedCost"] = cost
            for key, given, total in (
                ("promptTokens", prompt_tokens, totals[0]),
                ("completionTokens", completion_tokens, totals[1]),
                ("totalTokens", total_tokens, totals[2]),
            ):
                if given is not None:
                    body[key] = given
                elif has_tokens:
                    body[key] = total
            if custom_metrics is not None:
                body["customMetrics"] = dict(custom_metrics)
            return self._tracker._end_run(self, body)
        except Exception as error:  # noqa: BLE001
            self._tracker._report(AtsUsageError(f"Could not end session {self.id}: {describe_error(error)}", self.id))
            return None

    # ---- context manager ----

    def __enter__(self) -> "Run":
        self._tokens.append(current_run_var.set(self))
        return self

    def __exit__(self, kind: Any, error: Any, traceback: Any) -> bool:
        self._leave()
        if not self._ended:
            if error is None:
                self.end("completed")
            else:
                self.end("failed", success=False, failure_reason=failure_reason_of(error))
        return False

    async def __aenter__(self) -> "Run":
        return self.__enter__()

    async def __aexit__(self, kind: Any, error: Any, traceback: Any) -> bool:
        self._leave()
        if not self._ended:
            if error is None:
                await self.end_async("completed")
            else:
                await self.end_async("failed", success=False, failure_reason=failure_reason_of(error))
        return False

    def _leave(self) -> None:
        if self._tokens:
            token = self._tokens.pop()
            try:
                current_run_var.reset(token)
            except ValueError:  # left in another context (a generator closed elsewhere, say)
                current_run_var.set(None)

    # ---- internals ----

    def _emit(
        self,
        event_type: str,
        occurred_at: Any,
        estimated_cost: Any,
        model: Any,
        usage: Any,
        duration_ms: Any = None,
        **fields: Any,
    ) -> None:
        event: Dict[str, Any] = {"sessionId": self.id, "eventType": event_type, "occurredAt": timestamp(occurred_at)}
        duration = event_duration_ms(duration_ms)
        if duration is not None:
            event["durationMs"] = duration
        for key, value in fields.items():
            if value is not None:
                event[key] = value
        cost = _non_negative(estimated_cost)
        if estimated_cost is not None:
            event["estimatedCost"] = estimated_cost
        name = event_model(model)
        counts = event_usage(usage)
        if name is not None:
            event["model"] = name
        if counts is not None:
            event["usage"] = counts
        with self._lock:
            if cost is not None:
                self._cost += cost
            if (name is not None or counts is not None) and estimated_cost is None:
                self._server_priced = True
            if counts is not None:
                self._add_tokens(counts)
        self._tracker._record(self, event)

    def _add_tokens(self, usage: Dict[str, int]) -> None:
        """Adds an event's usage to the run's totals (a missing total counts as prompt + completion); under the
        lock."""
        prompt = usage.get("promptTokens")
        completion = usage.get("completionTokens")
        total = usage.get("totalTokens")
        if prompt is None and completion is None and total is None:
            return
        self._has_tokens = True
        self._prompt_tokens += prompt or 0
        self._completion_tokens += completion or 0
        self._total_tokens += total if total is not None else (prompt or 0) + (completion or 0)

    def _report_failure(self, error: BaseException) -> None:
        self._tracker._report(
            AtsUsageError(f"Could not record an event of session {self.id}: {describe_error(error)}", self.id)
        )

