"""The OpenAI-protocol chat model through the official `openai` client against the fake server."""

from __future__ import annotations

import logging
from collections.abc import Iterator

import pytest

from quest.errors import LLMAuthError, LLMError, LLMTimeout, LLMUnavailable, ModelNotFound, RateLimited, StreamBroken
from quest.llm import stats_summary
from quest.llm_openai import OpenAIChatModel
from quest.settings import Settings
from quest.testing.openai_server import FakeOpenAI

MESSAGES = [{"role": "system", "content": "rules"}, {"role": "user", "content": "Why TLE?"}]
MODEL = "qwen2.5-coder:1.5b"
KEY = "sk-test-4f1c9e"


@pytest.fixture
def fake() -> Iterator[FakeOpenAI]:
    server = FakeOpenAI().start()
    try:
        yield server
    finally:
        server.stop()


def model_for(fake: FakeOpenAI, **changes) -> OpenAIChatModel:
    # A generous first-token wait (a loaded machine can be slow to serve a healthy fake's first piece); the stall
    # test sets its own short one.
    values = {"llm_backend": "openai", "openai_base_url": fake.url, "connect_timeout": 2.0,
              "first_token_timeout": 10.0, "total_timeout": 30.0}
    values.update(changes)
    return OpenAIChatModel(Settings(**values))


def test_stream_yields_pieces_then_a_final_chunk_with_usage(fake: FakeOpenAI) -> None:
    chunks = list(model_for(fake).stream(MESSAGES, MODEL))
    assert [c.content for c in chunks] == ["Use ", "a ", "deque", " [1]", ".", ""]
    assert [c.done for c in chunks] == [False] * 5 + [True]
    stats = chunks[-1].stats
    assert stats["done_reason"] == "stop" and stats["prompt_eval_count"] == 420 and stats["eval_count"] == 50
    summary = stats_summary(stats)
    assert (summary["prompt_tokens"], summary["completion_tokens"], summary["done_reason"]) == (420, 50, "stop")
    assert [r.path for r in fake.requests] == ["/v1/chat/completions"]
    body = fake.chat_bodies[0]
    assert body["messages"] == MESSAGES and body["model"] == MODEL


def test_reasoning_content_becomes_thinking(fake: FakeOpenAI) -> None:
    fake.thinking = ["pop(0) ", "is O(k)"]
    chunks = list(model_for(fake).stream(MESSAGES, MODEL))
    assert [c.thinking for c in chunks if c.thinking] == ["pop(0) ", "is O(k)"]
    assert "".join(c.content for c in chunks) == "Use a deque [1]."


def test_models_listed_and_ping(fake: FakeOpenAI) -> None:
    model = model_for(fake)
    assert model.list_models() == ["qwen2.5-coder:1.5b", "deepseek-r1:7b"] and model.ping()
    fake.stop()
    assert not model.ping()


def test_api_key_is_sent_as_bearer_and_never_logged_or_shown(fake: FakeOpenAI,
                                                              caplog: pytest.LogCaptureFixture) -> None:
    fake.api_key = KEY
    caplog.set_level(logging.DEBUG)
    settings = Settings(llm_backend="openai", openai_base_url=fake.url, openai_api_key=KEY)
    model = OpenAIChatModel(settings)
    list(model.stream(MESSAGES, MODEL))
    assert fake.requests[0].headers["authorization"] == f"Bearer {KEY}"
    assert KEY not in caplog.text and KEY not in repr(settings) and KEY not in repr(model)


@pytest.mark.parametrize(("status", "error", "words"), [
    (401, LLMAuthError, "refused the API key (HTTP 401)"),
    (403, LLMAuthError, "refused the API key (HTTP 403)"),
    (500, LLMError, "answered with HTTP 500"),
    (503, LLMError, "answered with HTTP 503"),
])
def test_http_errors_become_friendly_errors(fake: FakeOpenAI, status: int, error: type, words: str) -> None:
    fake.mode, fake.status = "status", status
    with pytest.raises(error) as caught:
        list(model_for(fake).stream(MESSAGES, MODEL))
    assert type(caught.value) is error and words in caught.value.message


