"""The pipeline: one request in, a stream of typed events out.

    validate -> plan (problem resolution, judge.parse, query parts, direct?) -> contest lock
    -> retriever.search (query parts, tier's exclusions) -> filter again
    -> context -> prompt (fitted to num_ctx) -> Sources -> model stream -> Thinking/Token
    -> code gate, citations, leak check -> Replace? -> Done

Event order: Notice* -> Sources -> Thinking*/Token* -> Replace? -> Done. A failure found
while the model streams adds its Notice after Sources (it cannot be known earlier). Input
errors and refusals are a Notice plus a Done, never an exception.

Decisions worth knowing:

* hint tier: official solutions are excluded from the search and filtered again, and code
  blocks longer than `policy.MAX_CODE_LINES` are cut from every other source (an error
  pattern's "fix" section may hold a whole solution) before the context is built.

* An exact problem-id or title question ("239", "滑动窗口最大值") with no code and no judge
  message is answered from the knowledge base directly, within the tier, without the model.
* Nothing relevant found: with only a question, Quest says so and does not call the model;
  with code or a judge message, the model is called with an explicit "no sources" rule
  (it may only reason from the student's own material) and a Notice says the base did not
  cover it.
* When the model fails (unreachable, model missing, timeout, broken stream) the student gets
  the sources, a short answer built from them within the tier, and one line saying what
  failed and how to fix it. Text that already streamed is kept and marked incomplete.
"""

from __future__ import annotations

import dataclasses
import logging
import re
import time
from collections.abc import Callable, Collection, Generator, Iterator, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any, Protocol

from quest.citations import check_citations
from quest.context import Context, Source, build_context
from quest.errors import InputError, LLMError, QuestError, Stopped
from quest.events import Done, Event, Held, Notice, Replace, Sources, Thinking, Token
from quest.i18n import ASSISTANT_TEXT as TEXT
from quest.i18n import TIER_NAMES
from quest.judge import JUDGE_SIDE, SETUP_KINDS
from quest.kb.documents import Document, Problem
from quest.llm import ChatModel, generation_options, stats_summary
from quest.markdown_blocks import unclosed_fence
from quest.plan import Plan, plan, retrieve
from quest.policy import CodeGate as _CodeGate
from quest.policy import (
    ContestLock,
    LockDecision,
    code_blocks,
    filter_hits,
    format_moment,
    leak_check,
    leak_note,
    strip_code_blocks,
    visible_sources,
    visible_text,
)
from quest.prompts import build_prompt
from quest.request import Request, validate_request
from quest.retrieval.types import Hit, RetrieverStatus, SearchResult
from quest.settings import Settings
from quest.thinking import ThinkSplitter

log = logging.getLogger(__name__)

REACHABILITY_TTL = 10.0
EXCERPT_CHARS = 700
# Section headings that explain an error pattern's cause or its fix, in either language.
REASON_OR_FIX = re.compile(r"原因|为什么|为何|怎么改|如何改|修正|修复|改正|解决|正确|fix|why|reason|cause|correct",
                           re.I)

def _key_lines(code: str, lines: Any) -> list[str]:
    from quest.query import key_code_lines

    return key_code_lines(code, tuple(lines or ()))


def _input_text(exc: InputError, lang: str) -> str:
    try:
        from quest.i18n import input_error_text
    except ImportError:
        return exc.message
    try:
        return input_error_text(exc, lang)
    except Exception:  # the UI's wording must never hide the error itself
        return exc.message


@dataclass(frozen=True)
class _Generated:
    """What the model streamed: the shown text, code blocks the gate removed, and a failure if any."""

    text: str
    code_removed: int
    error: LLMError | None


class Retriever(Protocol):
    """What the assistant needs from retrieval (quest.retrieval.retriever.Retriever; tests use a fake)."""

    problems: Mapping[str, Problem]

    @property
    def status(self) -> RetrieverStatus: ...

    def exact_match(self, text: str) -> Problem | None: ...

    def search(self, query: str, *, problem_id: str | None = None, exclude_kinds: Collection[str] = (),
               top_k: int | None = None, parts: Mapping[str, str] | None = None, lang: str | None = None,
               general_only: bool = False, evidence: Any = None, problem_guessed: bool = False,
               language: str | None = None, failure: bool | None = None,
               code: str | None = None) -> SearchResult: ...

    def documents(self, problem_id: str | None = None, kinds: Collection[str] | None = None) -> list[Document]: ...


