"""A base title misremembered (rounds 8 to 12): a name with nearly its characters or words, shortened or
reordered, or with one word said another way (`_reworded_base_title`); `by_reworded_phrase` reads such a phrase
anywhere in the sentence."""

from __future__ import annotations

import re
import unicodedata
from collections import Counter

from quest.loose_titles import stem
from quest.request import Request
from quest.resolution.catalogue import Catalogue
from quest.resolution.result import Resolution
from quest.resolution.words import _HAN_CHAR, _units
from quest.retrieval.tokenize import to_simplified
from quest.sibling_heads import same_title, zh_synonym_spellings

# A phrase with nearly the same characters (Chinese) or words (English) as a base title is that title
# misremembered ("盛水最多的容器", "Container With the Most Water"); "二叉树的最小深度" (7 of 8) is not.
REWORDED = 0.9


def _reworded_base_title(text: str, cat: Catalogue) -> str | None:
    """The base problem whose title `text` rewords, if any: nearly its units, or its units with one word said
    another way (`quest.sibling_heads.same_title`: "买卖股票的最好时机", "二叉树的最大高度")."""
    units = _units(text)
    # Also with a listed Chinese word said the title's way ("链表翻转" is 链表反转, 206 shortened and reordered).
    for spelled in (units, *zh_synonym_spellings(units)):
        mine = Counter(spelled)
        size = mine.total()
        for key, theirs in _reworded_candidates(mine, cat):
            common = (mine & theirs).total()
            if size and theirs and (common / max(size, theirs.total()) >= REWORDED or _shortened(mine, theirs)):
                return cat.titles[key]
    at = same_title([stem(u) for u in units], cat.title_stems)
    return cat.titles[list(cat.shown)[at]] if at is not None else None


def _reworded_candidates(mine: Counter[str], cat: Catalogue) -> list[tuple[str, Counter[str]]]:
    """The titles that can be a rewording of `mine`, in the catalogue's order (the first match wins).

    Either test lets at most a tenth of `mine`'s units be missing from the title, so a title holds at least one of
    any (tenth + 1) of its distinct units: the rarest of them point to the only titles worth comparing (one more
    unit than needed, against rounding). Comparing every title, per phrase of every question that names no problem,
    cost ~50 ms a question at 400 problems (round 12 review)."""
    index = cat.titles_by_unit
    distinct = sorted(mine, key=lambda u: (len(index.get(u, ())), u))
    needed = int(0.1 * mine.total()) + 2
    at = sorted({i for unit in distinct[:needed] for i in index.get(unit, ())})
    items = cat.title_unit_items
    return [items[i] for i in at]


# A Chinese title shortened or reordered by students keeps this share of the title's characters and adds none:
# "最长无重复子串" / "无重复最长子串" (无重复字符的最长子串), "股票最佳时机" (买卖股票的最佳时机), "链表反转".
# A different problem adds a character of its own ("二叉树的最小深度", "最长公共子串") or keeps too little
# ("回文子串" of 最长回文子串, "最大矩形" of 柱状图中最大的矩形).
SHORTENED = 0.75


def _shortened(mine: Counter[str], theirs: Counter[str]) -> bool:
    """`mine` (Chinese characters) is `theirs` with a few characters dropped, in any order."""
    if mine.total() < 4 or not all(_HAN_CHAR.match(u) for u in mine):
        return False
    return not mine - theirs and mine.total() >= SHORTENED * theirs.total()


def by_reworded_phrase(request: Request, cat: Catalogue) -> Resolution | None:
    """A base title shortened or reworded inside the sentence, set off by punctuation or spaces ("…却算错：最长无重复
    子串 Python 用字典…" is 3): the round-8 rule for a head, for any Chinese phrase of five title characters or more
    ("不同的路径", "区间合并" inside a sentence are as often plain words). Only a base problem counts (a phrase inside
    a sentence is too loose to report one missing), and a phrase of topic words is a topic."""
    if cat.topics is None:
        return None
    phrases = dict.fromkeys(_HAN_PHRASE.findall(to_simplified(unicodedata.normalize("NFKC", request.question))))
    for phrase in list(phrases)[:MAX_PHRASES]:  # each phrase is compared with every title: bounded work
        if len(phrase) <= 16 and len(_units(phrase)) >= 5 and not cat.topics.is_topic(phrase):
            pid = _reworded_base_title(phrase, cat)
            if pid is not None:
                return Resolution(pid, "title", phrase)
    return None


_HAN_PHRASE = re.compile(r"[\u4e00-\u9fff]+")

# A question is at most a few dozen phrases; a pasted page of them is not read for titles past these.
MAX_PHRASES = 40
