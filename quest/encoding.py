"""Student text as bytes (a code file, stdin, an upload) -> str, in any common encoding.

Students send code saved by whatever editor they have: UTF-8, UTF-8 with a BOM (Notepad),
GBK / GB18030 (Chinese Windows), Big5 (Taiwan, Hong Kong) or UTF-16 (PowerShell's `>`).
The order of the checks matters:

1. a byte-order mark says the encoding outright;
2. strict UTF-8 — most files, and a random non-UTF-8 file almost never passes it;
3. UTF-16/32 without a BOM (NUL bytes at every other position), through charset-normalizer;
4. NUL bytes left over mean binary: refused;
5. GB18030 and Big5, both strict. Short Chinese text is ambiguous between them (charset
   detectors, charset-normalizer included, guess wrong on a one-line comment), so each
   decoding is scored by how many of its characters are rare; the commoner reading wins,
   GB18030 on a tie (the common case here). A reading with many rare characters is not
   trusted: the bytes are probably something else;
6. Windows-1252 when all that is not ASCII is accented Latin letters, else charset-normalizer's
   best guess (Shift-JIS, EUC-KR, Cyrillic, ...);
7. nothing fits, or the text is mostly control characters: refused as binary.

Errors are `InputError`s with `reason="binary"` / `"too_long"` / `"unreadable"`, worded for
the student. UI uploads and the CLI use `decode_text` / `read_text_file`.
"""

from __future__ import annotations

import codecs
import logging
import unicodedata
from dataclasses import dataclass
from pathlib import Path

from quest.errors import InputError

log = logging.getLogger(__name__)

#: Bytes read from a file at most; the request's own character limits apply afterwards.
MAX_INPUT_BYTES = 2_000_000
# Only this much of a text is scored: enough to tell GB18030 from Big5.
_SCORE_CHARS = 20_000
# A Chinese reading with more than this share of rare characters is not trusted.
_MAX_RARE_SHARE = 0.15
_PUNCTUATION = "\u2014\u2018\u2019\u201c\u201d\u2026\u00b7"  # — ‘ ’ “ ” … ·

_BOMS = (  # longest first: the UTF-32-LE BOM starts with the UTF-16-LE one
    (codecs.BOM_UTF32_LE, "utf-32"),
    (codecs.BOM_UTF32_BE, "utf-32"),
    (codecs.BOM_UTF8, "utf-8-sig"),
    (codecs.BOM_UTF16_LE, "utf-16"),
    (codecs.BOM_UTF16_BE, "utf-16"),
)


@dataclass(frozen=True)
class DecodedText:
    """The text and the encoding it was read in (a Python codec name, e.g. 'gb18030')."""

    text: str
    encoding: str


def _binary_error(what: str) -> InputError:
    return InputError(
        f"The {what} looks like binary data (or an encoding Quest cannot read), not text. "
        f"Please send the source file itself, saved as text (UTF-8 works everywhere).",
        field=what, reason="binary")


def _from_bom(data: bytes) -> str | None:
    for bom, codec in _BOMS:
        if data.startswith(bom):
            return codec
    return None


def _is_common_cjk(ch: str) -> bool:
    """In GB2312 (6,763 common simplified characters) or Big5's frequent tier (5,401 traditional)."""
    try:
        if len(ch.encode("gb2312")) == 2:
            return True
    except UnicodeEncodeError:
        pass
    try:
        code = ch.encode("big5")
    except UnicodeEncodeError:
        return False
    return len(code) == 2 and 0xA440 <= int.from_bytes(code, "big") <= 0xC67E


def _is_rare(ch: str) -> bool:
    """A character a Chinese student's code or message would hardly contain."""
    if ch.isascii():
        return False
    if "\u4e00" <= ch <= "\u9fff":
        return not _is_common_cjk(ch)
    # CJK and full-width punctuation are common; private use, bopomofo, kana, box drawing,
    # Cyrillic, ... in a Chinese reading are not.
    return not ("\u3000" <= ch <= "\u303f" or "\uff00" <= ch <= "\uffef" or ch in _PUNCTUATION)


