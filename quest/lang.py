"""Which language a text is written in, as far as Quest needs to know: Chinese or English.

One rule for the whole app (the answer language of a question, the `lang` of an imported
problem): Chinese when CJK characters make up at least a sixth as many as the Latin letters.
Digits, punctuation, formulas and whitespace count for neither side, so a Chinese statement full
of `1 <= n <= 10^5` stays Chinese, and an English question quoting a Chinese title stays English
only if the English clearly dominates.
"""

from __future__ import annotations

import re

#: CJK Unified Ideographs with Extension A and the compatibility block.
CJK = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")
_LATIN = re.compile(r"[A-Za-z]")


def detect_lang(*texts: str) -> str:
    """'zh' when the texts together have a fair share of CJK characters, else 'en' (also for no text)."""
    text = "".join(texts)
    cjk = len(CJK.findall(text))
    return "zh" if cjk and cjk * 6 >= len(_LATIN.findall(text)) else "en"
