"""A base title reworded the way students name a problem: the title's own characters or words, with only what
carries no meaning of its own dropped or added (round 18).

The rules that read a question's opening phrase as a title (`quest.title_shapes`, `quest.problem_names`) report a
name the base has no title for as a problem the base lacks. Students often name a base problem so: "三数和" (三数之和
without 之), "二叉树最大深度", "判断链表有环" (环形链表 as a question: a verb, and 有环 for 环形), "最小编辑距离"
(编辑距离 with the superlative the problem asks for), "滑窗最大值" (滑窗 is short for 滑动窗口), "Detect Linked List
Cycle". Telling them their problem is missing is wrong. A name is such a rewording when, once these are set aside,
it holds exactly the title's units (Chinese characters, English word stems), in any order:

- the filler characters 之 的 个 中 and the question's "是否" (on both sides), the small English words;
- one verb a question opens with (判断, 求, 计算, find, detect, check, …), on the name's side only;
- one superlative word (最小, 最大, minimum, max, …) the name adds: "minimum edit distance" is the distance;
- one listed word for the title's (`_ZH_SAME`): 有环 → 环形, 滑窗 → 滑动窗口.

Anything else the name adds or lacks makes it another problem, which stays reported as missing: a sequel ("课程表
II": the units "ii"), a longer title ("最长递增子序列的个数": 数; "买卖股票的最佳时机含冷冻期", "3Sum Closest"), a
sibling ("二叉树的最小深度": 小 for 大). And a name that is exactly the title of a known problem the base lacks
(`quest.known_problems`) is never read as a rewording (`quest.resolution.reworded.by_reworded_title`).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass

from quest.sibling_heads import zh_synonym_spellings

# Characters with no meaning of their own in a Chinese title: "三数之和" is "三数和", "前 K 个高频元素" "前K高频元素".
_ZH_FILLERS = frozenset("之的个中")
_EN_FILLERS = frozenset(("a", "an", "the", "of", "in", "to", "with", "and", "for", "is", "if", "whether"))
# A question opens with what it asks done to the problem's object: "判断链表是否有环", "find the kth largest …".
_ZH_VERB = re.compile(r"^(?:判断|判定|检测|求解|求出|求|计算|找出|寻找|查找)")
# "链表是否有环", "链表有没有环": 链表有环; "判断是否为二叉搜索树": the copula after 是否 asks it too (round 19)
_ZH_WHETHER = re.compile(r"是否[为是]?|有没有")
_EN_VERBS = frozenset(("find", "detect", "check", "determine", "compute", "calculate", "get", "solve"))
# Words a name adds to say what is asked, which the title leaves implicit ("最小编辑距离", "Minimum Edit Distance").
_ZH_SUPERLATIVES = ("最小", "最大", "最少", "最多")
_EN_SUPERLATIVES = frozenset(("minimum", "maximum", "min", "max", "minimal", "maximal"))
# A student's word -> the title's: only words that mean exactly the title's word in every title holding it.
_ZH_SAME = (("有环", "环形"), ("带环", "环形"), ("滑窗", "滑动窗口"),
            # round 19: the names students give these problems in posts and solution lists. 判环 and 链表环
            # say 环形链表 ("链表判环", "检测链表环"); a 单链表 is the title's 链表 ("反转单链表", "单链表反转");
            # 求和 is the title's 和 ("两数求和", "三数求和") and 之和 its 总和 ("组合之和"); 直方图 is 柱状图 (84), 装
            # (water) 盛 ("装最多水的容器"), 按层 层序 ("二叉树按层遍历");
            # 最大利润 is what the stock title's 最佳时机 asks ("买卖股票最大利润"; "股票的最大利润" is 121's `aka`).
            # Each holds in every title that has the word; a sequel or a longer title still adds a unit of its own.
            ("判环", "环形"), ("链表环", "环形链表"), ("单链表", "链表"), ("求和", "和"), ("之和", "总和"),
            ("直方图", "柱状图"), ("最大利润", "最佳时机"), ("装", "盛"), ("按层", "层序"),
            # round 20: 84 asks the rectangle's area ("直方图最大矩形面积"), as "最长…长度" asks a length; 字串 typed
            # for 子串 (both zichuan: "最长回文字串" is 5, in no base title is 字串 a word of its own); "第K大的数" is
            # 215's 第K大元素 (and "第K小的数" its sibling, `quest.resolution.reworded.by_known_reworded_head`)
            ("矩形面积", "矩形"), ("字串", "子串"), ("大的数", "大元素"), ("小的数", "小元素"))
# The most spellings of a Chinese name tried (before the swapped words): a title reworded holds two or three listed
# words (at most 2 x 3 x 8 forms with a digit); each form is looked up in the titles' units.
MAX_ZH_FORMS = 64
# A digit students type for a title's numeral: "3数之和" is 三数之和, "2数之和" 两数之和 (round 20).
_ZH_DIGITS = (str.maketrans("123456789", "一两三四五六七八九"), str.maketrans("2", "二"))
_HAN = re.compile(r"[\u4e00-\u9fff]")
# A title of fewer units is too short to tell from the words of a sentence ("子集", "Binary Search" are weak anyway).
MIN_HAN_UNITS = 3
MIN_WORDS = 2
# Title words a name may leave out (one at a time, `name_spellings`): they say the input's kind (round 20b).
_IMPLIED = ("array", "sorted", "character")
OMIT_MIN_WORDS = 3
_WORD = re.compile(r"[a-z0-9]+")


# Plurals no ending rule reads: "valid parenthesis" is Valid Parentheses (20), said in the singular (round 20).
# "longest palindrome substring" is 5's Longest Palindromic Substring: the adjective said as the noun.
_IRREGULAR = {"parentheses": "parenthesis", "indices": "index", "matrices": "matrix", "vertices": "vertex",
              "palindromic": "palindrome"}


# Short words students type for a title's (round 20b): "max depth of binary tree" is 104, "min window substring" 76.
_SHORT = {"max": "maximum", "min": "minimum"}


_IRREGULAR_OF = frozenset(_IRREGULAR.values())


def _stem(word: str) -> str:
    """English plural endings dropped ("lists" -> "list"), and a verb's -ing form said as the verb and a final e
    dropped, so "trapping"/"trap", "climbing"/"climb" and "reversing"/"reverse" meet (round 20b); the same on both
    sides is all that matters. A stem keeps at least four letters: "string" and "ring" stay whole."""
    word = _IRREGULAR.get(word) or _SHORT.get(word, word)
    if len(word) > 4 and word.endswith("ies"):
        return word[:-3] + "y"
    if len(word) > 3 and word.endswith("s") and not word.endswith(("ss", "us", "is")) and word not in _IRREGULAR_OF:
        word = word[:-1]
    if len(word) >= 7 and word.endswith("ing"):
        word = word[:-3]
        # "trapping" -> "trapp" -> "trap"; not a doubled l, s, z or f ("spelling" is "spell")
        if word[-1] == word[-2] and word[-1] not in "aeioulszf":
            word = word[:-1]
    return word[:-1] if len(word) > 4 and word.endswith("e") and not word.endswith("ee") else word


def title_units(title: str) -> Counter[str]:
    """A title's units once its fillers are set aside: Chinese characters, or English word stems."""
    text = title.casefold()
    if _HAN.search(text):
        return Counter(ch for ch in text if not ch.isspace() and ch not in _ZH_FILLERS and ch.isalnum())
    return Counter(_stem(w) for w in _WORD.findall(text) if w not in _EN_FILLERS)


