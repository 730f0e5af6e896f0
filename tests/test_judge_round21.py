"""Round 21: compiler and memory-checker output the parser read nothing from, in the shapes the tools print.

- gcc under a Chinese locale says 错误：/警告： with a full-width colon ("buffer.cc:7:15: 错误：
  ‘out_of_range’在此作用域中尚未声明", as notes on GitHub paste it; a Luogu helper's parser accepts the same
  "Main.cpp:12:12: 错误：‘foo’在此作用域中尚未声明"). MinGW on Windows (Dev-C++, Code::Blocks) names the file with its
  drive letter, often a Chinese path.
- MSVC: "file(line[,col]) : error Cnnnn: message", documented at
  https://learn.microsoft.com/en-us/cpp/build/formatting-the-output-of-a-custom-build-step-or-build-event (its zh-cn
  page: "C:\\sourcefile.cpp(134) : 错误 C2143: 语法错误 : …"); MSBuild adds the project in brackets.

The fixtures are written for these tests (paths, names and numbers are made up); each tool's own words follow what
it prints.
"""
from __future__ import annotations

import pytest

from quest.judge import parse


def _read(text: str) -> tuple:
    r = parse(text)
    return r.verdict, r.lines, r.messages, r.runtime


def test_gcc_in_a_chinese_locale():
    text = ("homework.cpp: 在函数‘int main()’中:\n"
            "homework.cpp:6:9: 警告：unused variable ‘k’ [-Wunused-variable]\n"
            "homework.cpp:9:5: 错误：‘vec’在此作用域中尚未声明\n"
            "    9 |     vec.push_back(x);\n")
    # before: nothing (no verdict, no line)
    assert _read(text) == ("CE", (9,), ("homework.cpp:9: 错误: ‘vec’在此作用域中尚未声明",), "cpp")


def test_gcc_fatal_error_in_chinese():
    text = "main.c:1:10: 致命错误：stdio.hh：没有那个文件或目录\n    1 | #include <stdio.hh>\n编译中断。"
    assert _read(text)[:2] == ("CE", (1,))


def test_mingw_with_a_drive_letter_and_a_chinese_path():
    text = ("D:\\作业\\第三周\\sum.cpp: In function 'int main()':\n"
            "D:\\作业\\第三周\\sum.cpp:14:13: error: 'total' was not declared in this scope\n")
    message = "D:\\作业\\第三周\\sum.cpp:14: error: 'total' was not declared in this scope"
    assert _read(text) == ("CE", (14,), (message,), "cpp")


@pytest.mark.parametrize(("text", "message"), [
    ("grid.cpp(23): error C2065: 'cols': undeclared identifier",
     "grid.cpp(23): error C2065: 'cols': undeclared identifier"),
    ("C:\\lab\\grid.cpp(23,17): error C2065: 'cols': undeclared identifier [C:\\lab\\grid.vcxproj]",
     "C:\\lab\\grid.cpp(23): error C2065: 'cols': undeclared identifier"),
    ("E:\\代码\\grid.cpp(23) : error C2143: 语法错误: 缺少“;”(在“}”的前面)",
     "E:\\代码\\grid.cpp(23): error C2143: 语法错误: 缺少“;”(在“}”的前面)"),
    ("grid.cpp(23): 错误 C2065: “cols”: 未声明的标识符", "grid.cpp(23): error C2065: “cols”: 未声明的标识符"),
])
def test_msvc_diagnostics(text, message):
    # before: nothing (the parenthesised line number was no gcc line)
    assert _read(text) == ("CE", (23,), (message,), "cpp")


def test_an_msvc_warning_alone_is_no_compile_error():
    assert parse("grid.cpp(8): warning C4267: 'initializing': conversion from 'size_t' to 'int'").verdict is None
