"""Reading untrusted OJ exports without trusting them.

Every check here refuses with `ImportError_` naming the offending file, before anything
is written into the knowledge base:

- size: a file is measured (`stat`) before it is read, so a 200 MB upload is refused at
  once instead of being loaded into memory;
- encoding: utf-8 (with or without BOM), then gb18030 (old Chinese OJs); anything else,
  or text with NUL bytes, is refused rather than guessed;
- XML: parsed with defusedxml: entity declarations, external references and DTD
  processing are refused; the bare `<!DOCTYPE fps PUBLIC ... "fps.dtd">` line HUSTOJ writes
  on every export declares nothing and is allowed. An FPS file is streamed (`parse_xml_file`):
  the test data inside it, often most of its size, is never held in memory, and control
  characters XML forbids (HUSTOJ copies test data in raw) are removed instead of failing;
- JSON nested deeper than a limit is refused before it is parsed;
- folders: a symbolic link anywhere inside a folder export is refused, never followed;
- zip: entries that would land outside the extraction folder (zip-slip: `..`, absolute
  paths, drive letters), symlinks, and archives whose contents add up to more than a
  limit (zip bombs) are refused; the byte count is enforced while extracting, because
  the sizes in a zip's directory can lie.
"""

from __future__ import annotations

import codecs
import json
import logging
import os
import re
import shutil
import stat
import tempfile
import xml.etree.ElementTree as ET
import zipfile
import zlib
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Any

from defusedxml import DefusedXmlException
from defusedxml import ElementTree as SafeET

from quest.errors import ImportError_

log = logging.getLogger(__name__)

ENCODINGS = ("utf-8-sig", "gb18030")  # utf-8-sig also reads plain utf-8
MB = 1024 * 1024

# Test data can be hundreds of megabytes and Quest never needs it: it is neither
# extracted from archives nor counted against the unpacked-size limit.
# Only a test data folder's judge configuration (Hydro keeps the limits there) is kept.
TEST_DATA_DIRS = frozenset({"testdata", "test_case", "test_cases", "testcase", "testcases", "data"})
TEST_DATA_KEPT = frozenset({"config.yaml", "config.yml"})  # compared lowercased


@dataclass(frozen=True)
class Limits:
    max_file_bytes: int = 200 * MB  # any single input file (the export itself, or a file in it)
    max_unpacked_bytes: int = 500 * MB  # everything extracted from one archive
    max_entries: int = 20_000  # files in one archive
    max_image_bytes: int = 2 * MB  # one statement image saved beside its problem; larger ones are left out
    max_json_depth: int = 64


def quoted(value: object, limit: int = 60, *, bare: bool = False) -> str:
    """Text from an export as a message quotes it: escaped by repr (a control character cannot reach the operator's
    terminal or log as itself) and cut to `limit` characters, its full length said, so a field that holds megabytes
    is not echoed whole. `bare`: without repr's quotes (where the message sets the text off itself)."""
    text = str(value)
    shown = repr(text[:limit])[1:-1] if bare else repr(text[:limit])
    return shown if len(text) <= limit else f"{shown}... ({len(text)} characters)"


def _size(n: float) -> str:
    return f"{n / MB:.1f} MB" if n >= MB else f"{int(n)} bytes"


def check_size(path: Path, limit: int) -> int:
    """The file's size, or a refusal if it is over `limit` (measured, never read)."""
    try:
        size = path.stat().st_size
    except OSError as exc:
        raise ImportError_(f"{path}: cannot read ({exc.strerror or exc})") from exc
    if size > limit:
        raise ImportError_(f"{path}: file is {_size(size)}, over the {_size(limit)} limit",
                           hint="raise the limit with --max-size-mb if the file is what you meant to import")
    return size


def decode(data: bytes, name: object) -> str:
    for encoding in ENCODINGS:
        try:
            text = data.decode(encoding)
        except UnicodeDecodeError:
            continue
        if "\x00" in text:
            break  # UTF-16 or binary decodes "successfully" into NULs; it is not text we know
        return text
    raise ImportError_(
        f"{name}: unknown text encoding",
        hint="save it as UTF-8 (GB18030/GBK is also accepted)",
    )


def read_text(path: Path, limits: Limits) -> str:
    check_size(path, limits.max_file_bytes)
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise ImportError_(f"{path}: cannot read ({exc.strerror or exc})") from exc
    return decode(data, path)


# XML 1.0 allows no C0 control character but tab, LF and CR (nor U+FFFE / U+FFFF). HUSTOJ's
# exporter copies test data into CDATA as it is (it only drops \x1a), so one form feed in a
# test file would otherwise make the whole export "malformed".
_XML_FORBIDDEN = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]")
_DECLARED = re.compile(rb"""^(?:\xef\xbb\xbf)?\s*<\?xml[^>]*?\bencoding\s*=\s*["']([A-Za-z0-9._-]+)["']""")
_CHINESE = frozenset({"gbk", "gb2312", "gb18030", "cp936", "ms936", "euc-cn", "x-gbk"})
_CHUNK = 1024 * 1024


