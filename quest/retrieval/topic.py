"""What a question is about: its words without the verdict it names and the judge's name.

A verdict says how a submission failed, not why, and every verdict has an overview page that is made
of those words. So a question that matched the base only on them — "Runtime Error" inside a question
about a self-hosted judge's "Output file not found", or the bare "Wrong Answer" line pasted under a
question about a problem the base does not have — cleared the confidence floor on the overview (0.51
and 0.67 of their bounds, round 10's r10-056 and r10-018) and was shown sources as if the base
answered it. The retriever asks one more thing of a question that names no problem before it calls the
result confident (`Retriever._on_topic`): that some shown page matches the question's *topic* words
at the floor — the question's and the error's words with the verdict phrases and the judge's name taken
out, a long question by its windows of them (the code part is no topic: its identifiers are in every
solution; r10-018's five lines of `nums` and `return i` matched a subsets solution at 0.43) — or the
whole question as asked (so "what does Time Limit Exceeded
mean?", whose topic is the verdict, still is). Otherwise the hits are kept, in the same order, and
marked weak (`SearchResult.weak`), as a widened search's are. Ranking never changes. A problem the
question only hints at — a bare number or a paraphrased title the first search confirmed (`quest.weak_names`) —
is the search's guess, not the student's word: the search inside it is checked the same way, and a weak first
search confirms no such guess at all (`quest.plan.retrieve`).

Phrases, not words, are taken out: 格式 in "格式串多了空格" and "memory" in "memory leak" are topics;
only "格式错误", "Memory Limit Exceeded", "MLE" are verdicts.
"""

from __future__ import annotations

import functools
import re

from quest.judge import VERDICT_NAMES, VERDICT_PHRASES, VERDICTS
from quest.retrieval.judge_name import without_judge_name
from quest.retrieval.tokenize import to_simplified, tokenize

#: The query parts whose words say what the question is about. The code is searched too, but its identifiers
#: (`nums`, `length`, `return i`) are in every solution: a page that matches only them is not about the question.
TOPIC_PARTS = frozenset({"question", "error", "verdict"})
# Abbreviations as judges print them (capitals, whole words); "re" or "pe" in prose are words.
_ABBREVIATIONS = re.compile(r"(?<![A-Za-z0-9_])(?:" + "|".join(VERDICTS) + r"|SE|UKE)(?![A-Za-z0-9_])")


# Phrases the parser reads as a verdict that name a cause as well: a topic, never taken out.
CAUSES = frozenset({"segmentation fault", "段错误", "floating point exception", "stack overflow", "栈溢出",
                    "addresssanitizer", "memoryerror", "idleness limit exceeded"})


@functools.cache
def _phrases() -> re.Pattern[str]:
    names = [n for by_lang in VERDICT_NAMES.values() for n in by_lang.values()]
    phrases = {p.lower() for p in (*names, *(p for ps in VERDICT_PHRASES.values() for p in ps)) if len(p) > 1}
    phrases -= CAUSES
    ordered = sorted(phrases, key=len, reverse=True)  # "运行超时" before "超时"
    return re.compile("|".join(re.escape(p) for p in ordered), re.I)


def without_verdicts(text: str) -> str:
    """`text` (simplified) with every verdict phrase and abbreviation blanked out."""
    return _ABBREVIATIONS.sub(" ", _phrases().sub(" ", to_simplified(text or "")))


def topic_tokens(text: str) -> tuple[str, ...]:
    """The tokens of what `text` is about: no verdict's name and no judge's name. (A `verdict_*` token the rest
    still yields comes from a cause — "段错误", "segmentation fault" — or a student's loose word, "timeout".)"""
    return tuple(without_judge_name(tokenize(without_verdicts(text))))
