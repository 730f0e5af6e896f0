"""The problems the base knows, indexed for the resolution rules (`Catalogue`: normalized titles, slugs, numbers
spelled the other way, the judge's function names, the known problems the base lacks and the units of each title),
and `known_title`, a known problem the base lacks named by its exact title."""

from __future__ import annotations

import functools
import re
from collections import Counter
from collections.abc import Iterable, Mapping

from quest.fuzzy_titles import FuzzyTitles, fuzzy_titles
from quest.kb.documents import Problem
from quest.known_problems import ASKED_ONLY, KNOWN_PROBLEMS, KnownProblem
from quest.loose_titles import LooseTitles, stem
from quest.name_fits import NameFits, name_units
from quest.resolution.words import _HAN_CHAR, _SEQUEL_ONLY, _same_words, _units, slug, squash
from quest.reworded_titles import MixedTitle, mixed_title, title_units, units_index
from quest.title_abbreviations import number_spellings
from quest.topic_words import TopicWords, title_words

_PARENTHESIS = re.compile(r"\s*[(（][^)）]*[)）]")

# A word, a space, then its other name in brackets (not a call's arguments: "Pow(x, n)").
_WORD_THEN_PARENTHESIS = re.compile(r"(?:[A-Za-z0-9]+|[\u4e00-\u9fff]+)\s+[(（]([^)）,，]{2,})[)）]")


def _named_by_parenthesis(title: str) -> str | None:
    """"Implement Trie (Prefix Tree)" -> "Implement Prefix Tree", "实现 Trie (前缀树)" -> "实现 前缀树": a parenthesis
    that names the word before it another way gives the title a second spelling ("实现前缀树", round 10)."""
    m = _WORD_THEN_PARENTHESIS.search(title)
    # another name is two words or more, or Chinese: "(II)", "(Easy)", "(Hard Version)"-like notes are not
    if m is None or not (len(m.group(1).split()) >= 2 or _HAN_CHAR.search(m.group(1))) or \
            re.search(r"version|easy|hard|medium|版", m.group(1), re.I):
        return None
    return f"{title[:m.start()].rstrip()} {m.group(1).strip()}{title[m.end():]}".strip()


