"""The chat model: a small protocol and its Ollama implementation (official `ollama` client).

`OllamaChatModel.stream` is a generator of `ChatChunk`s; the last one has `done=True` and the
counters of Ollama's final record. Closing the generator (or breaking out of the loop that
reads it) closes the HTTP response, so Ollama sees the connection go away and stops. A Stop while
Ollama has sent nothing yet (a model loading) cuts the connection from the stopping thread
(quest/cancel.py) and ends the stream with `Stopped`.

Failures become `quest.errors` exceptions with a hint that names the fix:

* connection refused / unknown host  -> LLMUnavailable  (`ollama serve`, check OLLAMA_HOST)
* 404 "model ... not found"           -> ModelNotFound   (`ollama pull <model>`)
* no first token / no end in time     -> LLMTimeout
* the stream stops before `done`      -> StreamBroken

Timeouts: `connect_timeout` for the TCP connection; `first_token_timeout` is httpx's read
timeout, so it bounds the wait for the first chunk (model loading included) and any silence
after it; `total_timeout` is checked after every chunk.
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

import httpx

from quest.cancel import make_cancellable, stop_requested
from quest.errors import LLMError, LLMTimeout, LLMUnavailable, ModelNotFound, Stopped, StreamBroken
from quest.settings import Settings

log = logging.getLogger(__name__)

DEFAULT_HOST = "http://127.0.0.1:11434"
STAT_FIELDS = ("done_reason", "total_duration", "load_duration", "prompt_eval_count", "prompt_eval_duration",
               "eval_count", "eval_duration")


@dataclass(frozen=True)
class ChatChunk:
    content: str = ""
    thinking: str = ""  # from Ollama's separate `message.thinking` field, when it sends one
    done: bool = False
    stats: Mapping[str, Any] = field(default_factory=dict)  # the final record's counters (ns)


class ChatModel(Protocol):
    def stream(self, messages: Sequence[Mapping[str, str]], model: str,
               options: Mapping[str, Any] | None = None) -> Iterator[ChatChunk]: ...

    def ping(self) -> bool: ...

    def list_models(self) -> list[str]: ...


def generation_options(settings: Settings) -> dict[str, Any]:
    return {
        "temperature": settings.temperature,
        "top_p": settings.top_p,
        "repeat_penalty": settings.repeat_penalty,
        "num_ctx": settings.num_ctx,
    }


def stats_summary(raw: Mapping[str, Any]) -> dict[str, Any]:
    """Ollama's final counters -> the numbers the UI shows (ms, tokens, tokens per second)."""
    out: dict[str, Any] = {}
    if raw.get("done_reason") is not None:
        out["done_reason"] = raw["done_reason"]
    for name in ("prompt_eval_count", "eval_count"):
        if raw.get(name) is not None:
            out[{"prompt_eval_count": "prompt_tokens", "eval_count": "completion_tokens"}[name]] = int(raw[name])
    for name in ("total_duration", "load_duration", "prompt_eval_duration", "eval_duration"):
        if raw.get(name) is not None:
            out[name.replace("_duration", "_ms")] = round(raw[name] / 1e6, 1)
    if raw.get("eval_count") and raw.get("eval_duration"):
        out["tokens_per_second"] = round(raw["eval_count"] / (raw["eval_duration"] / 1e9), 1)
    if raw.get("prompt_eval_count") and raw.get("prompt_eval_duration"):
        out["prompt_tokens_per_second"] = round(raw["prompt_eval_count"] / (raw["prompt_eval_duration"] / 1e9), 1)
    return out


def unavailable_hint(host: str) -> str:
    return f"start it with `ollama serve`, and check OLLAMA_HOST (now {host})"


class ClientChatModel:
    """What both backends share: a chat client and a quick probe client, created on first use and
    closed together; `ping` is "can the models be listed". Subclasses say how to make a client."""

    backend = "model"

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self._client: Any = None
        self._probe: Any = None

    def _new_client(self, read_timeout: float) -> Any:
        raise NotImplementedError

    def connect(self) -> Any:
        """Create the clients (no network traffic yet)."""
        if self._client is None:
            self._client = self._new_client(self.settings.first_token_timeout)
            make_cancellable(self._client)  # Stop cuts a silent stream at once (quest/cancel.py)
            self._probe = self._new_client(min(self.settings.connect_timeout, 3.0))
        return self._client

    def close(self) -> None:
        for client in (self._client, self._probe):
            if client is not None:
                client.close()
        self._client = self._probe = None

    def list_models(self) -> list[str]:
        raise NotImplementedError

    def ping(self) -> bool:
        try:
            self.list_models()
        except LLMError as exc:
            log.debug("%s ping failed: %s", self.backend, exc)
            return False
        return True


