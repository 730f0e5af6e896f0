"""Where a question names a problem by its title alone, with no judge's name and no marker.

Students often open with the problem's title and then ask ("回文数 负数为什么返回 false", "合并K个升序链表
超时", "Rotate Array in-place gives wrong answer"), put it in quotes or brackets ("「回文数」", "[Rotate
Array]"), refer to it ("X这道题", "做X的时候", "the X problem"), paste its slug ("rotate-array") or the
URL of its page on any judge. `title_shapes` finds these phrases by their shape only; whether one is a
problem the base lacks, a base problem or a topic ("二分查找 边界总是差一", "Java Scanner too slow") is
decided by `quest.resolution` against the base's titles and the words of its general documents
(`quest.topic_words`).
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

from quest.leading_ids import ZH_CLASSIFIERS
from quest.problem_names import (
    _EN_STOP,
    _GENERIC,
    _NOT_TITLE_WORDS,
    _SEQUEL,
    _ZH_SENTENCE_START,
    _ZH_STOP,
    CONTEST_NAME,
    HEADLINE_WORDS,
    JUDGES,
    KIND_OF_PROBLEM,
    LEAD_IN_WORDS,
    VERDICT_WORDS,
    ZH_CLAUSE,
    ZH_LEAD_IN_PREFIX,
    ZH_STUDY_PREFIX,
)
from quest.question_clauses import ends_like_a_clause
from quest.retrieval.tokenize import to_simplified
from quest.topic_words import _words


@dataclass(frozen=True)
class Shape:
    text: str  # the title as the student wrote it
    how: str  # "url", "slug", "reference", "quoted", "doing", "head", "colon" (a head before a colon), "call" or
    # "studied" (a head after "复习", "研究一下": a base title, or a topic, never a problem the base lacks)

    @property
    def marked(self) -> bool:
        """"X这道题", "the X problem", a slug or a URL say a problem is meant. Quotes also set off terms
        (“空指针”), "做X的时候" also a task ("做初始化的时候"), and a head is only where titles often are."""
        return self.how in ("url", "slug", "reference", "colon", "call")

    @property
    def bounded(self) -> bool:
        """Both ends of the title are known (not the start of a longer phrase)."""
        return self.how not in ("head", "studied")


def title_shapes(question: str) -> list[Shape]:
    """Title-like phrases in `question`, the most explicit shapes first."""
    written = unicodedata.normalize("NFKC", question)[:600]
    # The stop words are simplified Chinese: read traditional text ("這道簽到題…嗎") in simplified form, and
    # give each title back as written where the conversion kept every position.
    text = to_simplified(written)
    found = [*_urls(text), *_quoted(text), *_bilingual(text), *_references(text), *_slugs(text), *_heads(text),
             *_mid_titles(text)]
    # A contest opening a phrase ("Round 900 Div", "Weekly Contest 380") is no title: `quest.judge_problems` reads it.
    return [_as_written(s, text, written) for s in dict.fromkeys(found) if s.text and not CONTEST_NAME.match(s.text)]


def _as_written(shape: Shape, text: str, written: str) -> Shape:
    at = text.find(shape.text)
    if text == written or len(text) != len(written) or at < 0:
        return shape
    return Shape(written[at:at + len(shape.text)], shape.how)


# --------------------------------------------------------------------------- URLs and slugs

# A problem page on any judge: ".../problems/<slug>", "/problem/P1001", "/contest/1899/problem/D",
# "/tasks/abc300_g", "/challenges/<slug>/problem", "showproblem.php?pid=…".
_URL = re.compile(r"(?:https?://)?((?:[a-z0-9-]+\.)+[a-z]{2,})(/[^\s，。)）\]】>\"']*)", re.I)
_PROBLEM_PATH = re.compile(r"/(?:problems?|problemset|p|tasks?|challenges|contests?|question|practice)\b|problem\.php",
                           re.I)


def _urls(text: str) -> list[Shape]:
    shapes = []
    for m in _URL.finditer(text):
        host, path = m.group(1).lower(), m.group(2).rstrip("/.,;:!?")
        if _PROBLEM_PATH.search(path):
            host = host.removeprefix("www.")
            shapes.append(Shape(f"{host}{path}"[:100], "url"))
    return shapes


# "rotate-array", "merge-k-sorted-lists": lowercase words joined by hyphens, as judges write them in URLs.
_SLUG_WORD = re.compile(r"(?<![\w/.#-])([a-z][a-z0-9]*(?:-[a-z0-9]+){1,9})(?![\w/-])")


def _slugs(text: str) -> list[Shape]:
    shapes = []
    for m in _SLUG_WORD.finditer(text):
        parts = m.group(1).split("-")
        leading = not text[:m.start()].strip(" \t[【(（\"'“")
        # One hyphen is mostly an English compound ("in-place", "top-down"): only a leading one counts.
        if (len(parts) >= 3 or leading) and sum(len(p) >= 3 for p in parts) >= 2:
            shapes.append(Shape(m.group(1), "slug"))
    return shapes


# --------------------------------------------------------------------------- quotes and references

_QUOTES = re.compile(r"“([^”\n]{2,60})”|「([^」\n]{2,60})」|『([^』\n]{2,60})』|【([^】\n]{2,60})】|"
                     r"\[([^\]\n]{2,60})\]|"
                     r"\"([^\"\n]{2,60})\"|(?<![A-Za-z])'([^'\n]{2,60})'(?![A-Za-z])|‘([^’\n]{2,60})’")
# What a quoted title cannot hold: code, messages, sentences.
_NOT_IN_TITLE = re.compile(r"[=;{}<>:：?？!！，,。|\\$%*/]|\(\s*\)|\[\s*\]|\bO\(")


def _quoted(text: str) -> list[Shape]:
    shapes = []
    for m in _QUOTES.finditer(text):
        inner = next(g for g in m.groups() if g is not None).strip()
        if not _NOT_IN_TITLE.search(inner) and (_han_title(inner) or _title_case(inner.split())):
            shapes.append(Shape(inner, "quoted"))
    return shapes


# Round 10: a title with its translation in brackets, either way round ("Jump Game（跳跃游戏）我先写…", "跳跃游戏 (Jump
# Game) 为什么…"): the student names a problem in both languages. The English name is the shape.
_EN_THEN_ZH = re.compile(r"(?<![\w'])([A-Z][\w'+-]*(?:[ \t]+[\w'+-]+){1,7})[ \t]*\([ \t]*[\u4e00-\u9fff]{2,20}[ \t]*\)")
_ZH_THEN_EN = re.compile(r"[\u4e00-\u9fff]{2,20}[ \t]*\([ \t]*([A-Z][\w'+-]*(?:[ \t]+[\w'+-]+){1,7})[ \t]*\)")


def _bilingual(text: str) -> list[Shape]:
    shapes = []
    for pattern in (_EN_THEN_ZH, _ZH_THEN_EN):
        for m in pattern.finditer(text):
            words = m.group(1).split()
            if _title_case(words) and not _lead_word(words[0]):
                shapes.append(Shape(" ".join(words), "reference"))
    return shapes


_HAN = re.compile(r"[\u4e00-\u9fff]")
# "X这道题" / "X这题" / "X那道题": X is the run of characters just before (after a verb like 做, 写, 刷, 关于).
_ZH_REFERENCE = re.compile(r"([\u4e00-\u9fffA-Za-z0-9]{2,24}(?:\s?(?:II|III|IV|Ⅱ|Ⅲ|[2-9]))?)\s*"
                           r"(?:这道题|这一题|这个题|这题|那道题|这道|这个问题)")
_ZH_DOING = re.compile(r"(?:做|写|刷|交)(?![法题])([\u4e00-\u9fffA-Za-z0-9]{2,24}?(?:\s?(?:II|III|IV|Ⅱ|Ⅲ|[2-9]))?)\s*"
                       r"(?:的时候|时候|(?<!超)时|的时)")
_ZH_LEAD_IN = re.compile(r"^.*(?:做|写|刷|关于|对于|请问|求助|请教|问一下|一下|在|看|交|卡在|卡)")
_EN_REFERENCE = re.compile(r"(?<![A-Za-z])(?:the|on|solving|doing|for)\s+((?:[A-Za-z0-9][\w'+-]*\s+){1,7}?)"
                           r"(?:problem|question|task|challenge|exercise)\b", re.I)
_EN_REFERENCE_STOP = frozenset(("same", "following", "above", "below", "next", "previous", "last", "first", "this",
                                "that", "original", "whole", "entire", "given", "classic", "famous", "other",
                                "similar", "actual", "real", "interview", "practice", "sample", "example", "my",
                                "your", "their", "our", "his", "her", "any", "every", "each", "one", "easy",
                                "hard", "medium", "daily", "leetcode", "lc", "online", "judge"))


def _references(text: str) -> list[Shape]:
    shapes = []
    for pattern, how in ((_ZH_REFERENCE, "reference"), (_ZH_DOING, "doing")):
        for m in pattern.finditer(text):
            name = _ZH_LEAD_IN.sub("", m.group(1)) if pattern is _ZH_REFERENCE else m.group(1)
            if _han_title(name):
                shapes.append(Shape(name, how))
    for m in _EN_REFERENCE.finditer(text):
        words = m.group(1).split()
        if not any(w.casefold() in _EN_REFERENCE_STOP or w.casefold() in _EN_STOP or "_" in w for w in words):
            # "the Rotate Array problem" names one; "the float comparison problem" may be a topic.
            shapes.append(Shape(" ".join(words), "reference" if _title_case(words) else "doing"))
    return shapes


# --------------------------------------------------------------------------- a title at the head

# A Chinese title glued to the rest only ends at a word about judging ("合并K个升序链表超时"); before
# "为什么" or "怎么" a glued head is as often a topic or a whole sentence ("后缀自动机怎么构造").
JUDGE_STOP = re.compile(r"超时|超出|报错|错误|出错|提交|通过|过不了|没过|运行|题解|解法|思路|做法|代码|这道|这题|样例|"
                         r"输出|答案|的时候|时候")
_ZH_HEAD = re.compile(r"^\s*([\u4e00-\u9fffA-Za-z0-9]{2,24})(\s?(?:II|III|IV|Ⅱ|Ⅲ|ii|iii|iv))?"
                      r"(?=$|[\s,，.。:：?？!！;；、(（])")
_EN_WORD = re.compile(r"\s*([A-Za-z0-9][A-Za-z0-9'+#]*(?:-[A-Za-z0-9]+)*)")
_CONNECTORS = frozenset(("of", "in", "to", "with", "a", "an", "the", "and", "for", "from", "by", "on", "at", "k"))


# What a forum post puts before its title: a tag ("【求助】", "[C++]") or a plea ("求助：", "请问").
_ZH_PLEA = re.compile(r"^\s*(?:(?:萌新|新手|小白|新人|菜鸟|蒟蒻)?(?:求助|提问|请教|求问)|请问|问一下|大家好|"
                      r"各位大佬|大佬们?)\s*[:：,，!！]?\s*")


# The language the student wrote in, said in Chinese before the title ("Python 写的 Jump Game …", "用 C++ 实现的…").
_ZH_IN_LANGUAGE = re.compile(r"^\s*用?\s*(?:python3?|java|c\+\+|cpp|c|go|golang|rust|javascript|js|typescript|ts|c#|"
                             r"kotlin|swift)\s*(?:写的|写了|写|版本?的?|实现的?)\s*[:：,，]?\s*", re.I)


# A kind of problem opening the question ("签到题 <title> …", "水题："): a label before the title, like a tag.
_KIND_LABEL = re.compile(r"^\s*(?:[\u4e00-\u9fff]{1,2}|[A-Za-z]{1,4})[题題]\s*[:：,，]?\s*")


# "Pow(x, n) written as …", "Sqrt(x): …": a title written like a call, capitalized, with one-letter arguments.
_CALL_TITLE = re.compile(r"^\s*([A-Z][a-z]{1,15}\(\s*[a-z](?:\s*,\s*[a-z])*\s*\))(?=\s|[:：,，]|$)")
# How a Chinese topic (not a problem) ends even before a colon ("二维数组的初始化：…").
_ZH_TOPIC_HEAD_END = re.compile(r"(?:判断|遍历|排序|写法|模板|技巧|原理|区别|优化|证明|理解|算法|方法|用法|函数|"
                                r"语法|思路|初始化|定义|声明|使用|问题|报错|错误|异常|溢出|越界|比较|转换|入门|基础|"
                                r"详解|总结|教程|笔记|套路|方式|传递|存储|进制)$")
# Two things set side by side ("全局数组和局部数组：…", "链表的插入和删除：…") are compared, not a title.
_ZH_SIDE_BY_SIDE = re.compile(r"[和与及跟]|以及|还是")
# A student's own helper written capitalized ("Max(a, b) is wrong"), not a title.
_HELPER_CALLS = frozenset(("max", "min", "abs", "sum", "gcd", "lcm", "len", "swap", "sort", "print", "main", "solve",
                           "dfs", "bfs", "find", "check", "f", "g"))


def opening(text: str) -> str:
    """`text` from where its first phrase begins: after a tag ("【求助】"), a plea ("萌新求助："), a kind of
    problem ("签到题"), the language it was written in ("Python 写的") and a list number ("No. 11")."""
    text = _KIND_LABEL.sub("", _ZH_PLEA.sub("", _TAG.sub("", text, count=1), count=1), count=1)
    text = _ZH_IN_LANGUAGE.sub("", text, count=1)
    label = _NUMBER_LABEL.match(text)
    # "1000 以内的质数", "10 个数": a quantity (`quest.leading_ids`), not a label.
    return (text[label.end():] if label and text[label.end()] not in ZH_CLASSIFIERS else text).lstrip()


# A problem list's number before a Chinese title ("No. 11 盛水最多的容器", "11. …", "#11 …"): a label, like a tag.
_NUMBER_LABEL = re.compile(r"^\s*(?:No\.?\s*|#)?\d{1,5}\s*[.、．:：]?\s*(?=[\u4e00-\u9fff])", re.I)


def _heads(text: str) -> list[Shape]:
    text = _without_lead_in(opening(text))
    studied = _without_lead_in(text, ZH_STUDY_PREFIX)
    if studied != text:  # "复习动态规划 …", "研究一下单调栈 …": what is studied may be a base problem, or a topic
        return [Shape(s.text, "studied") for s in _heads(studied)]
    call = _CALL_TITLE.match(text)
    if call and call.group(1).split("(")[0].casefold() not in _HELPER_CALLS:
        return [Shape(call.group(1), "call")]
    if not _HAN.match(text.lstrip()[:1]) and not _LATIN_LED_HAN.match(text):
        head = _en_head(text)
        return [Shape(head, "head")] if head else []
    head = None if _ASKS_WHAT_IT_MEANS.search(re.split(r"[，。？！,?!\n]", text, maxsplit=1)[0]) else _zh_head(text)
    if not head:  # "陣列索引超出範圍是什麼意思": a term the student asks about, not a title
        return []
    after = text.lstrip()[len(head):].lstrip()
    return [Shape(head, "colon" if after[:1] in (":", "：") and _phrase_title(head) else "head")]


# A Chinese title may open with a letter or a digit glued to it: "K个一组翻转链表", "N叉树的最大深度", "2的幂".
_LATIN_LED_HAN = re.compile(r"^\s*[A-Za-z0-9](?=[\u4e00-\u9fff])")
_ASKS_WHAT_IT_MEANS = re.compile(r"什么意思|啥意思|是什么|是啥|指的是")


def _phrase_title(head: str) -> bool:
    """A Chinese head before a colon that reads as a problem's title ("数组中重复的数字：…"): a phrase of three
    words or more that does not end like a topic; two words are as often a topic ("字符串拼接：…")."""
    return len(_words(head)) >= 3 and not _ZH_TOPIC_HEAD_END.search(head) and not _ZH_SIDE_BY_SIDE.search(head)


def _zh_head(text: str) -> str | None:
    m = _ZH_HEAD.match(text)
    if m:
        head = m.group(1) + (f" {m.group(2).strip()}" if m.group(2) else "")
    else:  # glued to the rest: cut at a word about judging
        run = re.match(r"^\s*([\u4e00-\u9fffA-Za-z0-9]{3,30})", text)
        stop = JUDGE_STOP.search(run.group(1)) if run else None
        head = run.group(1)[:stop.start()] if run and stop else ""
    cut = _ZH_STOP.search(head)
    if cut and cut.start() > 0:  # "回文数为什么" within a spaced head: only the part before
        tail = head[cut.start():]
        if JUDGE_STOP.match(tail) is None:
            return None
        head = head[:cut.start()]
    return head if _han_title(head) else None


def _without_lead_in(text: str, prefix: re.Pattern[str] = ZH_LEAD_IN_PREFIX) -> str:
    """"练习跳跃游戏，…" -> "跳跃游戏，…", "在力扣上刷了跳跃游戏" -> "跳跃游戏": the question from its title on, without
    when and what the student does with it (`quest.problem_names.ZH_LEAD_IN`). One character ("做", "写") already
    opens a sentence, and "做X的时候" is its own shape."""
    lead = prefix.match(text)
    if not lead or len(lead.group(0).strip()) < 2 or not _HAN.match(text[lead.end():lead.end() + 1]):
        return text
    return text[lead.end():]


def _en_head(text: str) -> str | None:
    """A Title Case run that opens the question ("Rotate Array in-place …", "Median of Two Sorted Arrays
    O(log n)?"), after a leading language or judge name ("Python Rotate Array TLE")."""
    words: list[str] = []
    pending: list[str] = []
    rest = _TAG.sub("", text, count=1)  # "[Python] Merge k Sorted Lists …": the language tag goes first
    while len(words) < 10:
        m = _EN_WORD.match(rest)
        if not m or rest[m.end():m.end() + 1] == "(" or _MEMBER.match(rest, m.end()):
            break  # "O(log n)", "max(", "Integer.MIN_VALUE": code, not a title word
        word, rest = m.group(1), rest[m.end():]
        if not words and (word[:1].isupper() or word[:1].isdigit()) and _lead_word(word):
            continue  # "Python Rotate Array …", "LeetCode …": not part of the title
        if word.casefold() in _EN_STOP:  # "… TLE", "… Why": the title has ended
            break
        if word.casefold() in _CONNECTORS and not word[:1].isupper() and words:
            pending.append(word)
        elif word[:1].isupper() or word[:1].isdigit():
            words += [*pending, word]
            pending = []
        else:
            break
    return " ".join(words) if _title_case(words) else None


_TAG = re.compile(r"^\s*(?:\[[^\]\n]{1,15}\]|【[^】\n]{1,15}】)\s*")
# A word followed by a dot and a name ("Integer.MIN_VALUE", "System.out", "Math.max"): a member access, code.
_MEMBER = re.compile(r"\.[A-Za-z_]")


# "I'm stuck on Rotate Array, …", "TLE for Merge k Sorted Lists with a heap", "my Move Zeroes solution", "my
# answer to Valid Anagram": a Title Case name inside the sentence, after a word that introduces what the student
# works on.
_MID = re.compile(r"(?<![A-Za-z])(?:on|for|solving|doing|attempting|trying|about|my|implementing|tackling|coding|"
                  r"regarding|practicing|"
                  r"(?:solution|answer|approach)\s+to)\s+"
                  r"([A-Z0-9][\w'+]*(?:-[\w'+]+)*(?:\s+(?:of|in|to|with|a|an|the|and|for|from|by|k|"
                  r"[A-Z0-9][\w'+]*(?:-[\w'+]+)*)){1,8})")


_LANGUAGES = frozenset("python python3 java javascript js typescript ts c c++ cpp go golang rust kotlin swift "
                       "c# ruby php scala".split())


def _mid_titles(text: str) -> list[Shape]:
    shapes = []
    for m in _MID.finditer(text):
        if text[m.end(1):m.end(1) + 1] == "(":  # "O(n)", "Math.max(": code
            continue
        words = m.group(1).split()
        if _MEMBER.match(text, m.end(1)):  # "… with Integer.MIN_VALUE": the last word is code, the title ends before it
            words = words[:-1]
        language = next((i for i, w in enumerate(words) if i and w.casefold() in _LANGUAGES), None)
        if language is not None:  # "Move Zeroes in Java": the title ends before the language it was written in
            words = words[:language]
        while words and words[-1].casefold() in _CONNECTORS and not words[-1][:1].isupper():
            words.pop()
        if words and not _lead_word(words[0]) and _title_case(words):
            shapes.append(Shape(" ".join(words), "doing"))
    return shapes


def _lead_word(word: str) -> bool:
    folded = word.casefold()
    return folded in _NOT_TITLE_WORDS or folded in LEAD_IN_WORDS or re.fullmatch(JUDGES, folded) is not None or \
        folded in ("re", "help")


def _title_case(words: list[str]) -> bool:
    """Two or more words, each capitalized (connectors aside), none a question word or a verdict."""
    content = [w for w in words if w.casefold() not in _CONNECTORS or w[:1].isupper()]
    # A technique's acronym ("DFS Visits Node Twice", "Dp Table …") opens a topic, not a title.
    if len(content) < 2 or any(w.casefold() in _EN_STOP or w.casefold() in HEADLINE_WORDS for w in words) or \
            content[0].casefold() in VERDICT_WORDS:
        return False
    if any(_MEASURE.fullmatch(w) for w in content):  # "Building a 32-bit value …": a size, not a title word
        return False
    return all(w[:1].isupper() or w[:1].isdigit() for w in content) and not all(w.isdigit() for w in content)


# A number with a unit or an ordinal in lowercase ("32-bit", "64bit", "0-indexed", "1st", "2d"): a measure. Titles
# write their numbers bare or capitalized ("24 Game", "3Sum", "Range Sum Query 2D").
_MEASURE = re.compile(r"\d+-?(?:bits?|bytes?|st|nd|rd|th|d|x|k|ms|based|indexed|digits?|way|sized?)")


def _han_title(name: str) -> bool:
    """A Chinese title: 3–24 characters, mostly Han, not starting like a sentence, not a bare technique."""
    squashed = re.sub(r"\s+", "", name)
    han = len(_HAN.findall(squashed))
    if han < 2 or (len(squashed) < 3 and not _SEQUEL.search(squashed.casefold())) or len(squashed) > 24:
        return False
    if _opens_a_sentence(squashed) or squashed in _GENERIC or _ZH_NOT_TITLE.search(squashed) or \
            KIND_OF_PROBLEM.match(squashed) or ZH_CLAUSE.search(squashed) or ends_like_a_clause(squashed):
        return False
    if re.sub(rf"^(?:{JUDGES})", "", squashed, flags=re.I) in _GENERIC:  # "洛谷月赛", "力扣周赛": a judge's contest
        return False
    return _ZH_STOP.search(squashed) is None


# 有 opens a sentence ("有个数组…"), but 有效 / 有序 / 有向 are adjectives that open many titles ("有效的字母异位词",
# "有序数组的平方", "有向图中的环"); so does 对称 ("对称二叉树"), though 对 alone opens a sentence ("对这个数组…").
_ZH_ADJECTIVE_START = re.compile(r"有效|有序|有向|有限|对称")
# A sentence opening on when it happened ("今天做二分查找，…", "最近刷题…", "刚学C语言，…"): a clause, never a title.
_ZH_WHEN = re.compile(r"今天|昨天|前天|最近|刚才|刚刚|刚|之前|以前|前几天|这几天|早上|晚上|上午|下午")


def _opens_a_sentence(squashed: str) -> bool:
    """A pronoun, verb or adverb that opens sentences ("我…", "用…", "有个…"), or when it happened."""
    return (squashed[0] in _ZH_SENTENCE_START and not _ZH_ADJECTIVE_START.match(squashed)) or \
        _ZH_WHEN.match(squashed) is not None
# A question, not a title: "…的时间复杂度是多少", "…是什么", "…吗".
_ZH_NOT_TITLE = re.compile(r"是多少|是什么|是否|是不是|复杂度|[吗呢么嘛啥]$")
