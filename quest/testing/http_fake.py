"""What the fake model servers share: a threaded HTTP server on 127.0.0.1 (random port), every
request recorded, and a handler base that tracks its sockets so `stop()` can cut every open
connection, as a crashed or restarted server would.

`FakeOllama` (ollama_server.py) and `FakeOpenAI` (openai_server.py) add their protocol's routes.
"""

from __future__ import annotations

import contextlib
import json
import select
import socket
import threading
import time
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, ClassVar


@dataclass
class RecordedRequest:
    method: str
    path: str
    body: Any
    at: float
    headers: dict[str, str] = field(default_factory=dict)  # names lowercased


class QuietServer(ThreadingHTTPServer):
    request_queue_size = 256  # a burst of students must not be refused by the listen backlog

    def handle_error(self, request: Any, client_address: Any) -> None:
        pass  # clients that hang up (cancellation, stop()) are expected here


class RecordingHandler(BaseHTTPRequestHandler):
    """Socket tracking, quiet logs, JSON bodies in and out, chunked writes, early-close detection."""

    owner: Any  # the FakeServer this handler serves
    protocol_version = "HTTP/1.1"
    json_content_type = "application/json"

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

    def _body(self) -> Any:
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        try:
            return json.loads(raw) if raw else None
        except json.JSONDecodeError:
            return raw.decode("utf-8", "replace")

    def _record(self, body: Any) -> None:
        headers = {k.lower(): v for k, v in self.headers.items()}
        self.owner.requests.append(RecordedRequest(self.command, self.path, body, time.monotonic(), headers))

    def _json(self, status: int, payload: Any, headers: dict[str, str] | None = None) -> None:
        data = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", self.json_content_type)
        self.send_header("Content-Length", str(len(data)))
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(data)

    def _peer_closed(self) -> bool:
        try:
            readable, _, _ = select.select([self.connection], [], [], 0)
            return bool(readable) and self.connection.recv(1, socket.MSG_PEEK) == b""
        except OSError:
            return True

    def _stall(self) -> None:
        """Send nothing (no headers, no token) for the owner's `stall_seconds`, or until the client
        leaves (recorded as a disconnect after 0 pieces) or the server stops."""
        owner = self.owner
        deadline = time.monotonic() + owner.stall_seconds
        while time.monotonic() < deadline and not owner._stopping.is_set():
            if self._peer_closed():
                owner.disconnects.append((time.monotonic(), 0))
                owner.client_closed.set()
                break
            time.sleep(0.02)
        self.close_connection = True

    def _pause(self) -> None:
        """Wait at a checkpoint of the owner's `pause_at` until a test calls `proceed()`; the client
        leaving, the server stopping or `pause_limit` seconds end the wait too."""
        owner = self.owner
        gate = owner._proceed  # this stream's: a test that resets the fake does not hand its permits here
        owner.holding.set()
        deadline = time.monotonic() + owner.pause_limit
        while not gate.acquire(timeout=0.02):
            if self._peer_closed() or owner._stopping.is_set() or time.monotonic() > deadline:
                return

    def _held_before_reply(self) -> bool:
        """The owner's `pause_before_reply` checkpoint: wait for `proceed()` before sending anything (no
        headers, no token), as Ollama does while it loads a model or reads a long prompt. True (recorded as a
        disconnect after 0 pieces) when the client left meanwhile."""
        if not self.owner.pause_before_reply:
            return False
        self._pause()
        if self._peer_closed():
            self._client_gone(0)
            return True
        return False

    def _dropped(self, sent: int) -> bool:
        """Before the next streamed piece: pause if `sent` is a checkpoint; raise if the client left or the
        server stops; in mode "drop", cut the connection once `drop_after` pieces went out and return True."""
        owner = self.owner
        if sent in owner.pause_at:
            self._pause()
        if self._peer_closed() or owner._stopping.is_set():
            raise ConnectionResetError("client went away")
        if owner.mode == "drop" and sent >= owner.drop_after:
            self.wfile.flush()
            self.connection.shutdown(socket.SHUT_RDWR)
            self.close_connection = True
            return True
        return False

    def _client_gone(self, sent: int) -> None:
        """The client closed the stream after `sent` pieces: record it, and close our side."""
        self.owner.disconnects.append((time.monotonic(), sent))
        self.owner.client_closed.set()
        self.close_connection = True

    def _send_stream(self, content_type: str, head: Sequence[bytes], pieces: Sequence[bytes],
                     tail: Sequence[bytes]) -> None:
        """A streamed 200 reply in the owner's `framing`: the `head` pieces at once, then one piece per
        script item at the model's pace (checkpoints, drop and the client leaving checked before each),
        then the `tail` pieces."""
        owner = self.owner
        self.send_response(200)
        self.send_header("Content-Type", content_type)
        if owner.framing == "chunked":
            self.send_header("Transfer-Encoding", "chunked")
        elif owner.framing == "length":  # as a buffering proxy sends it: the whole length up front
            self.send_header("Content-Length", str(sum(len(piece) for part in (head, pieces, tail) for piece in part)))
        else:  # "close": no length, the body ends when the server closes the connection
            self.send_header("Connection", "close")
            self.close_connection = True
        self.end_headers()
        sent = 0
        try:
            for piece in head:
                self._write_piece(piece)
            for piece in owner.paced(pieces):
                if self._dropped(sent):
                    return
                self._write_piece(piece)
                sent += 1
            for piece in tail:
                self._write_piece(piece)
            if owner.framing == "chunked":
                self.wfile.write(b"0\r\n\r\n")
                self.wfile.flush()
        except (BrokenPipeError, ConnectionResetError, OSError):
            self._client_gone(sent)

    def _write_piece(self, data: bytes) -> None:
        """One piece of the body, sent at once (a chunk of its own when the reply is chunked)."""
        if self.owner.framing == "chunked":
            data = f"{len(data):X}\r\n".encode() + data + b"\r\n"
        self.wfile.write(data)
        self.wfile.flush()


