"""Stack overflows that print no exception line (.NET, Rust) and link errors pasted without the driver's summary.

The fixtures follow the formats the runtimes and linkers print (dotnet/runtime's folded "Repeat N times:" block,
Rust's guard-page message, GNU ld, lld, Apple ld, MSVC's LNK errors); the programs and symbols are our own.
"""

import pytest

from quest.judge import JudgeReport, parse

# .NET 8 on a judge: a DFS with no visited set. Frames are method names with argument types, no file or line.
DOTNET_OVERFLOW = """Stack overflow.
Repeat 8731 times:
--------------------------------
   at Solution.Visit(Int32[][], Int32, Int32)
--------------------------------
   at Solution.CountIslands(Int32[][])
   at Program.Main(System.String[])
"""


def test_dotnet_stack_overflow_keeps_the_recursing_method_and_the_repeat_count():
    report = parse(DOTNET_OVERFLOW)
    assert report == JudgeReport(
        verdict="RE",
        exception="System.StackOverflowException",
        messages=("Stack overflow. Repeat 8731 times: at Solution.Visit",),
        kind="stack-overflow",
        runtime="csharp",
    )
    assert report.query_text() == (
        "RE Runtime Error 运行错误\nstack overflow recursion too deep 栈溢出 递归太深\n"
        "System.StackOverflowException\nStack overflow. Repeat 8731 times: at Solution.Visit")


def test_dotnet_newer_wording_and_top_level_statements():
    # .NET 9 says "Repeated"; a top-level program's local function has a compiler-made name.
    text = ("Stack overflow.\nRepeated 24000 times:\n--------------------------------\n"
            "   at Program.<<Main>$>g__Walk|0_0(Int32)\n--------------------------------\n"
            "   at Program.<Main>$(System.String[])\n")
    assert parse(text).messages == ("Stack overflow. Repeated 24000 times: at Program.<<Main>$>g__Walk|0_0",)


def test_dotnet_without_a_folded_block_takes_the_first_frame():
    text = "Stack overflow.\n   at Solver.Fib(Int64)\n   at Solver.Fib(Int64)\n   at Solver.Fib(Int64)\n"
    report = parse(text)
    assert (report.verdict, report.kind, report.messages) == (
        "RE", "stack-overflow", ("Stack overflow. at Solver.Fib",))


def test_dotnet_framework_wording():
    report = parse("Process is terminated due to StackOverflowException.")
    assert (report.verdict, report.kind, report.exception, report.messages) == (
        "RE", "stack-overflow", "System.StackOverflowException",
        ("Process is terminated due to StackOverflowException.",))


def test_a_sentence_that_says_stack_overflow_is_no_dotnet_report():
    # The words alone, followed by a sentence that starts with "at", name the kind but no .NET exception.
    for text in ("I think it is a stack overflow.\nat least the judge says RE",
                 "Stack overflow.\nat least that is what the judge says"):
        report = parse(text)
        assert (report.kind, report.exception) == ("stack-overflow", None)


@pytest.mark.parametrize("text,messages,signal", [
    ("thread 'main' has overflowed its stack\nfatal runtime error: stack overflow\nAborted (core dumped)",
     ("thread 'main' has overflowed its stack", "fatal runtime error: stack overflow"), "SIGABRT"),
    # Only the first line pasted.
    ("thread 'main' has overflowed its stack", ("thread 'main' has overflowed its stack",), None),
    # Newer releases print the thread id and end the second line with ", aborting".
    ("thread 'main' (40721) has overflowed its stack\nfatal runtime error: stack overflow, aborting",
     ("thread 'main' (40721) has overflowed its stack", "fatal runtime error: stack overflow, aborting"), None),
])
def test_rust_stack_overflow(text, messages, signal):
    report = parse(text)
    assert (report.verdict, report.kind, report.messages, report.signal) == ("RE", "stack-overflow", messages, signal)


