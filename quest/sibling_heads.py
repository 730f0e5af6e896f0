"""A question that opens with a base title with one word swapped names that title's sibling, which the base lacks.

"top k frequent words: I keep a min-heap …" is not Top K Frequent Elements (347) but its sibling problem; a search
that takes the paraphrase for 347 shows another problem's material. The exact rules read such siblings only in a
title's usual shapes (Title Case, quoted, after a judge); in lowercase, opening the question before a colon or a
comma, nothing read them, and the fuzzy title scores (`quest.fuzzy_titles`) found 347 instead.

The rule is the head's shape plus one comparison: the question's opening phrase (up to its first colon, comma,
question mark, bracket or dash) has as many units as a base title — English word stems, Chinese characters, fillers
left out — and differs from it in exactly one. A slip is not a sibling: an English word a letter away from the
title's ("Parenthesis" for Parentheses; two letters from eight letters on) is a typo unless the two are opposites
("minimum" for maximum is 111, not 104), a generic word for the title's ("letters" for characters, "numbers" for
elements, "verify" for validate) is the same title, and so is a Chinese word students swap for the title's (最好 for
最佳, 高度 for 深度, 字母 for 字符). A Chinese title needs six characters (in four, one swapped character is as
often a synonym: 翻转链表 for 反转链表).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterator, Sequence

from quest.loose_titles import stem

MIN_ENGLISH_UNITS = 4
MIN_CHINESE_UNITS = 6
MIN_SYNONYM_UNITS = 4  # a whole word of `_ZH_SAME_WORDS` swapped: see `same_title`
# The opening phrase ends at the first of these; a longer phrase is a sentence, not a title.
_HEAD_END = re.compile(r"[:：,，?？!！(（\n;；]|\s[-–—]\s")
MAX_HEAD_CHARS = 60
_HAN = re.compile(r"[\u4e00-\u9fff]")


def opening_phrase(text: str) -> str | None:
    """The phrase `text` opens with, up to its first clause mark; None when there is no such mark."""
    m = _HEAD_END.search(text)
    if m is None:
        return None
    head = text[:m.start()].strip()
    return head if 0 < len(head) <= MAX_HEAD_CHARS else None


def _distance(a: str, b: str) -> int:
    """Edit distance between two words, a swap of two neighbouring letters counting as one edit (optimal string
    alignment): "Binray", "Sroted", "Serach" are one slip each, the way they are typed."""
    before: list[int] = []
    previous = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        current = [i]
        for j, cb in enumerate(b, 1):
            cost = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (ca != cb))
            if i > 1 and j > 1 and ca == b[j - 2] and a[i - 2] == cb and ca != cb:
                cost = min(cost, before[j - 2] + 1)
            current.append(cost)
        before, previous = previous, current
    return previous[-1]


# Words that differ by a letter or two and mean the opposite: "minimum depth" is 111, not a typo of 104's "maximum
# depth", and "decreasing" is no misspelt "increasing". Two words of one group are never a slip or the same word, and a
# name with one where a title has the other is never that title however alike their letters (`opposed`, which
# `quest.resolution` asks before its fuzzy name match).
# (Stems, as `quest.loose_titles.stem` leaves them.)
_OPPOSITES = (frozenset(("min", "max")), frozenset(("minimum", "maximum")), frozenset(("minimal", "maximal")),
              frozenset(("increasing", "decreasing", "nondecreasing", "nonincreasing")),
              frozenset(("ascending", "descending")), frozenset(("first", "last")), frozenset(("left", "right")),
              frozenset(("largest", "smallest")), frozenset(("longest", "shortest")), frozenset(("upper", "lower")),
              frozenset(("prefix", "suffix")), frozenset(("even", "odd")), frozenset(("before", "after")),
              frozenset(("start", "end")), frozenset(("head", "tail")), frozenset(("top", "bottom")),
              frozenset(("insert", "delete", "remove")), frozenset(("union", "intersection")),
              frozenset(("inorder", "preorder", "postorder")), frozenset(("row", "column")))


def _opposite(a: str, b: str) -> bool:
    return any(a in group and b in group for group in _OPPOSITES)


def opposed(units: Sequence[str], theirs: Sequence[str]) -> bool:
    """Whether a word only `units` have and a word only the title's `theirs` have are opposites: "Longest Decreasing
    Subsequence" is no Longest Increasing Subsequence (300), however alike their letters."""
    mine, their = {stem(u) for u in units}, {stem(u) for u in theirs}
    return any(_opposite(a, b) for a in mine - their for b in their - mine)


