"""The text forms problem resolution compares: a title or question normalized (`squash`, with positions), a
title's units (the characters of a Chinese title, the words of an English one, fillers and swapped words set aside),
a sequel's number, and the lead-in words before a question's subject."""

from __future__ import annotations

import re
import unicodedata

from quest.problem_names import LEAD_IN_WORDS, ZH_LEAD_IN_PREFIX, normalize
from quest.retrieval.tokenize import to_simplified

_PUNCT = re.compile(r"[\s\-_·.,:;!?'\"()（）【】\[\]，。：；！？、《》<>/]+")


def squash(text: str) -> str:
    """Case-, width-, spacing- and script-insensitive form used for title matching."""
    text = to_simplified(unicodedata.normalize("NFKC", text)).casefold()
    return _PUNCT.sub("", text)


def _squash_positions(text: str) -> tuple[str, list[int]]:
    """`squash` of an already normalized text, with each kept character's position in `text`."""
    kept = [(i, ch) for i, ch in enumerate(text) if not _PUNCT.fullmatch(ch)]
    return "".join(ch for _, ch in kept), [i for i, _ in kept]


def slug(title: str) -> str:
    """'Implement Trie (Prefix Tree)' -> 'implement-trie-prefix-tree', as judges write it in URLs."""
    return re.sub(r"[^a-z0-9]+", "-", title.lower()).strip("-")


_EN_LEAD_IN = re.compile(r"^\s*(?:(?:i\s*(?:'m|am|was)\s+)?(?:" + "|".join(sorted(LEAD_IN_WORDS)) + r")\s+)+", re.I)


def without_lead_in(question: str) -> str:
    """The question without the words before its subject that say when and what the student does ("今天做", "练习",
    "Doing", "For"): they are no part of a title (round 10), nor of the id label that opens one ("做 27. 移除元素")."""
    zh = ZH_LEAD_IN_PREFIX.match(question)
    if zh and zh.group(0).strip():
        return question[zh.end():]
    en = _EN_LEAD_IN.match(question)
    return question[en.end():] if en else question


# A qualifier that is only a sequel's number ("ii", "iv", "2"): read where it follows the title (`sequel_after`).
_SEQUEL_ONLY = re.compile(r"(?:i{1,3}|iv|vi{0,3}|ix|x|[0-9])")
_ROMAN_OR_DIGIT = re.compile(r"[ivx]+|\d+")


def _sequel_shown(mark: str) -> str:
    return mark.upper() if _ROMAN_OR_DIGIT.fullmatch(mark) else mark


# Words a title holds that say nothing of which problem it is: left out of its units (`_units`).
_TITLE_FILLERS = frozenset(("the", "a", "an", "of", "in", "to", "with", "and", "for", "的"))

# Words students swap for a title's own: "岛屿个数" is 岛屿数量 (Number of Islands); "最长不重复子串" and
# "没有重复字符的最长子串" say 无 (without) as 不 / 没有 / 不含.
# A "longest" title asked by its answer ("最长无重复子串长度") and 子字符串 for 子串 are that title too.
_ZH_SAME_WORD = re.compile(r"个数|数目")
_ZH_WITHOUT = re.compile(r"不含|没有|不")
_ZH_ITS_LENGTH = re.compile(r"^(最长.+?)的?长度$")


def _units(text: str) -> list[str]:
    """Characters of a Chinese title, words of an English one, without fillers."""
    norm = _ZH_ITS_LENGTH.sub(r"\1", _same_words(normalize(text)))
    units = [ch for ch in norm if not ch.isspace()] if _HAN_CHAR.search(norm) else re.findall(r"[a-z0-9]+", norm)
    return [_NUMBER_WORDS.get(u, u) for u in units if u not in _TITLE_FILLERS]


# A number in a title is written as a word or in digits: "Merge 2 Sorted Lists" is Merge Two Sorted Lists (21).
_NUMBER_WORDS = dict(zip("one two three four five six seven eight nine ten".split(), map(str, range(1, 11)),
                         strict=True))
_HAN_CHAR = re.compile(r"[\u4e00-\u9fff]")


def _same_words(text: str) -> str:
    """`text` with the words students swap for a title's own read as the title's (个数 → 数量, 不含 → 无, 子字符串 →
    子串): one rewrite for the title units (`_units`) and the fuzzy title scores."""
    return _ZH_WITHOUT.sub("无", _ZH_SAME_WORD.sub("数量", text)).replace("子字符串", "子串")


# The small words read past in a shortened name or beside a title (`quest.resolution.fits`, `.siblings`).
_FITS_FILLERS = frozenset("的之个") | {"a", "an", "the", "of", "in", "to", "with", "and", "for"}
