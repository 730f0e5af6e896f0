"""Which programming language a question names in its own words ("in Java", "Python 跑 10^7 次", "用C++写的").

A student who pastes no code and no error still often says their language: "Java Scanner too slow", "java的Scanner",
"C++ 用 cin 读入超时". The code detector (`quest.code_language`) reads only code, so such a question left the student's
language unknown and the general pages written for one language could not be sorted by it (round 17).

The reading is deliberately narrow:
- only explicit names and their usual short forms, matched as whole words: "Java" but not "JavaScript", "JS" but not
  "JSON", "C++" and "cpp" but not "C" in "Problem C" or "Div. 2 C";
- names that are also ordinary words need a context that makes them a language: "Go" as "golang", "in Go", "Go's",
  "(Go)" or next to a Chinese character ("用go写的", "Go 语言", "Go 要怎么宣告"), never "let it go"; "C" only as
  "C 语言", "C language", "用 C", "written in C", "(C)" ("WA in C" is a contest's problem letter); "Swift" only
  capitalized;
- a question that names two languages of different families ("Java 能过，同样的 C++ 代码…", "Python 可以…，Go 要怎么…")
  says nothing certain about which one the student writes: no answer. C and C++ are one family ("C/C++"): C++.

The result is one of `quest.code_language.TIE_ORDER` or None. Only the first `PREFIX_CHARS` characters are read.
"""

from __future__ import annotations

import re

PREFIX_CHARS = 2_000

# A name is a whole word when no ASCII letter, digit or the characters that extend a language's name (+, #, _) touch
# it; a Chinese character may ("用python写", "java的Scanner"): Python's \b counts CJK characters as word characters.
_L = r"(?<![A-Za-z0-9_+#.])"
_R = r"(?![A-Za-z0-9_+#])"

_NAMES: tuple[tuple[str, re.Pattern[str]], ...] = (
    # C++ before C: "C++" never counts as C. g++/clang++ are C++ compilers; "C++17", "cpp20" carry a standard.
    ("cpp", re.compile(_L + r"(?:c\+\+(?:\d\d)?|cpp(?:\d\d)?|g\+\+|clang\+\+|c\s*plus\s*plus)(?![A-Za-z0-9_#])",
                       re.I)),
    # Lowercase "c" is too often something else (a variable, "problem c"); the capital with a context says C.
    # "C" alone is a contest's problem letter ("WA in C", "Div. 2 C"): only "C 语言", "C language", "用 C",
    # "written in C", "(C)" say the language.
    ("c", re.compile(r"(?<![A-Za-z0-9_+#.])C(?:\s*语言|\s+language\b)|(?:\bwritten\s+in\s+|用\s*|纯\s*)C" + _R
                     + r"|[(\[（【]\s*C\s*[)\]）】]")),
    ("csharp", re.compile(_L + r"(?:c#|c\s+sharp|csharp)" + _R, re.I)),
    ("java", re.compile(_L + r"java(?:\s*\d{1,2})?" + _R, re.I)),
    ("javascript", re.compile(_L + r"(?:javascript|js|node\.?js|ecmascript)" + _R, re.I)),
    ("typescript", re.compile(_L + r"typescript" + _R, re.I)),
    ("python", re.compile(_L + r"(?:python\s*[23](?:\.\d+)?|python|py[23]|pypy3?|cpython)" + _R, re.I)),
    # "go" is an English verb: only "golang", "Go" in an English context ("in Go", "Go's"), or a "go" in Chinese
    # ("用go写的", "Go 要怎么宣告": next to a Chinese character no English verb is meant).
    ("go", re.compile(_L + r"(?i:golang)" + _R + r"|(?<![A-Za-z0-9_+#.])Go(?:'s\b|\s+language\b)"
                      r"|(?<![A-Za-z0-9_+#.])(?i:go)(?=[ \t]?[\u4e00-\u9fff])"
                      r"|(?:\bin|\bwritten\s+in)\s+Go" + _R + r"|用\s*(?i:go)" + _R + r"|[(\[（【]\s*Go\s*[)\]）】]")),
    ("rust", re.compile(_L + r"rust(?:lang)?" + _R, re.I)),
    ("kotlin", re.compile(_L + r"kotlin" + _R, re.I)),
    ("swift", re.compile(r"(?<![A-Za-z0-9_+#.])Swift" + _R)),
)

# Languages of one family: naming both is naming one ("C/C++": the student writes C++; JavaScript and TypeScript).
_FAMILY = {"c": "cpp", "typescript": "javascript"}


def named_languages(text: str | None) -> list[str]:
    """Every language the text names, in the order of `_NAMES` (each once)."""
    head = (text or "")[:PREFIX_CHARS]
    return [language for language, pattern in _NAMES if pattern.search(head)]


def prose_language(text: str | None) -> str | None:
    """The one programming language the text names in words, or None (none named, or several families)."""
    named = named_languages(text)
    families = {_FAMILY.get(x, x) for x in named}
    if len(families) != 1:
        return None
    if len(named) == 1:
        return named[0]
    return families.pop()  # "C/C++" is C++, "JS/TS" JavaScript: the wider of the two
