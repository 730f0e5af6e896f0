"""app.py and the page's wiring: flags, launch options, startup states, message building."""

from __future__ import annotations

import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import pytest

import app
from quest.events import Notice
from quest.i18n import t
from quest.kb.documents import Problem
from quest.request import Request
from quest.settings import Settings
from quest.ui.desk import TurnControl, TurnView
from quest.ui.form import FormValues, problem_resolver
from quest.ui.layout import (
    ASSETS,
    assistant_messages,
    launch_options,
    parse_auth,
    problem_choices,
    tier_choices,
    user_bubble,
    verdict_choices,
)
from quest.ui.render import diagnostics_html, student_status_html
from quest.ui.session import Session, TurnRecord
from tests.fakes.assistant import FakeAssistant, answer_script

REPO = Path(__file__).resolve().parents[1]


# --------------------------------------------------------------------------- app.py


def test_flags_become_settings():
    args = app.parse_args([
        "--host", "0.0.0.0", "--port", "9000", "--share", "--kb", "kb", "--data-dir", "d", "--llm-model", "llama3:8b",
        "--ollama-host", "http://gpu:11434", "--max-tier", "hint", "--lang", "zh", "--embedding-model", "none",
    ])  # fmt: skip
    s = Settings.from_env({}, **vars(args))
    assert (s.host, s.port, s.share, s.kb_dir, s.data_dir) == ("0.0.0.0", 9000, True, "kb", "d")
    assert (s.ollama_model, s.ollama_host, s.max_tier, s.ui_lang, s.embedding_model) == (
        "llama3:8b", "http://gpu:11434", "hint", "zh", "none",
    )  # fmt: skip


def test_no_flags_keep_environment_settings():
    env = {"QUEST_PORT": "7000", "QUEST_SHARE": "1", "OLLAMA_HOST": "http://o:1"}
    s = Settings.from_env(env, **vars(app.parse_args([])))
    assert (s.port, s.share, s.ollama_host, s.host) == (7000, True, "http://o:1", "127.0.0.1")


class FakeDemo:
    def __init__(self) -> None:
        self.launched: dict[str, Any] | None = None

    def launch(self, **options: Any) -> None:
        self.launched = options


def test_main_builds_and_launches_with_the_options(monkeypatch, tmp_path):
    import quest.ui.app

    demo = FakeDemo()
    received: list[Settings] = []

    def create_app(settings: Settings) -> tuple[FakeDemo, None]:
        received.append(settings)
        return demo, None

    monkeypatch.setattr(quest.ui.app, "create_app", create_app)
    for key in ("QUEST_HOST", "QUEST_PORT", "QUEST_SHARE"):
        monkeypatch.delenv(key, raising=False)
    monkeypatch.setenv("SPACE_ID", "someone/quest")
    monkeypatch.setenv("QUEST_AUTH", "teacher:s3cret")
    app.main(["--port", "7999", "--data-dir", str(tmp_path / "data")])
    (settings,) = received
    assert settings.port == 7999 and settings.auth == "teacher:s3cret"
    options = demo.launched
    assert options["server_name"] == "0.0.0.0"  # in a Space
    assert options["server_port"] == 7999
    assert options["auth"] == ("teacher", "s3cret")
    assert options["show_error"] is False
    assert options["allowed_paths"] == [str(ASSETS)]
    assert str((tmp_path / "data").resolve()) in options["blocked_paths"]


def test_launch_options_locally():
    options = launch_options(Settings(), {})
    assert (options["server_name"], options["share"], options["auth"]) == ("127.0.0.1", False, None)
    assert options["css_paths"] == [ASSETS / "quest.css"] and (ASSETS / "quest.css").exists()


def test_parse_auth():
    assert parse_auth(None) is None and parse_auth("") is None
    assert parse_auth("a:b:c") == ("a", "b:c")
    for bad in ("nopassword", ":pw", "user:"):
        with pytest.raises(ValueError, match="user:password"):
            parse_auth(bad)


def test_importing_app_is_light():
    heavy = "('gradio', 'torch', 'faiss', 'quest.assistant')"
    code = f"import sys, app; print(sorted(m for m in {heavy} if m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, timeout=60, check=True)
    assert out.stdout.strip() == "[]"


