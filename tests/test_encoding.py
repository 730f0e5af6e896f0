"""Student code and text in any common encoding (issue 11, item 5)."""

import codecs
import io
import sys
from pathlib import Path

import pytest

import quest.retrieval.retriever as retriever_module
from quest.cli import main
from quest.commands.common import read_code
from quest.encoding import decode_text, read_text_file
from quest.errors import InputError
from tests.fakes.ollama_server import FakeOllama
from tests.fakes.retriever import FakeRetriever

# A student's Python with Chinese comments, as saved by editors on Chinese Windows and elsewhere.
SIMPLIFIED = ("# 滑动窗口最大值：用单调队列，存下标\n"
              "from collections import deque\n"
              "def solve(a, k):\n"
              "    q = deque()  # 超时了？\n"
              "    return q\n")
TRADITIONAL = "# 滑動窗口最大值：用單調隊列\nfrom collections import deque\nprint('執行錯誤')\n"

CASES = {
    "utf8": (SIMPLIFIED.encode("utf-8"), SIMPLIFIED, "utf-8"),
    "utf8_bom": (SIMPLIFIED.encode("utf-8-sig"), SIMPLIFIED, "utf-8-sig"),
    "gbk": (SIMPLIFIED.encode("gbk"), SIMPLIFIED, "gb18030"),
    "gb18030": (SIMPLIFIED.encode("gb18030"), SIMPLIFIED, "gb18030"),
    "big5": (TRADITIONAL.encode("big5"), TRADITIONAL, "big5"),
    "utf16_bom_le": (codecs.BOM_UTF16_LE + SIMPLIFIED.encode("utf-16-le"), SIMPLIFIED, "utf-16"),
    "utf16_bom_be": (codecs.BOM_UTF16_BE + SIMPLIFIED.encode("utf-16-be"), SIMPLIFIED, "utf-16"),
    "utf16_le_no_bom": (SIMPLIFIED.encode("utf-16-le"), SIMPLIFIED, "utf_16_le"),
    "utf32_bom": (SIMPLIFIED.encode("utf-32"), SIMPLIFIED, "utf-32"),
    "cp1252": ("# café, naïve résumé\nx = 1\n".encode("cp1252"), "# café, naïve résumé\nx = 1\n", "cp1252"),
}


@pytest.mark.parametrize(("data", "text", "encoding"), CASES.values(), ids=CASES.keys())
def test_common_encodings_decode_to_the_same_text(data: bytes, text: str, encoding: str) -> None:
    decoded = decode_text(data)
    assert (decoded.text, decoded.encoding) == (text, encoding)


@pytest.mark.parametrize(("text", "codec"), [
    ("// 超时了\nint main(){return 0;}\n", "gbk"),  # charset detectors read this one as Big5
    ("运行错误：数组越界\n", "gbk"),  # ... and this one as EUC-KR
    ("# 注释\n", "gbk"),
    ("執行錯誤：陣列越界\n", "big5"),
])
def test_one_short_chinese_line_is_read_right(text: str, codec: str) -> None:
    assert decode_text(text.encode(codec)).text == text


def test_windows_line_ends_become_newlines() -> None:
    assert decode_text("a = 1\r\n# 注释\r\n".encode("gbk")).text == "a = 1\n# 注释\n"


JUNK = {
    "nul_bytes": b"\x7fELF\x02\x01\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\x02\x00>\x00",
    "png_header": b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x01\x00",
    "random_bytes": bytes((i * 131 + 17) % 256 for i in range(3000)),
    "control_chars": bytes(range(1, 32)) * 20,
    "bad_utf16_bom": codecs.BOM_UTF16_LE + b"\x00\xd8",  # a lone surrogate
}


@pytest.mark.parametrize("data", JUNK.values(), ids=JUNK.keys())
def test_binary_junk_is_refused_with_a_clear_message(data: bytes) -> None:
    with pytest.raises(InputError) as caught:
        decode_text(data)
    assert caught.value.reason == "binary" and caught.value.field == "code"
    assert str(caught.value).startswith("The code looks like binary data")


def test_an_oversized_file_is_refused_before_decoding(tmp_path: Path) -> None:
    big = tmp_path / "big.py"
    big.write_bytes(b"x" * 101)
    with pytest.raises(InputError) as caught:
        read_text_file(big, max_bytes=100)
    assert (caught.value.reason, caught.value.limit, caught.value.length) == ("too_long", 100, 101)


def test_the_size_message_does_not_claim_the_bytes_read_are_the_files_size(tmp_path: Path) -> None:
    # The reader stops at the limit plus one byte: a 500-byte file was said to be "101 bytes".
    big = tmp_path / "big.py"
    big.write_bytes(b"x = 1\n" * 100)
    with pytest.raises(InputError) as caught:
        read_text_file(big, max_bytes=100)
    assert str(caught.value) == "The code is more than 100 bytes, the limit. Please send a smaller file (nothing was " \
                                "cut for you)."


def test_a_missing_file_is_a_clear_input_error(tmp_path: Path) -> None:
    with pytest.raises(InputError) as caught:
        read_code(tmp_path / "nope.py")
    assert caught.value.reason == "unreadable"
    assert str(caught.value) == f"Cannot read the code file {tmp_path / 'nope.py'}: No such file or directory."


def test_code_from_stdin_in_gbk(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(SIMPLIFIED.encode("gbk")), encoding="utf-8"))
    assert read_code(Path("-")) == SIMPLIFIED


def test_ask_with_a_gbk_code_file(fake_ollama: FakeOllama, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                  capsys: pytest.CaptureFixture[str]) -> None:
    """Before: `ask --code` refused a GBK file with a codec error (issue 11)."""
    monkeypatch.setattr(retriever_module, "build_retriever", lambda settings, **kw: FakeRetriever())
    monkeypatch.delenv("QUEST_CONTEST_LOCK_FILE", raising=False)
    code_file = tmp_path / "solution.py"
    code_file.write_bytes(SIMPLIFIED.encode("gbk"))
    argv = ["ask", "Why TLE?", "--problem", "239", "--code", str(code_file), "--ollama-host", fake_ollama.url,
            "--lang", "en"]
    assert main(argv) == 0
    assert capsys.readouterr().out.startswith("Use a deque [1].")
    assert "# 滑动窗口最大值：用单调队列，存下标" in fake_ollama.chat_bodies[0]["messages"][-1]["content"]


def test_ask_with_a_binary_code_file_says_why(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code_file = tmp_path / "a.out"
    code_file.write_bytes(JUNK["nul_bytes"])
    assert main(["ask", "Why?", "--code", str(code_file)]) == 2
    assert capsys.readouterr().err.startswith("error: The code looks like binary data")


def test_a_pasted_byte_order_mark_is_dropped() -> None:
    from quest.request import Request, validate_request
    from quest.settings import Settings

    pasted = Request(question="\ufeff为什么超时？", code="\ufeffx = 1\n", error="\ufeffTLE")
    checked = validate_request(pasted, Settings())
    assert (checked.question, checked.code, checked.error) == ("为什么超时？", "x = 1\n", "TLE")
