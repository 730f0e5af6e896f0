"""Which programming language a student's pasted code is written in: a small, explainable, scored detector.

The form's language field defaults to "auto": a student who pastes C++ and never touches the dropdown is a C++
student. `detect` reads the code for clear signals (a table of regular expressions, each worth a few points to one
or more languages) and returns the language with the most points, or None when nothing scores enough.

How it decides:
- Each signal counts once, however often it occurs: the score says how many different kinds of evidence agree, and
  one word repeated a hundred times (a long `printf` table) cannot outvote a `using namespace std`.
- A signal shared by related languages scores for all of them (`#include` for C and C++, `function` for JavaScript
  and TypeScript, `int[] nums` for Java and C#); what tells them apart scores for one only (`std::` for C++,
  `malloc(` for C, `: number` for TypeScript, `.Length` for C#).
- A tie goes to the language earlier in `TIE_ORDER`. A tie between two related languages means that no signal of
  the narrower one was seen: C and C++ tie on code both compile (C++ first: far more OJ students write it), JavaScript
  and TypeScript tie on code without a type annotation (it is plain JavaScript), Java and C# on `int[] nums` alone.
- Fewer than `MIN_SCORE` points is no answer (None): `let x = 5` could be four languages.

The input is untrusted and may be huge: only the first `PREFIX_CHARS` characters are read, and each line at most
`LINE_CHARS` of them, so every pattern runs on a bounded text (none can backtrack over a megabyte).

`resolve_language` is the rule every entry point applies: the language the student chose wins; on "auto", the code's
language, else the one whose runtime printed the pasted error, else "other".
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable
from dataclasses import dataclass

log = logging.getLogger(__name__)

AUTO = "auto"
#: Every language the detector can name, in the order ties are resolved (see the module docstring).
TIE_ORDER = ("cpp", "c", "java", "csharp", "python", "javascript", "typescript", "go", "rust", "kotlin", "swift")
#: Display names (the same in both interface languages).
NAMES = {
    "python": "Python", "cpp": "C++", "c": "C", "java": "Java", "csharp": "C#", "javascript": "JavaScript",
    "typescript": "TypeScript", "go": "Go", "rust": "Rust", "kotlin": "Kotlin", "swift": "Swift",
}  # fmt: skip
MIN_SCORE = 3
PREFIX_CHARS = 6_000  # a LeetCode solution rarely needs half; the includes, imports and first function are at the top
LINE_CHARS = 300


@dataclass(frozen=True)
class Signal:
    name: str  # what a maintainer reads in a log line
    pattern: re.Pattern[str]
    points: dict[str, int]


def _s(name: str, pattern: str, **points: int) -> Signal:
    return Signal(name, re.compile(pattern, re.M), points)


#: A Java or C# method's return type: words and brackets (`int[]`, `List<Integer>`), spaces only after a comma
#: (`Map<Character, Integer>`). A class with the space in it, followed by `\s+name(`, let "public" and a run of
#: spaces be split every way before the match failed: seconds per line, cubic in its length.
_RETURN_TYPE = r"[\w<>\[\]]+(?:,\s*[\w<>\[\]]+)*"

# A line's indentation is `[ \t]*`, never `\s*`: with re.M, `^\s*` runs on over every following blank line from each
# line start, so a paste ending in thousands of empty lines cost seconds per pattern (quadratic; round 14 review).
SIGNALS: tuple[Signal, ...] = (
    # ---- C and C++
    _s("#include", r"^[ \t]*#\s*include\b", c=2, cpp=2),
    _s("C++ header", r"^[ \t]*#\s*include\s*<(?:bits/stdc\+\+\.h|iostream|vector|string|algorithm|map|set|queue|stack|"
       r"unordered_map|unordered_set|deque|cstdio|cstring|cstdlib|climits|cmath|numeric|utility|sstream)>", cpp=4),
    _s("C header", r"^[ \t]*#\s*include\s*<(?:stdio|stdlib|string|stdbool|limits|math)\.h>", c=3),
    _s("using namespace std", r"\busing\s+namespace\s+std\b", cpp=6),
    _s("std::", r"(?<!use )\bstd::", cpp=3),
    _s("cout/cin", r"\b(?:cout\s*<<|cin\s*>>)", cpp=5),
    _s("vector<", r"\bvector\s*<", cpp=4),
    _s("C++ reference parameter", r"\b(?:vector|string)\s*<[^>\n]*>\s*&|\bstring\s*&\s*\w", cpp=3),
    _s("public: label", r"^[ \t]*(?:public|private|protected):\s*$", cpp=4),
    _s("C++ keyword", r"\b(?:nullptr|constexpr)\b|\btemplate\s*<|\bauto\s*&", cpp=2),
    _s("long long", r"\blong\s+long\b", c=1, cpp=1),
    _s("int main(", r"^[ \t]*(?:signed|int)\s+main\s*\(", c=2, cpp=2),
    _s("printf/scanf", r"(?<![.\w])(?:printf|scanf)\s*\(", c=3),
    # qsort: C's library sort with a `const void *` comparator; a C++ student calls std::sort (round 14 review).
    _s("malloc/free", r"(?<![.\w])(?:malloc|calloc|realloc|free|qsort)\s*\(", c=3),
    _s("LeetCode C size parameter", r"\bint\s*\*\s*returnSize\b|,\s*int\s+\w+Size\s*[,)]", c=4),
    _s("struct type", r"\bstruct\s+\w+\s*\*|\btypedef\s+struct\b", c=2),
    _s("C++ container method", r"\.(?:push_back|emplace_back|pop_back)\s*\(|\.(?:begin|end|rbegin)\(\)", cpp=5),
    _s(".size()", r"\.size\(\)", cpp=2, java=1),
    _s("C++ container", r"\b(?:unordered_map|unordered_set|pair|set|map|priority_queue|stack|queue|deque)\s*<", cpp=4),
    _s("C++ algorithm", r"(?<![.\w])(?:swap|fill|reverse|sort|min_element|max_element)\s*\(", cpp=2),
    _s("auto", r"\bauto\s*[&*]?\s*[\w\[]", cpp=4),
    _s("delete", r"\bdelete\s+\w+\s*;", cpp=3),
    _s("pointer to a class", r"\b[A-Z]\w*\s*\*\s*\w+\s*[=;,)]", cpp=3, c=1),
    _s("pointer", r"\b(?:int|char|long|double|void)\s*\*+\s*\w+", c=2, cpp=2),
    _s("->", r"\w->\w", c=2, cpp=2),
    _s("NULL", r"\bNULL\b", c=2, cpp=1),
    _s("INT_MAX", r"\b(?:INT|LLONG|LONG)_(?:MAX|MIN)\b", c=1, cpp=2),
    _s("C string function", r"(?<![.\w])(?:memset|strlen|strcpy|strcmp|strcat)\s*\(", c=2, cpp=1),
    _s("C array", r"\b(?:int|char|long|double)\s+\w+\s*\[\s*\d*\s*\]", c=1, cpp=1),
    _s("bool", r"\bbool\s+\w+\s*[=;,(]", c=1, cpp=2, csharp=1),
    _s("range for", r"\bfor\s*\(\s*(?:const\s+)?(?:int|long|char|auto|string)\s*&?\s*\w+\s*:", cpp=2, java=2),
    _s("typed for", r"\bfor\s*\(\s*(?:int|long|size_t)\s+\w+\s*=", c=1, cpp=1, java=1, csharp=1),
    _s("statement ;", r";\s*(?://.*)?$", c=1, cpp=1, java=1, csharp=1, javascript=1, typescript=1),
    # ---- Java and C#
    _s("Java main", r"\bpublic\s+static\s+void\s+main\s*\(\s*String", java=8),
    _s("System.out/in", r"\bSystem\.(?:out|in|err)\b", java=6),
    _s("import java.", r"^[ \t]*import\s+java\.", java=6),
    _s("Java generic box type", r"<\s*(?:Integer|Character)\b", java=4),  # Kotlin says Int, Char
    _s("Java collection", r"\b(?:ArrayList|HashMap|HashSet|LinkedList|ArrayDeque|PriorityQueue|TreeMap)\s*<", java=2,
       kotlin=1),
    _s("Java API", r"\bInteger\.(?:MAX_VALUE|MIN_VALUE|parseInt)|\bboolean\s+\w+\s*[=;,)(]|@Override", java=4),
    _s("Java library", r"\b(?:Arrays|Collections)\.|\.(?:getOrDefault|containsKey|toCharArray|charAt|equals)\s*\(",
       java=5, kotlin=1),
    _s(".add(", r"\.add\s*\(", java=2),
    _s("String", r"\bString\s+\w+\s*[=;,)]|\bString\s*\[\]", java=4),
    _s("object variable", r"^[ \t]*(?:ListNode|TreeNode|Node)\s+\w+\s*[=;,)]", java=3, csharp=3),
    _s("new array", r"\bnew\s+(?:int|long|char|boolean|bool|double)\s*\[", java=3, csharp=3, cpp=1),
    _s("Java lambda", r"\(\s*\w+\s*,\s*\w+\s*\)\s*->", java=3),
    _s("array .length", r"\.length\b(?!\s*\()", java=2, javascript=1, typescript=1),
    _s(".length()", r"\.length\(\)", java=2, cpp=1),
    _s("Math.max", r"\bMath\.(?:max|min|abs|floor)\s*\(", java=1, javascript=1, typescript=1),
    _s("array parameter", r"\b(?:int|long|char|string|String|bool|boolean|double)\s*\[\]\s*\w", java=3, csharp=3),
    _s("Java method", rf"^[ \t]*(?:public|private|static)\s+(?:static\s+)?{_RETURN_TYPE}\s+[a-z]\w*\s*\(", java=2),
    _s("using System", r"^[ \t]*using\s+System\b", csharp=6),
    _s("Console.", r"\bConsole\.(?:Write|Read)", csharp=6),
    _s("C# method", rf"^[ \t]*(?:public|private|static)\s+(?:static\s+)?{_RETURN_TYPE}\s+[A-Z]\w*\s*\(", csharp=3),
    _s("C# API", r"\.(?:Length|Count)\b|\.Add\s*\(|\bDictionary\s*<|\b(?:int|long)\.(?:MaxValue|MinValue)|"
       r"\bMath\.(?:Max|Min|Abs)\s*\(|\bforeach\s*\(", csharp=4),
    _s("List<int>", r"\bList\s*<\s*(?:int|long|string|bool)\b(?!\s*\[)", csharp=4),
    _s("C# call", r"\.ToString\(\)|\bConvert\.To", csharp=5),
    _s("PascalCase method call", r"\.[A-Z][a-z]\w*\s*\(", csharp=2, go=1),
    # ---- Python
    _s("def", r"^[ \t]*def\s+\w+\s*\(.*\)\s*(?:->\s*[^:]+)?:", python=6),
    _s("Python block", r"^[ \t]*(?:if|elif|else|for|while|try|except|with|class)\b[^{};\n]*:\s*(?:#.*)?$", python=3),
    _s("elif/self", r"\belif\b|\(\s*self\s*[,)]", python=4),
    _s("None/True/False", r"\b(?:None|True|False)\b", python=2),
    _s("from x import", r"^[ \t]*from\s+[\w.]+\s+import\s+", python=5),
    _s("import x", r"^[ \t]*import\s+\w+(?:\s*,\s*\w+)*\s*$", python=2),
    _s("Python call", r"(?<![.\w])(?:print|range|input|len|enumerate)\s*\(", python=2, swift=1),
    _s("List[int]", r"\b(?:List|Optional|Dict)\[", python=4),
    # The loop variables are words joined by commas: a class of words, commas and spaces before `\s+in` could split a
    # run of spaces every way (cubic backtracking on "[for" and 300 spaces).
    _s("comprehension", r"\[[^\]\n]*\bfor\s+\w+(?:\s*,\s*\w+)*\s+in\b", python=4),
    _s("one-line if", r"^[ \t]*(?:if|elif|while)\s+(?!\()[^{};\n]*:(?!=)", python=3),
    _s("for x in", r"^[ \t]*for\s+\w+(?:\s*,\s*\w+)?\s+in\b", python=2, rust=1, swift=1),
    _s("input()", r"\binput\(\)\.|\bint\(input\(", python=4),
    _s("[0] * n", r"[=\[]\s*\[[^\]\n]*\]\s*\*\s*\(?\w", python=3),
    _s("Python library", r"\b(?:heapq|collections|itertools|bisect|sys)\.|(?<![.\w])(?:Counter|defaultdict|sorted)\(",
       python=4),
    _s("self.", r"\bself\.\w", python=2, swift=1),
    _s("bare max/min", r"(?<![.\w:])(?:max|min)\s*\(", python=1, cpp=1),
    _s("Python list method", r"\.(?:append|pop)\s*\(.*\)\s*$", python=1, swift=1),
    # ---- JavaScript and TypeScript
    _s("console.log", r"\bconsole\.log\s*\(", javascript=5, typescript=5),
    _s("function", r"\bfunction\b\s*\w*\s*\(", javascript=4, typescript=4),
    _s("var f = function", r"\bvar\s+\w+\s*=\s*function\b", javascript=3),
    _s("JSDoc type", r"@(?:param|return)\s*\{", javascript=3),
    _s("const/let x =", r"\b(?:const|let)\s+\w+\s*=", javascript=2, typescript=2, rust=1, swift=1),
    _s("===", r"[!=]==", javascript=3, typescript=3),
    _s("Node input", r"\brequire\s*\(|\bprocess\.stdin\b|\bmodule\.exports\b", javascript=3, typescript=2),
    _s("JS array method", r"\.(?:push|forEach|splice|slice|includes|reduce|filter|unshift)\s*\(", javascript=2,
       typescript=2),
    _s("for (let", r"\bfor\s*\(\s*(?:let|const|var)\s", javascript=3, typescript=3),
    # A class body's `constructor(`: Java, C# and C++ name the constructor after the class, Kotlin and Swift say
    # `constructor`/`init` without a line of its own like this (round 14 review: an LRU cache class read as nothing).
    _s("constructor", r"^[ \t]*constructor\s*\(", javascript=4, typescript=4),
    _s("TS type annotation", r"[\w)\]]\s*:\s*(?:number|string|boolean|any|void|unknown|never)\b", typescript=6),
    _s("TS generic", r"<\s*(?:number|boolean)\b|\binterface\s+\w+\s*\{|^[ \t]*type\s+\w+\s*=", typescript=4),
    # ---- Go
    _s("package", r"^[ \t]*package\s+\w+\s*$", go=6),
    _s("func", r"^[ \t]*func\s+\w+\s*\(", go=3, swift=3),
    _s("func receiver", r"^[ \t]*func\s*\(\s*\w+\s+\*?\w+\s*\)", go=5),
    _s(":=", r":=", go=5),
    _s("Go slice", r"\[\](?:int|string|byte|bool|rune|float64|\[\]int)\b", go=5),
    _s("fmt.", r"\bfmt\.\w+", go=6),
    _s("Go keyword", r"\brange\s+\w|\bmake\s*\(\s*(?:\[|map)", go=3),
    # ---- Rust
    _s("fn", r"^[ \t]*(?:pub\s+)?fn\s+\w+", rust=6),
    _s("let mut", r"\blet\s+mut\b", rust=5),
    _s("impl", r"^[ \t]*impl\b", rust=6),
    _s("Vec<", r"\bVec\s*<|\bvec!\s*\[", rust=4),
    _s("Rust int type", r"\b(?:i32|i64|u32|u64|usize)\b", rust=3),
    _s("Rust method", r"\.(?:chars|iter|into_iter|collect|enumerate|len|as_bytes)\(\)", rust=4),
    _s("Rust pattern", r"\bfor\s*\(\s*\w+\s*,\s*\w+\s*\)\s+in\b|\bSome\s*\(|\bOption\s*<", rust=3),
    _s("range 0..n", r"\b\d+\s*\.\.=?\s*\w", rust=2, kotlin=2),
    _s("Rust macro/use", r"\bprintln!|^[ \t]*use\s+std::|\.unwrap\(\)|&mut\s", rust=5),
    # ---- Kotlin
    _s("fun", r"^[ \t]*(?:(?:override|private|public)\s+)?fun\s+\w+", kotlin=6),
    _s("val", r"^[ \t]*val\s+\w+", kotlin=4),
    _s("Kotlin type", r"\b(?:IntArray|LongArray|CharArray|BooleanArray|MutableList|mutableListOf|listOf|intArrayOf|"
       r"arrayOf)\b", kotlin=5),
    _s("println", r"(?<![.\w])println\s*\(", kotlin=2),
    # Kotlin's ranges read as words (`0 until n`, `n - 1 downTo 0`); no other offered language has these infix words
    # (round 14 review: `for (i in 0 until n)` was read as nothing).
    _s("until/downTo", r"\w\s+(?:until|downTo)\s+\w", kotlin=5),
    _s("Kotlin/Swift type", r"[\w)]\s*:\s*(?:Int|Long|String|Boolean|Bool|Double|Character|Char)\b", kotlin=2, swift=2),
    _s("import kotlin.", r"^[ \t]*import\s+kotlin\.", kotlin=6),
    # ---- Swift
    _s("import Foundation", r"^[ \t]*import\s+(?:Foundation|UIKit|Swift)\s*$", swift=6),
    _s("Swift labels", r"\(\s*_\s+\w+\s*:", swift=5),
    _s("Swift array type", r":\s*\[\s*(?:Int|String|Character|Bool|Double|\[Int\])\s*\]", swift=4),
    # `[Int](repeating: 0, count: n)`: Swift's way to make a filled array, its argument label found nowhere else.
    _s("Swift repeating:", r"\(\s*repeating\s*:", swift=5),
    _s("-> Swift type", r"->\s*\[?(?:Int|String|Bool|Double|Character)\b", swift=3),
    _s("Swift range", r"\w\s*\.\.[<.]\s*\w", swift=3),
    _s("nil", r"\bnil\b", go=2, swift=2),
    _s("Swift keyword", r"\bguard\s+let\b|\bif\s+let\s+\w+\s*=|\binout\b|\.count\b(?!\s*\()", swift=3),
)


_BLOCK_ENDS = re.compile(r"[;{}]\s*(?://.*)?$", re.M)


@dataclass(frozen=True)
class Detection:
    """The detector's answer and why: the points per language and the signals the winner matched."""

    language: str | None
    scores: dict[str, int]
    signals: tuple[str, ...]


