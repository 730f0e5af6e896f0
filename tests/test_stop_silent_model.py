"""Stop (and Clear) while the model server has sent nothing yet close its connection at once.

The real `ollama` and `openai` clients talk to the fake servers, which hold the reply at a
checkpoint and are never told to `proceed()`: a disconnect recorded there can only come from
the stop. Before the fix the connection stayed open until the first token (here: never).
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Iterator

import pytest

from quest.assistant import Assistant
from quest.cancel import CancelScope, cancellable
from quest.errors import Stopped
from quest.hosts import build_chat_model
from quest.llm import OllamaChatModel
from quest.settings import Settings
from quest.testing.http_fake import FakeServer
from quest.testing.ollama_server import FakeOllama
from quest.testing.openai_server import FakeOpenAI
from quest.ui.desk import HelpDesk, TurnControl
from quest.ui.session import Session
from quest.ui.startup import Startup
from tests.fakes.retriever import FakeRetriever
from tests.test_assistant import tle_request

WAIT = 30.0  # generous: events are waited for, never timed


@pytest.fixture(params=["ollama", "openai"])
def server(request) -> Iterator[FakeServer]:
    fake = (FakeOllama() if request.param == "ollama" else FakeOpenAI()).start()
    fake.pause_limit = 300.0  # the checkpoint never lets go on its own while a test waits
    try:
        yield fake
    finally:
        fake.stop()


def _settings(fake: FakeServer, tmp_path) -> Settings:
    values = {"data_dir": tmp_path, "connect_timeout": 2.0, "first_token_timeout": 120.0, "total_timeout": 300.0,
              "stream_interval": 0.0}  # fmt: skip
    if isinstance(fake, FakeOpenAI):
        values.update(llm_backend="openai", openai_base_url=fake.url)
    else:
        values.update(ollama_host=fake.url)
    return Settings(**values)


def _desk(fake: FakeServer, tmp_path) -> tuple[HelpDesk, object]:
    settings = _settings(fake, tmp_path)
    model = build_chat_model(settings)  # the host router over the real client, as the app builds it
    return HelpDesk(settings, Startup.ready(Assistant(settings, FakeRetriever(), model))), model


def _answer_and_stop_while_held(desk: HelpDesk, fake: FakeServer, stop: Callable[[Session], None]) -> list:
    """Ask; once the server holds the reply at its checkpoint, stop from another thread (as the Stop
    button's handler does). Returns the views."""
    session = Session()
    session.control = control = TurnControl()

    def stop_when_held() -> None:
        assert fake.holding.wait(WAIT), "the chat never reached the checkpoint"
        stop(session)

    stopper = threading.Thread(target=stop_when_held, daemon=True)
    stopper.start()
    views = list(desk.answer(tle_request(tier="solution"), session="s", lang="en", control=control))
    stopper.join(WAIT)
    return views


@pytest.mark.parametrize("phase", ["before_headers", "after_headers"])
@pytest.mark.parametrize("how", ["stop", "clear"])
def test_stop_while_the_model_is_silent_closes_its_connection_at_once(server, tmp_path, phase, how):
    # before_headers: Ollama loading a cold model (it sends its headers with the first token);
    # after_headers: an OpenAI-style server reading a long prompt (headers out, no token yet).
    server.pause_before_reply = phase == "before_headers"
    server.pause_at = frozenset() if server.pause_before_reply else frozenset({0})
    desk, model = _desk(server, tmp_path)
    stop = (lambda s: s.stop_streaming("stop")) if how == "stop" else (lambda s: s.start_new())

    views = _answer_and_stop_while_held(desk, server, stop)

    assert (views[-1].done, views[-1].stopped, views[-1].answer) == (True, True, "")
    assert server.client_closed.wait(WAIT), "the model's connection was not closed while it held the first token"
    assert [sent for _when, sent in server.disconnects] == [0]  # it left before proceed(): no token went out
    (host,) = model.hosts
    assert (host.failures, host.down_until, host.last_error) == (0, 0.0, "")  # a stop is not the host's fault


def test_the_next_answer_after_a_stop_streams_normally(server, tmp_path):
    server.pause_before_reply = True
    desk, _model = _desk(server, tmp_path)
    _answer_and_stop_while_held(desk, server, lambda s: s.stop_streaming("stop"))
    assert server.client_closed.wait(WAIT)

    server.pause_before_reply = False
    views = list(desk.answer(tle_request(tier="solution"), session="s2", lang="en", control=TurnControl()))
    assert views[-1].answer == "Use a deque [1]." and views[-1].status_word == "done"


def test_a_stream_started_after_the_cancel_is_cut_before_it_is_answered(tmp_path):
    fake = FakeOllama().start()
    try:
        scope = CancelScope()
        scope.cancel()
        stream = OllamaChatModel(_settings(fake, tmp_path)).stream([{"role": "user", "content": "q"}],
                                                                    "qwen2.5-coder:1.5b")  # fmt: skip
        with cancellable(scope), pytest.raises(Stopped):
            list(stream)
        assert fake.chat_bodies == []  # the request was never sent whole
    finally:
        fake.stop()


def test_outside_a_scope_the_clients_work_as_before(tmp_path):
    fake = FakeOllama().start()
    try:
        chunks = list(OllamaChatModel(_settings(fake, tmp_path)).stream([{"role": "user", "content": "q"}],
                                                                        "qwen2.5-coder:1.5b"))  # fmt: skip
        assert "".join(c.content for c in chunks) == "Use a deque [1]." and chunks[-1].done
    finally:
        fake.stop()


def test_the_page_going_away_while_the_model_is_silent_closes_its_connection(server, tmp_path):
    """Gradio closes the answer's view stream when the page goes away: the model's connection goes too."""
    server.pause_before_reply = True
    desk, _model = _desk(server, tmp_path)
    views = desk.answer(tle_request(tier="solution"), session="s", lang="en", control=TurnControl())
    for view in views:
        if view.sources is not None:  # retrieval is done; the model is being asked
            break
    assert server.holding.wait(WAIT), "the chat never reached the checkpoint"
    views.close()
    assert server.client_closed.wait(WAIT), "the model's connection was not closed when the page went away"
    assert [sent for _when, sent in server.disconnects] == [0]


def test_a_stopped_answer_is_logged_at_debug_not_as_a_failure(tmp_path, caplog):
    fake = FakeOllama().start()
    try:
        settings = _settings(fake, tmp_path)
        assistant = Assistant(settings, FakeRetriever(), build_chat_model(settings))
        scope = CancelScope()
        scope.cancel()  # stopped before the model was asked: the stream ends with Stopped
        with caplog.at_level(logging.DEBUG, logger="quest"), cancellable(scope):
            list(assistant.ask(tle_request(tier="solution")))
        lines = [(r.levelno, r.getMessage()) for r in caplog.records if r.name == "quest.assistant"]
        assert (logging.DEBUG, "generation stopped by the student") in lines
        assert not [m for level, m in lines if level >= logging.INFO and "generation failed" in m]
    finally:
        fake.stop()
