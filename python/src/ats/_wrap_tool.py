"""``wrap_tool`` without a run at hand: records into whichever run is current when the tool is called."""

from __future__ import annotations

from typing import Any, Callable, Optional, TypeVar, Union, overload

from ._context import current_run
from ._tools import instrument_tool

F = TypeVar("F", bound=Callable[..., Any])


@overload
def wrap_tool(fn: F, *, name: Optional[str] = None) -> F: ...


@overload
def wrap_tool(fn: None = None, *, name: Optional[str] = None) -> Callable[[F], F]: ...


def wrap_tool(fn: Optional[F] = None, *, name: Optional[str] = None) -> Union[F, Callable[[F], F]]:
    """Decorator (``@wrap_tool`` or ``@wrap_tool(name="search")``): each call records a ``tool_call`` on the run
    current at call time (``@ats.trace``, ``with run:``, ``ats.run_with``) with the arguments by parameter name,
    ``{"result", "durationMs"}``, and an ``error`` event when the tool raises. Outside any run the function is
    simply called. Plain, ``async def`` and generator functions keep their kind; results and exceptions pass
    through unchanged."""
    if fn is None:
        return lambda inner: instrument_tool(inner, name, current_run)
    return instrument_tool(fn, name, current_run)
