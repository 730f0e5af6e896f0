"""Round 14 resolution: a base Chinese title's task done to another structure, and its words in another order.

- 反转链表 (206) is in the starter base; reversing a binary tree (226), a string (344) or an integer (7) is not. A
  Chinese head with a base title's words, one structure word (链表, 二叉树, 数组, 字符串, 整数 …) swapped for another,
  names that other problem: it is reported missing, although each of its words is one the general documents use.
- The same words in another order ("链表反转") are the base title itself.
- Topics, base titles and technique titles read as before.
- A phrase that turns the story ("上傳了卻沒有 AC：…", "本地能过但是提交错：…") is a clause, never a title to report.
- A Chinese title that opens with a letter or digit glued to it ("K个一组翻转链表", "N叉树的最大深度") is read as a
  Chinese head (it was read as English and found nothing, or the phrase after the letter matched a base title), and
  对称 opens titles like 有效 and 有序 ("对称二叉树"), though 对 alone opens a sentence.
- Taiwan's APCS exam problems are ZeroJudge's and named by the same ids ("APCS 的 m371"); the exam alone names none.

Resolution runs against the starter base, as `quest.plan` does; questions are our own words.
"""

from __future__ import annotations

import pytest

from quest.resolution import Resolution
from quest.sibling_heads import reordered_title, structure_swapped
from tests.fakes.catalogue import resolved as res


@pytest.mark.parametrize("question,missing", [
    ("反转二叉树 递归写法，左右子树交换完以后怎么还是原样", "反转二叉树"),
    ("反转二叉树，BFS 一层层交换左右孩子也不对", "反转二叉树"),
    ("做反转二叉树这题的时候，root 为空直接返回可以吗", "反转二叉树"),
    ("二叉树反转 用栈模拟递归，总是少换一层", "二叉树反转"),
    ("整数反转 结果用 long 存了还是判溢出判错", "整数反转"),
    ("反转字符串 双指针交换，Python 里字符串不能改怎么办", "反转字符串"),
    ("反轉二元樹 用遞迴寫的，交換完左右子樹輸出沒變", "反轉二元樹"),  # Taiwan's words for 反转二叉树
    ("合并两个有序数组 从后往前合并，nums1 前面的数被覆盖了", "合并两个有序数组"),
])
def test_a_base_titles_task_on_another_structure_is_told_missing(base, question, missing):
    assert res(base, question) == Resolution(None, "name", missing, missing_id=missing)


@pytest.mark.parametrize("question,pid,evidence", [
    ("链表反转 迭代写法，pre 指针总是丢", "206", "链表反转"),
    ("链表反转，递归版本返回值不对", "206", "链表反转"),
    ("反转链表 迭代写法，pre 指针总是丢", "206", "反转链表"),
    ("翻转链表 迭代写法，pre 指针总是丢", "206", "翻转链表"),
])
def test_the_base_titles_words_in_any_order_are_that_title(base, question, pid, evidence):
    assert res(base, question) == Resolution(pid, "title", evidence)


@pytest.mark.parametrize("question", [
    "二分查找 边界总是差一",  # a technique's title: a topic
    "二分搜索 边界总是差一",  # the title with its verb said another way: no structure swapped
    "字符串拼接 用加号太慢",
    "数组越界 怎么查",
    "浮点数比较 为什么不能用 ==",
    "二维数组 传参怎么写",
])
def test_topics_are_still_no_problem(base, question):
    assert res(base, question) == Resolution()


@pytest.mark.parametrize("words,expected", [
    (["反转", "二叉树"], 0),
    (["整数", "反转"], 0),
    (["合并", "两个", "有序", "数组"], 1),
    (["反转", "链表"], None),  # the title itself
    (["翻转", "链表"], None),  # the verb swapped, not the structure
    (["反转", "单词"], None),  # 单词 is no structure here
    (["二叉树"], None),
])
def test_structure_swapped_compares_words_in_any_order(words, expected):
    titles = [["反转", "链表"], ["合并", "两个", "有序", "链表"], ["二叉树", "的", "最大", "深度"]]
    assert structure_swapped(words, titles) == expected


@pytest.mark.parametrize("words,expected", [
    (["链表", "反转"], 0),
    (["反转", "链表"], None),  # as written: the exact title rules read it
    (["链表"], None),
    (["链表", "合并"], None),
])
def test_reordered_title_needs_the_same_words(words, expected):
    assert reordered_title(words, [["反转", "链表"], ["合并", "区间"]]) == expected


@pytest.mark.parametrize("question,name", [
    ("APCS 的 m371 卡牌遊戲，右邊那欄比較時讀到陣列外面", "APCS 的 m371"),
    ("apcs f312 人力分配 為什麼只拿到 50 分", "apcs f312"),
    ("zerojudge 的 b966 線段覆蓋長度 TLE", "zerojudge 的 b966"),
])
def test_an_apcs_or_zerojudge_id_is_reported_by_its_own_name(base, question, name):
    assert res(base, question) == Resolution(None, "name", name, missing_id=name)


@pytest.mark.parametrize("question", ["APCS 考試實作題只拿 2 級分，該怎麼準備", "APCS 的題目都在 ZeroJudge 上嗎"])
def test_the_apcs_exam_alone_names_no_problem(base, question):
    found = res(base, question)
    assert (found.problem_id, found.missing_id) == (None, None)


@pytest.mark.parametrize("question", [
    "上傳了卻沒有 AC：我在 main 裡宣告 int cnt; 然後直接 cnt++",
    "本地能过但是提交错：dp 数组没初始化",
    "样例可是全对：为什么提交就 WA",
])
def test_a_clause_that_says_but_is_no_title(base, question):
    assert res(base, question) == Resolution()


@pytest.mark.parametrize("question,missing", [
    ("K个一组翻转链表 用 Python 写的，最后不足 k 个的那组也被翻了", "K个一组翻转链表"),
    ("K个一组翻转链表，递归版本栈会不会太深", "K个一组翻转链表"),
    ("N叉树的最大深度 递归写法，children 为空时返回几", "N叉树的最大深度"),  # 104's sibling, not 104
    ("对称二叉树 递归判断左右子树，空节点怎么处理", "对称二叉树"),
])
def test_chinese_titles_opening_with_a_letter_or_an_adjective_are_heads(base, question, missing):
    assert res(base, question) == Resolution(None, "name", missing, missing_id=missing)


@pytest.mark.parametrize("question", [
    "对这个数组排序，用 sort 超时了怎么办",  # 对 alone: a sentence
    "C语言数组越界 怎么查",  # a language and a topic
    "DP数组怎么初始化",
])
def test_sentences_opening_with_dui_or_a_latin_word_are_still_no_title(base, question):
    assert res(base, question) == Resolution()
