"""Round-11 resolution: general mechanisms rather than one more pattern.

- a scored fuzzy title match (`quest.fuzzy_titles`: idf-weighted units in one window, half for the units, half for
  their neighbouring pairs) and a bare base id (`quest.weak_names`) are weak names: they resolve a problem only when
  the search run on the question's own words ranks that problem's documents among the top five, and the search is
  then run again inside the problem (`quest.plan.retrieve`);
- a question opening with a base title with one word swapped names that title's sibling, which the base lacks
  (`quest.sibling_heads`);
- an id label after the words that say what the student does ("做 27. 移除元素 的时候");
- another judge's problem referred to by a word for "problem" and its title ("ZeroJudge 那題括號配對").

Each has the questions it must read and the questions it must leave alone. Questions are our own words, shaped like
the real posts of the development splits. Resolution runs against the starter base, as `quest.plan` does.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from quest.judge_problems import judge_problem
from quest.plan import plan, retrieve
from quest.request import Request
from quest.resolution import Resolution
from quest.retrieval.retriever import Retriever, build_retriever
from quest.settings import Settings
from quest.sibling_heads import opening_phrase, same_title, same_unit, swapped_title
from quest.weak_names import FUZZY_FIRST_FLOOR, FUZZY_FLOOR, WeakName, bare_ids, confirmed, fuzzy_names
from tests.fakes.catalogue import resolved as res
from tests.fakes.retriever import FakeRetriever

ROOT = Path(__file__).resolve().parent.parent

# --------------------------------------------------------------------------- fuzzy title scores


@pytest.mark.parametrize("question,pid,window", [
    # reordered, with words of the student's own inside
    ("求数组里连续子数组和为 K 的方案数：我用 HashMap 存前缀和", "560", "子数组和为 k 的方案数"),
    ("數組中和為 K 的連續子數組有幾個", "560", "和为 k 的连续子数组"),  # traditional characters
    ("count subarrays whose sum equals k with prefix sums", "560", "subarrays whose sum equals k"),
    ("how to detect a cycle in a linked list without extra memory", "141", "cycle in a linked list"),
    ("kth largest element with quickselect, pivot is the first element", "215", "kth largest element"),
])
def test_a_paraphrased_title_scores_its_problem_first(base, question, pid, window):
    names = fuzzy_names(question, base.fuzzy, base.titles)
    assert (names[0].problem_id, names[0].rule, names[0].evidence) == (pid, "title", window)


def test_the_score_weighs_rare_units_and_their_order(base):
    exact = base.fuzzy.scores("和为 K 的子数组", 0.0)[0]
    assert (base.titles[exact.key], exact.score, exact.missing) == ("560", 1.0, ())
    # Every character of 和为K的子数组 is there, but two of its five neighbouring pairs are not: 0.5 + 0.5 * 3/5.
    reordered = base.fuzzy.scores("求数组里连续子数组和为 K 的方案数", 0.0)[0]
    assert (base.titles[reordered.key], reordered.score) == ("560", 0.9)


@pytest.mark.parametrize("question,pid,window", [
    # (the window is 215's `aka` 第K大元素's, round 19: its units are the question's)
    ("数组里第 k 大的数，用小顶堆维护 k 个元素为什么结果不对", "215", "第 k 大"),
    ("出现频率最高的 k 个元素，我用 Counter.most_common 会超时吗", "347", "频率最高的 k 个元素"),
])
def test_a_weaker_paraphrase_must_have_its_problems_document_first(base, question, pid, window):
    assert fuzzy_names(question, base.fuzzy, base.titles) == [WeakName(pid, "title", window, within=1)]
    name = WeakName(pid, "title", window, within=1)
    assert confirmed([name], [pid, None]) == name
    assert confirmed([name], [None, pid]) is None  # second is not enough for a weaker paraphrase


@pytest.mark.parametrize("question", [
    "两个浮点数相加判断等于 0.3 为什么是 False",  # 两数之和 has three units: too short to score
    "求最大公约数和最小公倍数的小程序，输入什么数字都是浮点数异常",
    "Java 陣列只有 Carol 和 Andy 兩個人，我印 people[2] 就出現例外",
])
def test_title_characters_in_an_unrelated_sentence_are_no_weak_name(base, question):
    assert fuzzy_names(question, base.fuzzy, base.titles) == []


@pytest.mark.parametrize("question,pid", [
    ("ZeroJudge 那題括號配對（有小括號跟中括號），我遇到右括號", "20"),  # 括 号 … 有 of 有效的括号, scattered: 0.54
    ("Python 遞迴跑一跑就出現 RecursionError，說超過最大遞迴深度", "104"),  # 最大 … 深度 of 二叉树的最大深度
])
def test_scattered_title_characters_need_the_problems_document_first(base, question, pid):
    assert [(n.problem_id, n.within) for n in fuzzy_names(question, base.fuzzy, base.titles)] == [(pid, 1)]
    assert all(m.score < FUZZY_FLOOR for m in base.fuzzy.scores(question, FUZZY_FIRST_FLOOR))


# --------------------------------------------------------------------------- bare ids


@pytest.mark.parametrize("question,ids", [
    ("My C++ deque solution for 239 keeps values in decreasing order", ["239"]),
    ("239 和 300 我都用单调栈做过", ["239", "300"]),
    ("这题和 322 是一个思路吗", ["322"]),
    ("for 239, I keep indices in the deque", ["239"]),  # a comma and a space after: prose
])
def test_a_bare_base_id_is_a_weak_name(base, question, ids):
    assert bare_ids(question, base.problems) == [WeakName(i, "id", i) for i in ids]


@pytest.mark.parametrize("question", [
    "with k = 239 my loop runs forever",  # a value
    "nums = [1,3,1,2,0,5], k = 3 gives [3,3,3,5]",  # a list, and one digit
    "the values 12,239,300 are sorted",  # a list without spaces
    "test 239 fails with TLE",  # a test's number
    "it takes 239 ms on my machine",  # a size
    "Submit fails at 7/93 on the same input",  # a fraction
    "我的输出是 239，预期 300",  # output and expected values
    "nums 里有 -239",  # a negative number
    "n 是 10^5，用了 3.5 秒",
    "Problem 99999 is not even a number the base has",
])
def test_numbers_that_are_data_are_no_weak_name(base, question):
    assert bare_ids(question, base.problems) == []


def test_the_first_weak_name_the_search_agrees_with_wins():
    names = [WeakName("560", "title", "a"), WeakName("53", "title", "b")]
    assert confirmed(names, ["53", None, "560"]) == names[0]
    assert confirmed(names, [None, None, None, None, None, "560"]) is None  # sixth document: not among the top five
    assert confirmed([], ["560"]) is None


def test_a_weak_name_the_search_confirms_is_searched_again_inside_its_problem():
    retriever = FakeRetriever()
    p = plan(Request(question="deque popleft solution for 239 is still slow, 单调队列 窗口"), retriever)
    assert (p.problem_id, p.resolution, p.extra["weak"]) == (None, Resolution(), (WeakName("239", "id", "239"),))
    after, result = retrieve(retriever, p)
    assert [s.problem_id for s in retriever.searches] == [None, "239"]
    assert (after.problem_id, after.resolution) == ("239", Resolution("239", "id", "239"))
    assert "239" not in after.parts.question  # the id that named the problem leaves the question part
    assert "confirmed_after" in after.extra
    assert result.hits[0].chunk.problem_id == "239"


def test_a_weak_name_the_search_does_not_confirm_resolves_nothing():
    retriever = FakeRetriever()
    p = plan(Request(question="fast input: sys.stdin.buffer.read, see 239"), retriever)
    assert p.extra["weak"] == (WeakName("239", "id", "239"),)
    after, _ = retrieve(retriever, p)
    assert [s.problem_id for s in retriever.searches] == [None]  # searched once, no second search
    assert after.problem_id is None and after.resolution.rule in ("none", "consensus")


def test_a_named_problem_keeps_no_weak_names():
    retriever = FakeRetriever()
    p = plan(Request(question="LC239 solution for 239 is slow"), retriever)
    assert (p.problem_id, p.resolution.rule, p.extra) == ("239", "id", {})
    retrieve(retriever, p)
    assert [s.problem_id for s in retriever.searches] == ["239"]


# --------------------------------------------------------------------------- siblings opening the question


@pytest.mark.parametrize("question,missing", [
    ("top k frequent words: I keep a min-heap of size k with (count, word) tuples", "top k frequent words"),
    ("binary tree zigzag traversal: my queue pops from the wrong end", "binary tree zigzag traversal"),
    ("最长递减子序列：dp 怎么写", "最长递减子序列"),
])
def test_a_head_that_swaps_one_word_of_a_base_title_is_its_missing_sibling(base, question, missing):
    assert res(base, question) == Resolution(None, "name", missing, missing_id=missing)


@pytest.mark.parametrize("question,pid", [
    ("Valid Parenthesis: my stack code fails on ']'", "20"),  # a typo, read by the loose rule
])
def test_a_misspelt_head_is_still_the_base_title(base, question, pid):
    assert res(base, question).problem_id == pid


@pytest.mark.parametrize("question", [
    "kth largest element with quickselect, pivot is always the first element",  # the title and a technique
    "longest substring without repeating letters: sliding window",  # letters for characters
    "top k frequent numbers: heap or bucket sort?",  # numbers for elements
    "how do I read input fast in Java?",  # no title at all
])
def test_a_head_with_a_technique_or_a_generic_word_is_no_sibling(base, question):
    assert res(base, question).missing_id is None


@pytest.mark.parametrize("question,pid,evidence", [
    # One Chinese word said another way: the base title, not its sibling (each was "not in the base").
    ("买卖股票的最好时机：我的 dp 写错了", "121", "买卖股票的最好时机"),
    ("买卖股票的最佳时间：为什么只能买一次", "121", "买卖股票的最佳时间"),
    ("二叉树的最大高度：递归返回什么", "104", "二叉树的最大高度"),
    ("无重复字母的最长子串：滑动窗口左边界怎么动", "3", "无重复字母的最长子串"),
    ("判断二叉搜索树：中序遍历后看是否递增", "98", "判断二叉搜索树"),  # a whole word swapped: 判断 for 验证
])
def test_a_head_with_a_chinese_synonym_is_the_base_title(base, question, pid, evidence):
    assert res(base, question) == Resolution(pid, "title", evidence)


@pytest.mark.parametrize("question", [
    "verify binary search tree: my inorder check fails",  # verify / check for validate
    "check binary search tree: only comparing children is wrong?",
])
def test_a_head_with_an_english_synonym_is_no_sibling(base, question):
    assert res(base, question) == Resolution()


def test_a_head_that_leaves_out_the_array_is_215(base):
    # round 20b: "kth largest element" names 215 before the search (the input's kind left out,
    # `quest.reworded_titles._IMPLIED`); "in a list" after it is a Python list, an array
    question = "kth largest element in a list: heap of size k"
    assert res(base, question) == Resolution("215", "reworded", "kth largest element")


@pytest.mark.parametrize("question,missing", [
    # Opposites a letter or two apart are other problems, not typos: 111 is not 104.
    ("minimum depth of binary tree: my recursion returns 0 for a chain", "minimum depth of binary tree"),
    ("二叉树的最小深度：递归", "二叉树的最小深度"),
    ("merge two sorted arrays: two pointers from the back", None),  # an array is no (linked) list: not 21 either
])
def test_opposites_and_other_structures_are_not_the_base_title(base, question, missing):
    found = res(base, question)
    assert (found.problem_id, found.missing_id) == (None, missing)


@pytest.fixture(scope="module")
def starter(tmp_path_factory: pytest.TempPathFactory) -> Retriever:
    """The starter base, BM25 only."""
    return build_retriever(Settings(kb_dir=ROOT / "knowledge", data_dir=tmp_path_factory.mktemp("data"),
                                    embedding_model="none", show_progress=False))


@pytest.mark.slow
@pytest.mark.parametrize("question,pid,rule,first", [
    ("verify binary search tree: my inorder check fails", "98", "title", "p98-official-en"),  # confirmed by search
    ("kth largest element in a list: heap of size k", "215", "reworded", "p215-explain-en"),  # round 20b
    ("二叉树的最大高度：递归返回什么", "104", "title", "p104-official-zh"),  # the base title, read by its shape
])
def test_a_title_said_another_way_is_answered_from_its_problem(starter, question, pid, rule, first):
    after, result = retrieve(starter, plan(Request(question=question), starter))
    assert (after.problem_id, after.resolution.rule, after.resolution.missing_id) == (pid, rule, None)
    assert (result.hits[0].chunk.doc_id, result.weak) == (first, False)


@pytest.mark.slow
def test_the_minimum_depth_is_not_answered_from_the_maximum_depth(starter):
    question = "minimum depth of binary tree: my recursion returns 0 for a chain"
    after, result = retrieve(starter, plan(Request(question=question), starter))
    missing = "minimum depth of binary tree"
    assert after.resolution == Resolution(None, "name", missing, missing_id=missing)
    assert result.hits and not any(h.chunk.problem_id for h in result.hits)  # general pages only, none of 104's


@pytest.mark.parametrize("mine,theirs,same", [
    ("parenthesis", "parentheses", True),  # one letter
    ("travesal", "traversal", True),  # one letter missing
    ("substirng", "substring", True),  # two letters, nine-letter words
    ("minimum", "maximum", False),  # two letters in seven: no typo
    ("mininum", "maximum", False),
    ("increasing", "decreasing", False),  # two letters in ten, but opposites
    ("ascending", "descending", False),
    ("first", "last", False),
    ("left", "right", False),
    ("verify", "validate", True),
    ("list", "array", True),  # a student's list is the title's array
    ("array", "list", False),  # the title's (linked) list is no array
])
def test_which_english_word_is_the_titles_word_said_another_way(mine, theirs, same):
    assert same_unit([mine], [theirs], 0) is same


def test_a_chinese_synonym_is_read_where_the_swapped_character_sits():
    title = list("买卖股票最佳时机")
    assert same_unit(list("买卖股票最好时机"), title, 5) is True
    assert same_unit(list("买卖股票最佳时间"), title, 7) is True
    assert same_unit(list("买卖股票最差时机"), title, 5) is False  # 最差 is no 最佳
    assert same_unit(list("二叉树最小深度"), list("二叉树最大深度"), 4) is False
    assert same_title(list("二叉树最大高度"), [list("二叉树最小深度"), list("二叉树最大深度")]) == 1
    assert same_title(list("判断二叉搜索树"), [list("验证二叉搜索树")]) == 0
    assert same_title(list("判断二叉平衡树"), [list("验证二叉搜索树")]) is None
    assert swapped_title(list("二叉树最大高度"), [list("二叉树最大深度")]) is None


def test_sibling_heads_compare_units_of_the_same_length_only():
    titles = [["top", "k", "frequent", "element"], ["二", "叉", "树", "最", "大", "深", "度"]]
    assert swapped_title(["top", "k", "frequent", "word"], titles) == 0
    assert swapped_title(["二", "叉", "树", "最", "小", "深", "度"], titles) == 1
    assert swapped_title(["top", "k", "frequent", "element"], titles) is None  # the title itself
    assert swapped_title(["top", "k", "rare", "word"], titles) is None  # two words swapped
    assert swapped_title(["翻", "转", "链", "表"], [["反", "转", "链", "表"]]) is None  # four characters: a synonym
    assert opening_phrase("top k frequent words: I keep") == "top k frequent words"
    assert opening_phrase("no clause mark at all") is None


# --------------------------------------------------------------------------- an id label after a lead-in


@pytest.mark.parametrize("question,pid,evidence,missing", [
    ("做 27. 移除元素 的时候，我在函数最后写了 nums = nums.splice(i)", None, "27.", "27"),
    ("Solving 27. Remove Element: my pointer skips a value", None, "27.", "27"),
    ("今天刷 300. 最长递增子序列，二分写错了", "300", "300.", None),
])
def test_an_id_label_after_what_the_student_does_is_the_id(base, question, pid, evidence, missing):
    assert res(base, question) == Resolution(pid, "id", evidence, missing_id=missing)


@pytest.mark.parametrize("question", [
    "做题的时候 3. 然后我就不会了",
    "写了两种方法：1. 暴力 2. 双指针",
])
def test_a_list_number_after_a_lead_in_is_no_id(base, question):
    found = res(base, question)
    assert (found.problem_id, found.missing_id) == (None, None)


# --------------------------------------------------------------------------- another judge's problem by reference


@pytest.mark.parametrize("question,name", [
    ("ZeroJudge 那題括號配對（有小括號跟中括號），我遇到右括號就直接 st.top()", "ZeroJudge 括號配對"),
    ("洛谷上那道题 滑雪 记忆化搜索超时", "洛谷 滑雪"),
    ("Codeforces problem called Watermelon: my code prints YES for 2", "Codeforces Watermelon"),
])
def test_another_judges_problem_named_by_reference_is_reported(base, question, name):
    assert res(base, question) == Resolution(None, "name", name, missing_id=name)


@pytest.mark.parametrize("question,name", [
    ("洛谷 P1001 A+B 为什么 WA", "洛谷 P1001"),  # by its id
    ("Codeforces 4A Watermelon: my code prints YES for 2", "Codeforces 4A"),
    ("洛谷的题目叫 滑雪，记忆化搜索还是超时", "洛谷 滑雪"),  # a naming word instead of a demonstrative
])
def test_another_judges_problem_by_id_or_naming_word_is_reported(base, question, name):
    found = res(base, question)
    assert (found.problem_id, found.missing_id) == (None, name)


@pytest.mark.parametrize("question,title", [
    ("ZeroJudge 那題括號配對（有小括號跟中括號）", "ZeroJudge 括號配對"),
    ("Codeforces problem called Watermelon: my code", "Codeforces Watermelon"),
    ("codeforces problem Watermelon gets Wrong Answer on test 5", "codeforces Watermelon"),  # the verdict cut off
    # Words of the sentence after "题目" / "problem": no title follows.
    ("洛谷的题目描述看不懂", None),
    ("洛谷那道题的题目描述看不懂", None),
    ("codeforces 的题都很难", None),
    ("Codeforces problem My solution fails on test 3", None),
    ("codeforces problem Wrong Answer on test 3", None),
    ("Codeforces task Time Limit Exceeded with n = 10^5", None),
])
def test_a_referenced_title_is_no_word_of_the_sentence(question, title):
    assert judge_problem(question) == title


@pytest.mark.parametrize("question", [
    "洛谷的题目描述看不懂，样例也看不明白",
    "洛谷那道题的题目描述看不懂",
    "codeforces 的题都很难，有没有入门建议",
    "Codeforces problem My solution fails on test 3",
    "codeforces problem Wrong Answer on test 3, the sum overflows",
])
def test_words_after_a_judges_problem_are_no_missing_problem(base, question):
    assert res(base, question).missing_id is None


@pytest.mark.parametrize("question", [
    "codeforces: I read n into a long long, one submission AC",  # the judge alone
    "AcWing 的题 超时了怎么办",  # a reference word and no title
    "在洛谷做题的时候超时",
])
def test_a_judge_without_a_referenced_title_names_nothing(base, question):
    found = res(base, question)
    assert (found.problem_id, found.missing_id) == (None, None)


# --------------------------------------------------------------------------- one table of Taiwan's words


def test_one_table_of_taiwan_words_serves_the_planner_and_the_search():
    from quest.retrieval.mainland_words import mainland_words
    from quest.taiwan_terms import replace_taiwan_terms
    from quest.topic_words import mainland_terms

    # A word once only in the planner's table (走訪) now reaches the search, and one once only in the search's
    # (堆疊, 溢位) reaches the planner.
    assert mainland_words("二元樹的層序走訪用佇列") == "二叉 二叉树 遍历 队列"
    assert mainland_terms("堆疊溢位") == "栈溢出"
    assert mainland_terms("二元樹的層序走訪") == "二叉树的层序遍历"
    assert replace_taiwan_terms("排序的鏈結串列", spaced=True) == " 有序链表 "  # the longest word first
