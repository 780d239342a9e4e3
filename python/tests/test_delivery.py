"""Delivery at the HTTP boundary, against a fake service on 127.0.0.1 (tests/support/fake_service.py): order,
concurrency, retries, idempotency keys, 413 splits, gzip, overflow, masking, sampling, immediate mode, shutdown,
the exit hook and fork."""

from __future__ import annotations

import asyncio
import contextvars
import datetime
import gzip
import json
import os
import socket
import subprocess
import sys
import tempfile
import textwrap
import threading
import time
import unittest
from pathlib import Path
from typing import Any, List
from unittest import mock

from ats import AgentTracker, AtsDeliveryError, AtsError, AtsUsageError, FeedbackToken, current_run, wrap_tool
from tests.support.fake_service import FakeService, Received

KEY = "ats_live_abcdefghijklmnop"
SOURCE = str(Path(__file__).resolve().parent.parent / "src")


def dead_url() -> str:
    """A URL nothing listens on (a port bound, then released)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    return f"http://127.0.0.1:{port}"


def _epoch_ms(iso: str) -> int:
    """Epoch milliseconds of a wire timestamp (``…Z``)."""
    parsed = datetime.datetime.fromisoformat(iso.replace("Z", "+00:00"))
    return round(parsed.timestamp() * 1000)


class DeliveryTestCase(unittest.TestCase):
    def setUp(self) -> None:
        self.errors: List[AtsError] = []
        self.services: List[FakeService] = []
        self.trackers: List[AgentTracker] = []

    def tearDown(self) -> None:
        for tracker in self.trackers:
            tracker.shutdown(1)
        for service in self.services:
            service.close()

    def service(self, script: Any = None, delay: float = 0.0) -> FakeService:
        service = FakeService(script, delay)
        self.services.append(service)
        return service

    def tracker(self, url: str, **options: Any) -> AgentTracker:
        options.setdefault("on_error", self.errors.append)
        options.setdefault("flush_interval", 0.05)
        tracker = AgentTracker(api_key=KEY, base_url=url, **options)
        self.trackers.append(tracker)
        return tracker


class OrderAndConcurrencyTest(DeliveryTestCase):
    def test_each_session_in_order_several_sessions_in_flight(self) -> None:
        service = self.service(delay=0.02)
        ats = self.tracker(service.url)
        runs = [ats.start_session(f"run {n}", "order-bot", "u") for n in range(6)]
        for step in range(120):
            for run in runs:
                run.tool_call("step", {"step": step})
        for run in runs:
            run.end()
        self.assertTrue(ats.flush(20))
        stats = ats.stats()
        self.assertEqual((stats.events_delivered, stats.events_failed, stats.sessions_ended), (720, 0, 6))
        self.assertEqual(self.errors, [])
        self.assertGreater(service.max_in_flight, 1)
        for run in runs:
            positions = [
                index
                for index, request in enumerate(service.requests)
                if run.id in request.path
                or (isinstance(request.body, dict) and request.body.get("id") == run.id)
                or any(e.get("sessionId") == run.id for e in (request.body or {}).get("events", []))
            ]
            kinds = [service.requests[index].method + " " + service.requests[index].path.split("/")[3] for index in positions]
            self.assertEqual(kinds[0], "POST sessions")
            self.assertEqual(kinds[-1], "PATCH sessions")
            self.assertTrue(all(kind == "POST events" for kind in kinds[1:-1]), kinds)
            events = [e for i in positions for e in (service.requests[i].body or {}).get("events", []) if e["sessionId"] == run.id]
            self.assertEqual([e["toolInput"]["step"] for e in events], list(range(120)))
            self.assertEqual([e["id"] for e in events], sorted(e["id"] for e in events))
            self.assertEqual({e["eventType"] for e in events}, {"tool_call"})
            self.assertTrue(all(e["occurredAt"].endswith("Z") for e in events))
        self.assertEqual(len(service.stored_events), 720)


class RetryTest(DeliveryTestCase):
    def test_same_idempotency_key_on_every_retry_and_retry_after_honoured(self) -> None:
        attempts: List[Received] = []

        def script(request: Received) -> Any:
            if request.path == "/api/sdk/events/batch":
                attempts.append(request)
                if len(attempts) <= 2:
                    return 503, {"message": "Service Unavailable"}, {"Retry-After": "1"}
            return None

        service = self.service(script)
        ats = self.tracker(service.url)
        with ats.session("retry", "retry-bot", "u") as run:
            run.tool_call("search", {"q": "refund"})
        self.assertTrue(ats.flush(10))
        self.assertEqual(len(attempts), 3)
        self.assertEqual(len({a.headers["idempotency-key"] for a in attempts}), 1)
        self.assertGreaterEqual(attempts[1].at - attempts[0].at, 0.95)
        self.assertGreaterEqual(attempts[2].at - attempts[1].at, 0.95)
        self.assertEqual((ats.stats().retries, ats.stats().events_delivered), (2, 1))
        self.assertEqual(self.errors, [])

    def test_network_errors_429_408_and_the_in_progress_409_are_retried(self) -> None:
        answers = iter(
            [
                "drop",
                (429, {"message": "Too Many Requests"}, {"Retry-After": "0"}),
                (408, {"message": "Request Timeout"}, {}),
                (409, {"message": "A request with this Idempotency-Key is still being processed"}, {}),
            ]
        )

        def script(request: Received) -> Any:
            if request.path == "/api/sdk/events/batch":
                return next(answers, None)
            return None

        service = self.service(script)
        ats = self.tracker(service.url)
        with ats.session("retry", "retry-bot", "u") as run:
            run.tool_call("search")
        self.assertTrue(ats.flush(15))
        self.assertEqual(len(service.batches()), 5)
        self.assertEqual(len(service.stored_events), 1)
        self.assertEqual(ats.stats().events_delivered, 1)
        self.assertEqual(self.errors, [])

    def test_other_4xx_are_reported_not_retried(self) -> None:
        def script(request: Received) -> Any:
            if request.path == "/api/sdk/sessions" and request.body.get("name") == "refused":
                return 400, {"error": "Bad Request", "message": "Invalid session: name"}, {}
            if request.path == "/api/sdk/events/batch":
                events = request.body["events"]
                results = [
                    {"index": i, "status": 400, "error": {"message": "Invalid event: confidence"}}
                    if e.get("toolName") == "bad"
                    else {"index": i, "status": 201, "id": e["id"]}
                    for i, e in enumerate(events)
                ]
                return 200, {"results": results}, {}
            return None

        service = self.service(script)
        ats = self.tracker(service.url)
        refused = ats.start_session("refused", "bot", "u")
        refused.tool_call("a")
        refused.tool_call("b")
        refused.end()
        ok = ats.start_session("fine", "bot", "u")
        ok.tool_call("good")
        ok.tool_call("bad")
        ok.end()
        self.assertTrue(ats.flush(10))
        creates = [r for r in service.requests if r.path == "/api/sdk/sessions" and r.body["name"] == "refused"]
        self.assertEqual(len(creates), 1)
        codes = sorted((e.code, e.lost_events) for e in self.errors)
        self.assertEqual(codes, [("rejected", 1), ("session_not_created", 2)])
        not_created = next(e for e in self.errors if e.code == "session_not_created")
        self.assertEqual((not_created.status, not_created.session_id), (400, refused.id))
        self.assertIn("Invalid session: name", not_created.message)
        stats = ats.stats()
        self.assertEqual((stats.events_delivered, stats.events_failed, stats.sessions_failed), (1, 3, 1))

    def test_events_answered_retryable_inside_a_200_are_resent_alone(self) -> None:
        seen: List[int] = []

        def script(request: Received) -> Any:
            if request.path != "/api/sdk/events/batch":
                return None
            events = request.body["events"]
            seen.append(len(events))
            if len(seen) > 1:
                return None
            results = [
                {"index": i, "status": 503, "error": {"message": "throttled"}}
                if i % 2
                else {"index": i, "status": 201, "id": e["id"]}
                for i, e in enumerate(events)
            ]
            for i, e in enumerate(events):
                if i % 2 == 0:
                    service.stored_events[e["id"]] = e
            return 200, {"results": results}, {}

        service = self.service(script)
        ats = self.tracker(service.url)
        with ats.session("partial", "bot", "u") as run:
            for step in range(10):
                run.tool_call("t", {"step": step})
        self.assertTrue(ats.flush(10))
        self.assertEqual(seen, [10, 5])
        keys = [r.headers["idempotency-key"] for r in service.batches()]
        self.assertEqual(len(set(keys)), 2)
        self.assertEqual(len(service.stored_events), 10)
        self.assertEqual(ats.stats().events_delivered, 10)

    def test_413_splits_the_batch(self) -> None:
        def script(request: Received) -> Any:
            if request.path == "/api/sdk/events/batch" and len(request.body["events"]) > 25:
                return 413, {"message": "Request body too large"}, {}
            return None

        service = self.service(script)
        ats = self.tracker(service.url)
        with ats.session("split", "bot", "u") as run:
            for step in range(100):
                run.tool_call("t", {"step": step})
        self.assertTrue(ats.flush(10))
        self.assertEqual(len(service.stored_events), 100)
        stored = [e["toolInput"]["step"] for e in service.stored_events.values()]
        self.assertEqual(stored, list(range(100)))
        self.assertEqual(self.errors, [])


class WireTest(DeliveryTestCase):
    def test_gzip_above_one_kib_only(self) -> None:
        service = self.service()
        ats = self.tracker(service.url)
        with ats.session("wire", "bot", "u") as run:
            run.tool_call("small")
        ats.flush(5)
        with ats.session("wire", "bot", "u") as run:
            for step in range(20):
                run.tool_call("large", {"text": "refund policy " * 20, "step": step})
        ats.flush(5)
        small, large = service.batches()
        self.assertNotIn("content-encoding", small.headers)
        self.assertEqual(large.headers["content-encoding"], "gzip")
        self.assertLess(len(large.raw), len(gzip.decompress(large.raw)) / 5)
        self.assertEqual(large.headers["authorization"], f"Bearer {KEY}")
        self.assertEqual(large.headers["content-type"], "application/json")
        stats = ats.stats()
        self.assertLess(stats.bytes_sent, stats.bytes_before_compression)

    def test_overflow_drops_the_oldest_and_reports_the_count(self) -> None:
        gate = threading.Event()

        def script(request: Received) -> Any:
            if request.path == "/api/sdk/sessions":
                gate.wait(5)
            return None

        service = self.service(script)
        ats = self.tracker(service.url, max_queue_size=10)
        run = ats.start_session("overflow", "bot", "u")
        for step in range(50):
            run.tool_call("t", {"step": step})
        run.end()
        gate.set()
        self.assertTrue(ats.flush(10))
        steps = sorted(e["toolInput"]["step"] for e in service.stored_events.values())
        self.assertEqual(steps, list(range(40, 50)))
        overflow = [e for e in self.errors if e.code == "queue_overflow"]
        self.assertEqual(sum(e.lost_events for e in overflow), 40)
        self.assertEqual(ats.stats().events_dropped, 40)

    def test_mask_redacts_drops_and_fails_closed(self) -> None:
        def mask(event: dict) -> Any:
            if event.get("toolName") == "vault_read":
                return None
            if event.get("toolName") == "explode":
                raise RuntimeError("mask bug")
            if "reasoning" in event:
                event["reasoning"] = event["reasoning"].replace("ada@example.com", "<email>")
            event["sessionId"] = "ses_SOMEONEELSE"  # cannot move an event
            return event

        service = self.service()
        ats = self.tracker(service.url, mask=mask)
        with ats.session("mask", "bot", "u") as run:
            run.decision("Write to ada@example.com")
            run.tool_call("vault_read", {"secret": "s3cr3t"})
            run.tool_call("explode", {"secret": "s3cr3t"})
        ats.flush(5)
        events = list(service.stored_events.values())
        self.assertEqual([(e["eventType"], e.get("reasoning"), e["sessionId"]) for e in events], [("llm_decision", "Write to <email>", run.id)])
        self.assertNotIn(b"s3cr3t", b"".join(r.raw for r in service.requests))
        self.assertEqual([e.code for e in self.errors], ["usage"])
        self.assertIn("mask raised", self.errors[0].message)
        self.assertEqual(ats.stats().events_masked, 2)

    def test_sampling_keeps_whole_sessions_out(self) -> None:
        service = self.service()
        ats = self.tracker(service.url, sample_rate=0)
        with ats.session("unsampled", "bot", "u") as run:
            run.tool_call("t")
            run.decision("d")
        self.assertFalse(run.sampled)
        ats.flush(2)
        self.assertEqual(service.requests, [])
        self.assertEqual(ats.stats().events_sampled_out, 2)

    def test_an_event_over_the_service_limit_is_reported_never_cut(self) -> None:
        service = self.service()
        ats = self.tracker(service.url)
        with ats.session("large", "bot", "u") as run:
            run.tool_call("dump", {"blob": "x" * (6 * 1024 * 1024)})
            run.tool_call("small")
        ats.flush(10)
        self.assertEqual([e.code for e in self.errors], ["event_too_large"])
        sizes = self.errors[0].sizes or {}
        self.assertGreater(sizes["fields"]["toolInput"], 6 * 1024 * 1024)
        self.assertEqual(len(service.stored_events), 1)


class ModesAndLifecycleTest(DeliveryTestCase):
    def test_immediate_mode_end_returns_after_delivery(self) -> None:
        service = self.service(delay=0.05)
        ats = self.tracker(service.url, mode="immediate", flush_interval=30)
        started = time.monotonic()
        run = ats.start_session("lambda", "bot", "u")
        run.tool_call("t")
        run.end()
        elapsed = time.monotonic() - started
        methods = [r.method for r in service.requests]
        self.assertEqual(methods, ["POST", "POST", "PATCH"])
        self.assertLess(elapsed, 5)  # not the 30 s interval
        self.assertEqual(ats.stats().sessions_ended, 1)

    def test_shutdown_against_a_dead_url_returns_within_its_timeout(self) -> None:
        ats = self.tracker(dead_url())
        run = ats.start_session("offline", "bot", "u")
        for step in range(30):
            run.tool_call("t", {"step": step})
        run.end()
        started = time.monotonic()
        stats = ats.shutdown(timeout=2)
        self.assertLess(time.monotonic() - started, 2.1)
        self.assertEqual(stats.events_delivered, 0)
        self.assertEqual(stats.events_recorded, 30)
        self.assertEqual(sum(e.lost_events for e in self.errors), 30)
        self.assertTrue(all(e.code in ("shutdown", "session_not_created") for e in self.errors), self.errors)

    def test_misuse_after_shutdown_and_a_second_end_are_reported_never_raised(self) -> None:
        service = self.service()
        ats = self.tracker(service.url, on_error=lambda error: (_ for _ in ()).throw(RuntimeError("handler bug")))
        run = ats.start_session("done", "bot", "u")
        run.end()
        run.end()  # reported to an on_error that raises: ignored
        ats.shutdown(2)
        messages: List[AtsError] = []
        ats._options = ats._options.__class__(**{**ats._options.__dict__, "on_error": messages.append})
        run.tool_call("late")
        ats.start_session("late", "bot", "u")
        self.assertEqual([e.code for e in messages], ["usage", "usage"])

    def test_flush_from_on_error_does_not_deadlock(self) -> None:
        results: List[bool] = []
        ats: AgentTracker

        def on_error(error: AtsError) -> None:
            results.append(ats.flush(1))

        def script(request: Received) -> Any:
            return (400, {"message": "no"}, {}) if request.path == "/api/sdk/sessions" else None

        service = self.service(script)
        ats = self.tracker(service.url, on_error=on_error)
        ats.start_session("x", "bot", "u").end()
        self.assertTrue(ats.flush(5))
        self.assertEqual(results, [False])

    def test_the_exit_hook_sends_what_a_script_left_queued(self) -> None:
        service = self.service(delay=0.01)
        script = textwrap.dedent(
            f"""
            import sys
            sys.path.insert(0, {SOURCE!r})
            from ats import AgentTracker
            ats = AgentTracker(api_key={KEY!r}, base_url={service.url!r}, flush_interval=30)
            run = ats.start_session("script", "exit-bot", "u")
            for step in range(250):
                run.tool_call("t", {{"step": step}})
            run.end()
            """
        )
        done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60)
        self.assertEqual((done.returncode, done.stderr), (0, ""))
        self.assertEqual(len(service.stored_events), 250)
        self.assertEqual([r.method for r in service.requests][-1], "PATCH")

    @unittest.skipUnless(hasattr(os, "fork"), "needs os.fork")
    def test_a_forked_child_gets_a_fresh_queue(self) -> None:
        service = self.service()
        ats = self.tracker(service.url)
        parent_run = ats.start_session("parent", "fork-bot", "u")
        parent_run.tool_call("before fork")
        self.assertTrue(ats.flush(5))
        read, write = os.pipe()
        pid = os.fork()
        if pid == 0:  # the child
            code = 1
            try:
                errors: List[str] = []
                ats._options = ats._options.__class__(**{**ats._options.__dict__, "on_error": lambda e: errors.append(e.code)})
                fresh = ats.stats()
                parent_run.tool_call("in the child")  # the parent's run: reported, not sent
                with ats.session("child", "fork-bot", "u") as run:
                    run.tool_call("child step")
                stats = ats.shutdown(5)
                os.write(write, json.dumps([fresh.events_recorded, stats.events_delivered, errors]).encode())
                code = 0
            finally:
                os._exit(code)
        os.close(write)
        _, status = os.waitpid(pid, 0)
        report = json.loads(os.read(read, 65536) or b"null")
        os.close(read)
        self.assertEqual(os.waitstatus_to_exitcode(status) if hasattr(os, "waitstatus_to_exitcode") else status, 0)
        self.assertEqual(report, [0, 1, ["usage"]])
        parent_run.tool_call("after fork, in the parent")
        parent_run.end()
        self.assertTrue(ats.flush(5))
        names = sorted(e["toolName"] for e in service.stored_events.values())
        self.assertEqual(names, ["after fork, in the parent", "before fork", "child step"])
        self.assertEqual(ats.stats().events_delivered, 2)


class TlsTest(DeliveryTestCase):
    def test_https_with_the_certificate_verified(self) -> None:
        with tempfile.TemporaryDirectory() as directory:
            certificate, key = os.path.join(directory, "cert.pem"), os.path.join(directory, "key.pem")
            subprocess.run(
                ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", key, "-out", certificate,
                 "-days", "1", "-subj", "/CN=localhost", "-addext", "subjectAltName=DNS:localhost"],
                check=True, capture_output=True, timeout=60,
            )  # fmt: skip
            secure = FakeService(tls=(certificate, key))
            self.services.append(secure)
            with mock.patch.dict(os.environ, {"SSL_CERT_FILE": certificate}):
                trusted = self.tracker(secure.url)
                with trusted.session("over tls", "bot", "u") as run:
                    run.tool_call("search", {"q": "refund " * 200})  # gzip, too
                self.assertTrue(trusted.flush(10))
            self.assertEqual(self.errors, [])
            self.assertEqual([e["toolName"] for e in secure.stored_events.values()], ["search"])
            self.assertEqual(secure.sessions[run.id]["end"]["status"], "completed")
            # Without the certificate among the trusted ones, the connection is refused, not sent in the clear.
            untrusted = self.tracker(secure.url, max_retries=0)
            untrusted.start_session("untrusted", "bot", "u")
            self.assertTrue(untrusted.flush(10))
            self.assertEqual([e.code for e in self.errors], ["session_not_created"])
            self.assertIn("CERTIFICATE_VERIFY_FAILED", self.errors[0].message)
            self.assertEqual(len(secure.sessions), 1)


class TraceAndToolsTest(DeliveryTestCase):
    def test_a_wrapped_tool_call_starts_when_the_call_started_and_lasts_as_long(self) -> None:
        service = self.service()
        ats = self.tracker(service.url)

        @wrap_tool
        def slow_lookup(order: str) -> str:
            time.sleep(0.05)
            return order

        with ats.session("timed", "bot", "u") as run:
            before_ms = time.time_ns() // 1_000_000
            slow_lookup("A-1")
            after_ms = time.time_ns() // 1_000_000
            run.tool_call("manual", duration_ms=1234.4, occurred_at="2026-11-22T10:00:00Z")
            run.decision("point in time", duration_ms=-1)
            run.state_change("a", "b", duration_ms=float("inf"))
        self.assertTrue(ats.flush(10))
        timed, manual, decision, state = list(service.stored_events.values())
        started_ms = _epoch_ms(timed["occurredAt"])
        # Stamped at the call's start (not its end), for as long as it took: whole milliseconds, ≥ the sleep.
        self.assertGreaterEqual(started_ms, before_ms)
        self.assertLessEqual(started_ms, after_ms - 50)
        self.assertIsInstance(timed["durationMs"], int)
        self.assertGreaterEqual(timed["durationMs"], 50)
        self.assertLessEqual(started_ms + timed["durationMs"], after_ms + 1)
        self.assertAlmostEqual(timed["toolOutput"]["durationMs"], timed["durationMs"], delta=1)
        self.assertEqual((manual["occurredAt"], manual["durationMs"]), ("2026-11-22T10:00:00.000Z", 1234))
        # A duration the service would refuse is left out, not sent: the event stays a point in time.
        self.assertNotIn("durationMs", decision)
        self.assertNotIn("durationMs", state)

    def test_trace_ends_failed_with_the_exception_and_reraises(self) -> None:
        service = self.service()
        ats = self.tracker(service.url)

        @wrap_tool
        def charge(amount: int, currency: str = "EUR") -> str:
            if amount > 10:
                raise ValueError(f"amount {amount} over the limit")
            return "ok"

        @ats.trace(agent_name="billing-bot", user_id=lambda customer: customer)
        def bill(customer: str) -> str:
            assert current_run() is not None
            charge(5)
            return charge(50, currency="USD")

        with self.assertRaises(ValueError):
            bill("customer-9")
        self.assertIsNone(current_run())
        ats.flush(5)
        session = next(iter(service.sessions.values()))
        self.assertEqual((session["agentName"], session["userId"], session["name"]), ("billing-bot", "customer-9", "TraceAndToolsTest.test_trace_ends_failed_with_the_exception_and_reraises.<locals>.bill"))
        self.assertEqual(session["end"]["status"], "failed")
        self.assertEqual(session["end"]["failureReason"], "ValueError: amount 50 over the limit")
        events = list(service.stored_events.values())
        self.assertEqual([e["eventType"] for e in events], ["tool_call", "tool_call", "error"])
        self.assertEqual(events[0]["toolInput"], {"amount": 5})
        self.assertEqual(events[0]["toolOutput"]["result"], "ok")
        self.assertGreaterEqual(events[0]["toolOutput"]["durationMs"], 0)
        self.assertEqual(events[1]["toolInput"], {"amount": 50, "currency": "USD"})
        self.assertEqual(events[1]["toolOutput"]["error"]["name"], "ValueError")
        self.assertEqual((events[2]["toolName"], events[2]["reasoning"]), ("charge", "ValueError: amount 50 over the limit"))

    def test_trace_names_each_calls_conversation_from_its_arguments(self) -> None:
        service = self.service()
        ats = self.tracker(service.url)

        @ats.trace(agent_name="chat-bot", user_id="u-7", conversation_id=lambda thread, text: thread)
        def reply(thread: "str | None", text: str) -> str:
            return text.upper()

        @ats.trace(agent_name="chat-bot", conversation_id="support-thread-1")
        def fixed(text: str) -> str:
            return text

        reply("thread-42", "hi")
        reply("thread-42", "again")
        reply(None, "no thread")
        fixed("x")
        ats.flush(5)
        by_name = sorted(
            (session["userId"], session.get("conversationId", "-"), session["agentName"]) for session in service.sessions.values()
        )
        self.assertEqual(
            by_name,
            sorted([("u-7", "thread-42", "chat-bot"), ("u-7", "thread-42", "chat-bot"), ("u-7", "-", "chat-bot"), ("anonymous", "support-thread-1", "chat-bot")]),
        )

    def test_the_current_run_follows_tasks_and_copied_contexts_not_bare_threads(self) -> None:
        service = self.service()
        ats = self.tracker(service.url)
        seen: dict = {}

        @wrap_tool(name="lookup")
        async def lookup(key: str) -> str:
            await asyncio.sleep(0.01)
            return key.upper()

        @ats.trace(agent_name="async-bot")
        async def answer() -> List[str]:
            run = current_run()
            results = await asyncio.gather(lookup("a"), lookup("b"))
            seen["task"] = await asyncio.get_running_loop().run_in_executor(None, contextvars.copy_context().run, current_run)
            bare: List[Any] = []
            thread = threading.Thread(target=lambda: bare.append(current_run()))
            thread.start()
            thread.join()
            seen["bare"] = bare[0]
            seen["run"] = run
            return results

        self.assertEqual(asyncio.run(answer()), ["A", "B"])
        self.assertIs(seen["task"], seen["run"])
        self.assertIsNone(seen["bare"])
        ats.flush(5)
        outputs = sorted(e["toolOutput"]["result"] for e in service.stored_events.values())
        self.assertEqual(outputs, ["A", "B"])
        self.assertEqual(next(iter(service.sessions.values()))["end"]["status"], "completed")

    def test_generators_are_traced_until_exhausted(self) -> None:
        service = self.service()
        ats = self.tracker(service.url)

        @wrap_tool
        def pages(count: int) -> Any:
            for page in range(count):
                yield {"page": page}

        @ats.trace(agent_name="gen-bot")
        def crawl() -> Any:
            for page in pages(3):
                current_run().decision(f"read page {page['page']}")  # type: ignore[union-attr]
                yield page

        self.assertEqual(len(list(crawl())), 3)
        ats.flush(5)
        events = list(service.stored_events.values())
        self.assertEqual([e["eventType"] for e in events], ["llm_decision"] * 3 + ["tool_call"])
        self.assertEqual(events[-1]["toolOutput"]["itemCount"], 3)
        self.assertEqual(next(iter(service.sessions.values()))["end"]["status"], "completed")

    def test_with_blocks_and_run_with(self) -> None:
        service = self.service()
        ats = self.tracker(service.url)
        with self.assertRaises(KeyError):
            with ats.session("block", "bot", "u", metadata={"plan": "pro", "__proto__": 1}) as run:
                self.assertIs(current_run(), run)
                raise KeyError("missing")
        other = ats.start_session("explicit", "bot", "u")
        self.assertIs(ats.run_with(other, current_run), other)
        other.end(success=False, failure_reason="gave up", custom_metrics={"retries": 2})
        ats.flush(5)
        ended = {s["name"]: s for s in service.sessions.values()}
        self.assertEqual(ended["block"]["metadata"], {"plan": "pro", "__proto__": 1})
        self.assertEqual(ended["block"]["end"]["failureReason"], "KeyError: 'missing'")
        self.assertEqual(ended["explicit"]["end"]["status"], "failed")
        self.assertEqual(ended["explicit"]["end"]["customMetrics"], {"retries": 2})


if __name__ == "__main__":
    unittest.main()


class FeedbackTokenTest(DeliveryTestCase):
    """``feedback_token``: a direct request (never queued), retried like every request, its refusals raised."""

    TOKEN = {
        "token": "atsf_e30.c2ln",
        "tokenId": "fbt_01KAZ3XD3E4F5G6H7J8K9M0NP1",
        "expiresAt": "2026-11-27T08:00:00.000Z",
    }

    def script(self, received: Received) -> Any:
        if received.path != "/api/sdk/feedback-tokens":
            return None
        if received.body.get("sessionId") == "ses_unknown":
            return 404, {"error": "Not Found", "message": "Session ses_unknown not found"}, {}
        if len(self.service_requests()) == 1:
            return 503, {"error": "Service Unavailable", "message": "try again"}, {"Retry-After": "0"}
        return 201, self.TOKEN, {}

    def service_requests(self) -> List[Received]:
        return [r for r in self.fake.requests if r.path == "/api/sdk/feedback-tokens"]

    def test_mints_with_the_options_retrying_a_503_and_raises_the_services_refusal(self) -> None:
        self.fake = self.service(self.script)
        ats = self.tracker(self.fake.url)

        minted = ats.feedback_token("ses_01", event_id="evt_01", expires_in_seconds=600, names=["thumbs"], timeout=10)
        with self.assertRaises(AtsDeliveryError) as refused:
            ats.feedback_token("ses_unknown", timeout=10)
        ats.shutdown(1)
        with self.assertRaises(AtsUsageError):
            ats.feedback_token("ses_01")

        self.assertEqual(minted, FeedbackToken(self.TOKEN["token"], self.TOKEN["tokenId"], self.TOKEN["expiresAt"]))
        first, retry, unknown = self.service_requests()
        self.assertEqual(
            first.body, {"sessionId": "ses_01", "eventId": "evt_01", "expiresInSeconds": 600, "names": ["thumbs"]}
        )
        self.assertEqual(retry.headers["idempotency-key"], first.headers["idempotency-key"])
        self.assertEqual(first.headers["authorization"], f"Bearer {KEY}")
        self.assertEqual(unknown.body, {"sessionId": "ses_unknown"})
        self.assertEqual((refused.exception.status, refused.exception.attempts), (404, 1))
        self.assertEqual(
            str(refused.exception), "No feedback token for session ses_unknown (404): Session ses_unknown not found"
        )
        self.assertEqual(self.errors, [])


class ConversationScoreTest(DeliveryTestCase):
    """``score_conversation``: its own lane, sent after what was queued for the conversation's runs before it."""

    def setUp(self) -> None:
        super().setUp()
        self.start_delay = 0.1
        # When the fake service answered each session start.
        self.starts_answered: List[float] = []

    def script(self, received: Received) -> Any:
        if received.path == "/api/sdk/sessions":
            time.sleep(self.start_delay)  # a slow start: a score sent before its answer would reach an unknown conversation
            self.starts_answered.append(time.monotonic())
            return None
        if received.path == "/api/sdk/scores":
            conversation = received.body.get("conversationId")
            if conversation == "c-unknown":
                return 404, {"error": "Not Found", "message": "Conversation c-unknown not found"}, {}
            return 201, dict(received.body, sessionId=None, eventId=None), {}
        return None

    def order(self, requests: List[Received]) -> List[str]:
        names = []
        for request in requests:
            if request.path == "/api/sdk/sessions":
                names.append(f"create:{request.body['name']}")
            elif request.path == "/api/sdk/events/batch":
                names.append("batch")
            elif request.path == "/api/sdk/scores":
                names.append(f"score:{request.body['value']}")
            else:
                names.append("end")
        return names

    def test_waits_for_the_conversations_runs_queued_before_it_then_sends_its_edits_in_order(self) -> None:
        service = self.service(self.script)
        ats = self.tracker(service.url)
        first = ats.start_session("turn 1", "chat", "u", conversation_id="c-1")
        first.tool_call("search", {"q": 1})
        second = ats.start_session("turn 2", "chat", "u", conversation_id="c-1")
        other = ats.start_session("other", "chat", "u", conversation_id="c-other")
        score_id = ats.score_conversation("c-1", "resolved", 1, comment="first look")
        self.assertEqual(ats.score_conversation("c-1", "resolved", 2, id=score_id), score_id)
        first.end()
        second.end()
        other.end()
        stats = ats.shutdown(10)

        self.assertEqual(self.errors, [])
        self.assertEqual((stats.scores_recorded, stats.scores_delivered, stats.scores_failed), (2, 2, 0))
        sent = self.order(service.requests)
        for earlier in ("create:turn 1", "create:turn 2", "batch"):
            self.assertGreater(sent.index("score:1"), sent.index(earlier), sent)
        self.assertGreater(sent.index("score:2"), sent.index("score:1"), sent)
        scores = [request for request in service.requests if request.path == "/api/sdk/scores"]
        self.assertEqual(
            [request.body for request in scores],
            [
                {"id": score_id, "conversationId": "c-1", "name": "resolved", "value": 1, "source": "sdk", "comment": "first look"},
                {"id": score_id, "conversationId": "c-1", "name": "resolved", "value": 2, "source": "sdk"},
            ],
        )
        self.assertRegex(score_id or "", r"^scr_[0-9A-HJKMNP-TV-Z]{26}$")
        self.assertEqual(len({request.headers["idempotency-key"] for request in scores}), 2)

    def test_a_conversation_with_no_queued_run_goes_at_once_and_a_404_is_reported_with_it(self) -> None:
        self.start_delay = 1.0
        service = self.service(self.script)
        ats = self.tracker(service.url)
        run = ats.start_session("slow", "chat", "u", conversation_id="c-other")
        ats.score_conversation("c-unknown", "resolved", False)
        run.end()
        stats = ats.shutdown(10)

        sent = self.order(service.requests)
        # Not held behind another conversation's start: received while that start was still unanswered.
        self.assertLess(service.requests[sent.index("score:False")].at, self.starts_answered[0])
        self.assertEqual((stats.scores_recorded, stats.scores_delivered, stats.scores_failed), (1, 0, 1))
        [refusal] = self.errors
        self.assertIsInstance(refusal, AtsDeliveryError)
        assert isinstance(refusal, AtsDeliveryError)
        self.assertEqual(
            (refusal.code, refusal.operation, refusal.status, refusal.attempts, refusal.conversation_id, refusal.session_id),
            ("rejected", "score", 404, 1, "c-unknown", None),
        )
        self.assertRegex(str(refusal), r"^score \(POST .*/api/sdk/scores\): 404 Conversation c-unknown not found$")

    def test_refused_before_sending_and_reported_never_raised(self) -> None:
        service = self.service(self.script)
        ats = self.tracker(service.url)
        self.assertIsNone(ats.score_conversation("", "x", 1))
        self.assertIsNone(ats.score_conversation(None, "x", 1))  # type: ignore[arg-type]
        self.assertIsNone(ats.score_conversation("c-4", " ", 1))
        self.assertIsNone(ats.score_conversation("c-4", "inf", float("inf")))
        self.assertIsNone(ats.score_conversation("c-4", "label", ""))
        self.assertIsNone(ats.score_conversation("c-4", "object", {"no": 1}))  # type: ignore[arg-type]
        ats.shutdown(1)
        self.assertIsNone(ats.score_conversation("c-4", "late", 1))

        self.assertEqual(service.requests, [])
        self.assertEqual((ats.stats().scores_recorded, ats.stats().scores_failed), (0, 0))
        self.assertEqual(
            [(error.code, error.message, error.conversation_id) for error in self.errors],
            [
                ("usage", "score_conversation needs the id of the conversation it judges", None),
                ("usage", "score_conversation needs the id of the conversation it judges", None),
                ("usage", "a score needs a name; the score is not sent", "c-4"),
                ("usage", "score inf: value must be finite; the score is not sent", "c-4"),
                ("usage", "score label: a label must not be empty; the score is not sent", "c-4"),
                ("usage", "score object: value must be a number, a boolean or a label; the score is not sent", "c-4"),
                ("usage", "A score of conversation c-4 was recorded after shutdown and is not sent", "c-4"),
            ],
        )
