"""Problems of other judges and collections, named the way students name them.

The starter base holds LeetCode-numbered problems. A question about another judge's problem names it
by that judge's own scheme, and none of them is a base problem:

- a numbered contest and the problem's letter or title: "Codeforces Round 900 problem C",
  "Codeforces Round #912 (Div. 2) B", "AtCoder ABC 300 G", "AtCoder DP contest Knapsack 1";
- a problem code: "SPOJ TEST", "SPOJ PRIME1", "CodeChef FLOW001";
- a numbered problem of a book's collection: "剑指 Offer 17", "剑指Offer II 001", "面试题 17.10"
  (LeetCode hosts them with their own numbers, not the main problem numbers);
- a PTA or PAT problem by its set and number: "PTA 7-1", "PAT 甲级 1003", "天梯赛 L1-002", "L2-004";
- a ZeroJudge problem by its letter and number: "ZeroJudge a001", "zj d074";
- any other judge's problem referred to by a word for "problem" and its title: "ZeroJudge 那題括號配對",
  "洛谷上那道题 滑雪", "Codeforces problem called Watermelon" (round 11).

`judge_problem` returns that name as written (the planner reports it as not in the knowledge base). A
judge's name alone names no problem ("codeforces: I read n into a long long …" may be any problem or
none), and neither does a class of contests' problems without a contest ("Codeforces Div2 C 思路").
"""

from __future__ import annotations

import re
import unicodedata

from quest.problem_names import _ZH_STOP, STATEMENT_PARTS, VERDICT_WORDS, ZH_GOES_ON, _is_title
from quest.retrieval.tokenize import to_simplified
from quest.retrieval.topic import without_verdicts

_JUDGE = (r"spoj|atcoder|codeforces|cf|codechef|hackerrank|kattis|cses|dmoj|poj|hdu|zoj|uva|usaco|topcoder|"
          r"洛谷|luogu|acwing|牛客网?|nowcoder|计蒜客|計蒜客")
# A contest that has a number (or a name of its own): a class such as "Div. 2" alone is no contest.
_ROUND = r"(?:educational\s+(?:codeforces\s+)?)?round\s*#?\s*\d+(?:\s*\(?\s*div\.?\s*[1-4]\s*\)?)?"
_ATCODER = r"(?:abc|arc|agc|ahc)\s*\d{2,4}"  # AtCoder's own contest names: no judge's name needed
_NAMED = r"(?:beginner|regular|grand|heuristic)\s+contest\s*\d+|(?:educational\s+)?dp\s+contest"
# The problem inside the contest: a letter ("C", "problem C", "C题", "的 C 题") or a Title Case title.
_LETTER = r"(?:(?:的|上的)\s*)?(?:problem|task)?\s*[:：\-]?\s*(?-i:[A-H])[1-3]?(?:\s*[题題](?!解))?(?![A-Za-z0-9])"
_TITLE = r"[:：\-]?\s*(?-i:[A-Z][A-Za-z0-9']*(?:\s+(?:[A-Z0-9][A-Za-z0-9']*|of|the|and|in|a))*)"
_SEPARATOR = r"\s*(?:上的?|的)?\s*[:：]?\s*"
# A round's or an AtCoder contest's problems are letters; the DP contest's have titles ("Knapsack 1").
_IN_CONTEST = re.compile(rf"(?<![A-Za-z0-9])(?:(?:{_JUDGE}){_SEPARATOR}(?:{_ROUND}|{_ATCODER})|{_ATCODER})\s*{_LETTER}|"
                         rf"(?<![A-Za-z0-9])(?:(?:{_JUDGE}){_SEPARATOR})?(?:{_NAMED})\s*{_TITLE}", re.I)
# A Chinese contest and its problem: "洛谷入门赛 #13 的 T8 演唱会", "力扣周赛 380 第三题", "第 380 场周赛 Q3".
# LeetCode's contests too: their problems are not the base's numbered ones.
# The contest needs its number: "力扣 周赛 第三题" alone does not say which problem.
_ZH_CONTEST = (r"(?:(?:第\s*)?\d+\s*场\s*(?:双周赛|周赛|入门赛|月赛|模拟赛|网络赛)|"
               r"(?:双周赛|周赛|入门赛|月赛|模拟赛|网络赛|省赛|校赛|新生赛)\s*(?:第\s*)?#?\s*\d+\s*(?:场|期|届)?)")
