"""Problem titles written loosely in real questions, and full-width ids, resolve the problem."""

import pytest

from quest.kb.documents import Problem
from quest.loose_titles import LooseTitles, loose, stem
from quest.plan import plan
from quest.request import Request
from quest.resolution import Catalogue, resolve
from tests.fakes.retriever import FakeRetriever

PROBLEMS = {
    "239": Problem(id="239", title_zh="滑动窗口最大值", title_en="Sliding Window Maximum"),
    "300": Problem(id="300", title_zh="最长递增子序列", title_en="Longest Increasing Subsequence"),
    "121": Problem(id="121", title_zh="买卖股票的最佳时机", title_en="Best Time to Buy and Sell Stock"),
    "215": Problem(id="215", title_zh="数组中的第K个最大元素", title_en="Kth Largest Element in an Array"),
    "200": Problem(id="200", title_zh="岛屿数量", title_en="Number of Islands"),
    "70": Problem(id="70", title_zh="爬楼梯", title_en="Climbing Stairs"),
    "20": Problem(id="20", title_zh="有效的括号", title_en="Valid Parentheses"),
    "5": Problem(id="5", title_zh="最长回文子串", title_en="Longest Palindromic Substring"),
    "94": Problem(id="94", title_zh="二叉树的中序遍历", title_en="Binary Tree Inorder Traversal"),
    "104": Problem(id="104", title_zh="二叉树的最大深度", title_en="Maximum Depth of Binary Tree"),
    "46": Problem(id="46", title_zh="全排列", title_en="Permutations"),
    "704": Problem(id="704", title_zh="二分查找", title_en="Binary Search", tags=("binary_search",)),
}
CAT = Catalogue(PROBLEMS)


def res(question: str, **fields):
    return resolve(Request(question=question, **fields), CAT)


@pytest.mark.parametrize("word,stemmed", [
    ("subsequences", "subsequence"), ("stairs", "stair"), ("islands", "island"), ("matches", "match"),
    ("queries", "query"), ("parentheses", "parenthese"), ("class", "class"), ("status", "status"), ("sum", "sum"),
])
def test_plural_endings_are_dropped(word, stemmed):
    assert stem(word) == stemmed


def test_the_loose_form_drops_small_words_and_filler_characters_and_keeps_positions():
    form = loose("kth largest element in an array 的")
    assert form.text == "kthlargestelementarray"
    assert form.spans[-1] == (26, 31)  # "array" in the text
    assert loose("滑动窗口的最大值").text == "滑动窗口最大值"


@pytest.mark.parametrize("question,pid,evidence", [
    ("Longest Increasing Subsequences with binary search gives a wrong length", "300", None),
    ("sliding windows maximum with a deque, why TLE", "239", "sliding windows maximum"),
    ("number of island dfs hits the recursion limit", "200", "number of island"),
    ("climbing stair recursion timeout", "70", "climbing stair"),
    ("Kth largest element in array: quickselect is slow on sorted input", "215", "Kth largest element in array"),
    ("Valid Parenthesis: pop on an empty stack crashes", "20", None),
    ("滑动窗口的最大值 用堆写的超时了", "239", "滑动窗口的最大值"),
    ("买卖股票最佳时机 一次遍历为什么不对", "121", "买卖股票最佳时机"),
    ("数组中第k大的元素 快速选择超时", "215", "数组中第k大的元素"),
    ("最长递增序列 二分 答案错一位", "300", "最长递增序列"),
    ("二叉树中序遍历 迭代写法死循环", "94", "二叉树中序遍历"),
    ("Traping Rain Water two pointers", None, None),  # not in this catalogue: nothing to find
])
def test_a_title_written_loosely_names_the_problem(question, pid, evidence):
    found = res(question)
    assert found.problem_id == pid
    if pid is not None:
        assert found.rule == "title" and found.missing_id is None
    if evidence is not None:
        assert found.evidence == evidence


@pytest.mark.parametrize("question", [
    "最长回文子序列 dp 从后往前遍历",  # 516, not 最长回文子串 missing its end
    "二叉树的最小深度 BFS",  # one character changed: another problem
    "Minimum Depth of Binary Tree with BFS",
    "最长不递增子序列 怎么求",  # an inserted negation is another problem
    "how many permutation of a string are palindromes",  # one English word names no problem
    "binary searches on the answer",  # a technique's title counts only as the whole question
    "滑动窗口最大 用单调队列",  # the title's last character missing: not a slip we accept
])
def test_near_titles_of_other_problems_name_nothing_in_the_base(question):
    assert res(question).problem_id is None


def test_a_loose_title_inside_a_longer_title_is_reported_as_not_in_the_base():
    found = res("买卖股票最佳时机含冷冻期 三个状态")
    assert (found.problem_id, found.missing_id) == (None, "买卖股票最佳时机含冷冻期")


def test_an_exact_title_still_wins_over_a_loose_one():
    found = res("滑动窗口最大值 超时了")
    assert (found.problem_id, found.rule, found.evidence) == ("239", "title", "滑动窗口最大值")


@pytest.mark.parametrize("question,pid", [
    ("２３９．滑动窗口最大值 超时", "239"), ("ＬＣ２３９ 超时", "239"), ("第３００题 二分", "300"),
])
def test_full_width_ids_resolve(question, pid):
    found = res(question)
    assert (found.problem_id, found.rule, found.missing_id) == (pid, "id", None)


def test_a_full_width_id_in_the_error_resolves():
    assert res("为什么错", error="题号：第２３９题 超出时间限制").problem_id == "239"


def test_the_question_part_leaves_out_a_loosely_written_title():
    retriever = FakeRetriever()
    retriever.problems = PROBLEMS
    p = plan(Request(question="数组中第k大的元素 快速选择超时"), retriever)
    assert p.problem_id == "215"
    assert p.parts.question == "快速选择超时"
    assert p.parts.problem == "数组中的第K个最大元素 Kth Largest Element in an Array"


def test_the_longest_loose_title_wins():
    titles = LooseTitles({"ab": "Two Sum", "cd": "Two Sum Sorted Input"})
    assert titles.find("two sums sorted inputs overflow").key == "cd"