def bounded(code: str) -> str:
    """The part of the code the detector reads: the first PREFIX_CHARS characters, each line cut at LINE_CHARS."""
    head = code[:PREFIX_CHARS]
    if all(len(line) <= LINE_CHARS for line in head.split("\n")):
        return head
    return "\n".join(line[:LINE_CHARS] for line in head.split("\n"))


def explain(code: str | None) -> Detection:
    """Score the code against every signal; the language with the most points (ties: TIE_ORDER), if enough."""
    text = bounded(code or "")
    scores: dict[str, int] = {}
    matched: dict[str, list[str]] = {}
    if text.strip():
        for signal in SIGNALS:
            if signal.pattern.search(text) is None:
                continue
            for language, points in signal.points.items():
                scores[language] = scores.get(language, 0) + points
                matched.setdefault(language, []).append(signal.name)
        if _BLOCK_ENDS.search(text) is None:  # no line ends with ; { or }: Python's look
            scores["python"] = scores.get("python", 0) + 2
            matched.setdefault("python", []).append("no ; { } at line ends")
    if not scores:
        return Detection(None, {}, ())
    best = max(TIE_ORDER, key=lambda lang: (scores.get(lang, 0), -TIE_ORDER.index(lang)))
    if scores.get(best, 0) < MIN_SCORE:
        return Detection(None, scores, ())
    return Detection(best, scores, tuple(matched[best]))


def detect(code: str | None) -> str | None:
    """The language the code is written in (one of TIE_ORDER), or None when it does not say clearly."""
    return explain(code).language


def resolve_language(field: str | None, code: str | None, runtime: Callable[[], str | None] = lambda: None) -> str:
    """The student's language: the field when they chose one; on "auto" (or empty), the code's language, else the
    language whose runtime printed the error (`runtime`, asked only then: `quest.judge.JudgeReport.runtime`), else
    "other"."""
    if field and field != AUTO:
        return field
    found = explain(code)
    if found.language is not None:
        log.debug("code language %s (%s; scores %s)", found.language, ", ".join(found.signals), found.scores)
        return found.language
    said = runtime()
    return said if said in NAMES else "other"
