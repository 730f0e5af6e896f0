"""Retrieval evaluation: labelled queries, pure ranking metrics, and a runner per retrieval mode.

Everything is measured over DOCUMENT ids: a hit list of chunks becomes the list of their
documents, deduplicated, keeping each document's first (best) rank.

Definitions (labels are graded 1..3; 3 = the answer, 2 = clearly useful, 1 = related):

- A document is *relevant* to a query when its grade is at least ``min(2, top grade)``:
  grade-1 documents only count towards nDCG, unless a query has nothing better.
- ``Recall@k`` (hit-rate style, also called success@k): 1 when at least one relevant document
  is in the top k, else 0; averaged over queries. With a document and its translation both
  labelled, "standard" recall would punish the retriever for not returning both copies,
  which the app deliberately avoids (translations count as one document in its top-k).
  Standard recall (the share of all labelled documents found) is reported too, as
  ``full_recall@k``, in the JSON output.
- ``MRR@k``: 1 / rank of the first relevant document within the top k, else 0.
- ``nDCG@k``: DCG = sum over ranks r of (2^grade - 1) / log2(r + 1), over the top k;
  divided by the DCG of the ideal ranking of the labels (all labelled documents sorted by
  grade, cut at k).
- No-answer queries (``answerable: false``) are counted two ways:
  *empty*: the search returned nothing (what the app shows as "nothing found" today);
  *low confidence*: empty, or nothing cleared the retriever's normal floors (``bm25_floor``,
  ``dense_floor``) so only its single widened retry, with floors lowered by
  ``widen_floor_ratio``, found anything, or (optional) every hit's confidence (``Hit.score``:
  normalized BM25 or cosine similarity, 0..1) is below ``reject_below``. Tying the rule to
  the retriever's own floors makes it mean the same in every mode. The low-confidence rule
  applied to answerable queries gives the *false rejection* rate, its price;
  *handled*: low confidence, or the student was told that the problem they named is not in the
  base (general material may follow under that notice). The floors are calibrated on this one.

Each query is planned exactly as the app plans it (validate the request, then `quest.plan.plan`:
problem resolution, judge parsing, query parts, a direct answer when the bare question names a
problem) and searched with `quest.plan.retrieve`.
"""

from __future__ import annotations

import json
import logging
import math
import time
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from quest.retrieval.retriever import translation_key
from quest.retrieval.types import Hit

log = logging.getLogger(__name__)

#: Retrieval modes and the signals each one uses (None: every signal available).
MODES: dict[str, frozenset[str] | None] = {
    "bm25": frozenset({"bm25"}),
    "dense": frozenset({"dense"}),
    "hybrid": None,
}
NEEDS_EMBEDDER = frozenset({"dense", "hybrid"})

#: Extra confidence threshold for "low confidence" (see the module docstring). 0 disables it:
#: the retriever's own floors already decide, and one number cannot fit both normalized BM25
#: and cosine similarity.
DEFAULT_REJECT_BELOW = 0.0
DEFAULT_K = 10
DEFAULT_QUERIES = Path("knowledge/eval/queries.jsonl")

_REQUIRED = ("id", "question", "lang", "relevant", "answerable")


# --------------------------------------------------------------------------- queries


@dataclass(frozen=True)
class EvalQuery:
    id: str
    question: str
    lang: str  # language of the question: zh | en
    relevant: Mapping[str, int]  # document id -> grade 1..3
    answerable: bool
    problem_id: str | None = None
    language: str = "auto"  # programming language of `code`; "auto" (unset): detected from it, as the app does
    code: str = ""
    error: str = ""
    tags: tuple[str, ...] = ()

    @property
    def groups(self) -> tuple[str, ...]:
        """The breakdown groups this query belongs to: its language, problem or not, its tags."""
        scope = "with_problem" if self.problem_id else "no_problem"
        return (self.lang, scope, *self.tags)


