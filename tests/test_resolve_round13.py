"""Round 13 resolution: a judge-marked title that opens with a question word, and 翻转 / 反转 as one word in titles.

- After a judge or a marker, a title may open with a word that usually asks or says what happens ("Codeforces
  problem How Many Ways", "LeetCode Is Subsequence", "Can Place Flowers"): it is read as the title's first word when
  a capitalized title word follows; the question that merely starts asking after a judge's name still names none.
- 'problem "…"': the quotes after the word "problem" bound a title.
- 翻转 and 反转 are listed as one word (`quest.sibling_heads._ZH_SAME_WORDS`): "翻转链表" and "链表翻转" are 206.

Resolution runs against the starter base, as `quest.plan` does; questions are our own words.
"""

from __future__ import annotations

import pytest

from quest.problem_names import NamedTitle, named_title
from quest.resolution import Resolution
from quest.sibling_heads import same_title, zh_synonym_spellings
from tests.fakes.catalogue import resolved as res


@pytest.mark.parametrize("question,title", [
    ("Codeforces problem How Many Ways, my solution gets WA on test 3", "How Many Ways"),
    ("Codeforces How Many Ways WA on test 3", "How Many Ways"),
    ("LeetCode Is Subsequence: two pointers wrong answer", "Is Subsequence"),
    ("LeetCode Can Place Flowers greedy fails", "Can Place Flowers"),
])
def test_a_title_opening_with_a_question_word_after_a_judge_is_read(question, title):
    assert named_title(question) == NamedTitle(title, bounded=False, marked=True)


@pytest.mark.parametrize("question,title", [
    ('problem "How Many Ways" WA on test 3', "How Many Ways"),
    ("the problem “How Many Ways” fails on the sample", "How Many Ways"),
])
def test_quotes_after_the_word_problem_bound_a_title(question, title):
    assert named_title(question) == NamedTitle(title, bounded=True, marked=True)


@pytest.mark.parametrize("question", [
    "LeetCode Why does my code fail",  # asks: a lowercase word follows the question word
    "LeetCode How do I avoid TLE",
    "Codeforces What Is Wrong With My Code",  # the next capitalized word is a question word too
    "LeetCode How To Use a Heap",  # a connector follows
    "LeetCode Can I Win",  # "I" is no title word (a title the rule leaves to the base-title match)
    "LeetCode Using DP fails",  # a technique follows
])
def test_a_judge_followed_by_a_question_names_no_title(question):
    assert named_title(question) is None


@pytest.mark.parametrize("question,missing", [
    ("Codeforces problem How Many Ways, my solution gets WA on test 3", "How Many Ways"),
    ('problem "How Many Ways" WA on test 3', "How Many Ways"),
    ("LeetCode Is Subsequence: two pointers wrong answer", "Is Subsequence"),
])
def test_such_a_title_missing_from_the_base_is_told_missing(base, question, missing):
    assert res(base, question) == Resolution(None, "name", missing, missing_id=missing)


@pytest.mark.parametrize("question", [
    "LeetCode How do I avoid TLE",
    "how many ways are there to climb 5 stairs",  # no judge, no marker: a question, not a title
])
def test_questions_still_name_nothing(base, question):
    assert res(base, question) == Resolution()


def test_a_base_title_after_a_judge_and_a_question_is_still_that_problem(base):
    assert res(base, "LeetCode Why does my code fail on Two Sum") == Resolution("1", "title", "twosum")


# --------------------------------------------------------------------------- 翻转 / 反转


@pytest.mark.parametrize("question,evidence", [
    ("翻转链表 为什么输出是空的", "翻转链表"),  # was "题目「翻转链表」不在知识库中"
    ("力扣 翻转链表 空指针", "翻转链表"),
    ("链表翻转 递归", "链表翻转"),  # reordered and said with 翻转
    ("反转链表 为什么输出是空的", "反转链表"),  # the title itself
])
def test_fanzhuan_is_the_titles_fanzhuan(base, question, evidence):
    assert res(base, question) == Resolution("206", "title", evidence)


@pytest.mark.parametrize("question,missing", [
    ("翻转二叉树 递归", "翻转二叉树"),  # 226, which the base lacks, keeps being told missing
    ("翻转链表 II 怎么做", "翻转链表 II"),  # a sequel is another problem
])
def test_a_synonym_does_not_turn_another_problem_into_a_base_one(base, question, missing):
    assert res(base, question) == Resolution(None, "name", missing, missing_id=missing)


def test_synonym_spellings_swap_a_whole_listed_word():
    assert zh_synonym_spellings(list("链表翻转")) == [list("链表反转")]
    assert sorted("".join(u) for u in zh_synonym_spellings(list("买卖股票的最好时机"))) == [
        "买卖股票的最优时机", "买卖股票的最佳时机", "买卖股票的最好时间"]
    assert zh_synonym_spellings(list("两数之和")) == []
    assert zh_synonym_spellings(["two", "sum"]) == []
    # A whole word swapped names the title from four characters on; one swapped character needs six.
    assert same_title(list("翻转链表"), [list("反转链表")]) == 0
    assert same_title(list("翻转链条"), [list("反转链表")]) is None
