"""Document hashes on disk: a base file written once, and the manifest's changes since.

The index remembers every document's content hash, to embed only what changed. At a million
chunks that is ~264k hashes (14 MB of JSON): rewriting, re-reading and validating them in the
manifest on every one-document update was most of the update's save. So a full save writes
them to `documents-<hash>.json` (named by its content, never rewritten), and each later save
lists only the documents changed or removed since that file in the manifest (HashDelta, carried
from update to update, so no save compares every hash): an update writes O(changed). When the
changes pass a tenth of the base, the next save writes a new base file.

Crash safety is the manifest's: the base file is complete and fsynced before the manifest that
names it, and the previous one is removed only after the new manifest is in place.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from quest.errors import IndexError_
from quest.retrieval import store
from quest.retrieval.chunktable import decode_record, encode_record
from quest.retrieval.manifest import FileEntry, Manifest

REBASE_RATIO = 0.1  # changes beyond this share of the base's documents: write a new base file
REBASE_MIN = 1_000  # ... and beyond this many (a small index rewrites its few hashes anyway)


@dataclass(frozen=True)
class StoredHashes:
    """The base file of document hashes as written to or read from an index folder."""

    name: str
    entry: FileEntry
    hashes: Mapping[str, str]


@dataclass(frozen=True)
class HashDelta:
    """Documents changed (id -> hash) or removed since the base file, kept up to date by each update."""

    changed: Mapping[str, str] = field(default_factory=dict)
    removed: frozenset[str] = frozenset()

    def __len__(self) -> int:
        return len(self.changed) + len(self.removed)

    def after(self, base: Mapping[str, str] | None, changed: Mapping[str, str], removed: Iterable[str]) -> HashDelta:
        """This delta plus one update's changes: O(changed), never a pass over every document."""
        now = {**self.changed, **changed}
        gone = set(self.removed) - changed.keys()
        for doc_id in removed:
            now.pop(doc_id, None)
            if base is not None and doc_id in base:
                gone.add(doc_id)
        return HashDelta(now, frozenset(gone))


@dataclass(frozen=True)
class HashesToSave:
    base: StoredHashes
    delta: HashDelta


def plan(current: Mapping[str, str], stored: StoredHashes | None, delta: HashDelta, folder: Path) -> HashesToSave:
    """Reuse the folder's base file with the update's delta, or write a new base (first save, many changes)."""
    if stored is not None and _present(folder, stored) and len(delta) <= max(
            REBASE_MIN, int(len(stored.hashes) * REBASE_RATIO)):
        return HashesToSave(stored, delta)
    return HashesToSave(write_base(current, folder), HashDelta())


def _present(folder: Path, stored: StoredHashes) -> bool:
    path = folder / stored.name
    return path.exists() and path.stat().st_size == stored.entry.size


def write_base(hashes: Mapping[str, str], folder: Path) -> StoredHashes:
    body = encode_record(dict(hashes))
    name = f"documents-{hashlib.sha256(body).hexdigest()[:16]}.json"
    entry = store.write_atomic(folder / name, lambda p: p.write_bytes(body))
    return StoredHashes(name, entry, dict(hashes))


def read(folder: Path, manifest: Manifest) -> tuple[dict[str, str], StoredHashes | None, HashDelta]:
    """Every document's hash (base file + the manifest's changes), the base as stored, and the changes."""
    if not manifest.documents_base:
        return dict(manifest.documents), None, HashDelta()
    ((name, entry),) = manifest.documents_base.items()
    try:
        base = decode_record((folder / name).read_bytes())
    except (OSError, ValueError) as exc:
        raise IndexError_(f"{folder / name}: unreadable ({exc})") from exc
    if not isinstance(base, dict) or not all(isinstance(k, str) and isinstance(v, str) for k, v in base.items()):
        raise IndexError_(f"{folder / name}: not a map of document ids to hashes")
    if not manifest.documents_removed and not manifest.documents_changed:
        return base, StoredHashes(name, entry, base), HashDelta()  # one dict, shared (neither is changed in place)
    hashes = dict(base)
    for doc_id in manifest.documents_removed:
        hashes.pop(doc_id, None)
    hashes.update(manifest.documents_changed)
    delta = HashDelta(dict(manifest.documents_changed), frozenset(manifest.documents_removed))
    return hashes, StoredHashes(name, entry, base), delta
