"""Rules about the code itself: short functions, and fences found in one place.

Each rule has a list of known exceptions that other work is removing. An exception that no
longer applies fails too, so the lists only shrink: delete the entry when its fix lands.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
MAX_FUNCTION_LINES = 80

#: (file, function) still over the limit; being split in their own issues.
LONG_FUNCTIONS: set[tuple[str, str]] = set()

#: Files that still find fences with their own patterns instead of quest/markdown_blocks.py.
OWN_FENCE_PATTERNS: set[str] = set()

# A regular expression for a fence: three backticks or tildes written as a pattern.
FENCE_PATTERN = re.compile(r"""`\{3,?\}|~\{3,?\}|\^ \{0,3\}```|\^\[ \\t\]\*\(```""")


def python_files() -> list[Path]:
    return sorted((REPO / "quest").rglob("*.py"))


def long_functions() -> set[tuple[str, str]]:
    found = set()
    for path in python_files():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            is_function = isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
            if is_function and node.end_lineno - node.lineno + 1 > MAX_FUNCTION_LINES:
                found.add((path.relative_to(REPO).as_posix(), node.name))
    return found


def test_no_function_in_quest_is_over_80_lines():
    found = long_functions()
    assert found - LONG_FUNCTIONS == set(), "split these into named steps"
    assert LONG_FUNCTIONS - found == set(), "these are short now: remove them from LONG_FUNCTIONS"


def test_fences_are_found_by_markdown_blocks_only():
    found = {path.relative_to(REPO).as_posix() for path in python_files()
             if FENCE_PATTERN.search(path.read_text(encoding="utf-8"))}
    found.discard("quest/markdown_blocks.py")
    assert found - OWN_FENCE_PATTERNS == set(), "use quest.markdown_blocks instead of a fence pattern"
    assert OWN_FENCE_PATTERNS - found == set(), "these use markdown_blocks now: remove them from the list"


def test_the_fence_pattern_finds_the_known_spellings():
    for pattern in ('r"^ {0,3}(`{3,}|~{3,})"', 'r"^\\s*(`{3,}|~{3,})"', 'r"^ {0,3}```"',
                    'r"(^[ \\t]*(```|~~~).*?)"'):
        assert FENCE_PATTERN.search(pattern), pattern
    assert not FENCE_PATTERN.search('return "```python\\n" + body')