def test_app_help():
    out = subprocess.run([sys.executable, "app.py", "--help"], cwd=REPO, capture_output=True, text=True, timeout=60,
                         check=True)  # fmt: skip
    for flag in ("--host", "--port", "--share", "--kb", "--data-dir", "--llm-model", "--embedding-model",
                 "--ollama-host", "--max-tier", "--lang"):  # fmt: skip
        assert flag in out.stdout


# --------------------------------------------------------------------------- startup states


def test_page_comes_up_while_building_and_when_building_failed(tmp_path):
    from quest.ui.app import create_app

    gate = threading.Event()

    def slow_build(progress):
        progress("Indexing 26 documents (130 chunks)...")
        gate.wait(30)
        return FakeAssistant()

    _, desk = create_app(Settings(data_dir=tmp_path, kb_dir=tmp_path / "none"), build=slow_build)
    assert desk.status() is None
    html = diagnostics_html(desk.status(), lang="en", starting=desk.startup.last_message)
    assert "Starting… Indexing 26 documents (130 chunks)..." in html
    gate.set()
    assert desk.startup.wait(30) and desk.status()["model"] == "fake-model:1b"

    def broken(progress):
        raise RuntimeError("index folder is read-only")

    _, desk = create_app(Settings(data_dir=tmp_path, kb_dir=tmp_path / "none"), build=broken, background=False)
    assert desk.startup.failed == "RuntimeError: index folder is read-only"


@pytest.mark.slow
def test_offline_start_is_bm25_only_and_retrieval_only_and_says_so(tmp_path):
    from quest.ui.app import create_app
    from tests.fakes.app_server import free_port, small_knowledge_base

    settings = Settings(kb_dir=small_knowledge_base(tmp_path / "kb"), data_dir=tmp_path / "data",
                        embedding_model=str(tmp_path / "no-such-model"), ollama_host=f"http://127.0.0.1:{free_port()}",
                        show_progress=False)  # fmt: skip
    _, desk = create_app(settings, background=False)
    status = desk.status()
    assert status["embedding_mode"] == "bm25-only" and status["ollama_reachable"] is False
    html = diagnostics_html(status, lang="en")
    assert "bm25-only" in html and "Ollama not reachable: answers from the sources only" in html
    assert "could not be loaded" in html  # the reason, from the retriever
    assert "Fix: start Ollama with `ollama serve`" in html
    student = student_status_html(status, lang="zh")
    assert "目前仅根据课程资料回答" in student
    assert "bm25" not in student and "Ollama" not in student and "ollama" not in student


# --------------------------------------------------------------------------- page pieces


PROBLEMS = {
    "239": Problem("239", "滑动窗口最大值", "Sliding Window Maximum"),
    "1": Problem("1", "两数之和", "Two Sum"),
    "A+B": Problem("A+B", "", "A plus B"),
}


def test_problem_choices_by_number_then_text():
    assert problem_choices(PROBLEMS) == [
        ("1 · 两数之和 · Two Sum", "1"),
        ("239 · 滑动窗口最大值 · Sliding Window Maximum", "239"),
        ("A+B · A plus B", "A+B"),
    ]  # fmt: skip


def test_tier_choices_are_capped_by_the_operator():
    assert [v for _, v in tier_choices(Settings(max_tier="explain"), "en")] == ["hint", "explain"]
    assert tier_choices(Settings(), "zh") == [("提示", "hint"), ("讲解", "explain"), ("题解", "solution")]


def test_verdict_choices():
    choices = verdict_choices("zh")
    assert choices[0] == ("（无）", "") and ("TLE · 时间超限", "TLE") in choices


def test_user_bubble_escapes_and_summarizes():
    request = Request(question="<b>why</b>?", problem_id="239", language="cpp", code="a\nb\n", verdict="WA")
    assert user_bubble(request, "en", PROBLEMS) == (
        "&lt;b>why&lt;/b>?\n\n<sub>239 · 滑动窗口最大值 · Sliding Window Maximum · C++ · code, 2 lines · WA</sub>"
    )
    assert user_bubble(Request(question="", error="boom", problem_id="9"), "zh", PROBLEMS) == "<sub>#9 · 评测信息</sub>"


