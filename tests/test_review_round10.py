"""Regressions found by reading round 10's change: pasted text that made a rule's regex backtrack for minutes,
work per question that grew with phrases x titles, and the Taiwan-title rule rewriting a simplified question with
OpenCC tw2sp's false friends."""

import threading
from collections.abc import Callable

import pytest

from quest.judge import parse
from quest.kb.documents import Problem
from quest.problem_names import ZH_LEAD_IN, ZH_LEAD_IN_PREFIX, ZH_STUDY_PREFIX
from quest.request import Request
from quest.resolution import Catalogue, by_reworded_phrase, by_taiwan_title
from quest.resolution.misremembered import MAX_PHRASES
from quest.topic_words import mainland_terms
from tests.fakes.catalogue import resolved


def finishes(work: Callable[[], object], within: float = 60.0) -> bool:
    """Whether `work` returns at all. The bound is generous (not a speed test): the old patterns needed minutes to
    hours on these inputs, and a regression would otherwise hang the whole run."""
    done = threading.Event()
    threading.Thread(target=lambda: (work(), done.set()), daemon=True).start()
    return done.wait(within)


@pytest.mark.parametrize("text", [
    "刚" * 4000 + "？", "在力扣上" * 1000 + "!", "刚刚" * 2000 + "。", "又再也" * 1000 + "x"])
def test_a_long_run_of_chinese_time_words_is_read_without_backtracking(text):
    # Each of these words can be one word or the start of another ("刚刚" / 刚 + 刚, "在" / "在力扣上"): a run not
    # followed by a doing word used to be split every possible way before the match failed.
    assert finishes(lambda: [p.match(text) for p in (ZH_LEAD_IN, ZH_LEAD_IN_PREFIX, ZH_STUDY_PREFIX)])
    assert (ZH_LEAD_IN.match(text), ZH_LEAD_IN_PREFIX.match(text), ZH_STUDY_PREFIX.match(text)) == (None, None, None)


def test_the_lead_in_words_still_match_as_before():
    assert ZH_LEAD_IN_PREFIX.match("今天在力扣做了岛屿数量").group(0) == "今天在力扣做了"
    assert ZH_LEAD_IN_PREFIX.match("刚刚写完接雨水").group(0) == "刚刚写完"
    assert ZH_STUDY_PREFIX.match("最近在看算法导论").group(0) == "最近在看"
    assert ZH_LEAD_IN.match("第一次做") and not ZH_LEAD_IN.match("使用最小花费爬楼梯")


def test_a_question_of_repeated_time_words_resolves_to_nothing(base):
    question = "刚" * 1990 + "？"
    assert finishes(lambda: resolved(base, question))
    assert resolved(base, question).problem_id is None


def test_an_error_line_followed_by_a_run_of_spaces_is_parsed_in_linear_time():
    pasted = "error:" + " " * 8000
    assert finishes(lambda: parse(pasted))
    assert parse(pasted).verdict is None
    # A real rustc diagnostic is still read with its line.
    report = parse("error[E0308]: mismatched types\n --> src/main.rs:4:18\n  |\n4 |     let x: i32 = \"a\";\n")
    assert (report.verdict, report.messages, report.lines) == ("CE", ("error: mismatched types",), (4,))


def _catalogue(*problems: Problem) -> Catalogue:
    return Catalogue({p.id: p for p in problems}, ["栈 队列 递归 内存 超时 程序 文件"])


def test_only_the_first_phrases_of_a_pasted_page_are_read_for_a_reworded_title():
    cat = _catalogue(Problem(id="3", title_zh="无重复字符的最长子串", title_en="Longest Substring"))
    filler = "，".join(f"说明{chr(0x4E00 + n)}" for n in range(2 * MAX_PHRASES))  # more distinct phrases
    assert by_reworded_phrase(Request(question="最长无重复子串，" + filler), cat).problem_id == "3"
    assert by_reworded_phrase(Request(question=filler + "，最长无重复子串"), cat) is None


def test_a_simplified_question_is_never_rewritten_into_a_taiwan_title():
    # tw2sp turns 程序 (a program) into 进程 (a process): a simplified question about killing a program must not
    # become the base problem "杀掉进程".
    cat = _catalogue(Problem(id="582", title_zh="杀掉进程", title_en="Kill Process"))
    assert by_taiwan_title(Request(question="我想问一下，怎么杀掉程序？Python 的 os.kill 不管用"), cat) is None
    assert by_taiwan_title(Request(question="我想問一下，怎麼殺掉程序？os.kill 沒用"), cat) is None


def test_the_mainland_wording_keeps_the_false_friends_as_written():
    assert mainland_terms("我的程式讀檔案很慢，程序和文件都在") == "我的程序读文件很慢，程序和文件都在"
    assert mainland_terms("最長遞增子序列") is None
    assert mainland_terms("二元樹的層序走訪") == "二叉树的层序遍历"


@pytest.mark.parametrize("pasted", [
    "exit code" + " " * 300_000 + "x", "退出码" + " " * 300_000, "signal" + " " * 300_000,
    "x" + "\n" * 300_000, "a:" + "\r\n" * 150_000], ids=["exit code", "zh", "signal", "newlines", "crlf"])
def test_exit_code_and_signal_words_followed_by_a_long_run_of_blanks_give_no_exit_code(pasted):
    # Found reading round 11's change: adjacent space quantifiers (and \s* across lines for "Killed") took seconds
    # at the error field's 8,000 characters and minutes at these lengths.
    assert finishes(lambda: parse(pasted))
    report = parse(pasted)
    assert (report.exit_code, report.signal) == (None, None)
    assert (parse("exit code : 139").exit_code, parse("退出码 为 134").exit_code) == (139, 134)
    assert (parse("killed by signal: 9").signal, parse("Killed\n").signal) == ("SIGKILL", "SIGKILL")
