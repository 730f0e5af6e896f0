"""Check an answer's citations against the sources it was given.

A citation is a bracketed number, or a run of them: "[1]", "[1][3]", "[1, 2]", "【2】".
Brackets that are code are not citations: anything inside fenced blocks or inline
backticks (as quest.markdown_blocks finds them), and a bracket right after an identifier or a
closing bracket (`nums[1]`, `dp[i][2]`). Markdown links (`[1](http://...)`) are left alone too.
"""

from __future__ import annotations

import re
from collections.abc import Collection
from dataclasses import dataclass

from quest.markdown_blocks import split_code

_GROUP = r"(?:\[\s*\d+(?:\s*[,，、]\s*\d+)*\s*\]|【\s*\d+(?:\s*[,，、]\s*\d+)*\s*】)"
_RUN = re.compile(rf"(?<![\w\])】]){_GROUP}(?:\s?{_GROUP})*(?!\()")
_NUM = re.compile(r"\d+")


@dataclass(frozen=True)
class CitationCheck:
    text: str
    cited: tuple[int, ...]  # valid source numbers the answer cites, in order of first use
    removed: int  # citations to numbers that do not exist, removed from the text


def check_citations(answer: str, valid: Collection[int]) -> CitationCheck:
    valid_set = set(valid)
    cited: list[int] = []
    removed = 0

    def fix_run(m: re.Match[str]) -> str:
        nonlocal removed
        keep: list[int] = []
        for n in (int(x) for x in _NUM.findall(m.group(0))):
            if n in valid_set:
                if n not in keep:
                    keep.append(n)
                if n not in cited:
                    cited.append(n)
            else:
                removed += 1
        return "".join(f"[{n}]" for n in keep)

    def fix_prose(prose: str) -> str:
        before = removed
        fixed = _RUN.sub(fix_run, prose)
        if removed != before:  # tidy the gap a removed citation left: "a [9]." -> "a."
            fixed = re.sub(r"(?:(?<=\S)|^)[ \t]+(?=[。，．.,;；:：!?！？])", "", fixed)
            fixed = re.sub(r"(?<=\S)[ \t]{2,}(?=\S)", " ", fixed)
        return fixed

    text = "".join(piece if is_code else fix_prose(piece) for is_code, piece in split_code(answer))
    return CitationCheck(text=text, cited=tuple(cited), removed=removed)
