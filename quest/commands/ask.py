"""`python -m quest ask "question" --problem 239 --code FILE --error "..." [--tier hint] [--json]`.

Streams the answer to stdout as it is generated, then lists the sources. Notices (fallbacks,
refusals, trimmed history) go to stderr. Works without Ollama: the answer is then built from
the sources, with one line saying what failed and how to fix it. `--json` prints one JSON
object at the end instead (answer, sources, notices, stats, cited, incomplete, fallback).

Exit status: 0 for an answer (fallbacks included), 2 for an unusable request, 3 for a refusal
(contest lock).
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import asdict
from typing import TYPE_CHECKING, Any

from quest.commands.common import add_request_arguments, read_code
from quest.flags import add_deprecated_alias, add_llm_flags
from quest.settings import Settings

if TYPE_CHECKING:  # imported inside the functions at run time, so --help stays fast
    from quest.context import Source
    from quest.events import Done, Notice
    from quest.request import Request

EXIT_INPUT = 2
EXIT_REFUSED = 3


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser("ask", help="ask a question and stream the answer")
    parser.add_argument("question", help="the question (an id or title alone answers from the knowledge base)")
    add_request_arguments(parser)
    parser.add_argument("--verdict", help="the verdict alone (TLE, WA, ...), if not in --error")
    parser.add_argument("--tier", choices=("hint", "explain", "solution"), help="how much to disclose")
    parser.add_argument("--lang", choices=("zh", "en"), help="answer language (default: the question's)")
    add_llm_flags(parser)
    add_deprecated_alias(parser, "--llm", "--llm-model", "ollama_model")
    parser.add_argument("--reasoning", action="store_true", help="use the reasoning model (shows its thinking)")
    parser.add_argument("--json", action="store_true", help="one JSON object at the end instead of streaming")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace, settings: Settings) -> int:
    from quest import assistant as assistant_module

    changes = {k: getattr(args, k) for k in ("ollama_host", "ollama_model") if getattr(args, k, None)}
    if changes:
        settings = settings.replace(**changes)
    request = _request_from(args, settings)
    progress = None if args.json else (lambda message: print(message, file=sys.stderr, flush=True))
    assistant = assistant_module.build_assistant(settings, progress=progress)

    printer = _StreamPrinter(quiet=args.json)
    events = assistant.ask(request)
    try:
        for event in events:
            printer.handle(event)
    finally:
        events.close()

    done = printer.done
    if done is None:  # pragma: no cover - the assistant always ends with Done
        return 1
    if args.json:
        _print_json(done, printer.sources, printer.notices)
    else:
        _print_summary(done, printer.sources, streamed=printer.streamed)
    return _exit_status(done)


def _request_from(args: argparse.Namespace, settings: Settings) -> Request:
    from quest.request import Request

    return Request(question=args.question, problem_id=args.problem, language=args.language,
                   code=read_code(args.code), error=args.error, verdict=args.verdict,
                   tier=args.tier or settings.default_tier, ui_lang=args.lang or "auto",
                   reasoning=args.reasoning)


class _StreamPrinter:
    """Prints the assistant's events as they come (unless `quiet`) and keeps what the summary needs."""

    def __init__(self, *, quiet: bool) -> None:
        self.quiet = quiet
        self.out, self.err = sys.stdout, sys.stderr
        self.sources: tuple[Source, ...] = ()
        self.notices: list[Notice] = []
        self.done: Done | None = None
        self.streamed = False  # answer text was printed as it came
        self.thinking = False  # the model's thinking is being printed to stderr

    def handle(self, event: Any) -> None:
        from quest.events import Done, Notice, Replace, Sources, Thinking, Token

        if isinstance(event, Notice):
            self.notices.append(event)
            if not self.quiet and event.code != "locked":  # a refusal is the answer: printed below
                print(f"[{event.level}] {event.text}", file=self.err, flush=True)
        elif isinstance(event, Sources):
            self.sources = event.sources
        elif isinstance(event, Done):
            self.done = event
        elif self.quiet:
            return
        elif isinstance(event, Thinking):
            if not self.thinking:
                print("(thinking) ", end="", file=self.err)
                self.thinking = True
            print(event.text, end="", file=self.err, flush=True)
        elif isinstance(event, Token):
            if self.thinking:
                print(file=self.err)
                self.thinking = False
            self.out.write(event.text)
            self.out.flush()
            self.streamed = True
        elif isinstance(event, Replace):
            self.out.write(f"\n\n--- revised answer ({event.reason}) ---\n{event.text}")
            self.out.flush()


def _print_json(done: Done, sources: tuple[Source, ...], notices: list[Notice]) -> None:
    payload = {
        "answer": done.answer,
        "sources": [asdict(s) for s in sources],
        "notices": [asdict(n) for n in notices],
        "stats": done.stats,
        "cited": list(done.cited),
        "incomplete": done.incomplete,
        "fallback": done.fallback,
    }
    print(json.dumps(payload, ensure_ascii=False, indent=2, default=str), file=sys.stdout)


def _print_summary(done: Done, sources: tuple[Source, ...], *, streamed: bool) -> None:
    """The answer if it was not streamed, the sources (cited ones starred), one line of stats on stderr."""
    out = sys.stdout
    if streamed:
        out.write("\n")
    elif done.answer:
        out.write(done.answer + "\n")
    if sources:
        out.write("\nSources:\n")
        lang = str(done.stats.get("lang", "en"))
        for s in sources:
            mark = "*" if s.number in done.cited else " "
            out.write(f"{mark} {s.header_in(s.label, lang)}\n")
    stats = done.stats
    line = [f"mode {stats.get('mode')}", f"tier {stats.get('tier')}"]
    if stats.get("model") and stats.get("mode") == "model":
        line.append(str(stats["model"]))
    if stats.get("tokens_per_second"):
        line.append(f"{stats['tokens_per_second']} tok/s")
    if stats.get("incomplete") or done.incomplete:
        line.append("incomplete")
    print("\n(" + ", ".join(line) + ")", file=sys.stderr)


def _exit_status(done: Done) -> int:
    mode = done.stats.get("mode")
    if mode == "input_error":
        return EXIT_INPUT
    if mode == "refused":
        return EXIT_REFUSED
    return 0
