"""Round-10 resolution rules: the words a sentence puts before or around a title ("For 3sum I tried …",
"Implementing LRU Cache in Python: …", "练习接雨水，…", "今天在力扣做了岛屿数量"), a base title in Taiwan's words inside
the sentence ("二元樹的層序走訪我用…"), a sequel named first, a title with its translation in brackets, ids listed
before "这两题", a leading id before "in C#", and a shortened title set off inside a Chinese sentence.

Each rule has questions it must read as a base problem, questions that name a problem the base lacks (sequels,
longer titles — still reported), and general questions that must name none. Questions are our own words, shaped
like the real posts the development splits were written from. Resolution runs against the starter base, as
`quest.plan` does at run time.
"""

import pytest

from quest.resolution import Resolution
from quest.resolution.catalogue import _named_by_parenthesis
from quest.topic_words import mainland_terms
from tests.fakes.catalogue import resolved as res

# --------------------------------------------------------------------------- English words before a title


@pytest.mark.parametrize("question,pid,evidence", [
    ("For 3sum I wrote three nested loops and a set of sorted triplets, TLE at n = 3000", "15", "3sum"),
    ("Implementing LRU Cache in Java: get() forgets to move the key to the front", "146", "lrucache"),
    ("Regarding Climbing Stairs, is plain recursion acceptable for n = 45?", "70", "climbingstairs"),
    ("Tackling Coin Change greedily gives 3 coins instead of 2", "322", "coinchange"),
    ("Coding Number of Islands in Go, the visited grid is shared between calls", "200", "numberofislands"),
    ("Working on Merge Intervals, my output keeps the overlapping pair", "56", "mergeintervals"),
    ("For Two Sum I stored value -> index and got [0, 0] back", "1", "twosum"),
])
def test_a_preposition_or_activity_before_a_base_title_names_that_problem(base, question, pid, evidence):
    assert res(base, question) == Resolution(pid, "title", evidence)


@pytest.mark.parametrize("question,missing", [
    ("For Two Sum II I moved both pointers at once", "Two Sum II"),
    ("Implementing Course Schedule II with DFS, the order comes out reversed", "Course Schedule II"),
    ("For 3Sum Closest I keep the smallest difference so far", "3Sum Closest"),
    ("For Min Cost Climbing Stairs my dp array is one element short", "Min Cost Climbing Stairs"),
])
def test_a_sequel_or_longer_title_after_those_words_is_still_another_problem(base, question, missing):
    assert res(base, question) == Resolution(None, "title", missing, missing_id=missing)


@pytest.mark.parametrize("question,missing", [
    ("Implementing House Robber with memo still times out", "House Robber"),
    ("For Jump Game I tried every jump length recursively", "Jump Game"),
])
def test_a_missing_problem_after_those_words_is_named_without_them(base, question, missing):
    assert res(base, question) == Resolution(None, "name", missing, missing_id=missing)


@pytest.mark.parametrize("question,missing", [
    ("I was implementing Jump Game with recursion and it times out", "Jump Game"),
    ("I've been tackling House Robber all day, the memo is wrong", "House Robber"),
])
def test_a_missing_title_after_those_verbs_inside_the_sentence_is_named(base, question, missing):
    assert res(base, question) == Resolution(None, "name", missing, missing_id=missing)


@pytest.mark.parametrize("question", [
    "I was implementing quicksort and it recursed forever",
    "For loops in Python are slow, should I switch to numpy?",
    "In Java, Integer == Integer is false above 127",
    "Implementing quicksort: sorted input makes it quadratic",
    "Working with big numbers in C++, long long overflows",
    "Building a 64-bit key from two ints with a << 32 prints garbage",
])
def test_general_questions_opening_with_those_words_name_no_problem(base, question):
    assert res(base, question) == Resolution()