def test_user_bubble_shows_the_question_without_bidi_controls():
    """U+202E (right-to-left override) would show "why is \u202egnp.exe" as "why is exe.png": the bubble drops
    the invisible controls that reorder a line; escaping still holds, and indented text after a leading control
    does not turn into a code block."""
    request = Request(question="\u2067<b>why</b> is \u202egnp.exe\u202c ok?\u2069", verdict="WA")
    assert user_bubble(request, "en", PROBLEMS) == "&lt;b>why&lt;/b> is gnp.exe ok?\n\n<sub>WA</sub>"
    assert request.question.startswith("\u2067<b>why")  # what the model and retrieval read is kept as typed
    assert user_bubble(Request(question="\u202a    x = 1"), "en", PROBLEMS) == "x = 1"
    assert user_bubble(Request(question="\u202e", error="boom"), "en", PROBLEMS) == "<sub>judge's message</sub>"


def test_assistant_messages_thinking_collapsed_and_errors_quoted():
    view = TurnView(request=Request(question="q"), thinking="<think>", answer="Answer", done=True)
    thinking, answer = assistant_messages(view, "en")
    assert thinking["metadata"] == {"title": "Reasoning", "status": "done"}
    assert thinking["content"] == "&lt;think>"
    assert answer == {"role": "assistant", "content": "Answer"}
    pending = assistant_messages(TurnView(request=Request(question="q"), thinking="hm"), "zh")
    assert pending[0]["metadata"] == {"title": "思考过程", "status": "pending"}
    assert pending[1]["content"] == "▍"
    stopped = TurnView(request=Request(question="q"), answer="half", done=True, incomplete=True, stopped=True)
    assert assistant_messages(stopped, "en")[-1]["content"] == "half\n\n*(Stopped.)*"
    held = TurnView(request=Request(question="q"), answer="Before:", held=True)
    assert assistant_messages(held, "en")[-1]["content"] == (
        "Before:\n\n*⏳ code held back in this mode until the block is complete…* ▍"
    )
    cited = TurnView(request=Request(question="q"), answer="Use a deque [1]; `a[1]`", done=True)
    assert assistant_messages(cited, "en", turn=2)[-1]["content"] == "Use a deque [[1]](#q-src-2-1); `a[1]`"
    (error,) = assistant_messages(TurnView(error="Too <long>", done=True), "en")
    assert error["content"] == "> Too &lt;long>"
    notice = TurnView(request=Request(question="q"), notices=(Notice("x", "BM25 only"),), answer="A", done=True)
    assert assistant_messages(notice, "en")[0]["content"] == "> BM25 only\n\nA"


def test_session_history_and_the_browser_copy_round_trip():
    session = Session()
    user = {"role": "user", "content": "q1"}
    first = TurnRecord("q1", "a1", [user, {"role": "assistant", "content": "a1"}],
                       sources=[{"number": 1, "title": "T", "score": 0.5, "text": "x"}], cited=(1,),
                       form=FormValues(question="q1", problem="239", code="x = 1"))  # fmt: skip
    second = TurnRecord("q2", "", [{"role": "user", "content": "q2"}, {"role": "assistant", "content": "> error"}])
    session.turns = [first, second]
    assert [(t.question, t.answer) for t in session.history(3)] == [("q1", "a1")]
    assert session.history(0) == ()
    stored = session.save(FormValues(question="draft", code="y = 2"))
    restored = Session()
    form = restored.restore(stored)
    assert (form.question, form.code) == ("draft", "y = 2")
    assert restored.messages() == session.messages()
    assert restored.turns[0].sources == first.sources and restored.turns[0].form.problem == "239"
    assert restored.recent("(untitled)") == [("q1", session.conversation_id)]
    session.turns = [TurnRecord("\u202eq1\u202c", "a1", [])]
    stored = session.save(FormValues())
    assert stored["conversations"][0]["title"] == "\u202eq1\u202c"  # stored as asked, shown without the controls
    restored.restore(stored)
    assert restored.recent("(untitled)") == [("q1", session.conversation_id)]


