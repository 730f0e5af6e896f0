"""One planning stage: request -> Plan (problem, judge report, query parts, exclusions, language).

Every entry point (assistant, `search`, evaluation, benchmark, API) plans a request here and
nothing else builds a retrieval query, so they cannot drift apart.

The problem is resolved by small rules, tried in this order; the plan records which one fired:

1. ``field``     the problem field of the request;
   ``name``      another judge's or collection's problem ("SPOJ TEST", "剑指 Offer 17"; `quest.judge_problems`);
2. ``id``        an id or judge URL in the question, the error or a code comment (``239``,
                 ``#239``, ``LC239``, ``leetcode 239``, ``第239题``, ``239题``, ``300. 最长…``,
                 ``problem.php?id=1007``, ``/p/P1000``, ``/problem/1007``, ``/problems/two-sum``, ``力扣第一题``,
                 ``371 sum of two integers: …``);
3. ``title``     a title in either language contained in the question (normalized: case, width,
                 spacing, traditional -> simplified). Titles that are only a technique's name
                 ("Binary Search", a title equal to a tag) count only as the whole question. A
                 title followed by a sequel marker ("课程表 II", "Two Sum IV") is another problem;
   ``name``      a title the question names after a judge or marker ("力扣 跳跃游戏", 《…》, "题目：",
                 "House Robber - …"; `quest.problem_names`) that no base title matches, or by its shape alone
                 (`quest.title_shapes`), or exactly the title of a known problem the base lacks
                 (`quest.known_problems`: "最小栈 …", "用栈实现队列 …" at the opening);
   ``reworded``  such a name, or a question's opening, that rewords exactly one base title ("三数和", "判断链表有环",
                 "最小编辑距离"; `quest.reworded_titles`): that problem, not a missing one; or an opening that says a
                 base title half in Chinese, half in English ("反转 Linked List", `by_mixed_head`);
                 an English opening that runs on from a base title reworded ("valid parenthesis stack pops…",
                 `by_reworded_run`); and, missing, an opening that rewords a known problem's title or says a base
                 title's opposite ("单链表排序", "第K小的数"; `by_known_reworded_head`, round 20);
                 a base title inside a known sibling's name is that sibling, missing, in any case and with its
                 words around the title ("min cost climbing stairs", "爬楼梯最小花费": 746; `_known_around`), and a
                 name several problems' titles fit, shortened so that it drops what tells them apart, names none of
                 them (``candidates``: "前K个高频", "buy and sell stock"; `_shortened_fit`, `by_fitting_opening`,
                 `quest.name_fits`, round 21);
4. ``code``      none of the above named a problem (or only a name no rule could place and no list of known problems
                 holds): the judge's function name in the code, the error or the question (``def maxSlidingWindow``,
                 ``class LRUCache``; `problems.yaml`'s ``functions``, only names no other well-known problem uses);
5. ``id`` / ``title`` confirmed by the search: a bare number that is a base id ("… solution for 239") or a title
                 paraphrased ("连续子数组和为 K 的方案数" of 560; `quest.fuzzy_titles`) counts when the question's own
                 words rank that problem's documents among the top five (`quest.weak_names`) in a confident
                 search (neither weak nor widened); the search is then run again inside the problem, its hits
                 still checked for topic (the problem is a guess: `problem_guessed`);
6. ``consensus`` after searching: most of the top documents come from one problem.

An id or title that is not in the base is reported (``missing_id``) and never mapped to another
problem: the search then keeps to general documents, and the question part leaves the judge and
the missing id or title out. A name students often give a base problem ("最长回文串", 409's title, for 5) offers
that problem in the notice (``alternatives``, `with_alternatives`, round 20). An id after another judge ("AcWing
1", "POJ 1000") or a contest's problem number is never a (LeetCode-numbered) starter problem.
"""

from __future__ import annotations

import dataclasses
import functools
import re
import unicodedata
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from quest.code_language import detect
from quest.failure_words import describes_failure, reports_acceptance
from quest.fuzzy_titles import FuzzyTitles, fuzzy_titles
from quest.judge import VERDICT_NAMES, VERDICTS, JudgeReport, find_verdict, parse
from quest.judge_problems import judge_problem
from quest.kb.catalogue import resolve_problem
from quest.kb.documents import Problem, normalize_problem_id
from quest.kb.importers.safety import quoted
from quest.known_problems import ASKED_ONLY, CONFUSED_WITH, KNOWN_PROBLEMS, KnownProblem
from quest.leading_ids import leading_title
from quest.loose_titles import LooseTitles, stem
from quest.name_fits import Fit, NameFits, name_units
from quest.policy import excluded_kinds
from quest.problem_names import (
    JUDGES,
    LEAD_IN_WORDS,
    VERDICT_WORDS,
    ZH_LEAD_IN_PREFIX,
    NamedTitle,
    as_written,
    longer_title,
    named_title,
    normalize,
    sequel_after,
)
from quest.prose_language import prose_language
from quest.query import MAX_QUERY_CHARS, key_code_lines
from quest.request import Request
from quest.retrieval.evidence import error_evidence
from quest.retrieval.mainland_words import is_traditional, with_mainland_words
from quest.retrieval.tokenize import to_simplified, tokenize
from quest.reworded_titles import (
    MixedTitle,
    mixed_head,
    mixed_problems,
    mixed_title,
    reworded_problem,
    title_units,
    units_index,
)
from quest.sibling_heads import (
    opening_phrase,
    opposed,
    reordered_title,
    same_title,
    structure_swapped,
    swapped_title,
    zh_synonym_spellings,
)
from quest.title_abbreviations import number_spellings, sibling_title, spelled_out
from quest.title_shapes import JUDGE_STOP, Shape, opening, title_shapes
from quest.topic_words import TopicWords, mainland_terms, title_words
from quest.weak_names import WeakName, bare_ids, confirmed, fuzzy_names
from quest.zh_numbers import ordinal_ids

RULES = ("field", "id", "title", "name", "reworded", "code", "consensus", "none")

_PUNCT = re.compile(r"[\s\-_·.,:;!?'\"()（）【】\[\]，。：；！？、《》<>/]+")
# Ids with a marker that says "this is a problem number". Group 1 is the id.
_ID_PATTERNS: tuple[re.Pattern[str], ...] = tuple(re.compile(p, re.I) for p in (
    r"problem\.php\?(?:[^\s#]*&)?(?:id|pid)=(\w+)",
    r"/p/([A-Za-z]*\d+)\b",
    r"/problem/(\d+)\b",
    r"(?:codeforces|cf)\s*(?:problem\s*)?(\d+\s*[A-Za-z]\d?)\b",
    r"(?<![a-z])(?:leetcode|lc|力扣|领扣|lintcode|luogu|洛谷|hdu|poj|zoj|uva|acwing|problem|题目|题号)(?:\s*|[-_.])(?:no\.?|#|:|：)?\s*"
    r"([A-Za-z]?\d+)\b",
    r"(?:牛客网?|nowcoder)\s*(?:题号|#|:|：)?\s*([A-Za-z]{1,3}\d+)\b",  # NC78, BM1
    r"第\s*(\d+)\s*[题題]",  # and in traditional characters: "第 283 題"
    r"(?<![\d.])(\d+)\s*[题題](?!目)",
    # "316和1081 这两题", "70、746 两道题": ids listed before a count of problems (round 10).
    r"(?<![\d.])(\d+)\s*(?:和|与|跟|、|,|，|/)\s*\d+\s*(?:这|那)?\s*[两二几三]\s*[道个]?\s*[题題]",
    r"(?:^|\s)#(\d+)\b",
    r"^\s*(\d+)\s*[.、．:：]\s*(?=\D)",
))
_CONTEST = re.compile(r"(?:bi)?weekly\s+contest\s*\d*|contest\s*\d+|round\s*#?\s*\d+|div\.?\s*[1-4]|"
                      r"(?:双)?周赛\s*(?:第?\s*\d+\s*场)?|比赛|模拟赛", re.I)
_GENERIC_MARKER = re.compile(r"\s*(?:problem|题目|题号|第|#|\d)", re.I)
_OTHER_JUDGE = re.compile(r"\s*(?:luogu|洛谷|hdu|poj|zoj|uva|acwing|牛客|nowcoder|codeforces|cf)", re.I)
_SLUG = re.compile(r"leetcode(?:-cn)?\.(?:com|cn)/problems/([a-z0-9-]+)", re.I)
_LONGEST_ID = 7  # judges number problems with at most 5 digits and a letter or two ("P10001", "1899D")
_WHOLE_ID = re.compile(r"^\s*(?:#|p|lc)?\s*0*(\d+)\s*$", re.I)
_COMMENT = re.compile(r"^\s*(?://|#|/\*|\*|--)(.*)$", re.M)


