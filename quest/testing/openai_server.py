"""A fake OpenAI-compatible model server: real HTTP on 127.0.0.1 (random port, in a thread),
speaking the protocol that vLLM, SGLang, llama.cpp's server and LiteLLM speak.

Endpoints: GET /v1/models; POST /v1/chat/completions, streamed as server-sent events in
chunked transfer encoding (`data: {chat.completion.chunk}` per piece, the last content chunk
with `finish_reason`, an empty-choices chunk carrying `usage` when the request asked for it
with `stream_options.include_usage`, then `data: [DONE]`), or one JSON object when not
streaming.

It records every request (`requests`, `chat_bodies`, each with its headers) and can be told to:

* `stop()`              close the listening socket and every open connection: connections are refused;
* `models`              which models exist; a chat for another answers 404 `model_not_found`;
* `api_key`             when set, a request without `Authorization: Bearer <api_key>` gets 401;
* `mode = "status"`     answer every chat with HTTP `status` (403, 429 with `retry_after`, 500, 503 ...);
* `mode = "stall"`      send nothing (no headers, no token) for `stall_seconds`;
* `mode = "drop"`       send `drop_after` pieces, then cut the connection without `[DONE]`;
* `tokens`, `delay`     the script of content pieces and the pause before each one;
* `thinking`            pieces sent first as `reasoning_content` deltas (DeepSeek/vLLM style);
* `slots`               how many chats run at once (as a GPU server's batch slots or Ollama's
                        OLLAMA_NUM_PARALLEL); the others wait for a free slot, as on a real server.

`disconnects` records (time, pieces sent) whenever a client closed a stream early; `in_flight`
and `max_in_flight` count chats being answered.
"""

from __future__ import annotations

import contextlib
import json
import select
import socket
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

DEFAULT_TOKENS = ["Use ", "a ", "deque", " [1]", "."]
CREATED = 1_764_579_600  # 2025-12-01 09:00 UTC, fixed so recorded replies compare exactly

ERROR_TYPES = {
    401: ("invalid_request_error", "invalid_api_key", "Incorrect API key provided."),
    403: ("permission_denied", "forbidden", "This key may not use this model."),
    429: ("rate_limit_exceeded", "rate_limit_exceeded", "Rate limit reached, retry later."),
    500: ("server_error", "internal_error", "The server had an error while processing your request."),
    503: ("server_error", "overloaded", "The engine is currently overloaded."),
}


@dataclass
class RecordedRequest:
    method: str
    path: str
    headers: dict[str, str]
    body: Any
    at: float


