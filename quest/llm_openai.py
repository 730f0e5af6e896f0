"""The chat model over the OpenAI protocol (official `openai` client): vLLM, SGLang, TGI,
llama.cpp's server, LiteLLM, Ollama's /v1, or a hosted API (DeepSeek, Qwen, ...).

`OpenAIChatModel` has the same public shape as `quest.llm.OllamaChatModel` and yields the
same `ChatChunk`s: content pieces, thinking (`reasoning_content` / `reasoning` deltas; a
`<think>` block inside the content is split later by the assistant, as with Ollama), and a
last chunk with `done=True` whose stats use Ollama's names (so `stats_summary` serves both):
`done_reason` from `finish_reason`, token counts from `usage`, durations measured here.

Failures become the same `quest.errors` exceptions as with Ollama, plus `LLMAuthError`
(401/403) and `RateLimited` (429, with the server's Retry-After). The client's own retries
are off: the host router decides where a failed request goes next. The API key is handed to
the client only; it never appears in a log line, an error message or the status.

The client sends each chat and raises its HTTP errors; the streamed server-sent events are read
here as plain JSON (`_chunks`), which costs a fifth of the CPU of the client's typed chunks.
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from quest.cancel import stop_requested
from quest.errors import (
    LLMAuthError,
    LLMError,
    LLMTimeout,
    LLMUnavailable,
    ModelNotFound,
    RateLimited,
    Stopped,
    StreamBroken,
)
from quest.llm import ChatChunk, ClientChatModel
from quest.settings import Settings

log = logging.getLogger(__name__)

NO_KEY = "not-needed"  # local servers ignore the key, but the client insists on one


def unavailable_hint(host: str) -> str:
    return f"start the model server and check QUEST_OPENAI_BASE_URL (now {host})"


def request_options(settings: Settings) -> dict[str, Any]:
    """The sampling settings the OpenAI protocol knows (Ollama's repeat_penalty/num_ctx have no
    standard name there; num_ctx still bounds the prompt, which Quest fits before sending)."""
    return {"temperature": settings.temperature, "top_p": settings.top_p, "max_tokens": settings.answer_tokens}


class OpenAIChatModel(ClientChatModel):
    """One OpenAI-compatible endpoint. The constructor only stores settings."""

    backend = "openai"

    def __init__(self, settings: Settings, base_url: str | None = None) -> None:
        super().__init__(settings)
        self.host = (base_url or settings.openai_base_url).strip().rstrip("/")

    def __repr__(self) -> str:  # never the key
        return f"OpenAIChatModel({self.host!r})"

    def _timeout(self, read: float) -> Any:
        import openai

        s = self.settings
        return openai.Timeout(connect=s.connect_timeout, read=read, write=s.connect_timeout, pool=s.connect_timeout)

    def _new_client(self, read_timeout: float) -> Any:
        import openai

        return openai.OpenAI(base_url=self.host, api_key=self.settings.openai_api_key or NO_KEY, max_retries=0,
                             timeout=self._timeout(read_timeout))

    # ----------------------------------------------------------------- health

    def list_models(self) -> list[str]:
        self.connect()
        try:
            return [m.id for m in self._probe.models.list()]
        except Exception as exc:
            raise self._translate(exc, model="") from None

    # ----------------------------------------------------------------- chat

    def stream(self, messages: Sequence[Mapping[str, str]], model: str,
               options: Mapping[str, Any] | None = None) -> Iterator[ChatChunk]:
        client = self.connect()
        opts = request_options(self.settings)
        opts.update({k: v for k, v in (options or {}).items() if k in opts})
        started = time.monotonic()
        log.info("openai chat: model=%s host=%s messages=%d", model, self.host, len(messages))
        # The client sends the request and raises its errors (401, 404, 429, 5xx, no connection); the
        # stream's server-sent events are read here as plain JSON: the client's typed chunk (a model
        # built per piece) cost about twice the CPU per piece of the whole Ollama client.
        request = client.chat.completions.with_streaming_response.create(
            model=model, messages=[dict(m) for m in messages], stream=True,
            stream_options={"include_usage": True}, **opts)  # fmt: skip
        try:
            response = request.__enter__()  # sends it; the `finally` below closes it, as `__exit__` would
        except Exception as exc:
            raise self._translate(exc, model=model) from None
        try:
            yield from self._read(response.iter_lines(), started)
        finally:
            response.close()  # closes the HTTP response: the server sees the connection go away
            log.debug("openai stream closed after %.2f s", time.monotonic() - started)

    def _read(self, lines: Iterator[str], started: float) -> Iterator[ChatChunk]:
        deadline = started + self.settings.total_timeout
        finish: str | None = None
        usage: Mapping[str, Any] | None = None
        first: float | None = None
        try:
            for part in _chunks(lines):
                usage = part.get("usage") or usage
                for choice in (part.get("choices") or [])[:1]:
                    finish = choice.get("finish_reason") or finish
                    content, thinking = _delta_text(choice.get("delta"))
                    if content or thinking:
                        first = first or time.monotonic()
                        yield ChatChunk(content=content, thinking=thinking)
                if time.monotonic() > deadline:
                    raise LLMTimeout(f"The model did not finish within {self.settings.total_timeout:g} s.",
                                     hint="try again, or use a smaller model")
        except LLMError:
            raise
        except Exception as exc:
            raise self._translate(exc, model="", streaming=True) from None
        if finish is None:  # the SSE stream ended without a finish_reason: cut off
            raise StreamBroken("The model's answer stopped before it was complete.",
                               hint="check the model server's log, then try again")
        yield ChatChunk(done=True, stats=_stats(finish, usage, started, first))

    # ----------------------------------------------------------------- errors

    def _translate(self, exc: BaseException, *, model: str, streaming: bool = False) -> LLMError:
        import openai

        if stop_requested():
            return Stopped("The answer was stopped while the model server was answering.")
        where = self.host
        if isinstance(exc, (openai.AuthenticationError, openai.PermissionDeniedError)):
            return LLMAuthError(f"The model server at {where} refused the API key (HTTP {exc.status_code}).",
                                hint="check QUEST_OPENAI_API_KEY")
        if isinstance(exc, openai.NotFoundError):
            return ModelNotFound(f"The model {model} is not served at {where}.",
                                 hint="check QUEST_OPENAI_MODEL against the server's model list")
        if isinstance(exc, openai.RateLimitError):
            after = _retry_after(exc.response)
            wait = f" (retry after {after:g} s)" if after is not None else ""
            return RateLimited(f"The model server at {where} is rate limiting requests{wait}.",
                               retry_after=after, hint="wait a moment and ask again")
        if isinstance(exc, openai.APIStatusError):
            return LLMError(f"The model server at {where} answered with HTTP {exc.status_code}.",
                            hint="check the model server's log")
        if isinstance(exc, openai.APITimeoutError) or type(exc).__name__.endswith("Timeout"):
            return LLMTimeout(f"The model server sent nothing for {self.settings.first_token_timeout:g} s.",
                              hint="the model may still be loading or the server is busy; try again")
        if streaming:
            return StreamBroken("The connection to the model server broke while the answer was streaming.",
                                hint="check the model server's log, then try again")
        if isinstance(exc, openai.APIConnectionError):
            return LLMUnavailable(f"Could not reach the model server at {where}.", hint=unavailable_hint(where))
        log.exception("unexpected error from the openai client")
        return LLMError(f"Unexpected error from the OpenAI client: {type(exc).__name__}")


def _chunks(lines: Iterator[str]) -> Iterator[dict[str, Any]]:
    """The JSON chunks of a server-sent event stream, up to `data: [DONE]`.

    Comment lines (`: keep-alive`), event names and ids are skipped; an event's data lines are
    joined. A chunk that carries an `error` (some servers report a failure mid-stream that way)
    raises, so the stream counts as broken, as the client's own reader does.
    """
    data: list[str] = []
    for line in _with_final_blank(lines):
        if line.startswith("data:"):
            data.append(line[6:] if line.startswith("data: ") else line[5:])
            continue
        if line or not data:
            continue
        payload, data = "\n".join(data), []
        if payload.startswith("[DONE]"):
            return
        chunk = json.loads(payload)
        if not isinstance(chunk, dict):
            raise ValueError("a stream chunk that is not a JSON object")
        if chunk.get("error"):
            raise ValueError("the server reported an error in the stream")
        yield chunk


def _with_final_blank(lines: Iterator[str]) -> Iterator[str]:
    yield from lines
    yield ""  # the last event, when the server did not end it with a blank line


def _delta_text(delta: Mapping[str, Any] | None) -> tuple[str, str]:
    """(content, thinking) of one delta. Reasoning servers send the thought in a non-standard
    field: `reasoning_content` (DeepSeek, vLLM, SGLang) or `reasoning` (newer vLLM, OpenRouter)."""
    if not delta:
        return "", ""
    thinking = delta.get("reasoning_content") or delta.get("reasoning") or ""
    content = delta.get("content") or ""
    return content if isinstance(content, str) else "", thinking if isinstance(thinking, str) else ""


def _stats(finish: str, usage: Mapping[str, Any] | None, started: float, first: float | None) -> dict[str, Any]:
    now = time.monotonic()
    stats: dict[str, Any] = {"done_reason": finish, "total_duration": int((now - started) * 1e9)}
    if usage:
        stats["prompt_eval_count"] = usage.get("prompt_tokens")
        stats["eval_count"] = usage.get("completion_tokens")
        if first is not None and now > first:
            stats["eval_duration"] = int((now - first) * 1e9)
    return stats


def _retry_after(response: Any) -> float | None:
    raw = response.headers.get("retry-after") if response is not None else None
    try:
        return max(0.0, float(raw)) if raw else None
    except ValueError:  # an HTTP date: not worth parsing for a hint
        return None


# What the student reads when the OpenAI-protocol server fails (the Ollama wording names
# `ollama serve`; this names the server the operator configured). Keys are error codes.
FAILURES = {
    "en": {
        "llm_unavailable": "The model server at {host} is not reachable, so there is no generated answer. "
                           "Fix: start it, and check QUEST_OPENAI_BASE_URL.",
        "model_not_found": "The model server does not serve {model}, so there is no generated answer. "
                           "Fix: check QUEST_OPENAI_MODEL against the server's model list.",
        "llm_timeout": "The model server did not answer within {timeout:g} s, so there is no generated answer. "
                       "Fix: try again in a moment.",
        "stream_broken": "The connection to the model server broke while it was answering. Fix: ask again.",
        "llm_auth": "The model server refused Quest's API key, so there is no generated answer. "
                    "Fix: the operator should check QUEST_OPENAI_API_KEY.",
        "rate_limited": "The model server is rate limiting requests, so there is no generated answer. "
                        "Fix: wait a moment and ask again.",
        "no_model": "No language model is configured, so there is no generated answer.",
        "llm": "The model server failed ({message}). Fix: check its log, and QUEST_OPENAI_BASE_URL ({host}).",
    },
    "zh": {
        "llm_unavailable": ("无法连接模型服务（{host}），所以没有生成的回答。"
                            "解决：启动它，并检查 QUEST_OPENAI_BASE_URL。"),
        "model_not_found": ("模型服务没有提供 {model}，所以没有生成的回答。"
                            "解决：对照服务的模型列表检查 QUEST_OPENAI_MODEL。"),
        "llm_timeout": "模型服务在 {timeout:g} 秒内没有回答，所以没有生成的回答。解决：稍后重新提问。",
        "stream_broken": "模型服务在回答过程中断开了连接。解决：重新提问。",
        "llm_auth": "模型服务拒绝了 Quest 的 API 密钥，所以没有生成的回答。解决：请管理员检查 QUEST_OPENAI_API_KEY。",
        "rate_limited": "模型服务正在限流，所以没有生成的回答。解决：稍等片刻再提问。",
        "no_model": "没有配置语言模型，所以没有生成的回答。",
        "llm": "模型服务出错（{message}）。解决：查看它的日志，并检查 QUEST_OPENAI_BASE_URL（{host}）。",
    },
}


def failure_line(code: str, message: str, lang: str, *, host: str, model: str, timeout: float) -> str:
    table = FAILURES.get(lang, FAILURES["en"])
    return table.get(code, table["llm"]).format(host=host, model=model, timeout=timeout, message=message)
