"""Round 20: runtime reports whose line or verdict was read wrong, in the shapes the runtimes print them.

- Go stops a program whose goroutines all wait with "fatal error: all goroutines are asleep - deadlock!" and no
  `panic:` line; the goroutines' stacks follow, the standard library's frames (sync.(*WaitGroup).Wait) above main's.
- A Java exception thrown inside the JDK (Integer.parseInt, Scanner.nextInt) lists the JDK's frames first: Java 8
  without a module ("at java.util.Scanner.throwFor(Scanner.java:862)"), Java 9+ with one ("at java.base/...").
- AddressSanitizer's allocator failing ("allocator is out of memory trying to allocate 0x… bytes", "requested
  allocation size 0x… exceeds maximum supported size of 0x10000000000") is where the plain program's `new` throws
  std::bad_alloc: the memory limit, as std::bad_alloc is read. Its own malloc / operator new frames come first.

The fixtures are written for these tests (paths, names and numbers are made up); each tool's own words follow what
it prints.
"""
from __future__ import annotations

import pytest

from quest.judge import parse

GO_DEADLOCK_IN_WAITGROUP = """fatal error: all goroutines are asleep - deadlock!

goroutine 1 [semacquire]:
sync.runtime_Semacquire(0xc000012028?)
\t/usr/local/go/src/runtime/sema.go:62 +0x25
sync.(*WaitGroup).Wait(0x0?)
\t/usr/local/go/src/sync/waitgroup.go:116 +0x48
main.main()
\t/home/amy/pipes/main.go:17 +0x9e
exit status 2"""


@pytest.mark.parametrize(("text", "lines"), [
    (GO_DEADLOCK_IN_WAITGROUP, (17,)),  # before: no line, no runtime
    ("fatal error: all goroutines are asleep - deadlock!\n\ngoroutine 1 [chan receive]:\nmain.main()\n"
     "\t/box/main.go:9 +0x36\nexit status 2", (9,)),
])
def test_a_go_deadlock_names_go_and_mains_line(text: str, lines: tuple[int, ...]) -> None:
    report = parse(text)
    assert (report.verdict, report.kind, report.runtime, report.lines, report.exit_code) == (
        "RE", "deadlock", "go", lines, 2)
    assert report.messages == ("fatal error: all goroutines are asleep - deadlock!",)
    assert report.query_text().startswith("RE Runtime Error 运行错误\ndeadlock goroutine")


def test_a_go_panic_in_the_standard_library_points_at_mains_frame() -> None:
    report = parse("panic: sync: negative WaitGroup counter\n\ngoroutine 1 [running]:\nsync.(*WaitGroup).Add(0x0?, "
                   "0x0?)\n\t/usr/local/go/src/sync/waitgroup.go:62 +0xe5\nsync.(*WaitGroup).Done(...)\n"
                   "\t/usr/local/go/src/sync/waitgroup.go:87\nmain.main()\n\t/box/main.go:12 +0x25\nexit status 2")
    # before: (62,), the line in waitgroup.go
    assert (report.verdict, report.runtime, report.lines) == ("RE", "go", (12,))


@pytest.mark.parametrize(("text", "lines"), [
    # Java 8: the JDK's frames have no module (before: (862, 1485), Scanner.java's lines)
    ("Exception in thread \"main\" java.util.NoSuchElementException\n\tat java.util.Scanner.throwFor(Scanner.java:862)"
     "\n\tat java.util.Scanner.next(Scanner.java:1485)\n\tat java.util.Scanner.nextInt(Scanner.java:2117)\n"
     "\tat Main.read(Main.java:11)\n\tat Main.main(Main.java:4)", (11, 4)),
    ("Exception in thread \"main\" java.lang.NumberFormatException: For input string: \"4 \"\n"
     "\tat java.lang.NumberFormatException.forInputString(NumberFormatException.java:65)\n"
     "\tat java.lang.Integer.parseInt(Integer.java:580)\n\tat Main.main(Main.java:9)", (9,)),
    # Java 9+: the module names the JDK's frames (unchanged: they were never read)
    ("Exception in thread \"main\" java.lang.NumberFormatException: For input string: \"4 \"\n"
     "\tat java.base/java.lang.NumberFormatException.forInputString(NumberFormatException.java:67)\n"
     "\tat java.base/java.lang.Integer.parseInt(Integer.java:668)\n\tat Main.main(Main.java:9)", (9,)),
    # only the JDK's frames pasted: no line rather than the JDK's
    ("Exception in thread \"main\" java.util.InputMismatchException\n"
     "\tat java.util.Scanner.throwFor(Scanner.java:864)\n\tat java.util.Scanner.next(Scanner.java:1485)", ()),
])
def test_a_java_exception_thrown_in_the_jdk_points_at_the_students_frames(text: str, lines: tuple[int, ...]) -> None:
    report = parse(text)
    assert (report.verdict, report.runtime, report.lines) == ("RE", "java", lines)