DEFAULT_TOKENS = ["Use ", "a ", "deque", " [1]", "."]


@dataclass
class FakeServer:
    """Start, stop and the request log of a fake model server, and what every protocol's fake streams.

    `mode`: "normal"; "stall" sends nothing for `stall_seconds`; "drop" cuts the connection after
    `drop_after` pieces (a protocol may add its own modes).

    `framing`: how a streamed reply's body is delimited: "chunked" (as Ollama and most servers send
    it), "length" (a Content-Length header, as a proxy that buffers the reply sends it) or "close" (no
    length: the body ends when the server closes the connection, as some proxies and servers do).
    """

    tokens: list[str] = field(default_factory=lambda: list(DEFAULT_TOKENS))
    thinking: list[str] = field(default_factory=list)
    delay: float = 0.0  # seconds between pieces
    models: list[str] = field(default_factory=lambda: ["qwen2.5-coder:1.5b", "deepseek-r1:7b"])
    mode: str = "normal"
    stall_seconds: float = 10.0
    drop_after: int = 2
    # Checkpoints: after this many pieces a stream waits for `proceed()`, so a test can look at a
    # half-written answer for sure instead of racing the rest of the stream.
    pause_at: frozenset[int] = frozenset()
    pause_limit: float = 60.0
    # A checkpoint before the reply itself (no headers yet). `holding` is set whenever a chat waits at one.
    pause_before_reply: bool = False
    framing: str = "chunked"  # "chunked" | "length" | "close"

    thread_name: ClassVar[str] = "fake-server"
    chat_path: ClassVar[str] = "/chat"  # requests whose path ends so are chats

    def __post_init__(self) -> None:
        self._init_server()

    def handler(self) -> type[RecordingHandler]:
        """The protocol's request handler (a RecordingHandler subclass with its routes)."""
        raise NotImplementedError

    def _init_server(self) -> None:
        self.requests: list[RecordedRequest] = []
        self.disconnects: list[tuple[float, int]] = []
        self.client_closed = threading.Event()
        self.holding = threading.Event()
        self._stopping = threading.Event()
        self._proceed = threading.Semaphore(0)
        self._sockets: set[socket.socket] = set()
        self._lock = threading.Lock()
        self._server: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None
        self.port = 0

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> Any:
        fake = self

        class Handler(self.handler()):  # type: ignore[misc]
            owner = fake

        self._stopping.clear()
        self._server = QuietServer(("127.0.0.1", self.port), Handler)
        self._server.daemon_threads = True
        self._server.block_on_close = False
        self.port = self._server.server_address[1]
        self._thread = threading.Thread(target=self._server.serve_forever, kwargs={"poll_interval": 0.05},
                                        name=f"{self.thread_name}-{self.port}", daemon=True)
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

    def proceed(self) -> None:
        """Let a stream paused at a checkpoint (`pause_at`) go on to the next one."""
        self._proceed.release()

    def script(self) -> Iterator[tuple[str, str]]:
        """The pieces a chat streams: ("thinking", text) first, then ("content", text)."""
        for piece in self.thinking:
            yield "thinking", piece
        for piece in self.tokens:
            yield "content", piece

    def paced_script(self) -> Iterator[tuple[str, str]]:
        """`script()` at the model's rate: each piece `delay` after the previous one was due, not
        after it was written, so a busy machine does not stretch the stream as a whole (a model
        server makes its tokens at its own rate, however busy the client that reads them)."""
        return self.paced(self.script())

    def paced(self, items: Iterable[Any]) -> Iterator[Any]:
        """`items` at the model's rate (see `paced_script`)."""
        due = time.monotonic()
        for item in items:
            if self.delay:
                due += self.delay
                time.sleep(max(0.0, due - time.monotonic()))
            yield item

    @property
    def chat_bodies(self) -> list[dict[str, Any]]:
        return [r.body for r in self.requests if r.path.endswith(self.chat_path)]

    def chat_text(self) -> str:
        """Everything every chat request sent, as one string (for 'is X in the prompt' checks)."""
        return "\n".join(m.get("content", "") for body in self.chat_bodies for m in body.get("messages", []))
