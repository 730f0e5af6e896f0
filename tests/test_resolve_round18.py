"""Round 18 resolution: the judge's function name in the student's code names the problem
(`quest.resolution.fallbacks.by_code_function`).

Most questions that name a problem only in their text also paste the code, and LeetCode's code carries the judge's own
name for the problem: `def maxSlidingWindow(self, nums, k)`, `func numIslands(grid [][]byte) int`, `class LRUCache`.
On the twelve development splits 65 questions hold one of the names `problems.yaml` lists, and every one resolves by
its words (or its problem field) to the same problem. Where the words name the problem in a way no rule reads
("第k大元素", "滑窗最大值") the question was searched without its problem, or — for an opening phrase the rules read
as a title ("三数和", "凑零钱") — told that problem is not in the base and searched among the general pages only.

The function name is read only after every rule on the question's words: a problem (or a missing one) named there is
the student's; it also outweighs a name no rule could place and no list of known problems holds. Names that other
well-known problems use (`twoSum`: Two Sum II; `maxProfit`: every stock problem) or that are common helpers of other
problems (`reverseList`, `mergeTwoLists`, `hasCycle`) are not listed, and code holding two problems' names names
neither.

Questions and code are our own words, in the shapes students post.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from quest.errors import KnowledgeBaseError
from quest.kb.documents import Problem
from quest.kb.markdown import load_catalogue
from quest.request import Request
from quest.resolution import Catalogue, Resolution, by_code_function, resolve
from tests.fakes.catalogue import resolved as res


@pytest.mark.parametrize("question,code,pid,name", [
    # The question's words name nothing a rule reads: searched without the problem before.
    # (第k大元素 is 215's `aka` since round 19: a title, read before the code)
    ("第k大 堆 超时", "int findKthLargest(vector<int>& nums, int k) {\n    sort(nums.begin(), nums.end());",
     "215", "findKthLargest"),
    ("滑窗最大值 deque 写法", "func maxSlidingWindow(nums []int, k int) []int {\n    q := []int{}", "239",
     "maxSlidingWindow"),
    ("缓存淘汰 get 之后顺序没更新", "class LRUCache {\n    unordered_map<int, int> pos;", "146", "LRUCache"),
    # Rust's and Ruby's signatures write the name in snake case.
    ("岛屿 dfs 借用检查报错", "impl Solution {\n    pub fn num_islands(mut grid: Vec<Vec<char>>) -> i32 {", "200",
     "num_islands"),
    # C#'s capitalize it.
    ("滑窗最大值 用 LinkedList 当双端队列",
     "public class Solution {\n    public int[] MaxSlidingWindow(int[] nums, int k) {",
     "239", "MaxSlidingWindow"),
    # An opening phrase read as a title the base lacks is a rewording: the code's name outweighs it, and it names the
    # problem first where the words reword its title ("三数和", `tests/test_resolve_reworded18.py`).
    ("三数和 去重之后还是有重复的三元组", "class Solution:\n    def threeSum(self, nums):\n        nums.sort()", "15",
     "threeSum"),
    # (硬币找零 is 322's `aka` since round 19: a title, read before the code)
    ("找零钱 dp 初始化成 0 了，输出总是 0", "def coinChange(self, coins, amount):\n    dp = [0] * (amount + 1)",
     "322", "coinChange"),
])
def test_the_judges_function_name_in_the_code_names_the_problem(base, question, code, pid, name):
    assert res(base, question, code=code) == Resolution(pid, "code", name)


@pytest.mark.parametrize("question,before", [
    ("第k大 堆 超时", Resolution()),
    ("找零钱 dp 初始化成 0 了，输出总是 0", Resolution(None, "name", "找零钱", missing_id="找零钱")),
    # a rewording of the title (round 18's reworded titles) and a well-known alias (322's `aka` 硬币找零, round 19)
    # name it without the code
    ("三数和 去重之后还是有重复的三元组", Resolution("15", "reworded", "三数和")),
    ("硬币找零 dp 初始化成 0 了，输出总是 0", Resolution("322", "title", "硬币找零")),
    ("第k大元素 堆 超时", Resolution("215", "title", "第k大元素")),
])
def test_without_the_code_the_same_words_name_no_base_problem(base, question, before):
    assert res(base, question) == before


@pytest.mark.parametrize("error,pid,name", [
    ('Traceback (most recent call last):\n  File "solution.py", line 7, in maxSlidingWindow\n'
     "IndexError: pop from empty list", "239", "maxSlidingWindow"),
    ("java.lang.ArrayIndexOutOfBoundsException: Index 3 out of bounds for length 3\n  at line 12, Solution.threeSum",
     "15", "threeSum"),
    # a design problem's input line names its class
    ('Time Limit Exceeded\nLast executed input: ["LRUCache","put","put","get"] [[2],[1,1],[2,2],[1]]', "146",
     "LRUCache"),
])
def test_the_judges_output_names_the_function_too(base, error, pid, name):
    assert res(base, "why does this fail", error=error) == Resolution(pid, "code", name)


@pytest.mark.parametrize("question,code,expected", [
    # A problem the words name is the student's: the id, a sequel, a known title the base lacks.
    ("LC 3 my window is wrong", "def threeSum(self, nums):", Resolution("3", "id", "LC 3")),
    ("Course Schedule II returns an empty order",
     "def canFinish(self, n, pre):\n    pass\ndef findOrder(self, n, pre):",
     Resolution(None, "title", "Course Schedule II", missing_id="Course Schedule II")),
    ("环形链表 II 返回入环点不对",
     "ListNode *detectCycle(ListNode *head) {\n  if (!hasCycle(head)) return nullptr;",
     Resolution(None, "title", "环形链表 II", missing_id="环形链表 II")),
    ("最大矩形 用柱状图的方法",
     "int largestRectangleArea(vector<int>& h);\nint maximalRectangle(vector<vector<char>>& m) {",
     Resolution(None, "name", "最大矩形", missing_id="最大矩形")),
    # Two problems' names: neither. A name inside a longer identifier, or one the base does not list: none.
    ("两个函数哪个对", "def maxSubArray(self, nums):\n    pass\ndef climbStairs(self, n):\n    pass", Resolution()),
    ("why wrong", "int myMaxAreaHelper(int a) { return a; }", Resolution()),
    ("why wrong", "bool isValid(string s) {", Resolution()),  # every validator's helper, not only 20's
    ("why wrong", "def twoSum(self, numbers, target):", Resolution()),  # Two Sum II's too
    ("why wrong", "for (int i = 0; i < n; i++) maxArea = max(maxArea, h[i] * w);", Resolution()),  # a variable's name
    # a graph search's cycle check is called hasCycle as often as Linked List Cycle's entry point (q088: 207); the
    # words name 141 reworded (判断 + 链表有环)
    ("判断链表有环 快慢指针 空指针异常", "public boolean hasCycle(ListNode head) {\n    ListNode fast = head.next;",
     Resolution("141", "reworded", "判断链表有环")),
])
def test_the_words_come_first_and_only_one_listed_name_counts(base, question, code, expected):
    assert res(base, question, code=code) == expected


def test_a_name_two_problems_list_names_neither():
    problems = {"1": Problem(id="1", title_en="Alpha Sum", functions=("solve", "alphaSum")),
                "2": Problem(id="2", title_en="Beta Walk", functions=("solve",)),
                "3": Problem(id="3", title_en="Gamma Cache", functions=("GammaCache",))}
    cat = Catalogue(problems)
    assert cat.functions == {"alphaSum": "1", "alpha_sum": "1", "AlphaSum": "1", "GammaCache": "3"}
    assert by_code_function(Request(question="why", code="def solve(self):"), cat) is None
    assert resolve(Request(question="why", code="fn alpha_sum() {}"), cat) == Resolution("1", "code", "alpha_sum")


def test_no_listed_names_no_rule():
    cat = Catalogue({"1": Problem(id="1", title_en="Alpha Sum")})
    assert cat.functions == {}
    assert resolve(Request(question="why", code="def alphaSum(self):"), cat) == Resolution()


def test_the_plan_says_how_it_was_named():
    assert Resolution("239", "code", "maxSlidingWindow").describe() == \
        "problem 239 (by the judge's function name in the code)"
    assert Resolution("239", "code", "maxSlidingWindow").describe("zh") == "题目 239（按代码中评测平台的函数名）"


def test_problems_yaml_lists_functions(tmp_path: Path):
    path = tmp_path / "problems.yaml"
    path.write_text('- id: 239\n  title_en: "Sliding Window Maximum"\n  functions: [maxSlidingWindow]\n',
                    encoding="utf-8")
    assert load_catalogue(path)["239"].functions == ("maxSlidingWindow",)
    path.write_text('- id: 239\n  title_en: "Sliding Window Maximum"\n  functions: ["max sliding window"]\n',
                    encoding="utf-8")
    with pytest.raises(KnowledgeBaseError):
        load_catalogue(path)


def test_the_assistant_says_the_function_named_the_problem(tmp_path):
    from quest.assistant import Assistant
    from quest.events import Notice
    from quest.settings import Settings
    from tests.fakes.retriever import PROBLEMS, FakeRetriever

    retriever = FakeRetriever()
    retriever.problems = {**PROBLEMS, "239": replace(PROBLEMS["239"], functions=("maxSlidingWindow",))}
    assistant = Assistant(Settings(data_dir=tmp_path), retriever, None)
    code = "class Solution:\n    def maxSlidingWindow(self, nums, k):\n        return [max(nums[i:i + k])]"
    events = list(assistant.ask(Request(question="deque 写法为什么超时", code=code, error="Time Limit Exceeded")))
    notices = [e.text for e in events if isinstance(e, Notice) and e.code == "problem"]
    assert notices == ["题目 239（按代码中评测平台的函数名）"]
    assert retriever.searches[-1].problem_id == "239" and retriever.searches[-1].general_only is False
    assert events[-1].stats["plan"]["rule"] == "code"
