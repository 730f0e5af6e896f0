"""Titles read by their shape alone (`quest.title_shapes`: a head, quotes, "X这道题", "the X problem", a slug, a
judge's URL), and an opening that is exactly the title of a known problem the base lacks (`by_known_head`)."""

from __future__ import annotations

import re
import unicodedata

from quest.known_problems import KnownProblem
from quest.problem_names import NamedTitle, normalize, sequel_after
from quest.request import Request
from quest.resolution.catalogue import Catalogue, known_title
from quest.resolution.misremembered import _reworded_base_title
from quest.resolution.result import Resolution
from quest.resolution.titles import _by_name, _likeness, _title_key, without_technique
from quest.resolution.words import _squash_positions, _units, squash, without_lead_in
from quest.sibling_heads import reordered_title, structure_swapped
from quest.title_abbreviations import number_spellings, sibling_title
from quest.title_shapes import JUDGE_STOP, Shape, opening, title_shapes
from quest.topic_words import TopicWords, mainland_terms, title_words

# Where a title that opens the question ends: the question's end, a space or a punctuation mark, a reference to it
# ("这道题"), or a word about judging glued to it ("求众数超时"; `quest.title_shapes.JUDGE_STOP`).
_KNOWN_END = re.compile(r"$|[\s,，.。:：?？!！;；、()（）\[\]【】\-–—]|这道题|这题|那道题")
_HAN_END = re.compile(r"[\u4e00-\u9fff]$")

# The opening read for a title: longer than any title, short enough to bound the work per question.
_KNOWN_HEAD_CHARS = 80


def by_known_head(request: Request, cat: Catalogue) -> Resolution | None:
    """A question that opens with the exact title of a problem the base lacks names it ("用栈实现队列 pop 的顺序反
    了", "求众数，哈希表超时", "只出现一次的数字 异或为什么能行", "最小栈 getMin 返回错"): reported missing.

    The shape rules read a head by its words and first character, and both mislead here: a title made only of words
    the general documents use reads as a topic ("排序链表", "移动零"), and one that opens with a character sentences
    open with (用, 求) or holds a word that ends titles elsewhere (出现) reads as a sentence. A whole title, set off
    from what follows, is stronger evidence than either. Only the opening counts (after a tag, a plea, the words
    saying what the student does): inside a sentence the same words are as often the student's own ("链表排序怎么
    写"). Tried after `by_title` and `by_shape`: a base title anywhere in the question, one inside a longer title, and
    a title the shapes read (which also know the known titles, `known_title`) are read there first."""
    if not cat.known:
        return None
    opened = opening(unicodedata.normalize("NFKC", request.question))
    led = without_lead_in(opened)
    # One character before the title ("做回文链表，…") is not read as a lead-in, as for the shapes
    # (`quest.title_shapes`): 做, 写 open sentences as often.
    text = (led if len(opened) - len(led) >= 2 else opened)[:_KNOWN_HEAD_CHARS]
    norm = normalize(text)
    squashed, where = _squash_positions(norm)
    found: tuple[str, KnownProblem, int] | None = None
    for key, known in cat.known.items():
        if squashed.startswith(key) and (found is None or len(key) > len(found[0])):
            found = (key, known, where[len(key) - 1] + 1)
    if found is None or any(len(k) > len(found[0]) and squashed.startswith(k) for k in cat.titles):
        return None
    key, known, end = found
    title = next(t for t in (*known.titles, *(v for t in known.titles for v in number_spellings(t)))
                 if squash(t) == key)
    if title[-1:] in ")）" and norm[end:end + 1] in (")", "）"):
        end += 1  # "Pow(x, n)": the bracket that closes the title is the title's
    span = (text if len(text) == len(norm) else norm)[where[0]:end]  # as written ("回文數"), where positions agree
    glued_latin = bool(_HAN_END.search(span)) and norm[end:end + 1].isascii() and norm[end:end + 1].isalnum()
    if not (_KNOWN_END.match(norm, end) or JUDGE_STOP.match(norm, end) or glued_latin) or \
            sequel_after(norm, end) is not None or known_title(span, cat) is None:
        return None  # "移动零的写法": the words run on; "跳跃游戏 III": another problem
    if span.isascii() and not _capitalized_as(span, title):
        return None  # "sort list of tuples by key": English words of a sentence, not the title Sort List
    return Resolution(None, "name", span, missing_id=span)


