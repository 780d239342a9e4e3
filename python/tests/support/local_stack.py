"""The real local stack (DynamoDB Local + ``local/start.ts``, the service's own handlers) for integration and
fault tests, run by ``test/python/stack-controller.ts`` on the repository's Node (≥ 22): ``ATS_TEST_NODE``, else
``node_modules/.bin/node``. One stack per test process, started on first use and closed at exit; the controller
also closes it (killing both processes by pid) when this process dies, since its stdin then ends."""

from __future__ import annotations

import atexit
import json
import os
import queue
import subprocess
import threading
import time
import unittest
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any, Dict, List, Optional, Tuple

REPOSITORY = Path(__file__).resolve().parents[3]
CONTROLLER = "test/python/stack-controller.ts"


def node_binary() -> str:
    """A Node ≥ 22 that can run the stack; raises ``unittest.SkipTest`` saying why when there is none."""
    candidate = os.environ.get("ATS_TEST_NODE") or str(REPOSITORY / "node_modules" / ".bin" / "node")
    if not (REPOSITORY / "node_modules" / "tsx").exists():
        raise unittest.SkipTest("the local stack needs the repository's node_modules (npm ci)")
    try:
        version = subprocess.run([candidate, "--version"], capture_output=True, text=True, timeout=30).stdout.strip()
    except OSError:
        raise unittest.SkipTest(f"no Node at {candidate} (set ATS_TEST_NODE)") from None
    if int(version.lstrip("v").split(".")[0] or 0) < 22:
        raise unittest.SkipTest(f"the local stack needs Node >= 22, {candidate} is {version}")
    return candidate


class LocalStack:
    """A running stack: ``api_url``, ``api_key``, ``command(...)`` to kill/restart its parts, ``get(path)``."""

    _shared: Optional["LocalStack"] = None

    @classmethod
    def shared(cls) -> "LocalStack":
        """The process's stack, started on first use (about 10 s)."""
        if cls._shared is None:
            cls._shared = LocalStack()
            atexit.register(cls._shared.close)
        return cls._shared

    def __init__(self) -> None:
        node = node_binary()
        self.process = subprocess.Popen(
            [node, "--import", "tsx", CONTROLLER],
            cwd=REPOSITORY,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
        )
        self.lines: "queue.Queue[Optional[str]]" = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()
        ready = self._answer(240)
        self.api_url: str = ready["apiUrl"]
        self.api_key: str = ready["apiKey"]

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            self.lines.put(line)
        self.lines.put(None)

    def _answer(self, timeout: float) -> Dict[str, Any]:
        deadline = time.monotonic() + timeout
        while True:
            try:
                line = self.lines.get(timeout=max(0.1, deadline - time.monotonic()))
            except queue.Empty:
                raise RuntimeError(f"the stack controller did not answer within {timeout} s") from None
            if line is None:
                raise RuntimeError(f"the stack controller exited ({self.process.poll()})")
            if line.startswith("{"):
                return json.loads(line)

    def command(self, name: str, timeout: float = 120) -> Dict[str, Any]:
        """``kill-api``, ``start-api``, ``stop-dynamo`` or ``start-dynamo``; raises when it failed."""
        assert self.process.stdin is not None
        self.process.stdin.write(name + "\n")
        self.process.stdin.flush()
        answer = self._answer(timeout)
        if not answer.get("ok"):
            raise RuntimeError(f"{name}: {answer.get('error')}")
        return answer

    def get(self, path: str) -> Tuple[int, Any]:
        """``GET path`` with the stack's key: (status, JSON body)."""
        request = urllib.request.Request(self.api_url + path, headers={"Authorization": f"Bearer {self.api_key}"})
        try:
            with urllib.request.urlopen(request, timeout=30) as response:
                return response.status, json.loads(response.read())
        except urllib.error.HTTPError as error:
            return error.code, json.loads(error.read() or b"null")

    def events(self, session_id: str) -> List[Dict[str, Any]]:
        """Every event of a session, through the read API's pages."""
        events: List[Dict[str, Any]] = []
        cursor: Optional[str] = None
        while True:
            query = "" if cursor is None else "?cursor=" + urllib.request.quote(cursor)
            status, page = self.get(f"/api/sdk/sessions/{session_id}/events{query}")
            if status != 200:
                raise AssertionError(f"GET events of {session_id}: {status} {page}")
            events.extend(page["items"])
            cursor = page.get("nextCursor")
            if cursor is None:
                return events

    def session_when_counted(self, session_id: str, event_count: int, timeout: float = 30) -> Dict[str, Any]:
        """The session once the stream consumer has counted ``event_count`` events (counters follow the stream a
        moment after the events are stored)."""
        deadline = time.monotonic() + timeout
        while True:
            status, session = self.get(f"/api/sdk/sessions/{session_id}")
            if status == 200 and session.get("eventCount") == event_count and session.get("status") != "active":
                return session
            if time.monotonic() > deadline:
                return session
            time.sleep(0.2)

    def close(self) -> None:
        """Closes the stack (the controller kills both processes by pid) and waits for the controller."""
        try:
            self._close()
        finally:
            if self.process.stdout is not None:
                self.process.stdout.close()

    def _close(self) -> None:
        if self.process.poll() is not None:
            return
        try:
            assert self.process.stdin is not None
            self.process.stdin.write("close\n")
            self.process.stdin.flush()
            self.process.stdin.close()
            self.process.wait(60)
        except (OSError, subprocess.TimeoutExpired):
            self.process.kill()
            self.process.wait()
