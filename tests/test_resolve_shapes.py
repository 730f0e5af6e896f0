"""Round-5 resolution rules, each with real-looking questions in our own words and with the questions
it must leave alone: Chinese-numeral ids, abbreviated titles, kinds of problems, other judges' problems,
a number before another problem's title, a title before a colon, a title written like a call.

Resolution runs against the starter base (its problems and the words of its general documents), as
`quest.plan` does at run time.
"""


import pytest

from quest.resolution import Resolution
from quest.title_abbreviations import spelled_out
from quest.zh_numbers import zh_number
from tests.fakes.catalogue import resolved as res

# --------------------------------------------------------------------------- Chinese numerals


@pytest.mark.parametrize("numeral,value", [("一", 1), ("十", 10), ("十二", 12), ("二十", 20), ("二十一", 21),
                                           ("一百四十六", 146), ("一百零五", 105), ("一〇四", 104), ("两百", 200)])
def test_chinese_numerals_are_read_as_numbers(numeral, value):
    assert zh_number(numeral) == value


@pytest.mark.parametrize("numeral", ["", "一二十", "百x", "第"])
def test_what_is_not_a_chinese_numeral_reads_as_none(numeral):
    assert zh_number(numeral) is None


@pytest.mark.parametrize("question,pid,evidence", [
    ("力扣第一题两数之和，暴力双循环能过但是很慢", "1", "第一题"),
    ("leetcode 第二十题 括号匹配 栈空的时候怎么办", "20", "第二十题"),
    ("力扣第一百四十六题 get 之后要不要挪到表头", "146", "第一百四十六题"),
    ("第一题两数之和 用哈希表为什么要先查再存", "1", "第一题"),  # no judge, but the title of problem 1 is there
    ("力扣第一題 兩數之和 提交就錯", "1", "第一題"),
])
def test_a_chinese_numeral_id_resolves_like_digits(base, question, pid, evidence):
    assert res(base, question) == Resolution(pid, "id", evidence)


def test_a_chinese_numeral_id_after_leetcode_that_the_base_lacks_is_reported(base):
    assert res(base, "力扣第二十七题 移除元素 双指针写错了") == Resolution(None, "id", "第二十七题", missing_id="27")


@pytest.mark.parametrize("question", [
    "期末作业第一题我一直 WA，输入是多组数据",  # the first problem of a homework, not LeetCode 1
    "第三题的样例我手算都对不上",
    "周赛第二题 双指针 边界怎么处理",
])
def test_a_chinese_numeral_alone_is_just_the_nth_problem_of_something(base, question):
    assert res(base, question).problem_id is None


# --------------------------------------------------------------------------- abbreviations


def test_abbreviations_are_spelled_out_in_the_language_around_them():
    assert spelled_out("Validate BST in C++") == "Validate Binary Search Tree in C++"
    assert spelled_out("验证BST 为什么错") == "验证二叉搜索树 为什么错"
    assert spelled_out("LeetCode LIS", whole=True) == "LeetCode Longest Increasing Subsequence"
    assert spelled_out("LeetCode LIS") is None  # a whole title only where a problem is named
    assert spelled_out("int maxLen = max(a, b); long long LL;") is None  # identifiers, calls, `LL`


@pytest.mark.parametrize("question,pid", [
    ("Validate BST in Go: I only compare each node with its two children", "98"),
    ("验证BST 中序遍历为什么还是错", "98"),
    ("how do I validate a BST without recursion", "98"),
    ("max subarray with Kadane returns 0 for all negative input", "53"),
    ("Sliding Window Max in Java keeps timing out", "239"),
    ("min window substring: my counter never shrinks", "76"),
    ("LeetCode LIS 二分做法为什么答案偏小", "300"),
])
def test_an_abbreviated_title_names_the_base_problem(base, question, pid):
    found = res(base, question)
    assert (found.problem_id, found.rule, found.missing_id) == (pid, "title", None)


@pytest.mark.parametrize("question", [
    "用 LIS 的思路做俄罗斯套娃信封 为什么排序要反着来",  # the technique, another problem
    "BST insert in C: my new node never shows up in the tree",  # a topic
    "max and min of an empty vector crash my program",
])
def test_an_abbreviation_alone_names_no_base_problem(base, question):
    assert res(base, question).problem_id is None


def test_an_abbreviated_title_the_base_lacks_is_still_reported(base):
    found = res(base, "Kth Smallest Element in a BST: my inorder counter is off by one")
    assert (found.problem_id, found.missing_id) == (None, "Kth Smallest Element in a BST")


