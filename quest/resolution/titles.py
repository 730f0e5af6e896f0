"""Rule ``title``: a base title in the question as written, written loosely, abbreviated or in Taiwan's words,
or a title the question names after a judge or marker, unless it is part of a sequel or a longer title (then that one
is reported missing); and another judge's or collection's problem (`by_judge_problem`)."""

from __future__ import annotations

import re
import unicodedata

from quest.judge_problems import judge_problem
from quest.problem_names import (
    VERDICT_WORDS,
    NamedTitle,
    as_written,
    longer_title,
    named_title,
    normalize,
    sequel_after,
)
from quest.request import Request
from quest.resolution.catalogue import Catalogue
from quest.resolution.misremembered import _reworded_base_title
from quest.resolution.result import Resolution
from quest.resolution.words import _TITLE_FILLERS, _sequel_shown, _squash_positions, _units, squash
from quest.retrieval.mainland_words import is_traditional
from quest.sibling_heads import opposed
from quest.title_abbreviations import sibling_title, spelled_out
from quest.title_shapes import opening
from quest.topic_words import mainland_terms


def by_title(request: Request, cat: Catalogue) -> Resolution | None:
    """A base title inside the question; or the title it names after a judge or marker ("力扣 <title>",
    《title》, "题目：<title>") — reported as not in the base when no base title is that one."""
    name = named_title(request.question)
    if name is not None and not name.bounded:  # "Majority Element with Boyer Moore: …"
        name = NamedTitle(without_technique(name.text, cat), name.bounded, name.marked)
    if name is not None and name.bounded:  # 《…》 or quoted: its edges are known, so judge it first
        return _by_name(name, cat)
    found = _title_inside(request.question, cat) or _loose_title(request.question, cat) or _spelled_title(request, cat)
    if found is None and name is not None:
        named = _by_name(name, cat)
        return None if named is not None and named.missing_id and _topic_name(name, cat) else named
    return found


def by_taiwan_title(request: Request, cat: Catalogue) -> Resolution | None:
    """A base title written in Taiwan's words inside the question ("二元樹的層序走訪我用…" is 102, "反轉鏈結串列" 206):
    the question's mainland wording (`quest.topic_words.mainland_terms`, OpenCC tw2sp) is searched for titles only
    after every rule on its plain t2s form found none, so tw2sp's false friends (程序 → 进程, 文件 → 文档) never
    replace what t2s finds; the search itself keeps t2s."""
    if not is_traditional(request.question):  # simplified text has no Taiwan wording, only false friends to make
        return None
    mainland = mainland_terms(request.question)
    return _title_inside(mainland, cat) or _loose_title(mainland, cat) if mainland else None


def _spelled_title(request: Request, cat: Catalogue) -> Resolution | None:
    """A base title the question abbreviates ("validate a BST", "max subarray"; `quest.title_abbreviations`).
    Only a base problem counts here: the spelled-out words were not written, so they report nothing missing."""
    spelled = spelled_out(request.question)
    found = (_title_inside(spelled, cat) or _loose_title(spelled, cat)) if spelled else None
    return found if found is not None and found.problem_id is not None else None


def _title_key(text: str, cat: Catalogue) -> str | None:
    """The base title key a named title is, as written or with its abbreviations spelled out ("Validate BST")."""
    spelled = spelled_out(text, whole=True)
    key = next((k for k in (squash(text), squash(spelled or "")) if k and k in cat.titles), None)
    if key is None and squash(text) in cat.spelled:
        key = squash(cat.spelled[squash(text)][1])  # "2 Sum" spells Two Sum: that title's key
    return key


def _topic_name(name: NamedTitle, cat: Catalogue) -> bool:
    """"Quick Sort: …", "Iterator Invalidation - …", "Codeforces Div2 C": a topic's name, not a title."""
    return cat.topics is not None and cat.topics.is_topic(name.text, marked=True)


# The mentions of one title read for a longer or sequel title: each reads the text before it (`_other_title`), so a
# paste repeating the title 3 000 times took a second (27 KB), 6 000 times four. A question names it a few times.
MAX_TITLE_SPANS = 32


def _title_inside(question: str, cat: Catalogue) -> Resolution | None:
    """The longest base title the question contains, unless a sequel marker follows it ("课程表 II" is
    problem 210, not 207): then that other problem is reported as not in the base."""
    text, where = _squash_positions(normalize(question))
    if not text:
        return None
    written = as_written(question)
    best: tuple[int, str, str] | None = None
    other: str | None = None  # the longer or sequel title the question names instead
    for key, pid in (*cat.titles.items(), *((k, v[0]) for k, v in cat.spelled.items())):
        if key not in text or (best is not None and len(key) <= best[0]):
            continue
        if key in cat.weak and key != text and not (key in cat.short and _opens_with(question, key)):
            continue
        spans = [(where[m.start()], where[m.start() + len(key) - 1] + 1) for m in re.finditer(re.escape(key), text)]
        spans = [(start, end) for start, end in spans if not _in_identifier(written, start, end)][:MAX_TITLE_SPANS]
        if not spans:
            continue
        shown = cat.shown.get(key) or (cat.spelled[key][1] if key in cat.spelled else key)
        names = [_other_title(written, start, end, shown, cat) for start, end in spans]
        if _sequel_first(written, spans, names):
            names = [names[0], *(name for (start, end), name in zip(spans[1:], names[1:], strict=True)
                                 if not written[start:end].islower())]
        if any(name is None for name in names):  # a number spelled the other way: the evidence as written
            best = (len(key), written[spans[0][0]:spans[0][1]] if key in cat.spelled else key, pid)
        elif other is None:
            other = names[0]
    if best is not None:
        return Resolution(best[2], "title", best[1])
    return Resolution(None, "title", other, missing_id=other) if other else None


