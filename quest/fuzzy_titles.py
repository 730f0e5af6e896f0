"""A scored fuzzy match of the base's titles inside a question, for what the exact rules cannot read.

The exact rules of `quest.resolution` read a title as written, loosely written (`quest.loose_titles`) or shortened. Real
questions also paraphrase a title with words of their own around and inside it: "求数组里连续子数组和为 K 的方案数"
is 和为 K 的子数组 (560), "number of islands count in a grid" is 200. This module scores, for every base title, the
share of the title's units (Chinese characters, English word stems; fillers left out) that one window of the question
holds, each unit weighted by how rare it is among the titles (idf: 和 and 为 say more than 数 and 组, "frequent" more
than "tree"). The window is the title's length plus a little slack, so the units must stand together, in any order.

A score is evidence, not a resolution: `quest.plan` only takes a fuzzy title that the search itself agrees with (the
problem's documents rank among the top ones for the question's own words) — see `quest.plan.retrieve`.
"""

from __future__ import annotations

import math
import re
import threading
from collections import Counter, OrderedDict
from collections.abc import Callable, Hashable, Iterable, Mapping
from dataclasses import dataclass
from itertools import pairwise

from quest.loose_titles import stem
from quest.problem_names import normalize

_TOKEN = re.compile(r"[a-z0-9]+|[\u4e00-\u9fff]")
_SMALL_WORDS = frozenset(("a", "an", "the", "of", "in", "on", "to", "for", "from", "with", "and", "by", "at", "is"))
_FILLER_HAN = frozenset("的之个")
# A title of fewer units is read exactly or not at all: two characters or words are as often an everyday phrase.
MIN_UNITS = 3
MIN_HAN_UNITS = 4  # "两数之和" (两 数 和) is in "两个浮点数相加和…": a Chinese title needs four characters
# Titles whose units cover at most this share of the question's window are not scored past the quick test.
QUICK_SHARE = 0.5
# A title is named early; a pasted page is not read for titles past this many characters (bounded work per question).
MAX_CHARS = 600


@dataclass(frozen=True)
class FuzzyMatch:
    key: str  # the title's key (Catalogue.titles)
    score: float  # idf-weighted share of the title's units in the best window, 0..1
    text: str  # the window as it stands in the normalized question
    missing: tuple[str, ...]  # the title's units the window lacks


@dataclass(frozen=True)
class _Title:
    key: str
    units: Counter[str]
    weight: float  # sum of the units' weights, counted with multiplicity
    pairs: frozenset[tuple[str, str]]  # neighbouring units, in the title's order
    han: bool


def units_of(text: str) -> list[tuple[str, int, int]]:
    """(unit, start, end) of a normalized text: Chinese characters one by one, English words stemmed, fillers out."""
    out = []
    for m in _TOKEN.finditer(text):
        word = m.group(0)
        if word in _SMALL_WORDS or word in _FILLER_HAN:
            continue
        out.append((stem(word) if word.isascii() else word, m.start(), m.end()))
    return out


