import logging
import time

import pytest

from quest.errors import LLMError, LLMTimeout, LLMUnavailable, ModelNotFound, StreamBroken
from quest.llm import ChatChunk, OllamaChatModel, generation_options, stats_summary
from quest.settings import Settings
from tests.fakes.ollama_server import FakeOllama

MESSAGES = [{"role": "system", "content": "rules"}, {"role": "user", "content": "Why TLE?"}]
MODEL = "qwen2.5-coder:1.5b"


def model_for(fake: FakeOllama, **changes) -> OllamaChatModel:
    values = {"ollama_host": fake.url, "connect_timeout": 2.0, "first_token_timeout": 5.0, "total_timeout": 30.0}
    values.update(changes)
    return OllamaChatModel(Settings(**values))


def test_stream_yields_chunks_in_order_then_the_final_record(fake_ollama: FakeOllama) -> None:
    chunks = list(model_for(fake_ollama).stream(MESSAGES, MODEL))
    assert [c.content for c in chunks] == ["Use ", "a ", "deque", " [1]", ".", ""]
    assert [c.done for c in chunks] == [False] * 5 + [True]
    assert chunks[-1].stats == {"done_reason": "stop", "total_duration": 1_500_000_000, "load_duration": 100_000_000,
                                "prompt_eval_count": 420, "prompt_eval_duration": 200_000_000, "eval_count": 50,
                                "eval_duration": 1_000_000_000}
    body = fake_ollama.chat_bodies[0]
    assert body["model"] == MODEL and body["stream"] is True and body["keep_alive"] == "10m"
    assert body["options"] == {"temperature": 0.2, "top_p": 0.9, "repeat_penalty": 1.1, "num_ctx": 4096}
    assert body["messages"] == MESSAGES


def test_options_come_from_settings() -> None:
    settings = Settings(temperature=0.0, top_p=0.5, repeat_penalty=1.3, num_ctx=8192)
    assert generation_options(settings) == {"temperature": 0.0, "top_p": 0.5, "repeat_penalty": 1.3, "num_ctx": 8192}


def test_stats_summary_from_the_final_record() -> None:
    raw = {"done_reason": "stop", "total_duration": 1_500_000_000, "load_duration": 100_000_000,
           "prompt_eval_count": 420, "prompt_eval_duration": 200_000_000, "eval_count": 50,
           "eval_duration": 1_000_000_000}
    assert stats_summary(raw) == {"done_reason": "stop", "prompt_tokens": 420, "completion_tokens": 50,
                                  "total_ms": 1500.0, "load_ms": 100.0, "prompt_eval_ms": 200.0, "eval_ms": 1000.0,
                                  "tokens_per_second": 50.0, "prompt_tokens_per_second": 2100.0}


def test_separate_thinking_field_is_passed_on(fake_ollama: FakeOllama) -> None:
    fake_ollama.thinking = ["hmm, ", "pop(0) is O(k)"]
    chunks = list(model_for(fake_ollama).stream(MESSAGES, MODEL))
    assert [c.thinking for c in chunks if c.thinking] == ["hmm, ", "pop(0) is O(k)"]


def test_host_from_ollama_host_environment_variable(fake_ollama: FakeOllama) -> None:
    settings = Settings.from_env(env={"OLLAMA_HOST": fake_ollama.url})
    model = OllamaChatModel(settings)
    assert model.host == fake_ollama.url
    assert model.ping() and model.list_models() == ["qwen2.5-coder:1.5b", "deepseek-r1:7b"]
    assert [r.path for r in fake_ollama.requests] == ["/api/tags", "/api/tags"]


def test_missing_model_is_model_not_found_with_the_pull_command(fake_ollama: FakeOllama) -> None:
    with pytest.raises(ModelNotFound) as info:
        list(model_for(fake_ollama).stream(MESSAGES, "llama9:70b"))
    assert info.value.hint == "run `ollama pull llama9:70b`"
    assert 'model "llama9:70b" not found, try pulling it first' in info.value.message


def test_server_down_is_unavailable(fake_ollama: FakeOllama) -> None:
    model = model_for(fake_ollama)
    fake_ollama.stop()
    with pytest.raises(LLMUnavailable) as info:
        list(model.stream(MESSAGES, MODEL))
    assert "ollama serve" in info.value.hint and fake_ollama.url in info.value.hint
    assert model.ping() is False


def test_no_first_token_times_out(fake_ollama: FakeOllama) -> None:
    fake_ollama.mode = "stall"
    started = time.monotonic()
    with pytest.raises(LLMTimeout):
        list(model_for(fake_ollama, first_token_timeout=0.5).stream(MESSAGES, MODEL))
    assert time.monotonic() - started < 4


def test_total_timeout_is_checked_between_chunks(fake_ollama: FakeOllama) -> None:
    fake_ollama.tokens = ["x"] * 50
    fake_ollama.delay = 0.02
    received: list[ChatChunk] = []
    with pytest.raises(LLMTimeout):
        for chunk in model_for(fake_ollama, total_timeout=0.3).stream(MESSAGES, MODEL):
            received.append(chunk)
    assert 1 <= len(received) < 50


def test_stream_dropped_halfway_is_stream_broken_after_the_first_chunks(fake_ollama: FakeOllama) -> None:
    fake_ollama.mode = "drop"
    fake_ollama.drop_after = 2
    received: list[str] = []
    with pytest.raises(StreamBroken):
        for chunk in model_for(fake_ollama).stream(MESSAGES, MODEL):
            received.append(chunk.content)
    assert received == ["Use ", "a "]