@pytest.mark.parametrize("question,missing", [
    ("Range Sum Query 2D: my prefix sums are off by one row", "Range Sum Query 2D"),
    ("24 Game: my recursion never tries division", "24 Game"),
])
def test_a_title_with_a_bare_or_capitalized_number_is_still_a_title(base, question, missing):
    assert res(base, question) == Resolution(None, "name", missing, missing_id=missing)


# --------------------------------------------------------------------------- Chinese words before a title


@pytest.mark.parametrize("question,pid,evidence", [
    ("练习接雨水，双指针的左右怎么移动", "42", "接雨水"),
    ("刚做完三数之和，去重一直漏", "15", "三数之和"),
    ("二刷合并区间，排序以后边界写错", "56", "合并区间"),
    ("今天在力扣做了岛屿数量，DFS 爆栈", "200", "岛屿数量"),
    ("试了一下零钱兑换，初始化成 0 就全错", "322", "零钱兑换"),
    ("第一次做两数之和，用了两层循环", "1", "两数之和"),
    ("打卡编辑距离 dp 表第一行不会初始化", "72", "编辑距离"),
])
def test_when_and_what_the_student_does_before_a_base_title_make_no_longer_title(base, question, pid, evidence):
    assert res(base, question) == Resolution(pid, "title", evidence)


@pytest.mark.parametrize("question,missing", [
    ("使用最小花费爬楼梯 为什么要多开一位", "使用最小花费爬楼梯"),
    ("练习最长递增子序列的个数，计数数组怎么更新", "最长递增子序列的个数"),
])
def test_a_real_longer_chinese_title_is_still_another_problem(base, question, missing):
    assert res(base, question) == Resolution(None, "title", missing, missing_id=missing)


@pytest.mark.parametrize("question,missing", [
    ("练习跳跃游戏 贪心为什么对", "跳跃游戏"),
    ("在力扣上刷了跳跃游戏，每次取最远", "跳跃游戏"),
    ("二刷打家劫舍 空间怎么压到 O(1)", "打家劫舍"),
])
def test_a_missing_problem_after_a_solving_lead_in_is_named_without_it(base, question, missing):
    assert res(base, question) == Resolution(None, "name", missing, missing_id=missing)


@pytest.mark.parametrize("question", [
    "练习双指针 总是越界",  # a technique practised
    "复习动态规划 状态怎么设计",  # reviewed: was reported as a missing problem "复习动态规划"
    "研究一下单调栈 为什么是 O(n)",
    "在看算法导论 红黑树的删除",  # a book, not a problem
    "复习跳跃游戏 贪心",  # studied: a base title or a topic, never a missing problem
    "刚学C语言，scanf 读不到",
    "今天做二分查找，边界总是差一",
])
def test_general_questions_after_a_lead_in_name_no_problem(base, question):
    assert res(base, question) == Resolution()


def test_a_base_title_after_a_studying_lead_in_is_that_problem(base):
    assert res(base, "复习岛屿数量，DFS 和 BFS 哪个好") == Resolution("200", "title", "岛屿数量")


# --------------------------------------------------------------------------- Taiwan's words inside the sentence


@pytest.mark.parametrize("question,pid,evidence", [
    ("二元樹的層序走訪我用一個佇列，每層分不開", "102", "二叉树的层序遍历"),  # 走訪 = 遍历, glued to the sentence
    ("反轉鏈結串列 用遞迴寫 一直回傳 null", "206", "反轉鏈結串列"),
    ("搜尋旋轉排序陣列 二分的邊界怎麼判", "33", "搜尋旋轉排序陣列"),
    ("滑動視窗最大值 單調佇列 存索引還是值", "239", "滑動視窗最大值"),
    ("和為K的子陣列 字首和 雜湊表", "560", "和为k的子数组"),
    ("LRU 快取 用雙向鏈結串列 put 超過容量", "146", "lru缓存"),
])
def test_a_base_title_in_taiwan_words_inside_the_question_is_that_problem(base, question, pid, evidence):
    assert res(base, question) == Resolution(pid, "title", evidence)


