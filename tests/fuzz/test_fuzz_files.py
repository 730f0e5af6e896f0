"""Fuzzing what operators and exports hand Quest (issue 11, item 6): knowledge files with front
matter, problems.yaml, the contest lock and each importer. Only the documented errors may come
out (KnowledgeBaseError, SchemaError, ImportError_), and the lock must fail closed."""

from __future__ import annotations

import json
import tempfile
from collections.abc import Callable
from datetime import datetime, timezone
from pathlib import Path
from typing import TypeVar

from hypothesis import given
from hypothesis import strategies as st

from quest.errors import ImportError_, KnowledgeBaseError
from quest.kb.importers import read_export
from quest.kb.markdown import chunk_document, load_catalogue, parse_document
from quest.policy import ALL, ContestLock
from quest.schema import SchemaError, load_lock_file
from tests.fuzz.strategies import TEXT, XML_FRAGMENTS, YAML_FRAGMENTS, mixed
from tests.fuzz.support import bounded, examples

YAMLISH = mixed(YAML_FRAGMENTS, max_parts=40)
BODY = st.one_of(TEXT, st.just("## Idea\nUse a deque.\n```python\nprint(1)\n```\n"))
VALID_HEAD = "id: d1\nkind: faq\ntitle: T\n"
T = TypeVar("T")
NOW = datetime(2026, 12, 1, 2, 0, tzinfo=timezone.utc)


def _parse_and_chunk(text: str) -> int:
    return len(chunk_document(parse_document(text, "fuzz.md"), max_chars=200))


@examples(400)
@given(st.sampled_from(["", VALID_HEAD]), YAMLISH, BODY, st.sampled_from(["---\n", "\ufeff---\n", "--- \n", ""]))
def test_a_knowledge_file_loads_or_names_what_is_wrong(head: str, front: str, body: str, opener: str) -> None:
    text = f"{opener}{head}{front}\n---\n{body}"
    try:
        chunks = bounded(_parse_and_chunk, text)
    except KnowledgeBaseError as exc:
        assert exc.path == "fuzz.md" and exc.reason
        return
    assert chunks >= 1


def _with_file(text: str, name: str, func: Callable[[Path], T]) -> T:
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / name
        path.write_text(text, encoding="utf-8", errors="surrogatepass")
        return func(path)


@examples(300)
@given(st.one_of(YAMLISH, st.just("- id: 1\n  title_zh: ") .map(lambda t: t + "x\n")))
def test_a_catalogue_loads_or_names_what_is_wrong(text: str) -> None:
    try:
        problems = bounded(_with_file, text, "problems.yaml", load_catalogue)
    except KnowledgeBaseError as exc:
        assert exc.path.endswith("problems.yaml") and exc.reason
        return
    assert all(pid == p.id for pid, p in problems.items())


def _lock_outcome(path: Path) -> tuple[object, object, object]:
    try:
        config: object = load_lock_file(path)
    except SchemaError as exc:
        config = exc
    lock = ContestLock(path)
    return config, lock.check("239", NOW), lock.locked_problems(NOW)


@examples(400)
@given(st.one_of(YAMLISH, st.builds(lambda a, b: f"problems: {a}\nwindows:\n  - start: {b}\n    end: {b}\n",
                                    YAMLISH, YAMLISH)))
def test_the_lock_never_fails_open(text: str) -> None:
    """Either the file is valid and the lock does what it says, or every problem is locked."""
    config, decision, locked = bounded(_with_file, text, "lock.yaml", _lock_outcome)
    if isinstance(config, SchemaError):
        assert decision.reason == "broken_file" and decision.locked and locked == ALL
        assert config.problems and config.path.endswith("lock.yaml")
    else:
        assert decision.reason != "broken_file"
        assert decision.locked == (locked == ALL or "239" in locked)


# --------------------------------------------------------------------------- importers

JSON_VALUE = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(), st.floats(allow_nan=True), TEXT),
    lambda inner: st.one_of(st.lists(inner, max_size=4), st.dictionaries(TEXT, inner, max_size=4)),
    max_leaves=12,
)
HYDRO_CONFIG_FRAGMENTS = ["time: ", "memory: ", "1s", "1000ms", "1.5s", "1.2.3s", "256m", "512MiB", "1g", "..m", ".",
                          "\n", "type: default\n", "[", "~"]
QDUOJ_KEYS = ["display_id", "title", "description", "input_description", "output_description", "hint", "samples",
              "time_limit", "memory_limit", "tags", "source"]
QDUOJ_PROBLEM = st.one_of(
    st.dictionaries(st.sampled_from(QDUOJ_KEYS), JSON_VALUE, max_size=8).map(lambda d: {"title": "T", **d}),
    JSON_VALUE,
)


def _import(fmt: str, files: dict[str, bytes]) -> int:
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder) / "export"
        for rel, data in files.items():
            path = root / rel
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(data)
        result = read_export(fmt, root if fmt != "fps" else root / "fps.xml")
        return len(result.problems)


def _imports_or_refuses(fmt: str, files: dict[str, bytes]) -> None:
    try:
        bounded(_import, fmt, files)
    except ImportError_ as exc:
        assert str(exc)


@examples(200)
@given(QDUOJ_PROBLEM, st.one_of(st.none(), TEXT))
def test_the_qduoj_importer(problem: object, solution: str | None) -> None:
    files = {"1/problem.json": json.dumps(problem, allow_nan=True).encode()}
    if solution is not None:
        files["1/solution/a.md"] = solution.encode("utf-8", "surrogatepass")
    _imports_or_refuses("qduoj", files)


@examples(200)
@given(YAMLISH, st.one_of(st.none(), mixed(HYDRO_CONFIG_FRAGMENTS, max_parts=12)), TEXT)
def test_the_hydro_importer(meta: str, config: str | None, statement: str) -> None:
    files = {"P1/problem.yaml": ("title: T\n" + meta).encode(), "P1/problem.md": statement.encode()}
    if config is not None:
        files["P1/testdata/config.yaml"] = config.encode()
    _imports_or_refuses("hydro", files)


@examples(300)
@given(mixed(XML_FRAGMENTS, max_parts=50), st.booleans())
def test_the_fps_importer(xml: str, wrapped: bool) -> None:
    text = f"<fps><item><title>T</title>{xml}</item></fps>" if wrapped else xml
    _imports_or_refuses("fps", {"fps.xml": text.encode("utf-8", "surrogatepass")})
