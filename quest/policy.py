"""What a student may be shown: disclosure tiers, the contest lock, and post-generation checks.

Everything here is enforced in code, not only asked of the model in the prompt:

* hint tier: official solutions never reach the context (`filter_hits`, on top of the
  retriever's own `exclude_kinds`);
* a contest lock refuses a request before retrieval (`ContestLock.check`);
* hint and explain tiers: code blocks longer than `MAX_CODE_LINES` are held back while the
  answer streams and replaced by a note (`CodeGate`), and an answer that overlaps the
  problem's official solution code is withheld (`leak_check`).

Contest lock file (YAML), re-read whenever it changes on disk::

    problems: [239, 1]                  # locked until removed from the file
    windows:
      - name: Weekly contest 12        # optional
        start: 2026-12-01T09:00:00+08:00
        end: 2026-12-01T12:00:00+08:00
        problems: all                   # or a list of ids

Times need their zone (`+08:00`, `Z`). The file is checked against a strict schema
(`quest.schema.LockFileModel`): an unknown or misspelled key, `problems: 239, 1` (text, not a
list), an empty file, anchors/aliases, or a configured path that does not exist all lock
EVERYTHING (fail closed: an operator editing it during a contest must not open the solutions
by a typo); the reason is logged at ERROR and shown in the status line.
`python -m quest lock check FILE` validates a file and prints what it locks.
"""

from __future__ import annotations

import dataclasses
import logging
import re
import threading
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, TypeVar

from quest.kb.documents import is_source_name, normalize_problem_id
from quest.markdown_blocks import FencedBlock, FenceTracker, fenced_blocks, replace_fenced_blocks, split_lines
from quest.retrieval.types import Hit

log = logging.getLogger(__name__)
S = TypeVar("S")

#: Kinds a tier never lets into the context.
TIER_EXCLUDED_KINDS: Mapping[str, frozenset[str]] = {
    "hint": frozenset({"official_solution"}),
    "explain": frozenset(),
    "solution": frozenset(),
}
#: In hint and explain tiers, fenced code blocks with more lines than this are removed.
MAX_CODE_LINES = 4
#: Leak check: an answer is withheld when it shares at least this many normalized, non-trivial
#: lines with the official code, or contains this share of the official code's token 5-grams.
LEAK_MIN_SHARED_LINES = 4
LEAK_CONTAINMENT = 0.4
NGRAM = 5

ALL = "all"


def excluded_kinds(tier: str) -> frozenset[str]:
    return TIER_EXCLUDED_KINDS.get(tier, TIER_EXCLUDED_KINDS["hint"])


def lock_keys(problem_id: str | None) -> frozenset[str]:
    """The ids a lock entry may name a problem by: its own, and an imported problem's judge id.

    'hustoj-main:1007' -> {'hustoj-main:1007', '1007'}; 'hydro:P1000' -> {'hydro:P1000', '1000'}.
    Operators write a contest's problems as their judge shows them (`problems: [1007]`), not
    with the import's source name, so the judge's own id must lock the imported problem too.
    A bare id then locks that number in every imported set and the starter base: a lock errs
    on the closed side.
    """
    pid = normalize_problem_id(problem_id)
    if not pid:
        return frozenset()
    source, sep, local = pid.partition(":")
    if sep and is_source_name(source):
        judge_id = normalize_problem_id(local)
        if judge_id:
            return frozenset({pid, judge_id})
    return frozenset({pid})


def is_locked(problem_id: str | None, locked: frozenset[str] | str) -> bool:
    """True when `locked` (ids, or ALL) covers the problem, by its own or its judge's id."""
    if locked == ALL:
        return True
    return not lock_keys(problem_id).isdisjoint(locked)


def filter_hits(hits: Iterable[Hit], tier: str, locked: frozenset[str] | str = frozenset()) -> list[Hit]:
    """Hits a tier may show: no excluded kinds, nothing from a locked problem."""
    banned = excluded_kinds(tier)
    out = []
    for hit in hits:
        if hit.chunk.kind in banned:
            continue
        pid = hit.chunk.problem_id
        if pid and is_locked(pid, locked):
            continue
        out.append(hit)
    return out


# --------------------------------------------------------------------------- contest lock


@dataclass(frozen=True)
class LockWindow:
    start: datetime
    end: datetime
    problems: frozenset[str] | str  # ids or ALL
    name: str = ""

    def active(self, now: datetime) -> bool:
        return self.start <= now < self.end


@dataclass(frozen=True)
class LockConfig:
    problems: frozenset[str] = frozenset()
    windows: tuple[LockWindow, ...] = ()
    broken: str | None = None  # why the file could not be used (then everything is locked)

    def locked_at(self, now: datetime) -> frozenset[str] | str:
        """Every problem locked at `now`, or ALL."""
        if self.broken:
            return ALL
        locked = set(self.problems)
        for window in self.windows:
            if window.active(now):
                if window.problems == ALL:
                    return ALL
                locked |= set(window.problems)
        return frozenset(locked)