def parse_query(data: Mapping[str, Any], where: str = "") -> EvalQuery:
    """One JSON object -> EvalQuery; ValueError naming `where` on a malformed record."""
    missing = [k for k in _REQUIRED if k not in data]
    if missing:
        raise ValueError(f"{where}: missing field(s) {', '.join(missing)}")
    relevant = data["relevant"]
    if not isinstance(relevant, Mapping):
        raise ValueError(f"{where}: 'relevant' must be an object of document id -> grade")
    grades: dict[str, int] = {}
    for doc_id, grade in relevant.items():
        if not isinstance(grade, int) or isinstance(grade, bool) or not 1 <= grade <= 3:
            raise ValueError(f"{where}: grade of {doc_id!r} must be an integer 1..3, not {grade!r}")
        grades[str(doc_id)] = grade
    answerable = data["answerable"]
    if not isinstance(answerable, bool):
        raise ValueError(f"{where}: 'answerable' must be true or false")
    if answerable != bool(grades):
        raise ValueError(f"{where}: an answerable query needs relevant documents, an unanswerable one none")
    if data["lang"] not in ("zh", "en"):
        raise ValueError(f"{where}: 'lang' must be zh or en")
    pid = data.get("problem_id")
    return EvalQuery(
        id=str(data["id"]),
        question=str(data["question"]),
        lang=str(data["lang"]),
        relevant=grades,
        answerable=answerable,
        problem_id=None if pid is None else str(pid),
        language=str(data.get("language") or "auto"),
        code=str(data.get("code") or ""),
        error=str(data.get("error") or ""),
        tags=tuple(str(t) for t in data.get("tags") or ()),
    )


def load_queries(path: Path | str) -> list[EvalQuery]:
    """Read a JSONL file of labelled queries (blank lines and `//` comments skipped)."""
    path = Path(path)
    queries: list[EvalQuery] = []
    seen: set[str] = set()
    with path.open(encoding="utf-8") as fh:
        for n, line in enumerate(fh, start=1):
            line = line.strip()
            if not line or line.startswith("//"):
                continue
            where = f"{path}:{n}"
            try:
                data = json.loads(line)
            except json.JSONDecodeError as exc:
                raise ValueError(f"{where}: not valid JSON: {exc.msg}") from exc
            if not isinstance(data, dict):
                raise ValueError(f"{where}: each line must be a JSON object")
            query = parse_query(data, where)
            if query.id in seen:
                raise ValueError(f"{where}: duplicate query id {query.id!r}")
            seen.add(query.id)
            queries.append(query)
    return queries


# --------------------------------------------------------------------------- metrics (pure)


def doc_ids(hits: Iterable[Hit]) -> list[str]:
    """Document ids of the hits in rank order, each document once (at its first rank)."""
    out: list[str] = []
    seen: set[str] = set()
    for hit in hits:
        doc = hit.chunk.doc_id
        if doc not in seen:
            seen.add(doc)
            out.append(doc)
    return out


def relevant_set(relevant: Mapping[str, int]) -> frozenset[str]:
    """Documents graded at least min(2, the top grade)."""
    if not relevant:
        return frozenset()
    threshold = min(2, max(relevant.values()))
    return frozenset(d for d, g in relevant.items() if g >= threshold)


def hit_at_k(ranked: Sequence[str], relevant: Mapping[str, int], k: int) -> float:
    """1.0 when a relevant document is among the first k, else 0.0 (our Recall@k)."""
    wanted = relevant_set(relevant)
    return 1.0 if any(d in wanted for d in ranked[:k]) else 0.0


def best_first(ranked: Sequence[str], relevant: Mapping[str, int]) -> float:
    """1.0 when the first document carries the query's top grade (the answer, not only a useful one).

    Stricter than R@1, which also counts a grade-2 document: it shows whether, inside a named problem,
    the document about the student's bug leads the official solution."""
    if not relevant or not ranked:
        return 0.0
    return 1.0 if relevant.get(ranked[0], 0) == max(relevant.values()) else 0.0