@pytest.mark.parametrize("text,messages", [
    # GNU ld without the collect2 line (the student copied only the error).
    ("/usr/bin/ld: /tmp/ccQ3xv.o: in function `main':\nsol.cpp:(.text+0x4e): undefined reference to `build(int)'",
     ("sol.cpp:(.text+0x4e): undefined reference to `build(int)'",)),
    ("undefined reference to `WinMain@16'", ("undefined reference to `WinMain@16'",)),
    # With the summary: the symbol line first, then the summary.
    ("/usr/bin/ld: /tmp/ccQ3xv.o: in function `main':\nsol.cpp:(.text+0x4e): undefined reference to `build(int)'\n"
     "collect2: error: ld returned 1 exit status",
     ("sol.cpp:(.text+0x4e): undefined reference to `build(int)'", "collect2: error: ld returned 1 exit status")),
    ("/usr/bin/ld: b.o: multiple definition of `main'; a.o:a.cpp:(.text+0x0): first defined here",
     ("/usr/bin/ld: b.o: multiple definition of `main'; a.o:a.cpp:(.text+0x0): first defined here",)),
    ("ld returned 1 exit status", ("ld returned 1 exit status",)),
    # MSVC: the unresolved symbol and the count.
    ('Source.obj : error LNK2019: unresolved external symbol "int __cdecl build(int)" (?build@@YAHH@Z) referenced '
     'in function main\nDebug\\Project1.exe : fatal error LNK1120: 1 unresolved externals',
     ('Source.obj : error LNK2019: unresolved external symbol "int __cdecl build(int)" (?build@@YAHH@Z) referenced '
      'in function main', 'Debug\\Project1.exe : fatal error LNK1120: 1 unresolved externals')),
    ("ld.lld: error: undefined symbol: build(int)\n>>> referenced by sol.cpp:9",
     ("ld.lld: error: undefined symbol: build(int)",)),
    # Apple ld names the symbol on the line after its heading; clang's summary carries the linker's exit code.
    ('Undefined symbols for architecture arm64:\n  "build(int)", referenced from:\n      _main in sol-5f1e.o\n'
     "ld: symbol(s) not found for architecture arm64\n"
     "clang: error: linker command failed with exit code 1 (use -v to see invocation)",
     ('Undefined symbols for architecture arm64: "build(int)", referenced from:',
      "ld: symbol(s) not found for architecture arm64")),
])
def test_a_link_error_alone_is_a_compile_error(text, messages):
    report = parse(text)
    assert (report.verdict, report.exit_code, report.kind, report.messages) == ("CE", None, None, messages)


def test_clangs_linker_summary_alone_is_a_compile_error_not_a_program_exit_code():
    report = parse("clang: error: linker command failed with exit code 1 (use -v to see invocation)")
    assert (report.verdict, report.exit_code, report.messages) == (
        "CE", None, ("clang: error: linker command failed with exit code 1 (use -v to see invocation)",))


def test_a_program_exit_code_after_a_link_error_elsewhere_is_kept():
    # Two runs pasted: a failed link, then a later build's run that crashed.
    report = parse("undefined reference to `build(int)'\n...\nProcess finished with exit code 139")
    assert (report.verdict, report.exit_code, report.signal) == ("CE", 139, "SIGSEGV")


@pytest.mark.parametrize("text,message", [
    # A generic method's frames name the type arguments in double brackets, right after "Stack overflow.".
    ("Stack overflow.\n"
     "   at P.Dfs[[System.__Canon, System.Private.CoreLib]](System.Collections.Generic.List`1<System.__Canon>, Int32)\n"
     "   at P.Dfs[[System.__Canon, System.Private.CoreLib]](System.Collections.Generic.List`1<System.__Canon>, Int32)\n"
     "   at P.Main(System.String[])\n",
     "Stack overflow. at P.Dfs"),
    ("Stack overflow.\nRepeat 9000 times:\n--------------------------------\n"
     "   at Solver.Walk[[System.Int32, System.Private.CoreLib]](Int32[], Int32)\n"
     "--------------------------------\n   at Solver.Main()\n",
     "Stack overflow. Repeat 9000 times: at Solver.Walk"),
])
def test_dotnet_generic_frames_keep_the_exception_and_the_runtime(text, message):
    assert parse(text) == JudgeReport(verdict="RE", exception="System.StackOverflowException", messages=(message,),
                                      kind="stack-overflow", runtime="csharp")
