"""Hits -> a labelled, length-capped context whose citation numbers stay attached to sources.

Each block looks like::

    [1] 官方题解 | 相似度 0.83 | 滑动窗口最大值 - 官方题解 (题目 239)
    <text>

The number in brackets is the citation the model is asked to use; `Source.number` keeps it
for the UI and for checking the answer's citations afterwards.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from quest.kb.documents import kind_label
from quest.retrieval.types import Hit

CUT_MARK = {"zh": "……（已截断）", "en": "... (truncated)"}
SCORE_WORD = {"zh": "相似度", "en": "score"}
PROBLEM_WORD = {"zh": "题目", "en": "problem"}


@dataclass(frozen=True)
class Source:
    number: int
    chunk_id: str
    doc_id: str
    kind: str
    label: str  # kind label in the student's language
    title: str
    section: str
    problem_id: str | None
    score: float
    text: str  # the text as it went into the context (possibly cut)
    lang: str
    truncated: bool = False
    source_name: str = ""  # the imported problem set it came from ("" for the starter base)
    url: str = ""  # the problem's page on its judge

    def header_in(self, label: str, lang: str) -> str:
        title = self.title if not self.section else f"{self.title} · {self.section}"
        if self.problem_id:
            title += f" ({PROBLEM_WORD.get(lang, 'problem')} {self.problem_id})"
        return f"[{self.number}] {label} | {SCORE_WORD.get(lang, 'score')} {self.score:.2f} | {title}"


@dataclass(frozen=True)
class Context:
    sources: tuple[Source, ...]
    text: str
    lang: str

    def numbers(self) -> set[int]:
        return {s.number for s in self.sources}

    def without_last(self) -> Context:
        """The same context minus its lowest-ranked block (for fitting a token budget)."""
        return render(self.sources[:-1], self.lang)


def render(sources: Sequence[Source], lang: str) -> Context:
    blocks = [f"{s.header_in(s.label, lang)}\n{s.text}" for s in sources]
    return Context(sources=tuple(sources), text="\n\n".join(blocks), lang=lang)


def build_context(hits: Sequence[Hit], *, lang: str = "zh", max_chars: int = 6000) -> Context:
    """Number the hits in order and cap the total length.

    Blocks are added in rank order. A block that does not fit whole is cut to the room that
    is left (if a useful amount remains), so one long document never drops the whole context;
    later blocks that no longer fit are left out.
    """
    lang = lang if lang in ("zh", "en") else "en"
    sources: list[Source] = []
    used = 0
    min_useful = 120
    for hit in hits:
        chunk = hit.chunk
        number = len(sources) + 1
        source = Source(
            number=number,
            chunk_id=chunk.id,
            doc_id=chunk.doc_id,
            kind=chunk.kind,
            label=kind_label(chunk.kind, lang),
            title=chunk.title,
            section=chunk.section,
            problem_id=chunk.problem_id,
            score=float(hit.score),
            text=chunk.text,
            lang=chunk.lang,
            source_name=chunk.source_name,
            url=chunk.url,
        )
        header = source.header_in(source.label, lang)
        separator = 2 if sources else 0
        room = max_chars - used - separator - len(header) - 1
        if room < min_useful:
            break
        if len(chunk.text) > room:
            mark = CUT_MARK[lang]
            text = chunk.text[: room - len(mark)].rstrip() + mark
            source = Source(**{**source.__dict__, "text": text, "truncated": True})
        sources.append(source)
        used += separator + len(header) + 1 + len(source.text)
    return render(sources, lang)
