"""Round 18: a base title reworded names that problem (`quest.resolution.reworded.by_reworded_title`,
`quest.reworded_titles`).

A question that opens with a base title in other words ("三数和" for 三数之和, "判断链表有环" for
环形链表, "最小编辑距离" for 编辑距离, "Detect Linked List Cycle") was told its problem is not in the
knowledge base and searched among the general pages only. A name is a rewording when, with the
fillers (之 的 个 中, 是否, small English words), one leading verb, one added superlative or a listed
word for the title's (有环 → 环形, 滑窗 → 滑动窗口) set aside, it holds exactly one base title's
units. A sequel, a longer title, a sibling or a known title the base lacks adds or swaps a unit of
its own and stays missing.

Every question of the first list was told "not in the knowledge base" or named no problem before
the rule (on int18). Questions are our own, in the shapes students post.
"""

from __future__ import annotations

from collections import Counter

import pytest

from quest.kb.documents import Problem
from quest.plan import without_names
from quest.resolution import Catalogue, Resolution, by_reworded_title
from quest.reworded_titles import name_spellings, reworded, title_units, units_index
from tests.fakes.catalogue import resolved as res


@pytest.mark.parametrize("question,pid,evidence", [
    # a filler dropped or added (三数之和, 两数之和, 有效的括号)
    ("三数和 为什么超时", "15", "三数和"),
    ("三数的和 超时", "15", "三数的和"),
    ("三數和 超時", "15", "三數和"),  # in traditional characters
    ("两数和 哈希表写法 WA", "1", "两数和"),
    ("判断是否有效的括号 栈", "20", "判断是否有效的括号"),
    # a question's verb, and the words reordered
    ("求三数和，双指针", "15", "求三数和"),
    ("寻找两数之和 超时", "1", "寻找两数之和"),
    ("计算编辑距离 超时", "72", "计算编辑距离"),
    ("判断括号有效 栈", "20", "判断括号有效"),
    ("判断有效括号 栈空", "20", "判断有效括号"),
    ("判断二叉搜索树 中序", "98", "判断二叉搜索树"),  # 判断 is 验证 in a title (`quest.sibling_heads`)
    # 有环 / 带环 say 环形; 是否 and 有没有 ask it
    ("判断链表有环 快慢指针死循环", "141", "判断链表有环"),
    ("判断链表是否有环，fast 空指针", "141", "判断链表是否有环"),
    ("链表有没有环 怎么判断", "141", "链表有没有环"),
    ("链表是否有环？快慢指针", "141", "链表是否有环"),
    ("链表带环 快慢指针", "141", "链表带环"),
    ("判斷鏈表有環，快慢指針", "141", "判斷鏈表有環"),
    # the superlative the problem asks for
    ("最小编辑距离 WA", "72", "最小编辑距离"),
    ("最小的编辑距离 超时", "72", "最小的编辑距离"),
    ("最小零钱兑换 dp", "322", "最小零钱兑换"),
    # 滑窗 is short for 滑动窗口
    ("滑窗最大值 deque", "239", "滑窗最大值"),
    # after a judge, in brackets, with a lead-in or a reference to it, like a title
    ("力扣 三数和 超时", "15", "三数和"),
    ("《三数和》去重", "15", "三数和"),
    ("今天做三数和，超时了", "15", "三数和"),
    ("三数和这道题超时", "15", "三数和"),
    ("LeetCode 最小编辑距离 超时", "72", "最小编辑距离"),
    # English: a verb, the small words, a superlative
    ("detect cycle in linked list, my code loops forever", "141", "detect cycle in linked list"),
    ("Minimum Edit Distance: wrong answer", "72", "Minimum Edit Distance"),
    ("Compute Edit Distance, TLE", "72", "Compute Edit Distance"),
    ("Detect Linked List Cycle - null pointer", "141", "Detect Linked List Cycle"),
    ("Detect Cycle in Linked List: my fast pointer crashes", "141", "Detect Cycle in Linked List"),
    ("Find Kth Largest Element in Array: TLE", "215", "Find Kth Largest Element in Array"),
    ("Min Coin Change: dp wrong", "322", "Min Coin Change"),
    ("Minimum Coin Change - dp wrong answer", "322", "Minimum Coin Change"),
    ("Check Valid Parentheses - stack empty", "20", "Check Valid Parentheses"),
    ("Find Maximum Subarray: kadane negative", "53", "Find Maximum Subarray"),
    ("Find Longest Palindromic Substring - TLE", "5", "Find Longest Palindromic Substring"),
])
def test_a_reworded_title_names_the_base_problem(base, question, pid, evidence):
    assert res(base, question) == Resolution(pid, "reworded", evidence)


def test_a_well_known_nickname_is_listed_as_a_title(base):
    # "凑零钱" shares only 零钱 with 零钱兑换: no rule can read it, so 322 lists it (aka) as a title
    assert res(base, "凑零钱 dp 数组初始化不对") == Resolution("322", "title", "凑零钱")
    assert res(base, "用凑零钱的思路做 完全背包") == Resolution("322", "title", "凑零钱")


def test_the_plan_says_how_it_was_named_and_leaves_the_name_out_of_the_question(base):
    assert Resolution("15", "reworded", "三数和").describe() == "problem 15 (by its title, reworded, in the question)"
    assert Resolution("15", "reworded", "三数和").describe("zh") == "题目 15（按问题中改写的题目名称）"
    resolution = res(base, "三数和 为什么超时")
    assert without_names("三数和 为什么超时", base.problems["15"], resolution) == "为什么超时"


def _units(*titles: str) -> dict[str, Counter[str]]:
    return {t: title_units(t) for t in titles}


