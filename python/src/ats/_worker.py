"""The client's one background thread: a daemon running an asyncio event loop, started lazily on first use, that
sends every request. After ``os.fork()`` the child starts its own on first use (the parent's thread does not exist
there)."""

from __future__ import annotations

import asyncio
import os
import threading
from typing import Any, Callable, Optional


class Worker:
    """Starts the delivery thread when first needed and hands it callbacks."""

    def __init__(self, name: str, on_internal_error: Callable[[str], None]) -> None:
        self.name = name
        self.on_internal_error = on_internal_error
        self._lock = threading.Lock()
        self._loop: Optional[asyncio.AbstractEventLoop] = None
        self._thread: Optional[threading.Thread] = None
        self._pid = os.getpid()

    @property
    def started(self) -> bool:
        """Whether the thread runs (in this process)."""
        return self._thread is not None and self._pid == os.getpid()

    def in_worker_thread(self) -> bool:
        """Whether the caller is the delivery thread itself (where waiting for delivery would deadlock)."""
        thread = self._thread
        return thread is not None and threading.current_thread() is thread

    def call_soon(self, callback: Callable[..., Any], *args: Any) -> bool:
        """Runs ``callback(*args)`` on the delivery thread; ``False`` when it cannot run (closed, or the interpreter
        is exiting and no thread can start)."""
        loop = self._ensure_loop()
        if loop is None:
            return False
        try:
            loop.call_soon_threadsafe(callback, *args)
            return True
        except RuntimeError:
            return False

    def reset_after_fork(self) -> None:
        """In a forked child: forget the parent's thread and loop (they do not exist here)."""
        self._lock = threading.Lock()
        self._loop = None
        self._thread = None
        self._pid = os.getpid()

    def _ensure_loop(self) -> Optional[asyncio.AbstractEventLoop]:
        loop = self._loop
        if loop is not None and self._pid == os.getpid():
            return loop
        with self._lock:
            if self._pid != os.getpid():
                self.reset_after_fork()
            if self._loop is not None:
                return self._loop
            loop = asyncio.new_event_loop()
            loop.set_exception_handler(self._exception_handler)
            thread = threading.Thread(target=self._run, args=(loop,), name=self.name, daemon=True)
            try:
                thread.start()
            except RuntimeError:
                loop.close()
                return None
            self._loop = loop
            self._thread = thread
            return loop

    def _run(self, loop: asyncio.AbstractEventLoop) -> None:
        asyncio.set_event_loop(loop)
        try:
            loop.run_forever()
        except BaseException as error:  # noqa: BLE001 - the thread must report, not print a traceback
            self.on_internal_error(f"the delivery thread stopped: {error!r}")

    def _exception_handler(self, loop: asyncio.AbstractEventLoop, context: dict) -> None:
        error = context.get("exception")
        message = context.get("message", "")
        self.on_internal_error(f"{message} {error!r}".strip() if error is not None else str(message))