@dataclass(frozen=True)
class LockDecision:
    locked: bool
    reason: str = ""  # "problem" | "window" | "broken_file"
    until: datetime | None = None
    window: str = ""


@dataclass
class _FileState:
    key: tuple[Any, ...] | None = None
    config: LockConfig = field(default_factory=LockConfig)


def _scope(value: Any) -> frozenset[str] | str:
    return ALL if value == ALL else frozenset(value)


def read_lock_file(path: Path) -> LockConfig:
    """The lock file's rules; `quest.schema.SchemaError` (file, line, key) when it is not valid."""
    from quest.schema import load_lock_file

    model = load_lock_file(path)
    windows = [LockWindow(w.start, w.end, _scope(w.problems), w.name) for w in model.windows]
    problems = _scope(model.problems)
    if problems == ALL:
        windows.append(LockWindow(datetime.min.replace(tzinfo=timezone.utc),
                                  datetime.max.replace(tzinfo=timezone.utc), ALL, "always"))
        problems = frozenset()
    return LockConfig(problems=problems, windows=tuple(windows))  # type: ignore[arg-type]


def broken_lock_warning(reason: str) -> str:
    """The operator's status-line warning for a lock file that cannot be used."""
    return f"contest lock file invalid: {reason} — all problems locked"


def format_moment(moment: datetime, zone: str | None = None) -> str:
    """'2026-12-01 12:00 UTC+08:00': always with its zone; in `zone` (an IANA name) when known."""
    shown = moment
    name = ""
    if zone:
        try:
            from zoneinfo import ZoneInfo

            shown, name = moment.astimezone(ZoneInfo(zone)), f" ({zone})"
        except (ValueError, KeyError, OSError):  # an unknown zone name: keep the window's own zone
            log.debug("unknown time zone %r", zone)
    offset = shown.strftime("%z") or "+0000"
    return f"{shown:%Y-%m-%d %H:%M} UTC{offset[:3]}:{offset[3:]}{name}"


class ContestLock:
    """The operator's contest lock. Cheap to consult: one stat() per check, a re-read on change.

    It fails closed: when a lock file is configured but missing, unreadable or invalid, every
    problem is locked, `warning()` says why for the status line, and the log says it at
    ERROR once per change of the file.
    """

    def __init__(self, path: Path | None) -> None:
        self.path = Path(path) if path else None
        self._state = _FileState()
        self._lock = threading.Lock()

    def config(self) -> LockConfig:
        if self.path is None:
            return LockConfig()
        try:
            st = self.path.stat()
            key: tuple[Any, ...] = (st.st_mtime_ns, st.st_size, st.st_ino)
        except OSError as exc:
            key = ("unreadable", type(exc).__name__)
        with self._lock:
            if key != self._state.key:
                self._state = _FileState(key=key, config=self._load())
            return self._state.config

    def _load(self) -> LockConfig:
        from quest.schema import SchemaError

        assert self.path is not None
        try:
            config = read_lock_file(self.path)
        except SchemaError as exc:
            log.error("contest lock file %s is invalid, locking every problem: %s", self.path, exc)
            return LockConfig(broken=str(exc.problems[0]) if exc.problems else str(exc))
        log.info("contest lock loaded from %s: %d problem(s), %d window(s)",
                 self.path, len(config.problems), len(config.windows))
        return config

    def warning(self) -> str | None:
        """A line for the operator when the lock file cannot be used, else None."""
        config = self.config()
        return broken_lock_warning(config.broken) if config.broken else None

    def locked_problems(self, now: datetime | None = None) -> frozenset[str] | str:
        """Every problem locked right now, or ALL."""
        return self.config().locked_at(now or datetime.now(timezone.utc))

    def check(self, problem_id: str | None, now: datetime | None = None) -> LockDecision:
        config = self.config()
        if config.broken:
            return LockDecision(True, "broken_file")
        now = now or datetime.now(timezone.utc)
        if is_locked(problem_id, config.problems):
            return LockDecision(True, "problem")
        for window in config.windows:
            if window.active(now) and (window.problems == ALL or is_locked(problem_id, window.problems)):
                return LockDecision(True, "window", until=window.end, window=window.name)
        return LockDecision(False)


# --------------------------------------------------------------------------- code removal

def code_removed_note(lang: str, max_lines: int = MAX_CODE_LINES) -> str:
    if lang == "zh":
        return f"> （此处的代码已移除：当前模式只给思路和不超过 {max_lines} 行的代码片段。）"
    return f"> (Code removed here: this mode gives the approach and snippets of at most {max_lines} lines.)"


