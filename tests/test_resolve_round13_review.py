"""Round 13 review: what the round's title rules read as a problem that names none.

- 'problem "…"': only a quote that reads as a title (Title Case or Han characters, no error or verdict words) is
  one; a quoted word, error message or verdict after "problem" names no problem.
- After a judge, why/which/where/when never open a title; is/can/how/what open one only when all its words are
  capitalized, it ends at punctuation, a verdict, how it is solved or the end, and no technique follows the
  question word ("LeetCode Is Binary Search Enough here?").

Resolution runs against the starter base, as `quest.plan` does; questions are our own words.
"""

from __future__ import annotations

import pytest

from quest.problem_names import NamedTitle, named_title
from quest.resolution import Resolution
from tests.fakes.catalogue import resolved as res


@pytest.mark.parametrize("question", [
    'This problem "seems" easy but I get WA on test 3',
    'The problem "works" locally but TLE on Codeforces',
    'the problem "Segmentation fault" on test 5',
    'the problem "Time Limit Exceeded" on test 5',
    'My problem "undefined reference to main" when compiling',
    'the problem "n" must be read as long long',
])
def test_a_quote_after_problem_that_is_no_title_names_nothing(base, question):
    assert named_title(question) is None
    assert res(base, question) == Resolution()


@pytest.mark.parametrize("question,title", [
    ('problem "How Many Ways" WA on test 3', "How Many Ways"),
    ("the problem “Number of Ways to Stay in the Same Place” fails", "Number of Ways to Stay in the Same Place"),
    ("the problem 「跳跃游戏」 超时", "跳跃游戏"),
])
def test_a_quoted_title_after_problem_is_still_read(question, title):
    assert named_title(question) == NamedTitle(title, bounded=True, marked=True)


def test_a_quoted_title_missing_from_the_base_is_still_told_missing(base):
    assert res(base, 'problem "How Many Ways" WA on test 3') == Resolution(
        None, "name", "How Many Ways", missing_id="How Many Ways")


@pytest.mark.parametrize("question", [
    "LeetCode Is Binary Search Enough here? TLE",
    "Codeforces Which Data Structure should I use",
    "LeetCode Is Prefix Sum correct for this?",
    "LeetCode Can Dijkstra Work here",
    "Codeforces Why Segment Tree gives TLE",
    "Codeforces How Dijkstra works with negative edges",
])
def test_a_question_about_a_technique_after_a_judge_names_nothing(base, question):
    assert named_title(question) is None
    assert res(base, question) == Resolution()


@pytest.mark.parametrize("question,title", [
    ("Codeforces problem How Many Ways", "How Many Ways"),
    ("LeetCode Is Subsequence", "Is Subsequence"),
    ("LeetCode Is Subsequence: two pointers wrong answer", "Is Subsequence"),
    ("LeetCode Can Place Flowers greedy fails", "Can Place Flowers"),
    ("Codeforces How Many Ways WA on test 3", "How Many Ways"),
])
def test_a_title_opening_with_a_question_word_is_still_read(question, title):
    assert named_title(question) == NamedTitle(title, bounded=False, marked=True)


def test_a_leading_question_word_title_alone_is_left_to_the_base_match():
    assert named_title("Can Place Flowers") is None
