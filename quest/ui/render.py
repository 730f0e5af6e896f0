"""Text and HTML the page shows: answers as safe Markdown, the sources panel, the status line.

Everything that comes from a student or a model is untrusted. Two layers keep it inert:

1. here, every `<` outside code is escaped (so `<img onerror=...>` or `<script>` shows as
   text), and Markdown images are disabled; code blocks and code spans stay verbatim, since
   Markdown renders them as text anyway;
2. the Chatbot sanitizes the rendered HTML as well (`sanitize_html=True`, `allow_tags=False`).

The sources panel and status line are HTML built here, with every value passed through
`html.escape`.
"""

from __future__ import annotations

import html
import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from markdown_it import MarkdownIt

from quest.context import Source
from quest.events import Notice
from quest.i18n import t
from quest.kb.documents import kind_label
from quest.markdown_blocks import FenceTracker

# The bidirectional embedding, override and isolate controls (U+202A-U+202E, U+2066-U+2069). They
# are invisible, and one in a question (say U+202E, right-to-left override) reverses how the rest
# of its line shows: what the student sees differs from what was sent ("Trojan Source" spoofing).
# Removed from the text the page shows only; retrieval and the model get the question as typed.
_BIDI_CONTROLS = dict.fromkeys([*range(0x202A, 0x202F), *range(0x2066, 0x206A)])


def without_bidi_controls(text: str) -> str:
    """`text` as the page shows it: the invisible bidi controls that reorder a line removed."""
    return text.translate(_BIDI_CONTROLS)


def safe_markdown(text: str) -> str:
    """Markdown with no raw HTML: `<` escaped outside fenced blocks and code spans."""
    out: list[str] = []
    fences = FenceTracker()
    for line in text.split("\n"):
        where = fences.feed_line(line)
        if where == "open":
            out.append(line.replace("<", "&lt;"))  # the info string is not code
        elif where == "text":
            out.append(_escape_inline(line))
        else:
            out.append(line)
    return "\n".join(out)


def _escape_inline(line: str) -> str:
    out: list[str] = []
    i, n = 0, len(line)
    while i < n:
        c = line[i]
        if c == "\\" and i + 1 < n and line[i + 1] in "`<\\!":
            out.append("&lt;" if line[i + 1] == "<" else line[i : i + 2])
            i += 2
            continue
        if c == "`":
            j = i
            while j < n and line[j] == "`":
                j += 1
            close = _closing_run(line, j, j - i)
            if close < 0:  # a lone backtick run is literal text
                out.append(line[i:j])
                i = j
                continue
            content = line[j:close]
            if "|" in content:  # a table would split this span into cells: keep it inert
                content = content.replace("<", "&lt;")
            out.append(line[i:j] + content + line[close : close + (j - i)])
            i = close + (j - i)
            continue
        if c == "<":
            out.append("&lt;")
        elif c == "!" and line[i + 1 : i + 2] == "[":
            out.append("!\\")  # "![alt](url)" would load an image: show it as text
        else:
            out.append(c)
        i += 1
    return "".join(out)


def _closing_run(line: str, start: int, length: int) -> int:
    k, n = start, len(line)
    while k < n:
        if line[k] != "`":
            k += 1
            continue
        m = k
        while m < n and line[m] == "`":
            m += 1
        if m - k == length:
            return k
        k = m
    return -1


def quote(text: str) -> str:
    """A Markdown block quote of untrusted text."""
    return "\n".join("> " + line for line in safe_markdown(text).split("\n"))


# --------------------------------------------------------------------------- answers


def shown_notices(notices: Sequence[Notice], answer: str) -> list[Notice]:
    """The notices worth showing above an answer: not those the answer already says."""
    return [n for n in notices if n.text.strip() and n.text.strip() not in answer]


