"""The outbox: session starts, events, scores and session ends waiting to be sent, in the order the agent made them.

Events travel in batches (by count and bytes); a session's own items go one request at a time, in order (its
start before its events, its events before its end) while different sessions proceed in parallel, up to
``max_concurrency`` requests. A conversation's own scores have a lane of their own, each sent once the
conversation's runs have sent what was queued for them before it. Memory is bounded: past ``max_queue_size`` queued events the oldest is dropped,
counted and reported.

Agent threads append under ``lock`` and wake the delivery thread's loop only when there is something for it to do
(a session start or end, a batch's worth of new events, a flush, no interval timer yet, immediate mode); the loop
takes work, sends it, and settles flush waiters.
"""

from __future__ import annotations

import asyncio
import threading
from concurrent.futures import Future
from dataclasses import dataclass
from typing import Any, Callable, Dict, List, Optional, Tuple

from ._backoff import BackoffPolicy, retry_delay
from ._ids import new_idempotency_key
from ._reports import batch_results, delivery_failure, refused_events_error, session_not_created_error
from ._retry_policy import is_retryable_status
from ._transport import Answered, ApiRequest, GaveUp, Transport
from ._worker import Worker
from .errors import AtsDeliveryError, AtsDroppedEventsError, AtsError

CREATE, EVENT, END, SCORE = 0, 1, 2, 3
PENDING, CREATED, FAILED = "pending", "created", "failed"
# b'{"events":[' + b']}'
_ENVELOPE_BYTES = 13
# Most sessions a full batch may hold to go before it is due (see _take_work).
_EARLY_BATCH_SESSIONS = 2


@dataclass(frozen=True)
class QueueSettings:
    """How the outbox batches and paces requests."""

    max_batch_size: int
    max_batch_bytes: int
    max_queue_size: int
    max_concurrency: int
    flush_interval: float
    immediate: bool
    max_retries: int
    backoff: BackoffPolicy


class Lane:
    """A place in the outbox, its own queue sent strictly in order: one session's (its start, events, scores and
    end; ``conversation_id`` is the conversation the session is a run of, if any), or one conversation's own scores
    (``session_id`` is ``None``; nothing to start, so it is created from the outset)."""

    __slots__ = ("session_id", "conversation_id", "state", "busy", "items", "head")

    def __init__(self, session_id: Optional[str], conversation_id: Optional[str] = None) -> None:
        self.session_id = session_id
        self.conversation_id = conversation_id
        self.state = PENDING if session_id is not None else CREATED
        self.busy = False
        # The session's waiting items (a dropped or taken item leaves None); ``head`` is the first.
        self.items: List[Optional[Item]] = []
        self.head = 0


class Item:
    """A session start, one event (serialized once, when recorded), a score or a session end."""

    __slots__ = ("kind", "seq", "lane", "body", "event_type", "idempotency_key", "settled", "after")

    def __init__(
        self,
        kind: int,
        seq: int,
        lane: Lane,
        body: bytes,
        event_type: str = "",
        after: Tuple[Tuple[Lane, int], ...] = (),
    ) -> None:
        self.kind = kind
        self.seq = seq
        self.lane = lane
        self.body = body
        self.event_type = event_type
        # A conversation's score: the conversation's run lanes and the last sequence number of each to go first.
        self.after = after
        self.idempotency_key = new_idempotency_key() if kind != EVENT else ""
        self.settled: Optional["Future[None]"] = Future() if kind == END else None


class _InFlight:
    __slots__ = ("min_seq", "lanes")

    def __init__(self, min_seq: int, lanes: "set[Lane]") -> None:
        self.min_seq = min_seq
        self.lanes = lanes


def _settle(future: Optional["Future[None]"]) -> None:
    if future is not None and not future.done():
        try:
            future.set_result(None)
        except Exception:  # noqa: BLE001 - settled concurrently
            pass


def settled_future() -> "Future[None]":
    """A future that is already done."""
    future: "Future[None]" = Future()
    future.set_result(None)
    return future