def test_closing_the_stream_closes_the_connection_promptly(fake_ollama: FakeOllama) -> None:
    fake_ollama.tokens = [f"t{i} " for i in range(500)]
    fake_ollama.delay = 0.01
    stream = model_for(fake_ollama).stream(MESSAGES, MODEL)
    assert next(stream).content == "t0 "
    assert next(stream).content == "t1 "
    closed_at = time.monotonic()
    stream.close()
    assert fake_ollama.client_closed.wait(2.0)
    when, sent = fake_ollama.disconnects[0]
    assert when - closed_at < 1.0
    assert sent < 100  # the server stopped generating long before the script's end


def test_the_fake_pauses_at_its_checkpoints_until_told_to_proceed(fake_ollama: FakeOllama) -> None:
    fake_ollama.tokens = [f"t{i} " for i in range(6)]
    fake_ollama.pause_at = frozenset({2, 4})
    stream = model_for(fake_ollama).stream(MESSAGES, MODEL)
    assert [next(stream).content for _ in range(2)] == ["t0 ", "t1 "]
    fake_ollama.proceed()  # past the first checkpoint; the second permit is given before it is reached
    fake_ollama.proceed()
    assert [c.content for c in stream] == ["t2 ", "t3 ", "t4 ", "t5 ", ""]


def test_a_client_that_leaves_during_a_pause_is_recorded_at_the_checkpoint(fake_ollama: FakeOllama) -> None:
    fake_ollama.tokens = [f"t{i} " for i in range(6)]
    fake_ollama.pause_at = frozenset({2})
    stream = model_for(fake_ollama).stream(MESSAGES, MODEL)
    assert [next(stream).content for _ in range(2)] == ["t0 ", "t1 "]
    stream.close()
    assert fake_ollama.client_closed.wait(10)
    assert [sent for _when, sent in fake_ollama.disconnects] == [2]  # nothing past the checkpoint went out


def test_the_fake_servers_pace_pieces_by_schedule_so_slow_writes_do_not_stretch_the_stream(monkeypatch) -> None:
    import quest.testing.http_fake as http_fake

    class Clock:
        def __init__(self) -> None:
            self.now = 100.0
            self.slept: list[float] = []

        def monotonic(self) -> float:
            return self.now

        def sleep(self, seconds: float) -> None:
            self.slept.append(round(seconds, 6))
            self.now += seconds

    clock = Clock()
    monkeypatch.setattr(http_fake, "time", clock)
    fake = FakeOllama(tokens=["a", "b", "c"], delay=0.02)
    pieces = []
    for _kind, piece in fake.paced_script():
        pieces.append(piece)
        clock.now += 0.005  # writing each piece takes 5 ms on a busy machine
    assert pieces == ["a", "b", "c"]
    assert clock.slept == [0.02, 0.015, 0.015]  # the stream still takes 3 x 20 ms, not 3 x 25 ms


@pytest.mark.parametrize(("garbage", "kind", "message"), [
    (b'{"error":"llama runner process has terminated: exit status 2"}\n', "LLMError",
     "Ollama reported an error while answering: llama runner process has terminated: exit status 2. "
     "(check the `ollama serve` log)"),
    (b'{"done": true}\n', "StreamBroken", "Ollama sent a record Quest cannot read while the answer was streaming. "
                                          "(check the `ollama serve` log and the Ollama version, then try again)"),
    (b'{"message": null, "done": false}\n', "StreamBroken",
     "Ollama sent a record Quest cannot read while the answer was streaming. "
     "(check the `ollama serve` log and the Ollama version, then try again)"),
    (b'{"message": {"content": "cut sh\n', "StreamBroken",
     "The connection to Ollama broke while the answer was streaming. (check the `ollama serve` log, then try again)"),
    # JSON, but no object: the client's .get on it raised AttributeError, logged with a stack trace at ERROR.
    (b'[1,2]\n', "StreamBroken", "Ollama sent a record Quest cannot read while the answer was streaming. "
                                "(check the `ollama serve` log and the Ollama version, then try again)"),
    (b'"keep-alive"\n', "StreamBroken", "Ollama sent a record Quest cannot read while the answer was streaming. "
                                       "(check the `ollama serve` log and the Ollama version, then try again)"),
    (b'42\n', "StreamBroken", "Ollama sent a record Quest cannot read while the answer was streaming. "
                             "(check the `ollama serve` log and the Ollama version, then try again)"),
    (b'null\n', "StreamBroken", "Ollama sent a record Quest cannot read while the answer was streaming. "
                               "(check the `ollama serve` log and the Ollama version, then try again)"),
], ids=["error object", "record without message", "null message", "json cut short", "json array", "json string",
        "json number", "json null"])  # fmt: skip
def test_a_stream_that_turns_to_garbage_is_a_plain_model_error(fake_ollama: FakeOllama, garbage: bytes, kind: str,
                                                               message: str, caplog: pytest.LogCaptureFixture) -> None:
    # An error record mid-stream read "(HTTP -1)"; a record without a message was an "unexpected error" logged with
    # a stack trace at ERROR.
    fake_ollama.mode, fake_ollama.drop_after, fake_ollama.garbage = "garbage", 2, garbage
    received: list[str] = []
    with pytest.raises(LLMError) as info:
        for chunk in model_for(fake_ollama).stream(MESSAGES, MODEL):
            received.append(chunk.content)
    assert (type(info.value).__name__, str(info.value)) == (kind, message)
    assert received == ["Use ", "a "]
    assert [r for r in caplog.records if r.levelno >= logging.ERROR] == []
    # No stack trace above DEBUG.
    assert [r.getMessage() for r in caplog.records if r.exc_info and r.levelno > logging.DEBUG] == []
