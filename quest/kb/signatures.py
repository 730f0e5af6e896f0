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
inside a repetition and no back-reference (the shapes that backtrack exponentially), nor two runs one after another
that can match the same characters (`\\w*\\w*`: polynomial, seconds on 20 KB of crafted code) unless a literal start
keeps them apart; it runs on at most CODE_CHARS of the code, each line cut at LINE_CHARS.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

try:  # Python 3.11+: the parser moved; its tree is read to refuse slow shapes, one-character items compiled alone
    from re import _compiler as sre_compile  # type: ignore[attr-defined]
    from re import _parser as sre_parse  # type: ignore[attr-defined]
except ImportError:  # pragma: no cover - older Pythons
    import sre_compile  # type: ignore[no-redef]
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
    or a back-reference; and two unbounded runs that can match the same characters with only optional items between
    (`.*\\n?.*`, `\\w*\\w*`, `\\w+\\s*\\w*`) unless they follow a literal start they cannot match (`_overlapping_runs`).
    Runs that overlap across a mandatory character (`\\w*_\\w*`) stay polynomial at worst; the code read is bounded by
    CODE_CHARS and LINE_CHARS."""
    if not source:
        raise ValueError(f"{where}: an empty regular expression")
    try:
        tree = sre_parse.parse(source)
    except re.error as exc:
        raise ValueError(f"{where}: {source!r} is no regular expression: {exc}") from None
    if _nested(tree, inside=False):
        raise ValueError(f"{where}: {source!r} repeats a repetition or an alternation, or refers back to a group "
                         f"(slow on some code); write a literal snippet or a flatter expression")
    overlap = _overlapping_runs(tree)
    if overlap == "any":
        raise ValueError(f"{where}: {source!r} has two runs of any character one after another (`.*\\n?.*`: slow on "
                         f"long lines); write the ways apart (`.*X|.*\\n.*X`)")
    if overlap:
        raise ValueError(f"{where}: {source!r} has two repetitions one after another that can match the same "
                         f"characters (`\\w*\\w*`, `\\w+\\s*\\w*`: slow on long lines); make them one, or put them "
                         f"after a literal they cannot match (`while[ \\t]*\\(?[ \\t]*`)")


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


# The characters a one-character item is tried on to tell whether two runs can match the same text: ASCII and
# Latin, and one of each kind beyond (CJK, full-width, another script's digit, Unicode line and space separators).
_SAMPLE = (*(chr(c) for c in range(0x250)), "\u2028", "\u3000", "中", "，", "\u0661", "\u017f", "\u212a")
_ONE_CHAR = ("LITERAL", "NOT_LITERAL", "IN", "ANY", "CATEGORY")
_chars_cache: dict[tuple[str, int], frozenset[str]] = {}


def _chars(item: Any) -> frozenset[str] | None:
    """The sample characters that a one-item SubPattern (`\\w`, `[ \\t]`, `.`, `x`; possibly in a group) matches,
    under the expression's flags; None when it is not one character."""
    while len(item) == 1 and str(item[0][0]) == "SUBPATTERN":
        item = item[0][1][-1]
    if len(item) != 1 or str(item[0][0]) not in _ONE_CHAR:
        return None
    key = (str(item.data), item.state.flags)
    if key not in _chars_cache:
        one = sre_compile.compile(item)
        _chars_cache[key] = frozenset(c for c in _SAMPLE if one.fullmatch(c))
    return _chars_cache[key]


_EVERY = frozenset(_SAMPLE)


