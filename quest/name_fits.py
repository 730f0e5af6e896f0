"""Which problems a shortened name fits, and whether it names one of them (round 21, issue 9 rule 2).

Students drop words from a title: "股票最佳时机" (买卖股票的最佳时机), "kth largest element" (…in an Array), "buy and
sell stock", "top k frequent", "二叉树深度". A name *fits* a title when every unit of the name (Chinese characters,
English word stems; small words aside) is one of the title's. The titles are the base's and those of the known
problems it lacks (`quest.known_problems`), so a name is read against the siblings a student may mean as well:

- a name that is a title's units exactly names that problem ("valid parenthesis" is 20, "path sum" is 112);
- a name that fits one problem's titles only is a shortening of it;
- a name that fits several names a base problem only when the words it dropped tell that problem from none of the
  others (they are in every other fitting title, or only say the input's kind: "kth largest element" drops "array",
  and 703's title says "stream") and it keeps most of the title (`KEPT`): "股票最佳时机" keeps 6 of 121's 8
  characters and drops only 买卖, which every stock title has, so it is 121; "buy and sell stock" keeps 3 of 5 words
  (a family's name, not a title), "top k frequent" drops "elements", the word that tells 347 from 692's "words",
  and "二叉树深度" drops 最大, which tells 104 from 111 (最小): those are ambiguous, and the student is asked.

Units here keep 中 (unlike `quest.reworded_titles`, where it is a filler): "二叉树的中序遍历" and "二叉树的前序遍历"
differ by it, so "二叉树遍历" fits both and names neither.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from quest.reworded_titles import _EN_FILLERS, _IMPLIED, _stem

# Characters with no meaning of their own in a Chinese title (中 is not one here: see the module's docstring).
_ZH_FILLERS = frozenset("的之个")
_HAN = re.compile(r"[\u4e00-\u9fff]")
_UNIT = re.compile(r"[\u4e00-\u9fff]|[a-z0-9]+")
# A name keeps at least this share of a base title's units to name it over siblings that also fit (the share
# `quest.resolution.misremembered.SHORTENED` asks of a Chinese title shortened: "股票最佳时机" is 6 of 8).
KEPT = 0.75
# Fewer units than this are a phrase, not a name: "binary tree", "子数组" fit many titles and name a topic.
MIN_EN_UNITS = 3
MIN_HAN_UNITS = 4


def name_units(text: str) -> Counter[str]:
    """A name's or title's units: Chinese characters (and any Latin token beside them, "K"), or English word stems;
    small words and filler characters aside."""
    low = text.casefold()
    if _HAN.search(low):
        return Counter(u if _HAN.match(u) else _stem(u) for u in _UNIT.findall(low) if u not in _ZH_FILLERS)
    return Counter(_stem(w) for w in re.findall(r"[a-z0-9]+", low) if w not in _EN_FILLERS)


def long_enough(units: Counter[str], han: bool) -> bool:
    return units.total() >= (MIN_HAN_UNITS if han else MIN_EN_UNITS)


@dataclass(frozen=True)
class Fit:
    """What a name fits: `named` when it names one problem, else `fitting` (several: ambiguous)."""

    named: str | None  # a base problem id, or "known:<id>"
    fitting: tuple[str, ...]  # every problem whose titles the name fits, base ones first
    kept: float = 1.0  # the largest share of a fitting title's units the name keeps


class NameFits:
    """The titles a name may fit, by unit: base problems by id, known problems the base lacks as "known:<id>"."""

    def __init__(self, titles: Iterable[tuple[str, str]]) -> None:
        self.titles: list[tuple[str, Counter[str], bool]] = []
        for key, title in titles:
            units = name_units(title)
            if units:
                self.titles.append((key, units, bool(_HAN.search(title))))
        self._by_unit: dict[str, list[int]] = {}
        for i, (_, units, _) in enumerate(self.titles):
            for unit in units:
                self._by_unit.setdefault(unit, []).append(i)

    def fitting(self, units: Counter[str], han: bool) -> dict[str, list[Counter[str]]]:
        """Problem key -> its titles (in the name's script) that hold every unit of `units`."""
        if not units:
            return {}
        rarest = min(units, key=lambda u: len(self._by_unit.get(u, ())))
        out: dict[str, list[Counter[str]]] = {}
        for i in self._by_unit.get(rarest, ()):
            key, theirs, their_han = self.titles[i]
            if their_han == han and not units - theirs:
                out.setdefault(key, []).append(theirs)
        return out

    def fit(self, name: str) -> Fit | None:
        """What `name` fits (see the module's docstring); None when it fits no title or is too short to tell."""
        han = bool(_HAN.search(name))
        units = name_units(name)
        if not long_enough(units, han):
            return None
        found = self.fitting(units, han)
        if not found:
            return None
        keys = tuple(sorted(found, key=lambda k: (k.startswith("known:"), len(k), k)))  # by id
        kept = max(units.total() / t.total() for titles in found.values() for t in titles)
        exact = [k for k in keys if any(t == units for t in found[k])]
        if len(exact) == 1:
            return Fit(exact[0], keys, kept)
        if len(keys) == 1:
            return Fit(keys[0], keys, kept)
        for key in keys:
            if not key.startswith("known:") and _names_over_siblings(units, key, found):
                return Fit(key, keys, kept)
        return Fit(None, keys, kept)


def _names_over_siblings(units: Counter[str], key: str, found: Mapping[str, list[Counter[str]]]) -> bool:
    """Whether `units` name problem `key` though other problems' titles fit too: for one of its titles, what the
    name drops (but the input's kind) is in a fitting title of every other problem, and the name keeps `KEPT` of it."""
    for title in found[key]:
        dropped = Counter({u: n for u, n in (title - units).items() if u not in _IMPLIED})
        if units.total() < KEPT * title.total():
            continue
        if all(any(not dropped - theirs for theirs in found[other]) for other in found if other != key):
            return True
    return False
