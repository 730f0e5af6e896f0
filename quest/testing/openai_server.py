"""A fake OpenAI-compatible model server: real HTTP on 127.0.0.1 (random port, in a thread),
speaking the protocol that vLLM, SGLang, llama.cpp's server and LiteLLM speak.

Endpoints: GET /v1/models; POST /v1/chat/completions, streamed as server-sent events in
chunked transfer encoding or another `framing` (`data: {chat.completion.chunk}` per piece, the last content chunk
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
* `framing`             "length" (Content-Length) or "close" (ends at the close) instead of chunked;
* `tokens`, `delay`     the script of content pieces and the pause before each one;
* `pause_at`            piece counts at which a stream waits for `proceed()`; `pause_before_reply`:
                        a chat waits for it before sending anything (`holding` is set at any checkpoint);
* `thinking`            pieces sent first as `reasoning_content` deltas (DeepSeek/vLLM style);
* `slots`               how many chats run at once (as a GPU server's batch slots or Ollama's
                        OLLAMA_NUM_PARALLEL); the others wait for a free slot, as on a real server.

`disconnects` records (time, pieces sent) whenever a client closed a stream early; `in_flight`
and `max_in_flight` count chats being answered.
"""

from __future__ import annotations

import contextlib
import json
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any, ClassVar

from quest.testing.http_fake import FakeServer, RecordingHandler

CREATED = 1_764_579_600  # 2025-12-01 09:00 UTC, fixed so recorded replies compare exactly

ERROR_TYPES = {
    401: ("invalid_request_error", "invalid_api_key", "Incorrect API key provided."),
    403: ("permission_denied", "forbidden", "This key may not use this model."),
    429: ("rate_limit_exceeded", "rate_limit_exceeded", "Rate limit reached, retry later."),
    500: ("server_error", "internal_error", "The server had an error while processing your request."),
    503: ("server_error", "overloaded", "The engine is currently overloaded."),
}


@dataclass
class FakeOpenAI(FakeServer):
    api_key: str | None = None
    # mode "status" (besides the shared ones) answers every chat with HTTP `status`
    status: int = 500
    retry_after: float | None = None
    slots: int | None = None
    usage: dict[str, int] = field(default_factory=lambda: {"prompt_tokens": 420, "completion_tokens": 50,
                                                           "total_tokens": 470})

    thread_name: ClassVar[str] = "fake-openai"
    chat_path: ClassVar[str] = "/chat/completions"

    def __post_init__(self) -> None:
        super().__post_init__()
        self.in_flight = 0
        self.max_in_flight = 0
        self._slots = threading.BoundedSemaphore(self.slots) if self.slots else None

    def handler(self) -> type[RecordingHandler]:
        return _Handler

    @property
    def url(self) -> str:
        """The base URL a client is given (OpenAI clients expect the /v1 in it)."""
        return self.base_url + "/v1"

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


class _Handler(RecordingHandler):
    owner: FakeOpenAI

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

    # ------------------------------------------------------------------ routes

    def do_GET(self) -> None:  # noqa: N802 - http.server names the handlers
        self._record(None)
        if not self._authorized():
            self._error(401)
        elif self.path.rstrip("/") == "/v1/models":
            self._json(200, {"object": "list", "data": [{"id": name, "object": "model", "created": CREATED,
                                                          "owned_by": "quest-fake"} for name in self.owner.models]})
        else:
            self._error(404, "Not found.", "not_found")

    def do_POST(self) -> None:  # noqa: N802 - http.server names the handlers
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
        elif self._held_before_reply():
            pass
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

    def _stream(self, model: str, include_usage: bool) -> None:
        owner = self.owner

        def chunk(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
            return {"id": "chatcmpl-fake", "object": "chat.completion.chunk", "created": CREATED, "model": model,
                    "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}

        pieces = [_event(chunk({"reasoning_content": piece} if kind == "thinking" else {"content": piece}))
                  for kind, piece in owner.script()]
        tail = [_event(chunk({}, "stop"))]
        if include_usage:
            tail.append(_event({"id": "chatcmpl-fake", "object": "chat.completion.chunk", "created": CREATED,
                                "model": model, "choices": [], "usage": owner.usage}))
        tail.append(_event("[DONE]"))
        self._send_stream("text/event-stream", [_event(chunk({"role": "assistant", "content": ""}))], pieces, tail)


def _event(payload: dict[str, Any] | str) -> bytes:
    """One server-sent event."""
    text = payload if isinstance(payload, str) else json.dumps(payload, ensure_ascii=False)
    return f"data: {text}\n\n".encode()


def serve_forever(tokens: int, delay: float, slots: int | None = None) -> None:
    """Run one fake server until stdin closes, printing its URL first (for benchmark subprocesses)."""
    import sys

    fake = FakeOpenAI(tokens=[f"word{i} " for i in range(tokens)], delay=delay, slots=slots).start()
    print(fake.url, flush=True)
    sys.stdin.read()
    fake.stop()
