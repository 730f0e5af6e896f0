"""Pytest fixtures over the tiny bge-m3 model; the builder lives in quest.testing.tiny_model."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from quest.testing.tiny_model import HIDDEN, SEED, build_tiny_bge_m3, training_lines

__all__ = ["HIDDEN", "SEED", "build_tiny_bge_m3", "tiny_bge_dense", "tiny_bge_m3", "training_lines"]


@pytest.fixture(scope="session")
def tiny_bge_m3(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Folder of the tiny bge-m3 model (built once per session)."""
    return build_tiny_bge_m3(tmp_path_factory.mktemp("models") / "tiny-bge-m3")


@pytest.fixture(scope="session")
def tiny_bge_dense(tiny_bge_m3: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The same encoder without the bge-m3 heads, named like a generic Chinese BGE model."""
    target = tmp_path_factory.mktemp("models") / "bge-tiny-zh-v1.5"
    shutil.copytree(tiny_bge_m3, target, ignore=shutil.ignore_patterns("colbert_linear.pt", "sparse_linear.pt"))
    return target
