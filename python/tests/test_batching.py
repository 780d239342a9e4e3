"""The outbox's batching rules as pure logic: no thread, no network (the delivery thread's wake-ups are counted,
not run)."""

from __future__ import annotations

import unittest
from typing import Any, List

from ats._backoff import DEFAULT_BACKOFF
from ats._queue import CREATED, DeliveryQueue, QueueSettings


class StubWorker:
    def __init__(self) -> None:
        self.calls: List[Any] = []

    def call_soon(self, callback: Any, *args: Any) -> bool:
        self.calls.append(callback)
        return True


def outbox(**settings: Any) -> DeliveryQueue:
    values = dict(
        max_batch_size=100,
        max_batch_bytes=4 * 1024 * 1024,
        max_queue_size=10_000,
        max_concurrency=4,
        flush_interval=1.0,
        immediate=False,
        max_retries=3,
        backoff=DEFAULT_BACKOFF,
    )
    values.update(settings)
    return DeliveryQueue(QueueSettings(**values), transport=None, report=lambda error: None, worker=StubWorker())  # type: ignore[arg-type]


def event(index: int, size: int = 0) -> bytes:
    return ('{"i":%d,"pad":"%s"}' % (index, "x" * size)).encode()


class BatchingTest(unittest.TestCase):
    def test_a_session_start_goes_first_and_its_events_wait_for_it(self) -> None:
        queue = outbox()
        lane = queue.start_session("ses_A", b"{}")
        queue.add_event(lane, "tool_call", event(1))
        queue.send_through = queue.last_seq
        kind, item = queue._take_work()
        self.assertEqual((kind, item.lane.session_id), ("single", "ses_A"))
        lane.busy = True  # the start is in flight
        self.assertIsNone(queue._take_work())
        lane.busy, lane.state = False, CREATED
        kind, items = queue._take_work()
        self.assertEqual((kind, [i.body for i in items]), ("batch", [event(1)]))

    def test_partial_batches_wait_for_the_interval_full_ones_go_at_once(self) -> None:
        queue = outbox()
        lane = queue.start_session("ses_A", b"{}")
        queue._take_work()
        lane.state = CREATED
        for index in range(150):
            queue.add_event(lane, "tool_call", event(index))
        kind, items = queue._take_work()
        self.assertEqual((kind, len(items)), ("batch", 100))
        self.assertIsNone(queue._take_work())  # 50 left, not due yet
        queue.send_through = queue.last_seq  # the interval elapsed
        kind, items = queue._take_work()
        self.assertEqual([i.body for i in items], [event(index) for index in range(100, 150)])
        self.assertEqual(queue.queued_events, 0)

    def test_batches_stay_under_the_byte_limit(self) -> None:
        queue = outbox(max_batch_bytes=1000)
        lane = queue.start_session("ses_A", b"{}")
        queue._take_work()
        lane.state = CREATED
        for index in range(10):
            queue.add_event(lane, "tool_call", event(index, 200))
        sizes = []
        queue.send_through = queue.last_seq
        while True:
            work = queue._take_work()
            if work is None:
                break
            sizes.append(13 + sum(len(i.body) + 1 for i in work[1]))
        self.assertTrue(all(size <= 1000 for size in sizes), sizes)
        self.assertEqual(len(sizes), 3)

    def test_another_session_joins_a_batch_only_with_all_its_waiting_events(self) -> None:
        queue = outbox(max_batch_size=10)
        lanes = [queue.start_session(f"ses_{n}", b"{}") for n in range(3)]
        for lane in lanes:
            queue._take_work()
            lane.state = CREATED
        for index in range(6):
            for lane in lanes:
                queue.add_event(lane, "tool_call", event(index))
        queue.send_through = queue.last_seq
        kind, items = queue._take_work()
        self.assertEqual({i.lane.session_id for i in items}, {"ses_0"})  # ses_1's 6 would not fit beside 6
        self.assertEqual(len(items), 6)
        items[0].lane.busy = True
        kind, items = queue._take_work()
        self.assertEqual({i.lane.session_id for i in items}, {"ses_1"})

    def test_an_end_waits_for_the_events_before_it(self) -> None:
        queue = outbox()
        lane = queue.start_session("ses_A", b"{}")
        queue._take_work()
        lane.state = CREATED
        queue.add_event(lane, "tool_call", event(1))
        queue.end_session(lane, b'{"status":"completed"}')
        self.assertIsNone(queue._take_work())  # the event is not due, and the end is behind it
        queue.send_through = queue.last_seq
        self.assertEqual(queue._take_work()[0], "batch")
        kind, item = queue._take_work()
        self.assertEqual((kind, item.body), ("single", b'{"status":"completed"}'))

    def test_overflow_drops_the_oldest_event_and_counts_it(self) -> None:
        queue = outbox(max_queue_size=3)
        first = queue.start_session("ses_A", b"{}")
        second = queue.start_session("ses_B", b"{}")
        queue.add_event(first, "tool_call", event(1))
        queue.add_event(second, "tool_call", event(2))
        queue.add_event(first, "tool_call", event(3))
        queue.add_event(second, "tool_call", event(4))
        self.assertEqual((queue.queued_events, queue.events_dropped), (3, 1))
        remaining = [item.body for lane in (first, second) for item in lane.items if item is not None and item.kind == 1]
        self.assertEqual(sorted(remaining), sorted([event(2), event(3), event(4)]))
        self.assertIn(queue._report_overflow, queue.worker.calls)  # type: ignore[attr-defined]

    def test_wake_ups_are_few_in_background_mode(self) -> None:
        queue = outbox()
        lane = queue.start_session("ses_A", b"{}")
        worker: StubWorker = queue.worker  # type: ignore[assignment]
        # The delivery thread ran: it armed the interval timer and is idle.
        queue.pump_scheduled = False
        queue.timer = object()  # type: ignore[assignment]
        queue.new_since_pump = 0
        worker.calls.clear()
        for index in range(99):
            queue.add_event(lane, "tool_call", event(index))
        self.assertEqual(worker.calls, [])
        queue.add_event(lane, "tool_call", event(99))  # a batch's worth: worth waking for
        self.assertEqual(len(worker.calls), 1)

    def test_immediate_mode_makes_every_event_due(self) -> None:
        queue = outbox(immediate=True)
        lane = queue.start_session("ses_A", b"{}")
        queue._take_work()
        lane.state = CREATED
        queue.add_event(lane, "tool_call", event(1))
        self.assertEqual(queue._take_work()[0], "batch")


if __name__ == "__main__":
    unittest.main()
