"""One frozen settings object, built once from defaults, the environment and flags.

Every component receives the `Settings` it needs instead of reading globals or the
environment itself, so a test can build exactly the configuration it wants.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

TIERS = ("hint", "explain", "solution")
LLM_BACKENDS = ("ollama", "openai")


def _env_bool(value: str) -> bool:
    return value.strip().lower() in {"1", "true", "yes", "on"}


@dataclass(frozen=True)
class Settings:
    # Where things live.
    kb_dir: Path = Path("knowledge")
    # False (QUEST_STARTER_KB=false): leave out the starter problems (knowledge/problems.yaml and
    # knowledge/problems/); the general documents and imported sets stay.
    starter_kb: bool = True
    data_dir: Path = Path(".quest")

    # Embeddings. "BAAI/bge-m3" gives dense vectors plus lexical weights; any other BGE
    # model name or local path is used dense-only. "none" disables embeddings (BM25 only).
    embedding_model: str = "BAAI/bge-m3"
    embedding_device: str = "cpu"
    embedding_max_length: int = 512
    embedding_batch_size: int = 16
    embedding_fp16: bool = False
    show_progress: bool = True

    # Chunking and retrieval.
    chunk_max_chars: int = 1200
    top_k: int = 6
    candidates: int = 30  # per signal, before fusion
    # The independent searches of one question (BM25 per part, lexical, dense) run side by side on up to this
    # many threads, the asking one included; the pool is one per process, shared by every request, so the
    # threads stay bounded however many students ask at once (quest/retrieval/parallel.py). The lists, and so
    # the rankings, are the same either way (tests/retrieval/test_parallel.py). 0 (the default) picks: two when
    # a search that runs outside the GIL ranks 20k rows or more (a whole base, a named problem's general documents)
    # and the process may use two cores, one otherwise (short searches lose more to the hand-over than they gain:
    # docs/bench/scale-1m-round23, -round24). 1 turns it off.
    search_threads: int = 0
    # The whole-base BM25 and lexical lists of a question that names no problem: `auto` runs them as compiled
    # loops when numba is installed (`pip install -e ".[fast]"`), `numpy` always through the numpy path (MaxScore).
    # The lists are the same either way (quest/retrieval/kernels.py, tests/retrieval/test_kernels.py).
    sparse_kernel: str = "auto"
    min_problem_hits: int = 3  # fill up from the whole base below this many
    rrf_k: int = 60
    dense_floor: float = 0.45  # cosine similarity; a guess until `quest eval --calibrate` runs with the model
    # Normalized BM25 (0..1) a sparse hit needs; picked by `quest eval --calibrate` (BM25 only, tuning
    # split: answerable R@5 0.982 with 95.2% of the no-answer questions handled honestly).
    bm25_floor: float = 0.2
    # The named problem's own chunks need only floor * this: the query carries the problem's
    # titles, verdict and code lines, which raise the normalization bound (measured with
    # `quest eval`: MRR@10 0.923 -> 0.935 on BM25, no change for off-topic rejection).
    problem_floor_ratio: float = 0.5
    # With no problem named, this many general documents (verdicts, pitfalls, FAQ) lead before
    # the whole base is ranked: such questions are mostly about those (eval: general MRR@10
    # 0.768 -> 0.836, overall 0.935 -> 0.943).
    general_lead: int = 2
    # With a problem resolved, general documents that clear the full floor follow its own hits.
    problem_general_mix: bool = True  # after the problem's own hits; tuning split: nDCG@10 0.890 -> 0.897
    # ...except one that explains the pasted error when the problem's own documents hardly match it: its
    # error-part match at least this many times theirs (and the full floor) puts it first. 0 = off.
    general_error_lead: float = 3.0
    # ...or one the question itself describes (its best window) at least this many times better than the
    # problem's own documents ("Run Code passes, Submit fails, that case alone passes"). 0 = off.
    general_question_lead: float = 4.0
    # No problem named: a document about a cause leads a verdict's overview when it matches what the student
    # says beyond the verdict (the full floor, and this many times the overview's match). 0 = off.
    specific_lead: float = 1.0
    # Inside a named problem, a question with code or judge output votes once more (RRF) for the problem's
    # error patterns. Off: on the tuning split (BM25) it raises best@1 0.759 -> 0.826 but lowers R@1,
    # the measure, 0.892 -> 0.887 (an error pattern that is not the student's bug then leads).
    bug_prior: bool = False
    # Inside a named problem, each part's BM25 list is ordered with its words' idf among the problem's own
    # documents too (quest/retrieval/within.py); the floor keeps the whole base's BM25.
    within_idf: bool = True
    # Inside a named problem, the lists are fused per document (quest.retrieval.fusion.document_rank_fusion): a
    # document whose chunks fill a list's head gets that list's vote once. Per chunk, an error pattern that repeats
    # "答案错误（WA）" in every section took every vote of a bare verdict line's list (issue 9, round 12).
    # Off by default: on the ten development splits it gains R@1 (561 -> 572 of 643, with the rules below) but
    # loses 23 questions their best-graded first document and two their R@1; without it nothing loses anywhere
    # (R@1 561 -> 566, best@1 444 -> 454). QUEST_DOCUMENT_FUSION=1 turns it on.
    document_fusion: bool = False
    # Inside a named problem, the pasted error's own words (verdict and title words left out) decide between the
    # problem's documents: an error pattern written for other verdicts never leads, and the one that matches the
    # error's words better than every other document of the problem does (Retriever._own_error_first).
    own_error_lead: bool = True
    # ...and a runtime error is the runtime's own report (a Python traceback, a C++ sanitizer, a Java exception): an
    # error pattern written only for other languages (its `languages`) does not lead on it; the student's language is
    # the error's runtime, else the one read from the code (Retriever._own_error_first). Development splits: y001,
    # r12-016 gain R@1, nothing else moves.
    runtime_language: bool = True
    # ...and when the student reports no failure (quest.plan.reports_failure: no failing verdict, no pasted error but
    # an acceptance, no words of a wrong output, a crash or a slow run: "why is it safe to always move the shorter
    # line?"), no error pattern leads; the problem's official solution or explanation does (Retriever._asked_how).
    # Development splits (BM25): R@1 +5 -0, best@1 +8 -0 (docs/retrieval.md, round 17).
    failure_lead: bool = True
    # ...and of two error patterns that fit the failure, the one the student's code matches (its own words, best chunk)
    # more than this many times better than every chunk of the leading one leads instead (Retriever._pattern_by_code):
    # 239's slicing page, not the `pop(0)` one, for `max(nums[i:i + k])`. 0 = off. Development splits (BM25): R@1 and
    # best@1 +2 -0 (q224, r9-010; docs/retrieval.md, round 19); the nearest first documents it must not move are at
    # 1.03 and 1.09, the ones it moves at 1.23 and 1.80.
    code_pattern_lead: float = 1.15
    # ...and an error pattern that lists its bug's code constructs for the student's language (and verdict) — its
    # front matter `signatures`, quest.kb.signatures — leads only when the student's code holds one of them or the
    # question's words name its bug (its title's own words): else the problem's first document that is no error
    # pattern (or a pattern whose signature the code holds) leads (Retriever._pattern_by_signature). Patterns without
    # signatures, and questions without code, are not touched. On since round 21: round 21's unseen split, written
    # after the signatures by someone who never saw them, met the criterion fixed before it existed (named in the text
    # R@1 17 -> 18 of 20, best@1 33 -> 34, R@1 42 -> 43 of 52; docs/retrieval.md, "the signatures rule decided");
    # development (BM25) R@1 660 -> 668, best@1 537 -> 543. QUEST_PATTERN_SIGNATURES=0 turns it off.
    pattern_signatures: bool = True
    # No problem named: a general page written for the student's programming language (the error's runtime, else
    # the one read from the code: quest.plan.student_language) leads one written for other languages only, when it
    # explains the pasted error too (its own words at the floor; Retriever._own_language_first). Development splits:
    # r12-053 gains R@1.
    language_lead: bool = True
    # No problem named: the general pages that fit the student's report go first (Retriever._fitting_first): a page
    # written for one other programming language, or for other verdicts only, moves behind the ones that fit.
    # Development splits (BM25): R@5 round 10 +1, best@1 tuning +1, no metric lost on any split.
    fit_lead: bool = True
    # No problem named: a verdict's overview that leads without matching the student's own words (beyond the verdict's)
    # at the floor gives way to the page written for the student's language that matches them best, when that match
    # reaches `companion_floor_ratio` of the floor and beats the overview's (Retriever._cause_in_language).
    # Development splits (BM25): R@1 tuning +1 (q121), round 8 +1 (r8-045, R@5 too), nothing lost.
    language_cause_lead: bool = True
    # No problem named, no code and no pasted error: a question that names a verdict and matches no page beyond the
    # verdict's words at the floor asks about the verdict ("what does Time Limit Exceeded actually mean?"), so its
    # overview keeps the lead over a page about one cause that matches a stray word or two (Retriever._asks_of_verdict).
    # Development splits (BM25): R@1 and best@1 tuning +1 (q124), nothing else moves.
    verdict_question_lead: bool = True
    # No code and no error to tell it: the student's programming language as the question names it in words ("in
    # Java", "用 C++ 写的", "java的Scanner"; quest.prose_language), for the rules above (`language_lead`, `fit_lead`),
    # only when no problem is named. Off: a question's words never set the language. Development splits (BM25): no
    # metric moves (two top fives reordered); it lets `language_cause_lead` act on questions that name their language.
    prose_language: bool = True
    # No problem named: once one hit clears the floor (the question is answerable), hits that clear this share of it
    # fill the rest of the top-k after the strong ones (tuning split, BM25: R@5 0.965 -> 0.976,
    # nDCG@10 0.884 -> 0.894, general R@5 0.868 -> 0.895, no-answer rejection unchanged; flat
    # from 0.6 down to 0.4, 0.8 slightly lower).
    companion_floor_ratio: float = 0.6
    # No problem named: hits that cleared the floor only on the question's verdict or the judge's name — no shown
    # page matches what the question is about — are marked weak (quest/retrieval/topic.py). Ranking is unchanged.
    topic_gate: bool = True
    widen_factor: float = 3.0  # candidates multiplier for the single widening
    widen_floor_ratio: float = 0.6  # floors multiplied by this when widening
    context_max_chars: int = 6000

    # Generation.
    ollama_host: str | None = None  # None: the client's default (OLLAMA_HOST or localhost)
    ollama_model: str = "qwen2.5-coder:1.5b"
    reasoning_model: str = "deepseek-r1:7b"
    temperature: float = 0.2
    top_p: float = 0.9
    repeat_penalty: float = 1.1
    num_ctx: int = 4096
    answer_tokens: int = 1024  # room kept free in num_ctx for the answer itself
    keep_alive: str = "10m"
    connect_timeout: float = 5.0
    first_token_timeout: float = 60.0
    total_timeout: float = 300.0
    history_turns: int = 3
    # Chat backend: "ollama" (OLLAMA_HOST / ollama_host) or "openai" (any OpenAI-compatible
    # server: vLLM, SGLang, llama.cpp, LiteLLM, a hosted API). Both host settings accept a
    # comma-separated list; requests then go to the healthy host with the fewest in flight.
    llm_backend: str = "ollama"
    openai_base_url: str = "http://127.0.0.1:8000/v1"
    openai_api_key: str | None = field(default=None, repr=False)  # never logged, never shown
    openai_model: str | None = None  # None: ollama_model's name
    openai_reasoning_model: str | None = None  # None: reasoning_model's name
    host_backoff: float = 30.0  # seconds a failing model host is skipped
    # Feedback database (SQLAlchemy URL). None: SQLite in data_dir (WAL). Shared by replicas
    # when it names a server, e.g. postgresql+psycopg://quest:secret@db/quest.
    database_url: str | None = field(default=None, repr=False)  # may carry a password

    # Policy.
    max_tier: str = "solution"
    default_tier: str = "explain"
    contest_lock_file: Path | None = None
    ui_lang: str = "auto"  # auto | zh | en

    # Limits on what a student can send, in characters.
    max_question_chars: int = 2000
    max_code_chars: int = 20000
    max_error_chars: int = 8000

    # App.
    host: str = "127.0.0.1"
    port: int = 7860
    share: bool = False
    # Concurrent /ask streams. Generation waits on Ollama, not on this machine's CPU, so the
    # limit is high; Ollama queues what it cannot run in parallel (see the benchmark report).
    concurrency_limit: int = 64
    max_queue_size: int = 64
    rate_limit_per_minute: int = 10
    # Seconds between re-renders of a growing answer: each re-render sends the whole answer to
    # the browser, so tokens in between are coalesced (the first token is shown at once).
    stream_interval: float = 0.1
    # Re-renders per second for all answers streaming at once on this replica (0: no limit):
    # with many students the interval widens, so the CPU goes to the ones still waiting.
    stream_updates_per_second: float = 150.0
    auth: str | None = None  # "user:password"
    store_code_in_feedback: bool = False

    # Issue 14: where the dense vectors are searched: "local" (the index folder) or Milvus,
    # "milvus://host:19530" for a server or a Milvus Lite file path (see README "Scale").
    vector_store: str = "local"
    # A replica that shares an index folder another process writes (`python -m quest index`):
    # it loads the index and keeps any update in memory, never writing to the shared folder.
    index_read_only: bool = False

    def replace(self, **changes: Any) -> Settings:
        return dataclasses.replace(self, **changes)

    @property
    def embeddings_enabled(self) -> bool:
        return self.embedding_model.strip().lower() not in {"", "none", "off"}

    @property
    def index_dir(self) -> Path:
        return Path(self.data_dir) / "index"

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None, **overrides: Any) -> Settings:
        """Defaults, then `QUEST_*` / `OLLAMA_HOST` variables, then explicit overrides."""
        env = os.environ if env is None else env
        values: dict[str, Any] = {}
        fields = {f.name: f for f in dataclasses.fields(cls)}
        for name, f in fields.items():
            key = "QUEST_" + name.upper()
            if key in env and name != "extra":
                values[name] = _coerce(f.type, env[key])
        if "OLLAMA_HOST" in env and "ollama_host" not in values:
            values["ollama_host"] = env["OLLAMA_HOST"]
        values.update({k: v for k, v in overrides.items() if v is not None})
        settings = cls(**values)
        settings.validate()
        return settings

    def validate(self) -> None:
        if self.max_tier not in TIERS:
            raise ValueError(f"max_tier must be one of {TIERS}, not {self.max_tier!r}")
        if self.default_tier not in TIERS:
            raise ValueError(f"default_tier must be one of {TIERS}, not {self.default_tier!r}")
        if self.llm_backend not in LLM_BACKENDS:
            raise ValueError(f"llm_backend must be one of {LLM_BACKENDS}, not {self.llm_backend!r}")
        if self.search_threads < 0:
            raise ValueError("search_threads must be 0 (automatic) or a number of threads")
        if self.sparse_kernel.strip().lower() not in ("auto", "numba", "numpy"):
            raise ValueError(f"sparse_kernel must be auto, numba or numpy, not {self.sparse_kernel!r}")
        if self.context_max_chars < 200:
            raise ValueError("context_max_chars must be at least 200")

    @property
    def chat_model_names(self) -> tuple[str, str]:
        """(answer model, reasoning model) as the configured backend names them."""
        if self.llm_backend == "openai":
            return (self.openai_model or self.ollama_model, self.openai_reasoning_model or self.reasoning_model)
        return self.ollama_model, self.reasoning_model

    def cap_tier(self, tier: str | None) -> str:
        """The requested tier, lowered to the operator's maximum."""
        tier = tier if tier in TIERS else self.default_tier
        return TIERS[min(TIERS.index(tier), TIERS.index(self.max_tier))]


def _coerce(annotation: Any, raw: str) -> Any:
    text = str(annotation)
    if "bool" in text:
        return _env_bool(raw)
    if "int" in text and "Path" not in text:
        return int(raw)
    if "float" in text:
        return float(raw)
    if "Path" in text:
        return Path(raw) if raw else None
    return raw or None if "None" in text else raw
