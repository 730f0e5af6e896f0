"""Error patterns' `signatures` (quest.kb.signatures): the front-matter field, its checks, and the base's own."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from quest.errors import KnowledgeBaseError
from quest.kb.markdown import load_knowledge_base, parse_document
from quest.kb.signatures import Signature, check_regex, for_attempt, matches, parse_signatures
from quest.kb.validate import check_knowledge_base

BASE = Path(__file__).resolve().parents[2] / "knowledge"
PATTERN = """---
id: p1-error-x
problem_id: 1
kind: error_pattern
lang: en
title: One - a bug
verdicts: [WA, TLE]
languages: [python]
{signatures}---

## The typical attempt

Text.
"""


def test_literals_lose_their_whitespace_expressions_keep_theirs_and_verdicts_key_them():
    doc = parse_document(PATTERN.format(signatures=(
        "signatures:\n  python: ['pop( 0 )', 're:for .+:\\n[ \\t]+for ']\n  WA:\n    cpp: [upper_bound]\n")))
    assert doc.signatures == (
        Signature("python", "pop(0)"),
        Signature("python", "for .+:\\n[ \\t]+for ", regex=True),
        Signature("cpp", "upper_bound", "WA"),
    )
    assert parse_document(PATTERN.format(signatures="")).signatures == ()
    # The signatures reach the content hash: an index rebuilds the document when they change.
    assert doc.content_hash != parse_document(PATTERN.format(signatures="")).content_hash


@pytest.mark.parametrize(("value", "message"), [
    ({"cobol": ["x"]}, "unknown programming language or verdict 'cobol'"),
    ({"python": []}, "signatures.python must be a non-empty list"),
    ({"python": [3]}, "a snippet must be non-empty text"),
    ({"python": ["x" * 121]}, "at most 120 characters"),
    ({"python": ["re:(a"]}, "is no regular expression"),
    ({"python": ["re:(a+)+$"]}, "repeats a repetition"),
    ({"python": ["re:(?:x\\s*)*y"]}, "repeats a repetition"),
    ({"python": ["re:(a)\\1"]}, "refers back to a group"),
    # an atomic group still backtracks inside itself, and alternatives that can match the same text under a
    # repetition try every way of splitting it: each took seconds on 24 characters ("a" * 24)
    ({"python": ["re:(?>(a+)+b)"]}, "repeats a repetition"),
    ({"python": ["re:(a|a)*b"]}, "repeats a repetition or an alternation"),
    ({"python": ["re:(?:\\w|\\w\\w)+;"]}, "repeats a repetition or an alternation"),
    # tried at each start, the two runs split each line every way: the base's own double-loop signature took 1.2 s
    # on 20 000 characters of crafted code ("xfor(" * 60 a line)
    ({"cpp": ["re:for[ \\t]*\\(.*\\n?.*\\bfor[ \\t]*\\("]}, "two runs of any character one after another"),
    ({"python": ["re:for .*.*:"]}, "two runs of any character one after another"),
    # Round 21: two runs that can match the same characters with only optional items between: every start splits
    # the line between them every way (`\w*\w*;` took 2.5 s on 66 lines of 300 letters; `[ \t]*\(?[ \t]*x` 1.3 s
    # on lines of spaces). After a literal start they cannot match they are allowed (below).
    ({"python": ["re:\\w*\\w*;"]}, "has two repetitions one after another that can match the same characters"),
    ({"python": ["re:\\w+\\s*\\w*;"]}, "has two repetitions one after another"),
    ({"cpp": ["re:[ \\t]*\\(?[ \\t]*x"]}, "has two repetitions one after another"),
    ({"cpp": ["re:x\\w*;[ \\t]*[ \\t]*!"]}, "has two repetitions one after another"),  # starts in \w* reach one ";"
    ({"python": ["re:(?i)[a-z]*[A-Z]*\\("]}, "has two repetitions one after another"),
    ({"python": ["re:(\\w*)(\\w*)x"]}, "has two repetitions one after another"),
    ({"WA": ["x"]}, "signatures.WA must map a programming language"),
    ({"python": ["x"] * 65}, "at most 64 signatures"),
    (["python"], "'signatures' must map"),
])
def test_malformed_signatures_are_refused_with_the_reason(value, message):
    with pytest.raises(ValueError, match=re.escape(message)):
        parse_signatures(value)


def test_flat_expressions_pass_the_check():
    for source in (r"while[ \t]+fast[ \t]*:", r"return[ \t]+head[ \t]*(?:#|$)", r"\.pop\(\)[ \t]*\n(?![ \t]*x)",
                   # alternatives of one character each are one character class; a common start is read once
                   r"(?:\w|_)+x", r"(?:ab|ac)*;", r"(?>\w+)\(",
                   r"for[ \t]*\(.*\bfor[ \t]*\(|for[ \t]*\(.*\n.*\bfor[ \t]*\(", r"for .+:\n.*\n[ \t]+for ",
                   # runs that cannot match the same characters, a possessive run, and overlapping runs after a
                   # literal start they cannot match (the base's own: one start reaches them per place)
                   r"[a-z]*[A-Z]*\(", r"\w*+\w*;", r";\w*\w*!", r"while[ \t]*\(?[ \t]*(?:lo|left)\b",
                   r"\b(?:lo|left|l|low)[ \t]*=[ \t]*mid[ \t]*;?[ \t]*(?:#|//|$)"):
        check_regex(source)


def test_the_loader_and_kb_check_report_a_bad_signature(tmp_path: Path):
    text = PATTERN.format(signatures="signatures:\n  python: ['re:(a+)+']\n")
    with pytest.raises(KnowledgeBaseError, match="repeats a repetition"):
        parse_document(text, "p.md")
    (tmp_path / "problems.yaml").write_text("- id: 1\n  title_en: One\n", encoding="utf-8")
    (tmp_path / "p.md").write_text(text, encoding="utf-8")
    findings = [str(f) for f in check_knowledge_base(tmp_path).findings]
    assert len(findings) == 1 and "p.md:" in findings[0] and "repeats a repetition" in findings[0]


def test_which_signatures_speak_for_an_attempt():
    sigs = parse_signatures({"WA": {"python": ["bisect_right"], "cpp": ["upper_bound"]},
                             "TLE": {"python": ["re:for .+:\\n[ \\t]+for "]}})
    assert [s.text for s in for_attempt(sigs, "python", "WA", ("WA", "TLE"))] == ["bisect_right"]
    assert [s.text for s in for_attempt(sigs, "c", "WA", ("WA", "TLE"))] == ["upper_bound"]  # C and C++: one family
    assert for_attempt(sigs, "cpp", "TLE", ("WA", "TLE")) == ()  # nothing written for C++'s TLE attempt
    # No verdict known: all of the language's, only when every verdict of the pattern has some.
    assert len(for_attempt(sigs, "python", None, ("WA", "TLE"))) == 2
    assert for_attempt(sigs, "cpp", None, ("WA", "TLE")) == ()
    assert for_attempt(sigs, None, "WA", ("WA", "TLE")) == ()


def test_matching_code():
    sigs = parse_signatures({"python": ["pop(0)", "re:^[ \\t]*best[ \\t]*=[ \\t]*0[ \\t]*$"]})
    assert matches(sigs, "window.pop( 0 )")
    assert matches(sigs, "def f():\n    best = 0\n    return best")
    assert not matches(sigs, "best = float('-inf')\nq.popleft()")
    # A run of spaces is read only to LINE_CHARS a line: no expression spends long on it.
    assert not matches(sigs, " " * 100_000)


def test_every_error_pattern_of_the_base_has_signatures_and_twins_agree():
    kb = load_knowledge_base(BASE, strict=True)
    patterns = [d for d in kb.documents if d.kind == "error_pattern" and d.problem_id]
    assert len(patterns) == 47
    assert [d.id for d in patterns if not d.signatures] == []
    by_twin: dict[str, set[tuple[Signature, ...]]] = {}
    for d in patterns:
        by_twin.setdefault(d.id.rsplit("-", 1)[0], set()).add(d.signatures)
    assert {k: v for k, v in by_twin.items() if len(v) > 1} == {}
    assert len([k for k in by_twin if sum(1 for d in patterns if d.id.rsplit("-", 1)[0] == k) == 2]) == 2