def squash(text: str) -> str:
    """Case-, width-, spacing- and script-insensitive form used for title matching."""
    text = to_simplified(unicodedata.normalize("NFKC", text)).casefold()
    return _PUNCT.sub("", text)


def slug(title: str) -> str:
    """'Implement Trie (Prefix Tree)' -> 'implement-trie-prefix-tree', as judges write it in URLs."""
    return re.sub(r"[^a-z0-9]+", "-", title.lower()).strip("-")


@dataclass(frozen=True)
class Alternative:
    """A base problem the notice offers for a missing one students often confuse with it."""

    problem_id: str
    title_zh: str = ""
    title_en: str = ""

    def label(self, lang: str = "en") -> str:
        """"problem 5 (Longest Palindromic Substring)", "第 5 题（最长回文子串）"."""
        if lang == "zh":
            title = self.title_zh or self.title_en
            return f"第 {self.problem_id} 题（{title}）" if title else f"第 {self.problem_id} 题"
        title = self.title_en or self.title_zh
        return f"problem {self.problem_id} ({title})" if title else f"problem {self.problem_id}"


SHOWN_OPTIONS = 6  # the ambiguity notice lists at most this many of the problems a name fits, then how many more
SHOWN_NAME_CHARS = 60  # a notice echoes at most this much of a name from the question (5,000 digits are an "id")


def shown_name(name: str, lang: str = "en") -> str:
    """A name the question gave, as a notice echoes it: escaped and cut, its full length said."""
    if lang == "zh" and len(name) > SHOWN_NAME_CHARS:
        return f"{quoted(name[:SHOWN_NAME_CHARS], bare=True)}……（共 {len(name)} 个字符）"
    return quoted(name, SHOWN_NAME_CHARS, bare=True)


def carried_name(name: str | None) -> str | None:
    """A name from the question as the plan's JSON (`search --json`, `ask`'s stats, the feedback log) carries it:
    whole up to `SHOWN_NAME_CHARS`, else that much of it and its length, so a 5,000-digit "id" is still recognisable
    without the plan repeating the paste. Not escaped: JSON escapes what it must."""
    if name is None or len(name) <= SHOWN_NAME_CHARS:
        return name
    return f"{name[:SHOWN_NAME_CHARS]}... ({len(name)} characters)"


@dataclass(frozen=True)
class Resolution:
    problem_id: str | None = None
    rule: str = "none"  # one of RULES
    evidence: str = ""  # what matched, e.g. "#239" or the title
    # An id (or, by the rules "title" and "name", a title) named in the request that the base does not have.
    missing_id: str | None = None
    # Several imported problem sets share the id named: which ones (qualified ids), to ask.
    candidates: tuple[str, ...] = ()
    # A missing problem named by a name students often give a base problem (`quest.known_problems.CONFUSED_WITH`):
    # the base problems they may mean, offered in the notice; the search still keeps to general documents.
    alternatives: tuple[Alternative, ...] = ()
    known_as: str | None = None  # the missing problem's judge and id ("LeetCode 409"), when it has alternatives

    @property
    def ambiguous(self) -> bool:
        """A shortened name several problems' titles fit (`_ambiguous`): nothing resolved, the student is asked which.
        Its options are the base problems (`alternatives`) and the known ones the base lacks (`candidates`): either
        may be empty (an imported base may hold every problem the name fits)."""
        return self.problem_id is None and self.missing_id is None and self.rule in ("title", "name") and \
            bool(self.candidates or self.alternatives)

    def describe(self, lang: str = "en") -> str:
        """One line for the UI, `search` and the API."""
        if self.alternatives and self.missing_id is not None:
            named = f"「{self.missing_id}」（{self.known_as}）" if self.known_as else f"「{self.missing_id}」"
            if lang == "zh":
                options = "、".join(a.label("zh") for a in self.alternatives)
                return (f"题目{named}不在知识库中。你是不是想问{options}？"
                        f"在题号栏填入 {self.alternatives[0].problem_id} 即可检索该题。")
            named = f'"{self.missing_id}" ({self.known_as})' if self.known_as else f'"{self.missing_id}"'
            options = " or ".join(a.label("en") for a in self.alternatives)
            return (f"problem {named} is not in the knowledge base; did you mean {options}? "
                    f"Put {self.alternatives[0].problem_id} in the problem field to search it.")
        if self.ambiguous:
            options = [a.label(lang) for a in self.alternatives] + list(self.candidates)
            if len(options) > SHOWN_OPTIONS:  # an imported base: a shortening may fit hundreds of its titles
                more = len(options) - SHOWN_OPTIONS
                options = [*options[:SHOWN_OPTIONS], f"另外 {more} 道题" if lang == "zh" else f"{more} more"]
            named = shown_name(self.evidence, lang)  # a fitting name is a title's length; bounded all the same
            if lang == "zh":
                lacking = "（不在知识库中的题只能参考通用资料）" if self.candidates else ""
                return (f"「{named}」可能指几道题：{'、'.join(options)}，你指的是哪一道？在题号栏填入题号即可"
                        f"检索该题{lacking}。")
            lacking = " (a problem not in the knowledge base gets general material only)" if self.candidates else ""
            return (f'"{named}" may name several problems: {", ".join(options)}; which one do you mean? '
                    f"Put its id in the problem field{lacking}.")
        if self.candidates:
            options = "; ".join(self.candidates)
            return (f"有多个题目是 {self.evidence}，你指的是哪一个：{options}？" if lang == "zh"
                    else f"several problems are {self.evidence}; which one do you mean: {options}?")
        if self.missing_id is not None and self.rule in ("title", "name"):  # named by its title
            return (f"题目「{shown_name(self.missing_id, lang)}」不在知识库中" if lang == "zh"
                    else f'problem "{shown_name(self.missing_id)}" is not in the knowledge base')
        if self.missing_id is not None:
            return (f"题目 {shown_name(self.missing_id, lang)} 不在知识库中" if lang == "zh"
                    else f"problem {shown_name(self.missing_id)} is not in the knowledge base")
        if self.problem_id is None:
            return "未识别出题目" if lang == "zh" else "no problem recognised"
        how = {"field": ("from the problem field", "来自题号栏"), "id": ("by its id in the text", "按文中的题号"),
               "title": ("by its title in the question", "按问题中的题目名称"),
               "reworded": ("by its title, reworded, in the question", "按问题中改写的题目名称"),
               "code": ("by the judge's function name in the code", "按代码中评测平台的函数名"),
               "consensus": ("because most top sources are about it", "因为大多数检索结果属于该题")}[self.rule]
        return f"题目 {self.problem_id}（{how[1]}）" if lang == "zh" else f"problem {self.problem_id} ({how[0]})"


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


@dataclass(frozen=True)
class QueryParts:
    """The parts of a retrieval query, each searched on its own and fused (see Retriever.search)."""

    question: str = ""
    error: str = ""
    code: str = ""
    problem: str = ""  # the resolved problem's titles: every document of it is on topic
    verdict: str = ""  # a verdict a long question names in words (no error pasted): vouches, never orders

    def as_dict(self) -> dict[str, str]:
        pairs = (("question", self.question), ("error", self.error), ("code", self.code), ("problem", self.problem),
                 ("verdict", self.verdict))
        return {k: v for k, v in pairs if v}

    def text(self) -> str:
        return "\n".join(self.as_dict().values())


@dataclass(frozen=True)
class Plan:
    request: Request
    problem: Problem | None
    resolution: Resolution
    report: JudgeReport
    parts: QueryParts
    exclude_kinds: frozenset[str]
    lang: str  # answer language
    direct: bool  # the whole question names the problem and nothing else was given
    extra: Mapping[str, Any] = field(default_factory=dict)

    @property
    def problem_id(self) -> str | None:
        return self.problem.id if self.problem is not None else None

    @property
    def confirm_timings(self) -> Mapping[str, float]:
        """The first, confirming search's stage timings (ms) when `retrieve` searched twice; empty otherwise."""
        return self.extra.get("confirmed_after", {})

    def to_dict(self) -> dict[str, Any]:
        r = self.resolution
        return {"problem_id": self.problem_id, "rule": r.rule, "evidence": carried_name(r.evidence),
                "missing_id": carried_name(r.missing_id),
                "candidates": list(r.candidates), "alternatives": [a.problem_id for a in r.alternatives],
                "resolution": r.describe(self.lang), "direct": self.direct, "verdict": self.report.verdict,
                "kind": self.report.kind, "exception": self.report.exception, "parts": self.parts.as_dict(),
                "exclude_kinds": sorted(self.exclude_kinds), "lang": self.lang}


