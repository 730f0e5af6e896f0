"""A traditional-Chinese question also searches the words its mainland wording adds (OpenCC tw2sp), never a false
friend's, and the question as written stays as it is."""

from __future__ import annotations

from pathlib import Path

import pytest

from quest.plan import plan, retrieve
from quest.request import Request
from quest.retrieval.mainland_words import is_traditional, mainland_words, with_mainland_words
from quest.retrieval.retriever import Retriever, build_retriever


@pytest.mark.parametrize(("question", "added"), [
    ("遞迴沒有終止條件，記憶體區段錯誤，是堆疊爆掉嗎？", "递归 内存 段 栈"),  # 递回 / 记忆体 / 堆叠 under plain t2s
    ("陣列的索引超出範圍", "数组"),
    ("我的程式在迴圈裡宣告變數", "程序 循环 声明 变量"),  # 程式 is a program: tw2sp's 程序 is right here
    ("費氏數列用遞迴算", "斐波 那契 递归"),  # our own list: tw2sp leaves 費氏數列
])
def test_the_words_the_mainland_wording_adds(question, added):
    assert mainland_words(question) == added


@pytest.mark.parametrize("question", [
    # 子序列, 程序, 文件 are the base's words: tw2sp's 子串行, 进程, 文档 are never added.
    "最長遞增子序列的程序寫進文件",
    "我写递归程序",  # simplified: tw2sp would turn 程序 into 进程, so it is not run at all
    "plain English question",
])
def test_false_friends_simplified_text_and_english_add_nothing(question):
    assert mainland_words(question) == ""
    assert with_mainland_words(question) == question


def test_the_question_keeps_its_own_words_and_gets_the_added_ones_on_a_line_after():
    assert with_mainland_words("陣列的索引超出範圍") == "陣列的索引超出範圍\n数组"
    assert is_traditional("陣列") and not is_traditional("数组") and not is_traditional("array")


@pytest.fixture
def retriever(settings, kb_dir: Path) -> Retriever:
    docs = kb_dir / "docs"
    (docs / "pitfall-deep-recursion.md").write_text(
        "---\nid: pitfall-deep-recursion-zh\nkind: error_pattern\nlang: zh\ntitle: 递归太深：栈溢出\n"
        "verdicts: [RE]\n---\n## 原因\n\n递归没有出口时一层层调用，栈空间用完，程序崩溃。\n", encoding="utf-8")
    (docs / "pitfall-loop-bound.md").write_text(
        "---\nid: pitfall-loop-bound-zh\nkind: error_pattern\nlang: zh\ntitle: 循环边界\n"
        "verdicts: [WA]\n---\n## 原因\n\n循环的终止条件写成小于等于，多算一次。\n", encoding="utf-8")
    return build_retriever(settings.replace(embedding_model="none"))


def test_a_taiwanese_question_about_recursion_finds_the_stack_page_the_plain_conversion_misses(retriever):
    question = "遞迴沒有終止條件，是堆疊爆掉嗎？"
    p = plan(Request(question=question), retriever)
    assert p.parts.question == question + "\n递归 栈"
    found = [h.chunk.doc_id for h in retrieve(retriever, p)[1].hits]
    assert found == ["pitfall-deep-recursion-zh", "pitfall-loop-bound-zh"]
    plain = retriever.search(question, parts={"question": question})  # the words as written only
    assert [h.chunk.doc_id for h in plain.hits] == ["pitfall-loop-bound-zh"]
