"""How a question names a problem in words: sequel suffixes and judge-plus-title names.

Two facts the title rule of `quest.resolution` needs and that plain substring matching gets wrong:

- A base title followed by a sequel marker is another problem: "课程表 II", "Course Schedule II",
  "买卖股票的最佳时机 III", "Two Sum IV", "接雨水2", "课程表Ⅱ" (roman numerals, digits, full width,
  with or without a space) — `sequel_after` finds that suffix.
- A question often names a problem by a judge or a marker followed by its title ("力扣 跳跃游戏
  为什么…", "LeetCode Jump Game greedy fails", "《最长回文子序列》", "题目：…", "the problem Jump
  Game") without any id — `named_title` cuts that title out, so the planner can tell the student
  when the base does not have it instead of showing another problem's material.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

from quest.question_clauses import EN_DEFECT_WORDS, ZH_QUESTION_WORDS, ZH_TEST_POSITION
from quest.retrieval.tokenize import to_simplified

# After NFKC + casefold: "Ⅱ" -> "ii", "ＩＩ" -> "ii". A lone "v"/"x"/"i" is too often a word or a variable.
_SEQUEL = re.compile(r"[ \t\-_·:：]*(viii|vii|vi|iv|iii|ii|ix|[2-9])(?![a-z0-9.%])")

JUDGES = (r"leetcode(?:[-.]?cn)?(?:\.com)?|lc|力扣|领扣|lintcode|洛谷|luogu|牛客网?|nowcoder|codeforces|acwing|"
          r"atcoder|poj|hdu|zoj|uva|spoj|hackerrank|codewars|kattis|codechef|cses|pta|计蒜客|蓝桥杯")
# A judge's name, then "上的/的/里的" and "第…题/题目/problem" in any order, then the title.
_AFTER_JUDGE = re.compile(
    rf"(?<![a-z0-9])(?:{JUDGES})(?![a-z0-9])(?:['’]s)?\s*(?:上面?的?|里面?的?|中(?!等)的?|的)?\s*"
    r"(?:(?:这道|那道|一道|道)?(?:题目(?!前)|题|problem|question)\s*(?:是|叫|叫做|called|named)?)?\s*[:：\-–—]?\s*",
    re.I)
_MARKERS = (
    re.compile(r"《([^》]{1,60})》"),
    re.compile(r"(?:题目|题名|题目名|这道题|这题)\s*(?:是|叫|叫做)?\s*[:：]\s*", re.I),
    re.compile(r"(?<![a-z])(?:the\s+)?(?:problem|question)\s+(?:called|named|titled)\s+", re.I),
    re.compile(r"(?<![a-z])problem\s*[:：]\s*", re.I),
)
# 'problem "How Many Ways"': quoted after the word, the quotes bound the title (`_QUOTED`). Students quote other
# things after "problem" too ('the problem "Segmentation fault"', 'This problem "seems" easy'): only a quote that
# reads as a title counts (`_quoted_title`), and nothing is cut from the unquoted rest.
_QUOTE_MARKER = re.compile(r"(?<![a-z])(?:the\s+)?problem\s+(?=[\"“「『])", re.I)
# "题目是移动零，…", "这题叫移动零": the name said without a colon, set off by punctuation or a space.
_SAID = re.compile(r"(?:题目|题名|题目名|这道题|这题|那道题)\s*(?:名字|名)?\s*(?:是|叫做|叫)\s*"
                   r"([\u4e00-\u9fff]{2,20}(?:\s?(?:II|III|IV|Ⅱ|Ⅲ))?)(?=$|[\s，,。；;！!？?：:])")
_QUOTED = re.compile(r"""^["“'‘「『]([^"”'’」』]{2,60})["”'’」』]""")
# Where a Chinese title ends: the rest of the sentence begins.
_ZH_STOP = re.compile(
    r"为什么|为啥|为何|怎么|怎样|如何|超时|超出|报错|错误|出错|提交|一直|总是|老是|通过|过不了|没过|求助|求问|请问|"
    r"问题|题解|解法|思路|做法|代码|这道|这题|那道|那题|这个|时候|运行|结果|答案|出现|显示|遇到|卡在|能不能|可以|是不是|有没有|"
    r"什么|用了|用的|使用|我的|我用|我在|做题|刷题|刷完|刷了|刷到|里面|以及|并且|但是|不过|一题|这里|样例|测试|输出|输入|内存|解答|执行|"
    rf"{ZH_QUESTION_WORDS}|"  # asks, judges the attempt, asks for help (`quest.question_clauses`)
    r"[，。？！、；：（）()\[\]【】,.?!;:\n]")
_EN_STOP = frozenset((
    "why", "how", "what", "when", "where", "which", "is", "are", "was", "were", "keeps", "keep", "gets", "get",
    "got", "gives", "give", "giving", "returns", "return", "returning", "fails", "failing", "failed", "throws",
    "throwing", "shows", "says", "tle", "wa", "mle", "re", "ce", "wrong", "runtime", "memory", "error",
    "my", "i", "i'm", "im", "using", "solution", "solutions", "code", "submission", "help", "python", "python3",
    "java", "c++", "cpp", "c", "javascript", "js", "go", "rust", "c#", "kotlin", "typescript", "but", "can",
    "does", "do", "did", "should", "would", "could", "passes", "passed", "exceeded", "limit", "accepted",
    "approach", "answer", "output", "input", "test", "tests", "case", "cases", "question", "problem", "please",
    "anyone", "someone", "stuck", "issue", "hint", "explain", "explanation", "editorial", "vs", "-", "—",
    "show", "shows", "showed", "say", "said", "tell", "tells", "this", "that", "these", "it", "its", "me", "you",
    "we", "they", "accept", "accepts", "reject", "rejects", "rejected", "run", "runs", "ran", "submit", "submitted",
    "pass", "compile", "compiles", "crash", "crashes", "crashed", "always", "never", "still", "now", "today",
    "here", "there", "has", "have", "had", "will", "won't", "doesn't", "don't", "didn't", "isn't", "not", "no",
    "so", "because", "if", "after", "before", "while", "only", "just", "also", "then", "again"))
_EN_TRAILING = frozenset(("in", "with", "of", "to", "and", "the", "a", "an", "for", "on", "at", "by", "from"))
# A "title" made of these alone names no problem ("LeetCode problem", "力扣每日一题", "LeetCode hot 100").
_GENERIC = frozenset((
    "hot 100 hot100 top interview daily weekly biweekly contest challenge easy medium hard online judge "
    "oj premium study plan sql database shell bfs dfs dp greedy backtracking recursion graph tree array "
    "string hashmap heap stack queue math sorting simulation "
    "月赛 入门赛 模拟赛 网络赛 省赛 校赛 新生赛 比赛 "
    "题 题目 每日一题 周赛 双周赛 面试题 刷题 做题 上 原题 这道题 一道题 上面 上的 里 中 题库 评测机 评测 "
    "评测姬 判题 后台 编译器 系统 网站 官方 题解区 讨论区 社区 平台 账号 会员 动态规划 贪心 回溯 二分 "
    "双指针 滑动窗口 单调栈 单调队列 前缀和 差分 哈希 哈希表 链表 二叉树 树 图 并查集 拓扑排序 最短路 "
    "搜索 深搜 广搜 递归 排序 堆 栈 队列 字符串 数组 数学 位运算 模拟 分治 背包 树状数组 线段树 字典树 "
    "记忆化搜索 入门 专题 推荐"
).split())
# Words between the judge and the title that are not part of it ("力扣每日一题 跳跃游戏", "hot 100").
_LEAD = re.compile(r"^(?:(?:每日一题|每日|热题|hot|top|100|题库|周赛|双周赛|面试题|原题|经典|中等题?|简单题?|困难题?|"
                   r"第[一二三四五六七八九十\d]+题)\s*[:：]?\s*)+", re.I)
_VERDICT_WORDS = re.compile(r"\b(?:time|memory) limit|\bwrong answer|\bruntime error|\bcompil", re.I)
_FUNCTION_CHARS = frozenset("的也都还就才又很太是在有和跟与把被给让对从")
# What a sentence goes on with after "题目" when it speaks of the statement, not a title: "洛谷的题目描述看不懂",
# "题目要求…", "题目意思是…". (Not 数据 alone: 数据流的中位数 is a title.)
STATEMENT_PARTS = re.compile(r"^(?:描述|要求|意思|大意|背景|说明|說明|数据范围|數據範圍|链接|連結|来源|來源|难度|難度)")
# Words a Chinese sentence goes on with after naming "the problem", which open no title: an adverb of the sentence
# ("那道题其实很简单", "居然超时", "目前还没人过") or the student's trouble with the limits ("那道题卡常数", "卡时间").
# (Simplified forms: callers compare `to_simplified` text.)
ZH_GOES_ON = re.compile(r"^(?:其实|居然|竟然|果然|目前|现在|已经|一直|总是|老是|明明|到底|究竟|确实|似乎|好像|"
                        r"可以|需要|应该|"
                        r"卡(?:常|时|内存|空间|精度|数据|住|在|了))")
_HAN = re.compile(r"[\u4e00-\u9fff]")
_EN_WORD = re.compile(r"[A-Za-z0-9][A-Za-z0-9'+#]*|-")


def normalize(text: str) -> str:
    """Width-, script- and case-insensitive form that keeps spacing (positions still mean something)."""
    return to_simplified(unicodedata.normalize("NFKC", text)).casefold()


def as_written(text: str) -> str:
    """`normalize` without the case folding, when that keeps every position (else `normalize`)."""
    cased = to_simplified(unicodedata.normalize("NFKC", text))
    return cased if len(cased) == len(normalize(text)) else normalize(text)


def sequel_after(normalized: str, end: int) -> str | None:
    """The sequel marker ("ii", "3") right after position `end` of a normalized text, if any."""
    m = _SEQUEL.match(normalized, end)
    return m.group(1) if m else None


# --------------------------------------------------------------------------- longer titles

# A base title inside a longer title with no sequel marker names another problem: "最长递增子序列的个数"
# (673, not 300), "买卖股票的最佳时机含冷冻期" (309, not 121), "使用最小花费爬楼梯" and "Min Cost Climbing
# Stairs" (746, not 70), "3Sum Closest" (16, not 15), "Best Time to Buy and Sell Stock with Cooldown". The
# words around the title tell a longer title from the rest of the sentence ("两数之和 超时了" is problem 1).
# Chinese after the title: "含…" (a condition) or "的" and a counting noun; anything else is the sentence.
_ZH_LONGER_AFTER = re.compile(r"(?:含[\u4e00-\u9fff]{1,6}|的(?:个数|数目|数量|方案数|总数))")
# Chinese before the title: a run of Han characters that opens the question (after a judge or a marker) and
# does not start like a sentence ("我的", "用递归写", "这道").
_ZH_SENTENCE_START = frozenset("我你他她它这那用写做刷求问请帮关对在学看把给被让跟和与的是有了也都还就")
_HAN_RUN_BEFORE = re.compile(r"[\u4e00-\u9fff]+$")
_OPENING = re.compile(rf"^\s*(?:(?:{JUDGES})\s*(?:上的?|的)?\s*(?:题目?|problem)?\s*[:：#]?)?\s*$", re.I)
# English: Title Case words next to the title that are not a judge, a language, a technique or a question word
# ("Two Sum Brute Force", "Two Sum with Hash Map" are problem 1).
_NOT_TITLE_WORDS = frozenset((
    "brute force hash map set table dictionary dict array list recursion recursive iterative memo memoization "
    "tabulation bottom top down up bottom-up top-down optimal optimized approach solution solutions solve solving "
    "solved problem question leetcode lc python python3 java javascript typescript c c++ cpp go golang rust kotlin "
    "swift c# ruby php scala easy medium hard daily about on re fix fixing debug debugging help please in "
    "using with without after before explained explanation editorial tle wa mle re ce ac the a an this"
).split()) | frozenset(
    "doing trying practicing practising learning attempting working writing submitting".split()) | frozenset(
    # how the problem is asked or solved: "Two Sum Variant", "LRU Cache Implementation", "Follow-up to Two Sum",
    # "Reverse Linked List Recursively", "Edit Distance Algorithm"
    "variant variants variation variations version follow follow-up followup implementation implementations "
    "algorithm recursively iteratively walkthrough tutorial writeup write-up".split())
# ...the last of them: what the student is doing, opening the sentence ("Doing Advent of Code in Rust: …",
# "Practicing Rotate Array: …"); not part of the title that may follow.
_ACTIVITY_WORDS = frozenset("doing solving trying practicing practising learning attempting working writing "
                            "submitting".split())
# Round 10: more of what a sentence opens with before the title it names, capitalized only because it comes first
# ("Implementing LRU Cache in Python: …", "For 3sum I tried …", "Regarding Climbing Stairs, …", "Tackling Coin
# Change …"). No title starts with these ("To Lower Case", "Building Boxes", "Making A Large Island" do start with
# words like them, so "to", "building" and "making" are left out).
_LEAD_IN_VERBS = _ACTIVITY_WORDS | frozenset(
    "implementing coding tackling revisiting reviewing studying understanding redoing retrying optimizing optimising "
    "finishing completing".split())
# Prepositions only where they open the words before the title (titles use "From", "Into" inside: "Insert Into a …").
LEAD_IN_WORDS = _LEAD_IN_VERBS | frozenset("for regarding concerning during from into on in about".split())
_EN_TOKEN = re.compile(r"[A-Za-z0-9][A-Za-z0-9'+#-]*")


def longer_title(question: str, start: int, end: int) -> str | None:
    """The longer title around `question[start:end]` (a base title found there), if the words around it
    make one; None when they are the rest of the sentence. `question` is as written (case tells English
    titles apart)."""
    before, after = question[:start], question[end:]
    zh_after = _ZH_LONGER_AFTER.match(after)
    if zh_after and _HAN.match(question[start:end][-1:] or " "):
        return question[start:end] + zh_after.group(0)
    head = _han_head(before) if _HAN.match(question[start:start + 1]) else None
    if head:
        return head + question[start:end]
    if (question[start:start + 1].isupper() or question[start:start + 1].isdigit()) and \
            not _HAN.search(question[start:end]):  # "LRU 缓存 OrderedDict": a Chinese title has no English tail
        return _longer_english(before, question[start:end], after)
    return None


def _han_head(before: str) -> str | None:
    """The Han characters joined to the front of a title ("使用最小花费" + 爬楼梯) when they open the question
    (after a judge's name or a marker) and do not start like a sentence or a technique."""
    run = _HAN_RUN_BEFORE.search(before)
    if not run:
        return None
    judge = re.match(rf"(?:{JUDGES})", run.group(0), re.I)  # "力扣接雨水": the judge, not a longer title
    head = run.group(0)[judge.end():] if judge else run.group(0)
    if head.endswith(("题", "題")):  # "第一题两数之和", "作业第二题…": a label ends at 题, the title follows it
        return None
    if len(head) < 2 or head[0] in _ZH_SENTENCE_START or head.startswith((*_GENERIC, *_ZH_COMPARISON, *_ZH_DESCRIBING)):
        return None
    if ZH_LEAD_IN.match(head):  # "练习接雨水", "刚做完三数之和", "二刷接雨水": what the student does with the problem
        return None
    return head if _OPENING.match(before[:run.start()]) else None


# Round 10: what a Chinese sentence says before the title it names — when ("今天", "昨晚", "刚"), and what the student
# does with the problem ("做", "练习", "尝试", "复习", "调试", "实现", "手撕", "打卡", "二刷"), done or not ("做完",
# "做了"). A head made of these alone is the sentence, not the start of a longer title ("使用最小花费爬楼梯" is one).
# "第一次做", "在力扣上做": the time and the judge, then the doing.
_ZH_WHEN_WORDS = (r"今天|昨天|昨晚|今晚|前天|最近|刚才|刚刚|刚|之前|以前|早上|晚上|上午|下午|正在|还在|又|再|也|"
                  rf"终于|第[一二三四五六七八九十两\d]+次|(?:在\s*)?(?:{JUDGES})\s*(?:上|里)?|在")
_ZH_DOING_WORDS = (r"[一二三四五]刷|重做|重写|再做|练习|练|尝试|试着|试|复习|调试|实现|手撕|手写|打卡|学习|研究|分析|"
                   r"解决|完成|挑战|攻克|琢磨|默写|提交|做|写|刷|看|读|debug|一道|这道|那道")
# Atomic words and possessive repeats: "刚刚" is one word or 刚 + 刚, "在" opens "在力扣上", and a run of such words
# not followed by a doing word would otherwise be split every possible way (2^n tries on "刚刚刚…？").
_ZH_LEAD = r"^(?:(?>{when})\s*)*+(?:(?>{doing})(?:完|了|过|一下)*+\s*)++"  # "试了一下"
ZH_LEAD_IN = re.compile(_ZH_LEAD.format(when=_ZH_WHEN_WORDS, doing=_ZH_DOING_WORDS) + "$", re.I)
# ...of which these are done to a problem only (reading, learning, analysing are done to books and topics too:
# "在看算法导论" names no problem): what `quest.title_shapes` skips before a title the base may lack.
_ZH_SOLVING_WORDS = r"[一二三四五]刷|重做|再做|练习|尝试|试着|调试|手撕|手写|打卡|挑战|攻克|提交|做|写|刷"
ZH_LEAD_IN_PREFIX = re.compile(_ZH_LEAD.format(when=_ZH_WHEN_WORDS, doing=_ZH_SOLVING_WORDS), re.I)
# ...and these to books and topics as often as to problems ("复习动态规划", "研究一下单调栈", "在看算法导论"): what
# follows them may be a base title, never a missing one.
_ZH_STUDYING_WORDS = r"复习|学习|研究|分析|理解|琢磨|看|读|学"
ZH_STUDY_PREFIX = re.compile(_ZH_LEAD.format(when=_ZH_WHEN_WORDS, doing=_ZH_STUDYING_WORDS), re.I)


def _title_word(word: str) -> bool:
    """A word a title could have: capitalized or "3Sum"-like, not a bare number, judge, language or technique,
    nor a word comparing it with another problem ("Compared to Two Sum", "Unlike Two Sum")."""
    folded = word.casefold()
    if not (word[:1].isupper() or word[:1].isdigit()) or word.isdigit() or code_word(word):
        return False
    return not (folded in _NOT_TITLE_WORDS or folded in _LEAD_IN_VERBS or folded in _EN_STOP or folded in _GENERIC
                or folded in _COMPARISON_WORDS or folded in _DESCRIBING_WORDS
                or re.fullmatch(JUDGES, re.sub(r"['’]s$", "", word), re.I))  # "LeetCode's Two Sum"


# A code identifier: a capital inside a word after a lowercase letter ("OrderedDict", "nextInt", "ArrayList") or an
# underscore ("MIN_VALUE", "lru_cache"). Titles capitalize each word's first letter only ("3Sum" starts with a digit),
# so after a base title such a word is the student's code ("LRU Cache OrderedDict"), not a longer title.
_CODE_WORD = re.compile(r"[A-Za-z0-9]*[a-z][A-Z][A-Za-z0-9]*|\w*_\w*")


def code_word(word: str) -> bool:
    """Whether the word is written as a code identifier, never as a title's word."""
    return _CODE_WORD.fullmatch(word) is not None


# Words that set a problem beside another: "Compared to Two Sum, …", "Similar to Two Sum", "Like Two Sum, I …".
_COMPARISON_WORDS = frozenset("compared compare comparing comparison unlike like similar similarly versus vs "
                              "related relative same different differs than beyond".split())
# How a student describes the problem they name: "Classic Two Sum", "the Standard Coin Change", "经典两数之和".
_DESCRIBING_WORDS = frozenset("classic classical standard simple famous original basic naive alternative plain "
                              "vanilla typical usual".split())
_ZH_DESCRIBING = ("经典", "简单版", "原版", "原始版", "基础版", "普通版", "标准版", "朴素")
# Chinese: "相比于两数之和", "类似两数之和的做法", "不同于两数之和" — the comparison, then the base title.
_ZH_COMPARISON = ("相比", "比起", "对比", "类似", "类比", "不同于", "区别于", "不像", "像", "如同", "参考", "仿照")


_CONNECTORS = frozenset(("of", "with", "in", "to", "for", "and", "a", "an", "the"))
_LAST_WORD = re.compile(r"([A-Za-z0-9][A-Za-z0-9'+#-]*)\s+$")
_NEXT_WORD = re.compile(r"\s+([A-Za-z0-9][A-Za-z0-9'+#-]*)(?![A-Za-z0-9'+#(-])")  # "O(n log n)" is no title word


def _longer_english(before: str, title: str, after: str) -> str | None:
    """"Min Cost Climbing Stairs", "Number of Longest Increasing Subsequence", "3Sum Closest", "… Stock with
    Cooldown": Title Case words joined to the title, directly or through a connector ("of", "with")."""
    head = _title_words(before, _LAST_WORD, backwards=True)
    while head and head[0].casefold() in LEAD_IN_WORDS:  # "For 3sum I tried …": the sentence, not the title
        head.pop(0)
    tail = _title_words(after, _NEXT_WORD, backwards=False)
    if not head and (not tail or _only_its_quantity(tail, after)):
        return None
    return " ".join((*head, title, *tail))


# What a title computes, said after it: "Maximum Subarray Sum" is problem 53 asked by its answer. Followed by more
# Title Case words it is another problem ("Maximum Subarray Sum with One Deletion", "… Sum After One Operation").
_QUANTITY_WORDS = frozenset("sum length count value size".split())
_FOLLOWING_WORDS = re.compile(r"(?:[ \t]+([A-Za-z0-9][A-Za-z0-9'+#-]*))(?:[ \t]+([A-Za-z0-9][A-Za-z0-9'+#-]*))?")


def _only_its_quantity(tail: list[str], after: str) -> bool:
    """The words after a base title are one quantity word, and no Title Case word follows within two words."""
    if len(tail) != 1 or tail[0].casefold() not in _QUANTITY_WORDS:
        return False
    rest = after[after.find(tail[0]) + len(tail[0]):]
    following = _FOLLOWING_WORDS.match(rest)
    return following is None or not any(w and _title_word(w) for w in following.groups())


def _title_words(text: str, word: re.Pattern[str], *, backwards: bool) -> list[str]:
    """Up to four Title Case words next to the title (connectors only between two of them)."""
    found: list[str] = []
    pending: list[str] = []  # connectors seen, kept only if a title word follows them
    while len(found) < 4:
        m = word.search(text) if backwards else word.match(text)
        if not m:
            break
        w = m.group(1)
        if w.casefold() in _CONNECTORS and w.islower():
            pending.append(w)
        elif _title_word(w):
            found = [w, *pending[::-1], *found] if backwards else [*found, *pending, w]
            pending = []
        else:
            break
        text = text[:m.start(1)] if backwards else text[m.end():]
    return found


@dataclass(frozen=True)
class NamedTitle:
    text: str
    bounded: bool  # between 《》 or quotes: the whole title, nothing more or less
    marked: bool = True  # after a judge or a marker; False: only its Title Case at the start says so


def named_title(question: str) -> NamedTitle | None:
    """The title a question names after a judge or marker ("力扣 跳跃游戏 为什么错" -> "跳跃游戏"), if any."""
    text = unicodedata.normalize("NFKC", question)
    for pattern in (_AFTER_JUDGE, *_MARKERS, _QUOTE_MARKER):
        for m in pattern.finditer(text):
            if pattern is _QUOTE_MARKER:
                quoted = _quoted_title(text[m.end():])
                if quoted:
                    return quoted
                continue
            # 《…》 holds the title itself; after a judge or "题目：" it is cut from the rest.
            found = NamedTitle(m.group(1).strip(), True) if m.groups() else _cut_title(_LEAD.sub("", text[m.end():]))
            if found.text and _is_title(found.text) and (found.bounded or not _NOT_A_PROBLEM.search(found.text)):
                return found
    simplified = to_simplified(text)  # "題目是移動零，…": the markers and stop words are simplified
    said = _SAID.search(simplified)
    if said and _is_title(said.group(1)) and not _ZH_STOP.search(said.group(1)):
        written = text[said.start(1):said.end(1)] if len(simplified) == len(text) else said.group(1)
        return NamedTitle(written, False)
    return _leading_title(text)


# "House Robber: my dp ...", "Jump Game II - greedy ...": a Title Case name that opens the question
# and is set off by a colon or a dash, the way forum and discussion posts are titled.
_LEADING = re.compile(r"^\s*(?:\[[^\]]{1,20}\]\s*)?([A-Z][^:：\n]{2,80}?)\s*(?:[:：]|\s[-–—]\s)")
_NOT_A_PROBLEM = re.compile(r"segmentation fault|stack overflow|presentation error|output limit|accepted|"
                            r"exception|error|sanitizer|exceeded|overflow|help|question|update|edit", re.I)


# Words of a headline about a topic, which no problem's title uses: "Linked List Basics", "Two Pointer Technique",
# "Common Mistakes in Recursion", "Class Static Variables", "Integer Division Rounding". Not "basic", "common",
# "custom", "between", "shifting": titles use them ("Basic Calculator", "Longest Common Prefix", "Shifting Letters").
HEADLINE_WORDS = frozenset((
    "basics tips tricks technique techniques mistakes mistake pitfalls pitfall guide tutorial introduction "
    "intro overview representation template templates patterns cheatsheet notes explained static debugging "
    "rounding casting versus behavior behaviour semantics"
).split()) | EN_DEFECT_WORDS


def _leading_title(text: str) -> NamedTitle | None:
    m = _LEADING.match(text)
    if not m:
        return None
    words = m.group(1).split()
    while words and words[0].casefold() in LEAD_IN_WORDS:  # "Practicing Rotate Array: …", "Working on …"
        words.pop(0)
    capitalized = [w for w in words if w.casefold() not in _EN_TRAILING]
    if len(capitalized) < 2 or not all(w[:1].isupper() or w[:1].isdigit() for w in capitalized):
        return None
    if any(w.casefold() in _EN_STOP or w.casefold() in HEADLINE_WORDS for w in words) or \
            _NOT_A_PROBLEM.search(m.group(1)):
        return None
    title = " ".join(words)
    return NamedTitle(title, False, marked=False) if _is_title(title) else None


def _quoted_title(rest: str) -> NamedTitle | None:
    """The quoted title right at the start of `rest` (after 'problem '), if the quote reads as one: Han characters,
    or Title Case (every word but a connector capitalized); never an error, a verdict or a plain word quoted."""
    quoted = _QUOTED.match(rest)
    if not quoted:
        return None
    title = quoted.group(1).strip()
    if not title or _NOT_A_PROBLEM.search(title) or _VERDICT_WORDS.search(title) or not _is_title(title):
        return None
    if not _HAN.search(title):
        words = _EN_WORD.findall(title)
        significant = [w for w in words if w.casefold() not in _EN_TRAILING]
        if not significant or not all(w[:1].isupper() or w[:1].isdigit() for w in significant):
            return None
        if all(w.casefold() in VERDICT_WORDS or w.casefold() in _EN_STOP for w in significant):
            return None
    return NamedTitle(title, True)


def _cut_title(rest: str) -> NamedTitle:
    quoted = _QUOTED.match(rest)
    if quoted:
        return NamedTitle(quoted.group(1).strip(), True)
    rest = rest.split("\n", 1)[0][:80]
    return NamedTitle(_cut_chinese(rest) if _HAN.match(rest) else _cut_english(rest), False)


def _cut_chinese(rest: str) -> str:
    stop = _ZH_STOP.search(rest)
    head = re.split(r"[，,。；;！!？?]", rest[: stop.start()] if stop else rest, maxsplit=1)[0]  # "移动零，我的…"
    words = head.split()
    if not words:
        return ""
    title = words[0]
    if len(words) > 1 and _SEQUEL.fullmatch(words[1].casefold()):  # "课程表 II"
        title += " " + words[1]
    return title


_WORD_AFTER = re.compile(r"[ \t]+([A-Za-z0-9][A-Za-z0-9'+#-]*)")


# Question words that ask and never open a title ("Codeforces Why Segment Tree gives TLE", "Which Data Structure …").
_NEVER_OPENS = frozenset("why which where when".split())
# Techniques a question asks about right after its question word ("LeetCode Is Binary Search Enough here?",
# "Can Dijkstra Work here"): the question, not a title. Only here, as the words after the question word: "Binary
# Search" and "Range Sum Query" are titles elsewhere.
_TECHNIQUE_AFTER_QUESTION = re.compile(
    r"(?:binary search|prefix sums?|segment trees?|fenwick|dijkstra|bellman|floyd|kruskal|prim|data structures?|"
    r"union find|disjoint set|sliding window|two pointers?|hash ?(?:map|set|table)|dynamic programming|dp|bfs|dfs|"
    r"greedy|backtracking|recursion|memoi[sz]ation|bit ?mask|bitmask|monotonic stack|topological sort|trie)\b", re.I)


def _opens_title(word: str, after: str) -> bool:
    """A capitalized question or verb word that opens a Title Case name right after a judge or a marker: "Codeforces
    How Many Ways", "LeetCode Is Subsequence", "Can Place Flowers" (not "LeetCode Why does it fail", "How I…")."""
    following = _WORD_AFTER.match(after)
    if not word[:1].isupper() or following is None or word.casefold() in _NEVER_OPENS:
        return False
    if _TECHNIQUE_AFTER_QUESTION.match(after.lstrip()):
        return False
    nxt = following.group(1)
    folded = nxt.casefold()
    return nxt[:1].isupper() and not (folded in _EN_STOP or folded in _EN_TRAILING or folded in _GENERIC
                                      or folded in VERDICT_WORDS or folded in _NOT_TITLE_WORDS)


def _ends_a_title(word: str | None) -> bool:
    """Where a title opened by a question word may end: the end of the text, punctuation (None), a verdict or how
    the student solves it ("Can Place Flowers greedy fails"); at another plain word the question goes on ("LeetCode
    Is Prefix Sum correct for this?", "How Dijkstra works with …")."""
    if word is None:
        return True
    folded = word.casefold()
    return (folded in VERDICT_WORDS or folded in _GENERIC or folded in _NOT_TITLE_WORDS
            or folded in ("wrong", "runtime", "memory", "error", "time"))


def _cut_english(rest: str) -> str:
    rest = _VERDICT_WORDS.split(rest, 1)[0]
    words: list[str] = []
    opened = False  # the title opens with a question word ("How Many Ways")
    stopped_at: str | None = None  # the plain word the title ended at (None: punctuation or the end)
    prev_end = 0
    for m in _EN_WORD.finditer(rest):
        between = rest[(m.start() - 1 if m.start() else 0):m.start()]
        if words and between.strip() and between.strip() not in "-'":  # punctuation ends the title
            break
        word = m.group(0)
        if len(words) >= 12:
            break
        # "Is Subsequence: two pointers": the title ended at the colon, not at "two".
        after_punctuation = bool(words) and bool(rest[prev_end:m.start()].strip(" \t-'"))
        if word.casefold() in _EN_STOP:
            if words:
                stopped_at = None if after_punctuation else word
                break
            if not _opens_title(word, rest[m.end():]):
                break
            opened = True
        # "LeetCode Jump Game greedy fails": a Title Case name ends at the first plain lowercase word.
        if words and words[0][:1].isupper() and word.islower() and word not in _EN_TRAILING:
            stopped_at = None if after_punctuation else word
            break
        words.append(word)
        prev_end = m.end()
    while words and words[-1].casefold() in _EN_TRAILING:
        words.pop()
    # A title a question word opens is all Title Case and ends where the question does not go on.
    if opened and (not all(w[:1].isupper() or w[:1].isdigit() or w in _EN_TRAILING for w in words)
                   or not _ends_a_title(stopped_at)):
        return ""
    # A lowercase name needs two words: "leetcode premium", "leetcode discuss" name no problem.
    if len(words) == 1 and not words[0][:1].isupper():
        return ""
    return " ".join(words)


# A kind of problem, not a title: "签到题" (a contest's easiest), "水题", "模板题", "压轴题", "dp题", "原题".
KIND_OF_PROBLEM = re.compile(r"^\s*(?:[\u4e00-\u9fff]{1,2}|[a-z]{1,4})\s*[题題]\s*$", re.I)


# A contest, not a problem: "Round 900", "Round #912 (Div. 2)", "Weekly Contest 380", "ABC 300" (and what follows
# it: "Round 900 Div", "Round 900 Standings" — a problem of it is named by `quest.judge_problems`).
CONTEST_NAME = re.compile(r"^\s*(?:educational\s+)?(?:(?:bi)?weekly\s+contest|round|contest|abc|arc|agc)\s*#?\s*\d+"
                           r"(?![\d.])", re.I)


# What makes a Chinese phrase a clause, not a title: "有个" / "一个" / "几个" (not 下一个, 第一个), adverbs
# ("开机就蓝屏"), a pronoun ("整除它本身"), a description ("一道树形 dp"), a turn of the story ("上传了却没有",
# "本地对但是提交错": titles name a task, they never say "but").
ZH_CLAUSE = re.compile(r"有个|有一个|(?<![下第])一个|一道|几个|有几|某[个道题]|[就才又很太它都也却]|但是|可是|"
                       rf"{ZH_TEST_POSITION}")
# Verdicts, languages and technique acronyms written in capitals after a judge: no problem code or title.
VERDICT_WORDS = frozenset(("tle mle wa re ce ac ole pe sigsegv sigfpe sigabrt nzec java cpp python pypy gcc ide "
                            "api faq oj eof dp bfs dfs").split())


# Words about a judge's website and account, which no problem's title uses ("站" alone is in 加油站, 公交站).
_ABOUT_THE_SITE = re.compile(r"中文站|美国站|国际站|国服|美服|账号|账户|帐号|登录|登陆|注册|会员|官网|插件|客户端|"
                             r"login|log in|sign in|account|premium|subscription", re.I)


def _is_title(title: str) -> bool:
    words = [w for w in re.split(r"\s+", title.casefold()) if w]
    if not words or all(w in _GENERIC for w in words) or KIND_OF_PROBLEM.match(title) or CONTEST_NAME.match(title):
        return False
    if (_HAN.search(title) and ZH_CLAUSE.search(to_simplified(title))) or all(w in VERDICT_WORDS for w in words):
        return False
    if re.fullmatch(r"[\d\s#.]+", title):  # a bare number is an id: the id rule reads it
        return False
    if _HAN.search(title) and ZH_GOES_ON.match(to_simplified(title)):  # "洛谷那道题居然超时", "那道题卡常数"
        return False
    if title[0] in _FUNCTION_CHARS or STATEMENT_PARTS.match(title):  # "力扣上也有", "洛谷的题目描述看不懂": the
        return False  # sentence goes on about the site or the statement, no title follows
    if _ABOUT_THE_SITE.search(title):  # "力扣中文站用美国站的账号登录不了": the judge's website, not a problem
        return False
    squashed = re.sub(r"\W+", "", title)
    return len(squashed) >= 2 if _HAN.search(title) else len(squashed) >= 3
