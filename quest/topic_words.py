"""The words of general topics: what tells "二分查找 边界" (a topic) from "回文数 负数" (a problem's title).

A phrase that opens a question looks the same whether it names a problem or a topic. What differs is
its words: the base's general documents (verdicts, pitfalls, sanitizers, languages) use the words of
topics ("数组越界", "Java Scanner", "Time Limit Exceeded"), and techniques have names of their own
("拓扑排序", "Union Find"), while a problem's title almost always has a word that no general document
needs ("回文数", "Rotate Array", "Median of Two Sorted Arrays", "合并K个升序链表").
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from quest.problem_names import _GENERIC, normalize
from quest.retrieval.tokenize import tokenize

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
    "堆栈溢出,核心已转储,递归,迭代,模板,边界条件,quick sort,merge sort,heap sort,bubble sort,insertion sort,selection sort,"
    "counting sort,radix sort,bucket sort,quicksort,mergesort,heapsort,union find,disjoint set,topological sort,"
    "breadth first search,depth first search,priority queue,monotonic stack,monotonic queue,segment tree,"
    "fenwick tree,binary indexed tree,sparse table,bitmask,bit manipulation,fast exponentiation,modular inverse,"
    "modular arithmetic,sieve,memoization,tabulation,backtracking,greedy,dynamic programming,recursion,iteration,"
    "hash map,hash set,hash table,time complexity,space complexity,big o,fast io,undefined behavior,"
    "undefined behaviour,floating point,deep copy,shallow copy,visual studio,vs code,vscode,code blocks,"
    "codeblocks,dev c++,clion,pycharm,intellij,eclipse,xcode,online judge"
).split(",")) | _GENERIC


class TopicWords:
    """Words and phrases of the general topics, from the base's general documents and the techniques."""

    def __init__(self, general_texts: Iterable[str] = (), tags: Iterable[str] = ()) -> None:
        words: set[str] = set()
        squashed: list[str] = []
        for text in general_texts:
            words.update(tokenize(text))
            squashed.append(_squash(text))
        self.words = frozenset(w for w in words if not w.startswith("verdict_"))
        self._text = "\n".join(squashed)
        self.techniques = frozenset(_squash(t) for t in (*TECHNIQUES, *tags))

    def own_words(self, phrase: str) -> list[str]:
        """The words of `phrase` that no general document uses ("回文" in 回文数, "rotate" in Rotate Array).

        jieba gives a long word and its parts ("边界条件", "边界", "条件"): a word whose parts are all known
        is known."""
        tokens = list(dict.fromkeys(t for t in tokenize(phrase) if not t.startswith("verdict_") and not t.isdigit()))
        known = [t for t in tokens if t in self.words]
        return [t for t in tokens if t not in self.words and not _covered(t, known)]

    def is_topic(self, phrase: str, *, marked: bool = False) -> bool:
        """A technique's name, or a phrase a general document spells out, or one made of topic words only.

        A `marked` phrase (in quotes, "X这道题", "the X problem") is meant as a name: made of topic words
        ("整数反转", "Reverse Integer") it is still a title unless it is a single topic word."""
        key = _squash(phrase)
        if not key or key in self.techniques or (len(key) >= 4 and key in self._text):
            return True
        own = self.own_words(phrase)
        if marked:
            return not own and len(list(dict.fromkeys(tokenize(phrase)))) <= 1
        return not own


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
