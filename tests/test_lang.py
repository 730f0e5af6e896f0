"""One language rule: CJK characters against Latin letters; digits, formulas and spaces count for neither."""

from __future__ import annotations

import pytest

from quest.kb.importers import common
from quest.lang import detect_lang
from quest.request import Request


@pytest.mark.parametrize(("texts", "lang"), [
    (("为什么超时？",), "zh"),
    (("Why is my solution too slow?",), "en"),
    (("",), "en"),
    ((), "en"),
    (("1 <= n <= 10^5, 0 <= a_i <= 10^9",), "en"),
    (("给定数组 a，长度 n，1 <= n <= 10^5，输出 a_i 的最大值",), "zh"),  # formulas do not outvote the prose
    (("我的 list.pop(0) 为什么 TLE",), "zh"),  # 7 CJK against 8 letters: Chinese
    (("Why does my sliding window for 滑动窗口 time out on test 14?",), "en"),
    (("Sum of Digits", "计算数位之和"), "zh"),  # several texts count together
    (("㐀㐁",), "zh"),  # CJK Extension A
])  # fmt: skip
def test_detect_lang(texts, lang):
    assert detect_lang(*texts) == lang


def test_the_request_and_the_importers_use_the_same_rule():
    assert common.detect_lang is detect_lang
    assert Request(question="为什么 TLE").answer_lang() == "zh"
