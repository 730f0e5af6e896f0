"""The programming language a question names in its own words (`quest.prose_language`), round 17.

The questions are our own words, in the shapes students write them: a name inside a Chinese sentence with or without
spaces, a name in brackets, a compiler's name, a version. The negatives are the words that look like a language's
name and are not one: a contest's problem letter C, the English verb "go", JSON, Javadoc, a file name.
"""

from __future__ import annotations

import pytest

from quest.code_language import TIE_ORDER
from quest.prose_language import PREFIX_CHARS, named_languages, prose_language


@pytest.mark.parametrize(("question", "language"), [
    ("I need to read 200000 numbers in Java and Scanner takes longer than the limit", "java"),
    ("java的Scanner读50万个数太慢了", "java"),
    ("26. 删除排序数组中的重复项（Java）：样例全对，提交后超时", "java"),
    ("Java 11 BufferedReader vs Scanner", "java"),
    ("Python 跑 10^7 次循环就超时了", "python"),
    ("用python写的递归dfs，setrecursionlimit 调大了还是崩", "python"),
    ("py3 的 input() 读一百万行很慢", "python"),
    ("[Python] Merge k Sorted Lists with heapq gets TLE", "python"),
    ("pypy3 also times out", "python"),
    ("用C++写的，本地能过", "cpp"),
    ("C++ 用 cin 读入 没加 ios::sync_with_stdio(false) 就超时", "cpp"),
    ("Negative Modulo in C++: my (a - b) % MOD prints a negative number", "cpp"),
    ("compiled with g++ -O2 and it segfaults", "cpp"),
    ("cpp 里 vector 越界不报错吗", "cpp"),
    ("用 C++14 自测，编译成功但直接 Runtime Error", "cpp"),
    ("C/C++ 的 int 到底多大", "cpp"),
    ("C 语言 float price = 0.1 判断相等走了 else", "c"),
    ("C语言 scanf 读字符串越界", "c"),
    ("my program is written in C and the judge says Runtime Error", "c"),
    ("用 C 写的链表，free 之后又访问了", "c"),
    ("Two Sum (C): returnSize 要怎么设置", "c"),
    ("C# List 的 Count 和 Length 有什么区别", "csharp"),
    ("JS 里 0.1 + 0.2 为什么不等于 0.3", "javascript"),
    ("On a kata my path-finding in JavaScript fails in the full test run", "javascript"),
    ("node.js 读 stdin 要怎么写", "javascript"),
    ("TypeScript 的 number 能放下 10^18 吗", "typescript"),
    ("golang 的 map 遍历顺序每次都不一样", "go"),
    ("I wrote it in Go and the slice index panics", "go"),
    ("用go写的二分，right = mid - 1 溢出了", "go"),
    ("Go 要怎么宣告一个空指针", "go"),
    ("Go's append changed my other slice", "go"),
    ("Rust 的 usize 减到负数直接 panic", "rust"),
    ("kotlin IntArray out of bounds", "kotlin"),
    ("The Swift array index is out of range", "swift"),
])
def test_a_named_language_is_read(question, language):
    assert prose_language(question) == language
    assert language in TIE_ORDER  # a name the rest of the ranking knows (quest.code_language)


@pytest.mark.parametrize("question", [
    "I got WA in C, my idea for B passed",  # a contest's problem letter
    "Codeforces Div. 2 C: the greedy fails on test 5",
    "C题的数据范围是多少",
    "let it go, I will try again after the contest",  # the English verb
    "Go to the editorial and read the proof",
    "JSON output has a trailing comma",  # not JS
    "the Javadoc says nextInt skips whitespace",  # not Java
    "my main.cpp is too long to paste",  # a file name only
    "a swift solution with a hash map",  # the adjective
    "Segmentation fault core dumped 怎么查是哪一行",
    "时间超限 TLE 一般怎么优化",
    "",
])
def test_no_language_is_read_from_words_that_only_look_like_one(question):
    assert prose_language(question) is None


@pytest.mark.parametrize("question", [
    "377. 组合总和 Ⅳ：Java 能过，同样的 C++ 代码报错",  # which one is the student's? the one that fails, but said how
    "the same idea passes in Java, but my C++ submission fails",
    "反轉 Linked List：Python 可以直接 previous = None，Go 要怎么宣告？",
    "Python 跑 10^7 次循环就超时了，C++ 同样的写法能过",
])
def test_two_languages_of_different_families_say_nothing_certain(question):
    assert len(named_languages(question)) == 2
    assert prose_language(question) is None


def test_only_the_beginning_of_a_huge_question_is_read():
    assert prose_language("x " * PREFIX_CHARS + "in Java") is None
    assert prose_language("in Java " + "x " * PREFIX_CHARS) == "java"
