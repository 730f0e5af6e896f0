"""Several model hosts behind one `ChatModel`: least-in-flight among the healthy, back-off, one retry.

`OLLAMA_HOST` (backend "ollama") or `QUEST_OPENAI_BASE_URL` (backend "openai") may name a
comma-separated list of hosts. `HostRouter` then sends each chat to the healthy host with the
fewest chats in flight (ties: the one that has served fewest). A host whose chat fails — refused,
timed out, rate limited, 5xx, broken stream, missing model, refused key — is skipped for
`host_backoff` seconds (or the server's Retry-After, if longer) and then tried again. A chat that
fails before its first token (content or thinking) is retried once on another host; after the
first token it is not, since a second model would start the answer over and the student would
see it twice. When every host is backing off, the one whose back-off ends first is tried anyway:
with a single host, Quest behaves exactly as it did with one.

For large fleets a gateway (LiteLLM proxy, vLLM's router, nginx) in front of the hosts does this
better; give Quest its one URL (docs/deploy.md).
"""

from __future__ import annotations

import contextlib
import logging
import threading
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from quest.errors import LLMError, RateLimited, Stopped
from quest.llm import ChatChunk, ChatModel, OllamaChatModel
from quest.settings import Settings

log = logging.getLogger(__name__)

ATTEMPTS = 2  # the first host and one retry elsewhere


@dataclass
class Host:
    url: str
    model: Any  # a ChatModel for this one host
    in_flight: int = 0
    served: int = 0
    failures: int = 0
    down_until: float = 0.0
    last_error: str = ""


def split_hosts(value: str | None) -> list[str]:
    """'a, b,,c' -> ['a', 'b', 'c']; None or blank -> []."""
    return [part.strip() for part in (value or "").split(",") if part.strip()]


class HostRouter:
    """A `ChatModel` over several single-host chat models."""

    def __init__(self, hosts: Sequence[tuple[str, Any]], *, backoff: float = 30.0,
                 clock: Callable[[], float] = time.monotonic) -> None:
        if not hosts:
            raise ValueError("HostRouter needs at least one host")
        self.hosts = [Host(url, model) for url, model in hosts]
        self.backoff = backoff
        self.clock = clock
        self._lock = threading.Lock()

    @property
    def host(self) -> str:
        return ", ".join(h.url for h in self.hosts)

    def connect(self) -> HostRouter:
        for h in self.hosts:
            h.model.connect()
        return self

    def close(self) -> None:
        for h in self.hosts:
            h.model.close()

    # ----------------------------------------------------------------- health

    def health(self) -> list[dict[str, Any]]:
        """One line per host for the Diagnostics panel (no secrets: URLs and counters only)."""
        now = self.clock()
        with self._lock:
            return [{"host": h.url, "healthy": h.down_until <= now, "in_flight": h.in_flight, "served": h.served,
                     "failures": h.failures, "retry_in_s": round(max(0.0, h.down_until - now), 1),
                     "last_error": h.last_error} for h in self.hosts]

    def ping(self) -> bool:
        """True when some host answers; a host that does not is marked as backing off."""
        alive = False
        for h in self.hosts:
            if h.model.ping():
                alive = True
                with self._lock:
                    h.down_until = 0.0
            else:
                self._failed(h, "not reachable")
        return alive

    def list_models(self) -> list[str]:
        names: list[str] = []
        error: LLMError | None = None
        for h in self.hosts:
            try:
                names += [n for n in h.model.list_models() if n not in names]
            except LLMError as exc:
                error = exc
        if not names and error is not None:
            raise error
        return names

    # ----------------------------------------------------------------- chat

    def stream(self, messages: Sequence[Mapping[str, str]], model: str,
               options: Mapping[str, Any] | None = None) -> Iterator[ChatChunk]:
        tried: list[Host] = []
        while True:
            host = self._acquire(tried)
            tried.append(host)
            started = False
            try:
                with contextlib.closing(iter(host.model.stream(messages, model, options))) as chunks:
                    for chunk in chunks:
                        started = started or bool(chunk.content or chunk.thinking or chunk.done)
                        yield chunk
                self._succeeded(host)
                return
            except Stopped:
                raise  # the student stopped it: not the host's failure, and nothing to retry
            except LLMError as exc:
                self._failed(host, exc.code, exc)
                if started or len(tried) >= min(ATTEMPTS, len(self.hosts)):
                    raise
                log.info("model host %s failed before the first token (%s); retrying on another", host.url,
                         exc.code)
            finally:
                with self._lock:
                    host.in_flight -= 1

    def _acquire(self, tried: Sequence[Host]) -> Host:
        now = self.clock()
        with self._lock:
            fresh = [h for h in self.hosts if h not in tried]
            healthy = [h for h in fresh if h.down_until <= now]
            if healthy:
                host = min(healthy, key=lambda h: (h.in_flight, h.served))
            else:  # all backing off: the one that comes back first
                host = min(fresh, key=lambda h: (h.down_until, h.in_flight))
            host.in_flight += 1
            return host

    def _succeeded(self, host: Host) -> None:
        with self._lock:
            host.served += 1
            host.down_until = 0.0

    def _failed(self, host: Host, reason: str, exc: LLMError | None = None) -> None:
        wait = self.backoff
        if isinstance(exc, RateLimited) and exc.retry_after:
            wait = max(wait, exc.retry_after)
        with self._lock:
            host.failures += 1
            host.down_until = self.clock() + wait
            host.last_error = reason
        log.warning("model host %s failed (%s); skipped for %g s", host.url, reason, wait)


def build_chat_model(settings: Settings) -> HostRouter:
    """The configured backend over every configured host (no network traffic yet)."""
    if settings.llm_backend == "openai":
        from quest.llm_openai import OpenAIChatModel

        urls = split_hosts(settings.openai_base_url) or [OpenAIChatModel(settings).host]
        models = [OpenAIChatModel(settings, base_url=url) for url in urls]
    else:
        urls = split_hosts(settings.ollama_host)
        models = [OllamaChatModel(settings.replace(ollama_host=url)) for url in urls] or [OllamaChatModel(settings)]
    return HostRouter([(m.host, m) for m in models], backoff=settings.host_backoff).connect()


__all__ = ["ChatModel", "Host", "HostRouter", "build_chat_model", "split_hosts"]
