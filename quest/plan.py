"""One planning stage: request -> Plan (problem, judge report, query parts, exclusions, language).

Every entry point (assistant, `search`, evaluation, benchmark, API) plans a request here and
nothing else builds a retrieval query, so they cannot drift apart.

The problem is resolved by `quest.resolution` (its rules, in order, are listed there); here the
request and the resolution become the query parts, and `retrieve` runs the search the plan says.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from quest.code_language import detect
from quest.failure_words import describes_failure, reports_acceptance
from quest.judge import VERDICT_NAMES, VERDICTS, JudgeReport, find_verdict, parse
from quest.kb.documents import Problem
from quest.policy import excluded_kinds
from quest.problem_names import JUDGES, normalize
from quest.prose_language import prose_language
from quest.query import MAX_QUERY_CHARS, key_code_lines
from quest.request import Request
from quest.resolution import Catalogue, Resolution, by_consensus, carried_name, resolve, squash, with_alternatives
from quest.resolution.words import _squash_positions
from quest.retrieval.evidence import error_evidence
from quest.retrieval.mainland_words import with_mainland_words
from quest.retrieval.tokenize import tokenize
from quest.weak_names import WeakName, bare_ids, confirmed, fuzzy_names


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
