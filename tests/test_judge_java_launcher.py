"""The JVM's launcher failing to start the program (round 18): javac accepted the code, then `java Main` found no
class Main outside a package, or no `public static void main(String[] args)` in it. None of the student's code ran;
the words that find the page about the submission's shape are kept (they were dropped: no verdict, an empty error
part). The messages are the JDK's formats, in English and in its Chinese translation; the surrounding text is ours."""

from __future__ import annotations

import pytest

from quest.judge import parse

LAUNCHER_WORDS = "public class Main package main method 主类 类名"


@pytest.mark.parametrize(("text", "line"), [
    ("Error: Could not find or load main class Main\nCaused by: java.lang.ClassNotFoundException: Main",
     "Error: Could not find or load main class Main"),
    ("错误: 找不到或无法加载主类 Main\n原因: java.lang.ClassNotFoundException: Main",
     "错误: 找不到或无法加载主类 Main"),
    ("Error: Main method not found in class Main, please define the main method as:\n"
     "   public static void main(String[] args)",
     "Error: Main method not found in class Main, please define the main method as:"),
    ("错误: 在类 Main 中找不到 main 方法, 请将 main 方法定义为:\n   public static void main(String[] args)",
     "错误: 在类 Main 中找不到 main 方法, 请将 main 方法定义为:"),
    ("Error: Main method is not static in class Main, please define the main method as:",
     "Error: Main method is not static in class Main, please define the main method as:"),
])
def test_the_launcher_message_is_a_runtime_error_about_the_entry_point(text: str, line: str) -> None:
    report = parse(text)
    assert (report.verdict, report.kind, report.runtime) == ("RE", "java-entry-point", "java")
    assert report.query_text() == f"RE Runtime Error 运行错误\n{LAUNCHER_WORDS}\n{line}"


def test_a_verdict_the_judge_states_wins() -> None:
    report = parse("Compile Error\nError: Could not find or load main class Main")
    assert (report.verdict, report.kind) == ("CE", "java-entry-point")


@pytest.mark.parametrize("text", [
    "Exception in thread \"main\" java.lang.ClassNotFoundException: com.mysql.Driver",  # a class the code loads
    "I could not find the main loop's bug",
    "Main.java:1: error: class Solution is public, should be declared in a file named Solution.java",  # javac's: CE
])
def test_other_messages_are_not_the_launcher(text: str) -> None:
    assert parse(text).kind != "java-entry-point"