class WatchedControl(TurnControl):
    """A streaming answer's control that records what the chat held when it was told to stop: the stream's
    last update shows exactly that, and it may reach the page after Clear's own update."""

    def __init__(self, session: Session) -> None:
        super().__init__()
        self.session, self.seen_on_cancel = session, None

    def cancel(self, reason: str = "stop") -> None:
        self.seen_on_cancel = (reason, self.session.messages(), self.session.source_groups())
        super().cancel(reason)


def test_clear_empties_the_conversation_before_it_stops_the_stream():
    session = Session()
    session.turns = [TurnRecord("q1", "", [{"role": "user", "content": "q1"}, {"role": "assistant", "content": "part"}],
                                sources=[{"number": 1, "title": "T", "score": 0.5, "text": "x"}])]  # fmt: skip
    control = session.control = WatchedControl(session)
    session.start_new()
    assert control.seen_on_cancel == ("clear", [], [])
    assert control.cancelled and session.control is None and session.messages() == []



def test_opening_another_conversation_switches_before_it_stops_the_stream():
    earlier = Session()
    answered = [{"role": "user", "content": "q0"}, {"role": "assistant", "content": "a0"}]
    earlier.turns = [TurnRecord("q0", "a0", answered)]
    stored = earlier.save(FormValues())
    session = Session()
    session.turns = [TurnRecord("q1", "", [{"role": "user", "content": "q1"}])]
    control = session.control = WatchedControl(session)
    session.restore(stored, earlier.conversation_id)
    assert control.seen_on_cancel == ("clear", earlier.messages(), earlier.source_groups())

@pytest.mark.parametrize("action", ["stop", "clear"])
def test_stop_or_clear_while_the_answer_waits_in_the_queue_means_it_never_starts(tmp_path, action):
    """Send swaps in Stop at once, but the answer itself may wait in the queue behind other students; a
    Stop or Clear in that wait must hold when it starts (it used to start afresh and answer in full)."""
    import gradio as gr

    from quest.ui.desk import HelpDesk
    from quest.ui.page import QuestPage
    from quest.ui.render import sources_panel_html
    from quest.ui.startup import Startup

    settings = Settings(data_dir=tmp_path, kb_dir=tmp_path / "none")
    fake = FakeAssistant()
    page = QuestPage(settings, HelpDesk(settings, Startup.ready(fake)), PROBLEMS)
    session = Session()
    earlier = [{"role": "user", "content": "q0"}, {"role": "assistant", "content": "a0"}]
    session.turns = [TurnRecord("q0", "a0", earlier)]
    page.begin_turn(session)
    if action == "stop":
        page.stop_answer(session)
    else:
        page.clear_chat("Why TLE?", "239", "python", "", "", "", "explain", False, "en", session)
    outputs = list(page.stream_answer("Why TLE?", "239", "python", "", "", "", "explain", False, "en", session,
                                      None))  # fmt: skip
    assert fake.requests == []  # the assistant was never asked
    shown = earlier if action == "stop" else []
    assert session.messages() == shown
    assert outputs == [(shown, sources_panel_html(session.source_groups(), lang="en"), gr.update())]  # question kept


def test_clear_while_a_finished_answer_waits_to_be_shown_leaves_the_diagnostics_empty(tmp_path):
    """The whole answer (its Done with stats) has reached the page's inbox but is not shown yet when the
    student presses Clear: the chat is empty, so the diagnostics panel must not show that answer's stats."""
    from quest.events import Done, Sources, Token
    from quest.ui.desk import HelpDesk
    from quest.ui.page import QuestPage
    from quest.ui.startup import Startup

    handed_over, release = threading.Event(), threading.Event()

    def script(request):
        yield Sources(())
        yield Token("Use ")
        yield Token("a deque.")
        yield Done(answer="Use a deque.", stats={"retrieval_ms": 12.5})
        handed_over.set()  # asked for more only after the Done was queued for the page
        release.wait(30)

    fake = FakeAssistant()
    fake.ask = script
    settings = Settings(data_dir=tmp_path, kb_dir=tmp_path / "none", stream_interval=3600.0)
    page = QuestPage(settings, HelpDesk(settings, Startup.ready(fake)), PROBLEMS)
    session = Session()
    page.begin_turn(session)
    cleared = False
    for _ in page.stream_answer("Why TLE?", "239", "python", "", "", "", "explain", False, "en", session, None):
        if not cleared and any("Use " in str(m.get("content")) for m in session.messages()):
            assert handed_over.wait(30), "the worker never queued the rest"
            page.clear_chat("", "", "python", "", "", "", "explain", False, "en", session)
            cleared = True
    release.set()
    assert cleared
    assert (session.messages(), session.last_stats) == ([], {})


