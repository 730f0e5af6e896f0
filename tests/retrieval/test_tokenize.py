import pytest

from quest.retrieval.tokenize import split_identifier, tokenize


def test_camel_and_snake_identifiers_share_their_parts_and_keep_the_whole():
    camel = tokenize("maxSlidingWindow")
    snake = tokenize("max_sliding_window")
    assert camel == ["maxslidingwindow", "max", "sliding", "window"]
    assert snake == ["max_sliding_window", "max", "sliding", "window"]


def test_split_identifier_handles_acronyms_and_digits():
    assert split_identifier("parseHTTPResponse2") == ["parse", "http", "response", "2"]
    assert split_identifier("__init__") == ["init"]


def test_method_calls_match_the_document_words():
    assert {"list", "pop", "0"} <= set(tokenize("List.pop(0)"))
    assert "popleft" in tokenize("用 deque.popleft() 代替")


def test_lowercase_and_punctuation_dropped():
    assert tokenize("Hello, WORLD!!! (test)") == ["hello", "world", "test"]


def test_chinese_uses_jieba_search_mode():
    tokens = tokenize("时间超限")
    assert "时间" in tokens and "超限" in tokens


def test_chinese_and_english_verdict_words_share_a_token():
    for text in ("超时", "时间超限", "TLE on test 3", "Time Limit Exceeded"):
        assert "verdict_tle" in tokenize(text), text
    assert "verdict_tle" not in tokenize("a fast solution")


def test_a_judge_count_of_passed_test_cases_is_no_acceptance():
    # LeetCode CN prints "N / M 个通过的测试用例" under a wrong answer or a time limit too: only the words of an
    # acceptance ("通过", "提交通过了") mean one; a count of passed cases or a negation ("不通过") does not.
    for text in ("超出时间限制 315 / 320 个通过的测试用例", "解答错误 通过测试用例：31 / 62",
                 "超出时间限制 已通过 20/22 个测试用例", "提交却不通过", "没通过"):
        assert "verdict_ac" not in tokenize(text), text
    assert tokenize("超出时间限制 315 / 320 个通过的测试用例").count("verdict_tle") == 1
    for text in ("通过 执行用时：44 ms", "提交通过了，这个写法靠谱吗", "AC 了"):
        assert "verdict_ac" in tokenize(text), text


def test_ambiguous_short_abbreviations_need_capitals():
    assert "verdict_re" in tokenize("RE on test 2")
    assert "verdict_re" not in tokenize("we re-use the array")
    assert "verdict_wa" not in tokenize("it wa")


def test_stopwords_are_dropped():
    assert tokenize("what is the answer") == ["answer"]
    assert tokenize("我的代码") == ["代码"]


def test_how_a_chinese_question_asks_and_pleads_is_dropped_what_it_is_about_stays():
    question = "萌新求助：递归写法哪里不对？大佬帮忙看看，是不是边界写错了呀"
    assert tokenize(question) == ["递归", "写法", "不", "边界", "写错"]


def test_empty():
    assert tokenize("") == []
    assert tokenize("   \n\t") == []


@pytest.mark.parametrize("text,tokens", [
    # C# and F# are no C or F: as "c", a C# question matched every C/C++ page.
    ("C# IndexOutOfRangeException", ["c#", "indexoutofrangeexception", "index", "out", "range", "exception"]),
    ("c# substring", ["c#", "substring"]),
    ("F# list", ["f#", "list"]),
    ("Python/C#/Java", ["python", "c#", "java"]),
    ("C#的 Substring 报错", ["c#", "substring", "报错"]),
    # C++ is one token too; "C/C++" gives both languages.
    ("Two Sum (C++)", ["two", "sum", "c++"]),
    ("c++ vector", ["c++", "vector"]),
    ("C++11 lambdas", ["c++", "11", "lambdas"]),
    ("C/C++ int overflow", ["c", "c++", "int", "overflow"]),
    # A variable incremented in code stays the variable; C alone stays C.
    ("for (c = 0; c < n; c++) {}", ["c", "0", "c", "n", "c"]),
    ("a[c++] = 1", ["c", "1"]),
    # Lowercase "c++" in prose, after a bracket that follows a space or starts the text, or before digits: the language.
    ("two sum (c++)", ["two", "sum", "c++"]),
    ("(c++)", ["c++"]),
    ("[c++] segfault", ["c++", "segfault", "verdict_re"]),
    ("-std=c++17", ["std", "c++", "17"]),
    ("c++11", ["c++", "11"]),
    ("c++17", ["c++", "17"]),
    ("C++17", ["c++", "17"]),
    ("in c++, how", ["c++"]),
    # Code around it: the variable c incremented.
    ("x+=c++", ["x", "c"]),
    ("x=c++,y", ["x", "c", "y"]),
    ("while (c++ < n)", ["while", "c", "n"]),
    ("f(c++, d)", ["f", "c", "d"]),
    ("c++;", ["c"]),
    ("my c code", ["c", "code"]),
    ("abc#d c#define", ["abc", "d", "c", "define"]),
])
def test_languages_named_with_a_sign_are_whole_tokens(text, tokens):
    assert tokenize(text) == tokens

