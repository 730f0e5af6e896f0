"""A fake Ollama: a real HTTP server on 127.0.0.1 (random port, in a thread) speaking the real API.

Endpoints: GET /api/version, GET /api/tags, POST /api/show, POST /api/chat (NDJSON stream in
chunked transfer encoding, or another `framing`, ending with the real final record: done, done_reason,
total_duration, load_duration, prompt_eval_count, prompt_eval_duration, eval_count,
eval_duration, all in nanoseconds; or one JSON object when "stream": false).

It records every request (`requests`, `chat_bodies`) and can be told to:

* `stop()`            close the listening socket and every open connection: connections are refused;
* `models`            which models exist; a chat for another answers 404
                      {"error": "model \"x\" not found, try pulling it first"};
* `mode = "stall"`    send nothing (no headers, no token) for `stall_seconds`;
* `mode = "drop"`     send `drop_after` tokens, then cut the connection without ending the stream;
* `mode = "garbage"`  send `drop_after` tokens, then the raw line `garbage` (an error object, as Ollama sends when
                      the runner dies mid-answer, or JSON cut short), then the rest as usual;
* `framing`           "length" (Content-Length) or "close" (ends at the close) instead of chunked;
* `tokens`, `delay`   the script of content pieces and the pause before each one;
* `thinking`          pieces sent first in Ollama's separate `message.thinking` field;
* `pause_at`          piece counts at which a stream waits for `proceed()` (a test's checkpoint);
* `pause_before_reply` a chat waits for `proceed()` before sending anything, headers included, as
                      Ollama does while it loads the model (`holding` is set at any checkpoint).

`disconnects` records (time, tokens sent) whenever a client closed a chat stream early;
`client_closed` is set at that moment.

Quest's tests use it through the `fake_ollama` fixture (tests/fakes/ollama_server.py). Operators
can use it too, to try the app or a deployment without a model: `FakeOllama().start().url` is a
host to pass as `--ollama-host` (`stop()` when done).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, ClassVar

from quest.testing.http_fake import FakeServer, RecordingHandler


@dataclass
class FakeOllama(FakeServer):
    final: dict[str, Any] = field(default_factory=lambda: {
        "done_reason": "stop",
        "total_duration": 1_500_000_000,
        "load_duration": 100_000_000,
        "prompt_eval_count": 420,
        "prompt_eval_duration": 200_000_000,
        "eval_count": 50,
        "eval_duration": 1_000_000_000,
    })
    version: str = "0.12.6"
    garbage: bytes = b'{"error":"llama runner process has terminated: exit status 2"}\n'

    thread_name: ClassVar[str] = "fake-ollama"
    chat_path: ClassVar[str] = "/api/chat"

    def handler(self) -> type[RecordingHandler]:
        return _Handler

    @property
    def url(self) -> str:
        return self.base_url

class _Handler(RecordingHandler):
    owner: FakeOllama
    json_content_type = "application/json; charset=utf-8"

    # ------------------------------------------------------------------ routes

    def do_GET(self) -> None:  # noqa: N802 - http.server names the handlers
        self._record(None)
        if self.path == "/api/version":
            self._json(200, {"version": self.owner.version})
        elif self.path == "/api/tags":
            self._json(200, {"models": [_model_entry(name) for name in self.owner.models]})
        else:
            self._json(404, {"error": "not found"})

    def do_POST(self) -> None:  # noqa: N802 - http.server names the handlers
        body = self._body()
        self._record(body)
        if self.path == "/api/show":
            name = (body or {}).get("model", "")
            if name not in self.owner.models:
                self._json(404, {"error": f"model '{name}' not found"})
            else:
                self._json(200, {"modelfile": f"FROM {name}", "parameters": "", "template": "{{ .Prompt }}",
                                 "details": _model_entry(name)["details"], "model_info": {},
                                 "capabilities": ["completion"]})
        elif self.path == "/api/chat":
            self._chat(body or {})
        else:
            self._json(404, {"error": "not found"})

    def _chat(self, body: dict[str, Any]) -> None:
        owner = self.owner
        model = body.get("model", "")
        if model not in owner.models:
            self._json(404, {"error": f'model "{model}" not found, try pulling it first'})
            return
        if owner.mode == "stall":
            self._stall()
            return
        if self._held_before_reply():
            return
        created = "2026-12-01T09:00:00.000000Z"
        if body.get("stream", True) is False:
            text = "".join(owner.tokens)
            self._json(200, {"model": model, "created_at": created,
                             "message": {"role": "assistant", "content": text}, "done": True, **owner.final})
            return

        def record(message: dict[str, Any], **final: Any) -> bytes:
            return (json.dumps({"model": model, "created_at": created, "message": message, **final}) + "\n").encode()

        pieces = []
        for kind, piece in owner.script():
            message = {"role": "assistant", "content": piece if kind == "content" else ""}
            if kind == "thinking":
                message["thinking"] = piece
            pieces.append(record(message, done=False))
        if owner.mode == "garbage":
            pieces.insert(owner.drop_after, owner.garbage)
        last = record({"role": "assistant", "content": ""}, done=True, **owner.final)
        self._send_stream("application/x-ndjson", (), pieces, (last,))


def _model_entry(name: str) -> dict[str, Any]:
    return {
        "name": name,
        "model": name,
        "modified_at": "2026-11-30T10:00:00.000000+08:00",
        "size": 986_061_892,
        "digest": "6d3abb8d2d53" + "0" * 52,
        "details": {"parent_model": "", "format": "gguf", "family": "qwen2", "families": ["qwen2"],
                    "parameter_size": "1.5B", "quantization_level": "Q4_K_M"},
    }
