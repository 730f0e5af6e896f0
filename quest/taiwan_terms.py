"""Taiwan's computing words that OpenCC tw2sp leaves as they are, with the mainland's word: one table for the planner
(titles and topics, `quest.topic_words.mainland_terms`) and the search (`quest.retrieval.mainland_words`).

Our own short list, facts of usage: 鏈結串列 is a linked list, 二元樹 a binary tree, 二元搜尋樹 a binary search tree,
副程式 a subroutine (函数), 記憶體配置 memory allocation, 走訪 a traversal (遍历), 子字串 a substring (子串, as the
titles say it), 子集合 a subset, 實作 to implement, 環狀 circular (环形), a sorted list or array (排序的鏈結串列 /
陣列: 有序), 堆疊 a stack, 區段錯誤 a segmentation fault, 費氏數列 / 費波那契 Fibonacci, 例外 an exception, 回傳 to
return, 全域 global, 區域變數 a local variable, 標頭檔 a header file, 溢位 an overflow.
"""

from __future__ import annotations

import re
from collections.abc import Callable

TAIWAN_TERMS = {
    "鏈結串列": "链表", "二元搜尋樹": "二叉搜索树", "二元樹": "二叉树", "副程式": "函数", "記憶體配置": "内存分配",
    "走訪": "遍历", "子字串": "子串", "子集合": "子集", "實作": "实现", "環狀": "环形",
    "排序的鏈結串列": "有序链表", "排序的陣列": "有序数组",
    "堆疊": "栈", "區段錯誤": "段错误", "費氏數列": "斐波那契数列", "費波那契": "斐波那契", "例外": "异常",
    "回傳": "返回", "全域": "全局", "區域變數": "局部变量", "標頭檔": "头文件", "溢位": "溢出",
}
_TERMS = re.compile("|".join(sorted(map(re.escape, TAIWAN_TERMS), key=len, reverse=True)))


def replace_taiwan_terms(text: str, spaced: bool = False) -> str:
    """`text` with Taiwan's words in the table as the mainland says them; `spaced` sets each replacement apart, so
    the tokenizer cuts it as a word of its own."""
    replace: Callable[[re.Match[str]], str] = ((lambda m: f" {TAIWAN_TERMS[m.group(0)]} ") if spaced
                                               else (lambda m: TAIWAN_TERMS[m.group(0)]))
    return _TERMS.sub(replace, text)
