"""Round 21: statements of hostile size that made the importers' searches quadratic.

- A Hydro statement of 200 KB of "![" or "<img " was searched to its end from every opener (17 s and three minutes):
  every repetition in the statement patterns is now bounded.
- The link rewriter asked, for every link, whether it starts in code by walking every code span before it:
  10 000 links among 10 000 code spans cost 100 million steps (seconds).
"""
from __future__ import annotations

import hashlib
from pathlib import Path

from quest.kb.importers import hydro, links, read_export

try:
    from re import _parser as sre_parse  # type: ignore[attr-defined]
except ImportError:  # pragma: no cover - older Pythons
    import sre_parse  # type: ignore[no-redef]

_PNG = b"\x89PNG\r\n\x1a\n" + bytes(40)


def _unbounded(items) -> list[str]:
    """The repetitions in a parsed pattern with no upper bound, as sre names them; but for runs of whitespace (`\\s*`
    after a fixed word: it is tried once per word, over one run)."""
    found = []
    for op, arg in items:
        name = str(op)
        if name in ("MAX_REPEAT", "MIN_REPEAT", "POSSESSIVE_REPEAT"):
            if arg[1] == sre_parse.MAXREPEAT and str(arg[2]) != str(sre_parse.parse(r"\s")):
                found.append(name)
            found += _unbounded(arg[2])
        elif name == "SUBPATTERN":
            found += _unbounded(arg[-1])
        elif name == "BRANCH":
            for branch in arg[1]:
                found += _unbounded(branch)
    return found


def test_every_repetition_in_the_hydro_statement_patterns_is_bounded() -> None:
    patterns = {"_PDF_LINK": hydro._PDF_LINK, "_FILE_IMAGE": hydro._FILE_IMAGE, "_FILE_IMG_TAG": hydro._FILE_IMG_TAG,
                "_FILE_LINK": hydro._FILE_LINK}
    # before: _PDF_LINK ['MAX_REPEAT'], _FILE_IMAGE two, _FILE_IMG_TAG ['MIN_REPEAT', 'MAX_REPEAT']
    found = {name: _unbounded(sre_parse.parse(p.pattern)) for name, p in patterns.items()}
    assert found == {name: [] for name in patterns}


def test_a_hydro_statement_of_200_kb_of_openers_keeps_its_pictures(tmp_path: Path) -> None:
    export = tmp_path / "h"
    (export / "1" / "additional_file").mkdir(parents=True)
    (export / "1" / "problem.yaml").write_text("pid: P1\ntitle: Pictures\n", encoding="utf-8")
    noise = "![" * 50_000 + "\n\n" + "<img " * 20_000 + "\n\n" + "@[pdf](file://n" * 5_000
    (export / "1" / "problem_en.md").write_text(
        noise + "\n\nSee ![grid](file://grid.png) and <img alt='g' src='file://grid.png'>.\n", encoding="utf-8")
    (export / "1" / "additional_file" / "grid.png").write_bytes(_PNG)
    (doc,) = read_export("hydro", export).documents
    saved = f"images/grid-{hashlib.sha1(_PNG).hexdigest()[:10]}.png"
    assert doc.text == f"{noise}\n\nSee ![grid]({saved}) and <img alt='g' src='{saved}'>."


def test_an_img_tags_attributes_end_at_the_next_opener() -> None:
    """Review 21: bounded at 2,000 characters, each "<img " of a MB of them still tried "src=" at 2,000 places (21 s);
    read to the next "<" only, the openers' scans do not overlap (linear)."""
    found = hydro._FILE_IMG_TAG.search("<img <img alt='a' src='file://a.png'>")
    assert (found.start(), found.group(1)) == (5, "<img alt='a' src='")  # before: from 0, across the first opener
    assert hydro._FILE_IMG_TAG.search("<img title='<' src='file://a.png'>") is None  # the price: a "<" in a value


class _CountingRanges(list):
    """The code ranges, counting how many of them the rewriter looks at."""

    looked = 0

    def __iter__(self):
        for item in super().__iter__():
            _CountingRanges.looked += 1
            yield item

    def __getitem__(self, index):
        _CountingRanges.looked += 1
        return super().__getitem__(index)


def test_links_among_many_code_spans_look_at_each_span_a_bounded_number_of_times(monkeypatch) -> None:
    real = links.code_ranges
    monkeypatch.setattr(links, "code_ranges", lambda text: _CountingRanges(real(text)))
    _CountingRanges.looked = 0
    text = "`x` [a](/p/2) " * 2_000
    fixed = links.fix_links(text, "https://oj.example.edu/p/1", "en")
    assert fixed == "`x` [a](https://oj.example.edu/p/2) " * 2_000
    # 2 000 spans, four passes (links, definitions, HTML links; images have their own); before: 2 001 000 a pass
    assert _CountingRanges.looked <= 4 * 2 * 2_000