def test_tw2sp_false_friends_never_replace_a_title_plain_t2s_finds(base):
    # tw2sp alone turns 子序列 into 子串行; t2s finds the title first, and the mainland wording undoes it.
    assert res(base, "最長遞增子序列 二分寫法") == Resolution("300", "title", "最长递增子序列")
    assert mainland_terms("最長公共子序列 陣列") == "最长公共子序列 数组"


@pytest.mark.parametrize("question,rule,missing", [
    ("最長遞增子序列的個數 要怎麼算", "title", "最长递增子序列的个数"),
    ("二元樹的層序走訪 II 要從底層往上", "name", "二元樹的層序走訪 II"),
    ("二元樹的最小深度 BFS 要怎麼停", "name", "二元樹的最小深度"),
])
def test_longer_sequel_and_sibling_titles_in_taiwan_words_are_still_other_problems(base, question, rule, missing):
    assert res(base, question) == Resolution(None, rule, missing, missing_id=missing)


def test_false_friends_make_no_title(base):
    # 程序 → 进程, 文件 → 文档 in tw2sp: a general question stays general.
    assert res(base, "我的程序在本機可以跑 上傳文件以後就錯") == Resolution()


# --------------------------------------------------------------------------- a sequel named first


def test_a_sequel_named_first_is_the_problem_a_lowercase_mention_later_is_a_word(base):
    question = "Permutations II: I skip nums[i] == nums[i-1] but [1,1,2] still prints duplicate permutations"
    assert res(base, question) == Resolution(None, "title", "Permutations II", missing_id="Permutations II")


def test_a_base_title_written_as_a_title_after_its_sequel_still_names_it(base):
    question = "Course Schedule II: same graph as Course Schedule but I need the order"
    assert res(base, question) == Resolution("207", "title", "courseschedule")


# --------------------------------------------------------------------------- a title with its translation


@pytest.mark.parametrize("question", [
    "Jump Game（跳跃游戏）我先写递归超时，改成 dp 还是超时",
    "跳跃游戏 (Jump Game) 贪心为什么是对的",
])
def test_a_title_with_its_translation_in_brackets_names_a_problem(base, question):
    assert res(base, question) == Resolution(None, "name", "Jump Game", missing_id="Jump Game")


def test_a_base_title_with_its_translation_is_that_problem(base):
    assert res(base, "Two Sum（两数之和）用哈希表存下标") == Resolution("1", "title", "twosum")


@pytest.mark.parametrize("question", [
    "Linked List（链表）反转的时候丢了节点",
    "Hash Map（哈希表）和 dict 有什么区别",
    "Stack Overflow（栈溢出）怎么解决",
])
def test_a_topic_with_its_translation_names_no_problem(base, question):
    assert res(base, question) == Resolution()


# --------------------------------------------------------------------------- ids listed, an id before "in C#"


def test_ids_listed_before_a_count_of_problems_name_the_first(base):
    assert res(base, "316和1081 这两题我用同一份代码，点测试对，提交就错") == Resolution(
        None, "id", "316和1081 这两题", missing_id="316")
    assert res(base, "70、746 两道题都是爬楼梯，状态有什么不同") == Resolution("70", "id", "70、746 两道题")


def test_two_numbers_that_count_nothing_are_no_ids(base):
    assert res(base, "数组开了 100 和 200 两个，还是越界") == Resolution()


@pytest.mark.parametrize("question,evidence,missing", [
    ("701 Insert into a Binary Search Tree in C#: Submit throws NullReferenceException",
     "701 Insert into a Binary Search Tree", "701"),
    ("371 Sum of Two Integers in C++: negative numbers loop forever", "371 Sum of Two Integers", "371"),
])
def test_a_leading_id_and_title_written_in_c_sharp_or_cpp(base, question, evidence, missing):
    assert res(base, question) == Resolution(None, "id", evidence, missing_id=missing)


