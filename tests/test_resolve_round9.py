"""Round-9 resolution rules: a base problem named with words around it is that problem, never one the base
lacks. Each rule has questions it must read as the base problem and questions that really name another problem
(sequels, longer titles) and must still be reported missing. Questions are our own words, shaped like real
posts.

Resolution runs against the starter base (its problems and the words of its general documents), as
`quest.plan` does at run time.
"""

import pytest

from quest.resolution import Resolution
from quest.topic_words import mainland_terms
from tests.fakes.catalogue import resolved as res

# --------------------------------------------------------------------------- a comparison word beside the title


@pytest.mark.parametrize("question", [
    "Compared to Two Sum, my hash map version needs twice the memory",
    "Unlike Two Sum, here the input comes sorted — why does my map still TLE?",
    "Similar to Two Sum but three numbers: how do I skip duplicates",
    "Like Two Sum, I store complements in a dict and it fails on [3,3]",
    "Related to Two Sum: what changes when k numbers must add up",
    "Versus Two Sum, this one wants the values, not the indices",
])
def test_an_english_comparison_before_the_title_names_the_base_problem(base, question):
    assert res(base, question) == Resolution("1", "title", "twosum")


def test_a_comparison_after_the_title_does_not_join_it(base):
    assert res(base, "Two Sum Compared To the sorted version, which is faster") == Resolution("1", "title", "twosum")


@pytest.mark.parametrize("question", [
    "相比于两数之和，这题为什么要先排序",
    "类似两数之和的做法，用哈希表存下标",
    "不同于两数之和，这里要返回的是值",
])
def test_a_chinese_comparison_before_the_title_names_the_base_problem(base, question):
    assert res(base, question) == Resolution("1", "title", "两数之和")


@pytest.mark.parametrize("question,missing", [
    ("Two Sum II sorted input: two pointers off by one", "Two Sum II"),
    ("Min Cost Climbing Stairs: my dp array is one short", "Min Cost Climbing Stairs"),
    ("使用最小花费爬楼梯 为什么要多开一位", "使用最小花费爬楼梯"),
])
def test_a_sequel_or_a_longer_title_still_names_another_problem(base, question, missing):
    assert res(base, question) == Resolution(None, "title", missing, missing_id=missing)


# --------------------------------------------------------------------------- the title asked by its answer


@pytest.mark.parametrize("question", [
    "Maximum Subarray Sum keeps giving the wrong answer when every number is negative",
    "Maximum Subarray Sum: Kadane fails on [-1]",
    "Maximum Subarray Sum in Python returns 0 for all negatives",
])
def test_a_title_followed_by_the_quantity_it_computes_is_that_problem(base, question):
    assert res(base, question) == Resolution("53", "title", "maximumsubarray")


@pytest.mark.parametrize("question,missing", [
    ("Maximum Subarray Sum with One Deletion: what if I delete nothing", "Maximum Subarray Sum with One Deletion"),
    ("Maximum Subarray Sum After One Operation gives WA", "Maximum Subarray Sum"),
    ("Maximum Subarray Sum With Length Divisible by K times out", "Maximum Subarray Sum"),
])
def test_the_quantity_followed_by_more_title_words_is_another_problem(base, question, missing):
    found = res(base, question)
    assert (found.problem_id, found.missing_id) == (None, missing)


@pytest.mark.parametrize("question,evidence", [
    ("最长无重复子串长度 用滑动窗口怎么求", "最长无重复子串长度"),
])
def test_a_longest_title_followed_by_its_length_is_that_problem(base, question, evidence):
    assert res(base, question) == Resolution("3", "title", evidence)


# --------------------------------------------------------------------------- how it is asked or solved, after the title


