"""Round 15 resolution: known titles of problems the base lacks (`quest.known_problems`).

- A Chinese head made only of words the general documents use ("排序链表", "最小栈", "多数元素", "括号生成", "移动
  零") read as a topic; when the phrase is exactly a known title, it names that problem, reported missing.
- A title that opens with a character sentences open with (用, 求) or that holds a word ending titles elsewhere (出现)
  read as a sentence: at the question's opening, set off from what follows, the whole title decides.
- Topic questions stay topic questions ("链表排序怎么写", "栈的用法"), base titles stay base problems, and a base that
  has a known problem answers it itself.

Resolution runs against the starter base, as `quest.plan` does; questions are our own words.
"""

from __future__ import annotations

import pytest

from quest.kb.documents import Problem
from quest.known_problems import KNOWN_PROBLEMS
from quest.resolution import Catalogue, Resolution, squash
from tests.fakes.catalogue import resolved as res


def missing(name: str) -> Resolution:
    return Resolution(None, "name", name, missing_id=name)


@pytest.mark.parametrize("question,name", [
    ("排序链表 归并写法，快慢指针找中点总是死循环", "排序链表"),
    ("最小栈 getMin 在 pop 之后返回的还是旧的最小值", "最小栈"),
    ("最小栈：辅助栈要不要每次都 push", "最小栈"),
    ("多数元素 摩尔投票为什么最后剩下的一定是众数", "多数元素"),
    ("括号生成 回溯的时候左右括号数量的剪枝条件写反了吗", "括号生成"),
    ("移动零 双指针写完，最后几个位置没有变成 0", "移动零"),
    ("【求助】最小栈 getMin 返回错了", "最小栈"),  # after a forum tag
    ("今天刷最小栈，getMin 返回错了", "最小栈"),  # after saying when and what the student does
    ("做移动零的时候，为什么 nums 没有被原地修改", "移动零"),  # "做X的时候"
    ("“多数元素” 用哈希表计数会超内存吗", "多数元素"),  # quoted
    ("打家劫舍，dp 数组第一项怎么初始化", "打家劫舍"),
    ("過河卒 用 int 存方案數還是錯", "過河卒"),  # Luogu P1002, traditional characters: reported as written
    ("Sort List: merge sort on a linked list overflows the stack", "Sort List"),
    ("Min Stack: getMin returns the old value after pop", "Min Stack"),
])
def test_a_known_title_made_of_topic_words_is_told_missing(base, question, name):
    assert res(base, question) == missing(name)


@pytest.mark.parametrize("question,name", [
    ("只出现一次的数字 异或为什么能把成对的数消掉", "只出现一次的数字"),  # 出现 ends a title elsewhere
    ("只出现一次的数字：异或为什么能行", "只出现一次的数字"),
    ("用栈实现队列 pop 的时候顺序反了", "用栈实现队列"),  # 用 opens sentences
    ("用栈实现队列，peek 要不要先倒一遍", "用栈实现队列"),
    ("求众数 哈希表计数超时", "求众数"),  # 169's earlier title; 求 opens sentences
    ("求众数超时了", "求众数"),  # glued to a word about judging
    ("A+B Problem 为什么 WA", "A+B Problem"),  # Luogu P1001
])
def test_a_known_title_opening_like_a_sentence_is_still_a_title(base, question, name):
    assert res(base, question) == missing(name)


@pytest.mark.parametrize("question", [
    "链表排序怎么写",
    "栈的用法",
    "栈 的用法是什么",
    "组合 回溯剪枝怎么写",  # 组合 (LeetCode 77) is one word the general documents use: a topic
    "排序数组 怎么降序",  # left out of the list: a plain phrase for a task
    "求众数的方法有哪些",  # the words run on ("的"): not set off as a title
    "用栈实现 BFS 可以吗",  # a sentence that opens like the title but is not it
    "只出现一次的数字出现了两次怎么办",
    "Sort list of tuples by the second element in python",  # the words, not written as the title
    "做回文链表，我把节点值存进 List 里比较",  # one character before it opens a sentence (as for the shapes)
])
def test_topics_and_sentences_are_no_problem(base, question):
    assert res(base, question) == Resolution()


@pytest.mark.parametrize("question,expected", [
    ("爬楼梯 递归超时", Resolution("70", "title", "爬楼梯")),
    ("合并区间 排序后还是不对", Resolution("56", "title", "合并区间")),
    # a base title inside a longer known title is the longer problem, as the title rule reads it
    ("使用最小花费爬楼梯 dp 数组开多大",
     Resolution(None, "title", "使用最小花费爬楼梯", missing_id="使用最小花费爬楼梯")),
    # a sequel the list lacks is still that sequel, never the listed title before it
    ("跳跃游戏 III 从起点能不能跳到值为 0 的位置", missing("跳跃游戏 III")),
    ("打家劫舍 II 首尾相连怎么处理", missing("打家劫舍 II")),
])
def test_base_titles_and_sequels_read_as_before(base, question, expected):
    assert res(base, question) == expected


def test_a_base_that_has_a_known_problem_answers_it():
    cat = Catalogue({"155": Problem("155", title_zh="最小栈", title_en="Min Stack")},
                    ["# 栈\n栈是后进先出的结构，最小值和最大值都可以用辅助栈维护。"])
    assert "最小栈" not in cat.known and squash("最小栈") in cat.titles
    assert res(cat, "最小栈 getMin 返回错了") == Resolution("155", "title", "最小栈")


def test_a_base_that_imported_a_luogu_problem_under_another_title_is_not_told_it_lacks_it():
    """An operator's Luogu import keeps the judge's id ("P1001") but may word the title otherwise ("A + B"): the
    known title "A+B Problem" is that base's problem, never reported missing."""
    cat = Catalogue({"P1001": Problem("P1001", title_zh="A + B")}, ["# 输入输出\n读入两个整数。"])
    assert squash("A+B Problem") not in cat.known
    assert res(cat, "A+B Problem 为什么 WA").missing_id is None
    bare = Catalogue({"P1002": Problem("P1002", title_zh="过河卒")}, ["# 输入输出\n读入两个整数。"])
    assert bare.known[squash("A+B Problem")].id == "P1001"


def test_the_list_never_names_a_starter_problem(base):
    """The list is for problems the base lacks: none of its LeetCode ids or titles is a starter problem's."""
    leetcode_ids = {k.id for k in KNOWN_PROBLEMS if k.judge == "LeetCode"}
    assert not leetcode_ids & set(base.problems)
    assert not {squash(t) for k in KNOWN_PROBLEMS for t in k.titles} & set(base.titles)
    assert len({(k.judge, k.id) for k in KNOWN_PROBLEMS}) == len(KNOWN_PROBLEMS)
    assert all(k.titles and all(t.strip() == t and t for t in k.titles) for k in KNOWN_PROBLEMS)


@pytest.mark.parametrize("judge,pid,titles", [
    ("LeetCode", "169", ("多数元素", "Majority Element", "求众数")),
    ("LeetCode", "28", ("找出字符串中第一个匹配项的下标", "Find the Index of the First Occurrence in a String",
                        "实现 strStr()", "Implement strStr()")),
    ("Luogu", "P1001", ("A+B Problem",)),
])
def test_the_table_is_read_with_earlier_titles(judge, pid, titles):
    assert next(k for k in KNOWN_PROBLEMS if k.judge == judge and k.id == pid).titles == titles
