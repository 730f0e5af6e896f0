"""`python -m quest … --json` on a copy of the starter base, for the tests of what an entry point (`search`, `ask`)
says: a copy per test module, so its index is built once and no test writes into the repository's knowledge/."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parent.parent.parent

StarterCopy = tuple[Path, Path]  # the copied knowledge folder, and the data folder its index goes in


def starter_copy(tmp_path_factory: pytest.TempPathFactory, name: str) -> StarterCopy:
    """A snapshot of the starter base and an empty data folder, under a temporary folder called `name`."""
    root = tmp_path_factory.mktemp(name)
    shutil.copytree(ROOT / "knowledge", root / "knowledge")
    return root / "knowledge", root / "data"


def run_quest(copy: StarterCopy, *args: str) -> Any:
    """The JSON `quest <args> --json` prints against `copy` (BM25 only; no QUEST_ or OLLAMA_ setting of the caller's
    environment leaks in)."""
    kb, data = copy
    env = {k: v for k, v in os.environ.items() if not k.startswith(("QUEST_", "OLLAMA_"))}
    out = subprocess.run([sys.executable, "-m", "quest", "--kb", str(kb), "--data-dir", str(data), "--model", "none",
                          *args, "--json"], cwd=ROOT, capture_output=True, text=True, timeout=300, env=env)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)
