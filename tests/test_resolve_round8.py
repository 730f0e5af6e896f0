"""Round-8 resolution rules, with real-looking questions in our own words and the questions each must leave
alone: the id a post names first is its problem; a Chinese title made of everyday words opening the question
is a title when the general documents never put its words side by side; a sentence opening on when it
happened is no title.

Resolution runs against the starter base (its problems and the words of its general documents), as
`quest.plan` does at run time.
"""

import pytest

from quest.resolution import Resolution
from tests.fakes.catalogue import resolved as res

# --------------------------------------------------------------------------- the first id named


@pytest.mark.parametrize("question,missing,evidence", [
    # A sequel's post names the base problem it builds on later, as a comparison.
    ("407. 接雨水 II 是二维的，42 题那种左右双指针还能用吗", "407", "407."),
    ("407 题 接雨水 II，LeetCode 42 的双指针用不上了", "407", "407 题"),
    ("#518 the coin change variant: my 322 题 dp gives too many ways", "518", "#518"),
])
def test_the_id_a_post_names_first_is_its_problem(base, question, missing, evidence):
    assert res(base, question) == Resolution(None, "id", evidence, missing_id=missing)


@pytest.mark.parametrize("question,pid,evidence", [
    ("42 题 接雨水 我的双指针写法，和 407 题有什么关系", "42", "42 题"),
    ("LeetCode 239 slides a window; is 480 题 the same idea?", "239", "LeetCode 239"),
    ("第 322 题 零钱兑换，和 518 题的区别是什么", "322", "第 322 题"),
])
def test_a_base_problem_named_first_is_not_replaced_by_one_named_later(base, question, pid, evidence):
    assert res(base, question) == Resolution(pid, "id", evidence)


def test_a_test_number_before_the_id_still_does_not_count(base):
    assert res(base, "用例 #3 过不了，LeetCode 239 滑动窗口") == Resolution("239", "id", "LeetCode 239")


# --------------------------------------------------------------------------- a compound title of everyday words


@pytest.mark.parametrize("question,title", [
    ("搜索插入位置，我用二分，target 比所有数都大的时候返回错了", "搜索插入位置"),
    ("合并两个有序数组，从前往后放会把 nums1 的数覆盖掉吗", "合并两个有序数组"),
    ("最长公共前缀 横向扫描写法，空数组的时候报错", "最长公共前缀"),
])
def test_a_compound_title_of_everyday_words_opening_the_question_is_reported(base, question, title):
    assert res(base, question) == Resolution(None, "name", title, missing_id=title)


@pytest.mark.parametrize("question", [
    "浮点数比较 0.1+0.2 用 == 判断为什么是假",  # two words a general page uses side by side
    "二维数组 [[0]*m]*n 改一个格子，整列都变了",
    "两个浮点数相加判断等于 0.3 为什么是 False",  # runs on like a clause
    "题目说当 N 为 0 时输入结束，怎么读",  # one-character words: a clause
    "二分查找 边界总是差一，mid 到底加不加一",  # a technique
    "数组越界，下标从 0 还是 1 开始",
])
def test_a_general_question_opening_with_topic_words_is_not_a_missing_problem(base, question):
    found = res(base, question)
    assert (found.problem_id, found.missing_id) == (None, None)


@pytest.mark.parametrize("question,pid", [
    ("滑动窗口最大值 Go 写的，每个窗口都重新找最大值，超时", "239"),
    ("最大子数组和 全是负数的时候输出 0", "53"),
    ("反转链表，递归写法栈溢出", "206"),
])
def test_a_base_title_opening_the_question_is_still_that_problem(base, question, pid):
    found = res(base, question)
    assert (found.problem_id, found.rule, found.missing_id) == (pid, "title", None)


# --------------------------------------------------------------------------- when it happened


@pytest.mark.parametrize("question", [
    "今天做二分查找，边界总是错",
    "最近刷动态规划，状态转移总写不对",
    "刚刚交上去，又是超时",
])
def test_a_sentence_opening_on_when_it_happened_is_no_title(base, question):
    found = res(base, question)
    assert (found.problem_id, found.missing_id) == (None, None)


# --------------------------------------------------------------------------- clauses that opened like titles


@pytest.mark.parametrize("question", [
    "資料量到 1e6 時用 cin 就超時，換 scanf 就過",  # a preposition waiting for its object
    "数据从下标 1 开始读，结果全错",
    "力扣中文站用美国站的账号登录不了，一直提示未知错误",  # the judge's website, not a problem
    "LeetCode account login fails on the CN site",
    "Doing Advent of Code in Rust: my program dies with an overflow panic",  # what the student is doing
    "Working through a DP tutorial: memo table gives stale values",
])
def test_a_clause_or_a_question_about_the_site_is_no_missing_problem(base, question):
    found = res(base, question)
    assert (found.problem_id, found.missing_id) == (None, None)