def _zh_spellings(name: str) -> list[str]:
    """The Chinese name as written, without a leading verb, and each with a listed word said the title's way."""
    name = _ZH_WHETHER.sub(lambda m: "有" if m.group(0) == "有没有" else "", name)
    forms = list(dict.fromkeys((name, _ZH_VERB.sub("", name))))
    if any(ch.isdigit() for ch in name):
        forms = list(dict.fromkeys([*forms, *(f.translate(t) for t in _ZH_DIGITS for f in forms)]))
    for mine, theirs in _ZH_SAME:
        forms += [f.replace(mine, theirs) for f in forms if mine in f]
        del forms[MAX_ZH_FORMS:]  # each listed word doubles them: a name holding all of them made 10^5 (seconds)
    # and a word students swap for the title's (`quest.sibling_heads`: 判断二叉搜索树 is 验证二叉搜索树)
    return forms + ["".join(units) for f in forms for units in zh_synonym_spellings(list(f))]


def name_spellings(name: str) -> list[tuple[Counter[str], Counter[str]]]:
    """(units, the superlative's units or an empty Counter) for each way `name` may spell a title."""
    text = name.casefold()
    if _HAN.search(text):
        out = []
        for form in _zh_spellings(text):
            units = title_units(form)
            out.append((units, Counter()))
            out += [(units, Counter(word)) for word in _ZH_SUPERLATIVES if word in form]
        return out
    words = [w for w in _WORD.findall(text) if w not in _EN_FILLERS]
    # "merge two sorted linked lists" is Merge Two Sorted Lists: a title's list is a linked list (the titles that
    # say "Linked List" keep their word: "reverse list" is no name of 206)
    unlinked = [w for i, w in enumerate(words) if w != "linked" or _stem("".join(words[i + 1:i + 2])) != "list"]
    forms = [words] if unlinked == words else [words, unlinked]
    out = []
    # as written, and without its verb ("Find First and Last Position …" holds its verb: 34)
    for form in [f[1:] for f in forms if f[0] in _EN_VERBS] + forms if words else forms:
        units = Counter(_stem(w) for w in form)
        out += [(units, Counter()), *((units, Counter({w: 1})) for w in _EN_SUPERLATIVES if w in units)]
        # a name of three words or more may leave out the input's kind the rest implies: "search in rotated
        # array" (rotated: sorted), "kth largest element" (of an array), "longest substring without repeating";
        # not "element", which tells problems apart ("top k frequent" is also the start of 692's Words)
        if units.total() >= OMIT_MIN_WORDS:
            out += [(units + Counter({w: 1}), Counter()) for w in _IMPLIED if w not in units]
    return out