def _capitalized_as(span: str, title: str) -> bool:
    """Every word the published English title capitalizes is capitalized in `span` too (a title is written in Title
    Case; a sentence that happens to open with its words is not)."""
    mine, theirs = re.findall(r"[A-Za-z0-9]+", span), re.findall(r"[A-Za-z0-9]+", title)
    return len(mine) == len(theirs) and all(not b[:1].isupper() or a[:1].isupper() for a, b in zip(mine, theirs,
                                                                                                    strict=True))


def by_shape(request: Request, cat: Catalogue) -> Resolution | None:
    """A title named by its shape alone (`quest.title_shapes`: a head, quotes, "X这道题", "the X problem",
    a slug, a judge's URL): a base problem when it is one of the base's titles (or close to one), nothing
    when its words are a topic's, else a problem the base does not have."""
    if cat.topics is None:
        return None
    for shape in title_shapes(request.question):
        found = _shape_named(shape, request.question, cat, cat.topics)
        if found is not None and not (found.missing_id and shape.how == "studied"):
            return found
    return None


def _shape_named(shape: Shape, request_text: str, cat: Catalogue, topics: TopicWords) -> Resolution | None:
    if shape.how == "url":  # a problem page the id and slug rules did not find in the base
        return Resolution(None, "name", shape.text, missing_id=shape.text)
    if shape.how == "slug" and shape.text in cat.slugs:
        return Resolution(cat.slugs[shape.text], "title", shape.text)
    shape = Shape(without_technique(shape.text, cat), shape.how) if shape.how != "slug" else shape
    text = shape.text.replace("-", " ") if shape.how == "slug" else shape.text
    key = squash(text)
    if key in cat.weak and key != squash(request_text):  # "二分查找 边界总是差一" is about the technique
        return None
    if key_written := _title_key(text, cat):
        return Resolution(cat.titles[key_written], "title", shape.text)
    if key in cat.techniques or topics.is_technique(text):  # "Sliding Window", "Binary Search"
        return None
    mainland = mainland_terms(text)  # "二元樹的最大深度": 104 in Taiwan's words
    if known_title(text, cat) is not None or (mainland is not None and known_title(mainland, cat) is not None):
        # "最小栈", "“多数元素”", "做移动零的时候": a known title the base lacks, even when its words are a topic's
        return Resolution(None, "name", shape.text, missing_id=shape.text)
    starts = [title for title in cat.titles if title.startswith(key) and _likeness(key, title) == 1.0]
    if starts:  # "Kth Largest Element": a clear start of a base title
        return Resolution(cat.titles[starts[0]], "title", shape.text)
    if mainland is not None and (key_mainland := _title_key(mainland, cat)):
        return Resolution(cat.titles[key_mainland], "title", shape.text)
    if key not in cat.weak and any(sibling_title(_units(t), [_units(t) for t in cat.shown.values()])
                                   for t in (text, mainland) if t):
        return Resolution(None, "name", shape.text, missing_id=shape.text)  # "二叉树的最小深度" beside 最大深度
    for t in (text, mainland) if key not in cat.weak else ():
        at = reordered_title(title_words(t), cat.zh_title_words) if t else None
        if at is not None and cat.zh_title_keys[at] not in cat.weak:  # "链表反转" is 206
            return Resolution(cat.titles[cat.zh_title_keys[at]], "title", shape.text)
        if t and structure_swapped(title_words(t), cat.zh_title_words) is not None:  # "反转二叉树" beside 反转链表
            return Resolution(None, "name", shape.text, missing_id=shape.text)
    # Part of a base title ("层序遍历" of 二叉树的层序遍历) or a topic's words: not a problem the base lacks.
    # A title written like a call ("Pow(x, n)") is no topic, even when a general page quotes such code.
    topic = shape.how != "call" and topics.is_topic(text, marked=shape.marked)
    if key in cat.techniques or any(key in title for title in cat.titles) or topic:
        return None
    found = _by_name(NamedTitle(text, bounded=shape.bounded), cat)
    if found is not None and found.missing_id is not None:
        reworded = _reworded_base_title(text, cat) or (_reworded_base_title(mainland, cat) if mainland else None)
        if reworded is not None:  # "盛水最多的容器": 11 misremembered, not another problem
            return Resolution(reworded, "title", shape.text)
        return Resolution(None, "name", shape.text, missing_id=shape.text)
    return found