@pytest.mark.parametrize("question,title", [
    ("Practicing Rotate Array: my copy is off by one", "Rotate Array"),
    ("Solving House Robber: the dp skips the last house", "House Robber"),
])
def test_what_the_student_is_doing_is_left_out_of_the_title(base, question, title):
    assert res(base, question) == Resolution(None, "name", title, missing_id=title)


def test_a_title_with_a_station_in_it_is_still_a_title(base):
    assert res(base, "LeetCode 加油站 贪心为什么从头开始") == Resolution(None, "name", "加油站", missing_id="加油站")


# --------------------------------------------------------------------------- PTA and PAT problems


@pytest.mark.parametrize("question,name", [
    ("PTA 7-1 厘米换算英尺英寸 提交格式错误", "PTA 7-1"),
    ("pta 6-2 多项式求值 段错误", "pta 6-2"),
    ("PAT 甲级 1003 Emergency 最短路只过了一半", "PAT 甲级 1003"),
    ("PAT (Advanced Level) Practice 1010 Radix overflows", "PAT (Advanced Level) Practice 1010"),
    ("PAT A1025 排序 超时", "PAT A1025"),
    ("L1-027 出租 输出格式对不上", "L1-027"),
    ("天梯赛 L2-004 这是二叉搜索树吗 递归建树", "天梯赛 L2-004"),
])
def test_a_pta_or_pat_problem_is_reported_by_its_own_name(base, question, name):
    assert res(base, question) == Resolution(None, "name", name, missing_id=name)


@pytest.mark.parametrize("question", ["结果是 7-1 = 6 吗", "PAT 考试 90 分 怎么练", "第 l1-027 行报错"])
def test_arithmetic_or_an_exam_alone_names_no_pta_problem(base, question):
    found = res(base, question)
    assert (found.problem_id, found.missing_id) == (None, None)


def test_a_description_after_a_judge_is_still_no_title(base):
    found = res(base, "力扣 一道树形 dp 怎么想状态")
    assert (found.problem_id, found.missing_id) == (None, None)


# --------------------------------------------------------------------------- titles opening with 有效 / 有序


@pytest.mark.parametrize("question,title", [
    ("有效的字母异位词 排序后再比较 超时了", "有效的字母异位词"),
    ("有序数组的平方，双指针从两头往中间放", "有序数组的平方"),
])
def test_a_title_opening_with_an_adjective_like_youxiao_is_a_title(base, question, title):
    assert res(base, question) == Resolution(None, "name", title, missing_id=title)


def test_a_base_title_opening_with_youxiao_is_still_that_problem(base):
    found = res(base, "有效的括号 栈为空的时候 pop 报错")
    assert (found.problem_id, found.rule, found.missing_id) == ("20", "title", None)


@pytest.mark.parametrize("question", ["有个数组要排序，一直超时", "有序的话二分就够了吗"])
def test_a_sentence_opening_with_you_is_still_no_title(base, question):
    found = res(base, question)
    assert (found.problem_id, found.missing_id) == (None, None)


# --------------------------------------------------------------------------- "my <Title> solution"


@pytest.mark.parametrize("question,title", [
    ("Why does my Move Zeroes solution fail on [0,0,1]?", "Move Zeroes"),
    ("My solution to Valid Anagram times out on long strings", "Valid Anagram"),
    ("Is there a faster answer to Count Primes than trial division?", "Count Primes"),
])
def test_a_title_after_my_or_a_solution_to_is_reported(base, question, title):
    assert res(base, question) == Resolution(None, "name", title, missing_id=title)


@pytest.mark.parametrize("question", [
    "my Python Code fails on big input",
    "my Segment Tree gives wrong sums",  # a technique
    "my Binary Search loops forever",
    "my C++ Solution gets Runtime Error",
    "Please help me to Understand Recursion",  # an infinitive, not a solution to a problem
    "my Java Scanner is slow",
])
def test_a_language_a_technique_or_a_verb_after_my_or_to_is_no_missing_problem(base, question):
    found = res(base, question)
    assert (found.problem_id, found.missing_id) == (None, None)


def test_a_base_title_after_my_is_that_problem(base):
    found = res(base, "my Two Sum hash map version is wrong")
    assert (found.problem_id, found.missing_id) == ("1", None)


# --------------------------------------------------------------------------- "题目是 <title>，…"


@pytest.mark.parametrize("question,title", [
    ("题目是移动零，我的双指针把顺序弄乱了", "移动零"),
    ("这题叫移动零，交换以后顺序不对", "移动零"),
    ("LeetCode 每日一题：移动零 顺序错了", "移动零"),
])
def test_a_title_said_after_timu_shi_or_a_daily_label_is_reported(base, question, title):
    assert res(base, question) == Resolution(None, "name", title, missing_id=title)


def test_a_base_title_said_after_timu_shi_is_that_problem(base):
    found = res(base, "题目是两数之和，我用哈希表为什么要先查再存")
    assert (found.problem_id, found.missing_id) == ("1", None)


