"""An error pattern's bug written as code constructs ("signatures"), per programming language and, optionally, per
verdict: what a rule can look for in a student's program.

Inside a named problem, an error pattern about one bug often led where the student had another: the words every
document of a problem shares cannot tell them apart (docs/retrieval.md, round 20). The pattern's own bug can: 300's
wrong answer is `bisect_right` / `upper_bound`, 239's time limit is `pop(0)`. A pattern's front matter may list them:

    signatures:
      python: [bisect_right]          # for every verdict of the pattern
      cpp: [upper_bound]
      TLE:                            # or per verdict, when the pattern has several attempts
        python: ["re:for .+:\\n\\s+for "]

A signature is a literal snippet, compared with the code with all whitespace taken out of both (`pop(0)` matches
`pop( 0 )`), or, written `re:…`, a regular expression searched in the code as written. Literals are preferred: they
cannot be slow. A regular expression must compile, stay within MAX_CHARS, and hold no repetition or alternation
inside a repetition and no back-reference (the shapes that backtrack exponentially), and it runs on at most
CODE_CHARS of the code, each line cut at LINE_CHARS.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

try:  # Python 3.11+: the parser moved; only its tree is read, to refuse nested repetitions
    from re import _parser as sre_parse  # type: ignore[attr-defined]
except ImportError:  # pragma: no cover - older Pythons
    import sre_parse  # type: ignore[no-redef]

from quest.code_language import TIE_ORDER
from quest.judge import VERDICTS

REGEX_PREFIX = "re:"
MAX_CHARS = 120  # one signature
MAX_SIGNATURES = 64  # one document
CODE_CHARS = 20_000  # how much of the student's code a signature reads
LINE_CHARS = 300  # ...and of each of its lines, for expressions: a run of spaces cannot make one slow
LANGUAGES = frozenset(TIE_ORDER)
_WHITESPACE = re.compile(r"\s+")
_REPEATS = ("MAX_REPEAT", "MIN_REPEAT", "POSSESSIVE_REPEAT")


@dataclass(frozen=True)
class Signature:
    language: str
    text: str  # a literal without whitespace, or a regular expression's source (`regex`)
    verdict: str | None = None  # None: any verdict the pattern is written for
    regex: bool = False


def parse_signatures(value: Any) -> tuple[Signature, ...]:
    """The front matter's `signatures` as Signature values; ValueError (worded for the operator) when malformed."""
    if value is None or (isinstance(value, tuple) and all(isinstance(s, Signature) for s in value)):
        return value or ()
    if not isinstance(value, Mapping):
        raise ValueError("'signatures' must map a programming language (or a verdict) to a list of snippets")
    out: list[Signature] = []
    for key, inner in value.items():
        key = str(key)
        if key.upper() in VERDICTS and key.lower() not in LANGUAGES:
            if not isinstance(inner, Mapping):
                raise ValueError(f"signatures.{key} must map a programming language to a list of snippets")
            for language, snippets in inner.items():
                out += _language_signatures(str(language), snippets, key.upper())
        else:
            out += _language_signatures(key, inner, None)
    if len(out) > MAX_SIGNATURES:
        raise ValueError(f"at most {MAX_SIGNATURES} signatures a document (found {len(out)})")
    return tuple(out)


def _language_signatures(language: str, snippets: Any, verdict: str | None) -> list[Signature]:
    where = f"signatures.{verdict + '.' if verdict else ''}{language}"
    if language.lower() not in LANGUAGES:
        raise ValueError(f"{where}: unknown programming language or verdict {language!r} "
                         f"(languages: {', '.join(sorted(LANGUAGES))}; verdicts: {', '.join(VERDICTS)})")
    if isinstance(snippets, str):
        snippets = [snippets]
    if not isinstance(snippets, list) or not snippets:
        raise ValueError(f"{where} must be a non-empty list of snippets")
    out = []
    for snippet in snippets:
        if not isinstance(snippet, str) or not snippet.strip():
            raise ValueError(f"{where}: a snippet must be non-empty text (got {snippet!r})")
        if len(snippet) > MAX_CHARS:
            raise ValueError(f"{where}: a snippet is at most {MAX_CHARS} characters ({snippet[:30]!r}…)")
        if snippet.startswith(REGEX_PREFIX):
            source = snippet[len(REGEX_PREFIX):]
            check_regex(source, where)
            out.append(Signature(language.lower(), source, verdict, regex=True))
        else:
            out.append(Signature(language.lower(), _WHITESPACE.sub("", snippet), verdict))
    return out


