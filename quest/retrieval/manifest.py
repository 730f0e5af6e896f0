"""The index manifest's schema: anything that does not fit it is an absent index, rebuilt.

A manifest that is valid JSON with the wrong shape (`{"format": 1}`, `files: []`, no `rows`,
`documents` as a list, a segment whose rows do not add up) must never reach the loader as a
KeyError: `parse_manifest` turns every such case into one `IndexError_` naming the first
problem, and `open_index` rebuilds on it with one log line.
"""

from __future__ import annotations

import json
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from quest.errors import IndexError_
from quest.retrieval.chunktable import decode_record

# 3: chunk metadata as columns + a record blob (chunktable.py); 4: sparse rows in scope order (scopes.py)
FORMAT_VERSION = 4
SEGMENT_NAME = r"^s[0-9]{6}$"
FILE_NAME = r"^[A-Za-z0-9][A-Za-z0-9._-]{0,80}$"  # a plain name inside the index folder, never a path


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)


class FileEntry(_Strict):
    size: int = Field(ge=0)
    sha256: str = Field(pattern=r"^[0-9a-f]{64}$")


class SegmentEntry(_Strict):
    name: str = Field(pattern=SEGMENT_NAME)
    rows: int = Field(ge=0)
    files: dict[str, FileEntry]

    @model_validator(mode="after")
    def _has_the_required_parts(self) -> SegmentEntry:
        for part in ("chunks.jsonl", "columns.npz", "names.json", "bm25.npz", "terms.json"):
            if f"{self.name}.{part}" not in self.files:
                raise ValueError(f"segment {self.name} lacks its {part}")
        for name in self.files:
            if not name.startswith(self.name + ".") or not _plain(name):
                raise ValueError(f"segment {self.name} names a foreign file {name!r}")
        return self


class Manifest(_Strict):
    format: Literal[4]
    model: str = Field(min_length=1)
    dim: int | None = Field(default=None, ge=1)
    lexical: bool
    chunk_max_chars: int = Field(ge=1)
    tokenizer: int = Field(ge=1)  # quest.retrieval.tokenize.TOKENIZER_VERSION the BM25 rows were built with
    rows: int = Field(ge=0)
    documents: dict[str, str] = Field(default_factory=dict)  # every hash inline (no documents_base)
    # Or (doc_hashes.py): a base file of hashes, plus the documents changed or removed since it.
    documents_base: dict[str, FileEntry] = Field(default_factory=dict, max_length=1)  # {"documents-N.json": entry}
    documents_changed: dict[str, str] = Field(default_factory=dict)
    documents_removed: list[str] = Field(default_factory=list)
    segments: list[SegmentEntry] = Field(min_length=1)
    deleted: dict[str, FileEntry] = Field(default_factory=dict, max_length=1)  # {"deleted-N.npy": entry}
    deleted_rows: int = Field(ge=0)
    saved_at: str = ""

    @model_validator(mode="after")
    def _consistent(self) -> Manifest:
        if sum(s.rows for s in self.segments) != self.rows:
            raise ValueError(f"rows is {self.rows} but the segments hold {sum(s.rows for s in self.segments)}")
        if len({s.name for s in self.segments}) != len(self.segments):
            raise ValueError("two segments share a name")
        if self.deleted_rows > self.rows or bool(self.deleted) != (self.deleted_rows > 0):
            raise ValueError("deleted_rows does not match the deleted-rows file")
        if any(not _plain(name) for name in self.deleted):
            raise ValueError("the deleted-rows file has an unsafe name")
        if any(not _plain(name) or not name.startswith("documents-") for name in self.documents_base):
            raise ValueError("the document hashes file has an unsafe name")
        inline = bool(self.documents)
        changes = bool(self.documents_changed or self.documents_removed)
        if (self.documents_base and inline) or (not self.documents_base and changes):
            raise ValueError("document hashes are either inline or a base file with its changes")
        return self

    def files(self) -> dict[str, FileEntry]:
        """Every file the manifest describes, by name."""
        out = dict(self.deleted) | dict(self.documents_base)
        for seg in self.segments:
            out.update(seg.files)
        return out


def _plain(name: str) -> bool:
    import re

    return re.match(FILE_NAME, name) is not None and ".." not in name


def parse_manifest(text: str, where: str) -> Manifest:
    """The manifest in `text`, or IndexError_ naming the first thing wrong with it."""
    try:
        raw = decode_record(text)  # orjson when installed: ~4x faster on a 250k-document manifest
    except (json.JSONDecodeError, ValueError) as exc:
        raise IndexError_(f"{where}: unreadable manifest ({exc})") from exc
    if isinstance(raw, dict) and raw.get("format") != FORMAT_VERSION:
        raise IndexError_(f"{where}: index format {raw.get('format')!r}, expected {FORMAT_VERSION}")
    try:
        return Manifest.model_validate(raw)
    except ValidationError as exc:
        first = exc.errors()[0]
        loc = ".".join(str(p) for p in first["loc"]) or "(top level)"
        raise IndexError_(f"{where}: invalid manifest at {loc}: {first['msg']}") from exc
