"""The words of general topics: what tells "二分查找 边界" (a topic) from "回文数 负数" (a problem's title).

A phrase that opens a question looks the same whether it names a problem or a topic. What differs is
its words: the base's general documents (verdicts, pitfalls, sanitizers, languages) use the words of
topics ("数组越界", "Java Scanner", "Time Limit Exceeded"), and techniques have names of their own
("拓扑排序", "Union Find"), while a problem's title almost always has a word that no general document
needs ("回文数", "Rotate Array", "Median of Two Sorted Arrays", "合并K个升序链表").
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterable

from quest.problem_names import _GENERIC, normalize
from quest.retrieval.mainland_words import tw2sp_keeping_false_friends
from quest.retrieval.tokenize import tokenize
from quest.taiwan_terms import replace_taiwan_terms

# Names of techniques, tools and programming notions that students lead with and that the general
# documents need not spell out. Our own list of common terms (no judge's catalogue), in both languages.
TECHNIQUES = frozenset(t.strip() for t in (
    "深度优先搜索,广度优先搜索,深度优先,广度优先,高精度,背包,背包问题,01背包,完全背包,多重背包,最短路,最短路径,"
    "最小生成树,拓扑排序,并查集,线段树,树状数组,离散化,剪枝,特判,卡常,快读,快写,对拍,多测,状压,状态压缩,"
    "数位dp,区间dp,树形dp,状压dp,记忆化,倍增,分块,莫队,扫描线,差分约束,网络流,最大流,二分图,匈牙利算法,强连通分量,"
    "割点,欧拉回路,博弈论,组合数,逆元,快速幂,矩阵快速幂,筛法,素数筛,欧几里得,gcd,lcm,哈希,字符串哈希,kmp,"
    "manacher,马拉车,后缀数组,后缀自动机,ac自动机,trie,字典树,平衡树,treap,splay,红黑树,堆排序,快速排序,快排,"
    "归并,归并排序,冒泡排序,选择排序,插入排序,计数排序,基数排序,桶排序,dijkstra,floyd,bellman ford,spfa,prim,"
    "kruskal,tarjan,kadane,单调栈,单调队列,滑动窗口,双指针,前缀和,自定义排序,排序规则,内存泄漏,野指针,悬垂指针,"
    "堆栈溢出,核心已转储,递归,迭代,模板,边界条件,quick sort,merge sort,heap sort,bubble sort,insertion sort,"
    "selection sort,"
    "counting sort,radix sort,bucket sort,quicksort,mergesort,heapsort,union find,disjoint set,topological sort,"
    "breadth first search,depth first search,priority queue,monotonic stack,monotonic queue,segment tree,"
    "fenwick tree,binary indexed tree,sparse table,bitmask,bit manipulation,fast exponentiation,modular inverse,"
    "modular arithmetic,sieve,memoization,tabulation,backtracking,greedy,dynamic programming,recursion,iteration,"
    "hash map,hash set,hash table,time complexity,space complexity,big o,fast io,undefined behavior,"
    "undefined behaviour,floating point,deep copy,shallow copy,visual studio,vs code,vscode,code blocks,"
    "codeblocks,dev c++,clion,pycharm,intellij,eclipse,xcode,online judge,red black tree,avl tree,b tree,"
    "binary search tree,string hashing,rolling hash,hashing,prefix sum,prefix sums,difference array,two pointers,"
    "sliding window,bit manipulation,div1,div2,div3,div4,最大公约数,最小公倍数,字典序,链式前向星,邻接表,邻接矩阵,"
    "结构体,位运算,二分答案,三分,树的直径,lca,最近公共祖先,拓扑序,windows subsystem for linux,wsl,"
    "google colab,jupyter notebook,leetcode playground,github actions,kahn,kahn's algorithm,kosaraju,boyer moore,"
    "z algorithm,morris traversal,hierholzer,xor"
).split(","))
_TOPIC_PREFIXES = frozenset(t for t in TECHNIQUES if len(t) >= 3 and (" " in t or not t.isascii()))
# One-word algorithm names that open a topic ("Dijkstra With Negative Edges", "Kruskal on a dense graph").
_ALGORITHM_WORDS = frozenset(t for t in TECHNIQUES if t.isascii() and " " not in t and len(t) >= 4)
TECHNIQUES = TECHNIQUES | _GENERIC
# How Chinese topic phrases end ("闰年判断", "图的遍历", "结构体排序"): a task done to something, not a title.
_ZH_TOPIC_END = re.compile(r"(?:判断|遍历|排序|写法|模板|技巧|原理|区别|优化|证明|理解|算法|方法|用法|函数|语法|思路|"
                           r"入门|基础|详解|总结|教程|笔记|套路|方式|传递|存储|进制)$")


# The starter base's general documents hold ~110k characters (0.4 s to learn); a synthetic or imported
# base with many more would otherwise make the first request wait while all of them are tokenized.
MAX_TOPIC_CHARS = 500_000


class TopicWords:
    """Words and phrases of the general topics, from the base's general documents and the techniques."""

    def __init__(self, general_texts: Iterable[str] = (), tags: Iterable[str] = ()) -> None:
        words: set[str] = set()
        squashed: list[str] = []
        self._near: set[tuple[str, str]] = set()  # words within two places of each other in a general document
        budget = MAX_TOPIC_CHARS
        for text in general_texts:
            if budget <= 0:  # a huge base: its first general documents teach the words well enough
                break
            text = text[:budget]
            budget -= len(text)
            tokens = tokenize(text)
            words.update(tokens)
            squashed.append(_squash(text))
            for gap in (1, 2):
                self._near.update(zip(tokens, tokens[gap:], strict=False))
        self.words = frozenset(w for w in words if not w.startswith("verdict_"))
        self._text = "\n".join(squashed)
        self.techniques = frozenset(_squash(t) for t in (*TECHNIQUES, *tags))

    def is_technique(self, phrase: str) -> bool:
        return _squash(phrase) in self.techniques

    def own_words(self, phrase: str) -> list[str]:
        """The words of `phrase` that no general document uses ("回文" in 回文数, "rotate" in Rotate Array).

        jieba gives a long word and its parts ("边界条件", "边界", "条件"): a word whose parts are all known
        is known."""
        tokens = list(dict.fromkeys(t for t in tokenize(phrase) if not t.startswith("verdict_") and not t.isdigit()))
        known = [t for t in tokens if t in self.words]
        return [t for t in tokens if t not in self.words and not _covered(t, known)]

    def is_topic(self, phrase: str, *, marked: bool = False) -> bool:
        """`_is_topic` of the phrase, or of its mainland wording when it is written in Taiwan's terms: "記憶體超過限制"
        is 内存超过限制 (memory limit exceeded), though plain t2s leaves 记忆体 — a word no general document uses."""
        if self._is_topic(phrase, marked=marked):
            return True
        mainland = mainland_terms(phrase)
        return mainland is not None and self._is_topic(mainland, marked=marked)

    def _is_topic(self, phrase: str, *, marked: bool = False) -> bool:
        """A technique's name, or a phrase a general document spells out, or one made of topic words only.

        A `marked` phrase (in quotes, "X这道题", "the X problem") is meant as a name: made of topic words
        ("整数反转", "Reverse Integer") it is still a title unless it is a single topic word."""
        key = _squash(phrase)
        if not key or key in self.techniques or (len(key) >= 4 and key in self._text):
            return True
        if self._opens_with_technique(phrase) or (not marked and _ZH_TOPIC_END.search(key)):
            return True
        own = self.own_words(phrase)
        if own:
            return False
        # Made of topic words. Marked as a name ("搜索插入位置这题", "the Reverse Integer problem"), it is a
        # title unless it is one word. Unmarked, it is a topic, except a Title Case run of three words or
        # more that the general documents never use together ("Search Insert Position"; not "Mutable
        # Default Argument"). A Chinese run of known words is as often a clause ("两个浮点数相加判断等于"): it is
        # a title only when it has a compound name's shape and the general documents never put its words
        # side by side ("搜索插入位置，…"; not "浮点数比较", "二维数组").
        tokens = _words(phrase)
        if marked or len(tokens) <= 1:
            return len(tokens) <= 1
        if phrase.isascii():
            return not (len(tokens) >= 3 and not self._used_together(tokens))
        return not (_compound_name(phrase, tokens) and not self._used_together(tokens))

    def _used_together(self, tokens: list[str]) -> bool:
        return all((a, b) in self._near or (b, a) in self._near for a, b in itertools.pairwise(tokens))


    def _opens_with_technique(self, phrase: str) -> bool:
        """"Topological Sort with Kahn", "Modular Inverse with Fermat", "拓扑排序判环": a technique, then more."""
        words = normalize(phrase).split()
        heads = [" ".join(words[:n]) for n in range(2, len(words))] if len(words) > 2 else []
        key = _squash(phrase)
        if len(words) > 1 and words[0] in _ALGORITHM_WORDS:
            return True
        return any(h in _TOPIC_PREFIXES for h in heads) or any(
            key.startswith(t) and key != t for t in _TOPIC_PREFIXES if not t.isascii())