def test_a_first_visit_restores_nothing_over_what_the_student_typed_meanwhile(tmp_path):
    """The page's load event may land after the student began typing (a busy server): with nothing kept in
    the browser it must leave the chat and the form alone (it used to blank them)."""
    import gradio as gr

    from quest.ui.desk import HelpDesk
    from quest.ui.page import QuestPage
    from quest.ui.startup import Startup

    settings = Settings(data_dir=tmp_path, kb_dir=tmp_path / "none")
    page = QuestPage(settings, HelpDesk(settings, Startup.ready(FakeAssistant())), PROBLEMS)
    page.build()
    for stored in ({}, None, "not a dict"):
        lang, chat, sources, form, _recent = page.restore_page(stored, "zh-CN", Session())
        assert lang == "zh"
        assert (chat, sources, form) == (gr.update(), gr.update(), None)  # chat and sources untouched, no form
    kept = Session()
    kept.turns = [TurnRecord("q0", "a0", [{"role": "user", "content": "q0"}, {"role": "assistant", "content": "a0"}])]
    _, chat, _, form, _ = page.restore_page(kept.save(FormValues(question="draft")), "en", Session())
    assert chat == kept.messages()  # a kept conversation and form do come back (the browser fills in the form)
    assert form == ["draft", None, "auto", "", "", "", "explain", False]


def test_a_tampered_browser_copy_is_read_defensively():
    session = Session()
    form = session.restore({"current": "c", "conversations": [
        {"id": "c", "turns": [{"messages": [{"role": "system", "content": "x"}, "junk"]},
                              {"messages": [{"role": "user", "content": "ok"}], "cited": ["1"], "sources": [3]}]},
        "junk",
    ], "form": {"question": 5, "code": "c", "reasoning": "yes"}})  # fmt: skip
    assert session.messages() == [{"role": "user", "content": "ok"}]
    assert session.turns[0].cited == () and session.turns[0].sources == []
    assert (form.question, form.code, form.reasoning) == ("", "c", True)
    assert Session().restore("not a dict") == FormValues()


def test_a_problem_is_found_by_id_label_or_title():
    titles = {"sliding window maximum": PROBLEMS["239"], "两数之和": PROBLEMS["1"]}
    resolve = problem_resolver(PROBLEMS, lambda text: titles.get(text.strip().lower()))
    assert resolve("#239") == "239"
    assert resolve("239 · 滑动窗口最大值 · Sliding Window Maximum") == "239"
    assert resolve("Sliding Window Maximum") == "239" and resolve("两数之和") == "1"
    assert resolve("no such problem") is None
    request = FormValues(question="q", problem="Sliding Window Maximum").to_request(
        default_tier="explain", ui_lang="en", resolve_problem=resolve)
    assert request.problem_id == "239"
    unknown = FormValues(question="q", problem="a title nobody knows").to_request(
        default_tier="explain", ui_lang="en", resolve_problem=resolve)
    assert unknown.problem_id is None


def test_queue_limits_come_from_settings(tmp_path):
    from quest.ui.app import create_app

    settings = Settings(concurrency_limit=3, max_queue_size=5, data_dir=tmp_path, kb_dir=tmp_path / "none")
    demo, _ = create_app(settings, assistant=FakeAssistant())
    assert (demo._queue.default_concurrency_limit, demo._queue.max_size) == (3, 5)
    # Waiting students hear their queue position once a second, not on every job start and end.
    assert (demo._queue.live_updates, demo._queue.update_intervals) == (False, 1.0)
    public = sorted(fn.api_name for fn in demo.fns.values() if fn.api_visibility == "public")
    assert public == ["ask"]


