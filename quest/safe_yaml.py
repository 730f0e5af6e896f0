"""The one YAML reader for every file an operator or an export hands us.

PyYAML's `safe_load` builds only plain types, but it still expands anchors and aliases: a
"billion laughs" document of a few hundred bytes becomes gigabytes once loaded. Nothing Quest
reads (front matter, problems.yaml, the contest lock, Hydro's problem.yaml) needs them, so
they are refused outright, before anything is built. Size and nesting depth are capped too.

Hydro reads YAML with js-yaml, which accepts a tab after `key:`; PyYAML does not. With
`tab_after_colon=True` such tabs become spaces and the caller is told how many lines changed,
so it can warn, naming the file.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

import yaml

MAX_YAML_BYTES = 1_000_000
MAX_YAML_DEPTH = 32

# `key:<tab>value` at the start of a line (after indentation or a list dash), outside quotes.
_TAB_AFTER_COLON = re.compile(r"^(\s*(?:-\s+)?[^\s#'\"\-][^:#\n]*?):\t+", re.M)


class UnsafeYAML(ValueError):
    """The text is not YAML we accept. `line` is 1-based where known."""

    def __init__(self, reason: str, *, line: int | None = None) -> None:
        super().__init__(reason if line is None else f"line {line}: {reason}")
        self.reason = reason
        self.line = line


@dataclass(frozen=True)
class YAMLText:
    """The parsed value, and how many lines had a tab after their colon replaced."""

    value: Any
    tabs_fixed: int = 0


def _line_of(node_or_event: Any) -> int | None:
    mark = getattr(node_or_event, "start_mark", None)
    return mark.line + 1 if mark is not None else None


def _check_events(text: str) -> None:
    """Refuse anchors, aliases and deep nesting while only scanning: nothing is built yet."""
    depth = 0
    for event in yaml.parse(text, Loader=yaml.SafeLoader):
        if isinstance(event, yaml.AliasEvent) or getattr(event, "anchor", None):
            raise UnsafeYAML("anchors and aliases (&name / *name) are not allowed", line=_line_of(event))
        if isinstance(event, (yaml.MappingStartEvent, yaml.SequenceStartEvent)):
            depth += 1
            if depth > MAX_YAML_DEPTH:
                raise UnsafeYAML(f"nested deeper than {MAX_YAML_DEPTH} levels", line=_line_of(event))
        elif isinstance(event, (yaml.MappingEndEvent, yaml.SequenceEndEvent)):
            depth -= 1


def fix_tabs_after_colon(text: str) -> tuple[str, int]:
    """Replace the tabs js-yaml accepts after `key:` with a space; return the text and the count."""
    return _TAB_AFTER_COLON.subn(r"\1: ", text)


def load_yaml(text: str, *, tab_after_colon: bool = False, max_bytes: int = MAX_YAML_BYTES) -> YAMLText:
    """Parse untrusted YAML into plain Python values, or raise `UnsafeYAML`.

    >>> load_yaml("a: 1").value
    {'a': 1}
    """
    if len(text.encode("utf-8", "surrogatepass")) > max_bytes:
        raise UnsafeYAML(f"larger than {max_bytes} bytes")
    fixed = 0
    if tab_after_colon:
        text, fixed = fix_tabs_after_colon(text)
    try:
        _check_events(text)
        value = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        problem = getattr(exc, "problem", None) or str(exc)
        raise UnsafeYAML(f"broken YAML: {problem}", line=mark.line + 1 if mark is not None else None) from exc
    except RecursionError as exc:  # pathological flow nesting the event check could not reach
        raise UnsafeYAML("nested too deeply") from exc
    return YAMLText(value, fixed)