_HAN = re.compile(r"[\u4e00-\u9fff]")


def mainland_terms(phrase: str) -> str | None:
    """The phrase with Taiwan's computing words as the mainland says them (OpenCC tw2sp: 記憶體 → 内存, 陣列 → 数组,
    遞迴 → 递归), or None when that changes nothing beyond t2s. Only for telling topics from titles: tw2sp also
    has false friends that would break base titles (子序列 → 子串行, 程序 → 进程), so the rest of the planner keeps
    plain t2s (`quest.retrieval.tokenize.to_simplified`)."""
    if not _HAN.search(phrase):
        return None
    taiwan_words_replaced = replace_taiwan_terms(phrase)  # words tw2sp leaves (`quest.taiwan_terms`)
    mainland = tw2sp_keeping_false_friends(taiwan_words_replaced)
    return None if mainland == normalize(phrase) or mainland == phrase else mainland


def _compound_name(phrase: str, tokens: list[str]) -> bool:
    """Three or four words of two characters or more and nothing between them: the shape of a Chinese title
    made of everyday words ("搜索插入位置", "合并两个有序数组", "最长公共前缀"). A clause has a one-character
    word (说, 当, 多, 是 …) or runs on ("两个浮点数相加判断等于"); a headline joins its words with particles
    ("二维数组的初始化", "链表的插入和删除")."""
    return (3 <= len(tokens) <= 4 and all(len(t) >= 2 for t in tokens) and "".join(tokens) == _squash(phrase)
            and not _FAILURE_WORDS.intersection(tokens))


