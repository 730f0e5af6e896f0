"""Build the assistant in the background so the page is up (and says so) while the index builds."""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from typing import Any

log = logging.getLogger(__name__)

Progress = Callable[[str], None]


class Startup:
    """Holds the assistant once it is built, and the progress messages until then.

    `build(progress)` is called once, in a thread (`start()`) or inline (`run()`); each
    progress message is logged and kept for the status line. If building fails, the app
    keeps serving a page that says so instead of dying with a traceback.
    """

    def __init__(self, build: Callable[[Progress], Any]) -> None:
        self._build = build
        self._lock = threading.Lock()
        self._assistant: Any = None
        self._failed: str | None = None
        self._messages: list[str] = []
        self._thread: threading.Thread | None = None
        self.done = threading.Event()

    @classmethod
    def ready(cls, assistant: Any) -> Startup:
        startup = cls(lambda progress: assistant)
        startup.run()
        return startup

    def progress(self, message: str) -> None:
        log.info("startup: %s", message)
        with self._lock:
            self._messages.append(message)
            del self._messages[:-20]

    def start(self) -> None:
        if self._thread is None:
            self._thread = threading.Thread(target=self.run, name="quest-startup", daemon=True)
            self._thread.start()

    def run(self) -> None:
        try:
            assistant = self._build(self.progress)
        except Exception as exc:  # the page must still come up and say what happened
            log.exception("Quest could not start")
            with self._lock:
                self._failed = f"{type(exc).__name__}: {exc}"
        else:
            with self._lock:
                self._assistant = assistant
        finally:
            self.done.set()

    def wait(self, timeout: float | None = None) -> bool:
        return self.done.wait(timeout)

    @property
    def assistant(self) -> Any:
        with self._lock:
            return self._assistant

    @property
    def failed(self) -> str | None:
        with self._lock:
            return self._failed

    @property
    def last_message(self) -> str:
        with self._lock:
            return self._messages[-1] if self._messages else ""
