"""A base title inside the name of a sibling the base lacks: its qualifier set apart or said just after the title
(`_known_qualifier`, rounds 19 and 20), or the words around it that make a known title (`_known_around`, round 21)."""

from __future__ import annotations

import re
from collections import Counter

from quest.known_problems import KnownProblem
from quest.name_fits import name_units
from quest.problem_names import normalize
from quest.resolution.catalogue import Catalogue
from quest.resolution.result import Resolution
from quest.resolution.titles import MAX_TITLE_SPANS
from quest.resolution.words import _FITS_FILLERS, _HAN_CHAR, _SEQUEL_ONLY, _squash_positions, squash


def _known_qualifier(question: str, found: Resolution, cat: Catalogue) -> Resolution | None:
    """The problem the base lacks that a base problem's title names with its qualifier set apart by a space or said
    just after it ("买卖股票的最佳时机 含冷冻期", "股票最大利润 含手续费", "Best Time to Buy and Sell Stock with
    cooldown", "…Stock, the one with cooldown"): the known title (`quest.known_problems`) is the base title and that
    qualifier, so the question is about that problem, reported missing (round 19). A sequel's number is read where it
    follows the title (`sequel_after`); only qualifiers in words count here. Set apart, only words no general page
    uses: "有效的括号 字符串为空" is 20 and a string; "有效的括号字符串" written as one is 678. Denied ("不含手续费",
    "not closest"), a qualifier set apart is the base problem's own case.

    Set apart, the qualifier must belong to the name (round 20): it follows the title within `QUALIFIER_GAP`
    characters and no mark that ends a clause (: ? ! 。 ; a sentence's full stop) comes between. Said anywhere, the
    word was the sentence's: "3Sum: should I return the closest triple…" asks about 3Sum, not 3Sum Closest."""
    if found.problem_id is None or found.rule not in ("title", "reworded"):
        return None
    qualifiers = cat.known_qualifiers.get(found.problem_id, ())
    if not qualifiers:
        return None
    norm = normalize(question)
    text, where = _squash_positions(norm)
    ends = _title_ends(text, found, cat)
    breaks = _clause_breaks(norm)
    for qualifier, title in qualifiers:
        if squash(title) in norm:  # written as one ("买卖股票的最佳时机含冷冻期"): the known title itself
            return Resolution(None, "title", title, missing_id=title)
        if cat.topics is not None and not cat.topics.own_words(qualifier):
            continue
        for m in re.finditer(_NOT_NEGATED + re.escape(qualifier), text):
            end = ends[m.start()]  # the nearest end of the title at or before the qualifier (-1: none)
            if end >= 0 and m.start() - end <= QUALIFIER_GAP and \
                    breaks[where[m.start()]] == breaks[where[end - 1]]:
                return Resolution(None, "title", title, missing_id=title)
    return None


# How far (in `squash`ed characters) after the base title a qualifier still belongs to the name: "the one with
# cooldown" (6: "theone"), "不含手续费，那含手续费呢" (6). "should I return the closest" (16) is the sentence's.
QUALIFIER_GAP = 8

# Marks that end a clause: a qualifier past one is the sentence's word, not the name's. A comma or a bracket does not
# ("…Stock, the one with cooldown", "买卖股票的最佳时机（含冷冻期）").
_CLAUSE_BREAK = re.compile(r"[:：?？!！。;；\n]|\.(?:\s|$)")


def _clause_breaks(norm: str) -> list[int]:
    """For each position of `norm`, how many clause marks come before it (one pass)."""
    out, seen = [0] * (len(norm) + 1), 0
    marks = {m.start() for m in _CLAUSE_BREAK.finditer(norm)}
    for i in range(len(norm) + 1):
        out[i] = seen
        if i in marks:
            seen += 1
    return out


def _title_ends(text: str, found: Resolution, cat: Catalogue) -> list[int]:
    """For each position of the `squash`ed question, the end of the latest occurrence of the found problem's title
    (any of its names, or the evidence as written) that ends at or before it; -1 before the first. One pass per name:
    linear in the question."""
    problem = cat.problems.get(found.problem_id or "")
    names = {squash(n) for n in ((problem.title_zh, problem.title_en, *problem.aka) if problem else ()) if n}
    names.add(squash(found.evidence))
    stops = [False] * (len(text) + 1)
    for name in filter(None, names):
        at = text.find(name)
        while at >= 0:
            stops[at + len(name)] = True
            at = text.find(name, at + len(name))
    out, last = [-1] * (len(text) + 1), -1
    for i in range(len(text) + 1):
        if stops[i]:
            last = i
        out[i] = last
    return out


# A qualifier denied is the base problem's own case: "买卖股票的最佳时机 不含手续费" is 121, "3Sum, not closest" 15.
_NOT_NEGATED = r"(?<![不没无未非])(?<!not)(?<!non)(?<!no)"