@pytest.mark.parametrize(("text", "message"), [
    ("==3041==ERROR: AddressSanitizer: allocator is out of memory trying to allocate 0x2540be400 bytes\n"
     "    #0 0x49ae8d in malloc (/box/a.out+0x49ae8d)\n    #1 0x4c1a2f in main /box/sol.cpp:6:18\n\n"
     "==3041==HINT: if you don't care about these errors you may set allocator_may_return_null=1\n"
     "SUMMARY: AddressSanitizer: out-of-memory (/box/a.out+0x49ae8d) in malloc",
     "==3041==ERROR: AddressSanitizer: allocator is out of memory trying to allocate 0x2540be400 bytes"),
    ("==88==ERROR: AddressSanitizer: requested allocation size 0xfffffffffffffff8 (0x800 after adjustments for "
     "alignment, red zones etc.) exceeds maximum supported size of 0x10000000000 (thread T0)\n"
     "    #0 0x7f31 in operator new[](unsigned long) ../../../../src/libsanitizer/asan/asan_new_delete.cpp:102\n"
     "    #1 0x55d2 in main /box/sol.cpp:6\n\nSUMMARY: AddressSanitizer: allocation-size-too-big",
     "==88==ERROR: AddressSanitizer: requested allocation size 0xfffffffffffffff8 (0x800 after adjustments for "
     "alignment, red zones etc.) exceeds maximum supported size of 0x10000000000 (thread T0)"),
])
def test_addresssanitizers_failed_allocation_is_the_memory_limit(text: str, message: str) -> None:
    report = parse(text)
    # before: RE (from the tool's name), and line 102 of the sanitizer's own asan_new_delete.cpp first
    assert (report.verdict, report.runtime, report.lines) == ("MLE", "cpp", (6,))
    assert report.messages[0] == message


def test_a_judges_own_verdict_beside_the_sanitizers_report_is_kept() -> None:
    report = parse("Runtime Error\n==7==ERROR: AddressSanitizer: allocator is out of memory trying to allocate "
                   "0x100000000 bytes")
    assert report.verdict == "RE"


@pytest.mark.parametrize("text", ["Judging Error", "Run 17: Judging Error - contact staff"])
def test_a_contest_systems_judging_error_is_the_judges_side(text: str) -> None:
    # PC^2's list of CCS judgements: "JE Judging Error" (before: no verdict)
    assert parse(text).verdict == "SE"


@pytest.mark.parametrize("text", [
    "main.exe - System Error\nThe code execution cannot proceed because libstdc++-6.dll was not found.",
    "a.exe - 系统错误\n由于找不到 libgcc_s_seh-1.dll，无法继续执行代码。",
])
def test_the_windows_loader_dialogs_title_is_no_judges_system_error(text: str) -> None:
    # The dialog's title is "<program>.exe - System Error" (zh: "- 系统错误"); before: verdict SE, and the student was
    # told the judge had failed instead of their machine's setup
    report = parse(text)
    assert (report.verdict, report.kind) == (None, "windows-dll")


def test_a_judges_system_error_is_still_one() -> None:
    assert parse("Result: System Error").verdict == "SE"


@pytest.mark.parametrize(("text", "lines"), [
    ("Exception in thread \"main\" java.lang.NumberFormatException: For input string: \"\"\n"
     "\tat java.base/java.lang.NumberFormatException.forInputString(NumberFormatException.java:67)\n"
     "\tat java.base/java.lang.Integer.parseInt(Integer.java:672)\n\tat MainKt.main(Main.kt:4)\n"
     "\tat MainKt.main(Main.kt)", (4,)),
    # Kotlin's own library is no frame of the student's either
    ("Exception in thread \"main\" java.util.NoSuchElementException: List is empty.\n"
     "\tat kotlin.collections.CollectionsKt___CollectionsKt.first(_Collections.kt:214)\n"
     "\tat MainKt.solve(Main.kt:12)\n\tat MainKt.main(Main.kt:3)", (12, 3)),
])
def test_a_kotlin_programs_exception_points_at_its_kt_lines(text: str, lines: tuple[int, ...]) -> None:
    report = parse(text)
    # before: no line (only .java frames were read) and runtime java
    assert (report.verdict, report.runtime, report.lines) == ("RE", "kotlin", lines)


GO_STACK_OVERFLOW = """runtime: goroutine stack exceeds 1000000000-byte limit
runtime: sp=0xc020160398 stack=[0xc020160000, 0xc040160000]
fatal error: stack overflow

runtime stack:
runtime.throw({0x4a5b2e?, 0x0?})
\t/usr/local/go/src/runtime/panic.go:1047 +0x5d fp=0x7ffd5a8 sp=0x7ffd578 pc=0x4331fd

goroutine 1 [running]:
main.dfs(0x1?)
\t/box/main.go:6 +0x46 fp=0xc0201603a8 sp=0xc0201603a0 pc=0x4553c6
main.dfs(0x0?)
\t/box/main.go:7 +0x1c fp=0xc0201603c0 sp=0xc0201603a8 pc=0x4553bc
exit status 2"""
GO_MAP_WRITES = """fatal error: concurrent map writes

goroutine 18 [running]:
runtime.throw({0x4b6d1b?, 0x0?})
\t/usr/local/go/src/runtime/panic.go:1047 +0x5d fp=0xc00004e6f0 sp=0xc00004e6c0 pc=0x4331fd
main.worker(0xc000012345)
\t/box/main.go:14 +0x5c
created by main.main in goroutine 1
\t/box/main.go:21 +0x8a
exit status 2"""


@pytest.mark.parametrize(("text", "kind", "message", "lines"), [
    (GO_STACK_OVERFLOW, "stack-overflow", "fatal error: stack overflow", (6,)),
    (GO_MAP_WRITES, None, "fatal error: concurrent map writes", (14,)),  # before: message "exit status 2"
])
def test_gos_other_fatal_errors_name_go_their_line_and_mains_frame(
        text: str, kind: str | None, message: str, lines: tuple[int, ...]) -> None:
    report = parse(text)
    # before: no runtime and no line
    assert (report.verdict, report.kind, report.runtime, report.lines) == ("RE", kind, "go", lines)
    assert report.messages[0] == message


def test_a_c_compilers_fatal_error_is_no_gos() -> None:  # a guard: unchanged
    report = parse("sol.cpp:1:10: fatal error: bits/stdc++.h: No such file or directory")
    assert (report.verdict, report.runtime) == ("CE", "cpp")