def _sequel_first(written: str, spans: list[tuple[int, int]], names: list[str | None]) -> bool:
    """"Permutations II: … gives duplicate permutations": a sequel is named first, so the base title said later in
    lowercase is a word of the sentence, not a second problem named. A later title written as one still names the
    base problem ("Course Schedule II or Course Schedule", "课程表 II 和课程表有什么区别")."""
    return names[0] is not None and sequel_after(written.casefold(), spans[0][1]) is not None


def _opens_with(question: str, key: str) -> bool:
    """The question opens with the short title `key`, set off by a space or a punctuation mark ("子集 回溯…",
    "【求助】子集：…"): the student names the problem. Inside a sentence ("求子集的时候") it is only a word."""
    text = opening(unicodedata.normalize("NFKC", question))
    if squash(text[:len(key)]) != key:
        return False
    asked = _ASKED_AFTER_SHORT.match(text, len(key))  # "子集问题 回溯…", "子集这道题": the problem, named so
    after = asked.end() if asked else len(key)
    return (text[after:after + 1] or " ") in _SET_OFF


_ASKED_AFTER_SHORT = re.compile(r"问题|这道题|这题|题")
_SET_OFF = frozenset(" \t\n:：,，?？!！;；")
_IDENTIFIER_CHAR = re.compile(r"[A-Za-z0-9_]")


def _in_identifier(written: str, start: int, end: int) -> bool:
    """Whether the Latin title at written[start:end] is part of a code identifier: `@lru_cache` is
    Python's decorator, not problem 146 "LRU Cache"; `TwoSumSolver` is a class name."""
    span = written[start:end]
    if not span.isascii() or not any(ch.isalpha() for ch in span):
        return False
    touches = ((start > 0 and _IDENTIFIER_CHAR.match(written[start - 1]))
               or (end < len(written) and _IDENTIFIER_CHAR.match(written[end])))
    return bool(touches) or "_" in span


def _loose_title(question: str, cat: Catalogue) -> Resolution | None:
    """A base title written loosely ("number of island", "滑动窗口的最大值"; `quest.loose_titles`), unless
    it is part of a longer or sequel title — then that problem is reported as not in the base."""
    match = cat.loose.find(question)
    if match is None:
        return None
    written = as_written(question)
    if _in_identifier(written, match.start, match.end):
        return None
    other = _other_title(written, match.start, match.end, cat.shown.get(match.key, match.key), cat)
    if other is not None:
        return Resolution(None, "title", other, missing_id=other)
    span = written[match.start:match.end]
    if squash(span) in cat.known:  # "最长回文串" is 409's exact title, not 最长回文子串 written loosely (round 19)
        return Resolution(None, "title", span, missing_id=span)
    same = len(written) == len(question)  # the span is in normalized positions
    return Resolution(cat.titles[match.key], "title", question[match.start:match.end] if same else match.key)


def _other_title(written: str, start: int, end: int, shown: str, cat: Catalogue) -> str | None:
    """The title of another problem that the base title at written[start:end] is part of: a sequel
    ("课程表 II") or a longer title ("最长递增子序列的个数", "Min Cost Climbing Stairs"); None if none."""
    mark = sequel_after(written.casefold(), end)
    if mark is not None:
        return f"{shown} {_sequel_shown(mark)}"
    longer = longer_title(written, start, end)
    rest = longer[end - start:] if longer and longer.startswith(written[start:end]) else ""
    if rest and (_with_technique(rest, cat) or _technique_named(rest, cat) or _another_base_title(rest, cat)):
        return None
    return longer


def _another_base_title(rest: str, cat: Catalogue) -> bool:
    """"Two Sum and 3Sum": two base problems side by side, not one longer title."""
    m = re.match(r"\s+(?:and|or)\s+(.+)$", rest)
    return m is not None and squash(m.group(1)) in cat.titles


def _technique_named(rest: str, cat: Catalogue) -> bool:
    """"Trapping Rain Water Two Pointers", "Course Schedule Topological Sort": the title, then the technique."""
    return cat.topics is not None and (squash(rest) in cat.techniques or cat.topics.is_technique(rest))


_WITH = re.compile(r"^\s*(?:with|using|via|by)\s+(.+)$", re.I)