_ZH_PROBLEM = r"(?:的\s*)?(?:T\d{1,2}|Q\d|[A-H]\s*题|第\s*(?:\d+|[一二三四五六七八九十]{1,3})\s*题)"
_IN_ZH_CONTEST = re.compile(rf"(?:(?:{_JUDGE}|leetcode|lc|力扣|领扣)\s*)?{_ZH_CONTEST}\s*{_ZH_PROBLEM}"
                            r"(?:\s?[\u4e00-\u9fff]{2,12})?", re.I)
_CODE_JUDGE = re.compile(r"(?<![A-Za-z0-9])(?i:spoj|codechef)\s*[:：]?\s*([A-Z][A-Z0-9_]{2,11})(?![A-Za-z0-9])")
_COLLECTION = re.compile(r"剑指\s*offer\s*(?:ii\s*)?(?:专项突破版\s*)?\d{1,3}(?:\s*-\s*(?:i{1,3}|[1-3]))?|"
                         r"面试题\s*\d{1,2}(?:\.\d{1,2})?", re.I)

# PTA (pintia) and its exams name problems by set and number: "PTA 7-1", "PTA L1-002", "PAT 甲级 1003",
# "PAT (Basic Level) 1001", "PAT A1025", "天梯赛 L2-004"; a 天梯赛 code ("L1-027") is one on its own.
_PTA = re.compile(r"(?<![A-Za-z0-9])(?:(?:pta|pat|拼题a|团体程序设计天梯赛|天梯赛)\s*(?:[-:：]\s*)?"
                  r"(?:(?:甲级|乙级|顶级|\(?\s*(?:advanced|basic|top)\s+level\s*\)?(?:\s*practice)?)\s*)?"
                  r"(?:[ABT]\s*\d{4}|[LT][1-3]\s*-\s*\d{1,3}|\d{1,2}\s*-\s*\d{1,3}|\d{4})|"
                  r"(?-i:L[1-3]-\d{3}))(?![\w-])", re.I)

# ZeroJudge (Taiwan) names its problems by a letter and three digits: "ZeroJudge a001", "zj d074". Taiwan's APCS
# exam publishes its past problems there under those ids, and students name them after the exam: "APCS 的 m371".
_ZEROJUDGE = re.compile(r"(?<![A-Za-z0-9])(?:zerojudge|zj|apcs)\s*(?:上的?|的)?\s*[:：#]?\s*[a-q]\d{3}(?![A-Za-z0-9])",
                        re.I)


# Another judge's problem referred to by a word for "problem" and its title: "ZeroJudge 那題括號配對", "洛谷上那道
# 题 滑雪", "Codeforces problem called Watermelon". The judge's name alone still names none; the reference word
# says one problem of that judge is meant, and its title follows. In Chinese the word needs a demonstrative before
# it (那题, 这道题) or a naming word or quote after it (题目叫, 题目是, 题目：「): "洛谷的题目描述看不懂" and
# "codeforces 的题都很难" speak of the judge's problems in general, and their next words are no title.
_OTHER_JUDGES = rf"{_JUDGE}|zerojudge|zj|uoj|loj|vijos|openjudge|bzoj"
# Every space run is possessive (`\s*+`): the optional words between them cannot share a blank run, and plain `\s*`
# next to `\s*` tried every split of a long pasted run of blanks (seconds per request).
_ZH_PLACE = r"(?:上面?|里面?|的)?\s*+"
# 题目 but not 题 + 目前 ("那道题目前还没人过": the sentence goes on with 目前).
_ZH_WORD = r"(?:[题題](?:目(?!前))?)"
_ZH_THIS = rf"(?:那|这|這|一)\s*+[道个個]?\s*+{_ZH_WORD}\s*+(?:是|叫做?|名为|名為)?"
_ZH_NAMED = rf"{_ZH_WORD}\s*+(?:是|叫做?|名为|名為|[:：「『“《])"
_REFERENCED = re.compile(
    rf"(?<![A-Za-z0-9])(?P<zh>{_OTHER_JUDGES})(?![A-Za-z0-9])\s*+{_ZH_PLACE}(?:{_ZH_THIS}|{_ZH_NAMED})"
    r"\s*+[:：「『“《]?\s*+(?P<zh_title>[\u4e00-\u9fff]{2,12})|"
    rf"(?<![A-Za-z0-9])(?P<en>{_OTHER_JUDGES})(?![A-Za-z0-9])['’]?s?\s++(?:problem|task)\s++(?:called|named|titled)?\s*+"
    r"[\"“']?(?P<en_title>(?-i:[A-Z][A-Za-z0-9']*+(?:\s++(?:[A-Z0-9][A-Za-z0-9']*+|(?:of|the|and|in|a)(?![A-Za-z0-9'])))*+))",
    re.I)