def _xml_encodings(head: bytes) -> tuple[str, ...]:
    """Encodings to try, in order: the declared one first, then utf-8 and gb18030 as for any text."""
    m = _DECLARED.match(head)
    declared = m.group(1).decode("ascii").lower() if m else ""
    if declared in _CHINESE:
        # UTF-8 first all the same: real GBK text is almost never valid UTF-8, while UTF-8 text
        # (a file re-saved by an editor that kept the declaration) often decodes as GB18030,
        # into nonsense. GB18030 is a superset of GBK and GB2312.
        return ENCODINGS
    if declared and not declared.replace("_", "-").startswith("utf-8"):
        try:
            codecs.lookup(declared)
        except LookupError:
            return ENCODINGS
        return (declared, *ENCODINGS)
    return ENCODINGS


class _DroppingBuilder:
    """A TreeBuilder that keeps the elements of `drop` but none of their text."""

    def __init__(self, drop: frozenset[str]) -> None:
        self._builder = ET.TreeBuilder()
        self._drop = drop
        self._inside = 0

    def start(self, tag: str, attrs: dict[str, str]) -> ET.Element:
        if tag in self._drop:
            self._inside += 1
        return self._builder.start(tag, attrs)

    def end(self, tag: str) -> ET.Element:
        if tag in self._drop:
            self._inside -= 1
        return self._builder.end(tag)

    def data(self, text: str) -> None:
        if not self._inside:
            self._builder.data(text)

    def close(self) -> ET.Element:
        return self._builder.close()


class _WrongEncoding(Exception):
    pass


def parse_xml_file(path: Path, name: object, limits: Limits, drop: frozenset[str] = frozenset()) -> ET.Element:
    """Parse an untrusted XML file in 1 MB steps; the text of `drop` elements is never kept.

    Decoding follows `decode` (plus the file's declared encoding first); characters XML
    forbids are removed with one warning. A DOCTYPE line is fine, declaring or fetching anything is not.
    """
    check_size(path, limits.max_file_bytes)
    try:
        with open(path, "rb") as f:
            head = f.read(4096)
    except OSError as exc:
        raise ImportError_(f"{path}: cannot read ({exc.strerror or exc})") from exc
    for encoding in _xml_encodings(head):
        try:
            root, removed = _stream_xml(path, name, encoding, drop)
        except _WrongEncoding:
            continue
        if removed:
            log.warning("import: %s: %d control character(s) XML does not allow were removed", name, removed)
        return root
    raise ImportError_(f"{name}: unknown text encoding", hint="save it as UTF-8 (GB18030/GBK is also accepted)")


def _stream_xml(path: Path, name: object, encoding: str, drop: frozenset[str]) -> tuple[ET.Element, int]:
    decoder = codecs.getincrementaldecoder(encoding)()
    parser = SafeET.DefusedXMLParser(target=_DroppingBuilder(drop), forbid_dtd=False, forbid_entities=True,
                                     forbid_external=True)
    removed = 0
    first = True
    try:
        with open(path, "rb") as f:
            while True:
                block = f.read(_CHUNK)
                try:
                    text = decoder.decode(block, final=not block)
                except UnicodeDecodeError:
                    raise _WrongEncoding from None
                if first and "\x00" in text:
                    raise _WrongEncoding  # UTF-16 or binary decodes "successfully" into NULs
                first = False
                text, n = _XML_FORBIDDEN.subn("", text)
                removed += n
                if text:
                    parser.feed(text)
                if not block:
                    break
            return parser.close(), removed
    except OSError as exc:
        raise ImportError_(f"{path}: cannot read ({exc.strerror or exc})") from exc
    except DefusedXmlException as exc:
        raise ImportError_(
            f"{name}: XML that declares entities or references external files is refused ({type(exc).__name__})",
            hint="entities could read local files or expand without end; remove the declarations",
        ) from exc
    except ET.ParseError as exc:
        line, column = getattr(exc, "position", (0, 0))
        raise ImportError_(f"{name}:{line}: malformed XML ({_expat_reason(exc)}, column {column + 1})") from exc


_JSON_OPEN = re.compile(r'"(?:[^"\\]|\\.)*"|[\[{]|[\]}]')


def load_json(text: str, name: object, max_depth: int = 64) -> Any:
    """Parse untrusted JSON, refusing nesting deeper than `max_depth` before parsing."""
    depth = 0
    for m in _JSON_OPEN.finditer(text):
        token = m.group(0)
        if token in "[{":
            depth += 1
            if depth > max_depth:
                line = text.count("\n", 0, m.start()) + 1
                raise ImportError_(f"{name}:{line}: JSON nested deeper than {max_depth} levels")
        elif token in "]}":
            depth -= 1
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise ImportError_(f"{name}:{exc.lineno}: broken JSON ({exc.msg})") from exc
    except RecursionError:
        raise ImportError_(f"{name}: JSON nested too deeply") from None