def units_index(titles: Mapping[str, Counter[str]]) -> dict[str, list[str]]:
    """Each unit -> the titles (keys of `titles`) holding it: a rewording holds all of a title's units, so only the
    titles holding a spelling's rarest unit are worth comparing (imported bases have thousands of titles)."""
    index: dict[str, list[str]] = {}
    for key, units in titles.items():
        for unit in units:
            index.setdefault(unit, []).append(key)
    return index


def reworded(name: str, titles: Mapping[str, Counter[str]], index: Mapping[str, list[str]]) -> set[str]:
    """The titles (keys of `titles`, their `title_units`; `index` is `units_index(titles)`) that `name` rewords."""
    least = MIN_HAN_UNITS if _HAN.search(name) else MIN_WORDS
    found: set[str] = set()
    for units, extra in name_spellings(name):
        units -= extra
        if units.total() < least:
            continue
        rarest = min(units, key=lambda u: len(index.get(u, ())))
        for key in index.get(rarest, ()):
            # the superlative counts only as an addition: a title that has the word has it as its own
            if titles[key] == units and not (extra and extra & titles[key]):
                found.add(key)
    return found


def reworded_problem(name: str, titles: Mapping[str, Counter[str]], index: Mapping[str, list[str]],
                     pids: Mapping[str, str]) -> str | None:
    """The one base problem whose title `name` rewords; None when none does, or when titles of two problems do."""
    problems = {pids[key] for key in reworded(name, titles, index)}
    return problems.pop() if len(problems) == 1 else None


# --------------------------------------------------------------------------- a title in two languages (round 19)

# A question's opening in two scripts: a run of Chinese characters and a run of English words, either first, set off
# from what follows by a space, a mark or the end ("反转 Linked List 递归…", "Reverse 链表，…", "二叉树 Maximum Depth").
# The English words may be set apart by more than one space or tab ("反转  Linked  List  II").
_MIXED_HEAD = re.compile(r"^\s*(?:(?P<han1>[\u4e00-\u9fff]{2,})\s*(?P<en1>[A-Za-z]+(?:[ \t\-]+[A-Za-z]+)*)|"
                         r"(?P<en2>[A-Za-z]+(?:[ \t\-]+[A-Za-z]+)*)\s*(?P<han2>[\u4e00-\u9fff]{2,}))")
