"""Streams: the ``Stream``/``AsyncStream`` an OpenAI call returns is handed back behind a thin wrapper that passes
every item through (``for``/``async for``, ``next``, ``with``, ``close()``, ``response`` and every other
attribute) while accumulating the answer and the usage. The call is recorded once: when the stream ends, fails,
or is left early (``break``, ``close()``, leaving the ``with`` block)."""

from __future__ import annotations

import inspect
import time
from typing import Any, AsyncIterator, Dict, Iterator, Optional

from ._calls import CallOutcome, CallState, chat_outcome, record_failure, record_outcome, responses_outcome
from ._summary import SummaryPart, field

# Most characters of streamed text kept for the summary (it shows far fewer).
KEPT_CHARS = 4096


def _append(kept: str, more: Any) -> str:
    if not isinstance(more, str) or len(kept) >= KEPT_CHARS:
        return kept
    return (kept + more)[:KEPT_CHARS]


class StreamReportedError(Exception):
    """An error a stream reported in its events rather than by failing (Responses ``error``,
    ``response.failed``)."""


class _ChatAccumulator:
    def __init__(self, hide_usage: bool) -> None:
        self.hide_usage = hide_usage
        self.id: Optional[str] = None
        self.model: Optional[str] = None
        self.content = ""
        self.tool_calls: Dict[int, Dict[str, str]] = {}
        self.finish_reason: Optional[str] = None
        self.usage: Any = None

    def observe(self, chunk: Any) -> bool:
        if self.id is None and isinstance(field(chunk, "id"), str):
            self.id = field(chunk, "id")
        if self.model is None and isinstance(field(chunk, "model"), str):
            self.model = field(chunk, "model")
        usage = field(chunk, "usage")
        if usage is not None:
            self.usage = usage
        choices = field(chunk, "choices")
        # What include_usage adds: a last chunk with the usage and no choices.
        if self.hide_usage and usage is not None and isinstance(choices, (list, tuple)) and not choices:
            return False
        for choice in choices or []:
            if (field(choice, "index") or 0) != 0:
                continue
            if isinstance(field(choice, "finish_reason"), str):
                self.finish_reason = field(choice, "finish_reason")
            delta = field(choice, "delta")
            self.content = _append(self.content, field(delta, "content"))
            self.content = _append(self.content, field(delta, "refusal"))
            for call in field(delta, "tool_calls") or []:
                index = field(call, "index")
                entry = self.tool_calls.setdefault(index if isinstance(index, int) else 0, {"name": "", "args": ""})
                function = field(call, "function")
                entry["name"] = _append(entry["name"], field(function, "name"))
                entry["args"] = _append(entry["args"], field(function, "arguments"))
        return True

    def outcome(self) -> CallOutcome:
        message = {
            "role": "assistant",
            "content": self.content,
            "tool_calls": [{"function": {"name": c["name"], "arguments": c["args"]}} for c in self.tool_calls.values()],
        }
        outcome = chat_outcome(
            {"id": self.id, "model": self.model, "choices": [{"message": message, "finish_reason": self.finish_reason}]}
        )
        usage = chat_outcome({"usage": self.usage})
        outcome.usage = usage.usage
        outcome.event_usage = usage.event_usage
        return outcome

    def failure(self) -> Optional[str]:
        return None


class _ResponsesAccumulator:
    def __init__(self) -> None:
        self.id: Optional[str] = None
        self.model: Optional[str] = None
        self.text = ""
        self.final: Any = None
        self.error: Optional[str] = None

    def observe(self, event: Any) -> bool:
        response = field(event, "response")
        if response is not None:
            if isinstance(field(response, "id"), str):
                self.id = field(response, "id")
            if isinstance(field(response, "model"), str):
                self.model = field(response, "model")
        kind = field(event, "type")
        if kind == "response.output_text.delta":
            self.text = _append(self.text, field(event, "delta"))
        elif kind in ("response.completed", "response.incomplete", "response.failed"):
            self.final = response
            if kind == "response.failed":
                message = field(field(response, "error"), "message")
                self.error = message if isinstance(message, str) else "The response failed"
        elif kind == "error":
            message = field(event, "message")
            self.error = message if isinstance(message, str) else "The stream reported an error"
        return True

    def outcome(self) -> CallOutcome:
        outcome = responses_outcome(self.final if self.final is not None else {"id": self.id, "model": self.model})
        if not outcome.answer and self.text:
            outcome.answer = [SummaryPart("assistant", self.text)]
        return outcome

    def failure(self) -> Optional[str]:
        return self.error


