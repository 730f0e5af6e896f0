"""The reference code in every official solution really solves its examples.

Each official solution (kind: official_solution) carries `examples` in its front matter
(a list of {input, output}) and exactly one ```python and one ```cpp block, each a complete
stdin/stdout program. Here every block is run on every example and its output compared with
the expected one (trailing whitespace per line and trailing blank lines do not count).

C++ is compiled with `g++ -O2 -std=c++17`, in parallel, once per distinct source; binaries are
cached by content hash in pytest's cache folder (so a second run compiles nothing) and a
precompiled <bits/stdc++.h> makes the first run fast too. Without g++ the C++ cases skip.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import re
import shutil
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from quest.kb.documents import Document
from quest.kb.markdown import load_knowledge_base

# QUEST_KB_DIR (the app's own setting) lets an operator check their own knowledge base.
KNOWLEDGE = Path(os.environ.get("QUEST_KB_DIR") or Path(__file__).resolve().parents[2] / "knowledge")
CXX = shutil.which("g++")
CXX_FLAGS = ("-O2", "-std=c++17")
RUN_TIMEOUT = 10  # seconds per example; reference solutions take milliseconds
COMPILE_TIMEOUT = 120

LANG_ALIASES = {
    "python": ("python", "python3", "py"),
    "cpp": ("cpp", "c++", "cxx"),
}

_FENCE_OPEN = re.compile(r"^\s*(`{3,}|~{3,})\s*([^\s`{]*)")


# --------------------------------------------------------------------------- helpers


def code_blocks(markdown: str) -> list[tuple[str, str]]:
    """Every fenced block as (info word in lowercase, code)."""
    blocks: list[tuple[str, str]] = []
    fence: str | None = None
    info = ""
    buf: list[str] = []
    for line in markdown.splitlines():
        if fence is None:
            m = _FENCE_OPEN.match(line)
            if m:
                fence, info, buf = m.group(1), m.group(2).lower(), []
            continue
        stripped = line.strip()
        if stripped and set(stripped) == {fence[0]} and len(stripped) >= len(fence):
            blocks.append((info, "\n".join(buf) + "\n"))
            fence = None
            continue
        buf.append(line)
    return blocks


def blocks_for(doc: Document, lang: str) -> list[str]:
    return [code for info, code in code_blocks(doc.text) if info in LANG_ALIASES[lang]]


def cpp_key(version: str, source: str) -> str:
    return hashlib.sha256(f"{version}|{' '.join(CXX_FLAGS)}|{source}".encode()).hexdigest()[:20]


def normalize_output(text: str) -> str:
    lines = [line.rstrip() for line in text.replace("\r\n", "\n").split("\n")]
    while lines and not lines[-1]:
        lines.pop()
    return "\n".join(lines)


def examples_of(doc: Document) -> list[dict]:
    examples = doc.extra.get("examples")
    return examples if isinstance(examples, list) else []


def _load():
    if not KNOWLEDGE.is_dir():
        return None, []
    kb = load_knowledge_base(KNOWLEDGE)
    docs = sorted((d for d in kb.documents if d.kind == "official_solution"), key=lambda d: d.id)
    return kb, docs


KB, OFFICIAL = _load()
RUNNABLE = [d for d in OFFICIAL if examples_of(d)]
CASES = [pytest.param(d, lang, id=f"{d.id}-{lang}") for d in RUNNABLE for lang in ("python", "cpp")]


# --------------------------------------------------------------------------- shape of the documents


def test_knowledge_base_loads_without_errors():
    assert KB is not None, f"no knowledge folder at {KNOWLEDGE}"
    assert not KB.errors, "knowledge base errors:\n" + "\n".join(KB.errors)


def test_every_official_solution_has_examples_and_both_programs():
    offenders = []
    for doc in OFFICIAL:
        problems = []
        examples = doc.extra.get("examples")
        if not isinstance(examples, list) or not examples:
            problems.append("no `examples` in the front matter")
        else:
            for i, ex in enumerate(examples, 1):
                if (
                    not isinstance(ex, dict)
                    or not isinstance(ex.get("input"), str)
                    or not isinstance(ex.get("output"), str)
                ):
                    problems.append(f"example {i} is not {{input: str, output: str}}")
        for lang in ("python", "cpp"):
            n = len(blocks_for(doc, lang))
            if n != 1:
                problems.append(f"{n} ```{lang} blocks (expected exactly 1)")
        if problems:
            offenders.append(f"{doc.id} ({doc.source}): " + "; ".join(problems))
    assert not offenders, f"{len(offenders)} official solution(s) are incomplete:\n" + "\n".join(offenders)


# --------------------------------------------------------------------------- running the code


def _cache_dir(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Path:
    cache = getattr(request.config, "cache", None)
    if cache is not None:
        try:
            return Path(cache.mkdir("quest-reference-code"))
        except OSError:
            pass
    return tmp_path_factory.mktemp("quest-reference-code")


def _atomic_compile(args: list[str], target: Path) -> subprocess.CompletedProcess:
    """Compile to a temp name next to `target`, then rename: concurrent runs never see half a file."""
    fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=target.name + ".", suffix=".tmp")
    os.close(fd)
    try:
        proc = subprocess.run([*args, "-o", tmp], capture_output=True, text=True, timeout=COMPILE_TIMEOUT, check=False)
        if proc.returncode == 0:
            os.replace(tmp, target)
        return proc
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)


def _precompiled_header(cache: Path, version: str) -> list[str]:
    """Extra flags that let `#include <bits/stdc++.h>` use a precompiled header; [] if that fails."""
    try:
        probe = subprocess.run(
            [CXX, *CXX_FLAGS, "-x", "c++", "-H", "-fsyntax-only", "-"],
            input="#include <bits/stdc++.h>\n",
            capture_output=True,
            text=True,
            timeout=COMPILE_TIMEOUT,
            check=False,
        )
        header = next((line.split(None, 1)[1] for line in probe.stderr.splitlines() if line.startswith(". ")), None)
        if probe.returncode != 0 or not header or not header.endswith("stdc++.h"):
            return []
        key = hashlib.sha256(f"{version}|{' '.join(CXX_FLAGS)}|{header}".encode()).hexdigest()[:16]
        root = cache / f"pch-{key}"
        (root / "bits").mkdir(parents=True, exist_ok=True)
        link = root / "bits" / "stdc++.h"
        if not link.exists():
            with contextlib.suppress(FileExistsError):
                link.symlink_to(header)
        gch = root / "bits" / "stdc++.h.gch"
        if not gch.exists():
            proc = _atomic_compile([CXX, *CXX_FLAGS, "-x", "c++-header", header], gch)
            if proc.returncode != 0:
                return []
        return ["-I", str(root)]
    except (OSError, subprocess.SubprocessError):
        return []


@pytest.fixture(scope="session")
def cpp_binaries(request, tmp_path_factory) -> dict[str, tuple[Path | None, str]]:
    """Compile every distinct C++ reference program once, in parallel: hash -> (binary or None, log)."""
    if CXX is None:
        return {}
    cache = _cache_dir(request, tmp_path_factory)
    version = subprocess.run([CXX, "--version"], capture_output=True, text=True, check=False).stdout
    sources: dict[str, str] = {}
    for doc in RUNNABLE:
        blocks = blocks_for(doc, "cpp")
        if len(blocks) == 1:
            sources[cpp_key(version, blocks[0])] = blocks[0]
    todo = {k: s for k, s in sources.items() if not (cache / f"{k}.bin").exists()}
    extra = _precompiled_header(cache, version) if any("bits/stdc++.h" in s for s in todo.values()) else []

    def compile_one(item: tuple[str, str]) -> tuple[str, tuple[Path | None, str]]:
        key, source = item
        src = cache / f"{key}.cpp"
        src.write_text(source, encoding="utf-8")
        binary = cache / f"{key}.bin"
        try:
            proc = _atomic_compile([CXX, *CXX_FLAGS, *extra, str(src)], binary)
        except subprocess.TimeoutExpired:
            return key, (None, f"g++ took longer than {COMPILE_TIMEOUT}s")
        return key, (binary if proc.returncode == 0 else None, proc.stderr)

    results = {k: (cache / f"{k}.bin", "") for k in sources if k not in todo}
    workers = max(1, min(len(todo), os.cpu_count() or 1))
    if todo:
        with ThreadPoolExecutor(max_workers=workers) as pool:
            results.update(pool.map(compile_one, todo.items()))
    return {"__version__": (None, version), **results}


def _show(text: str, limit: int = 800) -> str:
    return text if len(text) <= limit else text[:limit] + f"... [{len(text) - limit} more characters]"


def _check_examples(doc: Document, lang: str, command: list[str]) -> None:
    failures = []
    for i, ex in enumerate(examples_of(doc), 1):
        given, expected = str(ex.get("input", "")), str(ex.get("output", ""))
        try:
            proc = subprocess.run(
                command, input=given, capture_output=True, text=True, timeout=RUN_TIMEOUT, check=False
            )
        except subprocess.TimeoutExpired:
            failures.append(f"example {i}: no answer within {RUN_TIMEOUT}s (TLE)\ninput:\n{_show(given)}")
            continue
        if proc.returncode != 0:
            failures.append(
                f"example {i}: exit code {proc.returncode} (RE)\ninput:\n{_show(given)}\nstderr:\n{_show(proc.stderr)}"
            )
            continue
        if normalize_output(proc.stdout) != normalize_output(expected):
            failures.append(
                f"example {i}: wrong answer (WA)\ninput:\n{_show(given)}\nexpected:\n{_show(expected)}\n"
                f"got:\n{_show(proc.stdout)}"
            )
    assert not failures, f"{doc.id} ({doc.source}), {lang}:\n" + "\n\n".join(failures)


@pytest.mark.parametrize(("doc", "lang"), CASES)
def test_reference_code_solves_examples(doc: Document, lang: str, cpp_binaries, tmp_path):
    blocks = blocks_for(doc, lang)
    if len(blocks) != 1:
        pytest.fail(f"{doc.id} ({doc.source}) has {len(blocks)} ```{lang} blocks, expected exactly 1")
    if lang == "python":
        script = tmp_path / "main.py"
        script.write_text(blocks[0], encoding="utf-8")
        _check_examples(doc, lang, [sys.executable, "-I", str(script)])
        return
    if CXX is None:
        pytest.skip("g++ is not installed: C++ reference code not checked (CI installs it; with CI=true this fails)")
    version = cpp_binaries["__version__"][1]
    binary, log = cpp_binaries[cpp_key(version, blocks[0])]
    assert binary is not None, f"{doc.id} ({doc.source}): the cpp block does not compile:\n{_show(log, 3000)}"
    _check_examples(doc, lang, [str(binary)])
