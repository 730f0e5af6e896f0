"""Hostile and odd input at the check every entry point shares (`validate_request`): invisible questions, lone
surrogates, and the problem and verdict fields, which had no bound (red-team round of 2026-12-03)."""

from __future__ import annotations

import pytest

from quest.errors import InputError
from quest.i18n import input_error_text
from quest.request import Request, validate_request
from quest.settings import Settings

SETTINGS = Settings()


@pytest.mark.parametrize("question", ["\u200b\u200b", "\u202e\u202d\u2066", " \u2060\ufeff\u200d\n", "\ufeff"])
def test_a_question_of_invisible_characters_only_is_empty(question: str) -> None:
    with pytest.raises(InputError) as info:
        validate_request(Request(question=question), SETTINGS)
    assert (info.value.field, info.value.reason) == ("question", "empty")
    assert input_error_text(info.value, "en") == (
        "Please type a question (and, if you have them, your code and the judge's message).")


def test_an_invisible_question_with_code_asks_about_the_code() -> None:
    checked = validate_request(Request(question="\u200b", code="print(1)\n"), SETTINGS)
    assert (checked.question, checked.code) == ("", "print(1)\n")
    with pytest.raises(InputError):  # code of zero-width spaces is no code either
        validate_request(Request(question="\u200b", code="\u200b\u200b\n"), SETTINGS)


def test_visible_text_around_format_characters_is_kept_as_typed() -> None:
    assert validate_request(Request(question="why\u200b TLE \u202e"), SETTINGS).question == "why\u200b TLE \u202e"


def test_lone_surrogates_in_every_text_field_become_replacement_characters() -> None:
    # A JSON caller's "\ud800" or argv bytes that are not UTF-8 ("\udcff"): the model call failed on them (httpx
    # encodes the body as UTF-8) and the student was told the AI helper was down.
    checked = validate_request(Request(question="why \ud800 TLE", problem_id="23\udcff", code="x = '\udfff'\n",
                                       error="TLE \ud83d", verdict="T\udc80LE"), SETTINGS)
    assert (checked.question, checked.problem_id, checked.code, checked.error, checked.verdict) == (
        "why \ufffd TLE", "23\ufffd", "x = '\ufffd'\n", "TLE \ufffd", "T\ufffdLE")
    for text in (checked.question, checked.problem_id, checked.code, checked.error, checked.verdict):
        text.encode("utf-8")  # raised UnicodeEncodeError before


def test_a_proper_pair_is_one_character_and_stays() -> None:
    assert validate_request(Request(question="why 😀"), SETTINGS).question == "why 😀"


@pytest.mark.parametrize(("field", "value", "en", "zh"), [
    ("problem_id", "9" * 101, "Your problem field is 101 characters long; the limit is 100. Please shorten it and send "
                              "again (nothing was cut for you).",
     "你的题目有 101 个字符，超过了上限 100。请删减后重新发送（系统不会替你截断）。"),
    ("verdict", "TLE" * 1_000, "Your verdict field is 3,000 characters long; the limit is 100. Please shorten it and "
                               "send again (nothing was cut for you).",
     "你的评测结果有 3,000 个字符，超过了上限 100。请删减后重新发送（系统不会替你截断）。"),
    ("problem_id", "23\x009", "Your problem field looks like binary data, not text. Please paste it as text.",
     "你的题目看起来是二进制数据而不是文本，请以文本形式粘贴。"),
])  # fmt: skip
def test_the_problem_and_verdict_fields_are_bounded_and_checked(field: str, value: str, en: str, zh: str) -> None:
    # Before: any length went through (a 5 MB --problem was echoed in "problem ... is not in the knowledge base",
    # a 3 MB verdict reached the judge parser beside the bounded message) and NUL bytes reached the prompt.
    with pytest.raises(InputError) as info:
        validate_request(Request(question="why TLE?", **{field: value}), SETTINGS)
    assert info.value.field == field.removesuffix("_id")
    assert (input_error_text(info.value, "en"), input_error_text(info.value, "zh")) == (en, zh)


def test_the_cli_reads_the_message_of_the_error_itself() -> None:
    with pytest.raises(InputError, match=r"^The problem id is 101 characters long; the limit is 100\. "):
        validate_request(Request(question="q", problem_id="9" * 101), SETTINGS)


@pytest.mark.parametrize("text", ["../../etc/passwd", "{{7*7}}", "${7*7}", "%s %(x)s {0}", "1' OR '1'='1"])
def test_template_and_path_text_in_the_problem_field_is_kept_as_plain_text(text: str) -> None:
    assert validate_request(Request(question="why?", problem_id=text), SETTINGS).problem_id == text
