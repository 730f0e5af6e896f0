"""Documents, chunks and problems: the records every other part of Quest passes around."""

from __future__ import annotations

import functools
import hashlib
import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from typing import Any

KINDS = ("official_solution", "user_explanation", "error_pattern", "faq", "problem_statement")
LANGS = ("zh", "en")

#: Labels shown in contexts, the UI and the CLI, per interface language.
KIND_LABELS = {
    "zh": {
        "official_solution": "官方题解",
        "user_explanation": "用户讲解",
        "error_pattern": "常见错误",
        "faq": "常见问题",
        "problem_statement": "题目描述",
    },
    "en": {
        "official_solution": "Official solution",
        "user_explanation": "User explanation",
        "error_pattern": "Common error",
        "faq": "FAQ",
        "problem_statement": "Problem statement",
    },
}


def kind_label(kind: str, lang: str = "en") -> str:
    return KIND_LABELS.get(lang, KIND_LABELS["en"]).get(kind, kind)


_PROBLEM_ID = re.compile(r"^\s*(?:#|p|P|lc|LC)?\s*0*(\d+)\s*$")


def normalize_problem_id(value: object) -> str | None:
    """'239', '#239', 'P239', 239 -> '239'. Other ids (e.g. 'A+B') are kept as stripped text."""
    if value is None:
        return None
    text = str(value).strip()
    if not text:
        return None
    m = _PROBLEM_ID.match(text)
    return m.group(1) if m else text


_SOURCE_NAME = re.compile(r"^[a-z0-9][a-z0-9_-]{0,39}$")


def is_source_name(value: object) -> bool:
    """'hustoj-main', 'fps', 'hydro2': lowercase letters, digits, '-' and '_' (at most 40)."""
    return isinstance(value, str) and bool(_SOURCE_NAME.match(value))


def qualified_problem_id(source_name: str, local_id: object) -> str:
    """'hustoj-main', 1007 -> 'hustoj-main:1007': an imported problem's id, unique per source.

    The local id is kept exactly as the judge writes it ('P1' stays 'P1', '排序1' stays).
    """
    return f"{source_name}:{str(local_id).strip()}"


@dataclass(frozen=True)
class Document:
    id: str
    kind: str
    title: str
    text: str
    lang: str = "en"
    problem_id: str | None = None
    tags: tuple[str, ...] = ()
    verdicts: tuple[str, ...] = ()
    languages: tuple[str, ...] = ()
    source: str = ""  # file the document came from, for error messages and the UI
    extra: Mapping[str, Any] = field(default_factory=dict)  # e.g. examples for reference code
    # Where an imported problem came from (front matter `source`, `url`, `remote_oj`); empty
    # for hand-written documents. `source_name` is the operator's name for the import.
    source_name: str = ""
    url: str = ""
    remote_oj: str = ""
    # An error pattern's bug as code constructs (front matter `signatures`; quest.kb.signatures.Signature values).
    signatures: tuple[Any, ...] = ()

    @functools.cached_property
    def content_hash(self) -> str:
        """Changes whenever anything that reaches the index changes (everything but `source`).

        Computed once per Document (documents are immutable): an index update compares every
        document's hash, which at 250k documents would otherwise cost seconds per update.
        """
        h = hashlib.sha256()
        for value in (self.id, self.kind, self.title, self.lang, self.problem_id or "", "\x1f".join(self.tags),
                      "\x1f".join(self.verdicts), "\x1f".join(self.languages)):
            h.update(value.encode("utf-8"))
            h.update(b"\x1e")
        h.update(json.dumps(self.extra, ensure_ascii=False, sort_keys=True, default=str).encode("utf-8") + b"\x1e")
        h.update(self.text.encode("utf-8"))
        if self.signatures:  # only when written: every other document's hash stays what it was
            h.update(b"\x1e" + repr(self.signatures).encode("utf-8"))
        return h.hexdigest()[:16]


@dataclass(frozen=True)
class Chunk:
    """A piece of a document small enough to embed, carrying its document's metadata."""

    id: str  # "<doc id>#<ordinal>"
    doc_id: str
    ordinal: int
    section: str
    text: str
    kind: str
    title: str
    lang: str
    problem_id: str | None = None
    tags: tuple[str, ...] = ()
    verdicts: tuple[str, ...] = ()
    languages: tuple[str, ...] = ()
    source_name: str = ""  # the import this chunk's document came from (see Document)
    url: str = ""

    @property
    def indexed_text(self) -> str:
        """What the embedding model and BM25 see: title and section give the text its topic."""
        head = self.title if not self.section else f"{self.title} - {self.section}"
        return f"{head}\n{self.text}"

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict (tuples as lists); `from_dict` reads it back. Every saved chunk goes through here.

        Field by field rather than `dataclasses.asdict`, which deep-copies and is ~10x slower at 100k chunks.
        """
        data = {name: getattr(self, name) for name in _CHUNK_FIELDS}
        for key in ("tags", "verdicts", "languages"):
            data[key] = list(data[key])
        return data

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Chunk:
        values = dict(data)
        for key in ("tags", "verdicts", "languages"):
            values[key] = tuple(values.get(key) or ())
        return cls(**values)


_CHUNK_FIELDS = tuple(f.name for f in fields(Chunk))


@dataclass(frozen=True)
class Problem:
    id: str
    title_zh: str = ""
    title_en: str = ""
    difficulty: str = ""
    tags: tuple[str, ...] = ()
    limits: Mapping[str, Any] = field(default_factory=dict)
    aka: tuple[str, ...] = ()  # earlier or other titles students use ("最长上升子序列" for 300)
    functions: tuple[str, ...] = ()  # the judge's names for its entry point ("maxSlidingWindow" for 239)
    # Imported problems: `id` is "<source>:<local_id>" so two judges' 1007 never collide;
    # `local_id` is the judge's own id as students know it ("1007", "P1", "排序1").
    source_name: str = ""
    local_id: str = ""
    url: str = ""
    # Set by the loader: the knowledge base has this problem's statement and nothing else
    # (an import without solutions), so answers must say they rest on the statement alone.
    statement_only: bool = False

    @property
    def display_id(self) -> str:
        return self.local_id or self.id

    def title(self, lang: str = "en") -> str:
        if lang == "zh":
            return self.title_zh or self.title_en or self.id
        return self.title_en or self.title_zh or self.id

    @property
    def label(self) -> str:
        """'239 · 滑动窗口最大值 · Sliding Window Maximum', as the problem picker shows it."""
        parts = [self.display_id] + [t for t in (self.title_zh, self.title_en) if t]
        return " · ".join(parts)


@dataclass(frozen=True)
class KnowledgeBase:
    documents: tuple[Document, ...]
    problems: Mapping[str, Problem]
    errors: tuple[str, ...] = ()  # files that could not be loaded, with the reason

    def by_id(self) -> dict[str, Document]:
        return {d.id: d for d in self.documents}