class Catalogue:
    """The problems the base knows, with their normalized titles and URL slugs."""

    def __init__(self, problems: Mapping[str, Problem], general_texts: Iterable[str] | None = None) -> None:
        self.problems = problems
        tags = {squash(t) for p in problems.values() for t in p.tags}
        # The words of the general documents, for the rule "shape"; without them that rule stays off.
        self.topics: TopicWords | None = None
        if general_texts is not None:
            self.learn_topics(general_texts)
        self.techniques = tags  # "dynamicprogramming": a name that is a technique names no problem
        self.titles: dict[str, str] = {}
        self.shown: dict[str, str] = {}  # normalized title -> the title as written
        self.weak: set[str] = set()
        self.short: set[str] = set()
        self.slugs: dict[str, str] = {}
        self.spelled: dict[str, tuple[str, str]] = {}  # normalized number spelling -> (problem id, title as written)
        for pid, p in problems.items():
            names = (p.title_zh, p.title_en, *p.aka)
            # "Implement Trie (Prefix Tree)" is also named without its parenthesis ("Implement Trie: …").
            names += tuple(_PARENTHESIS.sub("", t).strip() for t in names if t and _PARENTHESIS.search(t))
            names += tuple(filter(None, (_named_by_parenthesis(t) for t in names if t)))
            written = {squash(t): t for t in names if t and squash(t)}
            keys = list(written)
            self.shown.update(written)
            # A title that is a technique's name ("Binary Search" = tag binary_search) names the
            # technique in most questions: both of that problem's titles count only as a whole question.
            technique = any(k in tags for k in keys)
            for key in keys:
                self.titles[key] = pid
                if technique or (not key.isascii() and len(key) <= 2):
                    self.weak.add(key)
                if not technique and not key.isascii() and len(key) <= 2:
                    self.short.add(key)  # "子集": weak as a word, a title where a question opens with it alone
            if p.title_en:
                self.slugs[slug(p.title_en)] = pid
            # "2sum", "merge 2 sorted lists", "three sum": a title's small numbers written the other way, matched
            # exactly only (`_title_inside`, `_title_key`): as loose or fuzzy titles, "Merge 2 Sorted Lists" would be
            # one character from "Merge k Sorted Lists" (round 17).
            for t in names:
                for v in number_spellings(t or ""):
                    if squash(v) not in self.titles:
                        self.spelled[squash(v)] = (pid, t)
        self.loose = LooseTitles(self.shown, skip=self.weak)
        self.functions = _function_names(problems)
        # Titles of problems the base lacks (`quest.known_problems`), normalized; a problem the base has (by its
        # judge's id — LeetCode's number, Luogu's "P1001", as an operator's import keeps them — or any of its titles)
        # is the base's, even when the operator's title is worded otherwise.
        self.known: dict[str, KnownProblem] = {
            squash(t): k for k in KNOWN_PROBLEMS if k.id not in problems
            for t in (*k.titles, *(v for t in k.titles for v in number_spellings(t)))
            if squash(t) and squash(t) not in self.titles}
        self._fuzzy: FuzzyTitles | None = None  # built on first use (`fuzzy`)
        # Each title's characters or words (`_units`), counted once here rather than per phrase of every question.
        self.title_units = {key: Counter(_units(title)) for key, title in self.shown.items()}
        self.title_stems = [[stem(u) for u in _units(title)] for title in self.shown.values()]

    def get(self, pid: str | None) -> Problem | None:
        return self.problems.get(pid) if pid else None

    @functools.cached_property
    def known_qualifiers(self) -> dict[str, list[tuple[str, str]]]:
        """Base problem id -> (qualifier, known title) for each problem the base lacks whose title is one of that
        problem's titles and words of its own ("买卖股票的最佳时机" + 含冷冻期, "3Sum" + Closest; not a sequel's
        number), normalized (`squash`)."""
        out: dict[str, list[tuple[str, str]]] = {}
        for key, known in self.known.items():
            # as published; a number spelled the other way ("threesumclosest") shows the title in its own script
            title = next((t for t in known.titles if squash(t) == key), None) or next(
                (t for t in known.titles if t.isascii() == key.isascii()), known.titles[0])
            for cut in range(1, len(key) - 1):  # each way the known title starts with a base title (a lookup each:
                pid = self.titles.get(key[:cut])  # an imported base has thousands of titles)
                rest = key[cut:]
                if pid is not None and not _SEQUEL_ONLY.fullmatch(rest) and (rest, title) not in out.get(pid, []):
                    out.setdefault(pid, []).append((rest, title))
        return out

    @functools.cached_property
    def name_fits(self) -> NameFits:
        """The base's titles by id and the known problems' it lacks as "known:<id>", for what a shortened name fits
        (`quest.name_fits`)."""
        lacking = {k.id: k for k in self.known.values()}
        return NameFits([*((self.titles[key], title) for key, title in self.shown.items()),
                         *((f"known:{k.id}", t) for k in lacking.values() for t in k.titles)])

    @functools.cached_property
    def known_supersets(self) -> dict[str, list[tuple[Counter[str], bool, str]]]:
        """Base problem id -> (the units a known title adds to one of its titles, whether Chinese, that known title)
        for each problem the base lacks whose title holds all of a base title's units and more ("使用最小花费爬楼梯"
        and "Min Cost Climbing Stairs" of 爬楼梯 / Climbing Stairs), for `_known_around`."""
        lacking = {k.id: k for k in self.known.values()}
        known = [(name_units(t), bool(_HAN_CHAR.search(t)), t) for k in lacking.values() for t in k.titles]
        by_unit: dict[str, list[int]] = {}  # an imported base has thousands of titles: each is compared with the few
        for i, (units, _, _) in enumerate(known):  # known titles holding its rarest unit, not with all of them
            for unit in units:
                by_unit.setdefault(unit, []).append(i)
        out: dict[str, list[tuple[Counter[str], bool, str]]] = {}
        for pid, p in self.problems.items():
            for base in filter(None, (p.title_zh, p.title_en, *p.aka)):
                mine, han = name_units(base), bool(_HAN_CHAR.search(base))
                if mine.total() < 2:  # "A + B" ("a" is a small word): too little of a title to extend
                    continue
                rarest = min(mine, key=lambda u: len(by_unit.get(u, ())))
                for theirs, their_han, title in (known[i] for i in by_unit.get(rarest, ())):
                    extra = theirs - mine
                    # a sequel's number is read where it follows the title (`sequel_after`), not here
                    if their_han == han and not mine - theirs and extra and \
                            not all(_SEQUEL_ONLY.fullmatch(u) for u in extra):
                        out.setdefault(pid, []).append((extra, han, title))
        return out

    @functools.cached_property
    def mixed_titles(self) -> dict[str, MixedTitle]:
        """Each problem's two titles for the mixed-language rule (`by_mixed_head`): the base's by id, and the known
        problems the base lacks ("known:" + id) but a base title's sequel, whose number the rule reads itself."""
        out = {pid: t for pid, p in self.problems.items() if (t := mixed_title(p.title_zh or "", p.title_en or ""))}
        for known in KNOWN_PROBLEMS:
            if known.id in self.problems or len(known.titles) < 2:
                continue
            key = squash(known.titles[1])
            if any(key.startswith(b) and _SEQUEL_ONLY.fullmatch(key[len(b):]) for b in self.titles):
                continue
            if (t := mixed_title(known.titles[0], known.titles[1], inside=True)) is not None:
                out[f"known:{known.id}"] = t
        return out

    @functools.cached_property
    def reword_units(self) -> dict[str, Counter[str]]:
        """Each title's units for `quest.reworded_titles` (fillers set aside); titles that are a technique's name or
        of two characters are no rewording's (`weak`)."""
        return {key: title_units(title) for key, title in self.shown.items() if key not in self.weak}

    @functools.cached_property
    def reword_index(self) -> dict[str, list[str]]:
        """`reword_units` by unit (`quest.reworded_titles.units_index`)."""
        return units_index(self.reword_units)

    @functools.cached_property
    def known_reword_units(self) -> dict[str, Counter[str]]:
        """The titles of the known problems the base lacks (`quest.known_problems`, and `ASKED_ONLY`'s) for
        `by_known_reworded_head`, keyed "<id>:<n>"; a title that is also a base title is the base's. Read from
        `known` (which a catalogue may empty: then none)."""
        lacking = {k.id: k for k in self.known.values()}
        if lacking:
            lacking.update((k.id, k) for k in ASKED_ONLY if k.id not in self.problems)
        return {f"{k.id}:{n}": title_units(t) for k in lacking.values()
                for n, t in enumerate(k.titles) if squash(t) not in self.titles}

    @functools.cached_property
    def known_reword_index(self) -> dict[str, list[str]]:
        return units_index(self.known_reword_units)

    @functools.cached_property
    def known_reword_ids(self) -> dict[str, str]:
        return {key: key.rsplit(":", 1)[0] for key in self.known_reword_units}

    @functools.cached_property
    def title_unit_items(self) -> list[tuple[str, Counter[str]]]:
        """`title_units` as a list, for `titles_by_unit`'s positions."""
        return list(self.title_units.items())

    @functools.cached_property
    def titles_by_unit(self) -> dict[str, list[int]]:
        """Each title unit (`_units`) -> the positions in `title_unit_items` of the titles holding it."""
        out: dict[str, list[int]] = {}
        for i, (_, units) in enumerate(self.title_unit_items):
            for unit in units:
                out.setdefault(unit, []).append(i)
        return out

    @property
    def fuzzy(self) -> FuzzyTitles:
        """The titles for the fuzzy scores, built when a question no exact rule resolves first needs them and shared
        by catalogues of the same titles (`quest.fuzzy_titles.fuzzy_titles`)."""
        if self._fuzzy is None:
            self._fuzzy = fuzzy_titles(self.shown, skip=self.weak, rewrite=_same_words)
        return self._fuzzy

    @functools.cached_property
    def zh_title_words(self) -> list[list[str]]:
        """The words of each Chinese title (`quest.topic_words.title_words`), for `structure_swapped`."""
        return [title_words(self.shown[key]) for key in self.zh_title_keys]

    @functools.cached_property
    def zh_title_keys(self) -> list[str]:
        """The normalized Chinese titles, in `zh_title_words`' order."""
        return [key for key, title in self.shown.items() if _HAN_CHAR.search(title)]

    def learn_topics(self, general_texts: Iterable[str]) -> None:
        tags = {t for p in self.problems.values() for t in p.tags}
        self.topics = TopicWords(general_texts, tags)


