"""A fake ats service on 127.0.0.1 for tests at the HTTP boundary: it records every request (method, path,
headers, decoded body) and answers as the real service does, unless a test scripts other answers (statuses,
Retry-After, 413 for large batches, per-event results, a connection dropped without an answer)."""

from __future__ import annotations

import gzip
import json
import socketserver
import ssl
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Callable, Dict, List, Optional, Tuple


@dataclass
class Received:
    """One request as the fake service saw it."""

    method: str
    path: str
    headers: Dict[str, str]
    raw: bytes
    body: Any
    at: float = field(default_factory=time.monotonic)


# A scripted answer: (status, JSON body or None, extra headers), or "drop" to close the connection unanswered.
Answer = Any
Script = Callable[[Received], Optional[Answer]]


class FakeService:
    """Start with ``FakeService()``, use ``url``, ``requests``, ``events()``; ``script`` decides answers (``None``
    from it means: answer as the service would)."""

    def __init__(
        self, script: Optional[Script] = None, delay: float = 0.0, tls: Optional[Tuple[str, str]] = None
    ) -> None:
        self.requests: List[Received] = []
        self.lock = threading.Lock()
        self.script = script
        self.delay = delay
        self.stored_events: Dict[str, Dict[str, Any]] = {}
        self.sessions: Dict[str, Dict[str, Any]] = {}
        self.in_flight = 0
        self.max_in_flight = 0
        service = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: Any) -> None:  # quiet
                pass

            def _handle(self) -> None:
                length = int(self.headers.get("content-length") or 0)
                raw = self.rfile.read(length)
                data = gzip.decompress(raw) if self.headers.get("content-encoding") == "gzip" else raw
                try:
                    body = json.loads(data) if data else None
                except ValueError:
                    body = data
                received = Received(self.command, self.path, {k.lower(): v for k, v in self.headers.items()}, raw, body)
                with service.lock:
                    service.requests.append(received)
                    service.in_flight += 1
                    service.max_in_flight = max(service.max_in_flight, service.in_flight)
                try:
                    if service.delay:
                        time.sleep(service.delay)
                    answer = service.script(received) if service.script else None
                    if answer is None:
                        answer = service.answer(received)
                    if answer == "drop":
                        self.close_connection = True
                        self.connection.shutdown(2)
                        return
                    status, payload, headers = answer
                    text = b"" if payload is None else json.dumps(payload).encode()
                    self.send_response(status)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(text)))
                    for name, value in (headers or {}).items():
                        self.send_header(name, value)
                    self.end_headers()
                    self.wfile.write(text)
                finally:
                    with service.lock:
                        service.in_flight -= 1

            do_POST = _handle
            do_PATCH = _handle
            do_GET = _handle

        class Server(ThreadingHTTPServer):
            daemon_threads = True
            allow_reuse_address = True

            def handle_error(self, request: Any, client_address: Any) -> None:
                pass  # a client that hung up (a cancelled request, a process that exited) is part of the tests

        self.server = Server(("127.0.0.1", 0), Handler)
        self.scheme = "http"
        if tls is not None:  # (certificate file, key file): serve HTTPS
            context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
            context.load_cert_chain(*tls)
            self.server.socket = context.wrap_socket(self.server.socket, server_side=True)
            self.scheme = "https"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    @property
    def url(self) -> str:
        """``http://127.0.0.1:<port>`` (``https://localhost:<port>`` with TLS)."""
        return f"{self.scheme}://localhost:{self.server.server_address[1]}" if self.scheme == "https" else f"http://127.0.0.1:{self.server.server_address[1]}"

    def answer(self, received: Received) -> Tuple[int, Any, Dict[str, str]]:
        """What the real service answers (ok paths only: sessions, events by id, once each)."""
        body = received.body if isinstance(received.body, dict) else {}
        if received.method == "POST" and received.path == "/api/sdk/sessions":
            with self.lock:
                self.sessions.setdefault(body.get("id", ""), dict(body))
            return 201, {"id": body.get("id"), "status": "active"}, {}
        if received.method == "PATCH" and received.path.startswith("/api/sdk/sessions/"):
            with self.lock:
                self.sessions.setdefault(received.path.rsplit("/", 1)[1], {})["end"] = body
            return 200, {"status": body.get("status")}, {}
        if received.method == "POST" and received.path == "/api/sdk/events/batch":
            results = []
            for index, event in enumerate(body.get("events", [])):
                with self.lock:
                    replayed = event["id"] in self.stored_events
                    self.stored_events.setdefault(event["id"], event)
                results.append({"index": index, "status": 201, "id": event["id"], "replayed": replayed})
            return 200, {"results": results}, {}
        return 404, {"error": "Not Found", "message": "no such route"}, {}

    def batches(self) -> List[Received]:
        """The batch requests received."""
        with self.lock:
            return [r for r in self.requests if r.path == "/api/sdk/events/batch"]

    def close(self) -> None:
        """Stops serving and closes the socket."""
        self.server.shutdown()
        self.server.server_close()


__all__ = ["FakeService", "Received", "socketserver"]
