"""A base title written loosely inside a question: other word forms, filler words, one slip.

Students rarely copy a title exactly. Real questions say "Longest Increasing Subsequences",
"number of island", "Kth largest element in array", "滑动窗口的最大值", "买卖股票最佳时机",
"数组中第k大的元素", "Valid Parenthesis". Exact matching misses all of them, and an unresolved
problem lets general documents lead. This module compares a *loose* form of titles and question:

- English words lowercased, plural endings dropped ("subsequences" -> "subsequence", "stairs" ->
  "stair"), and the small words ("of", "in", "an", "the", ...) left out;
- Chinese characters one by one, with the filler characters 的 / 之 / 个 left out;

and accepts the title when the loose question contains it, at word boundaries, or — for a long
enough title — with one slip: one inserted or missing character inside a Chinese title (never at its
ends: "最长回文子" + "序列" is another problem, not "最长回文子串" missing its end), or one typo in a
long English title. Titles that are a technique's name ("Binary Search") never count here.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from quest.problem_names import normalize

_TOKEN = re.compile(r"[a-z0-9]+|[\u4e00-\u9fff]")
_SMALL_WORDS = frozenset(("a", "an", "the", "of", "in", "on", "to", "for", "from", "with", "and"))
_FILLER_HAN = frozenset("的之个")
# An inserted negation changes the problem ("最长不递增子序列"): never a slip.
_NEGATION = frozenset("不非无没")
MIN_EXACT = 4  # loose characters; shorter titles are matched exactly or not at all
MIN_SLIP_HAN = 5
MIN_SLIP_ASCII = 10


def stem(word: str) -> str:
    """'subsequences' -> 'subsequence', 'stairs' -> 'stair', 'matches' -> 'match', 'queries' -> 'query'."""
    if len(word) > 4 and word.endswith("ies"):
        return word[:-3] + "y"
    if len(word) > 4 and word.endswith(("ches", "shes", "sses", "xes", "zes")):
        return word[:-2]
    if len(word) > 3 and word.endswith("s") and not word.endswith(("ss", "us", "is")):
        return word[:-1]
    return word


@dataclass(frozen=True)
class Loose:
    """A text's loose form, with where each loose token came from in the normalized text."""

    text: str
    starts: tuple[int, ...]  # offsets in `text` where a token starts
    spans: tuple[tuple[int, int], ...]  # (start, end) of each token in the normalized text

    def boundary(self, offset: int) -> int | None:
        """The token index starting at `offset`, or len(spans) at the very end; None inside a token."""
        if offset == len(self.text):
            return len(self.spans)
        try:
            return self.starts.index(offset)
        except ValueError:
            return None


def loose(normalized: str) -> Loose:
    """The loose form of an already normalized text (see `quest.problem_names.normalize`)."""
    parts: list[str] = []
    starts: list[int] = []
    spans: list[tuple[int, int]] = []
    at = 0
    for m in _TOKEN.finditer(normalized):
        word = m.group(0)
        if word in _SMALL_WORDS or word in _FILLER_HAN:
            continue
        word = stem(word) if word.isascii() else word
        parts.append(word)
        starts.append(at)
        spans.append(m.span())
        at += len(word)
    return Loose("".join(parts), tuple(starts), tuple(spans))


@dataclass(frozen=True)
class LooseMatch:
    key: str  # the title's key in Catalogue.titles
    start: int  # span of the match in the normalized question
    end: int


class LooseTitles:
    """The loose forms of a catalogue's titles, built once."""

    def __init__(self, shown: Mapping[str, str], skip: Iterable[str] = ()) -> None:
        skipped = set(skip)
        self.forms: list[_Form] = []
        for key, written in shown.items():
            form = loose(normalize(written))
            # One English word ("Permutations", "Subsets") would match every question using the word.
            if key not in skipped and len(form.text) >= MIN_EXACT and not (form.text.isascii() and len(form.spans) < 2):
                self.forms.append(_Form.of(form.text, key))
        self.forms.sort(key=lambda f: len(f.text), reverse=True)  # the longest title wins

    def find(self, question: str) -> LooseMatch | None:
        """The longest title the question contains loosely, with its span in `normalize(question)`."""
        q = loose(normalize(question))
        if not q.text:
            return None
        pairs = _pairs(q.text)
        for form in self.forms:
            if form.text in q.text:
                found = _exact(q, form.text)
            elif form.slips and (form.head in q.text or form.tail in q.text) and len(form.pairs - pairs) <= 2:
                # One slip leaves one half of the title intact and breaks at most two character pairs.
                found = _with_slip(q, form.text)
            else:
                continue
            if found is not None:
                return LooseMatch(form.key, *found)
        return None


@dataclass(frozen=True)
class _Form:
    """A title's loose form with what the quick tests in LooseTitles.find need, computed once."""

    text: str
    key: str
    pairs: frozenset[str]
    head: str
    tail: str
    slips: bool  # long enough to be matched with one slip

    @classmethod
    def of(cls, text: str, key: str) -> _Form:
        half = len(text) // 2
        slips = len(text) >= (MIN_SLIP_HAN if not text.isascii() else MIN_SLIP_ASCII)
        return cls(text, key, frozenset(_pairs(text)), text[:half], text[half:], slips)


def _pairs(text: str) -> set[str]:
    return {text[i:i + 2] for i in range(len(text) - 1)}


def _span(q: Loose, start: int, end: int) -> tuple[int, int] | None:
    """The normalized-text span of loose offsets [start, end) if both fall on token boundaries."""
    first, stop = q.boundary(start), q.boundary(end)
    if first is None or stop is None or stop <= first:
        return None
    return q.spans[first][0], q.spans[stop - 1][1]


def _exact(q: Loose, form: str) -> tuple[int, int] | None:
    at = q.text.find(form)
    while at >= 0:
        span = _span(q, at, at + len(form))
        if span is not None:
            return span
        at = q.text.find(form, at + 1)
    return None


def _with_slip(q: Loose, form: str) -> tuple[int, int] | None:
    """`form` inside the question with one slip (see the module docstring), at token boundaries."""
    han = not form.isascii()
    for start in q.starts:
        for size in (len(form) - 1, len(form), len(form) + 1):
            window = q.text[start:start + size]
            if len(window) == size and _one_slip(window, form, han):
                span = _span(q, start, start + size)
                if span is not None:
                    return span
    return None


def _one_slip(window: str, form: str, han: bool) -> bool:
    if window == form:
        return False  # an exact match is not a slip (and was not at a boundary)
    if han:  # one character inserted or left out, never at either end
        if window[0] != form[0] or window[-1] != form[-1]:
            return False
        if len(window) == len(form) + 1:
            return any(window[:i] + window[i + 1:] == form and window[i] not in _NEGATION
                       for i in range(1, len(window) - 1))
        if len(window) + 1 == len(form):
            return any(form[:i] + form[i + 1:] == window for i in range(1, len(form) - 1))
        return False
    return _within_one_edit(window, form)


def _within_one_edit(a: str, b: str) -> bool:
    """Levenshtein distance of at most 1."""
    if abs(len(a) - len(b)) > 1:
        return False
    if len(a) > len(b):
        a, b = b, a
    i = 0
    while i < len(a) and a[i] == b[i]:
        i += 1
    if len(a) == len(b):
        return a[i + 1:] == b[i + 1:]
    return a[i:] == b[i + 1:]