# --------------------------------------------------------------------------- resolution rules


def _named(raw: str | None, rule: str, evidence: str, cat: Catalogue) -> Resolution | None:
    """The problem an id names: a starter id, a qualified `source:id`, or an imported judge's own
    number when only one problem set has it (several: the resolution lists them, to ask)."""
    pid = normalize_problem_id(raw)
    if pid is None:
        return None
    found = resolve_problem(raw, cat.problems)
    if found.problem is not None:
        return Resolution(found.problem.id, rule, evidence)
    if found.ambiguous:
        return Resolution(None, rule, evidence, candidates=tuple(p.id for p in found.candidates))
    return Resolution(None, rule, evidence, missing_id=pid)


def by_field(request: Request, cat: Catalogue) -> Resolution | None:
    return _named(request.problem_id, "field", normalize_problem_id(request.problem_id) or "", cat)


def _id_in(text: str, cat: Catalogue) -> Resolution | None:
    m = _SLUG.search(text)
    if m:
        pid = cat.slugs.get(m.group(1).strip("-").lower())
        return Resolution(pid, "id", m.group(0), missing_id=None if pid else m.group(1))
    m = _first_id(text)
    if m is not None:
        return _id_named(m, text, cat)
    return _leading_number_with_title(text, cat)


def _first_id(text: str) -> re.Match[str] | None:
    """The id the text names first. A post names its own problem before the ones it compares it with
    ("407. 接雨水 II 是二维版，42 题那种双指针用不上", "LeetCode 213 … 198 题的做法"), so the earliest marked
    id wins, whichever pattern marks it; at one position the more explicit pattern (listed first) does."""
    found = []
    for order, pattern in enumerate(_ID_PATTERNS):
        m = next((m for m in pattern.finditer(text) if not _test_or_frame_number(m, text)), None)
        if m and len(m.group(1)) <= _LONGEST_ID:  # "problem: 1534236469 should give 0" is input, not an id
            found.append((m.start(), order, m))
    return min(found, key=lambda f: f[:2])[2] if found else None


# "#5" is a test number after "test"/"case"/"用例" ("Wrong answer on test #5") and a stack frame before an
# address ("#0 0x55d1 in main" in every sanitizer report): neither names a problem.
# Codeforces' per-test report writes "Test: #7, time: …".
_TEST_BEFORE = re.compile(
    r"(?:test(?:\s*case)?|case|sample|example|input|output|line|用例|测试点|样例|数据)\s*[:：]?\s*$", re.I)
# gdb prints "#0  main () at a.cc:23" (no address for the innermost frame).
_FRAME_AFTER = re.compile(r"\s+(?:0x[0-9a-f]+|in\s|[\w:~<>]+\s*\([^)\n]*\)\s+at\s)", re.I)
# A judge that lists each test's result numbers the tests: ZeroJudge prints "#3: WA (line:1)" and "#0: 20% AC (2ms,
# 316KB)" under the overall "NA (score:40%)". A "#N:" followed by a verdict's abbreviation or a score is a test.
# Luogu's and Hydro's tables have no colon but give the test's time after its result ("#2 WA 4ms/648.00KB", "#3 Wrong
# Answer 5ms 1.2 MiB"): a "#N" with a result and a time is a test; "#15 TLE" alone may still be a problem.
_TEST_RESULT_AFTER = re.compile(
    r"\s*[:：]\s*(?:\d{1,3}\s*%\s*)?(?:AC|WA|TLE|MLE|OLE|RE|CE|PE|SE|NA)\b|"
    r"[ \t]+(?:AC|WA|TLE|MLE|OLE|RE|RTE|CE|PE|SE|IR|(?i:accepted|wrong answer|time limit exceeded|"
    r"memory limit exceeded|output limit exceeded|runtime error|compile error|time exceeded|memory exceeded|"
    r"output exceeded))"
    r"[ \t]+[<>]?\d{1,6}(?:\.\d{1,3})?[ \t]*(?:ms|s)\b")


def _test_or_frame_number(m: re.Match[str], text: str) -> bool:
    if not m.group(0).lstrip().startswith("#"):
        return False
    return bool(_TEST_BEFORE.search(text[:m.start(1) - 1]) or _FRAME_AFTER.match(text, m.end()) or
                _TEST_RESULT_AFTER.match(text, m.end()))


def _id_named(m: re.Match[str], text: str, cat: Catalogue) -> Resolution | None:
    """The problem an id pattern's match names, minding whose numbering the id is in."""
    contest = _CONTEST.search(text)
    if contest and _GENERIC_MARKER.match(m.group(0)) and not re.search(r"[/?]", m.group(0)):
        # "weekly contest 380 problem 3", "周赛第3题": a contest's problem, not the starter problem 3.
        named = f"{contest.group(0).strip()} {m.group(0).strip()}"
        return Resolution(None, "id", named, missing_id=named)
    found = _named(m.group(1), "id", m.group(0).strip(), cat)
    url = _other_judge_url(text, m.start())
    if found is not None and found.problem_id is not None and url and not cat.problems[found.problem_id].source_name:
        # "codeforces.com/problemset/problem/1143/A" or HDU's "showproblem.php?pid=1143" is that judge's
        # problem 1143, not the starter problem numbered 1143 (imported problems carry their source).
        return Resolution(None, "id", url, missing_id=url)
    if found is None or not _OTHER_JUDGE.match(m.group(0)) or found.candidates:
        return found
    if found.problem_id is None or not cat.problems[found.problem_id].source_name:
        # The starter problems carry LeetCode's numbers: "AcWing 1" or "POJ 1000" is another
        # problem, and it is reported with its judge's name ("洛谷 P1001", not "1001").
        return Resolution(None, "id", found.evidence, missing_id=found.evidence)
    return found


# Judges whose problem pages are never the starter base's: a numeric id in their URLs is their own.
_OTHER_JUDGE_HOST = re.compile(
    r"(?:^|\.)(?:codeforces\.com|hdu\.edu\.cn|poj\.org|luogu\.com\.cn|acwing\.com|nowcoder\.com|atcoder\.jp|"
    r"vjudge\.net|zoj\.pintia\.cn|pintia\.cn|onlinejudge\.org|spoj\.com|kattis\.com|hackerrank\.com)$", re.I)
_URL = re.compile(r"https?://([^/\s?#]+)[^\s]*", re.I)


def _other_judge_url(text: str, at: int) -> str | None:
    """The URL (without its scheme) around position `at` when it is on another judge's site."""
    for url in _URL.finditer(text):
        if url.start() <= at < url.end() and _OTHER_JUDGE_HOST.search(url.group(1).split(":")[0]):
            return url.group(0).split("://", 1)[1].rstrip("/.,;:)）。，")[:80]
    return None


def _leading_number_with_title(text: str, cat: Catalogue) -> Resolution | None:
    """'146 LRU缓存机制 ...': a bare leading number counts when that problem's title follows it."""
    m = re.match(r"^\s*(?:No\.\s*)?(\d+)\s+(\S.*)", text, re.S)  # "No. 11 盛水…": a problem list's numbering
    if m and m.group(1) not in cat.problems:  # "371 sum of two integers in C: …" (`quest.leading_ids`)
        named = leading_title(text)
        return Resolution(None, "id", f"{named[0]} {named[1]}", missing_id=named[0]) if named else None
    if not m:
        return None
    p = cat.problems[m.group(1)]
    rest = squash(m.group(2))
    if any(t and squash(t)[:4] and rest.startswith(squash(t)[:4]) for t in (p.title_zh, p.title_en)):
        return Resolution(p.id, "id", m.group(0)[:40].strip())
    return None


