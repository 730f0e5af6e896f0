"""Tokens for BM25: jieba for Chinese, split code identifiers for code, one vocabulary for both.

- Chinese runs go through jieba's search mode, so "时间超限" also yields "时间" and "超限".
- Identifiers keep their whole (lowercased) form and add their parts:
  ``maxSlidingWindow`` and ``max_sliding_window`` both give max / sliding / window.
- Verdict words in either language get a shared canonical token ("超时", "时间超限", "TLE" and
  "time limit exceeded" all add ``tle``), so a Chinese question finds an English verdict page.
- Lowercased; punctuation and a short list of function words are dropped.
"""

from __future__ import annotations

import logging
import re
import threading
from functools import lru_cache

log = logging.getLogger(__name__)

_TOKEN = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]+|[A-Za-z_][A-Za-z0-9_]*|\d+")
_CAMEL = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|\d+")

# Phrases (matched on the lowercased text) and single tokens that mean a verdict.
VERDICT_ALIASES: dict[str, tuple[str, ...]] = {
    "tle": ("time limit exceeded", "time limit", "timeout", "timed out",
            "超时", "时间超限", "运行超时", "超出时间限制", "tle"),
    "wa": ("wrong answer", "答案错误", "答案不正确", "结果错误", "wa"),
    "re": ("runtime error", "运行错误", "运行时错误", "段错误", "segmentation fault", "segfault", "re"),
    "ce": ("compile error", "compilation error", "编译错误", "编译失败", "ce"),
    "mle": ("memory limit exceeded", "内存超限", "超内存", "超出内存限制", "mle"),
    "ole": ("output limit exceeded", "输出超限", "ole"),
    "pe": ("presentation error", "格式错误", "pe"),
    "ac": ("accepted", "答案正确", "通过", "ac"),
}

STOPWORDS = frozenset(
    """
    a an the is are was were be been being am do does did doing have has had i me my we our you your
    he she it its they them their this that these those of in on at to for from by with as and or but if
    then so not no can could would should will just about into than too very what why how when where which
    who whom there here get got also any some all
    的 了 是 我 你 他 她 它 们 吗 呢 吧 啊 在 和 与 及 或 就 都 也 还 又 把 被 让 给 这 那 这个 那个 一个
    什么 怎么 为什么 如何 请问 一下 有 没有 没 会 能 要 想 个 中 上 下 里 对 用 从 到 而 但 并 很
    """.split()
)

_jieba_lock = threading.Lock()
_jieba_ready = False


def _jieba():
    """Import and initialise jieba once, quietly (its dictionary load is the slow part)."""
    global _jieba_ready
    import jieba

    if not _jieba_ready:
        with _jieba_lock:
            if not _jieba_ready:
                jieba.setLogLevel(logging.WARNING)
                jieba.initialize()
                _jieba_ready = True
    return jieba


def split_identifier(word: str) -> list[str]:
    """'maxSlidingWindow' / 'max_sliding_window' -> ['max', 'sliding', 'window'] (lowercased)."""
    parts: list[str] = []
    for piece in word.split("_"):
        parts.extend(p.lower() for p in _CAMEL.findall(piece))
    return [p for p in parts if p]


@lru_cache(maxsize=4096)
def _cut_chinese(run: str) -> tuple[str, ...]:
    return tuple(t for t in _jieba().cut_for_search(run) if t.strip())


def tokenize(text: str) -> list[str]:
    """Tokens of `text` for BM25 (with repetition: term frequency matters)."""
    if not text:
        return []
    tokens: list[str] = []
    for m in _TOKEN.finditer(text):
        word = m.group(0)
        first = word[0]
        if first.isdigit():
            tokens.append(word)
        elif first.isascii():
            lower = word.lower()
            parts = split_identifier(word)
            if lower not in STOPWORDS:
                tokens.append(lower)
            if len(parts) > 1:
                tokens.extend(p for p in parts if p not in STOPWORDS and len(p) > 1)
        else:
            tokens.extend(t for t in _cut_chinese(word) if t not in STOPWORDS)
    tokens.extend(_verdict_tokens(text))
    return tokens


def _verdict_tokens(text: str) -> list[str]:
    lower = text.lower()
    found: list[str] = []
    for canonical, aliases in VERDICT_ALIASES.items():
        for alias in aliases:
            if alias.isascii() and len(alias) <= 3:
                hit = re.search(rf"(?<![a-z0-9_]){re.escape(alias)}(?![a-z0-9_])", lower) is not None
                # "re", "pe", "ac", "wa" as words are ambiguous in English prose; only count them
                # when written in capitals, as judges and students do.
                if hit and canonical in {"re", "pe", "ac", "wa"}:
                    hit = re.search(rf"(?<![A-Za-z0-9_]){alias.upper()}(?![A-Za-z0-9_])", text) is not None
            else:
                hit = alias in lower
            if hit:
                # The canonical token stands apart from the word itself: "tle" the word is already
                # a token; "verdict_tle" is what a Chinese "超时" and an English "TLE" share.
                found.append(f"verdict_{canonical}")
                break
    return found
