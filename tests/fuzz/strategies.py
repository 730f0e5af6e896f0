"""Input generators: real-looking fragments mixed with arbitrary text, so the parsers see both
the shapes they were written for and everything in between."""

from __future__ import annotations

from hypothesis import strategies as st

# Arbitrary text, surrogates excluded (they cannot come from a browser or a decoded file).
TEXT = st.text(st.characters(exclude_categories=("Cs",)), max_size=200)
NUMBERS = st.one_of(st.integers(-10, 10**6).map(str), st.just("99999999999999999999999"), st.just("1e309"))


def mixed(fragments: list[str], *, max_parts: int = 30) -> st.SearchStrategy[str]:
    """Text glued together from known fragments, numbers, separators and arbitrary text."""
    part = st.one_of(st.sampled_from(fragments), NUMBERS, st.sampled_from(["\n", " ", ":", "\t", "\r\n"]), TEXT)
    return st.lists(part, max_size=max_parts).map("".join)


JUDGE_FRAGMENTS = [
    "Time Limit Exceeded", "Wrong Answer on test ", "Runtime Error", "Memory Limit Exceeded", "Compile Error",
    "Accepted", "TLE", "WA", "RE", "CE", "MLE", "OLE", "PE", "运行超时", "答案错误", "编译错误", "内存超限",
    "Traceback (most recent call last):\n", '  File "main.py", line ', ", in <module>\n",
    "IndexError: list index out of range",
    "RecursionError: maximum recursion depth exceeded", "main.cpp:", ":5: error: ", "warning: ", "note: ",
    "Main.java:", "Exception in thread \"main\" java.lang.", "NullPointerException", "\tat Main.main(Main.java:",
    ")", "Segmentation fault (core dumped)", "test ", "#", "第", "个测试点",
]

FENCE_FRAGMENTS = ["```", "```python\n", "~~~", "~~~~\n", "````", "\n```\n", "    ```", "x = 1\n", "print(1)\n",
                   "for i in range(n):\n", "    pass\n", "`inline`", "\n", "\r", "\r\n", "```\r"]

CITATION_FRAGMENTS = ["[1]", "[2]", "[9]", "[1, 2]", "[1][3]", "【2】", "[1，2、3]", "[0]", "[99999999999999999999]",
                      "nums[1]", "dp[i][2]", "[1](http://x)", "`a[1]`", "```\n[1]\n```\n", " .", "。", "\n", " "]

YAML_FRAGMENTS = [
    "id: ", "kind: ", "title: ", "lang: ", "problem_id: ", "tags: ", "verdicts: ", "languages: ", "examples: ",
    "problems: ", "windows: ", "start: ", "end: ", "name: ", "problem: ", "Problems: ", "all", "[239, 1]", "239, 1",
    "faq", "official_solution", "error_pattern", "zh", "en", "~", "null", "[~]", "{}", "[]", "- ", "  - ",
    "2026-12-01T09:00:00+08:00", "2026-12-01T12:00:00Z", "2026-12-01", "&a ", "*a", "!!python/object:os.system",
    "!!binary", "'", '"', "|\n", ">\n", "{", "[", "#", "---\n", "...\n", "? ", ": ", "\t", "  ", "\n", "\n  ",
]

XML_FRAGMENTS = [
    "<?xml version=\"1.0\" encoding=\"UTF-8\"?>", "<fps version=\"1.2\">", "</fps>", "<item>", "</item>",
    "<title>", "</title>", "<time_limit unit=\"s\">", "<time_limit unit=\"ms\">", "</time_limit>",
    "<memory_limit unit=\"mb\">", "</memory_limit>", "<description><![CDATA[", "]]></description>",
    "<sample_input>", "</sample_input>", "<sample_output>", "</sample_output>", "<solution language=\"C++\">",
    "</solution>", "<p>", "</p>", "<b>", "<annotation encoding=\"application/x-tex\">", "</annotation>",
    "<!DOCTYPE fps [<!ENTITY a \"aaaa\">]>", "&a;", "&lt;", "&#0;", "&#x1F600;", "<script>", "1", "1.5", "-1",
]
