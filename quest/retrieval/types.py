"""What retrieval returns: ranked hits with every signal that put them there."""

from __future__ import annotations

from dataclasses import dataclass, field

from quest.kb.documents import Chunk


@dataclass(frozen=True)
class Signal:
    """One ranked list's opinion of a hit: its 1-based rank and raw score."""

    rank: int
    score: float


@dataclass(frozen=True)
class Hit:
    chunk: Chunk
    score: float  # confidence in 0..1 (cosine similarity or normalized BM25); shown to users
    fused: float = 0.0  # reciprocal-rank-fusion score that ordered the hits
    signals: dict[str, Signal] = field(default_factory=dict)  # "dense", "bm25", "lexical", "exact"
    scope: str = "problem"  # "problem": from the requested problem; "global": fill-up; "exact"


@dataclass(frozen=True)
class SearchResult:
    hits: tuple[Hit, ...]
    mode: str  # "exact" | "hybrid" | "bm25"
    widened: bool = False
    timings: dict[str, float] = field(default_factory=dict)  # stage -> milliseconds
    notices: tuple[str, ...] = ()  # e.g. "embedding model unavailable: BM25 only"
    problem_id: str | None = None
    # The hits cleared the floor only on words the question is not about (its verdict, the judge's name):
    # shown as weak, like a widened search's (quest.retrieval.topic).
    weak: bool = False

    @property
    def low_confidence(self) -> bool:
        """Whether the hits are weak matches: only the widened retry found them, or they are off the topic."""
        return self.widened or self.weak


@dataclass(frozen=True)
class RetrieverStatus:
    """What the UI's status line and the CLI show about retrieval."""

    embedding_mode: str  # "bge-m3 (dense + lexical)" | "dense" | "bm25-only"
    embedding_model: str | None
    documents: int
    chunks: int
    problems: int
    notices: tuple[str, ...] = ()  # e.g. why the embedding model is not in use
    kb_errors: tuple[str, ...] = ()  # knowledge files that failed to load