def _rare_share(text: str) -> float:
    sample = text[:_SCORE_CHARS]
    wide = [ch for ch in sample if not ch.isascii()]
    return sum(map(_is_rare, wide)) / len(wide) if wide else 0.0


def _chinese_reading(data: bytes) -> DecodedText | None:
    """The more plausible of the strict GB18030 and Big5 readings, if either is plausible."""
    readings = []
    for order, codec in enumerate(("gb18030", "big5")):
        try:
            text = data.decode(codec)
        except UnicodeDecodeError:
            continue
        readings.append((_rare_share(text), order, DecodedText(text, codec)))
    if not readings:
        return None
    share, _, best = min(readings)
    return best if share <= _MAX_RARE_SHARE else None


def _detected(data: bytes, *, wide_only: bool = False) -> DecodedText | None:
    """charset-normalizer's best reading; with `wide_only`, only a UTF-16/32 one."""
    from charset_normalizer import from_bytes  # imported late: only odd files need it

    match = from_bytes(data).best()
    if match is None or (wide_only and not match.encoding.startswith(("utf_16", "utf_32"))):
        return None
    return DecodedText(str(match), match.encoding)


def _looks_like_binary(text: str) -> bool:
    """NUL or a fair share of control / unassigned / private-use characters in decoded text."""
    if "\x00" in text:
        return True
    sample = text[:4000]
    bad = sum(1 for ch in sample
              if (unicodedata.category(ch) in ("Cc", "Cn", "Co", "Cs") and ch not in "\n\r\t\f")
              or ch == "\ufffd")
    return bad > max(4, len(sample) * 0.02)


def _decode(data: bytes) -> DecodedText | None:
    codec = _from_bom(data)
    if codec:
        try:
            return DecodedText(data.decode(codec), codec)
        except UnicodeDecodeError:
            return None
    try:
        return DecodedText(data.decode("utf-8"), "utf-8")
    except UnicodeDecodeError:
        pass
    if b"\x00" in data:
        return _detected(data, wide_only=True)
    return _chinese_reading(data) or _western_reading(data) or _detected(data)


def _western_reading(data: bytes) -> DecodedText | None:
    """Windows-1252 when every non-ASCII character is an accented Latin letter ('café')."""
    text = data.decode("cp1252", errors="replace")
    wide = [ch for ch in text if not ch.isascii()]
    if wide and all("\u00c0" <= ch <= "\u00ff" and ch.isalpha() for ch in wide):
        return DecodedText(text, "cp1252")
    return None


def decode_text(data: bytes, *, what: str = "code", max_bytes: int = MAX_INPUT_BYTES) -> DecodedText:
    """Student bytes -> text in whatever common encoding they are; InputError for binary or oversize.

    >>> decode_text("# 超时了".encode("gbk")).text
    '# 超时了'
    """
    if len(data) > max_bytes:
        # "more than": the readers stop at max_bytes + 1, so len(data) is not the file's size.
        raise InputError(f"The {what} is more than {max_bytes:,} bytes, the limit. Please send a smaller "
                         f"file (nothing was cut for you).", field=what, reason="too_long", limit=max_bytes,
                         length=len(data))
    if not data:
        return DecodedText("", "utf-8")
    decoded = _decode(data)
    if decoded is None or _looks_like_binary(decoded.text):
        raise _binary_error(what)
    text = decoded.text.lstrip("\ufeff").replace("\r\n", "\n")
    if decoded.encoding not in ("utf-8", "utf-8-sig"):
        log.debug("%s decoded as %s", what, decoded.encoding)
    return DecodedText(text, decoded.encoding)


def read_text_file(path: Path | str, *, what: str = "code", max_bytes: int = MAX_INPUT_BYTES) -> DecodedText:
    """A student's file, decoded by `decode_text`; InputError when it cannot be read."""
    path = Path(path)
    try:
        with path.open("rb") as handle:
            data = handle.read(max_bytes + 1)
    except OSError as exc:
        raise InputError(f"Cannot read the {what} file {path}: {exc.strerror or exc}.", field=what,
                         reason="unreadable") from exc
    return decode_text(data, what=what, max_bytes=max_bytes)