@pytest.mark.parametrize("question,pid", [
    ("Maximum Subarray with Kadane returns 0 when every number is negative", "53"),
    ("Number of Islands with Union Find: my count never goes down", "200"),
    ("Course Schedule with Kahn gives me an empty order", "207"),
])
def test_a_base_title_with_the_technique_used_is_that_problem(base, question, pid):
    assert res(base, question).problem_id == pid


def test_a_longer_title_with_its_own_words_is_still_another_problem(base):
    found = res(base, "Best Time to Buy and Sell Stock with Cooldown: my dp has three states")
    assert found.missing_id == "Best Time to Buy and Sell Stock with Cooldown"


# --------------------------------------------------------------------------- kinds of problems


@pytest.mark.parametrize("question", [
    "签到题 为什么 WA 了，只是输出 Hello",
    "水题：A+B 多组输入为什么错",
    "模板题 求助 快速幂取模",
    "dp题 总是想不出状态怎么办",
    "這道簽到題我沒印換行會被判錯嗎",
])
def test_a_kind_of_problem_is_no_title(base, question):
    found = res(base, question)
    assert (found.problem_id, found.missing_id) == (None, None)


def test_the_title_after_a_kind_label_is_the_problem_named(base):
    found = res(base, "簽到題 大吉大利今晚吃雞 只要輸出一行字 我沒印換行會被判錯嗎")
    assert found == Resolution(None, "name", "大吉大利今晚吃雞", missing_id="大吉大利今晚吃雞")
    assert res(base, "签到题 两数之和 为什么超时").problem_id == "1"  # a base title after the label


def test_traditional_questions_are_read_with_the_simplified_stop_words(base):
    assert res(base, "這道簽到題我沒印換行會被判錯嗎").missing_id is None
    assert res(base, "輸入沒說有幾組 以 EOF 結束 我的程式只讀一組就結束").missing_id is None
    found = res(base, "回文數 負數為什麼返回 false")  # a missing title is still given back as written
    assert (found.rule, found.missing_id) == ("name", "回文數")


# --------------------------------------------------------------------------- other judges' problems


@pytest.mark.parametrize("question,missing", [
    ("SPOJ TEST (life, the universe and everything): my C answer stops too early", "SPOJ TEST"),
    ("codechef FLOW001 in python gives NZEC", "codechef FLOW001"),
    ("Codeforces Round 900 problem C wrong answer on test 7", "Codeforces Round 900 problem C"),
    ("Codeforces Round #912 (Div. 2) B got hacked, my sort is unstable", "Codeforces Round #912 (Div. 2) B"),
    ("AtCoder ABC 300 G 题解有吗", "AtCoder ABC 300 G"),
    ("abc 312 的 C 题 二分答案一直 WA", "abc 312 的 C 题"),
    ("AtCoder DP contest Frog 2, my loop over k is too slow", "AtCoder DP contest Frog 2"),
    ("剑指 Offer 17 打印从1到最大的n位数 大数怎么处理", "剑指 Offer 17"),
    ("剑指Offer II 001 整数除法 溢出", "剑指Offer II 001"),
    ("面试题 17.10 主要元素 摩尔投票为什么要再数一遍", "面试题 17.10"),
])
def test_another_judges_problem_is_reported_by_its_own_name(base, question, missing):
    assert res(base, question) == Resolution(None, "name", missing, missing_id=missing)


@pytest.mark.parametrize("question", [
    "codeforces: I read n into a long long and it overflows",  # a judge, but no problem named
    "Codeforces Div2 C 思路",  # a class of problems, no contest
    "Codeforces Round 900 rating dropped, is my account fine",
    "SPOJ TLE in Java even with BufferedReader",  # a verdict, not a problem code
    "round 3 of my loop: the array has changed",
])
def test_a_judge_or_contest_without_a_problem_names_none(base, question):
    assert res(base, question).missing_id is None


def test_a_collection_problem_named_by_a_base_title_is_that_problem(base):
    assert res(base, "剑指 Offer 24 反转链表 递归写法栈溢出").problem_id == "206"


# --------------------------------------------------------------------------- a leading number and a title


@pytest.mark.parametrize("question,missing,evidence", [
    ("371 sum of two integers in C: runtime error left shift of negative value", "371", "371 sum of two integers"),
    ("283 Move Zeroes - my swap loses values", "283", "283 Move Zeroes"),
    ("27 移除元素 双指针写错了", "27", "27 移除元素"),
])
def test_a_leading_number_the_base_lacks_before_a_title_is_reported(base, question, missing, evidence):
    assert res(base, question) == Resolution(None, "id", evidence, missing_id=missing)


