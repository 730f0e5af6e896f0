"""How students open a question ("这题递归写法哪里不对", "求助：dp数组怎么初始化", "第二个样例过不了",
"my recursive solution gives wrong answer"): the opening is a clause of the question, never the title of
a problem the base lacks. Questions in our own words, modelled on how forum and Q&A posts begin.

Resolution runs against the starter base (its problems and the words of its general documents), as
`quest.plan` does at run time.
"""


import pytest

from quest.plan import plan
from quest.question_clauses import ends_like_a_clause
from quest.request import Request
from quest.resolution import Catalogue, Resolution, squash
from quest.title_shapes import title_shapes
from tests.fakes.catalogue import resolved as res

# --------------------------------------------------------------------------- general openings: no problem

# Each of these was (or, by the same shape, would have been) read as a missing problem's title.
ZH_OPENINGS = [
    "递归写法哪里不对？输出总是少一个",
    "这题递归写法哪里不对",
    "快排写法哪里错了",  # a technique, then where it goes wrong
    "状态转移方程哪里写错了",
    "大佬们帮忙看看哪里错了",  # asks for help
    "能帮我看看代码吗",
    "谁能解释一下这段代码",
    "有没有大佬帮忙看一下",
    "数组开多大合适",  # asks how much
    "数组大小开多少",
    "到底错在哪",
    "第二个样例过不了",  # the judge's test data by position
    "第二组数据过不了",
    "第三个测试点WA了",
    "只过了一半的点",  # judges the attempt, ends like a clause
    "队列为空的时候怎么办",
    "这种写法会超时吗",  # 写法 is a noun and 超时 a verdict: no task "做X时"
    "大家好，我的代码一直 WA",  # greets
    "小白提问：scanf 和 cin 混用有问题吗",
    "【求助】二维数组越界了吗",
    "求助：dp数组怎么初始化",
    "萌新求助 代码一直WA",
    "为什么这样写会超时",
    "Python 写的二分为什么超时",  # the language, then a technique
    "本地能过提交就报错",
    "小小的疑问",  # names the post, not a problem
    "蓝桥杯练习题 求助",  # a set of problems
    "一个很奇怪的问题：本地和线上结果不一样",
]

EN_OPENINGS = [
    "my recursive solution gives wrong answer",
    "Why does my code get TLE on large input",
    "Recursive Solution Gives Wrong Answer on test 3",
    "Help: dp array initialization",
    "DFS Visits Node Twice",  # a technique's acronym opens a topic
    "Dp Table Initialization",
    "Integer Overflow in Sum",  # a defect's name
    "Null Pointer Exception in Tree",
    "Linked List Reversal Bug",
    "Stack Overflow in my DFS",
    "Wrong Answer on Test Case 5",
    "Confused About Recursion Base Case",  # speaks of the student
    "First Post - Need Advice on DP",
]


@pytest.mark.parametrize("question", ZH_OPENINGS + EN_OPENINGS)
def test_a_general_opening_names_no_problem_and_reports_none_missing(base, question):
    assert res(base, question) == Resolution()


@pytest.mark.parametrize("question", ["状态转移方程哪里写错了", "数组开多大合适", "第二组数据过不了",
                                      "能帮我看看代码吗", "这种写法会超时吗", "DFS Visits Node Twice",
                                      "Linked List Reversal Bug"])
def test_a_general_opening_has_no_title_shape_at_all(question):
    assert title_shapes(question) == []


# --------------------------------------------------------------------------- openings before a real title


@pytest.mark.parametrize("question,pid,evidence", [
    ("求助：接雨水 双指针哪里不对", "42", "接雨水"),
    ("大家好，反转链表写法哪里不对", "206", "反转链表"),
    ("递归写法哪里不对？两数之和我用递归做的", "1", "两数之和"),
    ("小白提问：岛屿数量 dfs 为什么栈溢出", "200", "岛屿数量"),
    ("第二个样例过不了，接雨水", "42", "接雨水"),
    ("C++写的接雨水哪里错了", "42", "接雨水"),
    ("能帮我看看 编辑距离 的dp吗", "72", "编辑距离"),
])
def test_an_opening_before_a_base_title_resolves_that_problem(base, question, pid, evidence):
    assert res(base, question) == Resolution(pid, "title", evidence)


