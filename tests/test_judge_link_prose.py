"""Round 13 review: the linker's phrases in ordinary prose are no link error.

GNU ld quotes the symbol after "undefined reference to" / "multiple definition of" (`…' or ‘…’); a student's
sentence using the same words ("uses multiple definition of dp states") reports no compile error. Texts are ours.
"""

import pytest

from quest.judge import JudgeReport, parse


@pytest.mark.parametrize("text,expected", [
    ("My solution uses multiple definition of dp states, getting wrong output on sample", JudgeReport()),
    ("I think there is an undefined reference to a global somewhere, WA on test 2",
     JudgeReport(verdict="WA", test_number=2)),
])
def test_the_linkers_words_in_prose_are_no_compile_error(text, expected):
    assert parse(text) == expected


@pytest.mark.parametrize("text", [
    "sol.cpp:(.text+0x2a): undefined reference to `solve(int)'",
    "b.o: multiple definition of `main'; a.o: first defined here",
    "b.o: multiple definition of ‘main’; a.o: first defined here",
    'undefined reference to "WinMain"',
])
def test_the_linkers_quoted_symbol_is_a_compile_error(text):
    assert parse(text) == JudgeReport(verdict="CE", messages=(text,))
