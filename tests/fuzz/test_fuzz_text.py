"""Fuzzing the text handlers (issue 11, item 6): judge parser, citation checker, code gate,
request validation and the input decoder. No input may raise anything but the documented
QuestError subclasses, and each property below must hold for every input."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from quest import judge
from quest.citations import check_citations
from quest.encoding import decode_text
from quest.errors import InputError
from quest.i18n import INPUT_FIELDS
from quest.policy import CodeGate, code_blocks
from quest.request import Request, Turn, validate_request
from quest.settings import TIERS, Settings
from tests.fuzz.strategies import CITATION_FRAGMENTS, FENCE_FRAGMENTS, JUDGE_FRAGMENTS, TEXT, mixed
from tests.fuzz.support import bounded, examples

SETTINGS = Settings()


@examples(800)
@given(mixed(JUDGE_FRAGMENTS, max_parts=60), st.one_of(st.none(), st.sampled_from(["TLE", "wa", "", "??"]), TEXT))
def test_the_judge_parser_reads_anything(text: str, hint: str | None) -> None:
    report = bounded(judge.parse, text, hint)
    assert report.verdict is None or report.verdict in judge.VERDICTS
    assert isinstance(report.query_text(), str)


@examples(600)
@given(mixed(CITATION_FRAGMENTS, max_parts=40), st.sets(st.integers(0, 12), max_size=6))
def test_the_citation_checker_keeps_only_valid_numbers(answer: str, valid: set[int]) -> None:
    check = bounded(check_citations, answer, valid)
    assert set(check.cited) <= valid
    assert len(check.cited) == len(set(check.cited)) and check.removed >= 0
    if "[" not in answer and "【" not in answer:
        assert check.text == answer


def _gated(pieces: list[str], max_lines: int) -> tuple[str, int]:
    gate = CodeGate(enabled=True, max_lines=max_lines)
    out = "".join(gate.feed(p) for p in pieces) + gate.flush()
    return out, gate.removed


@examples(400)
@given(st.lists(mixed(FENCE_FRAGMENTS, max_parts=8), max_size=25), st.integers(0, 4))
def test_the_code_gate_never_lets_a_long_block_through(pieces: list[str], max_lines: int) -> None:
    out, removed = bounded(_gated, pieces, max_lines)
    whole, whole_removed = _gated(["".join(pieces)], max_lines)
    assert (out, removed) == (whole, whole_removed)  # however the stream is cut, the same answer
    for block in code_blocks(out):  # Markdown ends lines at LF (CRs are LFs by now), not at \x1e or \u2028
        assert block.count("\n") + (0 if block.endswith("\n") or not block else 1) <= max_lines, block
    if removed == 0:
        assert out == "".join(pieces).replace("\r\n", "\n").replace("\r", "\n")


REQUEST = st.builds(
    Request,
    question=st.one_of(TEXT, st.text(max_size=2100)),
    problem_id=st.one_of(st.none(), TEXT, st.integers().map(str)),
    language=st.one_of(st.sampled_from(["python", "C++", "py", "js", "rust", ""]), TEXT),
    code=st.one_of(TEXT, st.text(max_size=20_100)),
    error=st.one_of(mixed(JUDGE_FRAGMENTS), st.just("\x00" * 10)),
    verdict=st.one_of(st.none(), TEXT),
    history=st.lists(st.builds(Turn, question=TEXT, answer=TEXT), max_size=3).map(tuple),
    tier=st.one_of(st.sampled_from(TIERS), TEXT),
    ui_lang=st.sampled_from(["zh", "en", "auto", "fr"]),
)


@examples(300)
@given(REQUEST)
def test_request_validation_accepts_or_says_why(request: Request) -> None:
    try:
        checked = bounded(validate_request, request, SETTINGS)
    except InputError as exc:
        assert exc.field in INPUT_FIELDS and exc.reason in ("empty", "too_long", "binary")
        return
    assert checked.tier in TIERS and checked.answer_lang() in ("zh", "en")
    assert len(checked.question) <= SETTINGS.max_question_chars and len(checked.code) <= SETTINGS.max_code_chars


BYTES = st.one_of(
    st.binary(max_size=1000),
    st.tuples(TEXT, st.sampled_from(["utf-8", "utf-8-sig", "gb18030", "utf-16", "utf-16-le", "utf-32"]))
    .map(lambda te: te[0].encode(te[1])),
    st.tuples(st.text(st.characters(codec="big5"), max_size=200)).map(lambda t: t[0].encode("big5")),
)


@examples(200)
@given(BYTES)
def test_the_decoder_returns_text_or_refuses(data: bytes) -> None:
    try:
        decoded = bounded(decode_text, data)
    except InputError as exc:
        assert exc.reason == "binary"
        return
    assert "\x00" not in decoded.text
    if data.startswith(b"\xef\xbb\xbf") or not data:
        assert decoded.encoding in ("utf-8-sig", "utf-8")


@examples(200)
@given(TEXT.filter(lambda t: "\x00" not in t))
def test_utf8_text_always_round_trips(text: str) -> None:
    try:
        assert decode_text(text.encode("utf-8")).text == text.replace("\r\n", "\n").removeprefix("\ufeff")
    except InputError as exc:  # arbitrary control characters may look binary, and that is fine
        assert exc.reason == "binary"
