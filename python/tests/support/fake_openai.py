"""An OpenAI-compatible fake server on 127.0.0.1, and small clients shaped like the ``openai`` package's
(``OpenAI``/``AsyncOpenAI``: ``client.chat.completions.create``, ``client.responses.create``, ``with_options``;
answers as attribute objects; ``Stream``/``AsyncStream`` over server-sent events; ``APIStatusError`` with
``status_code``, ``request_id``, ``code``, ``type``). The server answers by model name:

- any model: a fixed answer and usage, streamed as the real API streams it when ``stream`` is true
  (``include_usage`` adds ``usage: null`` to each chunk and a last usage-only chunk);
- ``"o3"`` (served as ``o3-2025-04-16``): a reasoning model's usage, ``REASONING_USAGE`` in the chat shape or
  ``REASONING_RESPONSES_USAGE`` in the Responses shape (cached and reasoning tokens both non-zero);
- ``"rate-limited"``: a 429 with an OpenAI error body and ``x-request-id``;
- ``"cut"``: a stream that closes after two chunks without ``[DONE]``.
"""

from __future__ import annotations

import asyncio
import http.client
import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Dict, Iterator, List, Optional
from urllib.parse import urlsplit

ANSWER = ["Refunds take ", "5 business days."]
CHAT_USAGE = {
    "prompt_tokens": 1200,
    "completion_tokens": 30,
    "total_tokens": 1230,
    "prompt_tokens_details": {"cached_tokens": 1000},
    "completion_tokens_details": {"reasoning_tokens": 0},
}
RESPONSES_USAGE = {
    "input_tokens": 500,
    "output_tokens": 40,
    "total_tokens": 540,
    "input_tokens_details": {"cached_tokens": 0},
    "output_tokens_details": {"reasoning_tokens": 12},
}
REASONING_USAGE = {
    "prompt_tokens": 800,
    "completion_tokens": 300,
    "total_tokens": 1100,
    "prompt_tokens_details": {"cached_tokens": 512, "audio_tokens": 0},
    "completion_tokens_details": {"reasoning_tokens": 256, "audio_tokens": 0},
}
REASONING_RESPONSES_USAGE = {
    "input_tokens": 800,
    "output_tokens": 300,
    "total_tokens": 1100,
    "input_tokens_details": {"cached_tokens": 512},
    "output_tokens_details": {"reasoning_tokens": 256},
}


def _served_model(requested: str) -> str:
    return {"gpt-4o-mini": "gpt-4o-mini-2024-07-18", "gpt-4o": "gpt-4o-2024-08-06", "o3": "o3-2025-04-16"}.get(
        requested, requested
    )


def _chat_usage(body: Dict[str, Any]) -> Dict[str, Any]:
    return REASONING_USAGE if body["model"] == "o3" else CHAT_USAGE


def _responses_usage(body: Dict[str, Any]) -> Dict[str, Any]:
    return REASONING_RESPONSES_USAGE if body["model"] == "o3" else RESPONSES_USAGE


def _chat_chunks(body: Dict[str, Any]) -> List[Dict[str, Any]]:
    include_usage = bool((body.get("stream_options") or {}).get("include_usage"))
    base = {"id": "chatcmpl-1", "object": "chat.completion.chunk", "created": 1, "model": _served_model(body["model"])}
    deltas = [{"role": "assistant", "content": ""}] + [{"content": text} for text in ANSWER] + [{}]
    chunks = []
    for index, delta in enumerate(deltas):
        finish = "stop" if index == len(deltas) - 1 else None
        chunk = dict(base, choices=[{"index": 0, "delta": delta, "finish_reason": finish}])
        if include_usage:
            chunk["usage"] = None
        chunks.append(chunk)
    if include_usage:
        chunks.append(dict(base, choices=[], usage=_chat_usage(body)))
    return chunks


def _response(body: Dict[str, Any]) -> Dict[str, Any]:
    return {
        "id": "resp_1",
        "object": "response",
        "model": _served_model(body["model"]),
        "status": "completed",
        "output": [
            {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "".join(ANSWER)}]}
        ],
        "usage": _responses_usage(body),
    }


