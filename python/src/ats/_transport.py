"""One request to the service, sent until it gets an answer a retry cannot change: gzip above a threshold, the same
Idempotency-Key on every attempt, exponential backoff with full jitter, ``Retry-After`` honoured. Runs on the
delivery thread's event loop."""

from __future__ import annotations

import asyncio
import json
import zlib
from dataclasses import dataclass
from typing import Any, Optional, Union

from ._backoff import BackoffPolicy, parse_retry_after, retry_delay
from ._http import HttpClient
from ._retry_policy import is_retryable_status

# Bodies above 1 KiB are sent gzip-compressed.
COMPRESS_ABOVE_BYTES = 1024


@dataclass(frozen=True)
class ApiRequest:
    """A request: method, path below the base URL, the body already serialized, and its idempotency key."""

    method: str
    path: str
    body: bytes
    idempotency_key: str


@dataclass(frozen=True)
class Answered:
    """The request was answered with a status a retry cannot change."""

    status: int
    body: Any
    attempts: int
    target: str = ""
    """Where the request went (``POST https://…/api/sdk/sessions``), for the reports."""


@dataclass(frozen=True)
class GaveUp:
    """The request was given up: retries spent (``retries_exhausted``) or shutdown's deadline (``stopped``)."""

    reason: str
    last_status: Optional[int]
    last_body: Any
    last_error: Optional[str]
    attempts: int
    target: str = ""
    """Where the request went (``POST https://…/api/sdk/sessions``), for the reports."""


Delivery = Union[Answered, GaveUp]


def gzip_bytes(data: bytes) -> bytes:
    """The gzip encoding of ``data`` (level 6, as Node's default)."""
    compressor = zlib.compressobj(6, zlib.DEFLATED, 31)
    return compressor.compress(data) + compressor.flush()


class Transport:
    """Sends requests to the service and counts requests, retries and bytes for ``stats()``."""

    def __init__(
        self,
        *,
        base_url: str,
        api_key: str,
        max_retries: int,
        backoff: BackoffPolicy,
        request_timeout: float,
        user_agent: str,
    ) -> None:
        self.client = HttpClient(base_url)
        self.base_url = base_url
        self.api_key = api_key
        self.max_retries = max_retries
        self.backoff = backoff
        self.request_timeout = request_timeout
        self.user_agent = user_agent
        self.requests = 0
        self.retries = 0
        self.bytes_sent = 0
        self.bytes_before_compression = 0

    async def deliver(self, request: ApiRequest, stop: asyncio.Event) -> Delivery:
        """Sends ``request`` until it is answered with a status a retry cannot change, ``max_retries`` retries are
        spent, or ``stop`` is set (shutdown's deadline)."""
        gzipped = len(request.body) > COMPRESS_ABOVE_BYTES
        payload = gzip_bytes(request.body) if gzipped else request.body
        headers = {
            "Authorization": f"Bearer {self.api_key}",
            "Content-Type": "application/json",
            "Idempotency-Key": request.idempotency_key,
            "User-Agent": self.user_agent,
        }
        if gzipped:
            headers["Content-Encoding"] = "gzip"
        target = f"{request.method} {self.base_url}{request.path}"
        last_status: Optional[int] = None
        last_body: Any = None
        last_error: Optional[str] = None
        attempt = 0
        while True:
            if stop.is_set():
                return GaveUp("stopped", last_status, last_body, last_error, attempt, target)
            retry_after: Optional[float] = None
            self.requests += 1
            self.bytes_sent += len(payload)
            self.bytes_before_compression += len(request.body)
            outcome = await _until_stopped(self._attempt(request, headers, payload), stop)
            if outcome is None:
                return GaveUp("stopped", last_status, last_body, last_error, attempt + 1, target)
            if isinstance(outcome, BaseException):
                last_error = _describe(outcome)
                last_status = None
                last_body = None
            else:
                status, body, retry_after = outcome
                if not is_retryable_status(status, body):
                    return Answered(status, body, attempt + 1, target)
                last_status, last_body, last_error = status, body, None
            if attempt >= self.max_retries:
                return GaveUp("retries_exhausted", last_status, last_body, last_error, attempt + 1, target)
            self.retries += 1
            await _sleep_unless_stopped(retry_delay(attempt, self.backoff, retry_after), stop)
            attempt += 1

    async def _attempt(self, request: ApiRequest, headers: dict, payload: bytes) -> Any:
        try:
            answer = await asyncio.wait_for(
                self.client.request(request.method, request.path, headers, payload), self.request_timeout
            )
        except asyncio.CancelledError:
            raise
        except (Exception, asyncio.TimeoutError) as error:  # noqa: BLE001 - every failure is a network failure here
            return error
        text = answer.body.decode("utf-8", "replace")
        body: Any = None
        if text:
            try:
                body = json.loads(text)
            except ValueError:
                body = text  # not JSON (a proxy's HTML page, say): kept as text for the report
        return answer.status, body, parse_retry_after(answer.headers.get("retry-after"))

    def close(self) -> None:
        """Closes the kept-alive connections."""
        self.client.close()


def _describe(error: BaseException) -> str:
    if isinstance(error, asyncio.TimeoutError):
        return "timed out"
    text = str(error)
    return f"{type(error).__name__}: {text}" if text else type(error).__name__


async def _until_stopped(work: Any, stop: asyncio.Event) -> Any:
    """``work``'s result, or ``None`` when ``stop`` is set first (the work is then cancelled)."""
    task = asyncio.ensure_future(work)
    if stop.is_set():
        task.cancel()
        return None
    stopper = asyncio.ensure_future(stop.wait())
    try:
        await asyncio.wait({task, stopper}, return_when=asyncio.FIRST_COMPLETED)
    finally:
        stopper.cancel()
    if task.done():
        return task.result()
    task.cancel()
    return None


async def _sleep_unless_stopped(seconds: float, stop: asyncio.Event) -> None:
    if seconds <= 0 or stop.is_set():
        return
    try:
        await asyncio.wait_for(stop.wait(), seconds)
    except asyncio.TimeoutError:
        pass