def full_recall_at_k(ranked: Sequence[str], relevant: Mapping[str, int], k: int) -> float:
    """Standard recall: the share of all labelled documents (any grade) among the first k."""
    if not relevant:
        return 0.0
    return sum(1 for d in set(ranked[:k]) if d in relevant) / len(relevant)


def reciprocal_rank(ranked: Sequence[str], relevant: Mapping[str, int], k: int) -> float:
    """1 / rank of the first relevant document within the first k, else 0.0."""
    wanted = relevant_set(relevant)
    for rank, doc in enumerate(ranked[:k], start=1):
        if doc in wanted:
            return 1.0 / rank
    return 0.0


def dcg(grades: Sequence[int]) -> float:
    """Sum of (2^g - 1) / log2(rank + 1) over ranks 1..n."""
    return sum((2**g - 1) / math.log2(rank + 1) for rank, g in enumerate(grades, start=1))


def ndcg_at_k(ranked: Sequence[str], relevant: Mapping[str, int], k: int) -> float:
    """DCG of the first k documents over the DCG of the ideal ordering of the labels."""
    ideal = dcg(sorted(relevant.values(), reverse=True)[:k])
    if ideal <= 0:
        return 0.0
    return dcg([relevant.get(d, 0) for d in ranked[:k]]) / ideal


def is_low_confidence(hits: Sequence[Hit], widened: bool, reject_below: float = 0.0) -> bool:
    """True when there are no hits, only the widened retry found them, or none reaches `reject_below`."""
    return not hits or widened or all(h.score < reject_below for h in hits)


def handled_honestly(planned: Any, result: Any, reject_below: float = 0.0) -> bool:
    """A no-answer question is handled honestly when it comes back empty or weak, or when the
    student is told the problem they named is not in the base (general material may follow,
    under that notice, as the issue's not-in-base criterion asks)."""
    return (is_low_confidence(result.hits, result.low_confidence, reject_below)
            or planned.resolution.missing_id is not None)


def mean(values: Iterable[float]) -> float | None:
    values = list(values)
    return sum(values) / len(values) if values else None


# --------------------------------------------------------------------------- running


@dataclass(frozen=True)
class QueryOutcome:
    query_id: str
    mode: str
    ranked: tuple[str, ...]  # document ids, best first
    top_score: float | None
    empty: bool  # no hits at all
    rejected: bool  # low confidence (see is_low_confidence)
    handled: bool  # rejected, or told the named problem is not in the base (see handled_honestly)
    search_mode: str  # what the retriever reported: exact | bm25 | dense | hybrid
    ms: float
    metrics: Mapping[str, float] = field(default_factory=dict)  # answerable queries only
    problem_id: str | None = None  # the problem the plan resolved (any rule)
    rule: str = "none"  # which resolution rule fired
    missing_id: str | None = None  # a named problem the base does not have


@dataclass(frozen=True)
class ModeReport:
    mode: str
    n: int  # answerable queries
    n_unanswerable: int
    metrics: Mapping[str, float | None]  # recall@1, recall@5, mrr@10, ndcg@10, full_recall@10
    empty_rate: float | None  # share of no-answer queries with an empty result
    rejection: float | None  # share of no-answer queries with a low-confidence result
    handled: float | None  # share of no-answer queries handled honestly (see handled_honestly)
    false_rejection: float | None  # share of answerable queries that would be rejected
    mean_ms: float | None
    by_group: Mapping[str, Mapping[str, float | None]]  # group -> {"n", "recall@5", "mrr@10"}
    answerable_empty: float | None = None  # share of answerable queries with no sources at all
    not_in_base_explicit: float | None = None  # share of "not_in_base" queries told so explicitly
    outcomes: tuple[QueryOutcome, ...] = ()


