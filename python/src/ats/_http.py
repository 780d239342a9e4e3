"""A small HTTP/1.1 client on asyncio streams, for the delivery thread's event loop: several requests in flight
from one thread, kept-alive connections to the one service origin, TLS with the system's certificates. It sends
what the client sends (POST/PATCH with a body) and reads any well-formed answer (Content-Length, chunked, or
until the connection closes)."""

from __future__ import annotations

import asyncio
import socket
import ssl
import time
from dataclasses import dataclass
from typing import Dict, List, Optional, Tuple
from urllib.parse import urlsplit

# Answers are JSON of a few KiB; anything this large is not the service.
MAX_RESPONSE_BYTES = 16 * 1024 * 1024
# Servers close idle connections (Node after 5 s): older idle connections are not reused.
IDLE_REUSE_SECONDS = 4.0
MAX_IDLE_CONNECTIONS = 16


@dataclass(frozen=True)
class HttpAnswer:
    """An HTTP answer: status, headers (names in lower case) and body."""

    status: int
    headers: Dict[str, str]
    body: bytes


class HttpProtocolError(ConnectionError):
    """The peer did not answer in HTTP/1.x."""


@dataclass
class _Connection:
    reader: asyncio.StreamReader
    writer: asyncio.StreamWriter
    idle_since: float

    def close(self) -> None:
        try:
            self.writer.close()
        except Exception:  # noqa: BLE001 - already gone
            pass


class _NothingReceived(ConnectionError):
    """A kept-alive connection failed before any byte of the answer: the server had closed it."""


class HttpClient:
    """Requests to one origin (``base_url``'s scheme, host and port; its path is a prefix of every request path)."""

    def __init__(self, base_url: str) -> None:
        parts = urlsplit(base_url)
        self.tls = parts.scheme == "https"
        self.host = parts.hostname or ""
        self.port = parts.port or (443 if self.tls else 80)
        self.prefix = parts.path.rstrip("/")
        host_text = f"[{self.host}]" if ":" in self.host else self.host
        default_port = 443 if self.tls else 80
        self.host_header = host_text if self.port == default_port else f"{host_text}:{self.port}"
        self._idle: List[_Connection] = []
        self._ssl_context: Optional[ssl.SSLContext] = None

    async def request(self, method: str, path: str, headers: Dict[str, str], body: bytes) -> HttpAnswer:
        """Sends one request and reads its answer. Raises ``OSError``/``ConnectionError`` (and subclasses) on
        network failures; the caller bounds the time with ``asyncio.wait_for``."""
        head = self._head(method, path, headers, len(body))
        connection = self._take_idle()
        if connection is not None:
            try:
                return await self._exchange(connection, head, body)
            except _NothingReceived:
                pass  # the server closed it while idle: once more on a fresh connection
        connection = await self._connect()
        try:
            return await self._exchange(connection, head, body)
        except _NothingReceived as error:
            raise ConnectionError(str(error)) from None

    def close(self) -> None:
        """Closes the idle connections."""
        idle, self._idle = self._idle, []
        for connection in idle:
            connection.close()

    def _head(self, method: str, path: str, headers: Dict[str, str], length: int) -> bytes:
        lines = [f"{method} {self.prefix}{path} HTTP/1.1", f"Host: {self.host_header}", f"Content-Length: {length}"]
        lines.extend(f"{name}: {value}" for name, value in headers.items())
        return ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1")

    def _take_idle(self) -> Optional[_Connection]:
        now = time.monotonic()
        while self._idle:
            connection = self._idle.pop()
            if now - connection.idle_since < IDLE_REUSE_SECONDS and not connection.reader.at_eof():
                return connection
            connection.close()
        return None

    def _release(self, connection: _Connection) -> None:
        connection.idle_since = time.monotonic()
        if len(self._idle) >= MAX_IDLE_CONNECTIONS:
            connection.close()
        else:
            self._idle.append(connection)

    def _context(self) -> ssl.SSLContext:
        if self._ssl_context is None:
            self._ssl_context = ssl.create_default_context()
        return self._ssl_context

    async def _connect(self) -> _Connection:
        loop = asyncio.get_running_loop()
        # Resolved here rather than in asyncio's executor: a thread pool refuses work once the interpreter is
        # exiting, which is exactly when the atexit hook sends what is left.
        addresses = socket.getaddrinfo(self.host, self.port, type=socket.SOCK_STREAM)
        last_error: Optional[OSError] = None
        for family, kind, protocol, _, address in addresses:
            sock = socket.socket(family, kind, protocol)
            sock.setblocking(False)
            try:
                await loop.sock_connect(sock, address)
            except OSError as error:
                sock.close()
                last_error = error
                continue
            except BaseException:
                sock.close()
                raise
            try:
                sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
                reader, writer = await asyncio.open_connection(
                    sock=sock,
                    ssl=self._context() if self.tls else None,
                    server_hostname=self.host if self.tls else None,
                    limit=256 * 1024,
                )
            except BaseException:
                sock.close()
                raise
            return _Connection(reader, writer, time.monotonic())
        raise last_error or ConnectionError(f"no address for {self.host}")

    async def _exchange(self, connection: _Connection, head: bytes, body: bytes) -> HttpAnswer:
        received = False
        try:
            connection.writer.write(head + body if len(body) < 65536 else head)
            if len(body) >= 65536:
                connection.writer.write(body)
            await connection.writer.drain()
            while True:
                status_line = await connection.reader.readline()
                if not status_line:
                    raise _NothingReceived("the connection closed before an answer")
                received = True
                version, status = _status(status_line)
                headers = await _headers(connection.reader)
                if 100 <= status < 200:
                    continue
                break
            body_bytes, framed = (b"", True) if status in (204, 304) else await _body(connection.reader, headers)
        except _NothingReceived:
            connection.close()
            raise
        except (asyncio.IncompleteReadError, ConnectionError, OSError) as error:
            connection.close()
            if not received:
                raise _NothingReceived(f"the connection failed before an answer: {error!r}") from None
            raise
        except BaseException:
            connection.close()
            raise
        keep = framed and version == "HTTP/1.1" and "close" not in headers.get("connection", "").lower()
        if keep:
            self._release(connection)
        else:
            connection.close()
        return HttpAnswer(status, headers, body_bytes)