@dataclass
class _Runs:
    """What a left-to-right walk over an expression knows at each item."""

    open: list[tuple[frozenset[str], bool]]  # unbounded runs with only optional items after them (chars, is `.`)
    first: frozenset[str] | None = None  # what the expression's first character can be (None: not one mandatory)
    started: bool = False  # an item that takes characters was seen
    absorbed: frozenset[str] = frozenset()  # what the unbounded items so far can match
    guard: frozenset[str] | None = None  # the last mandatory character...
    anchored: bool = False  # ...and whether at most a few search starts can reach the same one
    since: frozenset[str] | None = frozenset()  # what the items after the guard may match (None: not known)

    def copy(self) -> _Runs:
        return dataclasses.replace(self, open=list(self.open))

    def take(self, chars: frozenset[str] | None, mandatory: bool, unbounded: bool) -> None:
        """An item that takes characters (`chars`: which, None when not one kind)."""
        if not self.started:
            self.started = True
            self.first = chars if mandatory and not unbounded else None
        if unbounded:
            self.absorbed |= chars if chars is not None else _EVERY
        if mandatory and chars is not None and not unbounded:
            self.open, self.guard, self.since = [], chars, frozenset()
            # Two starts reach the same character only through a run that can hold the first one's character.
            self.anchored = self.first is not None and not self.first & self.absorbed
        elif mandatory and chars is None:
            self.open, self.guard, self.since = [], None, None
        else:
            self.since = None if self.since is None or chars is None else self.since | chars

    def guarded(self, chars: frozenset[str]) -> bool:
        """Whether runs after the guard split text no other search start splits: they cannot match the guard's
        character (so no start's runs cross another's guard) and few starts reach each guard."""
        return self.guard is not None and self.anchored and self.since is not None and \
            not self.guard & (self.since | chars)


def _overlapping_runs(items: Any, state: _Runs | None = None) -> str | None:
    """Whether two unbounded runs that can match the same characters follow one another with only optional items
    between (`\\w*\\w*`, `.*\\n?.*`): each search start tries every way of splitting a line between them, and
    starts inside the line try again (`\\w*\\w*;` on a line of 300 letters: 4.5 million steps). Allowed after a
    character the runs cannot match, when the expression opens with a character no run before can match
    (`while[ \\t]*\\(?[ \\t]*`): then only a few starts reach each place. "any" (two runs of `.`), "run" or None."""
    state = state if state is not None else _Runs([])
    for i, (op, arg) in enumerate(items):
        name = str(op)
        if name == "AT":  # takes no character: "\\b", "^"
            continue
        if name in ("ASSERT", "ASSERT_NOT"):
            found = _overlapping_runs(arg[1])
            if found:
                return found
            continue
        if name in ("SUBPATTERN", "ATOMIC_GROUP"):  # a group not repeated: its items are the expression's
            found = _overlapping_runs(arg[-1] if name == "SUBPATTERN" else arg, state)
            if found:
                return found
            continue
        one = items[i:i + 1]
        low, high = one.getwidth()
        chars = _chars(arg[2]) if name in _REPEATS else _chars(one)
        if chars is None:  # an alternation or a repeated group: checked alone
            for inner in (arg[1] if name == "BRANCH" else [arg[2]] if name in _REPEATS else []):
                found = _overlapping_runs(inner, state.copy() if name == "BRANCH" else None)
                if found:
                    return found
            if name == "BRANCH" and not state.started:
                firsts = [_chars(branch[:1]) if branch else None for branch in arg[1]]
                state.started = True
                state.first = None if None in firsts else frozenset().union(*firsts)
            state.take(None, mandatory=low > 0, unbounded=high >= sre_parse.MAXREPEAT)
            continue
        if name in _REPEATS and arg[1] == sre_parse.MAXREPEAT:
            dot = str(arg[2][0][0]) == "ANY"
            for run, run_dot in state.open:
                if run & chars and not state.guarded(chars):
                    return "any" if dot and run_dot else "run"
            state.take(chars, mandatory=low > 0, unbounded=True)
            # A possessive run gives nothing back: a run after it cannot split its text with it.
            mine = [] if name == "POSSESSIVE_REPEAT" else [(chars, dot)]
            state.open = [*state.open, *mine] if arg[0] == 0 else mine
        elif low > 0 and high > 1:  # "\\d{2}": mandatory, more than one character
            state.take(None, mandatory=True, unbounded=False)
        else:  # one character ("x", "[ \\t]") or an optional one ("\\(?")
            state.take(chars, mandatory=low > 0, unbounded=False)
    return None


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