def by_id(request: Request, cat: Catalogue) -> Resolution | None:
    question = unicodedata.normalize("NFKC", request.question)  # full-width "２３９．" is 239.
    if _WHOLE_ID.match(question):
        return _named(question, "id", question.strip(), cat)
    comments = "\n".join(m.group(1) for m in _COMMENT.finditer(request.code or ""))
    for text in (question, unicodedata.normalize("NFKC", request.error), comments):
        found = _id_in(text, cat) if text else None
        if found is not None:
            return found
    led = without_lead_in(question)
    found = _id_in(led, cat) if led != question else None  # "做 27. 移除元素 的时候", "Solving 371 Sum of …: …"
    return found if found is not None else _zh_ordinal(question, cat)


_EN_LEAD_IN = re.compile(r"^\s*(?:(?:i\s*(?:'m|am|was)\s+)?(?:" + "|".join(sorted(LEAD_IN_WORDS)) + r")\s+)+", re.I)


def without_lead_in(question: str) -> str:
    """The question without the words before its subject that say when and what the student does ("今天做", "练习",
    "Doing", "For"): they are no part of a title (round 10), nor of the id label that opens one ("做 27. 移除元素")."""
    zh = ZH_LEAD_IN_PREFIX.match(question)
    if zh and zh.group(0).strip():
        return question[zh.end():]
    en = _EN_LEAD_IN.match(question)
    return question[en.end():] if en else question


_LEETCODE_BEFORE = re.compile(r"(?:leetcode|lc|力扣|领扣)\s*(?:上的?|的)?\s*$", re.I)


def _zh_ordinal(question: str, cat: Catalogue) -> Resolution | None:
    """"力扣第一题", "第一题两数之和": a number in Chinese numerals after LeetCode's name or beside that
    problem's title (alone, "第一题" is just the first problem of some set; `quest.zh_numbers`)."""
    for m, number in ordinal_ids(question):
        problem = cat.problems.get(number)
        titled = problem is not None and any(t and squash(t) in squash(question) for t in (problem.title_zh,
                                                                                            problem.title_en))
        if titled or _LEETCODE_BEFORE.search(question[:m.start()]):
            return Resolution(number, "id", m.group(0)) if problem else Resolution(None, "id", m.group(0),
                                                                                    missing_id=number)
    return None


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
# A qualifier that is only a sequel's number ("ii", "iv", "2"): read where it follows the title (`sequel_after`).
_SEQUEL_ONLY = re.compile(r"(?:i{1,3}|iv|vi{0,3}|ix|x|[0-9])")


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


_ROMAN_OR_DIGIT = re.compile(r"[ivx]+|\d+")


def _sequel_shown(mark: str) -> str:
    return mark.upper() if _ROMAN_OR_DIGIT.fullmatch(mark) else mark


_JUDGE_BEFORE = re.compile(rf"(?<![a-z0-9])(?:{JUDGES})(?![a-z0-9])\s*(?:上的?|的)?\s*(?:题目?|problem)?\s*[:：#]?\s*$",
                           re.I)


def without_title(question: str, title: str) -> str:
    """`question` minus the words of `title` (matched as titles are: case, width, spacing, script)."""
    norm = normalize(question)
    key = squash(title)
    if len(norm) != len(question) or not key:  # positions would not line up: keep the question whole
        return question
    text, where = _squash_positions(norm)
    at = text.find(key)
    if at < 0:
        return question
    start, end = where[at], where[at + len(key) - 1] + 1
    before = _JUDGE_BEFORE.sub("", question[:start])  # "力扣 ", "蓝桥杯 ": they name the same problem
    return f"{before} {question[end:]}".strip()


def without_names(question: str, problem: Problem, resolution: Resolution) -> str:
    """The question without the resolved problem's id and titles.

    The problem part carries its titles, and they match every document of the problem alike. Left in
    the question, they match most the document that repeats them most (the official solution), so it
    led even when the student's bug has its own document — the order a filled problem field gives.
    """
    if resolution.rule == "id" and resolution.evidence:
        question = _without_id(question, resolution.evidence)
    titles = sorted((t for t in (problem.title_zh, problem.title_en, *problem.aka) if t), key=len, reverse=True)
    for pid in {problem.id, problem.display_id}:  # "做 300. 最长上升子序列": the number beside the title
        question = _without_problem_number(question, pid, titles)
    for name in titles:
        question = without_title(question, name)
    if resolution.rule in ("title", "reworded") and len(resolution.evidence) > 2:  # a title as written
        question = without_title(question, resolution.evidence)
    return question.strip(" \t-–—:：,，.。|")


def _without_problem_number(question: str, pid: str, titles: Sequence[str]) -> str:
    """The question without the problem's number where it names the problem: marked ("#3", "第3题", "LC3",
    "3."), opening the question, or just before a title ("做 300 最长上升子序列"). Elsewhere the same number is
    the student's data ("abba" 输出 3, 预期 2) and stays."""
    edge = r"(?<![\w.\[,=<>])(?<![=<>] )"
    number = re.escape(pid)
    marked = rf"{edge}(?:(?:#|第|LC|lc){number}(?:\.|题|題)?|{number}(?:\.|题|題))(?![\w\],])"
    named = "|".join(re.escape(t) for t in titles) or r"(?!)"
    beside = rf"{edge}{number}(?=\s*(?:{named}))|^\s*{number}(?![\w.\],])"
    return re.sub(rf"{marked}|{beside}", " ", question, flags=re.I)


def _without_id(question: str, evidence: str) -> str:
    """The question without the id that named the problem ("LC239", "42.", a judge URL)."""
    leading = re.match(r"^(\d+)\s+\S", evidence)  # "146 LRU缓存机制 ...": the evidence runs on into the title
    if leading:
        return re.sub(rf"^\s*{leading.group(1)}\b", " ", question, count=1)
    if "/" in evidence:  # the whole URL the id came from
        return re.sub(rf"\S*{re.escape(evidence)}\S*", " ", question, count=1)
    return question.replace(evidence, " ", 1)


def _squash_positions(text: str) -> tuple[str, list[int]]:
    """`squash` of an already normalized text, with each kept character's position in `text`."""
    kept = [(i, ch) for i, ch in enumerate(text) if not _PUNCT.fullmatch(ch)]
    return "".join(ch for _, ch in kept), [i for i, _ in kept]


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


# Where a title that opens the question ends: the question's end, a space or a punctuation mark, a reference to it
# ("这道题"), or a word about judging glued to it ("求众数超时"; `quest.title_shapes.JUDGE_STOP`).
_KNOWN_END = re.compile(r"$|[\s,，.。:：?？!！;；、()（）\[\]【】\-–—]|这道题|这题|那道题")
_HAN_END = re.compile(r"[\u4e00-\u9fff]$")
# The opening read for a title: longer than any title, short enough to bound the work per question.
_KNOWN_HEAD_CHARS = 80


def by_known_head(request: Request, cat: Catalogue) -> Resolution | None:
    """A question that opens with the exact title of a problem the base lacks names it ("用栈实现队列 pop 的顺序反
    了", "求众数，哈希表超时", "只出现一次的数字 异或为什么能行", "最小栈 getMin 返回错"): reported missing.

    The shape rules read a head by its words and first character, and both mislead here: a title made only of words
    the general documents use reads as a topic ("排序链表", "移动零"), and one that opens with a character sentences
    open with (用, 求) or holds a word that ends titles elsewhere (出现) reads as a sentence. A whole title, set off
    from what follows, is stronger evidence than either. Only the opening counts (after a tag, a plea, the words
    saying what the student does): inside a sentence the same words are as often the student's own ("链表排序怎么
    写"). Tried after `by_title` and `by_shape`: a base title anywhere in the question, one inside a longer title, and
    a title the shapes read (which also know the known titles, `known_title`) are read there first."""
    if not cat.known:
        return None
    opened = opening(unicodedata.normalize("NFKC", request.question))
    led = without_lead_in(opened)
    # One character before the title ("做回文链表，…") is not read as a lead-in, as for the shapes
    # (`quest.title_shapes`): 做, 写 open sentences as often.
    text = (led if len(opened) - len(led) >= 2 else opened)[:_KNOWN_HEAD_CHARS]
    norm = normalize(text)
    squashed, where = _squash_positions(norm)
    found: tuple[str, KnownProblem, int] | None = None
    for key, known in cat.known.items():
        if squashed.startswith(key) and (found is None or len(key) > len(found[0])):
            found = (key, known, where[len(key) - 1] + 1)
    if found is None or any(len(k) > len(found[0]) and squashed.startswith(k) for k in cat.titles):
        return None
    key, known, end = found
    title = next(t for t in (*known.titles, *(v for t in known.titles for v in number_spellings(t)))
                 if squash(t) == key)
    if title[-1:] in ")）" and norm[end:end + 1] in (")", "）"):
        end += 1  # "Pow(x, n)": the bracket that closes the title is the title's
    span = (text if len(text) == len(norm) else norm)[where[0]:end]  # as written ("回文數"), where positions agree
    glued_latin = bool(_HAN_END.search(span)) and norm[end:end + 1].isascii() and norm[end:end + 1].isalnum()
    if not (_KNOWN_END.match(norm, end) or JUDGE_STOP.match(norm, end) or glued_latin) or \
            sequel_after(norm, end) is not None or known_title(span, cat) is None:
        return None  # "移动零的写法": the words run on; "跳跃游戏 III": another problem
    if span.isascii() and not _capitalized_as(span, title):
        return None  # "sort list of tuples by key": English words of a sentence, not the title Sort List
    return Resolution(None, "name", span, missing_id=span)


