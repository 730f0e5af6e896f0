"""Problem numbers written in Chinese numerals: "力扣第一题", "第二十题", "第一百四十六題".

Students write a problem's number the way they say it. `第239题` is read by the id rule of
`quest.resolution`; this module reads the same shape with Chinese numerals. "第一题" is also simply "the
first problem" of a homework, an exam or a contest, so such a number names a (LeetCode-numbered)
base problem only with a judge's name right before it ("力扣第一题") or that problem's own title in
the question ("第一题两数之和") — see `quest.resolution.ids.by_id`.
"""

from __future__ import annotations

import re

_DIGITS = {"零": 0, "〇": 0, "一": 1, "二": 2, "两": 2, "兩": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7,
           "八": 8, "九": 9}
_UNITS = {"十": 10, "百": 100, "千": 1000}
_NUMERAL = "零〇一二两兩三四五六七八九十百千"
# "第一题", "第 二十 题", "第一百四十六題", "第三道"; group 1 is the numeral.
ORDINAL = re.compile(rf"第\s*([{_NUMERAL}]{{1,8}})\s*(?:题|題|道)(?!目)")


def zh_number(numeral: str) -> int | None:
    """'一百四十六' -> 146, '二十' -> 20, '十二' -> 12, '一〇四' -> 104; None when it is not a number."""
    if not numeral or any(ch not in _DIGITS and ch not in _UNITS for ch in numeral):
        return None
    if not any(ch in _UNITS for ch in numeral):  # digit by digit, as years and ids are read: 一〇四
        return int("".join(str(_DIGITS[ch]) for ch in numeral))
    total, digit = 0, None
    for ch in numeral:
        if ch in "零〇":  # "一百零五": the zero only says a place is empty
            continue
        if ch in _DIGITS:
            if digit is not None:  # two digits in a row ("一二十") is no number
                return None
            digit = _DIGITS[ch]
        else:
            total += (1 if digit is None else digit) * _UNITS[ch]  # "十二": the ten stands alone
            digit = None
    return total + (digit or 0)


def ordinal_ids(text: str) -> list[tuple[re.Match[str], str]]:
    """Each "第…题" with Chinese numerals in `text` and the number it says, as digits."""
    found = []
    for m in ORDINAL.finditer(text):
        value = zh_number(m.group(1))
        if value:
            found.append((m, str(value)))
    return found
