"""A question that opens with a base title with one word swapped names that title's sibling, which the base lacks.

"top k frequent words: I keep a min-heap …" is not Top K Frequent Elements (347) but its sibling problem; a search
that takes the paraphrase for 347 shows another problem's material. The exact rules read such siblings only in a
title's usual shapes (Title Case, quoted, after a judge); in lowercase, opening the question before a colon or a
comma, nothing read them, and the fuzzy title scores (`quest.fuzzy_titles`) found 347 instead.

The rule is the head's shape plus one comparison: the question's opening phrase (up to its first colon, comma,
question mark, bracket or dash) has as many units as a base title — English word stems, Chinese characters, fillers
left out — and differs from it in exactly one. A slip is not a sibling: an English word a letter or two away from the
title's ("Parenthesis" for Parentheses) is a typo, a generic word for the title's ("letters" for characters,
"numbers" for elements) is the same title, and a Chinese title needs six characters (in four, one swapped
character is as often a synonym: 翻转链表 for 反转链表).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

MIN_ENGLISH_UNITS = 4
MIN_CHINESE_UNITS = 6
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


def _slip(a: str, b: str) -> bool:
    """Two English words at most two edits apart, both of five letters or more: one word misspelled."""
    if min(len(a), len(b)) < 5 or abs(len(a) - len(b)) > 2:
        return False
    previous = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        current = [i]
        for j, cb in enumerate(b, 1):
            current.append(min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (ca != cb)))
        previous = current
    return previous[-1] <= 2


# Generic words students use for a title's own, word stems as `quest.loose_titles.stem` leaves them:
# "longest substring without repeating letters" is 3, "top k frequent numbers" is 347. Nouns that name a different
# structure ("array" / "list": Merge Two Sorted Lists is not Merge Sorted Array) are not swapped here.
_SAME_WORDS = (frozenset(("character", "letter", "char")),
               frozenset(("element", "number", "integer", "item", "value", "num", "int")))


def _same_word(a: str, b: str) -> bool:
    return _slip(a, b) or any(a in group and b in group for group in _SAME_WORDS)


def swapped_title(units: Sequence[str], titles: Sequence[Sequence[str]]) -> int | None:
    """The index of the title `units` differ from in exactly one unit (not a slip); None if none."""
    han = bool(units) and all(_HAN.match(u) for u in units)
    if len(units) < (MIN_CHINESE_UNITS if han else MIN_ENGLISH_UNITS):
        return None
    for i, theirs in enumerate(titles):
        if len(theirs) != len(units):
            continue
        diff = [(a, b) for a, b in zip(units, theirs, strict=True) if a != b]
        if len(diff) == 1 and not _same_word(*diff[0]):
            return i
    return None