def _status(line: bytes) -> Tuple[str, int]:
    parts = line.decode("latin-1").rstrip("\r\n").split(" ", 2)
    if len(parts) < 2 or not parts[0].startswith("HTTP/1.") or not parts[1].isdigit():
        raise HttpProtocolError(f"not an HTTP/1.x answer: {line[:80]!r}")
    return parts[0], int(parts[1])


async def _headers(reader: asyncio.StreamReader) -> Dict[str, str]:
    headers: Dict[str, str] = {}
    for _ in range(200):
        line = await reader.readline()
        if not line:
            raise asyncio.IncompleteReadError(b"", None)
        if line in (b"\r\n", b"\n"):
            return headers
        name, _, value = line.decode("latin-1").partition(":")
        key = name.strip().lower()
        text = value.strip()
        headers[key] = f"{headers[key]}, {text}" if key in headers else text
    raise HttpProtocolError("too many header lines")


async def _body(reader: asyncio.StreamReader, headers: Dict[str, str]) -> Tuple[bytes, bool]:
    """The answer's body, and whether it was framed (so the connection may be reused)."""
    if "chunked" in headers.get("transfer-encoding", "").lower():
        chunks: List[bytes] = []
        total = 0
        while True:
            size_line = await reader.readline()
            if not size_line:
                raise asyncio.IncompleteReadError(b"", None)
            try:
                size = int(size_line.split(b";", 1)[0].strip(), 16)
            except ValueError:
                raise HttpProtocolError(f"bad chunk size {size_line[:40]!r}") from None
            if size == 0:
                while True:  # trailers, then the blank line
                    trailer = await reader.readline()
                    if trailer in (b"\r\n", b"\n", b""):
                        break
                return b"".join(chunks), True
            total += size
            if total > MAX_RESPONSE_BYTES:
                raise HttpProtocolError("answer too large")
            chunks.append(await reader.readexactly(size))
            await reader.readexactly(2)
    length = headers.get("content-length")
    if length is not None:
        try:
            size = int(length)
        except ValueError:
            raise HttpProtocolError(f"bad Content-Length {length!r}") from None
        if size < 0 or size > MAX_RESPONSE_BYTES:
            raise HttpProtocolError("answer too large")
        return await reader.readexactly(size), True
    parts: List[bytes] = []
    total = 0
    while True:
        part = await reader.read(65536)
        if not part:
            return b"".join(parts), False
        total += len(part)
        if total > MAX_RESPONSE_BYTES:
            raise HttpProtocolError("answer too large")
        parts.append(part)