def _capitalized_as(span: str, title: str) -> bool:
    """Every word the published English title capitalizes is capitalized in `span` too (a title is written in Title
    Case; a sentence that happens to open with its words is not)."""
    mine, theirs = re.findall(r"[A-Za-z0-9]+", span), re.findall(r"[A-Za-z0-9]+", title)
    return len(mine) == len(theirs) and all(not b[:1].isupper() or a[:1].isupper() for a, b in zip(mine, theirs,
                                                                                                    strict=True))


def by_shape(request: Request, cat: Catalogue) -> Resolution | None:
    """A title named by its shape alone (`quest.title_shapes`: a head, quotes, "X这道题", "the X problem",
    a slug, a judge's URL): a base problem when it is one of the base's titles (or close to one), nothing
    when its words are a topic's, else a problem the base does not have."""
    if cat.topics is None:
        return None
    for shape in title_shapes(request.question):
        found = _shape_named(shape, request.question, cat, cat.topics)
        if found is not None and not (found.missing_id and shape.how == "studied"):
            return found
    return None


def _shape_named(shape: Shape, request_text: str, cat: Catalogue, topics: TopicWords) -> Resolution | None:
    if shape.how == "url":  # a problem page the id and slug rules did not find in the base
        return Resolution(None, "name", shape.text, missing_id=shape.text)
    if shape.how == "slug" and shape.text in cat.slugs:
        return Resolution(cat.slugs[shape.text], "title", shape.text)
    shape = Shape(without_technique(shape.text, cat), shape.how) if shape.how != "slug" else shape
    text = shape.text.replace("-", " ") if shape.how == "slug" else shape.text
    key = squash(text)
    if key in cat.weak and key != squash(request_text):  # "二分查找 边界总是差一" is about the technique
        return None
    if key_written := _title_key(text, cat):
        return Resolution(cat.titles[key_written], "title", shape.text)
    if key in cat.techniques or topics.is_technique(text):  # "Sliding Window", "Binary Search"
        return None
    mainland = mainland_terms(text)  # "二元樹的最大深度": 104 in Taiwan's words
    if known_title(text, cat) is not None or (mainland is not None and known_title(mainland, cat) is not None):
        # "最小栈", "“多数元素”", "做移动零的时候": a known title the base lacks, even when its words are a topic's
        return Resolution(None, "name", shape.text, missing_id=shape.text)
    starts = [title for title in cat.titles if title.startswith(key) and _likeness(key, title) == 1.0]
    if starts:  # "Kth Largest Element": a clear start of a base title
        return Resolution(cat.titles[starts[0]], "title", shape.text)
    if mainland is not None and (key_mainland := _title_key(mainland, cat)):
        return Resolution(cat.titles[key_mainland], "title", shape.text)
    if key not in cat.weak and any(sibling_title(_units(t), [_units(t) for t in cat.shown.values()])
                                   for t in (text, mainland) if t):
        return Resolution(None, "name", shape.text, missing_id=shape.text)  # "二叉树的最小深度" beside 最大深度
    for t in (text, mainland) if key not in cat.weak else ():
        at = reordered_title(title_words(t), cat.zh_title_words) if t else None
        if at is not None and cat.zh_title_keys[at] not in cat.weak:  # "链表反转" is 206
            return Resolution(cat.titles[cat.zh_title_keys[at]], "title", shape.text)
        if t and structure_swapped(title_words(t), cat.zh_title_words) is not None:  # "反转二叉树" beside 反转链表
            return Resolution(None, "name", shape.text, missing_id=shape.text)
    # Part of a base title ("层序遍历" of 二叉树的层序遍历) or a topic's words: not a problem the base lacks.
    # A title written like a call ("Pow(x, n)") is no topic, even when a general page quotes such code.
    topic = shape.how != "call" and topics.is_topic(text, marked=shape.marked)
    if key in cat.techniques or any(key in title for title in cat.titles) or topic:
        return None
    found = _by_name(NamedTitle(text, bounded=shape.bounded), cat)
    if found is not None and found.missing_id is not None:
        reworded = _reworded_base_title(text, cat) or (_reworded_base_title(mainland, cat) if mainland else None)
        if reworded is not None:  # "盛水最多的容器": 11 misremembered, not another problem
            return Resolution(reworded, "title", shape.text)
        return Resolution(None, "name", shape.text, missing_id=shape.text)
    return found


# A phrase with nearly the same characters (Chinese) or words (English) as a base title is that title
# misremembered ("盛水最多的容器", "Container With the Most Water"); "二叉树的最小深度" (7 of 8) is not.
REWORDED = 0.9
_TITLE_FILLERS = frozenset(("the", "a", "an", "of", "in", "to", "with", "and", "for", "的"))


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


def by_sibling_head(request: Request, cat: Catalogue) -> Resolution | None:
    """A question that opens with a base title with one word swapped ("top k frequent words: …") names its sibling
    problem, which the base lacks (`quest.sibling_heads`). Tried after every rule that reads a base title, so a title
    written loosely or reworded is that title first."""
    head = opening_phrase(opening(unicodedata.normalize("NFKC", request.question)))
    if head is None:
        return None
    head = without_technique(head, cat)  # "kth largest element with quickselect" is 215 and how it was solved
    mine = [stem(u) for u in _units(head)]
    at = swapped_title(mine, cat.title_stems)
    if at is None:
        return None
    swapped = next(u for u, theirs in zip(mine, cat.title_stems[at], strict=True) if u != theirs)
    if squash(swapped) in cat.techniques or (cat.topics is not None and cat.topics.is_technique(swapped)):
        return None  # "… Quickselect", "… BFS": the title and a technique, not a sibling
    return Resolution(None, "name", head, missing_id=head)


# A run of Chinese characters set off, with a letter or two inside ("第K大的数", round 20).
_HAN_HEAD = re.compile(r"^[\u4e00-\u9fff](?:[\u4e00-\u9fff]|[A-Za-z0-9]{1,2}(?=[\u4e00-\u9fff]))*"
                       r"(?=$|[\s:：,，?？!！;；(（\-–—])")
# One digit glued to the Chinese run: a title's numeral typed as a digit ("3数之和", round 20), which `opening` takes
# for a list's number ("11盛水…"); tried as written first.
_DIGIT_HAN_HEAD = re.compile(r"^\d[\u4e00-\u9fff]+(?=$|[\s:：,，?？!！;；(（\-–—])")


def by_reworded_head(request: Request, cat: Catalogue) -> Resolution | None:
    """A question that opens with a base title reworded (`by_reworded_title`) where no rule read its opening as a
    title: a run of Chinese characters set off by a space or a mark ("判断链表是否有环，…", "链表有没有环 怎么判断"), or
    the opening phrase up to a clause mark ("detect linked list cycle: …")."""
    glued = _DIGIT_HAN_HEAD.match(to_simplified(unicodedata.normalize("NFKC", request.question)).lstrip())
    found = by_reworded_title(glued.group(0), cat) if glued else None
    if found is not None:
        return found
    opened = opening(unicodedata.normalize("NFKC", request.question))
    han = _HAN_HEAD.match(to_simplified(opened))
    head = han.group(0) if han else opening_phrase(opened)
    if head is None:
        return None
    return by_reworded_title(without_technique(head, cat), cat)


