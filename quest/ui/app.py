"""Wire the page together: catalogue, assistant (built in the background), feedback, rate limit, UI."""

from __future__ import annotations

import logging
from collections.abc import Callable
from pathlib import Path
from typing import Any

from quest.errors import KnowledgeBaseError
from quest.feedback import FeedbackStore
from quest.kb.documents import Problem
from quest.settings import Settings
from quest.ui.desk import HelpDesk
from quest.ui.startup import Progress, Startup

log = logging.getLogger(__name__)


def load_problems(kb_dir: Path, starter: bool = True) -> dict[str, Problem]:
    """Every `problems.yaml` under the knowledge folder, for the problem picker (cheap: no documents)."""
    from quest.kb.markdown import iter_catalogues, load_catalogue

    problems: dict[str, Problem] = {}
    if not Path(kb_dir).is_dir():
        log.warning("knowledge folder %s not found: the problem picker is empty", kb_dir)
        return problems
    for path in iter_catalogues(Path(kb_dir), starter=starter):
        try:
            for pid, problem in load_catalogue(path).items():
                problems.setdefault(pid, problem)
        except KnowledgeBaseError as exc:
            log.warning("problem picker: %s", exc)
    return problems


def default_build(settings: Settings) -> Callable[[Progress], Any]:
    def build(progress: Progress) -> Any:
        from quest.assistant import build_assistant

        return build_assistant(settings, progress=progress)

    return build


def create_app(
    settings: Settings,
    *,
    assistant: Any = None,
    build: Callable[[Progress], Any] | None = None,
    background: bool = True,
) -> tuple[Any, HelpDesk]:
    """The Gradio Blocks and the HelpDesk behind them.

    With `assistant`, that one is used; otherwise `build(progress)` (by default
    `quest.assistant.build_assistant`) runs in a background thread, or inline when
    `background` is False, while the page shows its progress in the status line.
    """
    from quest.ui.layout import build_ui

    if assistant is not None:
        startup = Startup.ready(assistant)
    else:
        startup = Startup(build or default_build(settings))
        if background:
            startup.start()
        else:
            startup.run()
    desk = HelpDesk(settings, startup, feedback=FeedbackStore.for_settings(settings))
    demo = build_ui(settings, desk, load_problems(Path(settings.kb_dir), settings.starter_kb))
    return demo, desk
