"""Shared fixtures. Fakes live in tests/fakes/; each module that defines fixtures is listed here."""

pytest_plugins: list[str] = [
    "tests.fakes.tiny_model",
    "tests.fakes.ollama_server",
    "tests.fakes.retriever",
    "tests.fakes.app_server",
    "tests.fakes.catalogue",
]

# CI=true: every skip is a failure (see tests/ci_skips.py).
from tests.ci_skips import pytest_make_collect_report, pytest_runtest_makereport  # noqa: E402, F401
