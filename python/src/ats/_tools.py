"""Tool instrumentation shared by ``wrap_tool`` and ``Run.wrap_tool``: each call records a ``tool_call`` (the
arguments by parameter name, the result, the duration; ``occurredAt`` at the call's start and its ``durationMs``)
and an ``error`` event when it raises, for plain, ``async def``, generator and async generator functions alike."""

from __future__ import annotations

import functools
import inspect
import time
from typing import TYPE_CHECKING, Any, Callable, Dict, Optional, Tuple

from ._json_value import to_json_object
from ._run import describe_error
from ._times import iso_of_ms, now_ms

if TYPE_CHECKING:
    from ._run import Run

# Items of a generator tool kept in its recorded output (the count is always recorded).
MAX_RECORDED_ITEMS = 100


def _arguments_of(signature: Optional[inspect.Signature], args: Tuple[Any, ...], kwargs: Dict[str, Any]) -> Any:
    """The call's arguments by parameter name (without ``self``/``cls``), as JSON taken before the call (a tool
    that changes its input does not change what was recorded); ``{"args", "kwargs"}`` when they cannot be bound."""
    return to_json_object(_bound(signature, args, kwargs))


def _bound(signature: Optional[inspect.Signature], args: Tuple[Any, ...], kwargs: Dict[str, Any]) -> Any:
    if signature is not None:
        try:
            bound = signature.bind_partial(*args, **kwargs)
            arguments = dict(bound.arguments)
            first = next(iter(signature.parameters), None)
            if first in ("self", "cls"):
                arguments.pop(first, None)
            return arguments
        except TypeError:
            pass
    out: Dict[str, Any] = {}
    if args:
        out["args"] = list(args)
    if kwargs:
        out["kwargs"] = kwargs
    return out


class _Start:
    """When a call started: the wall clock (the event's ``occurredAt``) and the monotonic one (its duration)."""

    __slots__ = ("wall_ms", "monotonic")

    def __init__(self) -> None:
        self.wall_ms = now_ms()
        self.monotonic = time.perf_counter()


def _record(run: "Run", name: str, arguments: Any, started: _Start, outcome: Dict[str, Any]) -> None:
    duration_ms = round((time.perf_counter() - started.monotonic) * 1000, 3)
    failed = "error" in outcome
    output = dict(outcome)
    output["durationMs"] = duration_ms
    # The event spans the call: from its start, for as long as it took (the error event is at its end).
    run.tool_call(name, arguments, output, occurred_at=iso_of_ms(started.wall_ms), duration_ms=duration_ms)
    if failed:
        run.error(outcome["error"], tool_name=name)


def instrument_tool(fn: Any, name: Optional[str], run_of: Callable[[], "Optional[Run]"]) -> Any:
    """``fn`` recording each call on ``run_of()`` (evaluated at call time; outside any run ``fn`` is just
    called)."""
    tool_name = name or getattr(fn, "__name__", None) or "tool"
    try:
        signature: Optional[inspect.Signature] = inspect.signature(fn)
    except (TypeError, ValueError):
        signature = None

    if inspect.isasyncgenfunction(fn):

        @functools.wraps(fn)
        async def async_generator_tool(*args: Any, **kwargs: Any) -> Any:
            run = run_of()
            if run is None:
                async for item in fn(*args, **kwargs):
                    yield item
                return
            arguments = _arguments_of(signature, args, kwargs)
            started = _Start()
            items: list = []
            count = 0
            try:
                async for item in fn(*args, **kwargs):
                    count += 1
                    if count <= MAX_RECORDED_ITEMS:
                        items.append(item)
                    yield item
            except BaseException as error:
                _record(run, tool_name, arguments, started, {"error": error, "items": items, "itemCount": count})
                raise
            _record(run, tool_name, arguments, started, {"result": items, "itemCount": count})

        return async_generator_tool

    if inspect.isgeneratorfunction(fn):

        @functools.wraps(fn)
        def generator_tool(*args: Any, **kwargs: Any) -> Any:
            run = run_of()
            if run is None:
                return (yield from fn(*args, **kwargs))
            arguments = _arguments_of(signature, args, kwargs)
            started = _Start()
            items: list = []
            count = 0
            generator = fn(*args, **kwargs)
            try:
                while True:
                    try:
                        item = next(generator)
                    except StopIteration as stop:
                        _record(run, tool_name, arguments, started, {"result": items, "itemCount": count})
                        return stop.value
                    count += 1
                    if count <= MAX_RECORDED_ITEMS:
                        items.append(item)
                    yield item
            except GeneratorExit:
                generator.close()
                _record(run, tool_name, arguments, started, {"result": items, "itemCount": count, "closed": True})
                raise
            except BaseException as error:
                _record(run, tool_name, arguments, started, {"error": error, "items": items, "itemCount": count})
                raise

        return generator_tool

    if inspect.iscoroutinefunction(fn):

        @functools.wraps(fn)
        async def async_tool(*args: Any, **kwargs: Any) -> Any:
            run = run_of()
            if run is None:
                return await fn(*args, **kwargs)
            arguments = _arguments_of(signature, args, kwargs)
            started = _Start()
            try:
                result = await fn(*args, **kwargs)
            except BaseException as error:
                _record(run, tool_name, arguments, started, {"error": error})
                raise
            _record(run, tool_name, arguments, started, {"result": result})
            return result

        return async_tool

    @functools.wraps(fn)
    def tool(*args: Any, **kwargs: Any) -> Any:
        run = run_of()
        if run is None:
            return fn(*args, **kwargs)
        arguments = _arguments_of(signature, args, kwargs)
        started = _Start()
        try:
            result = fn(*args, **kwargs)
        except BaseException as error:
            _record(run, tool_name, arguments, started, {"error": error})
            raise
        _record(run, tool_name, arguments, started, {"result": result})
        return result

    return tool


__all__ = ["describe_error", "instrument_tool"]