class Assistant:
    def __init__(self, settings: Settings, retriever: Retriever, chat_model: ChatModel | None) -> None:
        self.settings = settings
        self.retriever = retriever
        self.chat_model = chat_model
        self.lock = ContestLock(settings.contest_lock_file)
        self.now: Callable[[], datetime] = lambda: datetime.now(timezone.utc)
        self._reachable: tuple[float, bool] | None = None

    # ------------------------------------------------------------------ status

    def status(self) -> dict[str, Any]:
        st = self.retriever.status
        notices = list(st.notices)
        if st.kb_errors:
            notices.append(f"{len(st.kb_errors)} knowledge file(s) could not be loaded")
        locked = self.lock.locked_problems(self.now())
        lock_warning = self.lock.warning()
        if lock_warning:  # the operator must see that the lock file is broken, not only the effect
            notices.append(lock_warning)
        elif locked:
            notices.append("contest lock: all problems" if isinstance(locked, str)
                           else "contest lock: " + ", ".join(sorted(locked)))
        model, reasoning_model = self.settings.chat_model_names
        return {
            "model": model,
            "reasoning_model": reasoning_model,
            "llm_backend": self.settings.llm_backend,
            "ollama_host": self._host(),
            "ollama_reachable": self._ollama_reachable(),
            "model_hosts": self.model_hosts(),  # after the ping above, which refreshes each host's health
            "embedding_mode": st.embedding_mode,
            "documents": st.documents,
            "chunks": st.chunks,
            "problems": st.problems,
            "max_tier": self.settings.max_tier,
            "notices": notices,
        }

    def _ollama_reachable(self) -> bool:
        if self.chat_model is None:
            return False
        now = time.monotonic()
        if self._reachable and now - self._reachable[0] < REACHABILITY_TTL:
            return self._reachable[1]
        ok = bool(self.chat_model.ping())
        self._reachable = (now, ok)
        return ok

    def model_hosts(self) -> list[dict[str, Any]]:
        """Each model host's health (for Diagnostics); [] without a host router."""
        health = getattr(self.chat_model, "health", None)
        return health() if callable(health) else []

    def _host(self) -> str:
        return str(getattr(self.chat_model, "host", None) or self.settings.ollama_host or "http://127.0.0.1:11434")

    # ------------------------------------------------------------------ the pipeline

    def ask(self, request: Request) -> Iterator[Event]:
        """One request in, events out: validate -> plan -> retrieve -> answer (direct, none, or the model)."""
        started = time.perf_counter()
        lang = request.answer_lang()
        stats: dict[str, Any] = {"lang": lang}
        try:
            req = validate_request(request, self.settings)
        except InputError as exc:
            log.info("input refused: %s (%s)", exc.field, exc.reason)
            yield Notice("input", _input_text(exc, lang), "error")
            yield Done("", stats={**stats, "mode": "input_error", "total_ms": _ms(started)})
            return
        lang, tier = req.answer_lang(), req.tier
        stats.update(lang=lang, tier=tier)
        if request.tier in TIER_NAMES["en"] and request.tier != tier:
            yield Notice("tier_capped", TEXT[lang]["tier_capped"].format(tier=TIER_NAMES[lang][tier]), "info")

        # The plan: the problem (and which rule found it), the parsed error, the query parts.
        planned = plan(req, self.retriever)
        now = self.now()
        decision = self.lock.check(planned.problem_id, now)
        if decision.locked:
            log.info("refused by the contest lock: problem=%s reason=%s", planned.problem_id, decision.reason)
            text = self._lock_text(decision, lang)
            yield Notice("locked", text, "warning")
            yield Done(text, stats={**stats, "mode": "refused", "total_ms": _ms(started)})
            return
        planned, hits, events = self._retrieve(planned, self.lock.locked_problems(now), stats)
        yield from events
        if planned.report.verdict == JUDGE_SIDE:
            # Said by Quest itself, whatever the model (or its absence) makes of it: not the student's bug.
            yield Notice("judge_side", TEXT[lang]["judge_side"], "warning")
        elif planned.report.kind in SETUP_KINDS:
            # Windows' loader could not start the program (a missing MinGW DLL, 0xC0000135): the student's own
            # machine, not the code; said by Quest whatever the model makes of it, as for the judge's own failures.
            yield Notice("local_setup", TEXT[lang]["local_setup"], "warning")
        if self.lock.check(planned.problem_id, now).locked:
            # Only the retrieval consensus named a locked problem: nothing from it was shown.
            planned = dataclasses.replace(planned, problem=None)
        stats["plan"] = planned.to_dict()
        context = build_context(hits, lang=lang, max_chars=self.settings.context_max_chars)
        if planned.direct:
            yield from self._answer_direct(planned, context, stats, started)
        elif not context.sources and not req.code.strip() and not req.error.strip():
            yield from self._answer_nothing_found(lang, stats, started)
        else:
            yield from self._answer_with_model(planned, context, stats, started)

    def _answer_direct(self, planned: Plan, context: Context, stats: dict[str, Any],
                       started: float) -> Iterator[Event]:
        """An exact id or title question: the knowledge base answers, within the tier, without the model."""
        yield Sources(visible_sources(context.sources, planned.request.tier, planned.lang))
        answer = self._direct_answer(planned.problem, context, planned.request.tier, planned.lang)
        yield Token(answer)
        yield Done(answer, stats={**stats, "mode": "exact", "total_ms": _ms(started)},
                   cited=tuple(s.number for s in context.sources), fallback=True)

    def _answer_nothing_found(self, lang: str, stats: dict[str, Any], started: float) -> Iterator[Event]:
        """Only a question and nothing relevant: say so instead of letting the model guess."""
        words = TEXT[lang]
        yield Sources(())
        yield Notice("no_sources", words["no_sources"], "info")
        answer = words["no_sources_answer"]
        yield Token(answer)
        yield Done(answer, stats={**stats, "mode": "no_sources", "total_ms": _ms(started)}, fallback=True)

    def _answer_with_model(self, planned: Plan, context: Context, stats: dict[str, Any],
                           started: float) -> Iterator[Event]:
        """Prompt, stream, then the checks that run after generation."""
        req, lang, tier = planned.request, planned.lang, planned.request.tier
        words = TEXT[lang]
        report = planned.report
        prompt = build_prompt(req, context, self.settings, lang=lang, tier=tier, problem=planned.problem,
                              report=report, key_lines=lambda: _key_lines(req.code, report.lines))
        context = prompt.context
        stats.update(prompt_tokens_estimate=prompt.estimated_tokens, prompt_budget=prompt.budget,
                     history_turns=prompt.history_used, history_dropped=prompt.history_dropped,
                     context_blocks_dropped=prompt.blocks_dropped, code_reduced=prompt.code_reduced)
        if prompt.history_dropped:
            yield Notice("history_trimmed", words["history_trimmed"].format(n=prompt.history_dropped), "info")
        if not context.sources:
            yield Notice("no_sources", words["no_sources_model"], "info")
        yield Sources(visible_sources(context.sources, tier, lang))

        model, reasoning_model = self.settings.chat_model_names
        if req.reasoning and reasoning_model:
            model = reasoning_model
        stats["model"] = model
        if self.chat_model is None:
            yield from self._fallback("no_model", None, context, tier, lang, model, stats, started)
            return
        generated = yield from self._stream(prompt.messages, model, tier, lang, stats)
        if generated.error is not None and not generated.text.strip():
            yield from self._fallback(generated.error.code, generated.error, context, tier, lang, model, stats,
                                      started)
            return
        if generated.error is not None:
            line = self._failure_line(generated.error.code, generated.error, lang, model)
            yield Notice(generated.error.code, words["partial"].format(line=line), "warning")
        yield from self._post_checks(planned, context, generated, stats, started)

    def _stream(self, messages: Any, model: str, tier: str, lang: str,
                stats: dict[str, Any]) -> Generator[Event, None, _Generated]:
        """Stream the model's answer through the think splitter and the code gate."""
        splitter = ThinkSplitter()
        gate = _CodeGate(enabled=tier != "solution", lang=lang)
        held = False
        shown: list[str] = []
        final: dict[str, Any] = {}
        error: LLMError | None = None
        t_model = time.perf_counter()
        first_at: float | None = None
        stream: Any = None
        try:
            stream = self.chat_model.stream(messages, model, generation_options(self.settings))
            for chunk in stream:
                if first_at is None and (chunk.content or chunk.thinking):
                    first_at = time.perf_counter()
                if chunk.thinking:
                    yield Thinking(chunk.thinking)
                answer_part, thought = splitter.feed(chunk.content)
                if thought:
                    yield Thinking(thought)
                text = gate.feed(answer_part) if answer_part else ""
                text = text if shown else text.lstrip()
                if text:
                    shown.append(text)
                    yield Token(text)
                if gate.holding != held:  # the page shows a placeholder while a block is held back
                    held = gate.holding
                    yield Held(held)
                if chunk.done:
                    final = dict(chunk.stats)
        except Stopped as exc:  # the student stopped it: an ordinary end, not a failure worth an INFO line
            error = exc
            log.debug("generation stopped by the student")
        except LLMError as exc:
            error = exc
            log.info("generation failed (%s): %s", exc.code, exc)
        finally:
            close = getattr(stream, "close", None)
            if close is not None:
                close()
        rest, thought = splitter.flush()
        if thought:
            yield Thinking(thought)
        tail = (gate.feed(rest) if rest else "") + gate.flush()
        tail = tail if shown else tail.lstrip()
        if tail:
            shown.append(tail)
            yield Token(tail)
        stats["ttft_ms"] = round((first_at - t_model) * 1000, 1) if first_at is not None else None
        stats["generation_ms"] = _ms(t_model)
        stats.update(stats_summary(final))
        return _Generated("".join(shown), gate.removed, error)

    def _post_checks(self, planned: Plan, context: Context, generated: _Generated, stats: dict[str, Any],
                     started: float) -> Iterator[Event]:
        """After generation: citations, code removal (done by the gate while streaming), leak check."""
        tier = planned.request.tier
        checked = check_citations(generated.text, context.numbers())
        final_text, cited = checked.text, checked.cited
        reasons = []
        if checked.removed:
            reasons.append("citations")
        code_removed = generated.code_removed
        if tier != "solution":  # the gate follows top-level fences only: a long block nested in a list got past
            final_text, nested = strip_code_blocks(final_text, lang=planned.lang)
            code_removed += nested
        if code_removed:
            reasons.append("code_removed")
        stats.update(citations_removed=checked.removed, code_blocks_removed=code_removed)
        if tier != "solution":
            leak = leak_check(final_text, self._official_code(planned.problem_id, context))
            stats.update(leak_shared_lines=leak.shared_lines, leak_containment=leak.containment)
            if leak.leaked:
                log.warning("answer withheld by the leak check (shared lines %d, containment %.2f)",
                            leak.shared_lines, leak.containment)
                final_text, cited = leak_note(planned.lang), ()
                reasons.insert(0, "leak")
                yield Notice("leak_withheld", final_text, "warning")
        if reasons:
            yield Replace(final_text, ",".join(reasons))
        stats.update(mode="model", total_ms=_ms(started))
        yield Done(final_text, stats=stats, cited=cited, incomplete=generated.error is not None)

    def _retrieve(self, planned: Plan, locked: frozenset[str] | str,
                  stats: dict[str, Any]) -> tuple[Plan, list[Hit], list[Event]]:
        """Search as planned, filter by tier and lock, and say what the student should know."""
        words = TEXT[planned.lang]
        events: list[Event] = []
        t = time.perf_counter()
        try:
            planned, result = retrieve(self.retriever, planned, top_k=self.settings.top_k)
            hits = filter_hits(result.hits, planned.request.tier, locked)
            if planned.request.tier == "hint":  # e.g. an error pattern's "fix" section may hold a whole solution
                hits = [_without_long_code(hit, planned.lang) for hit in hits]
            stats.update(retrieval_mode=result.mode, widened=result.widened)
            search_notices = result.notices
            if result.low_confidence and hits:
                # Only the lowered floor let these through, or they match only the verdict's words: say so.
                search_notices = (*search_notices, words["weak_sources"])
        except QuestError as exc:
            log.warning("retrieval failed: %s", exc)
            hits, search_notices = [], ()
            events.append(Notice("retrieval_failed", words["retrieval_failed"], "warning"))
        stats["retrieval_ms"] = _ms(t)  # both searches, when a weak name made it search twice
        stats["confirm_search_ms"] = round(planned.confirm_timings.get("total", 0.0), 1)  # the first of them, or 0
        resolution = planned.resolution  # after retrieval: the consensus rule may have named the problem
        named_in_text = resolution.rule in ("id", "title", "reworded", "code", "consensus") and not planned.direct
        if resolution.missing_id is not None or resolution.candidates or resolution.ambiguous or named_in_text:
            events.append(Notice("problem", resolution.describe(planned.lang), "info"))
        events.extend(Notice("retrieval", text, "info") for text in search_notices)
        return planned, hits, events

    # ------------------------------------------------------------------ helpers

    def _lock_text(self, decision: LockDecision, lang: str, zone: str | None = None) -> str:
        words = TEXT[lang]
        if decision.reason == "broken_file":
            return words["locked_broken"]
        until = ""
        if decision.until is not None:
            until = words["until"].format(time=format_moment(decision.until, zone))
        return words["locked"].format(until=until)

    def _failure_line(self, code: str, error: LLMError | None, lang: str, model: str) -> str:
        if self.settings.llm_backend == "openai":  # wording that names the configured server, not Ollama
            from quest.llm_openai import failure_line

            return failure_line(code, error.message if error else "", lang, host=self._host(), model=model,
                                timeout=self.settings.first_token_timeout)
        failures = TEXT[lang]["failures"]
        template = failures.get(code, failures["llm"])
        return template.format(host=self._host(), model=model, timeout=self.settings.first_token_timeout,
                               message=error.message if error else "")

    def _fallback(self, code: str, error: LLMError | None, context: Context, tier: str, lang: str, model: str,
                  stats: dict[str, Any], started: float) -> Iterator[Event]:
        line = self._failure_line(code, error, lang, model)
        yield Notice(code, line, "warning")
        sections = self._reason_and_fix(context.sources)
        answer = line + "\n\n" + retrieval_only_answer(context.sources, tier, lang, sections=sections)
        yield Token(answer)
        stats.update(mode="fallback", failure=code, total_ms=_ms(started))
        lead = [top_source(context.sources), *sections] if sections else lead_sources(context.sources)
        cited = tuple(sorted({s.number for s in lead if s is not None}))
        yield Done(answer.strip(), stats=stats, cited=cited, fallback=True)

    def _reason_and_fix(self, sources: tuple[Source, ...]) -> list[Source]:
        """The top error pattern's "why" and "fix" sections, read from the whole document.

        The retrieved chunk is often "the typical attempt"; a student without a model still
        deserves the reason and the fix. They keep the top source's citation number.
        """
        top = top_source(sources)
        chunks_of = getattr(self.retriever, "chunks_of", None)
        if top is None or top.kind != "error_pattern" or chunks_of is None:
            return []
        sections = [c for c in chunks_of(top.doc_id) if c.id != top.chunk_id and REASON_OR_FIX.search(c.section)]
        return [dataclasses.replace(top, chunk_id=c.id, section=c.section, text=c.text) for c in sections[:2]]

    def _direct_answer(self, problem: Problem | None, context: Context, tier: str, lang: str) -> str:
        words = TEXT[lang]
        parts = [words["exact_intro"]]
        if problem is not None:
            head = f"**{problem.label}**"
            facts = [x for x in (problem.difficulty, ", ".join(problem.tags)) if x]
            if problem.limits:
                facts.append(words["limits"] + ": " + ", ".join(f"{k} {v}" for k, v in problem.limits.items()))
            parts.append(head + (f" ({'; '.join(facts)})" if facts else ""))
        for source in context.sources[:3]:
            parts.append(f"[{source.number}] {source.label} · {source.title}\n\n{excerpt(source, tier, lang)}")
        if tier == "hint":
            parts.append(words["hint_more"])
        return "\n\n".join(parts)

    def _official_code(self, pid: str | None, context: Context) -> list[str]:
        problem_ids = {pid} | {s.problem_id for s in context.sources}
        codes: list[str] = []
        for problem_id in sorted(p for p in problem_ids if p):
            try:
                docs = self.retriever.documents(problem_id, kinds={"official_solution"})
            except Exception as exc:  # the check must not take the answer down; it is logged
                log.warning("could not load official solutions of %s for the leak check: %s", problem_id, exc)
                continue
            for doc in docs:
                codes.extend(code_blocks(doc.text))
        return codes


