"""PDF statements (Hydro's `problem.pdf`, `@[PDF](file://...)`) -> plain text with pypdf."""

from __future__ import annotations

import logging
import re
from pathlib import Path

from quest.errors import ImportError_
from quest.kb.importers.safety import Limits, check_size

log = logging.getLogger(__name__)

MAX_PAGES = 100

PDF_NOTE = {
    "zh": "> 注：本题面由 PDF 文件 {file} 自动提取为文字，公式、表格和图片可能缺失或错位。",
    "en": "> Note: this statement was extracted as text from the PDF file {file}; formulas, tables and "
          "pictures may be missing or out of place.",
}


def pdf_text(path: Path, name: str, limits: Limits) -> str:
    """The text of every page (at most MAX_PAGES), or a one-line refusal naming the file."""
    from pypdf import PdfReader  # only imports that have PDFs pay for it
    from pypdf.errors import PyPdfError

    check_size(path, limits.max_file_bytes)
    try:
        reader = PdfReader(path)
        if reader.is_encrypted:
            raise ImportError_(f"{name}: the PDF is encrypted; export the statement without a password")
        pages = reader.pages
        if len(pages) > MAX_PAGES:
            log.warning("import: %s has %d pages; only the first %d are read", name, len(pages), MAX_PAGES)
        texts = [pages[i].extract_text() or "" for i in range(min(len(pages), MAX_PAGES))]
    except ImportError_:
        raise
    except (PyPdfError, ValueError, KeyError, TypeError, OSError, RecursionError) as exc:
        reason = " ".join(str(exc).split()) or type(exc).__name__
        raise ImportError_(f"{name}: not a readable PDF ({reason[:200]})") from exc
    text = "\n\n".join(t.strip() for t in texts if t.strip())
    return re.sub(r"[ \t]+\n", "\n", text)


def pdf_statement(path: Path, name: str, lang: str, limits: Limits) -> str:
    """A statement body from a PDF: the note saying where it came from, then the text."""
    text = pdf_text(path, name, limits)
    if not text.strip():
        raise ImportError_(f"{name}: the PDF has no extractable text (a scanned image?)")
    return f"{PDF_NOTE[lang].format(file=path.name)}\n\n{text}"