@pytest.mark.parametrize("question", [
    "题目是这样的：给定一个数组，求最大和",
    "题目是要求输出最小值",
    "题目是说输入以 0 结束",
    "这题叫什么名字",
    "题目是英文的看不懂",  # what the student cannot understand, not a name
    "题目是中文的，但样例看不懂",
])
def test_what_the_problem_says_or_is_like_is_no_title(base, question):
    found = res(base, question)
    assert (found.problem_id, found.missing_id) == (None, None)


# --------------------------------------------------------------------------- traditional characters, ZeroJudge


@pytest.mark.parametrize("question,resolution", [
    ("第 283 題 移動零 順序錯了", Resolution(None, "id", "第 283 題", missing_id="283")),
    ("283題 移動零 雙指針", Resolution(None, "id", "283題", missing_id="283")),
    ("第 1 題 兩數之和 用雜湊表", Resolution("1", "id", "第 1 題")),
    ("題目是移動零，順序不對", Resolution(None, "name", "移動零", missing_id="移動零")),
])
def test_ids_and_said_titles_in_traditional_characters(base, question, resolution):
    assert res(base, question) == resolution


@pytest.mark.parametrize("question,name", [
    ("ZeroJudge a001 哈囉 輸出格式錯", "ZeroJudge a001"),
    ("zerojudge d074 電腦教室 RE", "zerojudge d074"),
])
def test_a_zerojudge_problem_is_reported_by_its_own_name(base, question, name):
    assert res(base, question) == Resolution(None, "name", name, missing_id=name)


def test_zerojudge_alone_names_no_problem(base):
    found = res(base, "ZeroJudge 上的 C++ 編譯器版本是多少")
    assert (found.problem_id, found.missing_id) == (None, None)


# --------------------------------------------------------------------------- "on <Title> in <language>", "leetcode's"


@pytest.mark.parametrize("question,title", [
    ("I'm working on Move Zeroes in Java and it fails on [0,1]", "Move Zeroes"),
    ("TLE on Merge k Sorted Lists in C++ with a heap", "Merge k Sorted Lists"),
    ("For leetcode's Move Zeroes my code keeps the zeros in front", "Move Zeroes"),
])
def test_the_language_and_a_possessive_are_left_out_of_the_title(base, question, title):
    assert res(base, question) == Resolution(None, "name", title, missing_id=title)


def test_a_base_title_before_its_language_is_that_problem(base):
    found = res(base, "I'm stuck on Two Sum in Python, the map lookup misses")
    assert (found.problem_id, found.missing_id) == ("1", None)


# --------------------------------------------------------------------------- a base title shortened or reordered


@pytest.mark.parametrize("question,pid", [
    ("最长无重复子串 滑动窗口 left 为什么会往回跳", "3"),
    ("无重复最长子串 用 set 存窗口 超时", "3"),
    ("股票最佳时机 只买卖一次 利润算成负数", "121"),
    ("力扣 最长无重复子串 为什么错", "3"),
    ("岛屿个数 dfs 递归太深爆栈", "200"),  # 个数 for 数量
])
def test_a_base_title_shortened_or_reordered_is_that_problem_not_a_missing_one(base, question, pid):
    found = res(base, question)
    assert (found.problem_id, found.rule, found.missing_id) == (pid, "title", None)


@pytest.mark.parametrize("question,title", [
    ("二叉树的最小深度 递归 只有一边子树的时候错", "二叉树的最小深度"),  # a character of its own (小)
    ("最长公共子串 dp 数组怎么定义", "最长公共子串"),  # 串 is not in 最长公共子序列
    ("最大矩形 单调栈 每一行都算一遍", "最大矩形"),  # too little of 柱状图中最大的矩形
])
def test_another_problem_sharing_a_base_titles_characters_is_still_missing(base, question, title):
    assert res(base, question) == Resolution(None, "name", title, missing_id=title)


# --------------------------------------------------------------------------- English titles written short


@pytest.mark.parametrize("question,pid", [
    ("Implement Trie: startsWith returns true for a missing prefix", "208"),  # without its parenthesis
    ("实现 Trie 的 startsWith 写错了", "208"),
    ("Longest Substring Without Repeating Chars TLE", "3"),  # chars for characters
])
def test_a_base_title_without_its_parenthesis_or_abbreviated_is_that_problem(base, question, pid):
    found = res(base, question)
    assert (found.problem_id, found.rule, found.missing_id) == (pid, "title", None)


def test_a_sequel_of_a_parenthesised_title_is_still_missing(base):
    found = res(base, "Implement Trie II (Prefix Tree) count words equal to")
    assert (found.problem_id, found.missing_id) == (None, "Implement Trie II")


def test_chars_alone_names_no_problem(base):
    found = res(base, "my chars array is too small for the input")
    assert (found.problem_id, found.missing_id) == (None, None)