@dataclass(frozen=True)
class EvalReport:
    k: int
    reject_below: float
    embedding_mode: str
    embedding_model: str | None
    modes: tuple[ModeReport, ...]
    skipped: Mapping[str, str]  # mode -> why it did not run
    notices: tuple[str, ...] = ()

    def to_dict(self, *, details: bool = False) -> dict[str, Any]:
        out: dict[str, Any] = {
            "k": self.k,
            "reject_below": self.reject_below,
            "embedding_mode": self.embedding_mode,
            "embedding_model": self.embedding_model,
            "skipped": dict(self.skipped),
            "notices": list(self.notices),
            "modes": {},
        }
        for m in self.modes:
            entry: dict[str, Any] = {
                "n": m.n,
                "n_unanswerable": m.n_unanswerable,
                **{name: _round(v) for name, v in m.metrics.items()},
                "no_answer_empty": _round(m.empty_rate),
                "no_answer_rejected": _round(m.rejection),
                "no_answer_handled": _round(m.handled),
                "false_rejection": _round(m.false_rejection),
                "answerable_empty": _round(m.answerable_empty),
                "not_in_base_explicit": _round(m.not_in_base_explicit),
                "mean_ms": _round(m.mean_ms, 2),
                "by_group": {g: {k: _round(v) for k, v in vals.items()} for g, vals in m.by_group.items()},
            }
            if details:
                entry["queries"] = [
                    {"id": o.query_id, "ranked": list(o.ranked), "top_score": _round(o.top_score),
                     "empty": o.empty, "rejected": o.rejected, "handled": o.handled, "search_mode": o.search_mode,
                     "problem_id": o.problem_id, "rule": o.rule, "missing_id": o.missing_id,
                     **{k: _round(v) for k, v in o.metrics.items()}}
                    for o in m.outcomes
                ]
            out["modes"][m.mode] = entry
        return out


def _round(value: float | None, digits: int = 4) -> float | None:
    return None if value is None else round(value, digits)


def metric_names(k: int) -> tuple[str, ...]:
    return ("recall@1", "recall@5", f"mrr@{k}", f"ndcg@{k}", f"full_recall@{k}", "best@1")


def collapse_translations(ranked: Sequence[str], relevant: Mapping[str, int]) -> tuple[list[str], dict[str, int]]:
    """One entry per document-and-its-translation, as the retriever shows them (its best grade)."""
    seen: set[str] = set()
    collapsed: list[str] = []
    for doc in ranked:
        key = translation_key(doc)
        if key not in seen:
            seen.add(key)
            collapsed.append(key)
    grades: dict[str, int] = {}
    for doc, grade in relevant.items():
        key = translation_key(doc)
        grades[key] = max(grade, grades.get(key, 0))
    return collapsed, grades


def score_ranking(ranked: Sequence[str], relevant: Mapping[str, int], k: int) -> dict[str, float]:
    """All per-query metrics for one ranking.

    A document and its translation count as one: the retriever deliberately shows only one
    of them, so listing both would not make an answer better (nor missing one worse).
    """
    ranked, relevant = collapse_translations(ranked, relevant)
    return {
        "recall@1": hit_at_k(ranked, relevant, 1),
        "recall@5": hit_at_k(ranked, relevant, 5),
        f"mrr@{k}": reciprocal_rank(ranked, relevant, k),
        f"ndcg@{k}": ndcg_at_k(ranked, relevant, k),
        f"full_recall@{k}": full_recall_at_k(ranked, relevant, k),
        "best@1": best_first(ranked, relevant),
    }


def plan_query(retriever: Any, query: EvalQuery, settings: Any) -> Any:
    """The query's Plan, exactly as the app plans the same request (solution tier: nothing excluded)."""
    from quest.plan import plan
    from quest.request import Request, validate_request

    req = validate_request(
        Request(question=query.question, problem_id=query.problem_id, language=query.language,
                code=query.code, error=query.error, tier="solution"),
        settings.replace(max_tier="solution"),
    )
    return plan(req, retriever)