class FuzzyTitles:
    """The catalogue's titles as weighted units, built once."""

    def __init__(self, shown: Mapping[str, str], skip: Iterable[str] = (),
                 rewrite: Callable[[str], str] | None = None) -> None:
        skipped = set(skip)
        self._rewrite = rewrite or (lambda text: text)
        forms: list[tuple[str, list[str], bool]] = []
        for key, written in shown.items():
            seq = [u for u, _, _ in units_of(normalize(self._rewrite(written)))]
            han = not written.isascii()
            if key in skipped or len(seq) < (MIN_HAN_UNITS if han else MIN_UNITS):
                continue
            forms.append((key, seq, han))
        df: Counter[str] = Counter(u for _, seq, _ in forms for u in set(seq))
        total = len(forms) or 1
        self.weights = {u: math.log((total + 1) / (n + 0.5)) for u, n in df.items()}
        self.titles = [_Title(key, Counter(seq), sum(self.weights[u] for u in seq), frozenset(pairwise(seq)), han)
                       for key, seq, han in forms]
        # Unit -> the titles (their positions) that list it among their rarest units (`_rarest`). A title passes the
        # quick test only if the question holds at least one of those, so a question scores the titles its own
        # units point to, not the whole catalogue (2,000 problems: every title was tested for every question).
        self._by_unit: dict[str, list[int]] = {}
        for at, title in enumerate(self.titles):
            for unit in _rarest(title, self.weights):
                self._by_unit.setdefault(unit, []).append(at)

    def scores(self, question: str, floor: float) -> list[FuzzyMatch]:
        """Every title scoring at least `floor` in one window of `question`, best first."""
        norm = normalize(self._rewrite(question[:MAX_CHARS]))
        found = units_of(norm)
        if not found:
            return []
        seq = [u for u, _, _ in found]
        have = set(seq)
        out = []
        # In the catalogue's order, so that equal scores keep the order they had when every title was tested.
        candidates = sorted({at for unit in have for at in self._by_unit.get(unit, ())})
        for title in (self.titles[at] for at in candidates):
            quick = sum(self.weights[u] * c for u, c in title.units.items() if u in have) / title.weight
            if quick < max(floor, QUICK_SHARE):
                continue
            best = self._best_window(seq, title)
            if best is None or best[0] < floor:
                continue
            score, lo, hi, missing = best
            out.append(FuzzyMatch(title.key, round(score, 4), norm[found[lo][1]:found[hi - 1][2]], missing))
        out.sort(key=lambda m: (-m.score, -len(m.key)))
        return out

    def _best_window(self, seq: list[str], title: _Title) -> tuple[float, int, int, tuple[str, ...]] | None:
        size = title.units.total()
        width = size + max(2, size // 2)  # slack for a word or two of the student's own inside the title
        best: tuple[float, int, int, tuple[str, ...]] | None = None
        for lo in range(len(seq)):
            if seq[lo] not in title.units:  # a window starts on one of the title's units
                continue
            part = seq[lo:lo + width]
            common = Counter(part) & title.units
            share = sum(self.weights[u] * c for u, c in common.items()) / title.weight
            # Half the score is the title's units side by side as in the title: a paraphrase keeps some pairs
            # ("子数组和为 K" keeps 子数-数组-和为-为K of 和为K的子数组), a chance scatter of its characters keeps none.
            kept = title.pairs & set(pairwise(part))
            order = len(kept) / len(title.pairs) if title.pairs else 0.0
            score = (share + order) / 2
            if best is None or score > best[0]:
                # the window ends on its last unit of the title
                hi = max(i for i in range(lo, min(lo + width, len(seq))) if seq[i] in title.units) + 1
                best = (score, lo, hi, tuple(sorted((title.units - common).elements())))
        return best


def _rarest(title: _Title, weights: Mapping[str, float]) -> list[str]:
    """The title's rarest units, as few as leave the others (counted with multiplicity) under QUICK_SHARE of its
    weight: a question with none of them holds less than that share and fails the quick test whatever the floor.

    The others are kept a hair under the share (_QUICK_MARGIN) so that a float sum's last bit can never drop a title
    the full test would have passed; an extra unit listed only adds a candidate, which the full test then judges."""
    order = sorted(title.units, key=lambda u: (-weights[u], u))
    rest = title.weight
    out = []
    for unit in order:
        if rest < QUICK_SHARE * title.weight * _QUICK_MARGIN:
            break
        out.append(unit)
        rest -= weights[unit] * title.units[unit]
    return out


_QUICK_MARGIN = 0.999

# Catalogues of the same titles share one table: a Retriever (and so a Catalogue) is built per index and more than
# once per process (calibration, evaluation), and the table took 0.4 s at 2,000 problems. The key is the titles
# themselves, so a changed catalogue builds its own.
_TABLES: OrderedDict[Hashable, FuzzyTitles] = OrderedDict()
_TABLES_KEPT = 4
_TABLES_LOCK = threading.Lock()


def fuzzy_titles(shown: Mapping[str, str], skip: Iterable[str] = (),
                 rewrite: Callable[[str], str] | None = None) -> FuzzyTitles:
    """The FuzzyTitles of these titles, built once per distinct catalogue (the last few are kept)."""
    key = (tuple(shown.items()), frozenset(skip), rewrite)
    with _TABLES_LOCK:  # held while building: a second thread asking for the same table waits for it
        table = _TABLES.get(key)
        if table is None:
            table = _TABLES[key] = FuzzyTitles(shown, skip, rewrite)
            while len(_TABLES) > _TABLES_KEPT:
                _TABLES.popitem(last=False)
        _TABLES.move_to_end(key)
        return table
