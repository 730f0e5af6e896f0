"""Worked examples that fill the form: (labels, question, problem id, language, code, verdict, judge's message)."""

from __future__ import annotations

from typing import NamedTuple

from quest.code_language import AUTO


# Each example leaves the language on "auto": its code says which it is (a test checks), and the field stays free for
# the student's own code afterwards.
class Example(NamedTuple):
    label_zh: str
    label_en: str
    question: str
    problem_id: str
    language: str
    code: str
    verdict: str
    error: str


SLIDING_WINDOW_TLE = Example(
    label_zh="滑动窗口超时（Python）",
    label_en="Sliding window TLE (Python)",
    question="为什么我的滑动窗口最大值代码超时了？",
    problem_id="239",
    language=AUTO,
    code="""class Solution:
    def maxSlidingWindow(self, nums, k):
        window = []
        result = []
        for i, x in enumerate(nums):
            window.append(x)
            if len(window) > k:
                window.pop(0)
            if i >= k - 1:
                result.append(max(window))
        return result
""",
    verdict="TLE",
    error="Time Limit Exceeded\nTest #14: n = 100000, k = 50000\nTime: 2000 ms (limit 1000 ms)",
)

COIN_CHANGE_OVERFLOW = Example(
    label_zh="整数溢出答案错误（C++）",
    label_en="Integer overflow WA (C++)",
    question="Why does test 3 print a huge negative number instead of -1?",
    problem_id="322",
    language=AUTO,
    code="""class Solution {
public:
    int coinChange(vector<int>& coins, int amount) {
        vector<int> dp(amount + 1, INT_MAX);
        dp[0] = 0;
        for (int i = 1; i <= amount; i++)
            for (int c : coins)
                if (c <= i) dp[i] = min(dp[i], dp[i - c] + 1);
        return dp[amount] == INT_MAX ? -1 : dp[amount];
    }
};
""",
    verdict="WA",
    error="Wrong Answer on test 3\nInput: coins = [2], amount = 3\nExpected: -1\nFound: -2147483648",
)

ISLANDS_RECURSION = Example(
    label_zh="递归太深运行错误（Python）",
    label_en="RecursionError (Python)",
    question="本地小数据没问题，提交后运行错误，怎么回事？",
    problem_id="200",
    language=AUTO,
    code="""class Solution:
    def numIslands(self, grid):
        def dfs(r, c):
            if r < 0 or c < 0 or r >= len(grid) or c >= len(grid[0]) or grid[r][c] != "1":
                return
            grid[r][c] = "0"
            dfs(r + 1, c)
            dfs(r - 1, c)
            dfs(r, c + 1)
            dfs(r, c - 1)

        count = 0
        for r in range(len(grid)):
            for c in range(len(grid[0])):
                if grid[r][c] == "1":
                    dfs(r, c)
                    count += 1
        return count
""",
    verdict="RE",
    error="""Runtime Error
Traceback (most recent call last):
  File "solution.py", line 7, in dfs
    dfs(r + 1, c)
  [Previous line repeated 996 more times]
RecursionError: maximum recursion depth exceeded in comparison""",
)

EXAMPLES = (SLIDING_WINDOW_TLE, COIN_CHANGE_OVERFLOW, ISLANDS_RECURSION)


def example_label(example: Example, lang: str) -> str:
    return example.label_zh if lang == "zh" else example.label_en
