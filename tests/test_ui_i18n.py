"""The interface's two languages and the messages for unusable requests."""

from __future__ import annotations

import re

import pytest

from quest.errors import InputError
from quest.i18n import STRINGS, input_error_text, resolve_lang, t
from quest.request import Request, validate_request
from quest.settings import Settings


def test_every_key_exists_in_both_languages_with_the_same_placeholders():
    assert set(STRINGS["zh"]) == set(STRINGS["en"])
    for key, text in STRINGS["en"].items():
        assert set(re.findall(r"{(\w+)}", text)) == set(re.findall(r"{(\w+)}", STRINGS["zh"][key])), key


@pytest.mark.parametrize(
    ("browser", "expected"),
    [("zh-CN", "zh"), ("zh_TW", "zh"), ("ZH", "zh"), ("en-US", "en"), ("en", "en"), ("fr-FR", "en"), ("", "en"),
     (None, "en")],
)  # fmt: skip
def test_resolve_lang(browser, expected):
    assert resolve_lang(browser) == expected


def test_resolve_lang_default_for_unknown():
    assert resolve_lang("de-DE", default="zh") == "zh"


def test_t_fills_values_and_falls_back_to_english():
    assert t("rate_limited", "zh", seconds=7) == "提问太频繁了，请等待 7 秒后再提问。"
    assert t("send", "fr") == "Send"


def _error(settings: Settings, **fields) -> InputError:
    with pytest.raises(InputError) as info:
        validate_request(Request(**fields), settings)
    return info.value


SMALL = Settings(max_question_chars=10, max_code_chars=20, max_error_chars=15)


def test_too_long_question_names_field_length_and_limit():
    exc = _error(SMALL, question="x" * 11)
    assert input_error_text(exc, "en") == (
        "Your question is 11 characters long; the limit is 10. "
        "Please shorten it and send again (nothing was cut for you)."
    )
    assert input_error_text(exc, "zh") == "你的问题有 11 个字符，超过了上限 10。请删减后重新发送（系统不会替你截断）。"


def test_too_long_code_and_error():
    assert input_error_text(_error(SMALL, question="q", code="c" * 2000), "en").startswith(
        "Your code is 2,000 characters long; the limit is 20."
    )
    assert input_error_text(_error(SMALL, question="q", error="e" * 16), "zh").startswith(
        "你的评测信息有 16 个字符，超过了上限 15。"
    )


def test_empty_request():
    exc = _error(SMALL, question="   ")
    assert input_error_text(exc, "en") == (
        "Please type a question (and, if you have them, your code and the judge's message)."
    )
    assert input_error_text(exc, "zh") == "请输入问题（如果有，也请附上代码和评测信息）。"


def test_binary_code():
    exc = _error(Settings(), question="q", code="a\x00b")
    assert input_error_text(exc, "en") == "Your code looks like binary data, not text. Please paste it as text."
