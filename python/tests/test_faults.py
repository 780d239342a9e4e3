"""Delivery through outages of the real local stack, like the TypeScript client's fault tests: the server killed
and restarted mid-stream, DynamoDB Local stopped and restarted, and a dead URL. Every event is stored exactly once
with exact counters, nothing is raised into the agent, and ``shutdown(timeout=2)`` returns within its timeout."""

from __future__ import annotations

import socket
import sys
import threading
import time
import unittest
from typing import List

from ats import AgentTracker, AtsError, Run
from tests.support.local_stack import LocalStack

SESSIONS = 10
EVENTS_PER_RUN = 30
GAP = 0.1


def report(line: str) -> None:
    """One line for the record (the suite's output; the closing note quotes these)."""
    sys.stderr.write(f"\n[faults] {line}\n")


class Traffic:
    """``SESSIONS`` agent threads, started ``GAP * EVENTS_PER_RUN / 2 / SESSIONS`` apart, each recording
    ``EVENTS_PER_RUN`` numbered tool calls ``GAP`` apart and then ending its run."""

    def __init__(self, ats: AgentTracker, agent_name: str) -> None:
        self.runs: List[Run] = []
        self.raised: List[BaseException] = []
        self.threads: List[threading.Thread] = []
        self.ats = ats
        self.agent_name = agent_name
        self.starter = threading.Thread(target=self._start)
        self.starter.start()

    def _start(self) -> None:
        for index in range(SESSIONS):
            run = self.ats.start_session(f"run {index}", self.agent_name, f"user-{index % 3}")
            self.runs.append(run)
            thread = threading.Thread(target=self._agent, args=(run,))
            thread.start()
            self.threads.append(thread)
            time.sleep(GAP * EVENTS_PER_RUN / 2 / SESSIONS)

    def _agent(self, run: Run) -> None:
        try:
            for step in range(EVENTS_PER_RUN):
                run.tool_call("search" if step % 2 == 0 else "fetch", {"step": step}, estimated_cost=0.25)
                time.sleep(GAP)
            run.end("completed")
        except BaseException as error:  # noqa: BLE001 - the test asserts there is none
            self.raised.append(error)

    def wait(self) -> None:
        self.starter.join()
        for thread in self.threads:
            thread.join()


class FaultsTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls) -> None:
        cls.stack = LocalStack.shared()

    def setUp(self) -> None:
        self.errors: List[AtsError] = []

    def tracker(self) -> AgentTracker:
        return AgentTracker(
            api_key=self.stack.api_key, base_url=self.stack.api_url, on_error=self.errors.append, flush_interval=0.2
        )

    def assert_stored_exactly_once(self, runs: List[Run], events_per_run: int) -> None:
        for run in runs:
            session = self.stack.session_when_counted(run.id, events_per_run)
            half = events_per_run / 2
            self.assertEqual(
                {key: session.get(key) for key in ("status", "eventCount", "eventCost", "toolCalls")},
                {
                    "status": "completed",
                    "eventCount": events_per_run,
                    "eventCost": events_per_run * 0.25,
                    "toolCalls": {"search": int(half + 0.5), "fetch": int(half)},
                },
                run.id,
            )
            steps = sorted(event["toolInput"]["step"] for event in self.stack.events(run.id))
            self.assertEqual(steps, list(range(events_per_run)), run.id)

    def test_the_server_killed_and_restarted_mid_stream(self) -> None:
        ats = self.tracker()
        traffic = Traffic(ats, "py-server-restart")
        time.sleep(1)
        self.stack.command("kill-api")
        try:
            time.sleep(1)
            born_offline = ats.start_session("born offline", "py-server-restart", "u")
            born_offline.tool_call("search", {"step": 0}, estimated_cost=0.25)
            born_offline.tool_call("fetch", {"step": 1}, estimated_cost=0.25)
            born_offline.end()
        finally:
            self.stack.command("start-api")
        traffic.wait()
        stats = ats.shutdown(120)
        report(
            f"server restart: sent {stats.events_recorded}, delivered {stats.events_delivered}, failed "
            f"{stats.events_failed}, dropped {stats.events_dropped}, requests {stats.requests}, retries {stats.retries}"
        )
        self.assertEqual(traffic.raised, [])
        self.assertEqual(self.errors, [])
        self.assertEqual(
            (stats.events_recorded, stats.events_delivered, stats.events_failed, stats.events_dropped), (302, 302, 0, 0)
        )
        self.assertGreater(stats.retries, 0)
        self.assert_stored_exactly_once(traffic.runs, EVENTS_PER_RUN)
        self.assert_stored_exactly_once([born_offline], 2)

    def test_dynamodb_local_stopped_and_restarted_mid_stream(self) -> None:
        ats = self.tracker()
        traffic = Traffic(ats, "py-dynamodb-restart")
        time.sleep(1)
        self.stack.command("stop-dynamo")
        try:
            time.sleep(1.5)
        finally:
            self.stack.command("start-dynamo")
        traffic.wait()
        stats = ats.shutdown(120)
        report(
            f"dynamodb restart: sent {stats.events_recorded}, delivered {stats.events_delivered}, failed "
            f"{stats.events_failed}, dropped {stats.events_dropped}, requests {stats.requests}, retries {stats.retries}"
        )
        self.assertEqual(traffic.raised, [])
        self.assertEqual(self.errors, [])
        self.assertEqual(
            (stats.events_recorded, stats.events_delivered, stats.events_failed, stats.events_dropped), (300, 300, 0, 0)
        )
        self.assertGreater(stats.retries, 0)
        self.assert_stored_exactly_once(traffic.runs, EVENTS_PER_RUN)

    def test_a_dead_url_costs_the_agent_nothing_and_shutdown_keeps_its_timeout(self) -> None:
        with socket.socket() as sock:
            sock.bind(("127.0.0.1", 0))
            dead = f"http://127.0.0.1:{sock.getsockname()[1]}"
        ats = AgentTracker(api_key=self.stack.api_key, base_url=dead, on_error=self.errors.append)
        started = time.monotonic()
        run = ats.start_session("nowhere", "py-dead-url", "u")
        for step in range(20):
            run.tool_call("search", {"step": step})
        run.end()
        recording = time.monotonic() - started
        before = time.monotonic()
        stats = ats.shutdown(timeout=2)
        took = time.monotonic() - before
        lost = sum(error.lost_events for error in self.errors)
        report(
            f"dead URL: sent {stats.events_recorded}, delivered {stats.events_delivered}, reported lost {lost}; "
            f"recording took {recording * 1000:.1f} ms, shutdown(timeout=2) returned in {took:.2f} s"
        )
        self.assertLess(took, 2.1)
        self.assertLess(recording, 0.5)
        self.assertEqual((stats.events_recorded, stats.events_delivered, lost), (20, 0, 20))
        self.assertEqual({error.code for error in self.errors} - {"shutdown", "session_not_created"}, set())


if __name__ == "__main__":
    unittest.main()