def check_regex(source: str, where: str = "signature") -> None:
    """Refuse a regular expression that does not compile or could backtrack exponentially: a repetition inside a
    repetition (`(a+)+`, `(\\w*\\s?)*`, also inside an atomic group), an alternation inside a repetition (`(a|aa)*`)
    or a back-reference; and two runs of any character with only optional items between (`.*\\n?.*`). (Other
    repetitions one after another that overlap, `\\w*\\w*`, can still be polynomial; the code read is bounded by
    CODE_CHARS and LINE_CHARS.)"""
    if not source:
        raise ValueError(f"{where}: an empty regular expression")
    try:
        tree = sre_parse.parse(source)
    except re.error as exc:
        raise ValueError(f"{where}: {source!r} is no regular expression: {exc}") from None
    if _nested(tree, inside=False):
        raise ValueError(f"{where}: {source!r} repeats a repetition or an alternation, or refers back to a group "
                         f"(slow on some code); write a literal snippet or a flatter expression")
    if _dot_after_dot(tree):
        raise ValueError(f"{where}: {source!r} has two runs of any character one after another (`.*\\n?.*`: slow on "
                         f"long lines); write the ways apart (`.*X|.*\\n.*X`)")


def _nested(items: Iterable[Any], inside: bool) -> bool:
    for op, arg in items:
        name = str(op)
        if name in ("GROUPREF", "GROUPREF_EXISTS"):
            return True
        if name in _REPEATS:
            _low, _high, sub = arg
            if inside or _nested(sub, inside=True):
                return True
        elif name == "SUBPATTERN":
            if _nested(arg[-1], inside):
                return True
        elif name == "BRANCH":
            # Under a repetition, alternatives that match the same text ("(a|aa)*") try every way of splitting it:
            # exponential like a nested repetition. (Alternatives of one character each are parsed as a class.)
            if inside or any(_nested(branch, inside) for branch in arg[1]):
                return True
        elif name == "ATOMIC_GROUP":  # "(?>…)" stops backtracking into it from outside only, not within
            if _nested(arg, inside):
                return True
        elif name in ("ASSERT", "ASSERT_NOT") and _nested(arg[1], inside):
            return True
    return False


def _dot_after_dot(items: Iterable[Any]) -> bool:
    """Whether an unbounded run of any character follows another with only optional items between (`.*\\n?.*`):
    tried at each start, the two split each line every way (1.2 s on 20 000 characters of crafted code)."""
    open_run = False
    for op, arg in items:
        name = str(op)
        if name in _REPEATS:
            low, high, sub = arg
            if high == sre_parse.MAXREPEAT and len(sub) == 1 and str(sub[0][0]) == "ANY":
                if open_run:
                    return True
                open_run = True
                continue
            if _dot_after_dot(sub):
                return True
            if low == 0:
                continue  # optional ("\\n?"): the run before it stays open
        elif (name == "SUBPATTERN" and _dot_after_dot(arg[-1])) or \
                (name == "BRANCH" and any(_dot_after_dot(branch) for branch in arg[1])):
            return True
        open_run = False
    return False


def for_attempt(signatures: Iterable[Signature], language: str | None, verdict: str | None,
                verdicts: Iterable[str]) -> tuple[Signature, ...]:
    """The signatures that speak for a student's attempt: written for their language (C and C++ as one family) and
    for their verdict or for any. With no verdict known, all of the language's, but only when every verdict the
    pattern is written for (`verdicts`) has some: otherwise an attempt the signatures do not describe may be the
    student's. Empty: the pattern says nothing about this attempt."""
    if not language:
        return ()
    family = {"c", "cpp"} if language in ("c", "cpp") else {language}
    own = [s for s in signatures if s.language in family]
    if verdict is not None:
        return tuple(s for s in own if s.verdict in (None, verdict))
    if any(s.verdict is None for s in own) or {v.upper() for v in verdicts} <= {s.verdict for s in own}:
        return tuple(own)
    return ()


def matches(signatures: Iterable[Signature], code: str) -> bool:
    """Whether the code holds one of the signatures (literals without whitespace, expressions as written)."""
    code = code[:CODE_CHARS]
    compact: str | None = None
    lines: str | None = None
    for s in signatures:
        if s.regex:
            if lines is None:
                lines = "\n".join(line[:LINE_CHARS] for line in code.splitlines())
            if re.search(s.text, lines, re.MULTILINE):
                return True
            continue
        if compact is None:
            compact = _WHITESPACE.sub("", code)
        if s.text in compact:
            return True
    return False