class DeliveryQueue:
    """The outbox and its sending; see the module's documentation."""

    def __init__(
        self, settings: QueueSettings, transport: Transport, report: Callable[[AtsError], None], worker: Worker
    ) -> None:
        self.settings = settings
        self.transport = transport
        self.report = report
        self.worker = worker
        self.lock = threading.RLock()
        self.events_queued = 0
        self.events_delivered = 0
        self.events_dropped = 0
        self.events_failed = 0
        self.sessions_created = 0
        self.sessions_failed = 0
        self.sessions_ended = 0
        self.scores_queued = 0
        self.scores_delivered = 0
        self.scores_failed = 0
        # Lanes whose session start is not yet answered, by session id: a score of one waits behind the start.
        self.starting_lanes: Dict[str, Lane] = {}
        # The lanes of conversations' own scores, by conversation id, while they hold or send one.
        self.conversation_lanes: Dict[str, Lane] = {}
        # Sessions with something waiting (a dict as an ordered set).
        self.waiting: Dict[Lane, None] = {}
        self.queued_events = 0
        self.in_flight: List[_InFlight] = []
        self.last_seq = 0
        # Partial batches of items up to this sequence number are sent now (interval elapsed, flush, immediate).
        self.send_through = 0
        self.flush_waiters: List[Tuple[int, "Future[None]"]] = []
        self.overflow_to_report = 0
        self.pump_scheduled = False
        self.new_since_pump = 0
        self.timer: Optional[asyncio.TimerHandle] = None
        self.stopped = False
        self._stop_event: Optional[asyncio.Event] = None
        self._tasks: set = set()

    # ---- agent threads ----

    def start_session(self, session_id: str, body: bytes, conversation_id: Optional[str] = None) -> Lane:
        """Queues a session's start and returns its lane, which its events and end then join."""
        lane = Lane(session_id, conversation_id)
        with self.lock:
            self.starting_lanes[session_id] = lane
            self.last_seq += 1
            self._append(Item(CREATE, self.last_seq, lane, body))
            self._wake()
        return lane

    def add_event(self, lane: Lane, event_type: str, body: bytes) -> None:
        """Queues one event (its JSON, serialized by the caller)."""
        dropped = False
        with self.lock:
            self.events_queued += 1
            if lane.state == FAILED:
                self.events_failed += 1
                return
            self.last_seq += 1
            self._append(Item(EVENT, self.last_seq, lane, body, event_type))
            self.queued_events += 1
            self.new_since_pump += 1
            if self.queued_events > self.settings.max_queue_size:
                dropped = self._drop_oldest_event()
            if self.settings.immediate:
                self.send_through = self.last_seq
                self._wake()
            elif self.timer is None or (
                self.new_since_pump >= self.settings.max_batch_size
                and len(self.in_flight) < self.settings.max_concurrency
            ):
                self._wake()
            if dropped:
                self.overflow_to_report += 1
                if self.overflow_to_report == 1:
                    self.worker.call_soon(self._report_overflow)

    def add_score(self, session_id: str, body: bytes, lane: Optional[Lane] = None) -> None:
        """Queues a score of a session: behind the session's start when this client is still starting it (``lane``,
        or the lane found by id), else on its own (a session started elsewhere, or already created)."""
        with self.lock:
            self.scores_queued += 1
            into = lane or self.starting_lanes.get(session_id)
            if into is None:
                into = Lane(session_id)
                into.state = CREATED
            if into.state == FAILED:
                self.scores_failed += 1
                return
            self.last_seq += 1
            self._append(Item(SCORE, self.last_seq, into, body))
            self._wake()

    def add_conversation_score(self, conversation_id: str, body: bytes) -> None:
        """Queues a score of a conversation in the conversation's own lane (after its earlier scores), to be sent
        once every item this client queued before it for the conversation's runs is delivered or given up: their
        starts create the conversation, which the service must know before it takes a score of it."""
        with self.lock:
            self.scores_queued += 1
            lane = self.conversation_lanes.get(conversation_id)
            if lane is None:
                lane = Lane(None, conversation_id)
                self.conversation_lanes[conversation_id] = lane
            self.last_seq += 1
            after = tuple((run, self.last_seq) for run in self._runs_of(conversation_id))
            self._append(Item(SCORE, self.last_seq, lane, body, after=after))
            self._wake()

    def end_session(self, lane: Lane, body: bytes) -> "Future[None]":
        """Queues the session's end; the future is done once the end was sent (or given up)."""
        with self.lock:
            if lane.state == FAILED or self.stopped:
                return settled_future()
            self.last_seq += 1
            item = Item(END, self.last_seq, lane, body)
            self._append(item)
            self._wake()
        assert item.settled is not None
        return item.settled

    def flush(self) -> "Future[None]":
        """A future done when everything queued before the call has been delivered or given up."""
        with self.lock:
            seq = self.last_seq
            if self._oldest_outstanding_seq() > seq:
                return settled_future()
            future: "Future[None]" = Future()
            self.flush_waiters.append((seq, future))
            self.send_through = max(self.send_through, seq)
            self._wake()
        return future

    def abandon(self) -> int:
        """After shutdown's deadline: drops what is still queued (returning how many events), stops in-flight
        requests at their next step, and releases every waiter."""
        with self.lock:
            self.stopped = True
            lost = 0
            scores_failed_before = self.scores_failed
            for lane in list(self.waiting):
                lost += self._purge(lane)
            lost_scores = self.scores_failed - scores_failed_before
            self.queued_events = 0
            self.events_failed += lost
            waiters = [future for _, future in self.flush_waiters]
            self.flush_waiters = []
        self.worker.call_soon(self._stop_in_loop)
        for future in waiters:
            _settle(future)
        if lost_scores > 0:
            self.report(
                AtsDeliveryError(
                    "shutdown", f"{lost_scores} scores were still queued when shutdown's time ran out", operation="score"
                )
            )
        if lost > 0:
            self.report(
                AtsDeliveryError(
                    "shutdown",
                    f"{lost} events were still queued when shutdown's time ran out",
                    operation="recordEvents",
                    lost_events=lost,
                )
            )
        return lost

    @property
    def requests_in_flight(self) -> int:
        """Requests being sent (or waiting to retry)."""
        return len(self.in_flight)

    # ---- shared, with the lock held ----

    def _wake(self) -> None:
        if not self.pump_scheduled:
            # False when no thread can start (the interpreter is exiting): the next call tries again.
            self.pump_scheduled = self.worker.call_soon(self._pump)

    def _append(self, item: Item) -> None:
        item.lane.items.append(item)
        self.waiting[item.lane] = None

    def _runs_of(self, conversation_id: str) -> List[Lane]:
        """The conversation's run lanes with something waiting or in flight."""
        lanes: Dict[Lane, None] = dict(self.waiting)
        for token in self.in_flight:
            for lane in token.lanes:
                lanes[lane] = None
        return [lane for lane in lanes if lane.session_id is not None and lane.conversation_id == conversation_id]

    def _runs_settled(self, item: Item) -> bool:
        """Whether every run a conversation's score waits for has delivered (or given up) its items up to the mark."""
        for lane, seq in item.after:
            if lane.busy:
                return False
            first = self._first_of(lane)
            if first is not None and first.seq <= seq:
                return False
        return True

    def _first_of(self, lane: Lane) -> Optional[Item]:
        """The lane's first waiting item, skipping holes; the lane leaves ``waiting`` when it has none."""
        items = lane.items
        head = lane.head
        length = len(items)
        while head < length and items[head] is None:
            head += 1
        if head >= length:
            lane.items = []
            lane.head = 0
            self.waiting.pop(lane, None)
            if lane.session_id is None and not lane.busy:
                self.conversation_lanes.pop(lane.conversation_id or "", None)
            return None
        if head > 1024 and head * 2 > length:
            lane.items = items[head:]
            head = 0
        lane.head = head
        return lane.items[head]

    def _purge(self, lane: Lane) -> int:
        """Removes every waiting item of a lane (ends are settled); returns how many were events."""
        events = 0
        for index in range(lane.head, len(lane.items)):
            item = lane.items[index]
            if item is None:
                continue
            if item.kind == EVENT:
                events += 1
            elif item.kind == SCORE:
                self.scores_failed += 1
            elif item.kind == END:
                _settle(item.settled)
        lane.items = []
        lane.head = 0
        self.waiting.pop(lane, None)
        if lane.session_id is None:
            self.conversation_lanes.pop(lane.conversation_id or "", None)
        return events

    def _drop_oldest_event(self) -> bool:
        oldest: Optional[Tuple[Lane, int, int]] = None
        for lane in self.waiting:
            items = lane.items
            for index in range(lane.head, len(items)):
                item = items[index]
                if item is None or item.kind != EVENT:
                    continue
                if oldest is None or item.seq < oldest[2]:
                    oldest = (lane, index, item.seq)
                break
        if oldest is None:
            return False
        lane, index, _ = oldest
        lane.items[index] = None
        self._first_of(lane)
        self.queued_events -= 1
        self.events_dropped += 1
        return True

    def _oldest_outstanding_seq(self) -> float:
        oldest = float("inf")
        for lane in list(self.waiting):
            first = self._first_of(lane)
            if first is not None and first.seq < oldest:
                oldest = first.seq
        for token in self.in_flight:
            if token.min_seq < oldest:
                oldest = token.min_seq
        return oldest

    # ---- the delivery thread ----

    def stop_event(self) -> asyncio.Event:
        """The event shutdown's deadline sets (on the delivery thread only): direct requests stop with the queue's."""
        return self._stop_event_in_loop()

    def _stop_event_in_loop(self) -> asyncio.Event:
        if self._stop_event is None:
            self._stop_event = asyncio.Event()
            if self.stopped:
                self._stop_event.set()
        return self._stop_event

    def _stop_in_loop(self) -> None:
        self._stop_event_in_loop().set()
        with self.lock:
            if self.timer is not None:
                self.timer.cancel()
                self.timer = None

    def _report_overflow(self) -> None:
        with self.lock:
            dropped = self.overflow_to_report
            self.overflow_to_report = 0
        if dropped > 0:
            self.report(
                AtsDroppedEventsError(
                    "queue_overflow",
                    f"{dropped} events dropped: more than max_queue_size ({self.settings.max_queue_size}) were "
                    "waiting to be sent",
                    lost_events=dropped,
                )
            )

    def _pump(self) -> None:
        started: List[Tuple[Any, _InFlight]] = []
        with self.lock:
            self.pump_scheduled = False
            self.new_since_pump = 0
            if not self.stopped:
                while len(self.in_flight) < self.settings.max_concurrency:
                    work = self._take_work()
                    if work is None:
                        break
                    started.append((work, self._mark_in_flight(work)))
            waiters = self._due_flush_waiters()
            self._arm_timer()
        loop = asyncio.get_event_loop()
        for work, token in started:
            task = loop.create_task(self._run(work, token))
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)
        for future in waiters:
            _settle(future)

    def _mark_in_flight(self, work: Tuple[str, Any]) -> _InFlight:
        kind, payload = work
        if kind == "batch":
            for item in payload:
                item.lane.busy = True
            token = _InFlight(min(item.seq for item in payload), {item.lane for item in payload})
        else:
            payload.lane.busy = True
            token = _InFlight(payload.seq, {payload.lane})
        self.in_flight.append(token)
        return token

    def _due_flush_waiters(self) -> List["Future[None]"]:
        if not self.flush_waiters:
            return []
        oldest = self._oldest_outstanding_seq()
        due = [future for seq, future in self.flush_waiters if seq < oldest]
        if due:
            self.flush_waiters = [(seq, future) for seq, future in self.flush_waiters if seq >= oldest]
        return due

    def _arm_timer(self) -> None:
        if self.timer is not None or self.settings.immediate or not self.waiting or self.stopped:
            return
        self.timer = asyncio.get_event_loop().call_later(self.settings.flush_interval, self._on_interval)

    def _on_interval(self) -> None:
        with self.lock:
            self.timer = None
            self.send_through = self.last_seq
        self._pump()

    def _take_work(self) -> Optional[Tuple[str, Any]]:
        """The next request. Idle sessions are taken oldest first (by their first waiting item); a batch takes the
        first one's leading events (as many as fit) and then only sessions whose leading events all fit, so batches
        touch few sessions and leave the others free for the next concurrent request. A batch goes when full, or
        when its oldest event is due (interval, flush, immediate mode); otherwise the oldest session start or end
        waiting at the head of an idle session goes."""
        settings = self.settings
        ready: List[Tuple[int, Lane, Item]] = []
        for lane in list(self.waiting):
            if lane.busy:
                continue
            first = self._first_of(lane)
            # A conversation's score waits until the conversation's runs queued before it are sent.
            if first is not None and (first.kind != SCORE or self._runs_settled(first)):
                ready.append((first.seq, lane, first))
        ready.sort(key=lambda entry: entry[0])
        batch: List[Item] = []
        taken: List[Tuple[Lane, int]] = []
        size = _ENVELOPE_BYTES
        full = False
        control: Optional[Lane] = None
        for _, lane, first in ready:
            if first.kind != EVENT:
                if control is None:
                    control = lane
                continue
            if lane.state != CREATED:
                continue
            if batch and not self._fits_whole(lane, len(batch), size):
                # Another session joins a batch only with all its waiting events.
                full = True
                break
            items = lane.items
            index = lane.head
            length = len(items)
            while index < length:
                item = items[index]
                if item is None:
                    index += 1
                    continue
                if item.kind != EVENT:
                    break
                if len(batch) >= settings.max_batch_size or (
                    batch and size + len(item.body) + 1 > settings.max_batch_bytes
                ):
                    full = True
                    break
                batch.append(item)
                size += len(item.body) + 1
                index += 1
            taken.append((lane, index))
            if full or len(batch) >= settings.max_batch_size:
                full = True
                break
        due = batch and any(item.seq <= self.send_through for item in batch)
        # A full batch goes before it is due only when it holds few sessions' events: while the agent records
        # round-robin over many sessions, a batch spanning all of them costs the service a read per session; a
        # moment later each session's own backlog fills batches alone. Due batches (interval, flush, immediate
        # mode) go whatever they hold.
        if batch and (due or (full and len(taken) <= _EARLY_BATCH_SESSIONS)):
            for lane, index in taken:
                for position in range(lane.head, index):
                    lane.items[position] = None
                lane.head = index
            self.queued_events -= len(batch)
            return ("batch", batch)
        if control is not None:
            item = control.items[control.head]
            control.items[control.head] = None
            control.head += 1
            return ("single", item)
        return None

    def _fits_whole(self, lane: Lane, count: int, size: int) -> bool:
        total = count
        for index in range(lane.head, len(lane.items)):
            item = lane.items[index]
            if item is None:
                continue
            if item.kind != EVENT:
                break
            total += 1
            size += len(item.body) + 1
            if total > self.settings.max_batch_size or size > self.settings.max_batch_bytes:
                return False
        return True

    async def _run(self, work: Tuple[str, Any], token: _InFlight) -> None:
        kind, payload = work
        lanes = {item.lane for item in payload} if kind == "batch" else {payload.lane}
        try:
            if kind == "batch":
                await self._send_events(payload)
            else:
                await self._send_single(payload)
        except Exception as error:  # noqa: BLE001 - a defect of the client: reported, never raised into the agent
            self.report(AtsDeliveryError("rejected", f"Internal client error: {error!r}", operation="deliver"))
        finally:
            with self.lock:
                for lane in lanes:
                    lane.busy = False
                    self._first_of(lane)
                if token in self.in_flight:
                    self.in_flight.remove(token)
            self._pump()

    async def _send_single(self, item: Item) -> None:
        if item.kind == SCORE:
            await self._send_score(item)
            return
        creating = item.kind == CREATE
        session_id = item.lane.session_id or ""
        request = (
            ApiRequest("POST", "/api/sdk/sessions", item.body, item.idempotency_key)
            if creating
            else ApiRequest("PATCH", f"/api/sdk/sessions/{session_id}", item.body, item.idempotency_key)
        )
        delivery = await self.transport.deliver(request, self._stop_event_in_loop())
        ok = isinstance(delivery, Answered) and 200 <= delivery.status < 300
        if creating:
            with self.lock:
                self.starting_lanes.pop(session_id, None)
            if ok:
                with self.lock:
                    item.lane.state = CREATED
                    self.sessions_created += 1
                return
            with self.lock:
                item.lane.state = FAILED
                self.sessions_failed += 1
                lost = self._purge(item.lane)
                self.queued_events -= lost
                self.events_failed += lost
            self.report(
                session_not_created_error(session_id, delivery_failure(delivery, "createSession", session_id, lost))
            )
            return
        try:
            if ok:
                with self.lock:
                    self.sessions_ended += 1
            else:
                self.report(delivery_failure(delivery, "endSession", session_id, 0))
        finally:
            _settle(item.settled)

    async def _send_score(self, item: Item) -> None:
        """One score (a retry of it replaces, never adds: the body carries its id); a refusal is reported."""
        request = ApiRequest("POST", "/api/sdk/scores", item.body, item.idempotency_key)
        delivery = await self.transport.deliver(request, self._stop_event_in_loop())
        if isinstance(delivery, Answered) and 200 <= delivery.status < 300:
            with self.lock:
                self.scores_delivered += 1
            return
        with self.lock:
            self.scores_failed += 1
        lane = item.lane
        conversation_id = lane.conversation_id if lane.session_id is None else None
        self.report(delivery_failure(delivery, "score", lane.session_id, 0, conversation_id))

    async def _send_events(self, items: List[Item]) -> None:
        """One batch request (a fresh Idempotency-Key, the events' own ids), then the events the service answered
        with a retryable status again, until each is stored, refused or out of retries. A 413 splits the batch."""
        pending = items
        retry = 0
        stop = self._stop_event_in_loop()
        while pending:
            body = b'{"events":[' + b",".join(item.body for item in pending) + b"]}"
            delivery = await self.transport.deliver(
                ApiRequest("POST", "/api/sdk/events/batch", body, new_idempotency_key()), stop
            )
            if isinstance(delivery, GaveUp):
                self._lose(len(pending), delivery_failure(delivery, "recordEvents", None, len(pending)))
                return
            if delivery.status == 413 and len(pending) > 1:
                half = (len(pending) + 1) // 2
                await self._send_events(pending[:half])
                await self._send_events(pending[half:])
                return
            results = batch_results(delivery.body, len(pending)) if delivery.status == 200 else None
            if results is None:
                self._lose(len(pending), delivery_failure(delivery, "recordEvents", None, len(pending)))
                return
            again: List[Item] = []
            refused: List[Dict[str, Any]] = []
            delivered = 0
            for item, result in zip(pending, results):
                status = result["status"]
                if 200 <= status < 300:
                    delivered += 1
                elif is_retryable_status(status, result.get("error")):
                    again.append(item)
                else:
                    refused.append(
                        {
                            "sessionId": item.lane.session_id,
                            "eventType": item.event_type,
                            "status": status,
                            "error": result.get("error"),
                        }
                    )
            with self.lock:
                self.events_delivered += delivered
            if refused:
                self._lose(len(refused), refused_events_error(refused))
            if again and (retry >= self.settings.max_retries or stop.is_set()):
                code = "shutdown" if stop.is_set() else "retries_exhausted"
                self._lose(
                    len(again),
                    AtsDeliveryError(
                        code,
                        f"{len(again)} events still failed after {retry + 1} batch attempts",
                        operation="recordEvents",
                        status=results[pending.index(again[0])]["status"],
                        attempts=retry + 1,
                        lost_events=len(again),
                    ),
                )
                return
            if again:
                delay = retry_delay(retry, self.settings.backoff)
                try:
                    await asyncio.wait_for(stop.wait(), delay)
                except asyncio.TimeoutError:
                    pass
            pending = again
            retry += 1

    def _lose(self, count: int, error: AtsDeliveryError) -> None:
        with self.lock:
            self.events_failed += count
        self.report(error)