# A phrase saying what went wrong is a verdict in words, not a title: "时间超过限制" (TLE), "内存超过限制" (MLE),
# "数组索引越界". Titles of everyday words name a task ("搜索插入位置"), never a failure.
_FAILURE_WORDS = frozenset("超过 超出 超时 超限 限制 溢出 越界 错误 报错 失败 崩溃 泄漏 泄露 异常".split())


def _words(phrase: str) -> list[str]:
    """The words of `phrase` in order, without the parts jieba adds ("字符串", not also "字符")."""
    tokens = [t for t in dict.fromkeys(tokenize(phrase)) if not t.startswith("verdict_")]
    return [t for t in tokens if not any(t != other and t in other for other in tokens)]


def _covered(word: str, known: list[str]) -> bool:
    """Every character of `word` lies in one of the known words inside it."""
    hit = [False] * len(word)
    for part in known:
        start = word.find(part)
        while part != word and start >= 0:
            hit[start:start + len(part)] = [True] * len(part)
            start = word.find(part, start + 1)
    return len(word) > 1 and all(hit)


def _squash(text: str) -> str:
    return re.sub(r"[\W_]+", "", normalize(text))


def title_words(phrase: str) -> list[str]:
    """The words of a Chinese title or phrase in order (`_words`), for comparing titles word by word."""
    return _words(normalize(phrase))