@pytest.mark.parametrize("question", [
    "100 numbers in an array: why is my sort slow",  # a count of things
    "3 test cases fail: the rest pass",
    "4 sum with duplicates: my set still has repeats",  # 4Sum, not problem 4
    "2 pointers approach: why does it skip pairs",
    "42 is the answer: but the judge says WA",
    "5 minutes of debugging - nothing",
    "10 个数 排序 为什么错",
    "1000 以内的质数 怎么求",
])
def test_a_leading_quantity_is_no_id(base, question):
    assert res(base, question).missing_id is None


def test_a_leading_base_number_with_another_title_names_nothing(base):
    found = res(base, "3 Sum Closest: my pointers skip the best pair")  # 3 is in the base, not this title
    assert (found.problem_id, found.rule) != ("3", "id") and found.missing_id != "3"
    assert res(base, "146 LRU缓存机制 提交后超时").problem_id == "146"  # its own title: that problem


# --------------------------------------------------------------------------- a title before a colon, a call-like title


@pytest.mark.parametrize("question,missing", [
    ("数组中重复的数字：原地交换写法为什么超时", "数组中重复的数字"),  # made of common words, but a phrase set off
    ("链表中倒数第k个节点：快慢指针差一步", "链表中倒数第k个节点"),
    ("Pow(x, n) as x * myPow(x, n - 1): AddressSanitizer says stack-overflow", "Pow(x, n)"),
    ("Sqrt(x): my binary search never stops", "Sqrt(x)"),
])
def test_a_title_set_off_by_a_colon_or_written_like_a_call_is_reported(base, question, missing):
    assert res(base, question) == Resolution(None, "name", missing, missing_id=missing)


@pytest.mark.parametrize("question", [
    "字符串拼接：Java 里用 + 为什么这么慢",  # two words: a topic
    "二维数组的初始化：为什么全是 0",  # ends like a topic
    "整数溢出：怎么提前判断",
    "Max(a, b) is wrong when both are negative",  # the student's own helper
])
def test_a_topic_before_a_colon_or_a_helper_call_is_no_title(base, question):
    assert res(base, question).missing_id is None


def test_a_base_title_before_a_colon_is_that_problem(base):
    assert res(base, "两数之和：哈希表为什么要先查后存").problem_id == "1"


# --------------------------------------------------------------------------- sentences and frames are no names


@pytest.mark.parametrize("question,error", [
    ("做 CSES 上一道树形 dp，加上 lru_cache 之后递归就崩了", ""),  # "一道树形 dp": a description
    ("陣列索引超出範圍是什麼意思 Java 一直跳 ArrayIndexOutOfBoundsException", ""),  # a term asked about
    ("電腦開機就藍屏 要怎麼處理", ""),  # a clause ("…就…")
    ("HackerRank 上数一个整数里有几位数字能整除它本身，带 0 的数就报浮点异常", ""),
    ("类里有个指针成员，析构函数里 delete 了，放进 vector 以后崩了", ""),
    ("gdb says SIGFPE, Arithmetic exception", "Program terminated with signal SIGFPE.\n#0  main () at sol.cc:23\n"
                                              "#1  0x00007f in __libc_start_main () at libc.c:12"),
])
def test_sentences_descriptions_and_debugger_frames_are_not_reported(base, question, error):
    assert res(base, question, error=error).missing_id is None


def test_titles_with_the_words_a_clause_has_elsewhere_still_count(base):
    assert res(base, "下一个排列 为什么要从后往前找").missing_id == "下一个排列"  # "下一个" is a title's word


@pytest.mark.parametrize("question", [
    "Codeforces Round 900 Div. 2 standings look wrong",  # a contest, no problem of it
    "Codeforces Round 900 Standings are frozen",
    "SPOJ NZEC in Python even for the sample",  # a verdict after the judge
    "签到都签不上 怎么办",  # a clause ("…都…")
])
def test_a_contest_a_verdict_or_a_clause_after_a_judge_is_no_problem(base, question):
    assert res(base, question).missing_id is None


@pytest.mark.parametrize("question,missing", [
    ("洛谷入门赛 #13 的 T8 演唱会，最后一个点超时", "洛谷入门赛 #13 的 T8 演唱会"),  # not "problem 13"
    ("力扣周赛 380 第三题 为什么超时", "力扣周赛 380 第三题"),
    ("LeetCode 第 380 场周赛 Q3 TLE", "LeetCode 第 380 场周赛 Q3"),
])
def test_a_chinese_contests_problem_is_reported_by_its_own_name(base, question, missing):
    assert res(base, question) == Resolution(None, "name", missing, missing_id=missing)


