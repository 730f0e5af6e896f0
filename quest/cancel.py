"""Stopping an answer while the model server sends nothing.

A model stream is read in a worker thread that blocks in the socket until the server sends
something; a cold model still loading, or a long prompt being read, can keep it silent for a
minute. The stop flag is seen only between tokens, so without help the connection (and the
server's slot for this answer) stays open until the next token comes.

So the answering thread enters a `CancelScope` (`cancellable(scope)`), and the chat clients'
connections go through `_Backend`: every read or write on a socket registers the socket with
the scope of the thread doing it. `CancelScope.cancel()`, from the thread that stops the answer,
shuts those sockets down (`shutdown(2)`, which wakes a blocked `recv` at once, unlike `close`);
the reading thread then sees the connection end, and the server sees the client leave. A read
that starts after the cancel finds its socket shut down at once.

A read that ends that way raises a read error instead of returning the end of the stream. To the
HTTP parser an end of stream is the server closing: for a chunked or Content-Length reply that is
an error anyway, but a reply delimited by the close (no length, as some proxies send) would look
complete, and a half answer would surface as a broken stream (`StreamBroken`, counted against the
host) rather than as the stop it was. As an error, every framing ends the same way: the chat
models see `stop_requested()` and raise `Stopped`.

The hook sits below httpx (in httpcore's network backend, the one place every request of a
client goes through, reused connections and proxies included), so the `ollama` and `openai`
clients need no change. A client whose internals do not have that shape is left as it was:
Stop then takes effect at the next token, as before.
"""

from __future__ import annotations

import contextlib
import logging
import socket
import threading
from collections.abc import Iterator
from contextvars import ContextVar
from typing import Any

import httpcore

log = logging.getLogger(__name__)


class CancelScope:
    """The sockets one answer is using right now; `cancel()` (from any thread) shuts them down."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._cancelled = False
        self._in_use: list[socket.socket] = []

    @property
    def cancelled(self) -> bool:
        return self._cancelled

    def cancel(self) -> None:
        with self._lock:  # held while shutting down: a socket in the list is still this answer's
            self._cancelled = True
            if self._in_use:
                log.debug("stopping: shutting down %d model connection(s)", len(self._in_use))
            for sock in self._in_use:
                _shut_down(sock)

    @contextlib.contextmanager
    def using(self, sock: socket.socket | None) -> Iterator[None]:
        """Register `sock` for the duration of one read or write; shut it at once if already cancelled."""
        if sock is None:
            yield
            return
        with self._lock:
            if self._cancelled:
                _shut_down(sock)
            self._in_use.append(sock)
        try:
            yield
        finally:
            with self._lock:
                self._in_use.remove(sock)


def _shut_down(sock: socket.socket) -> None:
    # The plain socket's shutdown also for a TLS socket: `SSLSocket.shutdown` would unwrap the TLS
    # object under the feet of the thread reading it. Reading then ends as at the server's close.
    with contextlib.suppress(OSError):
        socket.socket.shutdown(sock, socket.SHUT_RDWR)


_current: ContextVar[CancelScope | None] = ContextVar("quest_cancel_scope", default=None)


def stop_requested() -> bool:
    """True in a thread whose answer was stopped: a failed read there is the cut, not the server's fault."""
    scope = _current.get()
    return scope is not None and scope.cancelled


@contextlib.contextmanager
def cancellable(scope: CancelScope) -> Iterator[None]:
    """Model connections used by this thread inside the block can be cut by `scope.cancel()`."""
    token = _current.set(scope)
    try:
        yield
    finally:
        _current.reset(token)


class _Stream(httpcore.NetworkStream):
    """A connection whose reads and writes register with the current thread's scope."""

    def __init__(self, inner: httpcore.NetworkStream) -> None:
        self._inner = inner

    def _scoped(self, scope: CancelScope | None) -> contextlib.AbstractContextManager[None]:
        return scope.using(self._inner.get_extra_info("socket")) if scope is not None else contextlib.nullcontext()

    def read(self, max_bytes: int, timeout: float | None = None) -> bytes:
        scope = _current.get()
        with self._scoped(scope):
            data = self._inner.read(max_bytes, timeout)
        if not data and scope is not None and scope.cancelled:
            # The end of the connection is our own shutdown, not the server's: a reply whose body runs
            # until the server closes (no length, not chunked) must not read it as a complete answer.
            raise httpcore.ReadError("the model connection was cut because the answer was stopped")
        return data

    def write(self, buffer: bytes, timeout: float | None = None) -> None:
        with self._scoped(_current.get()):
            self._inner.write(buffer, timeout)

    def close(self) -> None:
        self._inner.close()

    def start_tls(self, ssl_context: Any, server_hostname: str | None = None,
                  timeout: float | None = None) -> httpcore.NetworkStream:
        return _Stream(self._inner.start_tls(ssl_context, server_hostname, timeout))

    def get_extra_info(self, info: str) -> Any:
        return self._inner.get_extra_info(info)


class _Backend(httpcore.NetworkBackend):
    def __init__(self, inner: httpcore.NetworkBackend) -> None:
        self._inner = inner

    def connect_tcp(self, host: str, port: int, timeout: float | None = None, local_address: str | None = None,
                    socket_options: Any = None) -> httpcore.NetworkStream:
        return _Stream(self._inner.connect_tcp(host, port, timeout, local_address, socket_options))

    def connect_unix_socket(self, path: str, timeout: float | None = None,
                            socket_options: Any = None) -> httpcore.NetworkStream:
        return _Stream(self._inner.connect_unix_socket(path, timeout, socket_options))

    def sleep(self, seconds: float) -> None:
        self._inner.sleep(seconds)


def make_cancellable(client: Any) -> bool:
    """Route the connections of `client` (an httpx.Client, or an SDK client holding one as `_client`,
    as `ollama.Client` and `openai.OpenAI` do) through the scope-aware backend. False if its shape
    is not the expected one (it then works as before)."""
    http = getattr(client, "_client", client)
    transports = [getattr(http, "_transport", None), *(getattr(http, "_mounts", None) or {}).values()]
    pools = [getattr(t, "_pool", None) for t in transports if t is not None]
    if not pools or any(getattr(p, "_network_backend", None) is None for p in pools):
        log.warning("this HTTP client cannot be made stoppable; Stop will close its stream at the next token")
        return False
    for pool in pools:
        if not isinstance(pool._network_backend, _Backend):
            pool._network_backend = _Backend(pool._network_backend)
    return True
