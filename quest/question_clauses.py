"""What tells the opening of a question from a problem's title: a title names, a question asks.

Students open forum posts with the question itself, and its first phrase has the shape of a title
("递归写法哪里不对？…", "数组开多大合适", "大佬们帮忙看看哪里错了", "第二组数据过不了", "DFS Visits Node
Twice"). Read as a title, each was reported as a problem the base does not have, and the search was
kept to general documents. A problem's title is a name (a noun phrase: "滑动窗口最大值", "Number of
Islands"); these phrases are clauses, and they show it by one of a few kinds of words, listed here by
kind rather than phrase by phrase:

- they ask: an interrogative or a question particle (哪/谁/多少/几个/吗/呢, 对不对, 够不够);
- they judge the student's own attempt or understanding (不对, 错了, 错在, 写反, 只过了, 不懂);
- they address someone or ask for help (帮, 看看, 解释, 请教, 大佬, 各位, 萌新, 小白);
- they point at the judge's test data by position ("第二个", "第三组数据", "第5个测试点");
- they end like a clause, on a particle a name never ends with (…的, …了, …着);
- in English, they open with a technique's acronym ("DFS …", "Dp …"), name a defect ("… Bug",
  "… Overflow", "… Initialization") or speak of the student ("Confused About …", "First Post").

None of these words is in a title of the starter base; a missing problem whose title has one is no
longer reported as missing (its question is searched as a general one), the cheaper mistake.
"""

from __future__ import annotations

import re

# Kinds of Chinese words that make a phrase a clause (joined into `quest.problem_names._ZH_STOP`: where
# a title ends, the rest of the sentence begins).
_ZH_ASKS = (r"哪|谁|多少|多大|多久|多长|几[个次组遍行层]|咋|是否|能否|可否|对不对|行不行|够不够|对吗|[吗呢嘛]|"
            r"疑问|疑惑|困惑")
_ZH_JUDGES_ITS_ATTEMPT = r"不对|不行|不够|不了|不懂|不明白|错了|错在|写错|写反|只过|过了|对了"
_ZH_ASKS_FOR_HELP = r"帮|看看|看一下|解释|请教|提问|大佬|大家|各位|萌新|新手|小白|新人|菜鸟|蒟蒻"
ZH_QUESTION_WORDS = "|".join((_ZH_ASKS, _ZH_JUDGES_ITS_ATTEMPT, _ZH_ASKS_FOR_HELP))

# The judge's test data by its position: "第二个", "第三组数据", "第5个测试点" ("第N个泰波那契数" and
# "第K个最大元素" have a letter, not a numeral).
ZH_TEST_POSITION = r"^第[一二三四五六七八九十两\d]+[个组次条行点]"
# A name never ends on a structural or aspect particle: "队列为空的（时候）", "只过了".
# ...nor on 题: "蓝桥杯练习题", "作业题" name a kind or a set of problems, not one.
# ...nor on a preposition still waiting for its object: "资料量到（1e6 时）", "从（下标 1 开始）", "把（数组…）".
_ZH_CLAUSE_END = re.compile(r"[的了着题到从给把被让向跟]$")

# English words of a defect report or a tutorial, which no problem's title uses.
EN_DEFECT_WORDS = frozenset(("bug bugs buggy crash crashes overflow overflows underflow exception exceptions "
                             "initialization initialisation typo leak leaks slow slower wrong fix "
                             # ...and of a post about the student ("Confused About …", "First Post - …")
                             "confused confusing advice doubt doubts newbie beginner noob struggling post").split())


def ends_like_a_clause(phrase: str) -> bool:
    """A Chinese phrase ending on a particle ("队列为空的", "只过了"), on 题 ("蓝桥杯练习题") or on a preposition
    ("资料量到"): no problem's name."""
    return _ZH_CLAUSE_END.search(phrase.strip()) is not None