@pytest.mark.parametrize("question,title", [
    ("萌新求助 跳跃游戏 贪心为什么错", "跳跃游戏"),  # the plea is set aside, the title after it is read
    ("【求助】跳跃游戏 II 哪里写错了", "跳跃游戏 II"),
    ("python版 回文数 哪里不对", "回文数"),
    ("用 Java 写的跳跃游戏 为什么超时", "跳跃游戏"),
    ("Python 写的 Jump Game 为什么超时", "Jump Game"),
    ("二叉树的最小深度 哪里写错了", "二叉树的最小深度"),
    ("跳跃游戏这道题贪心哪里错了", "跳跃游戏"),
    ("除了自身以外数组的乘积 不能用除法怎么办", "除了自身以外数组的乘积"),  # 了 inside a title is no clause
    ("Broken Calculator: my greedy from X fails", "Broken Calculator"),
])
def test_an_opening_before_a_missing_title_still_reports_it(base, question, title):
    assert res(base, question) == Resolution(None, "name", title, missing_id=title)


# --------------------------------------------------------------------------- the rule's parts


@pytest.mark.parametrize("phrase,clause", [("队列为空的", True), ("只过了", True), ("拿着", True), ("作业题", True),
                                           ("滑动窗口最大值", False), ("二叉树的最大深度", False)])
def test_a_phrase_ending_on_a_particle_is_a_clause(phrase, clause):
    assert ends_like_a_clause(phrase) is clause


class _StarterRetriever:
    """Only what `quest.plan.plan` asks of a retriever: the catalogue and the whole-question title match."""

    def __init__(self, cat: Catalogue) -> None:
        self.catalogue = cat
        self.problems = cat.problems

    def exact_match(self, question: str):
        return self.problems.get(self.catalogue.titles.get(squash(question), ""))


@pytest.mark.parametrize("question", ["递归写法哪里不对？输出总是少一个", "数组开多大合适", "第二个样例过不了"])
def test_the_plan_of_a_general_opening_searches_the_whole_question_unrestricted(base, question):
    planned = plan(Request(question=question), _StarterRetriever(base)).to_dict()
    assert (planned["problem_id"], planned["rule"], planned["missing_id"]) == (None, "none", None)
    assert planned["resolution"] == "未识别出题目"
    assert planned["parts"]["question"] == question


# --------------------------------------------------------------------------- the problem's number in the question


@pytest.mark.parametrize("question,left", [
    ('无重复字符的最长子串 "abba" 输出 3，预期 2', '"abba" 输出 3，预期 2'),  # 3 is the output, not problem 3
    ("3. 无重复字符的最长子串 abba 输出 3", "abba 输出 3"),  # the marked number names it, the output stays
    ("做 3 无重复字符的最长子串 的时候 abba 错了", "做     的时候 abba 错了"),  # just before the title
    ("第3题 无重复字符的最长子串 abba", "abba"),
])
def test_the_question_part_drops_the_problem_number_only_where_it_names_the_problem(base, question, left):
    planned = plan(Request(question=question), _StarterRetriever(base))
    assert planned.problem_id == "3"
    assert planned.parts.question == left


# --------------------------------------------------------------------------- a two-character title opening the question


@pytest.mark.parametrize("question", ["子集 回溯写完返回的全是空列表", "子集：res.append(path) 之后全是空",
                                      "【求助】子集，为什么要 path.copy()"])
def test_a_two_character_title_set_off_at_the_opening_names_its_problem(base, question):
    assert res(base, question) == Resolution("78", "title", "子集")


@pytest.mark.parametrize("question", ["求子集的时候为什么要 path.copy()", "子集和子序列有什么区别"])
def test_a_two_character_title_inside_a_sentence_is_only_a_word(base, question):
    assert res(base, question) == Resolution()


# --------------------------------------------------------------------------- a misremembered title, a list number


@pytest.mark.parametrize("question,evidence", [
    ("盛水最多的容器 双指针为什么对", "盛水最多的容器"),  # 11's title with two characters swapped
    ("No. 11 盛水最多的容器，两个指针该挪哪一边", "盛水最多的容器"),  # after a list number
    ("Container With the Most Water two pointers", "Container With the Most Water"),
])
def test_a_misremembered_base_title_names_that_problem(base, question, evidence):
    assert res(base, question) == Resolution("11", "title", evidence)


def test_a_list_number_before_a_base_title_is_its_id(base):
    assert res(base, "No.200 岛屿数量 dfs 栈溢出") == Resolution("200", "id", "No.200 岛屿数量 dfs 栈溢出")


@pytest.mark.parametrize("question", ["10 个数 排序 为什么错", "1000 以内的质数 怎么求",
                                      "no. 5 is the sample that fails"])
def test_a_leading_quantity_is_no_list_number(base, question):
    assert res(base, question) == Resolution()