def test_a_contest_without_a_problem_names_none(base):
    assert res(base, "周赛 怎么准备 才能稳定三题").missing_id is None
    assert res(base, "洛谷月赛 T2 为什么 WA").missing_id is None  # which month's? no problem is named


@pytest.mark.parametrize("question,pid", [
    ("作业第二题两数之和 为什么错", "1"),  # "第二题" labels the title, it is no part of a longer one
    ("蓝桥杯第三题最长递增子序列 超时", "300"),
])
def test_a_label_ending_in_ti_before_a_base_title_is_no_longer_title(base, question, pid):
    found = res(base, question)
    assert (found.problem_id, found.missing_id) == (pid, None)


# --------------------------------------------------------------------------- siblings, and how it was solved


@pytest.mark.parametrize("question,missing", [
    ("二叉树的最小深度 为什么叶子判断不对", "二叉树的最小深度"),  # one character from 104's title
    ("二叉树的前序遍历 迭代写法 栈里先放右孩子", "二叉树的前序遍历"),
    ("Binary Tree Preorder Traversal iterative version skips nodes", "Binary Tree Preorder Traversal"),
    ("Minimum Depth of Binary Tree: a null child is not a leaf", "Minimum Depth of Binary Tree"),  # not 104
])
def test_a_base_title_with_one_unit_swapped_is_its_sibling_problem(base, question, missing):
    assert res(base, question) == Resolution(None, "name", missing, missing_id=missing)


@pytest.mark.parametrize("question,missing", [
    ("Majority Element with Boyer Moore: my count goes negative", "Majority Element"),
    ("Rotting Oranges BFS: the minute count is one too high", "Rotting Oranges"),
])
def test_a_missing_title_is_reported_without_how_it_was_solved(base, question, missing):
    assert res(base, question).missing_id == missing


@pytest.mark.parametrize("question,pid", [
    ("Longest Increasing Subsequences O(n log n) with bisect", "300"),  # "O(n log n)" is no title word
    ("Kth Largest Element: heap of size k", "215"),  # a close spelling is still that title
])
def test_code_after_a_title_and_close_spellings_still_name_the_base_problem(base, question, pid):
    assert res(base, question).problem_id == pid


@pytest.mark.parametrize("question", [
    "二叉树的遍历 递归和迭代有什么区别",  # shorter than any title: a topic
    "Red Black Tree insertion rotations confuse me",
])
def test_a_topic_near_a_title_is_no_sibling(base, question):
    assert res(base, question).missing_id is None


def test_a_topic_opening_with_an_algorithms_name_is_no_title(base):
    assert res(base, "Dijkstra With Negative Edges gives a wrong answer").missing_id is None
    assert res(base, "Kruskal On A Dense Graph is slow").missing_id is None


@pytest.mark.parametrize("question", [
    "全局数组和局部数组：初始化有什么不同",  # two things compared
    "链表的插入和删除：指针怎么改",
    "二维数组作为参数传递：编译报错",  # ends like a topic
    "图的存储方式：邻接表还是矩阵",
    "动态规划入门：从记忆化搜索开始",
    "十进制转二进制：负数怎么办",
])
def test_a_chinese_topic_headline_before_a_colon_is_no_title(base, question):
    assert res(base, question).missing_id is None


@pytest.mark.parametrize("question", [
    "Linked List Basics: insert at the head",
    "Two Pointer Technique: sorted arrays only?",
    "Common Mistakes in Recursion: the base case",
    "Class Static Variables: LeetCode reuses my object",
    "Debugging Tips: printing to stderr",
    "Graph Representation: adjacency list or matrix",
])
def test_an_english_topic_headline_is_no_title(base, question):
    assert res(base, question).missing_id is None


@pytest.mark.parametrize("question,missing", [
    ("Copy List with Random Pointer: my map misses null", "Copy List with Random Pointer"),  # "with" is part of it
    ("Longest Common Prefix: empty string input", "Longest Common Prefix"),  # "common" is a title's word too
])
def test_titles_with_words_headlines_also_use_are_still_reported(base, question, missing):
    assert res(base, question).missing_id == missing


def test_the_student_is_told_the_other_judges_problem_by_its_name(base):
    found = res(base, "SPOJ TEST: my program stops before the 42")
    assert found.describe("en") == 'problem "SPOJ TEST" is not in the knowledge base'
    assert res(base, "剑指 Offer 17 大数怎么打印").describe("zh") == "题目「剑指 Offer 17」不在知识库中"
    assert res(base, "371 sum of two integers in C: shift error").describe("en") == \
        "problem 371 is not in the knowledge base"