def available_modes(retriever: Any, wanted: Sequence[str]) -> tuple[list[str], dict[str, str]]:
    """The wanted modes that can run, and why the others cannot."""
    run: list[str] = []
    skipped: dict[str, str] = {}
    has_dense = retriever.embedder is not None and retriever.index.dense is not None
    for mode in wanted:
        if mode not in MODES:
            skipped[mode] = "unknown mode"
        elif mode in NEEDS_EMBEDDER and not has_dense:
            skipped[mode] = "no embedding model loaded (BM25 only)"
        else:
            run.append(mode)
    return run, skipped


def evaluate(retriever: Any, queries: Sequence[EvalQuery], *, modes: Sequence[str] = tuple(MODES),
             k: int = DEFAULT_K, reject_below: float = DEFAULT_REJECT_BELOW,
             groups: Collection[str] | None = None) -> EvalReport:
    """Run every query in every available mode and aggregate the metrics."""
    if k < 5:
        raise ValueError("k must be at least 5 (Recall@5 is reported)")
    settings = retriever.settings
    run, skipped = available_modes(retriever, modes)
    for mode, why in skipped.items():
        log.info("skipping mode %s: %s", mode, why)
    from quest.plan import retrieve

    prepared = [(q, plan_query(retriever, q, settings)) for q in queries]
    reports: list[ModeReport] = []
    for mode in run:
        outcomes: list[QueryOutcome] = []
        for query, planned in prepared:
            t = time.perf_counter()
            # Twice k chunks: the retriever keeps up to two chunks per document.
            planned_after, result = retrieve(retriever, planned, top_k=2 * k, signals=MODES[mode])
            ms = (time.perf_counter() - t) * 1000
            ranked = tuple(doc_ids(result.hits)[:k])
            rejected = is_low_confidence(result.hits, result.low_confidence, reject_below)
            metrics = score_ranking(ranked, query.relevant, k) if query.answerable else {}
            outcomes.append(QueryOutcome(
                query_id=query.id, mode=mode, ranked=ranked,
                top_score=max((h.score for h in result.hits), default=None), empty=not result.hits,
                rejected=rejected, handled=handled_honestly(planned_after, result, reject_below),
                search_mode=result.mode, ms=ms, metrics=metrics,
                problem_id=planned_after.problem_id, rule=planned_after.resolution.rule,
                missing_id=planned_after.resolution.missing_id,
            ))
        reports.append(_aggregate(mode, list(zip((p[0] for p in prepared), outcomes, strict=True)), k, groups))
    status = retriever.status
    return EvalReport(k=k, reject_below=reject_below, embedding_mode=status.embedding_mode,
                      embedding_model=status.embedding_model, modes=tuple(reports), skipped=skipped,
                      notices=tuple(status.notices))


def _aggregate(mode: str, pairs: list[tuple[EvalQuery, QueryOutcome]], k: int,
               groups: Collection[str] | None) -> ModeReport:
    answerable = [(q, o) for q, o in pairs if q.answerable]
    unanswerable = [(q, o) for q, o in pairs if not q.answerable]
    metrics = {name: mean(o.metrics[name] for _, o in answerable) for name in metric_names(k)}
    by_group: dict[str, dict[str, float | None]] = {}
    names = sorted({g for q, _ in answerable for g in q.groups})
    for group in names:
        if groups is not None and group not in groups:
            continue
        members = [o for q, o in answerable if group in q.groups]
        by_group[group] = {"n": float(len(members)),
                           "recall@1": mean(o.metrics["recall@1"] for o in members),
                           "recall@5": mean(o.metrics["recall@5"] for o in members),
                           f"mrr@{k}": mean(o.metrics[f"mrr@{k}"] for o in members),
                           "best@1": mean(o.metrics["best@1"] for o in members)}
    return ModeReport(
        mode=mode,
        n=len(answerable),
        n_unanswerable=len(unanswerable),
        metrics=metrics,
        empty_rate=mean(1.0 if o.empty else 0.0 for _, o in unanswerable),
        rejection=mean(1.0 if o.rejected else 0.0 for _, o in unanswerable),
        handled=mean(1.0 if o.handled else 0.0 for _, o in unanswerable),
        false_rejection=mean(1.0 if o.rejected else 0.0 for _, o in answerable),
        mean_ms=mean(o.ms for _, o in pairs),
        by_group=by_group,
        outcomes=tuple(o for _, o in pairs),
        answerable_empty=mean(1.0 if o.empty else 0.0 for _, o in answerable),
        not_in_base_explicit=mean(1.0 if o.missing_id else 0.0 for q, o in pairs if "not_in_base" in q.tags),
    )


