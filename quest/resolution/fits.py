"""Shortened names several problems' titles fit (`quest.name_fits`, round 21): a problem found by a name that drops
what tells it from others is ambiguous or another's (`_shortened_fit`), and an opening no rule resolved is read for
the titles it fits (`by_fitting_opening`)."""

from __future__ import annotations

import re
import unicodedata

from quest.name_fits import Fit
from quest.request import Request
from quest.resolution.catalogue import Catalogue, known_title
from quest.resolution.result import Alternative, Resolution
from quest.resolution.reworded import _HAN_HEAD, RUN_WORDS, by_reworded_title
from quest.resolution.words import _FITS_FILLERS, _HAN_CHAR, squash
from quest.retrieval.tokenize import to_simplified
from quest.title_shapes import opening


def _ambiguous(name: str, fit: Fit, cat: Catalogue) -> Resolution:
    """A name several problems' titles fit: nothing resolved, and the notice lists them to ask which one (the base
    ones to put in the problem field, the known ones the base lacks by their judge's id)."""
    offered = tuple(Alternative(k, p.title_zh or "", p.title_en or "") for k in fit.fitting
                    if (p := cat.problems.get(k)) is not None)
    lacking = {k.id: k for k in cat.known.values()}
    han = bool(_HAN_CHAR.search(name))
    named = []
    for key in fit.fitting:
        known = lacking.get(key[6:]) if key.startswith("known:") else None
        if known is not None:  # its title in the name's script: "LeetCode 692 (Top K Frequent Words)"
            title = next((t for t in known.titles if bool(_HAN_CHAR.search(t)) == han), known.titles[0])
            named.append(f"{known.judge} {known.id}（{title}）" if han else f"{known.judge} {known.id} ({title})")
    return Resolution(None, "name", name, candidates=tuple(named), alternatives=offered)


def _shortened_fit(found: Resolution, cat: Catalogue) -> Resolution | None:
    """A base problem found by a name that is no title as written ("前K个高频", "最长回文", "最大子数组"), when that
    name fits other problems' titles too and its dropped words told them apart (`quest.name_fits`): ambiguous, or
    the known problem it names instead. A name that rewords the title whole (`by_reworded_title`: its units with a
    listed word said the title's way, "第K大的数" is 第K大元素; or the input's kind left out) keeps what was found:
    only a name with words dropped is read here."""
    if found.problem_id is None or found.rule not in ("title", "reworded") or squash(found.evidence) in cat.titles:
        return None
    if by_reworded_title(found.evidence, cat) is not None:
        return None
    fit = cat.name_fits.fit(found.evidence)
    if fit is None or fit.named == found.problem_id or found.problem_id not in fit.fitting:
        return None
    if fit.named is None:
        return _ambiguous(found.evidence, fit, cat)
    if fit.named.startswith("known:"):
        return Resolution(None, "name", found.evidence, missing_id=found.evidence)
    return None


def by_fitting_opening(request: Request, cat: Catalogue) -> Resolution | None:
    """A question no rule resolved that opens with a shortened name (`quest.name_fits`): several problems' titles
    fit it ("buy and sell stock", "top k frequent", "二叉树深度") — ambiguous, asked, never handed to a weak name or the
    search's consensus; or only a known problem's the base lacks ("top k frequent words heap", "binary tree preorder
    traversal", "buy and sell stock with cooldown", in lowercase) — reported missing, as is a known title of two
    words written whole when a word of it is no general page's ("palindromic substrings", "house robber dp"; not
    "sort list", "path sum": `by_known_head` reads those only capitalized). The longest opening that fits a title
    counts (at most `RUN_WORDS` words; a run of Chinese characters set off, whole); a known title shortened into a
    topic's words names nothing."""
    opened = opening(unicodedata.normalize("NFKC", request.question))
    han = _HAN_HEAD.match(to_simplified(opened))
    if han is not None:  # set off whole: glued to more, the characters run on into a sentence ("…出现了两次")
        names = [han.group(0)] if len(han.group(0)) <= 16 else []
    else:
        run = _NAME_RUN.match(opened)
        words = re.split(r"[ \t]+", run.group(0))[:RUN_WORDS] if run else []
        # A small word ends no name: "top k frequent with a heap" fits as "top k frequent", and is echoed so.
        names = [" ".join(words[:n]) for n in range(len(words), 1, -1) if words[n - 1].casefold() not in _FITS_FILLERS]
    for name in names:
        if squash(name) in cat.known and known_title(name, cat) is not None and cat.topics is not None and \
                cat.topics.own_words(name):
            return Resolution(None, "name", name, missing_id=name)
        fit = cat.name_fits.fit(name)
        if fit is None:
            continue
        topic = cat.topics is not None and cat.topics.is_topic(name)
        if topic and fit.kept < TOPIC_NAME_KEPT:
            return None  # "排序数组", "层序遍历": a topic's words that a title holds among others
        if fit.named is None:  # only a base problem among them could be picked silently ("用栈实现" fits 225, 232)
            return _ambiguous(name, fit, cat) if any(k in cat.problems for k in fit.fitting) else None
        if fit.named.startswith("known:") and (squash(name) in cat.known or not topic):
            return Resolution(None, "name", name, missing_id=name)
        return None  # a base problem's shortening: the weak names and the search decide, as before
    return None


# Made of a topic's words, an opening is a shortened name only when it keeps this much of a title ("二叉树深度" 5 of
# 二叉树最大深度's 7 characters); less is the topic ("排序数组" is 4 of 搜索旋转排序数组's 8, "层序遍历" 4 of 7).
TOPIC_NAME_KEPT = 0.7

# An English opening run for `by_fitting_opening`: words, also joined by a hyphen ("n-ary tree …").
_NAME_RUN = re.compile(r"[A-Za-z][A-Za-z0-9]*(?:(?:[ \t]+|-)[A-Za-z0-9]+)*")