def excerpt(source: Source, tier: str, lang: str, limit: int = EXCERPT_CHARS) -> str:
    """A source's text as a tier may show it: hint shows no code; explain no official code and no long code."""
    return _cut(visible_text(source.text, source.kind, tier, lang), limit)


def _cut(text: str, limit: int) -> str:
    """At most about `limit` characters, cut between paragraphs, never leaving a code fence open."""
    text = text.strip()
    if len(text) <= limit:
        return text
    out: list[str] = []
    size = 0
    for para in re.split(r"\n{2,}", text):
        if out and size + len(para) > limit:
            break
        out.append(para)
        size += len(para) + 2
    cut = "\n\n".join(out)
    if len(cut) > limit * 2:
        cut = cut[:limit].rstrip()
    marker = unclosed_fence(cut)
    if marker:  # close the block on its own line: "``` …" would not close it
        return f"{cut}\n{marker}\n…"
    return cut + " …"


def top_source(sources: tuple[Source, ...]) -> Source | None:
    """The source a retrieval-only answer leads with: the best error pattern, else the best source."""
    return next((s for s in sources if s.kind == "error_pattern"), sources[0] if sources else None)


def lead_sources(sources: tuple[Source, ...]) -> list[Source]:
    """The top source and the other sections of its document (e.g. "the typical attempt" + "the fix")."""
    top = top_source(sources)
    if top is None:
        return []
    return [top, *[s for s in sources if s.doc_id == top.doc_id and s is not top][:2]]


