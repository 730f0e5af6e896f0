"""The words a question in Taiwan's wording adds when said the mainland's way, for the query only.

The base is written in mainland Chinese. Plain OpenCC t2s changes characters, not words: 遞迴 becomes 递回 (the
base says 递归), 記憶體 记忆体 (内存), 堆疊 堆叠 (栈), 陣列 阵列 (数组), so a traditional question about a stack
overflow in recursion shares almost no word with the page that explains it. OpenCC tw2sp also changes the words,
but it has false friends (子序列 → 子串行, 程序 → 进程, 文件 → 文档) that must never replace what the student wrote
or the base's own text. So the question keeps its t2s wording and only the words tw2sp (and a short list of our
own for the terms tw2sp leaves) adds beyond it are searched besides, and never a false friend's.
"""

from __future__ import annotations

import re

from quest.retrieval.tokenize import opencc_converter, to_simplified, tokenize
from quest.taiwan_terms import replace_taiwan_terms

# Words tw2sp rewrites although the base uses them as they are: 子序列 (a subsequence) is not 子串行, 程序 (a
# program) not 进程 (a process), 文件 (a file) not 文档 (a document). They are left out of the conversion.
FALSE_FRIENDS = ("子序列", "程序", "文件")
_FALSE_FRIEND = re.compile("(" + "|".join(FALSE_FRIENDS) + ")")
_HAN = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]")


def is_traditional(text: str) -> bool:
    """Whether the text has characters that t2s changes (a question written in traditional characters)."""
    return bool(_HAN.search(text)) and to_simplified(text) != text


def mainland_words(text: str) -> str:
    """The tokens the mainland wording of a traditional-Chinese `text` has and its plain t2s wording lacks,
    space-separated, in order, each once; "" for text in simplified characters or without Chinese."""
    if not is_traditional(text):
        return ""
    own = replace_taiwan_terms(text, spaced=True)  # words tw2sp leaves (`quest.taiwan_terms`), set apart for jieba
    mainland = tw2sp_keeping_false_friends(own)
    plain = set(tokenize(text))
    added = (t for t in tokenize(mainland) if t not in plain and _HAN.search(t))
    return " ".join(dict.fromkeys(added))


def tw2sp_keeping_false_friends(text: str) -> str:
    """`text` in the mainland's wording (OpenCC tw2sp), its false friends (子序列, 程序, 文件) kept as written."""
    tw2sp = opencc_converter("tw2sp")
    return "".join(piece if i % 2 else tw2sp.convert(piece) for i, piece in enumerate(_FALSE_FRIEND.split(text)))


def with_mainland_words(question: str) -> str:
    """The question part of a query: a traditional-Chinese question followed by the words its mainland wording
    adds (`mainland_words`); any other question as it is."""
    extra = mainland_words(question)
    return f"{question}\n{extra}" if extra else question
