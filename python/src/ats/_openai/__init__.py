"""``wrap_openai(client)``: the ``openai`` package's client (``OpenAI`` or ``AsyncOpenAI``, or anything shaped like
them), recording each chat completion and Responses API call into the current run. No dependency on ``openai``:
the client and its answers are read through their public attributes."""

from __future__ import annotations

import inspect
from typing import TYPE_CHECKING, Any, Dict, Optional, TypeVar

from .._context import current_run
from ._calls import CallState, WrapOptions, chat_outcome, record_failure, record_outcome, responses_outcome, start_call
from ._pricing import CostFunction, LlmUsage, ModelPrice, PriceTable
from ._streams import StreamTracker, TrackedAsyncStream, TrackedStream

if TYPE_CHECKING:
    from .._run import Run

C = TypeVar("C")

__all__ = ["LlmUsage", "ModelPrice", "wrap_openai"]

# The attributes below the client that lead to a recorded ``create``, by path.
_CHILDREN: Dict[str, Dict[str, str]] = {
    "": {"chat": "chat", "responses": "responses"},
    "chat": {"completions": "chat.completions"},
}
_RECORDED = {"chat.completions", "responses"}


def wrap_openai(
    client: C,
    *,
    run: "Optional[Run]" = None,
    capture_content: bool = True,
    prices: Optional[PriceTable] = None,
    cost: Optional[CostFunction] = None,
    include_stream_usage: bool = True,
) -> C:
    """Returns ``client`` wrapped so that every ``client.chat.completions.create(...)`` and
    ``client.responses.create(...)`` (sync or async, streaming included) made inside a run (``@ats.trace``,
    ``with run:``, ``ats.run_with``, or ``run=``) is recorded as one ``llm_decision`` event: the event's ``model``
    (the one the response names) and ``usage`` (OpenAI's counts: prompt, completion and total tokens, cached prompt
    tokens as ``cacheReadTokens``, reasoning tokens as ``reasoningTokens``; added to the run's totals), from which
    the service prices the call with its own table; the duration; and, unless ``capture_content=False``, a short
    transcript of the messages and the answer as ``reasoning``. A call that fails records an ``error`` event and
    the exception is re-raised unchanged.

    ``prices`` and ``cost`` are optional overrides: without them no ``estimated_cost`` is sent and the service
    prices the call. With them, a call they price is sent with that ``estimated_cost`` (``cost(model, usage)``
    first, else ``prices``: per model, per million tokens, a model matched by its exact name, else by the longest
    key that is a prefix of it), which the service keeps as reported; a model they do not price is left to the
    service.

    The wrapper is a proxy: your client is not modified, ``isinstance(wrapped, OpenAI)`` still holds, and every
    other attribute passes through (``with_options(...)`` returns a wrapped client). Streams come back as the
    same stream behind a proxy and are recorded when they end, fail or are left early. For chat streams the
    wrapper asks for usage (``stream_options={"include_usage": True}``) when the request does not say, and hides
    the usage-only chunk that adds; pass ``include_stream_usage=False`` for servers that refuse it (such streams
    are recorded with their model but without usage, so the service cannot price them).

    Outside any run (and without ``run=``) calls pass through unrecorded. Recording never raises into your code.
    """
    options = WrapOptions(run, bool(capture_content), prices, cost, bool(include_stream_usage))
    return _ClientProxy(client, "", options)  # type: ignore[return-value]


class _ClientProxy:
    __slots__ = ("_ats_target", "_ats_path", "_ats_options", "_ats_cache")

    def __init__(self, target: Any, path: str, options: WrapOptions) -> None:
        object.__setattr__(self, "_ats_target", target)
        object.__setattr__(self, "_ats_path", path)
        object.__setattr__(self, "_ats_options", options)
        object.__setattr__(self, "_ats_cache", {})

    @property
    def __class__(self) -> type:  # type: ignore[override]  # isinstance(wrapped, OpenAI) stays true
        return type(self._ats_target)

    def __getattr__(self, name: str) -> Any:
        value = getattr(self._ats_target, name)
        cache = self._ats_cache
        hit = cache.get(name)
        if hit is not None and hit[0] is value:
            return hit[1]
        wrapped = self._wrap(name, value)
        if wrapped is not value:
            cache[name] = (value, wrapped)
        return wrapped

    def _wrap(self, name: str, value: Any) -> Any:
        path = self._ats_path
        child = _CHILDREN.get(path, {}).get(name)
        if child is not None and value is not None:
            return _ClientProxy(value, child, self._ats_options)
        if path in _RECORDED and name == "create" and callable(value):
            return _recorded_create(path, value, self._ats_options)
        if path == "" and name in ("with_options", "copy") and callable(value):
            options = self._ats_options

            def derived(*args: Any, **kwargs: Any) -> Any:
                return _ClientProxy(value(*args, **kwargs), "", options)

            return derived
        return value

    def __setattr__(self, name: str, value: Any) -> None:
        setattr(self._ats_target, name, value)

    def __dir__(self) -> Any:
        return dir(self._ats_target)

    def __repr__(self) -> str:
        return repr(self._ats_target)


def _recorded_create(api: str, create: Any, options: WrapOptions) -> Any:
    def recorded_create(*args: Any, **kwargs: Any) -> Any:
        run = options.run or current_run()
        if run is None:
            return create(*args, **kwargs)
        try:
            call = start_call(api, kwargs, run, options)
        except Exception:  # noqa: BLE001 - an unreadable request is sent unrecorded
            return create(*args, **kwargs)
        try:
            result = create(*args, **call.kwargs)
        except BaseException as error:
            record_failure(call, error)
            raise
        if inspect.isawaitable(result):
            return _settle_async(result, call)
        return _settle(result, call)

    recorded_create.__name__ = getattr(create, "__name__", "create")
    recorded_create.__doc__ = getattr(create, "__doc__", None)
    return recorded_create


def _settle(value: Any, call: CallState) -> Any:
    """What a call returned: a stream is handed back instrumented, a response recorded."""
    if call.stream:
        if hasattr(value, "__aiter__"):
            return TrackedAsyncStream(value, StreamTracker(call))
        if hasattr(value, "__iter__"):
            return TrackedStream(value, StreamTracker(call))
    record_outcome(call, chat_outcome(value) if call.api == "chat.completions" else responses_outcome(value))
    return value


async def _settle_async(awaitable: Any, call: CallState) -> Any:
    try:
        value = await awaitable
    except BaseException as error:
        record_failure(call, error)
        raise
    return _settle(value, call)