# Words a Chinese sentence goes on with after "题目" that are no title: adverbs, pronouns (and the statement's parts,
# `STATEMENT_PARTS`: "题目描述看不懂"). 没有 opens a title only as a modifier of a noun ("没有上司的舞会").
_ZH_NOT_TITLE = re.compile(r"^(?:的|都|也|很|太|就|还|還|又|真的|好(?:像|难|難)|不(?:会|會|懂|知道|太|是|能)|"
                           r"[没沒](?!有[\u4e00-\u9fff]{1,8}的)|我|你|他|她|它)")
# Words an English sentence goes on with after "problem": a pronoun, an article, a question or an auxiliary verb
# ("Codeforces problem My solution fails", "Codeforces problem Is it greedy?"), never a title's first word when the
# sentence goes on in lower case. Titles in Title Case may open with some of them ("Is It Rated", "Do Not Be
# Distracted", "Help Far Away Kingdom"), so a longer title is refused only by the words about the student
# (`_EN_ABOUT_ME`).
_EN_NOT_TITLE = re.compile(r"^(?:I|I'm|I've|My|Me|We|Our|You|Your|It|It's|Its|This|That|These|Those|"
                           r"Why|How|What|When|Where|Which|Who|Is|Are|Was|Were|Can|Could|Does|Do|Did|Should|Would|"
                           r"Will|Help|Please|Any|Anyone|Some|Got|Gets?|Keeps?|Says?)\b")
_EN_ABOUT_ME = re.compile(r"^(?:I|I'm|I've|My|Me|We|Our|Why|How|Please|Anyone)\b")
# "那道题是动态规划吗": a yes-or-no question of what the problem is, not its name.
_IS_IT = re.compile(r"是\s*+[:：「『“《]?\s*+$")
_ASKS_IF = re.compile(r"^\s*+(?:吗|嗎|么|麼|嘛|不是|还是|還是)")


def _referenced(text: str) -> str | None:
    """The judge and the title after its reference word: "ZeroJudge 那題括號配對" -> "ZeroJudge 括號配對"."""
    m = _REFERENCED.search(text)
    if m is None:
        return None
    chinese = m.group("zh_title") is not None
    written = m.group("zh_title") or m.group("en_title") or ""
    title = _before_sentence(written)
    after = text[m.start("zh_title" if chinese else "en_title"):]
    if len(title) < 2 or title.casefold() in VERDICT_WORDS or without_verdicts(after)[:1].isspace():
        return None  # "Codeforces problem Wrong answer on test 3": what the judge said, not the problem's name
    if chinese and (_ZH_NOT_TITLE.match(title) or ZH_GOES_ON.match(to_simplified(title)) or STATEMENT_PARTS.match(title)
                    or not _is_title(to_simplified(title))):
        return None  # "codeforces 的题都很难", "那道题数据很大", "那道题是动态规划吗": the sentence goes on
    start = m.start("zh_title") if chinese else 0
    if chinese and _IS_IT.search(text[:start]) and _ASKS_IF.match(text[start + len(title):]):
        return None  # "洛谷那道题是滑雪吗": asks what the problem is
    if not chinese and (_EN_ABOUT_ME.match(title) if " " in title else _EN_NOT_TITLE.match(title)):
        return None  # "Codeforces problem My solution fails": the sentence goes on
    return _tidy(f"{m.group('zh') or m.group('en')} {title}")


def judge_problem(question: str) -> str | None:
    """The other judge's or collection's problem `question` names, as written ("SPOJ TEST"); else None."""
    text = unicodedata.normalize("NFKC", question)[:600]
    for pattern in (_COLLECTION, _PTA, _ZEROJUDGE, _IN_CONTEST, _IN_ZH_CONTEST):
        m = pattern.search(text)
        if m:
            return _tidy(_before_sentence(m.group(0)) if pattern is _IN_ZH_CONTEST else m.group(0))
    for m in _CODE_JUDGE.finditer(text):
        if m.group(1).casefold() not in VERDICT_WORDS:
            return _tidy(m.group(0))
    return _referenced(text)


def _before_sentence(name: str) -> str:
    """The name without the sentence it runs into ("…第三题 为什么超时" -> "…第三题")."""
    simplified = to_simplified(name)  # OpenCC maps character for character: positions line up
    stop = _ZH_STOP.search(simplified if len(simplified) == len(name) else name)
    return name[:stop.start()] if stop else name


def _tidy(name: str) -> str:
    return " ".join(name.split()).rstrip(" :：-")[:80]