def answer_markdown(
    answer: str,
    notices: Sequence[Notice] = (),
    *,
    lang: str = "en",
    incomplete: bool = False,
    stopped: bool = False,
    streaming: bool = False,
    held: bool = False,
    turn: int = 0,
) -> str:
    """The assistant's message: notices on top, the answer, and a closing remark when cut short.

    `held`: a code block is being held back, shown as a placeholder; `turn`: the answer's number,
    which turns `[n]` into links to its sources (0: no links).
    """
    parts = [quote(n.text) for n in shown_notices(notices, answer)]
    if answer:
        text = safe_markdown(answer)
        if turn:
            text = link_citations(text, turn)
        parts.append(text + (" ▍" if streaming and not held else ""))
    if held and streaming:
        parts.append(f"*⏳ {t('code_held', lang)}* ▍")
    if stopped:
        parts.append(f"*{t('stopped', lang)}*")
    elif incomplete:
        parts.append(f"*{t('incomplete', lang)}*")
    if not parts and streaming:
        parts.append("▍")
    return "\n\n".join(parts)


def plain_answer(answer: str, notices: Sequence[Notice] = (), *, lang: str = "en", incomplete: bool = False) -> str:
    """The answer for API clients: notices as Markdown quotes, the answer as the model wrote it."""
    parts = ["\n".join("> " + line for line in n.text.split("\n")) for n in shown_notices(notices, answer)]
    if answer:
        parts.append(answer)
    if incomplete:
        parts.append(f"*{t('incomplete', lang)}*")
    return "\n\n".join(parts)


# --------------------------------------------------------------------------- sources


def source_dicts(sources: Sequence[Source], cited: Sequence[int] = ()) -> list[dict[str, Any]]:
    """The sources as plain data, for the API and the feedback store."""
    cited_set = set(cited)
    return [
        {
            "number": s.number,
            "kind": s.kind,
            "label": s.label,
            "title": s.title,
            "section": s.section,
            "problem_id": s.problem_id,
            "score": round(float(s.score), 4),
            "doc_id": s.doc_id,
            "chunk_id": s.chunk_id,
            "cited": s.number in cited_set,
        }
        for s in sources
    ]


def source_records(sources: Sequence[Source], cited: Sequence[int] = ()) -> list[dict[str, Any]]:
    """The sources as plain data with their text and origin: what the page shows and the browser keeps."""
    records = source_dicts(sources, cited)
    for record, s in zip(records, sources, strict=True):
        record["text"] = s.text
        record["truncated"] = bool(s.truncated)
        # Where an importer recorded them: the judge's page and the import's source name.
        if getattr(s, "url", ""):
            record["url"] = str(s.url)
        if getattr(s, "source_name", ""):
            record["origin"] = str(s.source_name)
    return records


def sources_json(sources: Sequence[Source], cited: Sequence[int] = (), *, with_text: bool = True) -> str:
    items = source_dicts(sources, cited)
    if with_text:
        for item, s in zip(items, sources, strict=True):
            item["text"] = s.text
    return json.dumps(items, ensure_ascii=False)


_SOURCE_MARKDOWN = MarkdownIt("commonmark", {"html": False, "linkify": False}).disable("image")


def source_text_html(text: str) -> str:
    """A source's Markdown as HTML: raw HTML escaped (html=False), images off, code in <pre><code>."""
    return _SOURCE_MARKDOWN.render(text or "")


@dataclass(frozen=True)
class SourceGroup:
    """The sources of one answer in the conversation."""

    turn: int  # the answer's number in the conversation, from 1
    question: str
    sources: tuple[Mapping[str, Any], ...]
    cited: tuple[int, ...] = ()


def source_anchor(turn: int, number: int) -> str:
    return f"q-src-{turn}-{number}"


