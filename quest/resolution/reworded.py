"""Rule ``reworded`` and the openings read after every title rule: a base title reworded
(`quest.reworded_titles`), said half in Chinese and half in English, or run on into the sentence; and, missing, a
known problem's title reworded, a base title's opposite, or a base title with one word swapped (a sibling)."""

from __future__ import annotations

import re
import unicodedata

from quest.known_problems import ASKED_ONLY
from quest.loose_titles import stem
from quest.problem_names import sequel_after
from quest.request import Request
from quest.resolution.catalogue import Catalogue
from quest.resolution.result import Resolution
from quest.resolution.titles import without_technique
from quest.resolution.words import _SEQUEL_ONLY, _TITLE_FILLERS, _sequel_shown, _units, squash
from quest.retrieval.tokenize import to_simplified
from quest.reworded_titles import mixed_head, mixed_problems, reworded_problem
from quest.sibling_heads import opening_phrase, swapped_title
from quest.title_shapes import opening


def by_reworded_title(name: str, cat: Catalogue) -> Resolution | None:
    """The base problem a name the rules read as a missing title rewords ("三数和", "判断链表有环", "最小编辑距离";
    `quest.reworded_titles`): its title's own characters or words with only fillers, a question's verb, a
    superlative or a listed word for the title's set aside. A sequel, a longer title or a sibling adds or swaps a
    unit of its own and stays missing, as does the exact title of a known problem the base lacks (`resolve`)."""
    written = to_simplified(unicodedata.normalize("NFKC", name))  # "三數和", "判斷鏈表有環": as titles are compared
    pid = reworded_problem(written, cat.reword_units, cat.reword_index, cat.titles)
    return Resolution(pid, "reworded", name) if pid is not None else None


# A run of Chinese characters set off, with a letter or two inside ("第K大的数", round 20).
_HAN_HEAD = re.compile(r"^[\u4e00-\u9fff](?:[\u4e00-\u9fff]|[A-Za-z0-9]{1,2}(?=[\u4e00-\u9fff]))*"
                       r"(?=$|[\s:：,，?？!！;；(（\-–—])")

# One digit glued to the Chinese run: a title's numeral typed as a digit ("3数之和", round 20), which `opening` takes
# for a list's number ("11盛水…"); tried as written first.
_DIGIT_HAN_HEAD = re.compile(r"^\d[\u4e00-\u9fff]+(?=$|[\s:：,，?？!！;；(（\-–—])")


def by_reworded_head(request: Request, cat: Catalogue) -> Resolution | None:
    """A question that opens with a base title reworded (`by_reworded_title`) where no rule read its opening as a
    title: a run of Chinese characters set off by a space or a mark ("判断链表是否有环，…", "链表有没有环 怎么判断"), or
    the opening phrase up to a clause mark ("detect linked list cycle: …")."""
    glued = _DIGIT_HAN_HEAD.match(to_simplified(unicodedata.normalize("NFKC", request.question)).lstrip())
    found = by_reworded_title(glued.group(0), cat) if glued else None
    if found is not None:
        return found
    opened = opening(unicodedata.normalize("NFKC", request.question))
    han = _HAN_HEAD.match(to_simplified(opened))
    head = han.group(0) if han else opening_phrase(opened)
    if head is None:
        return None
    return by_reworded_title(without_technique(head, cat), cat)


def by_mixed_head(request: Request, cat: Catalogue) -> Resolution | None:
    """A question that opens with a base title said half in Chinese, half in English ("反转 Linked List 递归…",
    "Reverse 链表，…", "二叉树 Maximum Depth"; `quest.reworded_titles.mixed_problems`, round 19): that problem when
    exactly one title pair holds both parts. Known problems the base lacks count too: one of them named so
    ("滑动窗口 Median", "最小 Depth of Binary Tree") is reported missing, as is a sequel's number after the phrase."""
    opened = opening(unicodedata.normalize("NFKC", request.question))
    simplified = to_simplified(opened)  # positions below are in it: "反轉 Linked List II" is read as 反转's
    head = mixed_head(simplified)
    if head is None:
        return None
    han, en, phrase, end = head
    found, taken = mixed_problems(han, en, cat.mixed_titles)
    if len(found) != 1:
        return None
    pid = found.pop()
    if phrase.startswith(han):  # the English words come last: the phrase ends with the last one taken
        words = list(re.finditer(r"[A-Za-z]+", phrase))
        phrase = phrase[:words[taken - 1].end()]
        end = simplified.find(phrase) + len(phrase)
    mark = sequel_after(simplified.casefold(), end)  # normalize(opened): `opened` is NFKC already
    if mark is not None or pid not in cat.problems:  # a sequel, or a known problem the base lacks ("滑动窗口 Median")
        named = f"{phrase} {_sequel_shown(mark)}" if mark is not None else phrase
        return Resolution(None, "name", named, missing_id=named)
    return Resolution(pid, "reworded", phrase)


# Words that say a title's opposite (`by_opposite_title`): "第K小的数" is 215's sibling, not 215.
_OPPOSITE_WORDS = (("小", "大"), ("大", "小"), ("smallest", "largest"), ("largest", "smallest"),
                   ("minimum", "maximum"), ("maximum", "minimum"))
