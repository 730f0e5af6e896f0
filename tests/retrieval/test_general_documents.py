"""General questions (no problem named) on the shipped knowledge base, BM25 only.

The questions are written here in our own words (not the evaluation's): what a student types, with
the strings their tools really print. They check that the general documents hold those strings and
words, and how a general question's documents are ordered.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from quest.plan import plan, retrieve
from quest.request import Request
from quest.retrieval.retriever import Retriever, build_retriever
from quest.settings import Settings

ROOT = Path(__file__).resolve().parents[2]
GENERAL = ROOT / "knowledge" / "general"


@pytest.fixture(scope="module")
def retriever(tmp_path_factory: pytest.TempPathFactory) -> Retriever:
    data = tmp_path_factory.mktemp("quest-general-docs")
    return build_retriever(Settings(kb_dir=ROOT / "knowledge", data_dir=data, embedding_model="none"))


def ranked(retriever: Retriever, **request) -> list[str]:
    return [h.chunk.doc_id for h in retrieve(retriever, plan(Request(**request), retriever))[1].hits]


# (file stem, strings both copies must hold): what the tools print, so lexical search finds the page.
TOOL_STRINGS = [
    ("division-by-zero-sigfpe", ["Floating point exception (core dumped)", "浮点数异常 (核心已转储)",
                                 "浮點數例外 (核心已傾印)"]),
    ("exit-codes-and-signals", ["段错误 (核心已转储)", "已放弃 (核心已转储)", "浮点数异常 (核心已转储)",
                                "程式記憶體區段錯誤 (核心已傾印)", "Process returned -1073741571 (0xC00000FD)"]),
    ("cpp-stack-overflow", ["AddressSanitizer: stack-overflow", "Process returned -1073741571 (0xC00000FD)"]),
    ("cpp-out-of-bounds", ["runtime error: addition of unsigned offset", "stl_vector.h"]),
    ("glibc-invalid-free", ["double free or corruption", "free(): double free detected in tcache 2"]),
    ("cpp-iterator-invalidation", ["heap-use-after-free", "push_back"]),
]


@pytest.mark.parametrize("stem,strings", TOOL_STRINGS)
def test_both_copies_hold_what_the_tools_print(stem, strings):
    for lang in ("zh", "en"):
        text = (GENERAL / f"{stem}.{lang}.md").read_text(encoding="utf-8")
        missing = [s for s in strings if s not in text]
        assert not missing, f"{stem}.{lang}.md lacks {missing}"


@pytest.mark.parametrize("request_fields,first", [
    # SIGFPE as a Chinese terminal prints it, in a program with no floating point at all.
    ({"question": "写了个辗转相除求 gcd，运行就显示浮点数异常，我明明只用了 int", "language": "c",
      "error": "请输入两个数：\n12 8\n浮点数异常 (核心已转储)"}, "pitfall-division-by-zero-sigfpe-zh"),
    ({"question": "my lcm program prints Floating point exception (core dumped) but there is no float in it"},
     "pitfall-division-by-zero-sigfpe-en"),
    # A comparator with an equals sign, described in words only (nothing pasted).
    ({"question": "结构体排序的 cmp 写成 return x.v >= y.v 想降序，小数据能过，大数据直接运行错误", "language": "cpp"},
     "pitfall-cpp-comparator-strict-weak-ordering-zh"),
    # Traditional characters and Taiwanese terms: 指標 (pointer), 解構函式 (destructor), 當掉 (crash).
    ({"question": "類別裡有一個指標成員，解構函式會 delete 它，放進 vector 之後 push_back 幾次，程式結束時就當掉",
      "language": "cpp"}, "pitfall-glibc-invalid-free-zh"),
    ({"question": "陣列只宣告了 5 個，迴圈卻讀到第 8 個，印出來是亂七八糟的數字，程式也沒有當掉", "language": "c"},
     "pitfall-cpp-out-of-bounds-zh"),
    ({"question": "why is float f = 0.3; f == 0.3 false in C? the two numbers look the same when printed",
      "language": "c"}, "pitfall-float-compare-en"),
    ({"question": "我把 int dp[5000][5000] 写在 main 函数里，程序一运行就崩溃，放到外面当全局数组就好了",
      "language": "cpp"}, "pitfall-cpp-stack-overflow-zh"),
    ({"question": "I save a pointer to v[0], then push_back more elements and the pointer now prints garbage",
      "language": "cpp"}, "pitfall-cpp-iterator-invalidation-en"),
])
def test_a_general_question_in_a_students_words_finds_its_page_first(retriever, request_fields, first):
    assert ranked(retriever, **request_fields)[0] == first


@pytest.mark.parametrize("question", ["今天晚饭吃火锅还是烧烤比较好", "推荐几部好看的科幻电影"])
def test_an_off_topic_question_still_comes_back_empty(retriever, question):
    assert ranked(retriever, question=question) == []


# The cause the student describes, with the bare verdict pasted: the TLE overview matched the verdict
# words best and led; the page about the cause now does.
CAUSE_AND_VERDICT = [
    ({"question": "C++ 读 10^6 个数用 cin 超时，改成 scanf 就过了，这是为什么", "language": "cpp",
      "error": "Time Limit Exceeded"}, "pitfall-cpp-cin-scanf-zh", "faq-verdict-tle-zh"),
    ({"question": "my Java solution reads 300000 numbers with Scanner and gets time limit exceeded",
      "language": "java", "error": "Time Limit Exceeded on test 5"},
     "pitfall-java-scanner-slow-en", "faq-verdict-tle-en"),
]


@pytest.mark.parametrize("request_fields,cause,overview", CAUSE_AND_VERDICT)
def test_the_page_about_the_cause_leads_the_verdicts_overview(retriever, request_fields, cause, overview):
    docs = ranked(retriever, **request_fields)
    assert docs[:2] == [cause, overview]
    off = Retriever(retriever.settings.replace(specific_lead=0.0), retriever.index, retriever.kb)
    assert ranked(off, **request_fields)[0] == overview  # switched off: the old order


def test_a_question_about_the_verdict_itself_keeps_the_overview_first(retriever):
    docs = ranked(retriever, question="Time Limit Exceeded 是什么意思，一般是什么原因", language="cpp")
    assert docs[0] == "faq-verdict-tle-zh"


def test_a_page_found_by_the_code_alone_gives_way_to_the_one_the_question_describes(retriever):
    request = {"question": "I store an iterator to the first element, push_back a few values, then *it prints "
                           "garbage", "language": "cpp", "code": "auto it = v.begin();\nv.push_back(3);\n"
                                                                 "cout << *it << endl;"}
    assert ranked(retriever, **request)[:2] == ["pitfall-cpp-iterator-invalidation-en", "pitfall-cpp-endl-fast-io-en"]
    off = Retriever(retriever.settings.replace(specific_lead=0.0), retriever.index, retriever.kb)
    assert ranked(off, **request)[0] == "pitfall-cpp-endl-fast-io-en"  # its `endl` line matched the I/O page


def test_the_general_rows_but_excluded_kinds_are_one_kept_read_only_array(retriever):
    """The hint tier leaves official solutions out: the general rows without them are made once per set of kinds and
    kept read-only, so the searches keep what they derive from them (by identity) from one request to the next."""
    hint = frozenset({"official_solution"})
    first = retriever._allowed(retriever._general_rows, hint)
    kinds, codes = retriever.index.chunks.kind, retriever.index.chunks.kind_codes(hint)
    fresh = retriever._general_rows[~np.isin(kinds[retriever._general_rows], codes)]
    assert retriever._allowed(retriever._general_rows, hint) is first and not first.flags.writeable
    assert first.tolist() == fresh.tolist() and first.size
    assert retriever._allowed(retriever._general_rows, frozenset()) is retriever._general_rows