@pytest.mark.parametrize("question,pid,evidence", [
    ("Two Sum Variant with sorted input: can I drop the map", "1", "twosum"),
    ("Two Sum Follow Up: the array is sorted now", "1", "twosum"),
    ("Follow-up to Two Sum: what if the input is a BST", "1", "twosum"),
    ("LRU Cache Implementation in Java: get returns stale values", "146", "lrucache"),
    ("Reverse Linked List Recursively: the head's next is never cleared", "206", "reverselinkedlist"),
    ("Trapping Rain Water Two Pointers: which side do I move", "42", "trappingrainwater"),
    ("Course Schedule Topological Sort never finds the cycle", "207", "courseschedule"),
])
def test_a_title_followed_by_how_it_is_solved_is_that_problem(base, question, pid, evidence):
    assert res(base, question) == Resolution(pid, "title", evidence)


def test_a_title_followed_by_a_word_that_is_no_technique_is_still_another_title(base):
    # "Climbing Stairs Fibonacci" could be a longer title (Fibonacci Number is another problem): left missing.
    found = res(base, "Climbing Stairs Fibonacci question")
    assert (found.problem_id, found.missing_id) == (None, "Climbing Stairs Fibonacci")


# --------------------------------------------------------------------------- 不 / 没有 / 不含 for 无


@pytest.mark.parametrize("question,evidence", [
    ("最长不重复子串 滑动窗口怎么写", "最长不重复子串"),
    ("没有重复字符的最长子串，左指针什么时候移动", "没有重复字符的最长子串"),
    ("不含重复字符的最长子串 哈希表存什么", "不含重复字符的最长子串"),
    ("最长不含重复字符的子字符串 窗口收缩条件写错了", "最长不含重复字符的子字符串"),
])
def test_without_said_as_bu_or_meiyou_is_the_base_title(base, question, evidence):
    assert res(base, question) == Resolution("3", "title", evidence)


@pytest.mark.parametrize("question,missing", [
    ("最长不下降子序列 怎么用二分", "最长不下降子序列"),  # a different problem: 下降 is its own
    ("最长公共子串 和子序列有什么区别", "最长公共子串"),
])
def test_a_negated_title_with_characters_of_its_own_is_another_problem(base, question, missing):
    found = res(base, question)
    assert (found.problem_id, found.missing_id) == (None, missing)


def test_a_counting_title_is_still_another_problem(base):
    assert res(base, "最长递增子序列的个数 计数数组怎么更新") == Resolution(
        None, "title", "最长递增子序列的个数", missing_id="最长递增子序列的个数")


def test_the_count_of_ways_for_coin_change_is_still_another_problem(base):
    assert res(base, "零钱兑换的方案数 为什么要先遍历硬币") == Resolution(
        None, "title", "零钱兑换的方案数", missing_id="零钱兑换的方案数")


# --------------------------------------------------------------------------- verdicts in words, Taiwan's terms


@pytest.mark.parametrize("question", [
    "記憶體超過限制 怎麼辦",  # Taiwan: 記憶體 is 内存 (memory)
    "「記憶體超過限制」是什麼原因",
    "字串比較 指標 一直出錯",  # 字串 is 字符串, 指標 is 指针
    "时间超过限制 怎么办",  # a verdict said in words, mainland
    "内存超过限制 怎么办",
])
def test_a_verdict_or_topic_in_words_is_no_missing_problem(base, question):
    assert res(base, question) == Resolution()


def test_a_traditional_base_title_still_resolves(base):
    # tw2sp would turn 子序列 into 子串行; the title itself is read with plain t2s.
    assert res(base, "最長遞增子序列 二分寫法") == Resolution("300", "title", "最长递增子序列")


def test_a_traditional_longer_title_is_still_another_problem(base):
    assert res(base, "最長遞增子序列的個數 怎麼做") == Resolution(
        None, "title", "最长递增子序列的个数", missing_id="最长递增子序列的个数")


@pytest.mark.parametrize("question,missing", [
    ("搜索插入位置，target 比所有数都大时返回错了", "搜索插入位置"),  # round 8's compound title still counts
    ("合并两个有序数组，从后往前放", "合并两个有序数组"),
])
def test_a_compound_title_without_a_failure_word_is_still_a_title(base, question, missing):
    assert res(base, question) == Resolution(None, "name", missing, missing_id=missing)


