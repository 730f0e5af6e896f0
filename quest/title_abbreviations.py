"""Abbreviations students use for the words of a title: "Validate BST", "max subarray", "LeetCode LIS".

Only abbreviations that are real and mean one thing in a problem's title are here. Left out on
purpose: "LL" (C++'s `long long` as often as "linked list"), "BT" (binary tree, backtracking, bit),
"DP", "DFS", "BFS" and "2D" (techniques and shapes, no title word of their own).

Two kinds:

- a *part* of a title ("BST" in Validate Binary Search Tree, "max" in Maximum Subarray): the question
  may be read with it spelled out, anywhere in it;
- a *whole* title ("LIS", "LCS"): also the name of a technique ("用 LIS 的思路做套娃信封" is another
  problem), so it counts only where the question names a problem by it ("LeetCode LIS", "《LCS》").
"""

from __future__ import annotations

import re

from quest.sibling_heads import one_unit_apart, same_unit

# abbreviation -> (English, Chinese) as the base's titles spell them
PARTS = {
    "bst": ("Binary Search Tree", "二叉搜索树"),
    "max": ("Maximum", "最大"),
    "min": ("Minimum", "最小"),
    "chars": ("Characters", "字符"),  # "Longest Substring Without Repeating Chars"
    "w/o": ("Without", "无"),  # "Longest Substring w/o Repeating Characters"
}
WHOLE = {
    "lis": ("Longest Increasing Subsequence", "最长递增子序列"),
    "lcs": ("Longest Common Subsequence", "最长公共子序列"),
}
_HAN = re.compile(r"[\u4e00-\u9fff]")


def _pattern(words: dict[str, tuple[str, str]]) -> re.Pattern[str]:
    # A word of its own: not inside an identifier ("maxLen", "min_cost", "BSTIterator") or a call ("max(").
    return re.compile(rf"(?<![A-Za-z0-9_.])({'|'.join(words)})(?![A-Za-z0-9_(])", re.I)


_PARTS = _pattern(PARTS)
_ALL = _pattern({**PARTS, **WHOLE})


def spelled_out(text: str, *, whole: bool = False) -> str | None:
    """`text` with its abbreviations spelled out, in Chinese where a Han character touches them
    ("验证BST" -> "验证二叉搜索树"), else in English; None when it has none. `whole`: also the
    abbreviations of whole titles (only for a name the question gives a problem)."""
    pattern = _ALL if whole else _PARTS
    table = {**PARTS, **WHOLE}

    def spell(m: re.Match[str]) -> str:
        en, zh = table[m.group(1).casefold()]
        around = text[max(0, m.start() - 1):m.start()] + text[m.end():m.end() + 1]
        return zh if _HAN.search(around) else en

    out = pattern.sub(spell, text)
    return out if out != text else None


def sibling_title(units: list[str], titles: list[list[str]]) -> bool:
    """Whether a phrase is a base title with one unit (a Chinese character, an English word) swapped: its sibling
    problem ("二叉树的最小深度" beside 二叉树的最大深度, "Binary Tree Preorder Traversal" beside Inorder). Only
    titles of four units or more: in shorter ones one swap makes an unrelated phrase. A unit that is the title's
    word said another way (`quest.sibling_heads.same_unit`: 最好 for 最佳, a misspelt word) swaps nothing."""
    return len(units) >= 4 and any(not same_unit(units, titles[i], at) for i, at in one_unit_apart(units, titles))


# English titles spell small numbers as words ("Two Sum", "Merge Two Sorted Lists", "Power of Two") or as digits
# ("3Sum", "4Sum"); students write either ("2sum", "merge 2 sorted lists", "three sum").
_NUMBER_WORDS = ("zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten")
_NUMBER = re.compile(r"(?<![A-Za-z0-9])(" + "|".join(_NUMBER_WORDS) + r"|10|[0-9])(?![A-Za-z0-9])|"
                     r"(?<![A-Za-z0-9])([0-9])(?=[A-Z][a-z])", re.I)  # "3Sum": a digit glued to the next word


def number_spellings(title: str) -> tuple[str, ...]:
    """The title with its small numbers written the other way ("Two Sum" -> "2 Sum", "3Sum" -> "three Sum"); empty
    for a title with none, or one that is not English."""
    if not title.isascii() or _NUMBER.search(title) is None:
        return ()

    def other(m: re.Match[str]) -> str:
        said = (m.group(1) or m.group(2)).casefold()
        if said.isdigit():
            return _NUMBER_WORDS[int(said)] + ("" if m.group(1) else " ")
        return str(_NUMBER_WORDS.index(said))

    return (_NUMBER.sub(other, title),)
