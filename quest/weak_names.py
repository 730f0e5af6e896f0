"""Names of a problem too weak to resolve it alone, confirmed by the search.

The exact rules of `quest.resolution` resolve a problem from a marked id ("#239", "第239题", "LC239") or a title as
written. Two kinds of evidence are left: a bare number that is a base id ("My C++ deque solution for 239 …") and a
title paraphrased with words of the student's own (`quest.fuzzy_titles`: "连续子数组和为 K 的方案数" of 560). Alone
each is a guess — numbers are mostly data ("k = 3", "7/93", "-129"), and a paraphrase may be a general topic's
words. Together with the search they are not: when the question's own words also rank that problem's documents
among the top ones, the student meant it. `quest.plan.retrieve` searches once without a problem, and searches again
inside the first candidate the top documents confirm.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Collection
from dataclasses import dataclass

from quest.fuzzy_titles import FuzzyTitles

# A fuzzy title needs this score (`quest.fuzzy_titles`: half the weighted share of its units in one window, half the
# share of its neighbouring pairs kept). Calibrated on the development splits' questions without a problem field:
# every score at 0.6 or more that no exact rule resolved is the labelled problem's, or a sibling title the
# head-sibling rule reports first ("top k frequent words"); below it, scattered characters ("括号配对（有…" 0.54).
FUZZY_FLOOR = 0.6
# A weaker paraphrase counts only when the search puts its problem's document first: "数组里第 k 大的数" (0.49 of
# 数组中的第K个最大元素), "出现频率最高的 k 个元素" (0.52 of 前 K 个高频元素). Below this, no search makes a name of it.
FUZZY_FIRST_FLOOR = 0.45
# The candidate's documents must be among this many top documents (a document and its translation once).
CONFIRM_TOP = 5
# A bare number names a problem only when it has this many digits or more: 1-digit numbers are nearly always data.
MIN_BARE_DIGITS = 2

# A number standing alone: not part of a word, a decimal, a list or range, an expression, a test position or a size.
_BARE = re.compile(r"(?<![\w.#\[\](){},=<>+\-*/%^:：'\"$])(\d+)(?![\w.\]\[(){}%^*/+\-=<>:：'\"]|,\S)")
_DATA_BEFORE = re.compile(r"(?:[=<>+\-*/%,，:：\[(]|(?<![A-Za-z])(?:test|case|line|char|input|output|expected|got|"
                          r"returns?|gives?|is|are|was|be|of|k|n|m|size|length|len|index|at|to|from|about|than|near)|"
                          r"只有|输出|输入|预期|返回|结果|得到|等于|是|为|第|前|后|有|到|用例|测试点|样例|行)\s*$",
                          re.I)
# The characters before a number that `_DATA_BEFORE` can need: its longest marker and the letter its look-behind reads.
_MARKER_SPAN = 16
_DATA_AFTER = re.compile(r"\s*(?:ms|s\b|mb|kb|gb|%|个|次|位|秒|行|条|组|层|倍|元|号|分|点|题|題|道|ms|bytes?|"
                         r"times?|steps?|elements?|numbers?|items?|nodes?|edges?|cases?|tests?|digits?|lines?|bits?|"
                         r"x\b|\^)", re.I)


@dataclass(frozen=True)
class WeakName:
    problem_id: str
    rule: str  # "id" (a bare number) or "title" (a paraphrased title)
    evidence: str  # the number or the question's words that matched the title
    within: int = CONFIRM_TOP  # the problem's documents must be among this many top documents


def bare_ids(question: str, problems: Collection[str]) -> list[WeakName]:
    """Base ids the question writes as bare numbers, outside any data-like context, in order."""
    text = unicodedata.normalize("NFKC", question)
    out: list[WeakName] = []
    seen: set[str] = set()
    for m in _BARE.finditer(text):
        number = m.group(1).lstrip("0")
        if len(number) < MIN_BARE_DIGITS or number not in problems or number in seen:
            continue
        if _data_before(text, m.start()) or _DATA_AFTER.match(text, m.end()):
            continue
        seen.add(number)
        out.append(WeakName(number, "id", m.group(0)))
    return out


def _data_before(text: str, at: int) -> bool:
    """Whether a data marker ("k =", "test", "输出") ends right before `at`, blanks aside.

    `_DATA_BEFORE` is anchored at the end, and its longest marker ("expected") is 8 characters, so only the last
    _MARKER_SPAN characters before the blanks can hold it (one more for its look-behind): searching the whole
    prefix again for every number made a pasted run of numbers quadratic (review, round 12)."""
    end = at
    while end > 0 and text[end - 1].isspace():  # each blank run is walked once: it precedes one number only
        end -= 1
    return _DATA_BEFORE.search(text[max(0, end - _MARKER_SPAN):end]) is not None


def fuzzy_names(question: str, fuzzy: FuzzyTitles, titles: dict[str, str], limit: int = 2) -> list[WeakName]:
    """The problems whose titles the question paraphrases best, at most `limit` of them; a weaker paraphrase only
    as the best one, and to be confirmed by the first document alone."""
    out: list[WeakName] = []
    for match in fuzzy.scores(question, FUZZY_FIRST_FLOOR):
        if match.score < FUZZY_FLOOR and out:
            break
        pid = titles[match.key]
        if all(w.problem_id != pid for w in out):
            out.append(WeakName(pid, "title", match.text, CONFIRM_TOP if match.score >= FUZZY_FLOOR else 1))
        if len(out) == limit or match.score < FUZZY_FLOOR:
            break
    return out


def confirmed(names: list[WeakName], doc_problems: list[str | None]) -> WeakName | None:
    """The first weak name whose problem has a document among the first documents of the search (`within`)."""
    return next((name for name in names if name.problem_id in doc_problems[:name.within]), None)