def test_the_language_switch_relabels_every_component_in_its_table(tmp_path):
    from quest.ui.desk import HelpDesk
    from quest.ui.page import QuestPage
    from quest.ui.startup import Startup

    settings = Settings(data_dir=tmp_path, kb_dir=tmp_path / "none")
    page = QuestPage(settings, HelpDesk(settings, Startup.ready(FakeAssistant())), PROBLEMS)
    page.build()
    updates = dict(zip(map(id, page._language_outputs()), page.switch_language("zh", Session()), strict=True))
    assert updates[id(page.lang)] == "zh"
    assert updates[id(page.send)]["value"] == "发送" and updates[id(page.stop)]["value"] == "停止"
    assert updates[id(page.question)]["label"] == "你的问题"
    assert updates[id(page.question)]["placeholder"] == "例如：我的滑动窗口解法为什么超时？"
    assert ("TLE · 时间超限", "TLE") in updates[id(page.verdict)]["choices"]
    assert "AI 回答已就绪" in updates[id(page.status)]["value"]
    assert updates[id(page.language)]["choices"][0] == ("自动识别", "auto")
    for component, prop, key in page._language_table():
        assert updates[id(component)][prop] == t(key, "zh")


def test_the_language_field_starts_on_detect_and_the_code_box_follows_the_code(tmp_path):
    import gradio as gr

    from quest.ui.desk import HelpDesk
    from quest.ui.layout import CODE_MODES, language_choices
    from quest.ui.page import QuestPage
    from quest.ui.startup import Startup

    settings = Settings(data_dir=tmp_path, kb_dir=tmp_path / "none")
    page = QuestPage(settings, HelpDesk(settings, Startup.ready(FakeAssistant())), PROBLEMS)
    page.build()
    assert page.language.value == "auto" and page.code.language is None
    assert language_choices("en")[0] == ("Detect from code", "auto")
    assert [v for _, v in language_choices("en")] == ["auto", "python", "cpp", "c", "java", "javascript", "typescript",
                                                      "go", "rust", "csharp", "kotlin", "swift", "other"]
    assert set(CODE_MODES.values()) <= set(gr.Code.languages)  # only modes gr.Code has; the rest are plain
    cpp = "#include <vector>\nusing namespace std;\nint main() { vector<int> a; }"
    assert page.code_view("auto", cpp, "en") == gr.update(language="cpp", label="Your code · detected: C++")
    assert page.code_view("auto", cpp, "zh") == gr.update(language="cpp", label="你的代码 · 识别为 C++")
    assert page.code_view("auto", "fn main() { let mut v = vec![1]; }", "en") == gr.update(
        language=None, label="Your code · detected: Rust")  # gr.Code has no Rust mode: plain text
    assert page.code_view("auto", "", "en") == gr.update(language=None, label="Your code")
    assert page.code_view("java", cpp, "en") == gr.update(language="cpp", label="Your code")  # the choice wins
    assert page.code_view("typescript", "", "en") == gr.update(language="typescript", label="Your code")


def test_the_form_defaults_to_auto_and_normalizes_the_language():
    def resolve(text):
        return None

    assert FormValues().language == "auto"
    assert FormValues.from_fields("q", None, None, None, None, None, None).language == "auto"
    for typed, language in (("auto", "auto"), ("", "auto"), ("C++", "cpp"), ("rust", "rust"), ("other", "other"),
                            ("cobol", "auto")):
        values = FormValues(question="q", language=typed)
        assert values.to_request(default_tier="explain", ui_lang="en", resolve_problem=resolve).language == language


