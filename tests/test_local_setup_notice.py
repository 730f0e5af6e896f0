"""Windows' loader could not start the student's program (STATUS_DLL_NOT_FOUND and its kin, `SETUP_KINDS`): the
student is told, by Quest itself and before the answer, that it is their machine's compiler setup, not their code.

Facts (our wording): Dev-C++ and VS Code print the unsigned code ("return value 3221225781" = 0xC0000135) when a
MinGW build cannot find libstdc++-6.dll or libgcc_s_seh-1.dll at start-up; 0xC0000005 is an access violation in the
program itself and stays a runtime error.
"""
from __future__ import annotations

from quest.events import Notice, Sources, Token
from quest.i18n import ASSISTANT_TEXT
from quest.request import Request
from tests.fakes.ollama_server import FakeOllama
from tests.test_assistant import make

DLL_NOT_FOUND = "Process exited after 0.1 seconds with return value 3221225781"


def notices(events: list) -> list[Notice]:
    return [e for e in events if isinstance(e, Notice)]


def test_a_missing_dll_is_said_to_be_the_setup_before_the_answer(fake_ollama: FakeOllama) -> None:
    assistant, _ = make(fake_ollama)
    events = list(assistant.ask(Request(question="My program doesn't even start, why?", problem_id="239",
                                        code="print(1)\n", error=DLL_NOT_FOUND, tier="explain", ui_lang="en")))
    said = notices(events)
    assert [(n.code, n.level) for n in said] == [("local_setup", "warning")]
    assert said[0].text == ASSISTANT_TEXT["en"]["local_setup"]
    assert "not a bug in your code" in said[0].text
    assert events.index(said[0]) < min(i for i, e in enumerate(events) if isinstance(e, (Sources, Token)))


def test_the_notice_is_given_in_chinese_and_without_a_model(fake_ollama: FakeOllama) -> None:
    fake_ollama.stop()
    assistant, _ = make(fake_ollama)
    events = list(assistant.ask(Request(question="程序一运行就退出了？", problem_id="239", code="print(1)\n",
                                        error="Process finished with exit code -1073741515 (0xC0000135)",
                                        tier="hint", ui_lang="zh")))
    assert [n.code for n in notices(events)] == ["local_setup", "llm_unavailable"]
    assert "不是代码的错误" in notices(events)[0].text
    assert events[-1].fallback  # the retrieval-only answer still follows


def test_an_access_violation_is_the_programs_own_crash(fake_ollama: FakeOllama) -> None:
    assistant, _ = make(fake_ollama)
    events = list(assistant.ask(Request(question="why?", problem_id="239", code="print(1)\n",
                                        error="Process exited after 0.2 seconds with return value 3221225477",
                                        tier="explain", ui_lang="en")))
    assert all(n.code != "local_setup" for n in notices(events))
