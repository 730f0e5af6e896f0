"""Regressions found by reviewing round 14's language detection (branch lang14): a browser's saved form from before
"auto" forcing Python on a returning student's code, patterns that backtracked for seconds on a pasted line, and
realistic student snippets read as the wrong language."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from quest.code_language import SIGNALS, detect
from quest.settings import Settings
from quest.ui.form import FORM_VERSION, FormValues
from quest.ui.session import Session, TurnRecord
from tests.fakes.assistant import FakeAssistant

REPO = Path(__file__).resolve().parents[1]
CPP = "class Solution {\npublic:\n    int f(vector<int>& a) {\n        return a.size();\n    }\n};"


# --------------------------------------------------------------------------- a form saved before "auto"


def _old_store(language: str) -> dict:
    """The browser's copy as a round-13 page wrote it: no form version, the dropdown's value as it was."""
    old_form = {"question": "why WA?", "problem": "", "language": language, "code": CPP, "verdict": "", "error": "",
                "tier": "explain", "reasoning": False}  # fmt: skip
    turn = {"question": "q0", "answer": "a0", "messages": [{"role": "user", "content": "q0"},
                                                           {"role": "assistant", "content": "a0"}],
            "sources": [], "cited": [], "form": dict(old_form)}  # fmt: skip
    return {"version": 1, "current": "c1", "conversations": [{"id": "c1", "title": "q0", "turns": [turn]}],
            "form": old_form}  # fmt: skip


def test_an_old_saved_python_is_the_old_default_and_reads_as_auto():
    # Round 13's dropdown started on "python": a saved "python" without a version may be a field never touched.
    assert FormValues.from_mapping({"language": "python", "code": CPP}).language == "auto"
    # Any other saved language was a choice, and a version-2 "python" was chosen over "auto": both stay.
    assert FormValues.from_mapping({"language": "cpp"}).language == "cpp"
    assert FormValues.from_mapping({"language": "python", "form_version": 2}).language == "python"
    assert FormValues.from_mapping({"language": "python", "form_version": "junk"}).language == "auto"
    # What the page saves now carries the version, so a Python choice survives the next reload.
    saved = FormValues(language="python").to_dict()
    assert saved["form_version"] == FORM_VERSION == 2
    assert FormValues.from_mapping(saved).language == "python"


def test_a_returning_student_with_an_old_form_gets_detection_in_the_form_and_the_kept_turns():
    session = Session()
    form = session.restore(_old_store("python"))
    assert form.language == "auto"
    assert session.turns[0].form.language == "auto"  # Regenerate / Edit put this turn's form back
    assert Session().restore(_old_store("java")).language == "java"


def test_the_page_restores_an_old_form_as_auto_and_edit_puts_back_auto(tmp_path):
    from quest.ui.desk import HelpDesk
    from quest.ui.page import QuestPage
    from quest.ui.startup import Startup

    settings = Settings(data_dir=tmp_path, kb_dir=tmp_path / "none")
    page = QuestPage(settings, HelpDesk(settings, Startup.ready(FakeAssistant())), {})
    page.build()
    session = Session()
    _, _, _, form, _ = page.restore_page(_old_store("python"), "en", session)
    assert form == ["why WA?", None, "auto", CPP, "", "", "explain", False]
    taken = page.take_back_last("en", session)  # Edit of the kept turn: its form goes back into the fields
    assert taken[2:] == ("why WA?", None, "auto", CPP, "", "", "explain", False)


def test_a_turn_record_round_trips_its_chosen_python():
    record = TurnRecord("q", "a", [{"role": "user", "content": "q"}], form=FormValues(language="python", code=CPP))
    assert TurnRecord.from_browser(record.to_browser()).form.language == "python"


# --------------------------------------------------------------------------- bounded work on hostile lines


#: Every signal's pattern searched over a long line, in a child process: a regex search holds the GIL until it ends,
#: so only a process can be stopped. The bound is generous (not a speed test): on these lines the old patterns were
#: cubic in the line's length (minutes; a 300-character line took 0.2 s), the fixed ones take milliseconds.
SEARCH_EVERY_SIGNAL = """
import sys
from quest.code_language import SIGNALS
line = sys.stdin.read()
print(sum(s.pattern.search(line) is not None for s in SIGNALS))
"""


@pytest.mark.parametrize("line", [
    "public" + " " * 6000 + "x", "public static" + " " * 6000 + "(", "private" + "\t" * 6000 + ":",
    "[for" + " " * 6000 + "x",
], ids=["public", "public-static", "private-tabs", "comprehension"])  # fmt: skip
def test_every_signal_reads_a_long_line_of_spaces_without_backtracking(line):
    # The detector cuts lines at 300 characters, but a pattern must not rely on that alone: the page runs it on
    # every change of the code box, and 20 such lines cost seconds per call.
    done = subprocess.run([sys.executable, "-c", SEARCH_EVERY_SIGNAL], input=line, capture_output=True, text=True,
                          timeout=120, cwd=REPO, check=True)  # fmt: skip
    assert done.stdout.split() == ["0"]  # none of them matches: a run of spaces is no code


def test_the_method_and_comprehension_patterns_still_match_what_they_did():
    by_name = {s.name: s.pattern for s in SIGNALS}
    java, csharp, comprehension = by_name["Java method"], by_name["C# method"], by_name["comprehension"]
    assert java.search("    public Map<Character, Integer> count(String s) {")
    assert java.search("    public static List<List<Integer>> threeSum(int[] nums) {")
    assert java.search("    private int[][] grid(int n) {")
    assert csharp.search("    public IList<IList<int>> ThreeSum(int[] nums) {")
    assert csharp.search("    static void Main() {") and not java.search("    static void Main() {")
    assert comprehension.search("best = max([x for x in a])")
    assert comprehension.search("pairs = [(i, x) for i, x in enumerate(a)]")
    assert comprehension.search("pairs = [(i, x) for i , x in enumerate(a)]")
    assert not comprehension.search("int a[n]; for (i = 0; i < n; i++)")
    assert detect("public" + " " * 295 + "\n" + CPP) == "cpp"