def by_mixed_head(request: Request, cat: Catalogue) -> Resolution | None:
    """A question that opens with a base title said half in Chinese, half in English ("反转 Linked List 递归…",
    "Reverse 链表，…", "二叉树 Maximum Depth"; `quest.reworded_titles.mixed_problems`, round 19): that problem when
    exactly one title pair holds both parts. Known problems the base lacks count too: one of them named so
    ("滑动窗口 Median", "最小 Depth of Binary Tree") is reported missing, as is a sequel's number after the phrase."""
    opened = opening(unicodedata.normalize("NFKC", request.question))
    simplified = to_simplified(opened)  # positions below are in it: "反轉 Linked List II" is read as 反转's
    head = mixed_head(simplified)
    if head is None:
        return None
    han, en, phrase, end = head
    found, taken = mixed_problems(han, en, cat.mixed_titles)
    if len(found) != 1:
        return None
    pid = found.pop()
    if phrase.startswith(han):  # the English words come last: the phrase ends with the last one taken
        words = list(re.finditer(r"[A-Za-z]+", phrase))
        phrase = phrase[:words[taken - 1].end()]
        end = simplified.find(phrase) + len(phrase)
    mark = sequel_after(simplified.casefold(), end)  # normalize(opened): `opened` is NFKC already
    if mark is not None or pid not in cat.problems:  # a sequel, or a known problem the base lacks ("滑动窗口 Median")
        named = f"{phrase} {_sequel_shown(mark)}" if mark is not None else phrase
        return Resolution(None, "name", named, missing_id=named)
    return Resolution(pid, "reworded", phrase)


# Words that say a title's opposite (`by_opposite_title`): "第K小的数" is 215's sibling, not 215.
_OPPOSITE_WORDS = (("小", "大"), ("大", "小"), ("smallest", "largest"), ("largest", "smallest"),
                   ("minimum", "maximum"), ("maximum", "minimum"))
_ASKED_ONLY_TITLES = frozenset(squash(t) for k in ASKED_ONLY for t in k.titles)


def by_opposite_title(name: str, cat: Catalogue) -> bool:
    """Whether `name`, with one word said the other way round, rewords a base title (`by_reworded_title`): the
    sibling problem ("第K小的数" of 第K大元素, "kth smallest element" of Kth Largest Element), which the base lacks."""
    low = name.casefold()
    for mine, theirs in _OPPOSITE_WORDS:
        if low.count(mine) == 1 and by_reworded_title(low.replace(mine, theirs), cat) is not None:
            return True
    return False


def by_known_reworded_head(request: Request, cat: Catalogue) -> Resolution | None:
    """A question that opens with a known problem's title reworded (`quest.known_problems`, by the rules of
    `quest.reworded_titles`: a verb, 是否, a listed synonym, any order), or with a base title's opposite: a
    problem the base lacks, reported missing (round 20). "单链表排序" is 148 排序链表, "判断是否为回文链表" 234,
    "判断是否为平衡二叉树" 110, "第K小的数" the sibling of 215. Tried after every rule that reads a base title in
    the opening. A title of `ASKED_ONLY` counts only reworded: as written it is a topic's name."""
    opened = opening(unicodedata.normalize("NFKC", request.question))
    han = _HAN_HEAD.match(to_simplified(opened))
    if han is None or len(han.group(0)) > 16:  # a clause, not a name
        return None
    head = han.group(0)
    if by_reworded_title(head, cat) is not None:
        return None
    known = reworded_problem(head, cat.known_reword_units, cat.known_reword_index, cat.known_reword_ids)
    if known is not None and squash(head) not in _ASKED_ONLY_TITLES:
        return Resolution(None, "name", head, missing_id=head)
    return Resolution(None, "name", head, missing_id=head) if by_opposite_title(head, cat) else None


# The longest English opening tried word by word (`by_reworded_run`): more words than any starter title has.
RUN_WORDS = 8
_LATIN_RUN = re.compile(r"[A-Za-z][A-Za-z0-9]*(?:[ \t]+[A-Za-z0-9]+)*")


def by_reworded_run(request: Request, cat: Catalogue) -> Resolution | None:
    """An English question that runs on from a base title reworded without a mark to end it ("valid parenthesis stack
    pops on empty"): the longest opening of at most `RUN_WORDS` words that rewords one base title (round 20). Words
    that make it a known problem's title ("valid parenthesis string …", 678) or a sequel ("… ii") name that problem,
    missing, as does an opening that rewords a base title's opposite ("kth smallest element …"). At most
    `RUN_WORDS` lookups a question, each in the units index: a pasted page costs the same."""
    run = _LATIN_RUN.match(opening(unicodedata.normalize("NFKC", request.question)))
    if run is None:
        return None
    words = run.group(0).split()[:RUN_WORDS + 3]
    for n in range(min(len(words), RUN_WORDS), 1, -1):
        if words[n - 1].casefold() in _TITLE_FILLERS:  # "check valid parenthesis with a": the shorter name's
            continue
        name = " ".join(words[:n])
        found = by_reworded_title(name, cat)
        if found is None and not by_opposite_title(name, cat):
            continue
        for more in range(n + 1, min(len(words), n + 3) + 1):  # a longer known title that starts so
            longer = " ".join(words[:more])
            # as written or reworded ("kth smallest element in a bst", "kth largest element stream": 230, 703)
            if squash(longer) in cat.known or reworded_problem(
                    longer, cat.known_reword_units, cat.known_reword_index, cat.known_reword_ids) is not None:
                return Resolution(None, "name", longer, missing_id=longer)
        if found is None:  # a base title's opposite ("kth smallest element …")
            return Resolution(None, "name", name, missing_id=name)
        if n < len(words) and _SEQUEL_ONLY.fullmatch(words[n].casefold()):
            named = f"{name} {_sequel_shown(words[n].casefold())}"
            return Resolution(None, "name", named, missing_id=named)
        return found
    return None


RESOLVERS = (by_field, by_judge_problem, by_id, by_title, by_shape, by_known_head, by_taiwan_title,
             by_reworded_phrase, by_reworded_head, by_mixed_head, by_reworded_run, by_known_reworded_head,
             by_sibling_head)


def resolve(request: Request, cat: Catalogue) -> Resolution:
    """The first rule that names a problem (or a missing one); else the judge's function name in the code
    (`by_code_function`), which also outweighs a name the base does not know that no rule could place; else none."""
    for rule in RESOLVERS:
        found = rule(request, cat)
        if found is not None:
            if found.missing_id is None or found.rule not in ("title", "name") or squash(found.missing_id) in cat.known:
                return _siblings_checked(request.question, found, cat)
            coded = by_code_function(request, cat) if found.rule == "name" else None
            reworded = by_reworded_title(found.missing_id, cat)
            return coded or (reworded and _siblings_checked(request.question, reworded, cat)) or found
    return by_code_function(request, cat) or by_fitting_opening(request, cat) or Resolution()


def _siblings_checked(question: str, found: Resolution, cat: Catalogue) -> Resolution:
    """`found`, unless the name around or behind a base problem's title is a sibling's the base lacks (a qualifier
    beside the title: `_known_qualifier`, `_known_around`) or a shortening several titles fit (`_shortened_fit`)."""
    return (_known_qualifier(question, found, cat) or _known_around(question, found, cat) or
            _shortened_fit(found, cat) or found)


def _ambiguous(name: str, fit: Fit, cat: Catalogue) -> Resolution:
    """A name several problems' titles fit: nothing resolved, and the notice lists them to ask which one (the base
    ones to put in the problem field, the known ones the base lacks by their judge's id)."""
    offered = tuple(Alternative(k, p.title_zh or "", p.title_en or "") for k in fit.fitting
                    if (p := cat.problems.get(k)) is not None)
    lacking = {k.id: k for k in cat.known.values()}
    han = bool(_HAN_CHAR.search(name))
    named = []
    for key in fit.fitting:
        known = lacking.get(key[6:]) if key.startswith("known:") else None
        if known is not None:  # its title in the name's script: "LeetCode 692 (Top K Frequent Words)"
            title = next((t for t in known.titles if bool(_HAN_CHAR.search(t)) == han), known.titles[0])
            named.append(f"{known.judge} {known.id}（{title}）" if han else f"{known.judge} {known.id} ({title})")
    return Resolution(None, "name", name, candidates=tuple(named), alternatives=offered)