def _slip(a: str, b: str) -> bool:
    """One English word misspelled for another: one edit apart, both of five letters or more (two edits only from
    eight letters on: "mininum" is no typo of "maximum"), and not a pair of opposites."""
    shorter = min(len(a), len(b))
    allowed = 2 if shorter >= 8 else 1
    if shorter < 5 or abs(len(a) - len(b)) > allowed or _opposite(a, b):
        return False
    return _distance(a, b) <= allowed


# Generic words students use for a title's own, word stems as `quest.loose_titles.stem` leaves them:
# "longest substring without repeating letters" is 3, "top k frequent numbers" is 347, "verify binary search tree"
# is 98. Nouns that name a different structure are not swapped here ("merge two sorted arrays" is not 21's linked
# lists), except the other way round below.
_SAME_WORDS = (frozenset(("character", "letter", "char")),
               frozenset(("element", "number", "integer", "item", "value", "num", "int")),
               frozenset(("validate", "verify", "check")))
# A student's word for the title's that holds one way only: Python's list and C++'s vector are arrays ("kth largest
# element in a list" is 215), but a title's (linked) list is no array.
_READ_AS = frozenset((("list", "array"), ("vector", "array")))
# Chinese words students swap for a title's own, compared where the swapped character sits: 买卖股票的最好时机 /
# 最佳时间 are 121, 二叉树的最大高度 is 104, 无重复字母的最长子串 is 3.
# 翻转 and 反转 are one verb in titles: LeetCode-cn itself titles 226 翻转二叉树 and 206 反转链表, and 151 was once
# 翻转字符串里的单词; students write either for either ("翻转链表", "反转二叉树").
_ZH_SAME_WORDS = (frozenset(("最好", "最佳", "最优")), frozenset(("时机", "时间")), frozenset(("高度", "深度")),
                  frozenset(("字母", "字符")), frozenset(("验证", "判断", "检查", "检验")), frozenset(("反转", "翻转")))


def zh_synonym_spellings(units: Sequence[str]) -> list[list[str]]:
    """Chinese title units with one whole word of `_ZH_SAME_WORDS` replaced by another of its group, of the same
    length ("链表翻转" -> 链表反转); none for other text."""
    if not units or not all(_HAN.match(u) for u in units):
        return []
    mine = "".join(units)
    found: list[list[str]] = []
    for group in _ZH_SAME_WORDS:
        for ours in group:
            at = mine.find(ours)
            if at < 0:
                continue
            found.extend(list(mine[:at] + word + mine[at + len(ours):]) for word in sorted(group)
                         if word != ours and len(word) == len(ours))
    return found


def _same_word(a: str, b: str) -> bool:
    return _slip(a, b) or (a, b) in _READ_AS or any(a in group and b in group for group in _SAME_WORDS)


def _same_zh_word(mine: Sequence[str], theirs: Sequence[str], at: int) -> bool:
    """Whether the character swapped at `at` sits in a Chinese word of `_ZH_SAME_WORDS` that the title's own
    characters spell as another word of the same group."""
    for group in _ZH_SAME_WORDS:
        for word in group:
            for start in range(max(0, at - len(word) + 1), at + 1):
                ours = "".join(mine[start:start + len(word)])
                if ours == word or ours not in group:
                    continue
                if "".join(theirs[start:start + len(word)]) == word:
                    return True
    return False


def _one_swapped(units: Sequence[str], titles: Sequence[Sequence[str]]) -> list[tuple[int, bool]]:
    """Each title `units` differ from in exactly one unit, with whether that unit is the same word (a slip, a generic
    word, a synonym); none for a phrase too short to tell."""
    han = bool(units) and all(_HAN.match(u) for u in units)
    if len(units) < (MIN_CHINESE_UNITS if han else MIN_ENGLISH_UNITS):
        return []
    return [(i, same_unit(units, titles[i], at)) for i, at in one_unit_apart(units, titles)]