def test_a_count_before_c_sharp_is_no_id(base):
    assert res(base, "3 test cases fail in C#: why") == Resolution()


# --------------------------------------------------------------------------- a shortened title inside a sentence


@pytest.mark.parametrize("question,pid,evidence", [
    ("前面的样例都过了，abcba 却算错：最长无重复子串 Python 用字典记下标", "3", "最长无重复子串"),
    ("请看：合并有序链表 递归写法为什么栈溢出", "21", "合并有序链表"),
    ("面试被问到：股票最佳时机 一次交易怎么做", "121", "股票最佳时机"),
])
def test_a_shortened_base_title_set_off_inside_a_sentence_is_that_problem(base, question, pid, evidence):
    assert res(base, question) == Resolution(pid, "title", evidence)


@pytest.mark.parametrize("question", [
    "我的代码在这里：区间合并 排序以后怎么写",  # four characters inside a sentence: as often plain words
    "结果不对：二叉树的遍历 顺序搞反了",  # a topic
])
def test_short_or_topic_phrases_inside_a_sentence_name_no_problem(base, question):
    assert res(base, question) == Resolution()


# --------------------------------------------------------------------------- numbers, "w/o", a long title cut short


@pytest.mark.parametrize("question,pid,evidence", [
    ("Merge 2 Sorted Lists: my dummy node ends up in the answer", "21", "Merge 2 Sorted Lists"),
    ("Find First and Last Position: my upper bound is one too far", "34", "Find First and Last Position"),
    ("Longest Substring w/o Repeating Characters: the window never shrinks", "3",
     "longestsubstringwithoutrepeatingcharacters"),
])
def test_a_base_title_with_digits_an_abbreviation_or_cut_short_is_that_problem(base, question, pid, evidence):
    assert res(base, question) == Resolution(pid, "title", evidence)


@pytest.mark.parametrize("question,missing", [
    ("Merge k Sorted Lists: my heap compares nodes", "Merge k Sorted Lists"),  # one word swapped: 23, not 21
    ("Longest Increasing Path: memo on the grid", "Longest Increasing Path"),  # two words start too many titles
    ("Kth Largest Element in a Stream: heap size stays k", "Kth Largest Element in a Stream"),
])
def test_a_sibling_or_a_title_only_partly_shared_is_still_another_problem(base, question, missing):
    assert res(base, question) == Resolution(None, "name", missing, missing_id=missing)


# --------------------------------------------------------------------------- Taiwan's wording of more titles


@pytest.mark.parametrize("question,pid,evidence", [
    ("合併兩個排序的鏈結串列 遞迴到最後回傳空指標", "21", "合併兩個排序的鏈結串列"),  # 排序的 = 有序
    ("環狀鏈結串列 快慢指標為什麼一定會相遇", "141", "環狀鏈結串列"),  # 環狀 = 环形
    ("實作前綴樹 startsWith 傳空字串要回傳什麼", "208", "實作前綴樹"),  # 實作 = 实现
    ("子集合 回溯 結果有重複", "78", "子集合"),
])
def test_more_titles_in_taiwan_words_are_their_problems(base, question, pid, evidence):
    assert res(base, question) == Resolution(pid, "title", evidence)


@pytest.mark.parametrize("question,evidence", [
    ("Implement Prefix Tree: startsWith on an empty prefix", "implementprefixtree"),
    ("实现前缀树 startsWith 空字符串返回什么", "实现前缀树"),
])
def test_a_title_with_the_other_name_its_brackets_give_is_that_problem(base, question, evidence):
    assert res(base, question) == Resolution("208", "title", evidence)


def test_a_call_like_title_gets_no_second_name():
    assert _named_by_parenthesis("Implement Trie (Prefix Tree)") == "Implement Prefix Tree"
    assert [_named_by_parenthesis(t) for t in ("Pow(x, n)", "Sqrt(x)", "Word Ladder (II)", "A+B (Easy)")] == [None] * 4