def _shortened_fit(found: Resolution, cat: Catalogue) -> Resolution | None:
    """A base problem found by a name that is no title as written ("前K个高频", "最长回文", "最大子数组"), when that
    name fits other problems' titles too and its dropped words told them apart (`quest.name_fits`): ambiguous, or
    the known problem it names instead. A name that rewords the title whole (`by_reworded_title`: its units with a
    listed word said the title's way, "第K大的数" is 第K大元素; or the input's kind left out) keeps what was found:
    only a name with words dropped is read here."""
    if found.problem_id is None or found.rule not in ("title", "reworded") or squash(found.evidence) in cat.titles:
        return None
    if by_reworded_title(found.evidence, cat) is not None:
        return None
    fit = cat.name_fits.fit(found.evidence)
    if fit is None or fit.named == found.problem_id or found.problem_id not in fit.fitting:
        return None
    if fit.named is None:
        return _ambiguous(found.evidence, fit, cat)
    if fit.named.startswith("known:"):
        return Resolution(None, "name", found.evidence, missing_id=found.evidence)
    return None


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


_FITS_FILLERS = frozenset("的之个") | {"a", "an", "the", "of", "in", "to", "with", "and", "for"}


def _stem_word(word: str) -> str:
    """An English word's stem as `quest.name_fits` reads titles."""
    units = name_units(word)
    return next(iter(units)) if units else word


def by_fitting_opening(request: Request, cat: Catalogue) -> Resolution | None:
    """A question no rule resolved that opens with a shortened name (`quest.name_fits`): several problems' titles
    fit it ("buy and sell stock", "top k frequent", "二叉树深度") — ambiguous, asked, never handed to a weak name or the
    search's consensus; or only a known problem's the base lacks ("top k frequent words heap", "binary tree preorder
    traversal", "buy and sell stock with cooldown", in lowercase) — reported missing, as is a known title of two
    words written whole when a word of it is no general page's ("palindromic substrings", "house robber dp"; not
    "sort list", "path sum": `by_known_head` reads those only capitalized). The longest opening that fits a title
    counts (at most `RUN_WORDS` words; a run of Chinese characters set off, whole); a known title shortened into a
    topic's words names nothing."""
    opened = opening(unicodedata.normalize("NFKC", request.question))
    han = _HAN_HEAD.match(to_simplified(opened))
    if han is not None:  # set off whole: glued to more, the characters run on into a sentence ("…出现了两次")
        names = [han.group(0)] if len(han.group(0)) <= 16 else []
    else:
        run = _NAME_RUN.match(opened)
        words = re.split(r"[ \t]+", run.group(0))[:RUN_WORDS] if run else []
        # A small word ends no name: "top k frequent with a heap" fits as "top k frequent", and is echoed so.
        names = [" ".join(words[:n]) for n in range(len(words), 1, -1) if words[n - 1].casefold() not in _FITS_FILLERS]
    for name in names:
        if squash(name) in cat.known and known_title(name, cat) is not None and cat.topics is not None and \
                cat.topics.own_words(name):
            return Resolution(None, "name", name, missing_id=name)
        fit = cat.name_fits.fit(name)
        if fit is None:
            continue
        topic = cat.topics is not None and cat.topics.is_topic(name)
        if topic and fit.kept < TOPIC_NAME_KEPT:
            return None  # "排序数组", "层序遍历": a topic's words that a title holds among others
        if fit.named is None:  # only a base problem among them could be picked silently ("用栈实现" fits 225, 232)
            return _ambiguous(name, fit, cat) if any(k in cat.problems for k in fit.fitting) else None
        if fit.named.startswith("known:") and (squash(name) in cat.known or not topic):
            return Resolution(None, "name", name, missing_id=name)
        return None  # a base problem's shortening: the weak names and the search decide, as before
    return None


# Made of a topic's words, an opening is a shortened name only when it keeps this much of a title ("二叉树深度" 5 of
# 二叉树最大深度's 7 characters); less is the topic ("排序数组" is 4 of 搜索旋转排序数组's 8, "层序遍历" 4 of 7).
TOPIC_NAME_KEPT = 0.7
# An English opening run for `by_fitting_opening`: words, also joined by a hyphen ("n-ary tree …").
_NAME_RUN = re.compile(r"[A-Za-z][A-Za-z0-9]*(?:(?:[ \t]+|-)[A-Za-z0-9]+)*")


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


def by_reworded_title(name: str, cat: Catalogue) -> Resolution | None:
    """The base problem a name the rules read as a missing title rewords ("三数和", "判断链表有环", "最小编辑距离";
    `quest.reworded_titles`): its title's own characters or words with only fillers, a question's verb, a
    superlative or a listed word for the title's set aside. A sequel, a longer title or a sibling adds or swaps a
    unit of its own and stays missing, as does the exact title of a known problem the base lacks (`resolve`)."""
    written = to_simplified(unicodedata.normalize("NFKC", name))  # "三數和", "判斷鏈表有環": as titles are compared
    pid = reworded_problem(written, cat.reword_units, cat.reword_index, cat.titles)
    return Resolution(pid, "reworded", name) if pid is not None else None


# An identifier as code writes it: "maxSlidingWindow" in "Solution.maxSlidingWindow(nums, k)".
_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


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


def by_code_function(request: Request, cat: Catalogue) -> Resolution | None:
    """The base problem whose judge's function name the code (or the error, or the question) holds: LeetCode's
    signature ("def maxSlidingWindow(self, nums, k)", "func numIslands(grid [][]byte) int", a class "LRUCache") is the
    judge's own name for the problem, in whatever words the question names it ("第k大元素", "凑零钱", "三数和").
    Only names no other well-known problem uses are listed (problems.yaml), and code that holds two problems' names
    names neither. Tried after every rule that reads the question's words: a problem named there is the student's."""
    if not cat.functions:
        return None
    text = "\n".join((request.code or "", request.error or "", request.question or ""))
    named = {cat.functions[w]: w for w in _IDENTIFIER.findall(text) if w in cat.functions}
    if len(named) != 1:
        return None
    (pid, name), = named.items()
    return Resolution(pid, "code", name)


def by_consensus(doc_problems: Sequence[str | None], top: int = 5, needed: int = 3) -> str | None:
    """The problem most of the top documents belong to (the first among them), if it is most."""
    head = list(doc_problems[:top])
    if not head or head[0] is None:
        return None
    return head[0] if sum(1 for p in head if p == head[0]) >= needed else None


# --------------------------------------------------------------------------- the plan

# Memory addresses, process ids and register dumps differ on every run ("0x602000000014",
# "==31==", "pc 0x55d1 bp 0x7ffd sp 0x7ffd"): no document holds them, and as unseen words they only
# raise the error part's BM25 bound, so the sanitizer's real words count for less.
_VOLATILE = re.compile(r"==\d+==|\b(?:pc|bp|sp)\s+0x[0-9a-f]+|\b0x[0-9a-f]{4,}\b", re.I)


def without_addresses(error: str) -> str:
    """The error part without the run-specific numbers sanitizers print."""
    lines = (re.sub(r"[ \t]{2,}", " ", _VOLATILE.sub(" ", line)).strip() for line in error.split("\n"))
    return "\n".join(line for line in lines if line)



# A question of at least this many tokens dilutes the verdict it names ("…交上去第三个点就显示运行错误，
# 用的是 C++ 的 vector…"): its BM25 bound grows with every word, so the verdict's own documents fell
# under the floor and an answerable question came back empty.
LONG_QUESTION_TOKENS = 20


def verdict_in_long_question(question: str) -> str:
    """The error part for a long question that names its verdict in words and pasted no error: the
    verdict's names, searched on their own like a pasted verdict line. Empty otherwise."""
    verdict = find_verdict(question)
    # Not a system error: no page is about the judge failing (the answer says whose fault it is).
    if verdict is None or verdict not in VERDICTS or len(tokenize(question)) < LONG_QUESTION_TOKENS:
        return ""
    return f"{verdict} {VERDICT_NAMES['en'][verdict]} {VERDICT_NAMES['zh'][verdict]}"


def catalogue_of(retriever: Any) -> Catalogue:
    cat = getattr(retriever, "catalogue", None)
    if not isinstance(cat, Catalogue):
        return Catalogue(retriever.problems)
    kb = getattr(retriever, "kb", None)
    if cat.topics is None and kb is not None:  # once per retriever: the general documents' words
        cat.learn_topics(f"{d.title}\n{d.text}" for d in kb.documents if d.problem_id is None)
    return cat