class StreamTracker:
    """Records one stream's call once, however it ends."""

    def __init__(self, call: CallState) -> None:
        self.call = call
        self.accumulator: Any = (
            _ChatAccumulator(call.injected_stream_usage) if call.api == "chat.completions" else _ResponsesAccumulator()
        )
        self.ended = False
        self.first_item_at: Optional[float] = None

    def observe(self, item: Any) -> bool:
        """Takes one item; ``False`` hides it from the caller."""
        if self.first_item_at is None:
            self.first_item_at = time.perf_counter()
        try:
            return bool(self.accumulator.observe(item))
        except Exception:  # noqa: BLE001
            return True

    def finish(self, end: str, error: Any = None) -> None:
        """Records the call: ``completed``, ``abandoned`` or ``failed`` (with ``error``)."""
        if self.ended:
            return
        self.ended = True
        try:
            outcome = self.accumulator.outcome()
            extra: Dict[str, Any] = {"streamEnd": end}
            if self.first_item_at is not None:
                extra["timeToFirstChunkMs"] = round((self.first_item_at - self.call.started) * 1000, 3)
            record_outcome(self.call, outcome, extra)
            model = outcome.model or self.call.requested_model
            if end == "failed":
                record_failure(self.call, error, model)
            failure = self.accumulator.failure()
            if failure is not None and end != "failed":
                record_failure(self.call, StreamReportedError(failure), model)
        except Exception:  # noqa: BLE001 - recording never fails the agent's stream
            pass


class TrackedStream:
    """A sync ``Stream`` recorded as it is read; it passes for the stream (``isinstance`` included)."""

    def __init__(self, stream: Any, tracker: StreamTracker) -> None:
        object.__setattr__(self, "_stream", stream)
        object.__setattr__(self, "_tracker", tracker)
        object.__setattr__(self, "_iterator", None)

    @property
    def __class__(self) -> type:  # type: ignore[override]  # isinstance(stream, openai.Stream) stays true
        return type(self._stream)

    def __iter__(self) -> Iterator[Any]:
        tracker = self._tracker
        try:
            for item in self._stream:
                if tracker.observe(item):
                    yield item
        except GeneratorExit:
            tracker.finish("abandoned")
            raise
        except BaseException as error:
            tracker.finish("failed", error)
            raise
        tracker.finish("completed")

    def __next__(self) -> Any:
        iterator = self._iterator
        if iterator is None:
            iterator = self.__iter__()
            object.__setattr__(self, "_iterator", iterator)
        return next(iterator)

    def __enter__(self) -> "TrackedStream":
        return self

    def __exit__(self, *exc_info: Any) -> None:
        self.close()

    def close(self) -> None:
        """Closes the stream (recording it, if not yet ended, as left early)."""
        self._tracker.finish("abandoned")
        close = getattr(self._stream, "close", None)
        if callable(close):
            close()

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)

    def __setattr__(self, name: str, value: Any) -> None:
        setattr(self._stream, name, value)


class TrackedAsyncStream:
    """An ``AsyncStream`` recorded as it is read; it passes for the stream (``isinstance`` included)."""

    def __init__(self, stream: Any, tracker: StreamTracker) -> None:
        object.__setattr__(self, "_stream", stream)
        object.__setattr__(self, "_tracker", tracker)
        object.__setattr__(self, "_iterator", None)

    @property
    def __class__(self) -> type:  # type: ignore[override]  # isinstance(stream, openai.AsyncStream) stays true
        return type(self._stream)

    async def __aiter__(self) -> AsyncIterator[Any]:
        tracker = self._tracker
        try:
            async for item in self._stream:
                if tracker.observe(item):
                    yield item
        except GeneratorExit:
            tracker.finish("abandoned")
            raise
        except BaseException as error:
            tracker.finish("failed", error)
            raise
        tracker.finish("completed")

    async def __anext__(self) -> Any:
        iterator = self._iterator
        if iterator is None:
            iterator = self.__aiter__()
            object.__setattr__(self, "_iterator", iterator)
        return await iterator.__anext__()

    async def __aenter__(self) -> "TrackedAsyncStream":
        return self

    async def __aexit__(self, *exc_info: Any) -> None:
        await self.close()

    async def close(self) -> None:
        """Closes the stream (recording it, if not yet ended, as left early)."""
        self._tracker.finish("abandoned")
        close = getattr(self._stream, "close", None)
        if callable(close):
            result = close()
            if inspect.isawaitable(result):
                await result

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)

    def __setattr__(self, name: str, value: Any) -> None:
        setattr(self._stream, name, value)
