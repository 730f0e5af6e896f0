from quest.citations import check_citations


def test_invalid_numbers_are_removed_and_counted() -> None:
    check = check_citations("Use a deque [1]. See [2][7] and [3, 9]. Also [8].", {1, 2, 3})
    assert check.text == "Use a deque [1]. See [2] and [3]. Also."
    assert check.cited == (1, 2, 3)
    assert check.removed == 3


def test_code_and_links_are_not_citations() -> None:
    answer = "Line `dq[0]` and nums[5] [1]\n```python\nx = dp[9][3]\n    y  = [4]\n```\nsee [4](http://a) 【2】"
    check = check_citations(answer, {1, 2})
    assert check.text == answer.replace("【2】", "[2]")
    assert check.cited == (1, 2)
    assert check.removed == 0


def test_chinese_punctuation_and_order_of_first_use() -> None:
    check = check_citations("先看 [3]，再看 [1]、[3] 和 [5]。", {1, 3})
    assert check.text == "先看 [3]，再看 [1]、[3] 和。"
    assert check.cited == (3, 1)
    assert check.removed == 1