@pytest.mark.parametrize("phrase,mainland", [
    ("記憶體超過限制", "内存超过限制"),
    ("陣列越界", "数组越界"),
    ("遞迴太深", "递归太深"),
    ("两数之和", None),  # already mainland: nothing to add
    ("Two Sum", None),
])
def test_mainland_terms(phrase, mainland):
    assert mainland_terms(phrase) == mainland


# --------------------------------------------------------------------------- two titles side by side, what is asked


def test_two_base_titles_joined_by_and_are_not_one_longer_title(base):
    assert res(base, "Two Sum and 3Sum share an idea? both TLE") == Resolution("1", "title", "twosum")


def test_a_base_title_joined_to_words_that_are_no_title_is_still_a_longer_title(base):
    found = res(base, "Two Sum and Sell Stock together")
    assert (found.problem_id, found.missing_id) == (None, "Two Sum and Sell Stock")


@pytest.mark.parametrize("question,pid,evidence", [
    ("《两数之和问题》 哈希表为什么要先查再存", "1", "两数之和问题"),
    ("「接雨水題解」看不懂单调栈那段", "42", "接雨水"),
    ("Beyond Two Sum: the 4Sum version times out", "1", "twosum"),
    ("Two Sum Walkthrough: why check before inserting", "1", "twosum"),
])
def test_a_title_with_what_is_asked_of_it_is_that_problem(base, question, pid, evidence):
    assert res(base, question) == Resolution(pid, "title", evidence)


@pytest.mark.parametrize("question,missing", [
    ("《两数之和 II》 双指针", "两数之和 II"),
    ("《最长递增子序列的个数》 计数怎么合并", "最长递增子序列的个数"),
])
def test_a_quoted_sequel_or_longer_title_is_still_another_problem(base, question, missing):
    assert res(base, question) == Resolution(None, "name", missing, missing_id=missing)


# --------------------------------------------------------------------------- Taiwan's words for base titles and topics


@pytest.mark.parametrize("question", [
    "動態記憶體配置 失敗 回傳 NULL",  # memory allocation
    "鏈結串列 反轉 指標 接錯",  # linked list
    "二元樹 遍歷 順序搞混",  # binary tree
    "副程式 傳參考 沒有改到值",  # subroutine
])
def test_taiwan_terms_tw2sp_leaves_alone_are_topics(base, question):
    assert res(base, question) == Resolution()


@pytest.mark.parametrize("question,pid,evidence", [
    ("二元樹的最大深度 遞迴寫法", "104", "二元樹的最大深度"),
    ("「二元樹的最大深度」 層序也可以嗎", "104", "二元樹的最大深度"),
])
def test_a_base_title_in_taiwan_words_is_that_problem(base, question, pid, evidence):
    assert res(base, question) == Resolution(pid, "title", evidence)


def test_a_sibling_title_in_taiwan_words_is_still_another_problem(base):
    assert res(base, "「二元樹的最小深度」 遞迴") == Resolution(
        None, "name", "二元樹的最小深度", missing_id="二元樹的最小深度")


# --------------------------------------------------------------------------- a word describing the problem before it


@pytest.mark.parametrize("question,pid,evidence", [
    ("Classic Two Sum with a hash map fails on duplicates", "1", "twosum"),
    ("Standard Coin Change dp gives -1 for amount 0", "322", "coinchange"),
    ("Naive Climbing Stairs recursion TLE at n=45", "70", "climbingstairs"),
    ("LeetCode's Two Sum in Rust: borrow checker complains", "1", "twosum"),
    ("经典两数之和 为什么要先查后存", "1", "两数之和"),
    ("原版两数之和 返回下标还是值", "1", "两数之和"),
])
def test_a_describing_word_before_the_title_is_not_part_of_it(base, question, pid, evidence):
    assert res(base, question) == Resolution(pid, "title", evidence)


def test_a_modified_problem_is_still_reported_as_another(base):
    found = res(base, "Modified Coin Change: each coin at most once")
    assert (found.problem_id, found.missing_id) == (None, "Modified Coin Change")