def test_regenerate_or_edit_mid_answer_takes_back_the_answer_being_written(tmp_path):
    """Regenerate and Edit (both `take_back_last`) clicked while an answer streams take back that turn and stop
    it. They used to leave the turn alone, and Regenerate then stopped the answer and asked again with the
    emptied question box."""
    from quest.ui.desk import HelpDesk
    from quest.ui.page import QuestPage
    from quest.ui.startup import Startup

    settings = Settings(data_dir=tmp_path, kb_dir=tmp_path / "none")
    page = QuestPage(settings, HelpDesk(settings, Startup.ready(FakeAssistant(answer_script(["a", "b", "c"])))),
                     PROBLEMS)  # fmt: skip
    page.build()
    session = Session()
    earlier = [{"role": "user", "content": "q0"}, {"role": "assistant", "content": "a0"}]
    session.turns = [TurnRecord("q0", "a0", earlier)]
    page.begin_turn(session)
    control = session.control
    stream = page.stream_answer("Why TLE?", "239", "python", "x = 1", "TLE", "", "explain", False, "en", session,
                                None)  # fmt: skip
    next(stream)  # the answer has begun: its turn is in the chat
    assert session.streaming_turn() is session.turns[-1] and len(session.turns) == 2
    _chat, _sources, question, problem, language, code, verdict, *_ = page.take_back_last("en", session)
    assert (question, problem, language, code, verdict) == ("Why TLE?", "239", "python", "x = 1", "TLE")
    assert control.cancelled and session.control is None and session.messages() == earlier
    assert list(stream)[-1][0] == earlier  # the stopped stream's last update shows the chat without the turn
    assert session.streaming_turn() is None and session.turns[-1].answer == "a0"


def test_regenerate_while_the_answer_waits_in_the_queue_leaves_the_chat_alone(tmp_path):
    """Queued, the answer's question is still in the box and no turn of its own is in the chat: the last
    finished turn is not taken back (Regenerate then asks what is in the box)."""
    import gradio as gr

    from quest.ui.desk import HelpDesk
    from quest.ui.page import QuestPage
    from quest.ui.startup import Startup

    settings = Settings(data_dir=tmp_path, kb_dir=tmp_path / "none")
    page = QuestPage(settings, HelpDesk(settings, Startup.ready(FakeAssistant())), PROBLEMS)
    page.build()
    session = Session()
    session.turns = [TurnRecord("q0", "a0", [{"role": "user", "content": "q0"}])]  # restored: no live view
    page.begin_turn(session)
    assert page.take_back_last("en", session) == (gr.update(),) * 10
    assert [t.question for t in session.turns] == ["q0"] and session.control is not None


def test_a_replaced_answer_ending_leaves_stop_and_the_new_answer_alone(tmp_path):
    """Regenerate mid-answer starts a second Send-to-finish chain before the first has ended: the first one's
    end must not put Send back or drop the control of the answer that replaced it."""
    import gradio as gr

    from quest.ui.desk import HelpDesk
    from quest.ui.page import QuestPage, show
    from quest.ui.startup import Startup

    settings = Settings(data_dir=tmp_path, kb_dir=tmp_path / "none")
    page = QuestPage(settings, HelpDesk(settings, Startup.ready(FakeAssistant())), PROBLEMS)
    page.build()
    session = Session()
    form = ("Why TLE?", "239", "python", "", "", "", "explain", False, "en", session)
    page.begin_turn(session)
    page.begin_turn(session)  # Regenerate's chain: it stops the first answer and arms its own
    newer = session.control
    send, stop, *_rest, stored, _recent = page.finish_turn(*form)  # the first chain ends
    assert (send, stop, stored) == (show(False), show(True), gr.update())
    assert session.control is newer and not newer.cancelled
    send, stop, *_ = page.finish_turn(*form)  # the second one ends: Send is back
    assert (send, stop) == (show(True), show(False)) and session.control is None


def test_a_bad_setting_stops_the_app_with_one_line(monkeypatch):
    """An unknown QUEST_SPARSE_KERNEL (or any invalid setting) ends `python app.py` with the reason, as the CLI
    does, before anything is built; not a traceback."""
    monkeypatch.setenv("QUEST_SPARSE_KERNEL", "fortran")
    with pytest.raises(SystemExit) as stopped:
        app.main([])
    assert stopped.value.code == "error: sparse_kernel must be auto, numba or numpy, not 'fortran'"
