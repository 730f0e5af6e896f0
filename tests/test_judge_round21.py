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


# --------------------------------------------------------------------------- Valgrind (Memcheck)
# Its messages as the Valgrind manual's Memcheck chapter and its own tests (memcheck/tests/*.stderr.exp, e.g.
# android.googlesource.com/platform/external/valgrind) print them; a user's run: pastebin.com/QJ2j89Y8 ("Invalid
# write of size 4 / at 0x…: f (test_valgrind.c:6) / by 0x…: main (test_valgrind.c:11) / Address 0x… is 0 bytes after
# a block of size 40 alloc'd").

def _memcheck(*lines: str) -> str:
    return "\n".join(f"==7311== {line}" if line else "==7311==" for line in lines) + "\n"


HEADER = ("Memcheck, a memory error detector", "Command: ./scores", "")


def _kind(text: str) -> tuple:
    r = parse(text)
    return r.verdict, r.kind, r.lines, r.messages, r.runtime


def test_memcheck_write_past_a_block():
    text = _memcheck(*HEADER, "Invalid write of size 4", "   at 0x10919E: fill (scores.c:9)",
                     "   by 0x1091D3: main (scores.c:17)",
                     " Address 0x4a8e0a8 is 0 bytes after a block of size 40 alloc'd",
                     "   at 0x48437B4: malloc (vg_replace_malloc.c:381)", "   by 0x1091C4: main (scores.c:15)", "")
    # before: (None, None, (), (), None)
    assert _kind(text) == ("RE", "buffer-overflow", (9, 17), (
        "Invalid write of size 4", "Address 0x4a8e0a8 is 0 bytes after a block of size 40 alloc'd"), "cpp")


def test_memcheck_read_of_a_freed_block_in_a_library_frame_first():
    text = _memcheck("Invalid read of size 1", "   at 0x484ED16: strlen (vg_replace_strmem.c:501)",
                     "   by 0x48EAD14: puts (ioputs.c:35)", "   by 0x1091F0: show (names.c:22)",
                     "   by 0x109230: main (names.c:30)",
                     " Address 0x4a8e040 is 0 bytes inside a block of size 16 free'd",
                     "   at 0x484620F: free (vg_replace_malloc.c:872)", "")
    # the C library's own source line (ioputs.c:35) is not the student's
    assert _kind(text)[:3] == ("RE", "heap-use-after-free", (22, 30))


def test_memcheck_double_free():
    text = _memcheck("Invalid free() / delete / delete[] / realloc()",
                     "   at 0x484620F: free (vg_replace_malloc.c:872)",
                     "   by 0x1091E8: main (pairs.c:26)",
                     " Address 0x4a8e040 is 0 bytes inside a block of size 24 free'd",
                     "   at 0x484620F: free (vg_replace_malloc.c:872)", "   by 0x1091DC: main (pairs.c:25)", "")
    assert _kind(text)[:3] == ("RE", "double-free", (26,))


def test_memcheck_uninitialised_value_and_a_wild_pointer():
    uninit = _memcheck("Conditional jump or move depends on uninitialised value(s)",
                       "   at 0x109171: main (best.c:11)", "")
    assert _kind(uninit) == ("RE", "uninitialized", (11,),
                             ("Conditional jump or move depends on uninitialised value(s)",), "cpp")
    wild = _memcheck("Invalid read of size 8", "   at 0x109165: walk (list.c:14)",
                     " Address 0x0 is not stack'd, malloc'd or (recently) free'd", "",
                     "Process terminating with default action of signal 11 (SIGSEGV)")
    assert _kind(wild)[:3] == ("RE", "segv", (14,))


def test_memcheck_leak_summary():
    leaking = _memcheck("LEAK SUMMARY:", "   definitely lost: 48 bytes in 2 blocks",
                        "   indirectly lost: 0 bytes in 0 blocks")
    assert parse(leaking).kind == "memory-leak"
    clean = _memcheck("LEAK SUMMARY:", "   definitely lost: 0 bytes in 0 blocks",
                      "ERROR SUMMARY: 0 errors from 0 contexts")
    assert (parse(clean).verdict, parse(clean).kind) == (None, None)


# --------------------------------------------------------------------------- MemorySanitizer, ThreadSanitizer
# MSan's report as its documentation shows it (github.com/google/sanitizers/wiki/MemorySanitizer, clang's
# MemorySanitizer.rst: "WARNING: MemorySanitizer: use-of-uninitialized-value / #0 0x… in main umr.cc:6"); TSan's as
# the compiler-rt tests check it (test/tsan/*.cc: "WARNING: ThreadSanitizer: data race / Write of size 4 … / #0
# Thread1 …", frames "#0 Thread1 tiny_race.c:4 (exe+0x…)").

def test_memory_sanitizer_uninitialized_value():
    text = ("==5120==WARNING: MemorySanitizer: use-of-uninitialized-value\n"
            "    #0 0x55d3c1a4e2b1 in main /home/amy/oj/maxsum.cpp:12:9\n"
            "    #1 0x7f00c1e29d8f in __libc_start_main (/lib/x86_64-linux-gnu/libc.so.6+0x29d8f)\n\n"
            "SUMMARY: MemorySanitizer: use-of-uninitialized-value /home/amy/oj/maxsum.cpp:12:9 in main\n")
    # before: (None, None, (12,), (), None)
    assert _kind(text) == ("RE", "uninitialized", (12,),
                           ("==5120==WARNING: MemorySanitizer: use-of-uninitialized-value",), "cpp")


def test_thread_sanitizer_data_race():
    text = ("==================\n"
            "WARNING: ThreadSanitizer: data race (pid=20417)\n"
            "  Write of size 4 at 0x55a1f2e3c014 by thread T2:\n"
            "    #0 count(int) /home/amy/oj/tally.cpp:8:12 (tally+0x12a4)\n\n"
            "  Previous write of size 4 at 0x55a1f2e3c014 by thread T1:\n"
            "    #0 count(int) /home/amy/oj/tally.cpp:8:12 (tally+0x12a4)\n")
    # before: (None, None, (), (), None)
    assert _kind(text) == ("RE", "data-race", (8,), ("WARNING: ThreadSanitizer: data race (pid=20417)",), "cpp")