def test_wrong_key_is_an_auth_error(fake: FakeOpenAI) -> None:
    fake.api_key = KEY
    with pytest.raises(LLMAuthError, match="HTTP 401"):
        list(model_for(fake, openai_api_key="sk-wrong").stream(MESSAGES, MODEL))


def test_rate_limit_carries_retry_after(fake: FakeOpenAI) -> None:
    fake.mode, fake.status, fake.retry_after = "status", 429, 7
    with pytest.raises(RateLimited) as caught:
        list(model_for(fake).stream(MESSAGES, MODEL))
    assert caught.value.retry_after == 7.0 and "retry after 7 s" in caught.value.message
    assert len(fake.chat_bodies) == 1  # the client's own retries are off: the router decides


def test_missing_model(fake: FakeOpenAI) -> None:
    with pytest.raises(ModelNotFound, match="qwen3:8b"):
        list(model_for(fake).stream(MESSAGES, "qwen3:8b"))


def test_refused_connection(fake: FakeOpenAI) -> None:
    fake.stop()
    with pytest.raises(LLMUnavailable, match="Could not reach"):
        list(model_for(fake).stream(MESSAGES, MODEL))


def test_stall_times_out_and_the_server_sees_the_client_leave(fake: FakeOpenAI) -> None:
    fake.mode, fake.stall_seconds = "stall", 5.0
    with pytest.raises(LLMTimeout):
        list(model_for(fake, first_token_timeout=0.5).stream(MESSAGES, MODEL))
    assert fake.client_closed.wait(3)


def test_dropped_stream_is_broken_after_the_pieces_sent(fake: FakeOpenAI) -> None:
    fake.mode, fake.drop_after = "drop", 2
    got = []
    with pytest.raises(StreamBroken):
        for chunk in model_for(fake).stream(MESSAGES, MODEL):
            got.append(chunk.content)
    assert got == ["Use ", "a "]


def test_closing_the_generator_closes_the_connection(fake: FakeOpenAI) -> None:
    fake.tokens, fake.delay = [f"w{i} " for i in range(50)], 0.02
    stream = model_for(fake).stream(MESSAGES, MODEL)
    assert next(stream).content == "w0 "
    stream.close()
    assert fake.client_closed.wait(3)
    assert fake.disconnects and fake.disconnects[0][1] < 50


def test_settings_from_environment() -> None:
    env = {"QUEST_LLM_BACKEND": "openai", "QUEST_OPENAI_BASE_URL": "http://a:8000/v1, http://b:8000/v1",
           "QUEST_OPENAI_API_KEY": KEY, "QUEST_OPENAI_MODEL": "Qwen/Qwen2.5-Coder-7B-Instruct"}
    settings = Settings.from_env(env)
    assert settings.llm_backend == "openai" and settings.openai_api_key == KEY
    assert settings.chat_model_names == ("Qwen/Qwen2.5-Coder-7B-Instruct", "deepseek-r1:7b")
    with pytest.raises(ValueError, match="llm_backend"):
        Settings.from_env({"QUEST_LLM_BACKEND": "llamafile"})


def test_the_event_stream_reader_skips_comments_joins_data_lines_and_stops_at_done() -> None:
    from quest.llm_openai import _chunks

    lines = [": keep-alive", "", "event: message", 'data: {"choices": [{"delta": {"content": "a"}}]}', "",
             'data: {"choices": [', 'data: {"delta": {"content": "b"}}]}', "id: 7", "",
             "data: [DONE]", "", 'data: {"choices": []}', ""]  # fmt: skip
    assert list(_chunks(iter(lines))) == [{"choices": [{"delta": {"content": "a"}}]},
                                          {"choices": [{"delta": {"content": "b"}}]}]
    # The last event counts even without its closing blank line; "data:" without a space too.
    assert list(_chunks(iter(['data:{"usage": {"prompt_tokens": 3}}']))) == [{"usage": {"prompt_tokens": 3}}]


def test_an_error_reported_inside_the_stream_breaks_it() -> None:
    from quest.llm_openai import _chunks

    with pytest.raises(ValueError, match="reported an error"):
        list(_chunks(iter(['data: {"error": {"message": "overloaded"}}', ""])))
    with pytest.raises(ValueError):
        list(_chunks(iter(["data: not json", ""])))
