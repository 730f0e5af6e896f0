"""Shared fixtures. Fakes live in tests/fakes/; each module that defines fixtures is listed here."""

pytest_plugins: list[str] = [
    "tests.fakes.tiny_model",
    "tests.fakes.ollama_server",
    "tests.fakes.retriever",
    "tests.fakes.app_server",
]