# Together the two parts say at least this much of the title (shares of the Chinese title's characters and of the
# English title's words): "反转 Linked List" 2/4 + 2/3, "Reverse 链表" 1/3 + 2/4, "二叉树 Maximum Depth" 3/7 + 2/4;
# one word beside a common piece ("Merge 链表": 1/4 + 2/7 of 21) says too little to tell which problem it is.
MIXED_SHARE = 0.8


@dataclass(frozen=True)
class MixedTitle:
    """One problem's two titles as the mixed-language rule compares them."""

    zh: str  # Chinese title, fillers set aside (`title_units` order kept)
    en: tuple[str, ...]  # English title's word stems, small words set aside
    # The Chinese part may sit inside the title, not only at an edge: for a problem the base lacks, which the rule
    # only reports missing ("最小 Depth of Binary Tree": 最小 inside 二叉树最小深度) — the safe way to be wrong.
    inside: bool = False


def mixed_title(title_zh: str, title_en: str, *, inside: bool = False) -> MixedTitle | None:
    """A problem's titles for `mixed_problems`; None when it lacks one of them."""
    zh = "".join(ch for ch in title_zh.casefold() if _HAN.match(ch) and ch not in _ZH_FILLERS)
    en = tuple(_stem(w) for w in _WORD.findall(title_en.casefold()) if w not in _EN_FILLERS)
    return MixedTitle(zh, en, inside) if zh and en else None


def _contiguous(part: tuple[str, ...], words: tuple[str, ...]) -> bool:
    return any(words[i:i + len(part)] == part for i in range(len(words) - len(part) + 1))


def mixed_matches(han: str, en_words: tuple[str, ...], title: MixedTitle) -> bool:
    """The Chinese part opens or ends the Chinese title (Chinese has no spaces to tell its words apart: an edge is
    where one starts or ends) and the English words are a piece of the English title, neither the whole of its title
    (a whole title is read by the title rules), and together they say enough of it."""
    han = "".join(ch for ch in han if ch not in _ZH_FILLERS)
    placed = title.zh.startswith(han) or title.zh.endswith(han) or (title.inside and han in title.zh)
    if not han or not en_words or not placed or not _contiguous(en_words, title.en):
        return False
    if han == title.zh or en_words == title.en:
        return False
    return len(han) / len(title.zh) + len(en_words) / len(title.en) >= MIXED_SHARE


def mixed_head(opening: str) -> tuple[str, str, str, int] | None:
    """(Chinese part, English part, the phrase as written, where it ends) for an opening in two scripts; None else."""
    m = _MIXED_HEAD.match(opening)
    if m is None:
        return None
    han, en = (m.group("han1"), m.group("en1")) if m.group("han1") else (m.group("han2"), m.group("en2"))
    return han, en, m.group(0).strip(), m.end()


def mixed_problems(han: str, en: str, titles: Mapping[str, MixedTitle]) -> tuple[set[str], int]:
    """The keys of `titles` whose two titles the parts say (`mixed_matches`), and how many of the English words as
    written they took: the most that match, since the English run may run on into the student's own words ("反转
    Linked List TLE")."""
    written = [w.casefold() for w in re.findall(r"[A-Za-z]+", en)]
    # More words than the longest English title holds match no piece of it: a pasted paragraph is not tried word
    # by word against every title (that was quadratic in its length).
    longest = max((len(title.en) for title in titles.values()), default=0)
    stems: list[str] = []
    counted: list[int] = []  # stems[:counted[n - 1]] are the stems of written[:n]
    for w in written:
        if w not in _EN_FILLERS:
            stems.append(_stem(w))
        counted.append(len(stems))
    for n in range(len(written), 0, -1):
        if not 0 < counted[n - 1] <= longest or (n < len(written) and counted[n] == counted[n - 1]):
            continue  # no word, too many, or the same words as one more (a small word after them), already tried
        words = tuple(stems[:counted[n - 1]])
        found = {key for key, title in titles.items() if mixed_matches(han, words, title)}
        if found:
            return found, n
    return set(), 0