class CodeGate:
    """A streaming filter that holds fenced code blocks back until they close.

    A block of at most `max_lines` lines is released whole; a longer one is replaced by a
    note, so the student never sees it, not even while the answer streams. Text outside
    code blocks passes through as soon as it is clear that it does not open a fence.
    """

    def __init__(self, *, enabled: bool, lang: str = "en", max_lines: int = MAX_CODE_LINES) -> None:
        self.enabled = enabled
        self.max_lines = max_lines
        self.note = code_removed_note(lang, max_lines)
        self.removed = 0
        self._pending = ""
        self._line_open = False  # the current line is known not to be a fence: pass it through
        self._fences = FenceTracker()  # where the stream is: inside a block or not
        self._block: list[str] = []
        self._after_cr = False  # the last chunk ended with CR (its LF may start the next one)

    def feed(self, text: str) -> str:
        if not self.enabled:
            return text
        self._pending += self._newlines(text)
        out: list[str] = []
        while self._pending:
            nl = self._pending.find("\n")
            if self._line_open:
                end = len(self._pending) if nl < 0 else nl + 1
                out.append(self._pending[:end])
                self._pending = self._pending[end:]
                self._line_open = nl < 0
                continue
            if nl < 0:
                if not self._fences.inside and not FenceTracker.could_open(self._pending):
                    self._line_open = True  # text, not a fence: the student sees it at once
                    continue
                break  # wait for the rest of the line
            line, self._pending = self._pending[: nl + 1], self._pending[nl + 1:]
            out.append(self._take_line(line))
        return "".join(out)

    def _take_line(self, line: str) -> str:
        """One whole line: what it lets through (a text line, a released block, or nothing yet)."""
        step = self._fences.feed_line(line)
        if step == "text":
            return line
        self._block.append(line)
        return self._release(closed=True) if step == "close" else ""

    @property
    def holding(self) -> bool:
        """True while a fenced block is held back: the page shows a placeholder where it will go."""
        return self.enabled and self._fences.inside

    def _newlines(self, text: str) -> str:
        """CR and CRLF as LF: Markdown renders a lone CR as a line end, so a block written with CRs
        would otherwise be one "line" here and many on screen (found by fuzzing). A CRLF may be
        split between two chunks: the LF after a chunk's final CR is dropped."""
        if not text:
            return text
        if self._after_cr and text.startswith("\n"):
            text = text[1:]
        self._after_cr = text.endswith("\r")
        return text.replace("\r\n", "\n").replace("\r", "\n")

    def _release(self, *, closed: bool) -> str:
        body = len(self._block) - (2 if closed else 1)
        block, self._block = "".join(self._block), []
        if body <= self.max_lines:
            return block
        self.removed += 1
        log.debug("code gate removed a block of %d lines", body)
        return self.note + "\n"

    def flush(self) -> str:
        if not self.enabled:
            return ""
        out = ""
        if self._fences.inside:
            if self._pending:
                self._block.append(self._pending)
            self._pending = ""
            self._fences = FenceTracker()
            out = self._release(closed=False)
        rest, self._pending = self._pending, ""
        self._line_open = False
        return out + rest


def strip_code_blocks(text: str, *, lang: str = "en", max_lines: int = MAX_CODE_LINES,
                      note: str | None = None) -> tuple[str, int]:
    """Remove fenced code blocks longer than `max_lines`; returns the text and how many went.

    The whole text is at hand, so the CommonMark parser decides (blocks in lists and quotes
    count too); the streaming `CodeGate` applies the same fence rule line by line. CRs become
    LFs first, as in the gate: a lone CR ends a Markdown line.
    """
    note = code_removed_note(lang, max_lines) if note is None else note
    removed = 0

    def replace(block: FencedBlock) -> str | None:
        nonlocal removed
        if block.line_count <= max_lines:
            return None
        removed += 1
        log.debug("code removal took out a block of %d lines", block.line_count)
        return note + "\n"

    text = text.replace("\r\n", "\n").replace("\r", "\n")
    return replace_fenced_blocks(text, replace), removed


def code_blocks(text: str) -> list[str]:
    """The bodies of the fenced code blocks in a Markdown text (nested ones included)."""
    return [block.body for block in fenced_blocks(text)]


def remove_all_code(text: str, note: str = "") -> str:
    """Every fenced block replaced by `note` (for official material shown without code).

    The closing fence's own line break stays after the note, so with a note that ends its line
    the note stands apart from the text that follows (a blank line between them).
    """
    last_line = len(split_lines(text))
    ends_with_break = text.endswith(("\n", "\r"))

    def replace(block: FencedBlock) -> str:
        keeps_break = block.closed and (block.end_line < last_line or ends_with_break)
        return note + "\n" if keeps_break else note

    return replace_fenced_blocks(text, replace)


