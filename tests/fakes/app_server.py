"""The real Quest app, launched in the test process: real assistant, tiny embedding model, fake Ollama.

`quest_app` (session scope) copies a small slice of the real knowledge base
(`quest.testing.app_server.small_knowledge_base`) into a temporary folder, builds the index with
the tiny bge-m3 model, points Ollama at a `FakeOllama` on 127.0.0.1, writes a contest lock file
that locks problem 1, and launches the Gradio app on a free port. Tests call `app.reset()` (the
`live_app` fixture does) to get the fake Ollama back to its defaults.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from quest.settings import Settings
from quest.testing.app_server import KB_GENERAL, KB_PROBLEMS, free_port, small_knowledge_base
from quest.testing.http_fake import DEFAULT_TOKENS
from quest.testing.ollama_server import FakeOllama

__all__ = ["KB_GENERAL", "KB_PROBLEMS", "LOCKED_PROBLEM", "RunningApp", "free_port", "live_app", "quest_app",
           "small_knowledge_base"]

LOCKED_PROBLEM = "1"


@dataclass
class RunningApp:
    url: str
    settings: Settings
    ollama: FakeOllama
    demo: Any
    desk: Any

    def reset(self) -> None:
        """Fake Ollama back to normal: running, default script, no delay, nothing recorded."""
        fake = self.ollama
        if fake._server is None:
            fake.start()
        fake.tokens, fake.thinking, fake.delay, fake.mode = list(DEFAULT_TOKENS), [], 0.0, "normal"
        fake.pause_at, fake._proceed = frozenset(), threading.Semaphore(0)
        fake.pause_before_reply = False
        fake.holding.clear()
        fake.requests.clear()
        fake.disconnects.clear()
        fake.client_closed.clear()

    def client(self) -> Any:
        from gradio_client import Client

        return Client(self.url, verbose=False, download_files=False)

    @property
    def feedback_rows(self) -> list[dict[str, Any]]:
        return self.desk.feedback.rows()


@pytest.fixture(scope="session")
def quest_app(tiny_bge_m3: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningApp]:
    os.environ.setdefault("GRADIO_ANALYTICS_ENABLED", "False")
    from quest.ui.app import create_app
    from quest.ui.layout import launch_options

    root = tmp_path_factory.mktemp("quest-app")
    lock = root / "contest-lock.yaml"
    lock.write_text(f"problems: [{LOCKED_PROBLEM}]\n", encoding="utf-8")
    fake = FakeOllama().start()
    settings = Settings(
        kb_dir=small_knowledge_base(root / "knowledge"),
        data_dir=root / "data",
        embedding_model=str(tiny_bge_m3),
        show_progress=False,
        ollama_host=fake.url,
        contest_lock_file=lock,
        port=free_port(),
        rate_limit_per_minute=1000,
        max_question_chars=500,
        max_code_chars=3000,
        max_error_chars=1000,
        ui_lang="auto",
    )
    demo, desk = create_app(settings, background=False)
    assert desk.startup.assistant is not None, desk.startup.failed
    options = launch_options(settings, {})
    options.update(prevent_thread_lock=True, quiet=True)
    _, url, _ = demo.launch(**options)
    app = RunningApp(url=url.rstrip("/"), settings=settings, ollama=fake, demo=demo, desk=desk)
    try:
        yield app
    finally:
        demo.close()
        fake.stop()


@pytest.fixture
def live_app(quest_app: RunningApp) -> RunningApp:
    quest_app.reset()
    return quest_app
