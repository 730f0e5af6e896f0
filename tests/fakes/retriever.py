"""A hand-written retriever over a few hand-built chunks, recording every call.

It implements the protocol of `quest.retrieval.retriever.Retriever` (status, problems,
search, exact_match, documents). Scoring is plain word overlap, so tests can predict it.
`ignore_exclude=True` makes it a careless retriever that returns excluded kinds anyway,
to prove the assistant filters again.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterator, Mapping
from dataclasses import dataclass

import pytest

from quest.kb.documents import Chunk, Document, Problem, normalize_problem_id
from quest.retrieval.types import Hit, RetrieverStatus, SearchResult, Signal

OFFICIAL_239_CODE = """from collections import deque

def max_sliding_window(nums, k):
    window = deque()
    result = []
    for i, x in enumerate(nums):
        while window and nums[window[-1]] <= x:
            window.pop()
        window.append(i)
        if window[0] <= i - k:
            window.popleft()
        if i >= k - 1:
            result.append(nums[window[0]])
    return result
"""

OFFICIAL_239_TEXT = (
    "单调队列解法：用双端队列保存下标，队首始终是当前窗口最大值的下标。每个下标只入队出队一次，"
    "总复杂度 O(n)。\n\n```python\n" + OFFICIAL_239_CODE + "```\n"
)

ERROR_POP0_TEXT = (
    "Reason: list.pop(0) shifts every remaining element one place left, so each call costs O(k) and a "
    "sliding window over n items costs O(n·k).\n\nFix: use collections.deque and popleft(), which is O(1).\n\n"
    "```python\nfrom collections import deque\nq = deque()\nq.popleft()\n```\n"
)

FAQ_IO_TEXT = "Reading input fast in Python: read everything once with sys.stdin.buffer.read().split()."

EXPLAIN_239_TEXT = "窗口滑动时，过期的下标要从队首弹出；比新元素小的下标要从队尾弹出。"

PROBLEMS = {
    "239": Problem(id="239", title_zh="滑动窗口最大值", title_en="Sliding Window Maximum", difficulty="hard",
                   tags=("sliding_window", "deque", "monotonic_queue")),
    "1": Problem(id="1", title_zh="两数之和", title_en="Two Sum", difficulty="easy", tags=("array", "hash_table")),
}


def _chunk(doc_id: str, kind: str, title: str, text: str, lang: str, problem_id: str | None = None,
           verdicts: tuple[str, ...] = (), tags: tuple[str, ...] = ()) -> Chunk:
    return Chunk(id=f"{doc_id}#0", doc_id=doc_id, ordinal=0, section="", text=text, kind=kind, title=title,
                 lang=lang, problem_id=problem_id, tags=tags, verdicts=verdicts)


def default_chunks() -> list[Chunk]:
    return [
        _chunk("p239-official", "official_solution", "滑动窗口最大值 - 官方题解", OFFICIAL_239_TEXT, "zh", "239",
               tags=("deque", "monotonic_queue", "sliding_window")),
        _chunk("err-list-pop0", "error_pattern", "list.pop(0) is O(k)", ERROR_POP0_TEXT, "en", None,
               verdicts=("TLE",), tags=("python", "deque", "pop", "sliding_window")),
        _chunk("p239-explain", "user_explanation", "滑动窗口最大值 - 讲解", EXPLAIN_239_TEXT, "zh", "239",
               tags=("deque",)),
        _chunk("faq-io", "faq", "Fast input in Python", FAQ_IO_TEXT, "en", None, tags=("python", "input")),
    ]


@dataclass(frozen=True)
class SearchCall:
    query: str
    problem_id: str | None
    exclude_kinds: frozenset[str]
    top_k: int | None
    parts: tuple[tuple[str, str], ...] = ()  # the plan's query parts, when given
    general_only: bool = False
    problem_guessed: bool = False  # the problem is a weak name the first search confirmed (quest.plan.retrieve)
    language: str | None = None  # the student's programming language the plan passed (quest.plan.student_language)


_WORD = re.compile(r"[a-z_][a-z0-9_]*|\d+|[\u4e00-\u9fff]", re.I)
_STOP = {"the", "a", "is", "my", "i", "to", "of", "and", "in", "it", "why", "what", "how", "this", "for", "on"}


def _words(text: str) -> set[str]:
    return {w.lower() for w in _WORD.findall(text)} - _STOP


class FakeRetriever:
    def __init__(self, chunks: list[Chunk] | None = None, *, ignore_exclude: bool = False) -> None:
        self.chunks = default_chunks() if chunks is None else chunks
        self.problems = dict(PROBLEMS)
        self.ignore_exclude = ignore_exclude
        self.searches: list[SearchCall] = []
        self.exact_calls: list[str] = []
        self.document_calls: list[tuple[str | None, frozenset[str] | None]] = []
        self.status = RetrieverStatus(embedding_mode="bm25-only", embedding_model=None,
                                      documents=len(self.chunks), chunks=len(self.chunks), problems=len(PROBLEMS))

    def exact_match(self, text: str) -> Problem | None:
        self.exact_calls.append(text)
        pid = normalize_problem_id(text)
        if pid in self.problems:
            return self.problems[pid]
        for problem in self.problems.values():
            if text.strip() in (problem.title_zh, problem.title_en):
                return problem
        return None

    def documents(self, problem_id: str | None = None, kinds: Collection[str] | None = None) -> list[Document]:
        self.document_calls.append((problem_id, frozenset(kinds) if kinds is not None else None))
        return [
            Document(id=c.doc_id, kind=c.kind, title=c.title, text=c.text, lang=c.lang, problem_id=c.problem_id,
                     tags=c.tags, verdicts=c.verdicts)
            for c in self.chunks
            if (problem_id is None or c.problem_id == problem_id) and (kinds is None or c.kind in kinds)
        ]

    def search(self, query: str, *, problem_id: str | None = None, exclude_kinds: Collection[str] = (),
               top_k: int | None = None, parts: Mapping[str, str] | None = None, lang: str | None = None,
               general_only: bool = False, evidence: object = None, problem_guessed: bool = False,
               language: str | None = None, failure: bool | None = None, code: str | None = None) -> SearchResult:
        self.searches.append(SearchCall(query, problem_id, frozenset(exclude_kinds), top_k,
                                        tuple((parts or {}).items()), general_only, problem_guessed, language))
        excluded = set() if self.ignore_exclude else set(exclude_kinds)
        exact = self.exact_match(query)
        if exact is not None:
            hits = [Hit(chunk=c, score=1.0, fused=1.0, signals={"exact": Signal(1, 1.0)}, scope="exact")
                    for c in self.chunks if c.problem_id == exact.id and c.kind not in excluded]
            return SearchResult(hits=tuple(hits), mode="exact", timings={"total": 0.1}, problem_id=exact.id)
        q = _words(query)
        scored = []
        for c in self.chunks:
            if c.kind in excluded:
                continue
            if problem_id and c.problem_id not in (None, problem_id):
                continue
            overlap = len(q & _words(c.indexed_text + " " + " ".join(c.tags + c.verdicts)))
            if overlap:
                bonus = 2 if problem_id and c.problem_id == problem_id else 0
                scored.append((overlap + bonus, c))
        scored.sort(key=lambda sc: -sc[0])
        scored = scored[: top_k or 6]
        best = scored[0][0] if scored else 1
        hits = tuple(Hit(chunk=c, score=round(s / best, 2), fused=s / 100,
                         signals={"bm25": Signal(i + 1, float(s))}, scope="problem")
                     for i, (s, c) in enumerate(scored))
        return SearchResult(hits=hits, mode="bm25", timings={"total": 1.0}, problem_id=problem_id)


@pytest.fixture
def fake_retriever() -> Iterator[FakeRetriever]:
    yield FakeRetriever()