_ASKED_ONLY_TITLES = frozenset(squash(t) for k in ASKED_ONLY for t in k.titles)


def by_opposite_title(name: str, cat: Catalogue) -> bool:
    """Whether `name`, with one word said the other way round, rewords a base title (`by_reworded_title`): the
    sibling problem ("第K小的数" of 第K大元素, "kth smallest element" of Kth Largest Element), which the base lacks."""
    low = name.casefold()
    for mine, theirs in _OPPOSITE_WORDS:
        if low.count(mine) == 1 and by_reworded_title(low.replace(mine, theirs), cat) is not None:
            return True
    return False


def by_known_reworded_head(request: Request, cat: Catalogue) -> Resolution | None:
    """A question that opens with a known problem's title reworded (`quest.known_problems`, by the rules of
    `quest.reworded_titles`: a verb, 是否, a listed synonym, any order), or with a base title's opposite: a
    problem the base lacks, reported missing (round 20). "单链表排序" is 148 排序链表, "判断是否为回文链表" 234,
    "判断是否为平衡二叉树" 110, "第K小的数" the sibling of 215. Tried after every rule that reads a base title in
    the opening. A title of `ASKED_ONLY` counts only reworded: as written it is a topic's name."""
    opened = opening(unicodedata.normalize("NFKC", request.question))
    han = _HAN_HEAD.match(to_simplified(opened))
    if han is None or len(han.group(0)) > 16:  # a clause, not a name
        return None
    head = han.group(0)
    if by_reworded_title(head, cat) is not None:
        return None
    known = reworded_problem(head, cat.known_reword_units, cat.known_reword_index, cat.known_reword_ids)
    if known is not None and squash(head) not in _ASKED_ONLY_TITLES:
        return Resolution(None, "name", head, missing_id=head)
    return Resolution(None, "name", head, missing_id=head) if by_opposite_title(head, cat) else None


# The longest English opening tried word by word (`by_reworded_run`): more words than any starter title has.
RUN_WORDS = 8
_LATIN_RUN = re.compile(r"[A-Za-z][A-Za-z0-9]*(?:[ \t]+[A-Za-z0-9]+)*")


def by_reworded_run(request: Request, cat: Catalogue) -> Resolution | None:
    """An English question that runs on from a base title reworded without a mark to end it ("valid parenthesis stack
    pops on empty"): the longest opening of at most `RUN_WORDS` words that rewords one base title (round 20). Words
    that make it a known problem's title ("valid parenthesis string …", 678) or a sequel ("… ii") name that problem,
    missing, as does an opening that rewords a base title's opposite ("kth smallest element …"). At most
    `RUN_WORDS` lookups a question, each in the units index: a pasted page costs the same."""
    run = _LATIN_RUN.match(opening(unicodedata.normalize("NFKC", request.question)))
    if run is None:
        return None
    words = run.group(0).split()[:RUN_WORDS + 3]
    for n in range(min(len(words), RUN_WORDS), 1, -1):
        if words[n - 1].casefold() in _TITLE_FILLERS:  # "check valid parenthesis with a": the shorter name's
            continue
        name = " ".join(words[:n])
        found = by_reworded_title(name, cat)
        if found is None and not by_opposite_title(name, cat):
            continue
        for more in range(n + 1, min(len(words), n + 3) + 1):  # a longer known title that starts so
            longer = " ".join(words[:more])
            # as written or reworded ("kth smallest element in a bst", "kth largest element stream": 230, 703)
            if squash(longer) in cat.known or reworded_problem(
                    longer, cat.known_reword_units, cat.known_reword_index, cat.known_reword_ids) is not None:
                return Resolution(None, "name", longer, missing_id=longer)
        if found is None:  # a base title's opposite ("kth smallest element …")
            return Resolution(None, "name", name, missing_id=name)
        if n < len(words) and _SEQUEL_ONLY.fullmatch(words[n].casefold()):
            named = f"{name} {_sequel_shown(words[n].casefold())}"
            return Resolution(None, "name", named, missing_id=named)
        return found
    return None


def by_sibling_head(request: Request, cat: Catalogue) -> Resolution | None:
    """A question that opens with a base title with one word swapped ("top k frequent words: …") names its sibling
    problem, which the base lacks (`quest.sibling_heads`). Tried after every rule that reads a base title, so a title
    written loosely or reworded is that title first."""
    head = opening_phrase(opening(unicodedata.normalize("NFKC", request.question)))
    if head is None:
        return None
    head = without_technique(head, cat)  # "kth largest element with quickselect" is 215 and how it was solved
    mine = [stem(u) for u in _units(head)]
    at = swapped_title(mine, cat.title_stems)
    if at is None:
        return None
    swapped = next(u for u, theirs in zip(mine, cat.title_stems[at], strict=True) if u != theirs)
    if squash(swapped) in cat.techniques or (cat.topics is not None and cat.topics.is_technique(swapped)):
        return None  # "… Quickselect", "… BFS": the title and a technique, not a sibling
    return Resolution(None, "name", head, missing_id=head)