def _source_card(turn: int, s: Mapping[str, Any], cited: set[int], lang: str) -> str:
    esc = html.escape
    number = int(s.get("number", 0))
    is_cited = number in cited or bool(s.get("cited"))
    title = s.get("title") or ""
    if s.get("section"):
        title = f"{title} · {s['section']}"
    origin = []
    if s.get("problem_id"):
        origin.append(f"{t('problem_word', lang)} {s['problem_id']}")
    if s.get("origin"):
        origin.append(str(s["origin"]))
    link = ""
    if str(s.get("url") or "").startswith(("http://", "https://")):
        href = esc(str(s["url"]), quote=True)
        link = f' · <a href="{href}" target="_blank" rel="noopener noreferrer">{esc(t("open_link", lang))}</a>'
    badge = f'<span class="q-badge q-cited">{esc(t("cited", lang))}</span>' if is_cited else ""
    truncated = f'<p class="q-muted">{esc(t("truncated", lang))}</p>' if s.get("truncated") else ""
    kind = re.sub(r"[^a-z_]", "", str(s.get("kind") or ""))
    return (
        f'<div id="{source_anchor(turn, number)}" class="q-src{" q-src-cited" if is_cited else ""}" '
        f'data-number="{number}"><div class="q-src-top"><span class="q-src-num">[{number}]</span>'
        f'<span class="q-kind q-kind-{kind}">{esc(kind_label(kind, lang))}</span>{badge}'
        f'<span class="q-score">{esc(t("score", lang))} {float(s.get("score") or 0):.2f}</span></div>'
        f'<div class="q-src-title">{esc(title)}</div>'
        f'<div class="q-src-origin">{esc(" · ".join(origin))}{link}</div>'
        f'<details><summary>{esc(t("show_text", lang))}</summary>'
        f'<div class="q-src-text">{source_text_html(str(s.get("text") or ""))}{truncated}</div></details></div>'
    )


def sources_panel_html(groups: Sequence[SourceGroup], *, lang: str = "en") -> str:
    """The sources panel: the newest answer's sources first, each answer's kept under its question."""
    esc = html.escape
    head = f'<div class="q-sources-head">{esc(t("sources", lang))}</div>'
    if not groups:
        return f'<div class="q-sources">{head}<p class="q-muted">{esc(t("sources_empty", lang))}</p></div>'
    parts = [head]
    for group in reversed(groups):
        question = without_bidi_controls(group.question)
        question = question if len(question) <= 80 else question[:79] + "…"
        parts.append(
            f'<div class="q-src-group" data-turn="{group.turn}"><div class="q-src-group-head">'
            f'{esc(t("answer_number", lang, n=group.turn))} · {esc(question)}</div>'
        )
        if not group.sources:
            parts.append(f'<p class="q-muted">{esc(t("sources_none", lang))}</p>')
        ranked = sorted(group.sources, key=lambda s: -float(s.get("score") or 0))
        parts.extend(_source_card(group.turn, s, set(group.cited), lang) for s in ranked)
        parts.append("</div>")
    return f'<div class="q-sources">{"".join(parts)}</div>'


def sources_html(sources: Sequence[Source] | None, cited: Sequence[int] = (), *, lang: str = "en") -> str:
    """One answer's sources as the panel shows them (None: the empty panel)."""
    if sources is None:
        return sources_panel_html((), lang=lang)
    return sources_panel_html((SourceGroup(1, "", tuple(source_records(sources, cited)), tuple(cited)),), lang=lang)


_CITATION = re.compile(r"\[(\d{1,2})\](?!\()")


def link_citations(markdown: str, turn: int) -> str:
    """`[n]` outside code becomes a link to source n of this answer (the page scrolls to it and highlights it)."""
    out: list[str] = []
    fences = FenceTracker()
    for line in markdown.split("\n"):
        if fences.feed_line(line) != "text":
            out.append(line)
            continue
        pieces = line.split("`")
        for i in range(0, len(pieces), 2):  # even pieces are outside code spans
            pieces[i] = _CITATION.sub(lambda c: f"[[{c.group(1)}]](#{source_anchor(turn, int(c.group(1)))})", pieces[i])
        out.append("`".join(pieces))
    return "\n".join(out)


# --------------------------------------------------------------------------- status line


def _duration(ms: Any) -> str | None:
    try:
        value = float(ms)
    except (TypeError, ValueError):
        return None
    return f"{value:.0f} ms" if value < 1000 else f"{value / 1000:.1f} s"


def timing_parts(stats: Mapping[str, Any] | None, lang: str) -> list[str]:
    """The last answer's timings, from whichever of the known statistics are present."""
    if not stats:
        return []
    parts = []
    # The keys the assistant's stats carry (quest/assistant.py, llm.stats_summary).
    for key, name in (("stat_retrieval", "retrieval_ms"), ("stat_first_token", "ttft_ms"), ("stat_total", "total_ms")):
        value = _duration(stats.get(name))
        if value:
            parts.append(t(key, lang, value=value))
    speed = stats.get("tokens_per_second")
    if isinstance(speed, int | float) and speed > 0:
        parts.append(t("stat_speed", lang, value=f"{speed:.1f}"))
    tokens = stats.get("completion_tokens")
    if isinstance(tokens, int) and tokens > 0:
        parts.append(t("stat_tokens", lang, value=tokens))
    return parts


