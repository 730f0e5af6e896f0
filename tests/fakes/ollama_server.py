"""Pytest fixture over the fake Ollama; the server lives in quest.testing.ollama_server."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from quest.testing.http_fake import DEFAULT_TOKENS, RecordedRequest
from quest.testing.ollama_server import FakeOllama

__all__ = ["DEFAULT_TOKENS", "FakeOllama", "RecordedRequest", "fake_ollama"]


@pytest.fixture
def fake_ollama() -> Iterator[FakeOllama]:
    server = FakeOllama().start()
    try:
        yield server
    finally:
        server.stop()