def test_units_set_fillers_verbs_and_superlatives_aside():
    assert title_units("三数之和") == Counter("三数和")
    assert title_units("前 K 个高频元素") == Counter("前k高频元素")
    assert title_units("Kth Largest Element in an Array") == Counter(("kth", "largest", "element", "array"))
    spellings = name_spellings("判断链表是否有环")
    assert (Counter("链表环形"), Counter()) in spellings  # the verb and 是否 set aside, 有环 said the title's way
    assert (Counter("最小编辑距离"), Counter("最小")) in name_spellings("最小编辑距离")


def test_a_superlative_counts_only_as_an_addition():
    titles = _units("最大深度", "编辑距离")
    index = units_index(titles)
    assert reworded("最小编辑距离", titles, index) == {"编辑距离"}
    assert reworded("最小深度", titles, index) == set()  # 小 swapped for the title's 大: a sibling
    assert reworded("最大深度", titles, index) == {"最大深度"}
    assert reworded("编辑", titles, index) == set()  # fewer units than any title: a word of a sentence


def test_a_verb_is_set_aside_only_where_the_title_has_none():
    titles = _units("Find First and Last Position of Element in Sorted Array", "Edit Distance")
    index = units_index(titles)
    assert reworded("Find Position of First and Last Element in a Sorted Array", titles, index) == {
        "Find First and Last Position of Element in Sorted Array"}
    assert reworded("Compute the Edit Distance", titles, index) == {"Edit Distance"}
    assert reworded("Compute Distance", titles, index) == set()


def test_a_name_two_problems_reword_names_neither():
    cat = Catalogue({"1": Problem(id="1", title_zh="甲乙之和"), "2": Problem(id="2", title_zh="乙甲的和")})
    assert by_reworded_title("甲乙和", cat) is None
    one = Catalogue({"1": Problem(id="1", title_zh="甲乙之和"), "2": Problem(id="2", title_zh="丙丁之和")})
    assert by_reworded_title("甲乙和", one) == Resolution("1", "reworded", "甲乙和")


@pytest.mark.parametrize("question,rule,name", [
    # a sequel
    ("课程表 II 拓扑排序", "title", "课程表 II"),
    ("三数之和 II 怎么做", "title", "三数之和 II"),
    ("环形链表 II 入环点", "title", "环形链表 II"),
    ("零钱兑换 II 组合数", "title", "零钱兑换 II"),
    ("两数之和 II 输入有序数组", "title", "两数之和 II"),
    ("Combination Sum IV overflow", "title", "Combination Sum IV"),
    ("Linked List Cycle II: where does it start", "title", "Linked List Cycle II"),
    ("判断链表有环 II", "name", "判断链表有环 II"),
    ("最小编辑距离 II", "title", "编辑距离 II"),
    # a longer title
    ("最长递增子序列的个数 超时", "title", "最长递增子序列的个数"),
    ("买卖股票的最佳时机含冷冻期 dp", "title", "买卖股票的最佳时机含冷冻期"),
    ("3Sum Closest wrong", "title", "3Sum Closest"),
    ("最接近的三数之和 排序", "title", "最接近的三数之和"),
    ("Min Cost Climbing Stairs dp", "title", "Min Cost Climbing Stairs"),
    ("Find Median Sliding Window?", "name", "Find Median Sliding Window"),
    ("最长编辑距离", "title", "最长编辑距离"),  # 最长 is no superlative a distance is asked by
    # a sibling, or another problem's name sharing words
    ("四数之和 去重", "name", "四数之和"),
    ("四数和 去重", "name", "四数和"),
    ("二叉树的最小深度 递归", "name", "二叉树的最小深度"),
    ("二叉树最小深度 递归", "name", "二叉树最小深度"),
    ("Minimum Depth of Binary Tree recursion", "name", "Minimum Depth of Binary Tree"),
    ("最长回文子序列 dp", "name", "最长回文子序列"),
    ("最长公共子串 dp", "name", "最长公共子串"),
    ("最小路径和 dp 初始化", "name", "最小路径和"),
    ("最大子数组积 负数", "name", "最大子数组积"),
    ("判断回文链表 快慢指针", "name", "判断回文链表"),
    ("相交链表 双指针", "name", "相交链表"),
    ("寻找旋转排序数组中的最小值 二分", "name", "寻找旋转排序数组中的最小值"),
    ("Find Minimum in Rotated Sorted Array: off by one", "name", "Find Minimum in Rotated Sorted Array"),
    # a known title the base lacks: 最大矩形 is 柱状图中最大的矩形's units minus 柱状图, and known (85)
    ("最大矩形 单调栈", "name", "最大矩形"),
    ("最小栈 getMin", "name", "最小栈"),
])
def test_a_sequel_a_longer_title_or_another_problem_stays_missing(base, question, rule, name):
    assert res(base, question) == Resolution(None, rule, name, missing_id=name)


def test_the_assistant_says_the_reworded_title_named_the_problem(tmp_path):
    from quest.assistant import Assistant
    from quest.events import Notice
    from quest.request import Request
    from quest.settings import Settings
    from tests.fakes.retriever import FakeRetriever

    retriever = FakeRetriever()
    assistant = Assistant(Settings(data_dir=tmp_path), retriever, None)
    events = list(assistant.ask(Request(question="滑窗最大值 deque 写法为什么超时", error="Time Limit Exceeded")))
    notices = [e.text for e in events if isinstance(e, Notice) and e.code == "problem"]
    assert notices == ["题目 239（按问题中改写的题目名称）"]
    assert retriever.searches[-1].problem_id == "239" and retriever.searches[-1].general_only is False
    assert events[-1].stats["plan"]["rule"] == "reworded"
    assert "滑窗最大值" not in dict(retriever.searches[-1].parts)["question"]  # the problem part carries its titles
