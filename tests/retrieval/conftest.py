from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from quest.settings import Settings
from tests.fakes.embedder import HashingEmbedder

SMALL_KB = Path(__file__).resolve().parents[1] / "data" / "kb_small"


@pytest.fixture
def kb_dir(tmp_path: Path) -> Path:
    """A private copy of the small knowledge base, free to edit."""
    target = tmp_path / "kb"
    shutil.copytree(SMALL_KB, target)
    return target


@pytest.fixture
def settings(kb_dir: Path, tmp_path: Path) -> Settings:
    return Settings(kb_dir=kb_dir, data_dir=tmp_path / "data", show_progress=False, dense_floor=0.3,
                    bm25_floor=0.15)


@pytest.fixture
def embedder() -> HashingEmbedder:
    return HashingEmbedder()