def without_technique(name: str, cat: Catalogue) -> str:
    """A named title without how it was solved: "Majority Element with Boyer Moore", "Single Number XOR"."""
    m = re.search(r"\s+(?:with|using|via)\s+.+$", name)
    if m and _with_technique(m.group(0).lstrip(), cat):
        name = name[:m.start()]
    words = name.split(" ")
    while len(words) > 2 and words[-1].isupper() and (words[-1].casefold() in VERDICT_WORDS or (  # "… BFS", "… XOR"
            cat.topics is not None and cat.topics.is_technique(words[-1]))):
        words.pop()
    return " ".join(words)


def _with_technique(rest: str, cat: Catalogue) -> bool:
    """"Maximum Subarray with Kadane", "Number of Islands with Union Find": the base title and how it was
    solved, not a longer title ("… Stock with Cooldown" is one: its last words are no general topic's)."""
    m = _WITH.match(rest)
    if m is None or cat.topics is None:
        return False
    how = re.sub(r"^(?:a|an|the)\s+", "", m.group(1), flags=re.I)  # a technique's name, not any known words
    return squash(how) in cat.techniques or cat.topics.is_technique(how)  # ("… with Random Pointer" is a title)


def _by_name(name: NamedTitle, cat: Catalogue) -> Resolution | None:
    """What a named title is: a base problem (its title, an earlier title, or a clear abbreviation of
    one), or a problem the base does not have. None when it cannot tell."""
    key = squash(name.text)
    if key in cat.techniques or (not name.marked and key in cat.weak):
        return None  # "Dynamic Programming: …", "Binary Search: …" are about the technique
    if key_written := _title_key(name.text, cat):
        return Resolution(cat.titles[key_written], "title", name.text)
    asked = _ASKED_ABOUT.sub("", key)  # 《两数之和问题》, 《接雨水题解》: the title and what is asked of it
    if asked != key and asked in cat.titles:
        return Resolution(cat.titles[asked], "title", name.text)
    starts = [k for k in cat.titles if key.startswith(k)]
    if starts:
        # "Two Sum II" names another problem; a longer unbounded name may be the title plus the
        # rest of the sentence ("二分查找边界"), so only a bounded one is a different problem.
        longest = max(starts, key=len)
        if not name.bounded and sequel_after(key, len(longest)) is None:
            return None
        return Resolution(None, "name", name.text, missing_id=name.text)
    if sibling_title(_units(name.text), [_units(t) for t in cat.shown.values()]):  # "Minimum Depth of …": not 104
        return Resolution(None, "name", name.text, missing_id=name.text)
    close = max(cat.titles, key=lambda k: _likeness(key, k), default=None)
    if close is not None and _likeness(key, close) >= NAME_LIKENESS and \
            not opposed(_units(name.text), _units(cat.shown.get(close, close))):  # "Longest Decreasing …": not 300
        return Resolution(cat.titles[close], "title", name.text)
    started = _long_start(name.text, key, cat)  # "Find First and Last Position: …" (34)
    if started is not None:
        return Resolution(started, "title", name.text)
    shortened = _reworded_base_title(name.text, cat)  # "力扣 最长无重复子串": 3, shortened
    if shortened is not None:
        return Resolution(shortened, "title", name.text)
    return Resolution(None, "name", name.text, missing_id=name.text)


def _long_start(text: str, key: str, cat: Catalogue) -> str | None:
    """The one base problem whose English title `text` starts, when it keeps three words or more besides connectors:
    long titles are cut short ("Find First and Last Position" of 34). Two words start too many titles ("Binary
    Tree …", "Longest Increasing …")."""
    words = [w for w in re.findall(r"[A-Za-z0-9]+", text) if w.casefold() not in _TITLE_FILLERS]
    if not key.isascii() or len(words) < 3:
        return None
    pids = {pid for title, pid in cat.titles.items() if title.startswith(key) and title != key}
    return pids.pop() if len(pids) == 1 else None


_ASKED_ABOUT = re.compile(r"(?:问题|题解|题目|题|problem|question|solution)$")

# A named title this close to a base title is that title written differently ("Kth Largest Element").
NAME_LIKENESS = 0.85


def _likeness(named: str, title: str) -> float:
    """1.0 when `named` is a long enough start of `title`; else the Dice overlap of character pairs."""
    if len(named) >= 4 and title.startswith(named) and len(named) >= 0.6 * len(title):
        return 1.0
    a = {named[i:i + 2] for i in range(len(named) - 1)}
    b = {title[i:i + 2] for i in range(len(title) - 1)}
    return 2 * len(a & b) / (len(a) + len(b)) if a and b else 0.0


def by_judge_problem(request: Request, cat: Catalogue) -> Resolution | None:
    """Another judge's or collection's problem ("SPOJ TEST", "Codeforces Round 900 problem C", "剑指 Offer 17";
    `quest.judge_problems`): not in the base, unless it is named by a base title or imported from there."""
    name = judge_problem(request.question)
    imported = (p.source_name.casefold() for p in cat.problems.values() if p.source_name)
    if name is None or any(source in name.casefold() for source in imported):
        return None
    text = unicodedata.normalize("NFKC", request.question)
    at = text.find(name)
    found = _title_inside(name + (text[at + len(name):at + len(name) + 40] if at >= 0 else ""), cat)
    return None if found is not None and found.problem_id else Resolution(None, "name", name, missing_id=name)