class FakeOpenAIServer:
    """The server; ``requests`` keeps every JSON body received."""

    def __init__(self) -> None:
        self.requests: List[Dict[str, Any]] = []
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: Any) -> None:
                pass

            def do_POST(self) -> None:  # noqa: N802
                body = json.loads(self.rfile.read(int(self.headers["content-length"])))
                server.requests.append({"path": self.path, **body})
                if body["model"] == "rate-limited":
                    error = {"error": {"message": "Rate limit reached", "type": "requests", "code": "rate_limit_exceeded"}}
                    self._json(429, error, {"x-request-id": "req_123"})
                    return
                chat = self.path.endswith("/chat/completions")
                if not body.get("stream"):
                    if chat:
                        message = {"role": "assistant", "content": "".join(ANSWER)}
                        completion = {
                            "id": "chatcmpl-1",
                            "object": "chat.completion",
                            "model": _served_model(body["model"]),
                            "choices": [{"index": 0, "message": message, "finish_reason": "stop"}],
                            "usage": _chat_usage(body),
                        }
                        self._json(200, completion)
                    else:
                        self._json(200, _response(body))
                    return
                if chat:
                    events = _chat_chunks(body)
                else:
                    response = _response(body)
                    events = [{"type": "response.created", "response": dict(response, status="in_progress", output=[], usage=None)}]
                    events += [{"type": "response.output_text.delta", "delta": text} for text in ANSWER]
                    events.append({"type": "response.completed", "response": response})
                self.send_response(200)
                self.send_header("Content-Type", "text/event-stream")
                self.send_header("Connection", "close")
                self.end_headers()
                for index, event in enumerate(events):
                    if body["model"] == "cut" and index == 2:
                        self.wfile.flush()
                        self.close_connection = True
                        return
                    self.wfile.write(f"data: {json.dumps(event)}\n\n".encode())
                    self.wfile.flush()
                self.wfile.write(b"data: [DONE]\n\n")
                self.close_connection = True

            def _json(self, status: int, payload: Any, headers: Optional[Dict[str, str]] = None) -> None:
                text = json.dumps(payload).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(text)))
                for name, value in (headers or {}).items():
                    self.send_header(name, value)
                self.end_headers()
                self.wfile.write(text)

        class Server(ThreadingHTTPServer):
            daemon_threads = True

            def handle_error(self, request: Any, client_address: Any) -> None:
                pass  # a stream the client left early: the tests look at the client's side

        self.server = Server(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        self.base_url = f"http://127.0.0.1:{self.server.server_address[1]}/v1"

    def close(self) -> None:
        """Stops the server."""
        self.server.shutdown()
        self.server.server_close()


# ---- the client, shaped like the openai package's ----


class Model:
    """An answer object: JSON objects become attribute objects (as openai's pydantic models), lists stay lists."""

    def __init__(self, data: Dict[str, Any]) -> None:
        for key, value in data.items():
            setattr(self, key, _model(value))


def _model(value: Any) -> Any:
    if isinstance(value, dict):
        return Model(value)
    if isinstance(value, list):
        return [_model(item) for item in value]
    return value


class APIConnectionError(Exception):
    """The connection failed (openai.APIConnectionError)."""


class APIStatusError(Exception):
    """An error answer (openai.APIStatusError)."""

    def __init__(self, message: str, status_code: int, request_id: Optional[str], body: Any) -> None:
        super().__init__(message)
        self.message = message
        self.status_code = status_code
        self.request_id = request_id
        self.body = body
        error = body.get("error", {}) if isinstance(body, dict) else {}
        self.code = error.get("code")
        self.type = error.get("type")


def _post(base_url: str, path: str, body: Dict[str, Any]) -> http.client.HTTPResponse:
    parts = urlsplit(base_url)
    connection = http.client.HTTPConnection(parts.hostname, parts.port, timeout=10)
    connection.request("POST", parts.path + path, json.dumps(body), {"Content-Type": "application/json"})
    response = connection.getresponse()
    response.close = _closing(response, connection)  # type: ignore[method-assign]
    if response.status >= 400:
        payload = json.loads(response.read())
        response.close()
        raise APIStatusError(f"Error code: {response.status}", response.status, response.getheader("x-request-id"), payload)
    return response


def _closing(response: http.client.HTTPResponse, connection: http.client.HTTPConnection) -> Any:
    close_response = response.close

    def close() -> None:
        close_response()
        connection.close()

    return close


def _events(response: http.client.HTTPResponse) -> Iterator[Any]:
    try:
        while True:
            line = response.readline()
            if not line:
                raise APIConnectionError("the stream ended without [DONE]")
            text = line.decode().strip()
            if not text.startswith("data: "):
                continue
            data = text[len("data: "):]
            if data == "[DONE]":
                return
            yield _model(json.loads(data))
    finally:
        response.close()


class Stream:
    """openai.Stream: iterate it (``for``/``next``), use it in ``with``, ``close()`` it."""

    def __init__(self, response: http.client.HTTPResponse) -> None:
        self.response = response
        self._iterator = _events(response)

    def __iter__(self) -> Iterator[Any]:
        for item in self._iterator:
            yield item

    def __next__(self) -> Any:
        return next(self._iterator)

    def __enter__(self) -> "Stream":
        return self

    def __exit__(self, *exc_info: Any) -> None:
        self.close()

    def close(self) -> None:
        self.response.close()


class AsyncStream:
    """openai.AsyncStream: ``async for``, ``async with``, ``await close()``."""

    def __init__(self, response: http.client.HTTPResponse) -> None:
        self.response = response
        self._iterator = _events(response)

    async def __aiter__(self) -> Any:
        while True:
            item = await asyncio.get_running_loop().run_in_executor(None, next, self._iterator, None)
            if item is None:
                return
            yield item

    async def __aenter__(self) -> "AsyncStream":
        return self

    async def __aexit__(self, *exc_info: Any) -> None:
        await self.close()

    async def close(self) -> None:
        self.response.close()


class _Create:
    def __init__(self, client: "OpenAI", path: str, asynchronous: bool) -> None:
        self._client = client
        self._path = path
        self._async = asynchronous

    def _call(self, body: Dict[str, Any]) -> Any:
        response = _post(self._client.base_url, self._path, body)
        if body.get("stream"):
            return (AsyncStream if self._async else Stream)(response)
        try:
            return _model(json.loads(response.read()))
        finally:
            response.close()


class Completions(_Create):
    def create(self, **body: Any) -> Any:
        """openai's ``chat.completions.create``: keyword arguments only."""
        if self._async:
            return asyncio.get_running_loop().run_in_executor(None, self._call, body)
        return self._call(body)


class Responses(_Create):
    def create(self, **body: Any) -> Any:
        """openai's ``responses.create``."""
        if self._async:
            return asyncio.get_running_loop().run_in_executor(None, self._call, body)
        return self._call(body)


class Chat:
    def __init__(self, client: "OpenAI", asynchronous: bool) -> None:
        self.completions = Completions(client, "/chat/completions", asynchronous)


class OpenAI:
    """openai.OpenAI, as far as the wrapper reads it."""

    asynchronous = False

    def __init__(self, base_url: str, api_key: str = "sk-test", timeout: float = 10) -> None:
        self.base_url = base_url
        self.api_key = api_key
        self.timeout = timeout
        self.chat = Chat(self, self.asynchronous)
        self.responses = Responses(self, "/responses", self.asynchronous)
        self.models = object()

    def with_options(self, **options: Any) -> "OpenAI":
        settings = {"base_url": self.base_url, "api_key": self.api_key, "timeout": self.timeout, **options}
        return type(self)(**settings)


class AsyncOpenAI(OpenAI):
    """openai.AsyncOpenAI: ``await client.chat.completions.create(...)``."""

    asynchronous = True
