"""The judge's own name is not what a question is about.

Every numbered problem of the starter base is a LeetCode problem, so "LeetCode" (or 力扣, 领扣) in a
question says where the student practises, not which document helps. The tokenizer keeps an
identifier whole and adds its parts, so "LeetCode" alone becomes three tokens (`leetcode`, `leet`,
`code`): a question that names the site twice ("the VS Code LeetCode extension won't sign me in …
on LeetCode") carried six tokens of the site's name, and a long question's window made of them cleared
the floor on any page that mentions LeetCode — an off-topic question got problem solutions shown as
if relevant. A part that names the judge is therefore judged for the floor (its confidence) on its other
words (`plain_tokens`; `Retriever._plain_confidence`); the ranking keeps every token, since a page that
names the site beside the question's own words ("the LeetCode debugger passes, submit fails") may
still be the better one. Documents keep the name (the index is not changed), and the planner has
already read any problem id that follows it ("LeetCode 239").
"""

from __future__ import annotations

from collections.abc import Sequence

# The judge's name as the tokenizer writes it, with the parts it adds right after the whole word.
JUDGE_NAMES: dict[str, tuple[str, ...]] = {"leetcode": ("leet", "code"), "力扣": (), "领扣": ()}


def without_judge_name(tokens: Sequence[str]) -> list[str]:
    """`tokens` without the judge's name and the parts the tokenizer split from it.

    Only the parts directly after the whole name go: a `code` of its own ("VS Code", "exit code")
    stays.
    """
    out: list[str] = []
    i = 0
    while i < len(tokens):
        parts = JUDGE_NAMES.get(tokens[i])
        if parts is None:
            out.append(tokens[i])
            i += 1
            continue
        i += 1
        if tuple(tokens[i:i + len(parts)]) == parts:
            i += len(parts)
    return out


def plain_tokens(tokens: Sequence[str]) -> tuple[str, ...] | None:
    """The tokens without the judge's name when they name it, else None (nothing to leave out)."""
    plain = without_judge_name(tokens)
    return tuple(plain) if len(plain) != len(tokens) else None