def one_unit_apart(units: Sequence[str], titles: Sequence[Sequence[str]]) -> Iterator[tuple[int, int]]:
    """(title index, position) for each title of `units`' length that differs from them in exactly one unit."""
    for i, theirs in enumerate(titles):
        if len(theirs) != len(units):
            continue
        diff = [at for at, (a, b) in enumerate(zip(units, theirs, strict=True)) if a != b]
        if len(diff) == 1:
            yield i, diff[0]


def same_unit(units: Sequence[str], theirs: Sequence[str], at: int) -> bool:
    """Whether the unit at `at`, where `units` differ from the title's `theirs`, is the title's word said another way:
    a Chinese synonym, an English slip or generic word (English units as word stems or whole words)."""
    if _HAN.match(units[at]):
        return _same_zh_word(units, theirs, at)
    return _same_word(stem(units[at]), stem(theirs[at]))


def swapped_title(units: Sequence[str], titles: Sequence[Sequence[str]]) -> int | None:
    """The index of the title `units` differ from in exactly one word that is not the same word; None if none, or if
    `units` are some title with one word said another way (`same_title`)."""
    found = _one_swapped(units, titles)
    if any(same for _, same in found):
        return None
    return found[0][0] if found else None


def same_title(units: Sequence[str], titles: Sequence[Sequence[str]]) -> int | None:
    """The index of the title `units` spell with one word said another way ("二叉树的最大高度" for 二叉树的最大深度,
    "判断二叉搜索树" for 验证二叉搜索树, "verify binary search tree"); None if none."""
    found = next((i for i, same in _one_swapped(units, titles) if same), None)
    if found is not None or len(units) < MIN_SYNONYM_UNITS or not all(_HAN.match(u) for u in units):
        return found
    # A whole word swapped: both its characters differ (判断 / 验证). Unlike one swapped character, a listed word
    # said another way is the same title at any length from four characters ("翻转链表" is 反转链表, 206).
    mine = "".join(units)
    spelled = {"".join(theirs): i for i, theirs in reversed(list(enumerate(titles))) if len(theirs) == len(units)}
    for group in _ZH_SAME_WORDS:
        for ours in group:
            at = mine.find(ours)
            for word in (w for w in group if at >= 0 and w != ours and len(w) == len(ours)):
                title = mine[:at] + word + mine[at + len(ours):]
                if title in spelled:
                    return spelled[title]
    return None


# The structures a Chinese title's task is done to. Doing a base title's task to another one is another problem:
# 反转链表 (206) is in the base, 反转二叉树 (226), 反转字符串 (344) and 整数反转 (7) are not; 合并两个有序链表 (21)
# is, 合并两个有序数组 (88) is not. Students mix up 子串 / 子数组 / 子序列 in the titles they remember, and 树 or 图
# alone close compound names (前缀树, 字典树), so none of those counts. Words as `quest.topic_words` splits them:
# 二叉搜索树 and 单链表 come in parts (二叉 搜索 树, 单链 表), so they are never one structure word here.
_ZH_STRUCTURES = frozenset(("链表", "二叉树", "数组", "字符串", "整数", "数字", "矩阵", "栈", "队列", "列表"))


def structure_swapped(words: Sequence[str], titles: Sequence[Sequence[str]]) -> int | None:
    """The index of the Chinese title whose words `words` are, in any order, with one structure word swapped for
    another ("反转二叉树", "整数反转" against 反转链表); None if none. Words as `quest.topic_words` splits them."""
    mine = Counter(words)
    if len(mine) < 2 or not any(w in _ZH_STRUCTURES for w in mine):
        return None
    for i, theirs in enumerate(titles):
        if len(theirs) != len(words):
            continue
        ours_only, theirs_only = mine - Counter(theirs), Counter(theirs) - mine
        if ours_only.total() == 1 and theirs_only.total() == 1 and \
                next(iter(ours_only)) in _ZH_STRUCTURES and next(iter(theirs_only)) in _ZH_STRUCTURES:
            return i
    return None


def reordered_title(words: Sequence[str], titles: Sequence[Sequence[str]]) -> int | None:
    """The index of the Chinese title made of exactly `words` in another order ("链表反转" for 反转链表, "数量岛屿"
    would be 岛屿数量); None if none. Two words or more: one word is a topic as often as a title."""
    mine = Counter(words)
    if mine.total() < 2:
        return None
    return next((i for i, theirs in enumerate(titles) if list(theirs) != list(words) and Counter(theirs) == mine), None)
