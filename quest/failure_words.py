"""Whether a question reports a failure: something the student's program did wrong, or the judge said it did.

Inside a named problem an error pattern is one bug of the problem. A student who reports a failure (a failing
verdict, an error, a wrong output, a crash, a program too slow) may have that bug; a student who reports none asks
how or why the solution works ("why is it safe to always move the shorter line?", "凭什么左边这格的水量已经确定了？",
"isn't the inner while O(n^2)?", "初始化成 amount + 1 应该就够了吧？"), and the problem's official solution or
explanation answers that (docs/retrieval.md, round 17).

The words are listed by kind, not phrase by phrase; a word that reports a failure in some sentences and not in others
is listed (a question wrongly read as a failure report keeps the order the search gave, the cheaper mistake):

- something went wrong: an error, an exception, a crash, an overflow, a bug, a problem (错, 报错, 崩, 越界, 问题);
- the result is wrong or incomplete: wrong, expected, should, missing, duplicates, empty (不对, 偏大, 漏, 重复);
- the student describes what the program did: returns, prints, outputs, gives, got (输出, 返回, 结果, 变成);
- it is too slow or never ends: slow, stuck, hangs, infinite, times out (超时, 慢, 卡, 死循环);
- it does not work or pass: fails, broken, works (失败, 不行, 过不了, 没有通过, 只通过了, 部分通过, 不了).

"instead" is not one: "a heap instead of a deque" asks about another approach; "returns 3 instead of 2" is read
by "returns".
"""

from __future__ import annotations

import re

# Chinese words of each kind, simplified and traditional (matched as substrings: Chinese has no spaces).
_ZH_WENT_WRONG = "错 錯 崩 报 報 异常 異常 越界 溢出 溢位 空指针 空指標 爆 问题 問題"
_ZH_WRONG_RESULT = ("不对 不對 不正确 不正確 有误 有誤 偏大 偏小 不一样 不一樣 少了 多了 漏 重复 重複 "
                    "只剩 没了 沒了 丢 丟 全是")
_ZH_OBSERVED = "输出 輸出 返回 回传 回傳 结果 結果 得到 变成 變成 成了"
_ZH_SLOW = "超时 超時 逾时 逾時 慢 卡 死循环 死循環 跑不动 跑不動 一直"
_ZH_NOT_WORKING = ("失败 失敗 不行 过不了 過不了 过不去 過不去 没过 沒過 没通过 沒通過 不通过 不通過 "
                   "未通过 未通過 没有通过 沒有通過 没能通过 沒能通過 无法通过 無法通過 部分通过 部分通過 "
                   "只通过 只通過 只过了 只過了 不了 挂 掛 当掉 當掉")
ZH_FAILURE_WORDS = tuple(" ".join((_ZH_WENT_WRONG, _ZH_WRONG_RESULT, _ZH_OBSERVED, _ZH_SLOW, _ZH_NOT_WORKING)).split())

# English words of the same kinds (whole words, any case).
_EN_WENT_WRONG = r"errors?|exceptions?|crash\w*|segfault\w*|abort\w*|overflow\w*|bugs?|blows?|dies|died|killed"
_EN_WRONG_RESULT = (r"wrong|incorrect|expected|should|missing|miss(?:es)?|duplicat\w*|empty|lost|los(?:e|es)|gone|"
                    r"leaks?|mismatch\w*|differ\w*")
_EN_OBSERVED = r"returns?|returned|prints?|printed|outputs?|gives?|gave|got"
_EN_SLOW = r"slow|time[sd]?\s*out|timeout|stuck|hangs?|freez\w*|infinite|never"
_EN_NOT_WORKING = r"fail\w*|broken|work(?:s|ing)?|tle|wa"
_EN_FAILURE = re.compile(r"\b(?:" + "|".join((_EN_WENT_WRONG, _EN_WRONG_RESULT, _EN_OBSERVED, _EN_SLOW,
                                                _EN_NOT_WORKING)) + r")\b", re.IGNORECASE)

# A pasted judge's result that says the submission passed: "Accepted", LeetCode China's "通过" (above "63 / 63 个通过的
# 测试用例" and the run time), HUSTOJ's "正确" (its Chinese name for Accepted, lang/cn.php), "通過": no failure. The
# word alone, not the start of another ("通过率", "通过的测试用例", "正确答案", "正确输出："): Chinese has no spaces.
_ACCEPTED = re.compile(r"^\s*(?:accepted|ac|通过|通過|答案正确|答案正確|正确|正確)了?(?![A-Za-z\u3400-\u9fff])",
                       re.IGNORECASE)
# ...unless a count of tests follows that is not all of them: "通过了 3/10", LeetCode China's "11 / 74 个通过的测试用例"
# (the count it shows under a failing verdict). Looked for near the start, where the judge's summary is, and only
# right after the word or beside a word for tests: any "a/b" there also read a date ("10/13 12:30") or an input's
# fraction under an acceptance as a partial pass.
_COUNT = r"(\d{1,6})[ \t]*/[ \t]*(\d{1,6})"
_TESTS = r"(?:通过|通過|测试|測試|用例|test|case)"
_PASSED_COUNT = re.compile(
    r"^\s*(?:accepted|ac|通过|通過)了?[ \t:：]*" + _COUNT  # "Accepted 3/10", "通过了 3/10"
    + r"|" + _COUNT + r"[ \t]*(?:个|個|组|組)?[ \t]*" + _TESTS  # "11 / 74 个通过的测试用例", "7/20 tests"
    + r"|" + _TESTS + r"[^\n\d]{0,12}?" + _COUNT,  # "通过的测试用例：11 / 74", "passed tests: 3/10"
    re.IGNORECASE)
_SUMMARY_CHARS = 200


def describes_failure(text: str) -> bool:
    """Whether the text has a word that reports a failure of the student's program (see the kinds above)."""
    if not text:
        return False
    return any(word in text for word in ZH_FAILURE_WORDS) or _EN_FAILURE.search(text) is not None


def reports_acceptance(error: str) -> bool:
    """Whether a pasted judge's output opens by saying the submission passed."""
    if _ACCEPTED.match(error or "") is None:
        return False
    for m in _PASSED_COUNT.finditer(error[:_SUMMARY_CHARS]):
        passed, total = (int(n) for n in m.groups() if n is not None)
        if passed < total:
            return False
    return True
