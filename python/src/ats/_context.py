"""The current run, carried by ``contextvars``: through ``await``, into asyncio tasks (they copy the context when
created), and into threads started with ``contextvars.copy_context().run`` or ``asyncio.to_thread``."""

from __future__ import annotations

import contextvars
from typing import TYPE_CHECKING, Optional

if TYPE_CHECKING:
    from ._run import Run

current_run_var: "contextvars.ContextVar[Optional[Run]]" = contextvars.ContextVar("ats_current_run", default=None)


def current_run() -> "Optional[Run]":
    """The run of the innermost ``with run:`` / ``@ats.trace`` / ``ats.run_with`` around the caller, or ``None``."""
    return current_run_var.get()
