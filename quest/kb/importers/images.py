"""Statement images saved beside their problem: FPS `<img><base64>`, inline `data:` URIs, Hydro files.

Each problem gets its own `images/` folder next to its documents; a statement links to
`images/<name>`. An image over the size limit, or data that is not a known image type, is
left out (with a log line) rather than failing the whole import.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import logging
import re

from quest.kb.importers.safety import quoted

log = logging.getLogger(__name__)

IMAGE_DIR = "images"
_SIGNATURES = (
    (b"\x89PNG\r\n\x1a\n", ".png"),
    (b"\xff\xd8\xff", ".jpg"),
    (b"GIF87a", ".gif"),
    (b"GIF89a", ".gif"),
    (b"RIFF", ".webp"),
    (b"BM", ".bmp"),
)
_DATA_URI = re.compile(r"^data:image/[\w.+-]+;base64,(.*)$", re.S | re.I)


def image_suffix(data: bytes, name: str = "") -> str | None:
    """The file suffix for image bytes, from their signature (an SVG by its text); None if not an image."""
    for signature, suffix in _SIGNATURES:
        if data.startswith(signature):
            return suffix
    head = data[:512].lstrip().lower()
    if head.startswith(b"<svg") or (head.startswith(b"<?xml") and b"<svg" in head) or name.lower().endswith(".svg"):
        return ".svg"
    return None


class ImageStore:
    """Collects one problem's images; `add` returns the Markdown link target, or None when left out."""

    def __init__(self, max_bytes: int, where: str) -> None:
        self.max_bytes = max_bytes
        self.where = where
        self.files: dict[str, bytes] = {}

    def add(self, data: bytes, name_hint: str = "") -> str | None:
        if len(data) > self.max_bytes:
            log.warning("import: %s: an image of %d bytes is over the limit; left out", self.where, len(data))
            return None
        suffix = image_suffix(data, name_hint)
        if suffix is None:
            log.warning("import: %s: %s is not a known image type; left out", self.where,
                        quoted(name_hint, 120) if name_hint else "an image")
            return None
        stem = re.sub(r"[^0-9A-Za-z_-]+", "-", name_hint.rsplit("/", 1)[-1].rsplit(".", 1)[0]).strip("-")[:40]
        # The content hash keeps names unique and makes re-imports byte-identical.
        name = f"{stem + '-' if stem else ''}{hashlib.sha1(data).hexdigest()[:10]}{suffix}"
        self.files[name] = data
        return f"{IMAGE_DIR}/{name}"

    def add_base64(self, text: str, name_hint: str = "") -> str | None:
        try:
            data = base64.b64decode("".join(text.split()), validate=True)
        except (binascii.Error, ValueError):
            log.warning("import: %s: image data %s is not valid base64; left out", self.where, quoted(name_hint, 120))
            return None
        return self.add(data, name_hint)

    def add_data_uri(self, uri: str) -> str | None:
        m = _DATA_URI.match(uri.strip())
        if not m:
            return None
        if len(m.group(1)) > self.max_bytes * 4 // 3 + 4:
            log.warning("import: %s: an inline image is over the limit; left out", self.where)
            return None
        return self.add_base64(m.group(1), "inline")
