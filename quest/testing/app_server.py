"""Helpers for running the real Quest app against fakes: a small knowledge base and a free port.

`small_knowledge_base(target)` copies a slice of the sample knowledge base (the full problem
catalogue; the documents of problems 1, 200, 239 and 322 and a few general pitfalls) into
`target`: enough for every stage of a request, small enough to index in seconds with the tiny
model. Quest's tests and `python -m quest bench` launch the app on it; operators can do the same
to try a setup quickly.
"""

from __future__ import annotations

import shutil
import socket
from pathlib import Path

REPO_KNOWLEDGE = Path(__file__).resolve().parents[2] / "knowledge"
KB_PROBLEMS = ("1-two-sum", "200-number-of-islands", "239-sliding-window-maximum", "322-coin-change")
KB_GENERAL = ("python-list-pop0", "python-recursion-limit", "cpp-integer-overflow", "python-big-loops")


def small_knowledge_base(target: Path, source: Path = REPO_KNOWLEDGE) -> Path:
    """Copy the slice of `source` (the repository's knowledge/ by default) into `target`."""
    target.mkdir(parents=True, exist_ok=True)
    shutil.copy(source / "problems.yaml", target / "problems.yaml")
    for name in KB_PROBLEMS:
        shutil.copytree(source / "problems" / name, target / "problems" / name)
    (target / "general").mkdir()
    for stem in KB_GENERAL:
        for path in (source / "general").glob(f"{stem}.*.md"):
            shutil.copy(path, target / "general" / path.name)
    return target


def free_port() -> int:
    """A TCP port on 127.0.0.1 that was free a moment ago."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]
