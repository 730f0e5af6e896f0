"""Every relative link in the README and the docs points at a file that exists.

Sections move between the README and docs/*-history.md; a link written for one folder breaks silently in the other
(round 22 found 36 such links in docs/).
"""

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
LINK = re.compile(r"\]\(([^)\s#]+)(?:#[^)\s]*)?\)")
PAGES = [ROOT / "README.md", ROOT / "CONTRIBUTING.md", *sorted((ROOT / "docs").glob("*.md")),
         *sorted((ROOT / "docs" / "bench").glob("*.md")), *sorted((ROOT / "knowledge").rglob("README.md"))]


def broken_links(page: Path) -> list[str]:
    text = page.read_text(encoding="utf-8")
    targets = (m.group(1) for m in LINK.finditer(text))
    return [t for t in targets if "://" not in t and not t.startswith("mailto:") and not (page.parent / t).exists()]


@pytest.mark.parametrize("page", [p for p in PAGES if p.exists()], ids=lambda p: str(p.relative_to(ROOT)))
def test_every_relative_link_resolves(page: Path) -> None:
    assert broken_links(page) == []


def test_a_link_written_for_another_folder_is_caught(tmp_path: Path) -> None:
    (tmp_path / "bench").mkdir()
    (tmp_path / "bench" / "report.md").write_text("x", encoding="utf-8")
    page = tmp_path / "history.md"
    page.write_text("[ok](bench/report.md) [moved](docs/bench/report.md) [web](https://example.org/a)",
                    encoding="utf-8")
    assert broken_links(page) == ["docs/bench/report.md"]
