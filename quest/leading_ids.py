"""A bare number opening the question, then a problem's title: "371 sum of two integers in C: …".

Students title their posts the way the judge lists problems, number first, often without the dot
("27 移除元素 双指针写错了", "371 sum of two integers in C: runtime error …"). When the number is a base
problem and its title follows, `quest.resolution` already resolves it. When the number is not in the base, the
number is that problem's id, if what follows is a title and not a count of something ("100 numbers in an
array: …", "3 test cases fail: …", "10 个数 排序") — this module tells the two apart by shape.
"""

from __future__ import annotations

import re
import unicodedata

from quest.problem_names import _EN_STOP, _ZH_SENTENCE_START, _ZH_STOP

# The title may end on the language it was written in, "C++" and "C#" included ("701 Insert into a BST in C#: …").
_LEADING_EN = re.compile(r"^\s*([1-9]\d{0,3})\s+([A-Za-z][A-Za-z0-9' ]{2,60}?(?:\+\+|#)?)\s*(?:[:：]|\s[-–—]\s)")
_LEADING_ZH = re.compile(r"^\s*([1-9]\d{0,3})\s*([\u4e00-\u9fff][\u4e00-\u9fffA-Za-z0-9]{1,15})(?=[\s,，:：])")
_IN_LANGUAGE = re.compile(r"\s+(?:in|with|using)\s+(?:c|c\+\+|cpp|java|python3?|go|rust|javascript|js|typescript|ts|"
                          r"c#|kotlin|swift|ruby|php)\s*$", re.I)
# Words after a number that count something: the number is a quantity, not an id.
_UNITS = frozenset((
    "test", "case", "number", "time", "ms", "sec", "second", "minute", "hour", "day", "byte", "kb", "mb", "gb",
    "line", "element", "digit", "node", "edge", "query", "point", "item", "step", "iteration", "operation",
    "submission", "attempt", "way", "more", "less", "out", "of", "bit", "char", "character", "row", "column",
    "x", "by", "to", "and", "or"))
# Chinese after a quantity: a classifier ("10 个数") or an approximation ("1000 以内", "20 多行").
ZH_CLASSIFIERS = frozenset("个只条次位组行秒分年月天毫米兆千万亿倍块元号级层名道题种遍周轮页以多余来几左上下内")


def leading_title(question: str) -> tuple[str, str] | None:
    """(number, title) when `question` opens with a bare number and a title, else None."""
    text = unicodedata.normalize("NFKC", question)
    m = _LEADING_EN.match(text)
    if m:
        title = _IN_LANGUAGE.sub("", m.group(2)).strip()
        words = title.casefold().split()
        n_sum = words[:1] == ["sum"] and len(m.group(1)) == 1  # "4 sum with duplicates" is 4Sum, not problem 4
        if 2 <= len(words) <= 8 and words[0].rstrip("s") not in _UNITS and not words[0].endswith("s") and \
                not n_sum and not any(w in _EN_STOP for w in words):
            return m.group(1), title
        return None
    m = _LEADING_ZH.match(text)
    if m and m.group(2)[0] not in ZH_CLASSIFIERS and m.group(2)[0] not in _ZH_SENTENCE_START and \
            not _ZH_STOP.search(m.group(2)):
        return m.group(1), m.group(2)
    return None