def retrieval_only_answer(sources: tuple[Source, ...], tier: str, lang: str,
                          sections: Sequence[Source] = ()) -> str:
    """The answer when the model cannot give one: the top error pattern (or top source), within the tier.

    `sections` are further sections of the top source's document (its reason and fix) to show
    after it; without them, the other retrieved chunks of that document are used.
    """
    words = TEXT[lang]
    top = top_source(sources)
    if top is None:
        return words["no_sources_answer"]
    lead = [top, *sections] if sections else lead_sources(sources)
    parts = [words["from_sources"]]
    for s in lead:
        where = f"{s.title} · {s.section}" if s.section else s.title
        parts.append(f"[{s.number}] {s.label} · {where}\n\n{excerpt(s, tier, lang, EXCERPT_CHARS // len(lead))}")
    # Other sources, leaving out further chunks of the documents already shown.
    others = [s for s in sources if s.doc_id not in {x.doc_id for x in lead}]
    if others:
        parts.append(words["also"] + "\n" + "\n".join(f"- [{s.number}] {s.label} · {s.title}" for s in others))
    return "\n\n".join(parts)


def _without_long_code(hit: Hit, lang: str) -> Hit:
    text, removed = strip_code_blocks(hit.chunk.text, lang=lang)
    return dataclasses.replace(hit, chunk=dataclasses.replace(hit.chunk, text=text)) if removed else hit


def _ms(since: float) -> float:
    return round((time.perf_counter() - since) * 1000, 1)


def build_assistant(settings: Settings, *, progress: Callable[[str], None] | None = None) -> Assistant:
    """Load the retriever (knowledge base, index, embeddings) and set up the model client(s)."""
    from quest.hosts import build_chat_model
    from quest.retrieval.retriever import build_retriever

    retriever = build_retriever(settings, progress=progress)
    return Assistant(settings, retriever, build_chat_model(settings))