def known_title(text: str, cat: Catalogue) -> KnownProblem | None:
    """The problem the base lacks whose title `text` is, exactly once normalized (`quest.known_problems`); None for
    other text. A technique's name never counts, nor a one-word title the general documents use: "组合" (LeetCode
    77) is a topic as often as a problem."""
    key = squash(text)
    found = cat.known.get(key)
    if found is None or key in cat.techniques:
        return None
    topics = cat.topics
    # Words as written for English ("A+B Problem" is three; the tokenizer keeps only "problem").
    words = title_words(text) if _HAN_CHAR.search(text) else re.findall(r"[A-Za-z0-9]+", text)
    if topics is not None and (topics.is_technique(text) or (len(words) <= 1 and not topics.own_words(text))):
        return None
    return found


def _function_names(problems: Mapping[str, Problem]) -> dict[str, str]:
    """Each problem's `functions` as written -> its id; a method's ("maxSlidingWindow") also as the other signatures
    spell it: in snake case (Rust, Ruby: "max_sliding_window") and capitalized (C#: "MaxSlidingWindow"). A name two
    problems list names neither."""
    owners: dict[str, set[str]] = {}
    for pid, p in problems.items():
        for name in p.functions:
            spelled = {name}
            if name[:1].islower():
                spelled |= {re.sub(r"(?<=[a-z0-9])([A-Z])", r"_\1", name).lower(), name[:1].upper() + name[1:]}
            for written in spelled:
                owners.setdefault(written, set()).add(pid)
    return {name: next(iter(pids)) for name, pids in owners.items() if len(pids) == 1}