class OllamaChatModel(ClientChatModel):
    """Ollama through the official client. The constructor only stores settings."""

    backend = "ollama"

    @property
    def host(self) -> str:
        from ollama._client import _parse_host  # the client's own reading of OLLAMA_HOST-style values

        return _parse_host(self.settings.ollama_host or None) if self.settings.ollama_host else DEFAULT_HOST

    def _timeout(self, read: float) -> httpx.Timeout:
        s = self.settings
        return httpx.Timeout(connect=s.connect_timeout, read=read, write=s.connect_timeout, pool=s.connect_timeout)

    def _new_client(self, read_timeout: float) -> Any:
        import ollama

        return ollama.Client(host=self.host, timeout=self._timeout(read_timeout))

    # ----------------------------------------------------------------- health

    def list_models(self) -> list[str]:
        self.connect()
        try:
            listing = self._probe.list()
        except Exception as exc:
            raise self._translate(exc, model="") from None
        return [m.model for m in listing.models if m.model]

    # ----------------------------------------------------------------- chat

    def stream(self, messages: Sequence[Mapping[str, str]], model: str,
               options: Mapping[str, Any] | None = None) -> Iterator[ChatChunk]:
        client = self.connect()
        opts = dict(generation_options(self.settings) if options is None else options)
        started = time.monotonic()
        deadline = started + self.settings.total_timeout
        log.info("ollama chat: model=%s host=%s messages=%d", model, self.host, len(messages))
        parts = client.chat(model=model, messages=[dict(m) for m in messages], stream=True, options=opts,
                            keep_alive=self.settings.keep_alive)
        finished = False
        try:
            try:
                for part in parts:
                    message = part.message
                    if part.done:
                        finished = True
                        stats = {k: getattr(part, k) for k in STAT_FIELDS if getattr(part, k, None) is not None}
                        yield ChatChunk(content=message.content or "", thinking=message.thinking or "",
                                        done=True, stats=stats)
                        break
                    yield ChatChunk(content=message.content or "", thinking=message.thinking or "")
                    if time.monotonic() > deadline:
                        raise LLMTimeout(f"The model did not finish within {self.settings.total_timeout:g} s.",
                                         hint="try again, or use a smaller model")
            except LLMError:
                raise
            except Exception as exc:
                raise self._translate(exc, model=model) from None
            if not finished:
                raise StreamBroken("The model's answer stopped before it was complete.",
                                   hint="check the `ollama serve` log, then try again")
        finally:
            parts.close()  # closes the HTTP response: the server sees the connection go away
            log.debug("ollama stream closed after %.2f s (finished=%s)", time.monotonic() - started, finished)

    def _translate(self, exc: BaseException, *, model: str) -> LLMError:
        import ollama
        import pydantic

        if stop_requested():
            return Stopped("The answer was stopped while Ollama was answering.")
        if isinstance(exc, ollama.ResponseError):
            if exc.status_code == 404:
                return ModelNotFound(f"The model {model} is not available in Ollama ({exc.error}).",
                                     hint=f"run `ollama pull {model}`")
            if exc.status_code == -1:  # the client's code for an {"error": ...} record inside a 200 stream
                return LLMError(f"Ollama reported an error while answering: {exc.error}.",
                                hint="check the `ollama serve` log")
            return LLMError(f"Ollama answered with an error: {exc.error} (HTTP {exc.status_code}).",
                            hint="check the `ollama serve` log")
        if isinstance(exc, (httpx.ConnectError, httpx.ConnectTimeout, ConnectionError)):
            return LLMUnavailable(f"Could not reach Ollama at {self.host}.", hint=unavailable_hint(self.host))
        if isinstance(exc, httpx.TimeoutException):
            return LLMTimeout(f"Ollama sent nothing for {self.settings.first_token_timeout:g} s.",
                              hint="the model may still be loading or the machine is busy; try again")
        # A record without the fields of a chat reply, or a line that is JSON but no object ([1,2], "text", 42, null:
        # the client calls .get on it): a broken server or a proxy in between, not a bug here; the trace is for
        # debugging only.
        if isinstance(exc, pydantic.ValidationError) or _not_an_object(exc):
            log.debug("ollama sent a record that is no chat reply mid-stream", exc_info=exc)
            return StreamBroken("Ollama sent a record Quest cannot read while the answer was streaming.",
                                hint="check the `ollama serve` log and the Ollama version, then try again")
        if isinstance(exc, (httpx.RemoteProtocolError, httpx.ReadError, httpx.StreamError, json.JSONDecodeError)):
            return StreamBroken("The connection to Ollama broke while the answer was streaming.",
                                hint="check the `ollama serve` log, then try again")
        if isinstance(exc, httpx.HTTPError):
            return LLMUnavailable(f"Could not talk to Ollama at {self.host}: {exc}.", hint=unavailable_hint(self.host))
        log.exception("unexpected error from the ollama client")
        return LLMError(f"Unexpected error from the Ollama client: {exc}")


def _not_an_object(exc: BaseException) -> bool:
    """Whether `exc` is the Ollama client reading a stream line that parsed as JSON but not as an object: its
    `part.get('error')` on a list, string, number, boolean or null."""
    return (isinstance(exc, AttributeError) and exc.name == "get"
            and isinstance(exc.obj, (list, str, int, float, bool, type(None))))