def student_status_html(status: Mapping[str, Any] | None, *, lang: str = "en", failed: str | None = None) -> str:
    """The student's status line: one short sentence in their language, no server details."""
    if failed:
        key, dot = "student_unavailable", "q-dot-bad"
    elif status is None:
        key, dot = "student_starting", "q-dot-wait"
    elif status.get("ollama_reachable"):
        key, dot = "student_ready", "q-dot-ok"
    else:
        key, dot = "student_notes_only", "q-dot-warn"
    return f'<div class="q-status"><span class="q-dot {dot}"></span>{html.escape(t(key, lang))}</div>'


def host_lines(status: Mapping[str, Any], lang: str = "en") -> list[str]:
    """One line per model host (several OLLAMA_HOST / QUEST_OPENAI_BASE_URL entries): health and load."""
    lines = []
    for host in status.get("model_hosts") or ():
        state = t("host_healthy", lang) if host.get("healthy") else t(
            "host_backing_off", lang, seconds=host.get("retry_in_s", "?"), error=host.get("last_error") or "?")
        lines.append(t("status_host", lang, host=host.get("host", "?"), state=state,
                       in_flight=host.get("in_flight", 0), served=host.get("served", 0),
                       failures=host.get("failures", 0)))
    return lines


def diagnostics_html(
    status: Mapping[str, Any] | None,
    *,
    lang: str = "en",
    last_stats: Mapping[str, Any] | None = None,
    starting: str | None = None,
    failed: str | None = None,
) -> str:
    """The operator's Diagnostics: model, Ollama host, retrieval mode, index size, timings, notices, fixes."""
    esc = html.escape
    if failed:
        return f'<div class="q-status q-status-bad">{esc(t("status_start_failed", lang, reason=failed))}</div>'
    if status is None:
        text = t("status_starting", lang) + (f" {starting}" if starting else "")
        return f'<div class="q-status q-status-wait"><span class="q-dot q-dot-wait"></span>{esc(text)}</div>'
    items = []
    reachable = bool(status.get("ollama_reachable"))
    dot = "q-dot-ok" if reachable else "q-dot-bad"
    ollama = t("status_ollama_ok" if reachable else "status_ollama_down", lang)
    items.append(
        f'<span class="q-stat"><b>{esc(t("status_model", lang))}</b> {esc(str(status.get("model") or "?"))}</span>'
    )
    items.append(f'<span class="q-stat"><span class="q-dot {dot}"></span>{esc(ollama)}</span>')
    if status.get("ollama_host"):
        items.append(f'<span class="q-stat"><b>Ollama</b> {esc(str(status["ollama_host"]))}</span>')
    items.append(
        f'<span class="q-stat"><b>{esc(t("status_embedding", lang))}</b> '
        f'{esc(str(status.get("embedding_mode") or "?"))}</span>'
    )
    items.append(
        '<span class="q-stat">'
        + esc(t("status_index", lang, documents=status.get("documents", "?"), chunks=status.get("chunks", "?")))
        + "</span>"
    )
    timings = timing_parts(last_stats, lang)
    if timings:
        items.append(f'<span class="q-stat"><b>{esc(t("status_last", lang))}</b> {esc(" · ".join(timings))}</span>')
    items += [f'<span class="q-stat q-host">{esc(line)}</span>' for line in host_lines(status, lang)]
    notices = [str(n) for n in status.get("notices") or () if n]
    if not reachable:
        host = status.get("ollama_host") or "OLLAMA_HOST"
        notices.append(t("fix_ollama", lang, host=host, model=status.get("model") or "?"))
    note = "".join(f'<div class="q-status-note">{esc(n)}</div>' for n in notices)
    return f'<div class="q-status">{"".join(items)}{note}</div>'
