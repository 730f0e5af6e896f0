"""Round 20: what real exports hold that the importers lost or echoed unbounded.

- HUSTOJ's bbcode wraps an [md] block in <div class="md" > ... </div> (include/bbcode.php); the Markdown inside may hold
  divs of its own, so the block ends at the </div> that matches, not at the first.
- Messages that echo text from an export (a title, a file name, a limit) quote at most a short, escaped piece of it.

The exports are written for these tests; their shapes follow the exporters' code (HUSTOJ problem_export_xml.php,
Hydro's model/problem.ts and ui-default zipDownloader, QDUOJ's ExportProblemSerializer, Hydro's import-qduoj schema).
"""
from __future__ import annotations

from quest.kb.importers.fps import hustoj_to_markdown


def test_a_markdown_div_holding_divs_of_its_own_ends_at_its_own_close() -> None:
    field = ('<div class="md" >\n## Task\n<div align="center">centred note</div>\n\n- line one\n- line two\n</div>'
             "<p>After.</p>")
    # before: the block ended at "centred note</div>"; the list after it was read as HTML: "- line one - line two"
    assert hustoj_to_markdown(field) == (
        '#### Task\n<div align="center">centred note</div>\n\n- line one\n- line two\n\nAfter.')


def test_a_markdown_div_never_closed_is_read_as_html() -> None:
    assert hustoj_to_markdown('<div class="md">a<div>b</div>') == "a\n\nb"