def plan(request: Request, retriever: Any, resolution: Resolution | None = None) -> Plan:
    """Plan a validated request: resolve the problem (unless `resolution` is given), parse the error, split the
    query."""
    cat = catalogue_of(retriever)
    weak: tuple[WeakName, ...] = ()
    if resolution is None:
        resolution = with_alternatives(resolve(request, cat), cat)
        if resolution == Resolution():  # no rule named anything: keep the weak names for the search to confirm
            weak = (*bare_ids(request.question, cat.problems), *fuzzy_names(request.question, cat.fuzzy, cat.titles))
    problem = cat.get(resolution.problem_id)
    report = parse("\n".join(x for x in (request.verdict or "", request.error) if x), request.verdict)
    plain = not request.code.strip() and not request.error.strip() and not request.verdict and not request.history
    exact = retriever.exact_match(request.question) if plain else None
    direct = exact is not None and (problem is None or exact.id == problem.id) and resolution.missing_id is None
    if direct:
        problem, resolution = exact, Resolution(exact.id, resolution.rule if problem else "title", request.question)
    code = "\n".join(key_code_lines(request.code, report.lines, limit=8)) if request.code else ""
    titles = " ".join(t for t in (problem.title_zh, problem.title_en) if t) if problem is not None else ""
    bound = MAX_QUERY_CHARS  # each part is bounded on its own: one long part cannot crowd out the others
    question = request.question
    if resolution.missing_id is not None and resolution.rule in ("id", "title", "name"):
        # No general document holds the id or title of a problem the base lacks: its words would only
        # raise the question's BM25 bound and push what does match (the bug, the error) under the floor.
        # A title made of the general documents' own words ("Reverse Integer") stays: they still match.
        if cat.topics is None or resolution.rule == "id" or cat.topics.own_words(resolution.evidence):
            question = without_title(question, resolution.evidence) or question
    elif problem is not None:
        question = without_names(question, problem, resolution)
    error = without_addresses(report.query_text())
    parts = QueryParts(question=with_mainland_words(question.strip()[:bound]), error=error[:bound],
                       verdict="" if error else verdict_in_long_question(question),
                       code=code[:bound], problem=titles)
    return Plan(request=request, problem=problem, resolution=resolution, report=report, parts=parts,
                exclude_kinds=excluded_kinds(request.tier), lang=request.answer_lang(), direct=direct,
                extra={"weak": weak} if weak and not direct else {})


def with_alternatives(resolution: Resolution, cat: Catalogue) -> Resolution:
    """`resolution` with the base problems a missing name is often said for (`quest.known_problems.CONFUSED_WITH`):
    "最长回文串" is 409's title, and many who write it mean 5. Only a name counts (rules "title" and "name"): an id
    ("LeetCode 409") says which problem exactly. The problem stays missing and unmapped — the search keeps to general
    documents, as for any missing problem — and the notice offers the base problem to ask again with."""
    if resolution.missing_id is None or resolution.rule not in ("title", "name"):
        return resolution
    known = cat.known.get(squash(resolution.missing_id))
    if known is None or known.judge != "LeetCode":
        return resolution
    offered = tuple(Alternative(pid, p.title_zh or "", p.title_en or "")
                    for pid in CONFUSED_WITH.get(known.id, ()) if (p := cat.problems.get(pid)) is not None)
    if not offered:
        return resolution
    return dataclasses.replace(resolution, alternatives=offered, known_as=f"{known.judge} {known.id}")


def student_language(p: Plan, prose: bool = False) -> str | None:
    """The programming language the student works in, as the pasted material shows it: the one whose runtime printed
    the error (a Rust panic says Rust whatever the form says), else the one the code is written in
    (`quest.code_language.detect`); None when neither tells.

    The request's language field is not read: it used to default to "python" (the form, the eval loader), and a
    student who never touched it was taken for a Python one (round 13). The default is now "auto", but a validated
    request's field no longer tells a choice from a detection, so the ranking reads the evidence itself.

    With `prose`, a question whose code and error tell nothing gives the one language its words name ("in Java",
    "用 C++ 写的": `quest.prose_language`), if any.
    """
    return p.report.runtime or detect(p.request.code) or (prose_language(p.request.question) if prose else None)


def reports_failure(p: Plan) -> bool:
    """Whether the student reports a failure of their program: a failing verdict (pasted, in the verdict field or named
    in the question), a pasted judge's output that is not its acceptance, or words of the question that describe one
    (`quest.failure_words`: an error, a wrong or missing output, a crash, too slow). The question is read without the
    problem's names ("无重复字符的最长子串" says 重复 of every question about it).

    A student who reports none asks how or why the solution works, and inside a named problem the official solution
    answers that before an error pattern (`Retriever._own_error_first`, round 17)."""
    if p.report.verdict not in (None, "AC"):
        return True
    error = p.request.error.strip()
    if error and p.report.verdict != "AC" and not reports_acceptance(error):
        return True
    if find_verdict(p.request.question) not in (None, "AC"):
        return True
    return describes_failure(p.parts.question)


def with_consensus(p: Plan, doc_problems: Sequence[str | None], cat: Catalogue) -> Plan:
    """The plan with the consensus problem filled in when no rule named one."""
    if p.problem is not None or p.resolution.missing_id is not None or p.resolution.candidates or \
            p.resolution.ambiguous:
        return p  # a name several problems fit is the student's to choose, not the search's
    pid = by_consensus(doc_problems)
    problem = cat.get(pid)
    if problem is None:
        return p
    return Plan(request=p.request, problem=problem, resolution=Resolution(pid, "consensus", pid), report=p.report,
                parts=p.parts, exclude_kinds=p.exclude_kinds, lang=p.lang, direct=False, extra=p.extra)


def retrieve(retriever: Any, p: Plan, *, top_k: int | None = None,
             signals: Any = None) -> tuple[Plan, Any]:
    """Search as the plan says; returns the plan (with a consensus problem, if any) and the result.

    A direct plan searches the bare question (the retriever's exact match lists the problem's
    documents); otherwise the parts are searched separately and fused. A named problem the
    base does not have keeps the search to general documents.
    """
    options: dict[str, Any] = {"problem_id": p.problem_id, "exclude_kinds": p.exclude_kinds, "top_k": top_k,
                               "lang": p.lang}
    if signals is not None:
        options["signals"] = signals
    evidence = error_evidence(p.report, p.request.question)
    if evidence is not None and not p.direct:  # what the error names exactly (quest.retrieval.evidence) orders the lead
        options["evidence"] = evidence
    if p.direct:
        return p, retriever.search(p.request.question, **options)
    if p.extra.get("guessed") is not None:  # the problem is a weak name, not the student's word: still judge topic
        options["problem_guessed"] = True
    # The question's words name a language only for the general pages' order: inside a named problem the runtime
    # and the code decide alone (round 17: measured on the development splits, nothing there needs it).
    prose = bool(getattr(getattr(retriever, "settings", None), "prose_language", True)) and p.problem is None
    language = student_language(p, prose=prose)
    if language is not None:
        options["language"] = language
    options["failure"] = reports_failure(p)
    if p.problem is not None and p.request.code.strip():
        # The whole program, not the code part's key lines: an error pattern's signatures are looked for in it
        # (Retriever._pattern_by_signature; quest.kb.signatures bounds what it reads).
        options["code"] = p.request.code
    result = retriever.search(p.parts.text(), parts=p.parts.as_dict(),
                              general_only=p.resolution.missing_id is not None, **options)
    doc_problems = _doc_problems(result)
    # Only a confident first search confirms a weak name: hits that matched the verdict's words alone (weak) or
    # only the widened retry's lower floor rank that problem's documents by chance, not by the question's topic.
    names = list(p.extra.get("weak", ())) if p.problem is None and not result.low_confidence else []
    name = confirmed(names, doc_problems)
    if name is not None:  # a bare id or a paraphrased title the search agrees with (`quest.weak_names`)
        inside = plan(p.request, retriever, Resolution(name.problem_id, name.rule, name.evidence))
        # The plan says the search ran twice (the first search's timings), so callers can count its cost.
        inside = dataclasses.replace(inside, extra={**inside.extra, "guessed": name,
                                                    "confirmed_after": dict(result.timings)})
        return retrieve(retriever, inside, top_k=top_k, signals=signals)
    return with_consensus(p, doc_problems, catalogue_of(retriever)), result


def _doc_problems(result: Any) -> list[str | None]:
    """The problem of each document the result ranks, a document and its translation once."""
    seen: dict[str, str | None] = {}
    for hit in result.hits:
        seen.setdefault(_doc_key(hit.chunk.doc_id), hit.chunk.problem_id)
    return list(seen.values())


def _doc_key(doc_id: str) -> str:
    return re.sub(r"[-_.](zh|en)$", "", doc_id)