@dataclass
class FakeOpenAI:
    tokens: list[str] = field(default_factory=lambda: list(DEFAULT_TOKENS))
    thinking: list[str] = field(default_factory=list)
    delay: float = 0.0
    models: list[str] = field(default_factory=lambda: ["qwen2.5-coder:1.5b", "deepseek-r1:7b"])
    api_key: str | None = None
    mode: str = "normal"  # normal | status | stall | drop
    status: int = 500
    retry_after: float | None = None
    stall_seconds: float = 10.0
    drop_after: int = 2
    slots: int | None = None
    usage: dict[str, int] = field(default_factory=lambda: {"prompt_tokens": 420, "completion_tokens": 50,
                                                           "total_tokens": 470})

    def __post_init__(self) -> None:
        self.requests: list[RecordedRequest] = []
        self.disconnects: list[tuple[float, int]] = []
        self.client_closed = threading.Event()
        self.in_flight = 0
        self.max_in_flight = 0
        self._stopping = threading.Event()
        self._sockets: set[socket.socket] = set()
        self._lock = threading.Lock()
        self._slots = threading.BoundedSemaphore(self.slots) if self.slots else None
        self._server: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None
        self.port = 0

    # ------------------------------------------------------------------ lifecycle

    @property
    def url(self) -> str:
        """The base URL a client is given (OpenAI clients expect the /v1 in it)."""
        return f"http://127.0.0.1:{self.port}/v1"

    def start(self) -> FakeOpenAI:
        fake = self

        class Handler(_Handler):
            owner = fake

        self._stopping.clear()
        self._server = _QuietServer(("127.0.0.1", self.port), Handler)
        self._server.daemon_threads = True
        self._server.block_on_close = False
        self.port = self._server.server_address[1]
        self._thread = threading.Thread(target=self._server.serve_forever, kwargs={"poll_interval": 0.05},
                                        name=f"fake-openai-{self.port}", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        """Stop listening and cut every open connection: new connections are refused."""
        self._stopping.set()
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None
        with self._lock:
            for sock in list(self._sockets):
                with contextlib.suppress(OSError):
                    sock.shutdown(socket.SHUT_RDWR)
                sock.close()
            self._sockets.clear()
        if self._thread is not None:
            self._thread.join(timeout=5)
            self._thread = None

    # ------------------------------------------------------------------ records

    @property
    def chat_bodies(self) -> list[dict[str, Any]]:
        return [r.body for r in self.requests if r.path.endswith("/chat/completions")]

    def chat_text(self) -> str:
        """Everything every chat request sent, as one string (for 'is X in the prompt' checks)."""
        return "\n".join(m.get("content", "") for body in self.chat_bodies for m in body.get("messages", []))

    @contextlib.contextmanager
    def _slot(self) -> Iterator[None]:
        if self._slots is not None:
            self._slots.acquire()
        with self._lock:
            self.in_flight += 1
            self.max_in_flight = max(self.max_in_flight, self.in_flight)
        try:
            yield
        finally:
            with self._lock:
                self.in_flight -= 1
            if self._slots is not None:
                self._slots.release()


class _QuietServer(ThreadingHTTPServer):
    request_queue_size = 256  # a burst of students must not be refused by the listen backlog

    def handle_error(self, request: Any, client_address: Any) -> None:
        pass  # clients that hang up (cancellation, stop()) are expected here


class _Handler(BaseHTTPRequestHandler):
    owner: FakeOpenAI
    protocol_version = "HTTP/1.1"

    def setup(self) -> None:
        super().setup()
        with self.owner._lock:
            self.owner._sockets.add(self.connection)

    def finish(self) -> None:
        with contextlib.suppress(OSError):
            super().finish()
        with self.owner._lock:
            self.owner._sockets.discard(self.connection)

    def log_message(self, format: str, *args: Any) -> None:  # quiet
        pass

    # ------------------------------------------------------------------ helpers

    def _body(self) -> Any:
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        try:
            return json.loads(raw) if raw else None
        except json.JSONDecodeError:
            return raw.decode("utf-8", "replace")

    def _record(self, body: Any) -> None:
        headers = {k.lower(): v for k, v in self.headers.items()}
        self.owner.requests.append(RecordedRequest(self.command, self.path, headers, body, time.monotonic()))

    def _json(self, status: int, payload: Any, headers: dict[str, str] | None = None) -> None:
        data = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(data)

    def _error(self, status: int, message: str | None = None, code: str | None = None) -> None:
        kind, default_code, default_message = ERROR_TYPES.get(status, ("server_error", "error", "Error."))
        headers = {}
        if status == 429 and self.owner.retry_after is not None:
            headers["Retry-After"] = f"{self.owner.retry_after:g}"
        self._json(status, {"error": {"message": message or default_message, "type": kind, "param": None,
                                      "code": code or default_code}}, headers)

    def _authorized(self) -> bool:
        key = self.owner.api_key
        return key is None or self.headers.get("Authorization", "") == f"Bearer {key}"

    def _peer_closed(self) -> bool:
        try:
            readable, _, _ = select.select([self.connection], [], [], 0)
            return bool(readable) and self.connection.recv(1, socket.MSG_PEEK) == b""
        except OSError:
            return True

    def _event(self, payload: dict[str, Any] | str) -> None:
        text = payload if isinstance(payload, str) else json.dumps(payload, ensure_ascii=False)
        data = f"data: {text}\n\n".encode()
        self.wfile.write(f"{len(data):X}\r\n".encode() + data + b"\r\n")
        self.wfile.flush()

    # ------------------------------------------------------------------ routes

    def do_GET(self) -> None:
        self._record(None)
        if not self._authorized():
            self._error(401)
        elif self.path.rstrip("/") == "/v1/models":
            self._json(200, {"object": "list", "data": [{"id": name, "object": "model", "created": CREATED,
                                                          "owned_by": "quest-fake"} for name in self.owner.models]})
        else:
            self._error(404, "Not found.", "not_found")

    def do_POST(self) -> None:
        body = self._body()
        self._record(body)
        if self.path.rstrip("/") != "/v1/chat/completions":
            self._error(404, "Not found.", "not_found")
        elif not self._authorized():
            self._error(401)
        else:
            self._chat(body if isinstance(body, dict) else {})

    def _chat(self, body: dict[str, Any]) -> None:
        owner = self.owner
        model = body.get("model", "")
        if model not in owner.models:
            self._error(404, f"The model `{model}` does not exist.", "model_not_found")
        elif owner.mode == "status":
            self._error(owner.status)
        elif owner.mode == "stall":
            self._stall()
        elif body.get("stream") is not True:
            with owner._slot():
                text = "".join(owner.tokens)
                self._json(200, {"id": "chatcmpl-fake", "object": "chat.completion", "created": CREATED,
                                 "model": model, "usage": owner.usage,
                                 "choices": [{"index": 0, "finish_reason": "stop",
                                              "message": {"role": "assistant", "content": text}}]})
        else:
            with owner._slot():
                self._stream(model, bool((body.get("stream_options") or {}).get("include_usage")))

    def _stall(self) -> None:
        owner = self.owner
        deadline = time.monotonic() + owner.stall_seconds
        while time.monotonic() < deadline and not owner._stopping.is_set():
            if self._peer_closed():
                owner.disconnects.append((time.monotonic(), 0))
                owner.client_closed.set()
                break
            time.sleep(0.02)
        self.close_connection = True

    def _stream(self, model: str, include_usage: bool) -> None:
        owner = self.owner
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        sent = 0

        def chunk(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
            return {"id": "chatcmpl-fake", "object": "chat.completion.chunk", "created": CREATED, "model": model,
                    "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}

        try:
            self._event(chunk({"role": "assistant", "content": ""}))
            for kind, piece in _script(owner):
                if owner.delay:
                    time.sleep(owner.delay)
                if self._peer_closed() or owner._stopping.is_set():
                    raise ConnectionResetError("client went away")
                if owner.mode == "drop" and sent >= owner.drop_after:
                    self.connection.shutdown(socket.SHUT_RDWR)
                    self.close_connection = True
                    return
                self._event(chunk({"reasoning_content": piece} if kind == "thinking" else {"content": piece}))
                sent += 1
            self._event(chunk({}, "stop"))
            if include_usage:
                self._event({"id": "chatcmpl-fake", "object": "chat.completion.chunk", "created": CREATED,
                             "model": model, "choices": [], "usage": owner.usage})
            self._event("[DONE]")
            self.wfile.write(b"0\r\n\r\n")
            self.wfile.flush()
        except (BrokenPipeError, ConnectionResetError, OSError):
            owner.disconnects.append((time.monotonic(), sent))
            owner.client_closed.set()
            self.close_connection = True


def _script(owner: FakeOpenAI) -> Iterator[tuple[str, str]]:
    for piece in owner.thinking:
        yield "thinking", piece
    for piece in owner.tokens:
        yield "content", piece


def serve_forever(tokens: int, delay: float, slots: int | None = None) -> None:
    """Run one fake server until stdin closes, printing its URL first (for benchmark subprocesses)."""
    import sys

    fake = FakeOpenAI(tokens=[f"word{i} " for i in range(tokens)], delay=delay, slots=slots).start()
    print(fake.url, flush=True)
    sys.stdin.read()
    fake.stop()