# --------------------------------------------------------------------------- output


def _fmt(value: float | None, pct: bool = False) -> str:
    if value is None:
        return "-"
    return f"{value * 100:.1f}%" if pct else f"{value:.3f}"


def format_table(report: EvalReport, *, by_group: bool = True) -> str:
    """A plain-text table: one row per mode, then (optionally) Recall@5 / MRR per group."""
    k = report.k
    header = ["mode", "R@1", "R@5", f"MRR@{k}", f"nDCG@{k}", "no-answer empty", "no-answer low-conf",
              "no-answer handled", "false low-conf", "n", "ms/query"]
    rows = [header]
    for m in report.modes:
        rows.append([
            m.mode, _fmt(m.metrics["recall@1"]), _fmt(m.metrics["recall@5"]), _fmt(m.metrics[f"mrr@{k}"]),
            _fmt(m.metrics[f"ndcg@{k}"]),
            f"{_fmt(m.empty_rate, pct=True)} of {m.n_unanswerable}",
            f"{_fmt(m.rejection, pct=True)} of {m.n_unanswerable}",
            f"{_fmt(m.handled, pct=True)} of {m.n_unanswerable}",
            f"{_fmt(m.false_rejection, pct=True)} of {m.n}",
            str(m.n), "-" if m.mean_ms is None else f"{m.mean_ms:.1f}",
        ])
    lines = [f"embedding: {report.embedding_mode}"
             + (f" ({report.embedding_model})" if report.embedding_model else "")
             + (f"; low confidence below {report.reject_below}" if report.reject_below > 0 else "")]
    lines.extend(_grid(rows))
    for m in report.modes:
        lines.append(f"{m.mode}: answerable with no sources {_fmt(m.answerable_empty, pct=True)}; "
                     f"not-in-base told explicitly {_fmt(m.not_in_base_explicit, pct=True)}; "
                     f"top-graded document first {_fmt(m.metrics.get('best@1'))}")
    for mode, why in report.skipped.items():
        lines.append(f"skipped {mode}: {why}")
    if by_group and report.modes:
        groups = sorted({g for m in report.modes for g in m.by_group})
        grows = [["group", "n", *[f"{m.mode} R@1 / R@5 / MRR" for m in report.modes]]]
        for g in groups:
            n = next((int(m.by_group[g]["n"] or 0) for m in report.modes if g in m.by_group), 0)
            cells = []
            for m in report.modes:
                vals = m.by_group.get(g)
                cells.append("-" if vals is None else
                             f"{_fmt(vals['recall@1'])} / {_fmt(vals['recall@5'])} / {_fmt(vals[f'mrr@{k}'])}")
            grows.append([g, str(n), *cells])
        lines.append("")
        lines.extend(_grid(grows))
    return "\n".join(lines)


def _grid(rows: list[list[str]]) -> list[str]:
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    out = []
    for i, row in enumerate(rows):
        out.append("  ".join(cell.ljust(w) if j == 0 else cell.rjust(w)
                             for j, (cell, w) in enumerate(zip(row, widths, strict=True))).rstrip())
        if i == 0:
            out.append("  ".join("-" * w for w in widths))
    return out