def _known_title_shown(key: str, known: KnownProblem) -> str:
    """The known problem's title as published for its normalized key (a number spelled the other way: its title in
    the key's script)."""
    return next((t for t in known.titles if squash(t) == key), None) or next(
        (t for t in known.titles if t.isascii() == key.isascii()), known.titles[0])


_HAN_GAP = re.compile(r"(?<=[\u4e00-\u9fff])\s+(?=[\u4e00-\u9fff])")

# How far around the base title `_known_around` reads a qualifier: longer than any known title's extra words.
_AROUND_CHARS = 48
_SUPERLATIVE_UNITS = frozenset("最小大多少") | {"minimum", "maximum", "minimal", "maximal", "largest", "smallest"}
_AROUND_UNIT = re.compile(r"[\u4e00-\u9fff]|[a-z0-9]+")


def _known_around(question: str, found: Resolution, cat: Catalogue) -> Resolution | None:
    """The problem the base lacks that the words around a base title make ("min cost climbing stairs dp",
    "longest valid parentheses", "sliding window median" in any case; "爬楼梯最小花费", "climbing stairs min cost"):
    a base title is the whole name only when the words beside it are not the rest of a known title (round 21).

    Written whole (case aside), a known title that holds the base title is that problem; Chinese characters set apart
    by a space are two phrases ("有效的括号 字符串为空" is 20 and a string). Otherwise the words right beside the
    title, glued or after spaces, are read while each is one the known title adds (`Catalogue.known_supersets`):
    they must say half of what it adds and more than a superlative, and be glued to a Chinese title, two English
    words or more, or words no general page uses ("valid parentheses string" is 20 and a string, as
    "climbing stairs minimum" is 70 asked for a minimum)."""
    if found.problem_id is None or found.rule not in ("title", "reworded"):
        return None
    problem = cat.problems.get(found.problem_id)
    if problem is None:
        return None
    names = {squash(n) for n in (problem.title_zh, problem.title_en, *problem.aka, found.evidence) if n}
    names.discard("")
    text = squash(_HAN_GAP.sub("|", normalize(question)))
    for key, known in cat.known.items():
        # a sequel's number is read where it follows the title (`_title_inside`): "Course Schedule II: … as Course
        # Schedule" names 210 first, then 207 written as a title
        if any(n in key and len(key) > len(n) and not _SEQUEL_ONLY.fullmatch(key.replace(n, "", 1)) for n in names) \
                and key in text:
            title = _known_title_shown(key, known)
            return Resolution(None, "title", title, missing_id=title)
    supersets = cat.known_supersets.get(found.problem_id)
    if not supersets:
        return None
    norm = normalize(question)
    squashed, where = _squash_positions(norm)
    for name in sorted(names, key=len, reverse=True):
        at = squashed.find(name)
        for _ in range(MAX_TITLE_SPANS):
            if at < 0:
                break
            start, end = where[at], where[at + len(name) - 1] + 1
            for extra, han, title in supersets:
                if _qualifies(norm, start, end, extra, han, cat):
                    return Resolution(None, "title", title, missing_id=title)
            at = squashed.find(name, at + len(name))
    return None


def _qualifies(norm: str, start: int, end: int, extra: Counter[str], han: bool, cat: Catalogue) -> bool:
    """Whether the words beside norm[start:end] say the qualifier `extra` of a known title (`_known_around`)."""
    want, said, glued, words = Counter(extra), Counter(), False, []
    before, after = norm[max(0, start - _AROUND_CHARS):start], norm[end:end + _AROUND_CHARS]
    for side in (_beside(before, leftward=True), _beside(after, leftward=False)):
        for i, (token, gap) in enumerate(side):
            if gap.strip():
                break  # a mark between: the clause ends
            unit = token if _HAN_CHAR.match(token) else _stem_word(token)
            if unit in _FITS_FILLERS:
                continue
            if want[unit] <= said[unit]:
                break
            said[unit] += 1
            words.append(token)
            glued = glued or (han and i == 0 and not gap)  # touching the title itself
    if 2 * said.total() < extra.total() or not any(u not in _SUPERLATIVE_UNITS for u in said):
        return False
    own = cat.topics is not None and bool(cat.topics.own_words(("" if han else " ").join(words)))
    return (han and glued) or own or (not han and said.total() >= 2)


def _beside(text: str, *, leftward: bool) -> list[tuple[str, str]]:
    """The units of the text on one side of a title, nearest first, each with what lies between it and the unit
    (or the title) nearer the title."""
    units = list(_AROUND_UNIT.finditer(text))
    if leftward:
        units.reverse()
        edges = [len(text), *(m.start() for m in units)]
        return [(m.group(0), text[m.end():edge]) for m, edge in zip(units, edges, strict=False)]
    edges = [0, *(m.end() for m in units)]
    return [(m.group(0), text[edge:m.start()]) for m, edge in zip(units, edges, strict=False)]


def _stem_word(word: str) -> str:
    """An English word's stem as `quest.name_fits` reads titles."""
    units = name_units(word)
    return next(iter(units)) if units else word