# --------------------------------------------------------------------------- what a student sees


def held_back_note(lang: str) -> str:
    if lang == "zh":
        return "> （当前模式不显示这段代码：思路见上下文；允许时可用“完整题解”模式查看。）"
    return "> (Code held back in this mode: the idea is in the text around it; the solution mode shows it, " \
           "where allowed.)"


def visible_text(text: str, kind: str, tier: str, lang: str = "en", *, max_lines: int = MAX_CODE_LINES) -> str:
    """THE tier rule for document text a student can see: the Sources panel, the `/ask` API,
    `ask --json`, retrieval-only and direct answers all pass through here.

    * solution: everything;
    * hint: no official-solution text at all, and no code from any document;
    * explain: no code from an official solution, and no code block longer than `max_lines`
      from any other document (an error pattern's "fix" may be a whole accepted program).

    Removed code is replaced by a note saying it is held back. The student's own code is not a
    document and never passes through here.
    """
    if tier == "solution":
        return text
    text = text.replace("\r\n", "\n").replace("\r", "\n")  # a lone CR ends a Markdown line too
    note = held_back_note(lang)
    strictest = tier != "explain"  # hint, or a tier this code does not know
    if strictest and kind == "official_solution":
        return note
    if strictest or kind == "official_solution":
        return remove_all_code(text, note + "\n")
    return strip_code_blocks(text, max_lines=max_lines, note=note)[0]


def visible_sources(sources: Iterable[S], tier: str, lang: str = "en") -> tuple[S, ...]:
    """Sources (anything with `text` and `kind`) as `visible_text` lets the student see them."""
    return tuple(dataclasses.replace(s, text=visible_text(s.text, s.kind, tier, lang))  # type: ignore[type-var]
                 for s in sources)


# --------------------------------------------------------------------------- leak check

_TOKEN = re.compile(r"[A-Za-z_]\w*|\d+(?:\.\d+)?|==|!=|<=|>=|->|\+\+|--|&&|\|\||<<|>>|[-+*/%<>=\[\](){}.,:;&|^!~]")
_COMMENT = re.compile(r"(#|//).*$")
_TRIVIAL = re.compile(r"^(?:[{}()\[\];,:]+|else:?|try:|finally:|pass|break|continue|return;?|end|\}?else\{?)$")


def _normalized_lines(code: str) -> set[str]:
    lines = set()
    for raw in code.splitlines():
        line = re.sub(r"\s+", "", _COMMENT.sub("", raw))
        if len(line) >= 6 and not _TRIVIAL.match(line):
            lines.add(line)
    return lines


def _ngrams(text: str, n: int = NGRAM) -> set[tuple[str, ...]]:
    tokens = _TOKEN.findall(_strip_comments(text))
    return {tuple(tokens[i:i + n]) for i in range(len(tokens) - n + 1)}


def _strip_comments(text: str) -> str:
    return "\n".join(_COMMENT.sub("", line) for line in text.splitlines())


@dataclass(frozen=True)
class LeakReport:
    shared_lines: int
    containment: float  # share of the official code's token 5-grams found in the answer
    leaked: bool


def leak_check(answer: str, official_code: Iterable[str], *, min_shared_lines: int = LEAK_MIN_SHARED_LINES,
               containment: float = LEAK_CONTAINMENT) -> LeakReport:
    """Compare an answer with official solution code (each string one program)."""
    answer_lines = _normalized_lines(answer)
    answer_grams = _ngrams(answer)
    worst = LeakReport(0, 0.0, False)
    for code in official_code:
        official_lines = _normalized_lines(code)
        official_grams = _ngrams(code)
        shared = len(answer_lines & official_lines)
        share = len(answer_grams & official_grams) / len(official_grams) if official_grams else 0.0
        leaked = (official_lines and shared >= min(min_shared_lines, len(official_lines))) or (
            len(official_grams) >= 10 and share >= containment
        )
        report = LeakReport(shared, round(share, 3), bool(leaked))
        if (report.leaked, report.containment, report.shared_lines) > (
            worst.leaked, worst.containment, worst.shared_lines
        ):
            worst = report
    return worst


def leak_note(lang: str) -> str:
    if lang == "zh":
        return ("这个回答与本题官方题解的代码重合太多，按当前模式已被收回。"
                "请换成“提示”或“讲解”方式提问（例如问哪一行有问题、为什么），或在允许时选择“完整题解”。")
    return ("This answer overlapped too much with the problem's official solution code, so it was withheld "
            "in this mode. Ask about a specific line or idea instead, or choose the solution tier where allowed.")