def refuse_symlinks(folder: Path) -> None:
    """A link inside a folder export could point anywhere on this machine: refuse it."""
    for dirpath, dirnames, filenames in os.walk(folder, followlinks=False):
        for entry in (*dirnames, *filenames):
            path = Path(dirpath, entry)
            if path.is_symlink():
                raise ImportError_(f"{path}: is a symbolic link; links inside an export are refused")


def _expat_reason(exc: ET.ParseError) -> str:
    return str(exc).split(":")[0]


def _entry_parts(name: str) -> tuple[str, ...] | None:
    """The safe relative parts of a zip entry name, or None when it would escape."""
    posix = name.replace("\\", "/")
    if posix.startswith("/") or re.match(r"^[A-Za-z]:", posix):
        return None
    parts = tuple(p for p in PurePosixPath(posix).parts if p not in ("", "."))
    if any(p == ".." for p in parts):
        return None
    return parts


def _is_test_data(parts: tuple[str, ...]) -> bool:
    return any(p.lower() in TEST_DATA_DIRS for p in parts[:-1]) and parts[-1].lower() not in TEST_DATA_KEPT


def extract_zip(archive: Path, dest: Path, limits: Limits) -> None:
    """Extract `archive` into the existing folder `dest`, refusing anything unsafe."""
    check_size(archive, limits.max_file_bytes)
    try:
        zf = zipfile.ZipFile(archive)
    except (zipfile.BadZipFile, OSError) as exc:
        raise ImportError_(f"{archive}: not a readable zip file ({exc})") from exc
    with zf:
        infos = zf.infolist()
        if len(infos) > limits.max_entries:
            raise ImportError_(f"{archive}: {len(infos)} entries, over the limit of {limits.max_entries}")
        wanted: list[tuple[zipfile.ZipInfo, tuple[str, ...]]] = []
        declared = 0
        for info in infos:
            parts = _entry_parts(info.filename)
            if parts is None:
                raise ImportError_(f"{archive}: entry {quoted(info.filename)} would be written outside the import "
                                   "folder")
            if stat.S_ISLNK(info.external_attr >> 16):
                raise ImportError_(f"{archive}: entry {quoted(info.filename)} is a symbolic link")
            if info.is_dir() or not parts or _is_test_data(parts):
                continue
            declared += info.file_size
            wanted.append((info, parts))
        if declared > limits.max_unpacked_bytes:
            raise ImportError_(
                f"{archive}: unpacks to {_size(declared)}, over the {_size(limits.max_unpacked_bytes)} limit"
            )
        written = 0
        for info, parts in wanted:
            target = dest.joinpath(*parts)
            target.parent.mkdir(parents=True, exist_ok=True)
            try:
                with zf.open(info) as src, open(target, "wb") as out:
                    while block := src.read(1024 * 1024):
                        written += len(block)
                        if written > limits.max_unpacked_bytes:  # the directory lied about sizes
                            raise ImportError_(f"{archive}: unpacks to more than the declared size (zip bomb?)")
                        out.write(block)
            except (zipfile.BadZipFile, OSError, EOFError, RuntimeError, zlib.error) as exc:
                # RuntimeError: encrypted entries; BadZipFile: CRC mismatch; zlib.error: corrupt deflate data.
                reason = " ".join(str(exc).split()) or type(exc).__name__
                raise ImportError_(f"{archive}: cannot extract {quoted(info.filename)} ({reason[:200]})") from exc


@dataclass(frozen=True)
class ExportRoot:
    """Where an export's files are read from, and how to name them in messages.

    For a zip, `path` is a scratch folder but messages name `archive.zip:inner/file`, the
    name the operator knows.
    """

    path: Path
    label: str

    def name(self, file: Path) -> str:
        if file == self.path:
            return self.label
        try:
            rel = file.relative_to(self.path).as_posix()
        except ValueError:
            return str(file)
        return f"{self.label}:{rel}" if self.label.lower().endswith(".zip") else f"{self.label}/{rel}"

    def relative(self, file: Path) -> str:
        """The file's path inside the export (stable whether it came zipped or not)."""
        if file == self.path:
            return file.name
        return file.relative_to(self.path).as_posix()


@contextmanager
def opened_export(path: Path, limits: Limits) -> Iterator[ExportRoot]:
    """Yield the export's root; a zip is checked and extracted to a scratch folder first."""
    path = Path(path)
    if not path.exists():
        raise ImportError_(f"{path}: not found")
    if path.is_file():
        check_size(path, limits.max_file_bytes)
    if path.is_file() and zipfile.is_zipfile(path):
        scratch = Path(tempfile.mkdtemp(prefix="quest-import-"))
        try:
            extract_zip(path, scratch, limits)
            yield ExportRoot(scratch, str(path))
        finally:
            shutil.rmtree(scratch, ignore_errors=True)
    else:
        if path.is_dir():
            refuse_symlinks(path)
        yield ExportRoot(path, str(path))
