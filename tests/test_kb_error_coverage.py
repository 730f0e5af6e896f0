"""Issue 9, item 9: the general documents carry the exact error strings, so a lexical search finds them.

Each row is what a runtime, a sanitizer or a judge really prints for a common student mistake (the message format
is a fact; the question around it is ours) and the one general document that explains it. A BM25-only search over
the real knowledge base, for a short question plus that message, must put that document (either twin) among the
first three distinct topics. Rows cover C and C++ (uncaught exceptions, glibc, sanitizers, Windows exit codes),
Java, Kotlin, Python, Go, Rust, JavaScript, C# and the TLE/MLE/CE verdict words of other judges.

Round 13 kept only the rows that the documents it kept satisfy (docs/retrieval.md, "Round 13: the error strings,
in parts"). Left out because the message is on its page but the page still ranks below the top three (a ranking
matter, not a missing fact): glibc's "free(): double free detected in tcache 2" asked as "what does this mean",
"*** stack smashing detected ***", uninitialised garbage given as bare numbers (32767 ...), RecursionError
"... while calling a Python object" with a two-word question, Rust's "index out of bounds: the len is 3 but the
index is 3". Left out because their documents were measured and not kept: Python's IndexError/ValueError/TypeError
variants, Go's "goroutine stack exceeds", Node's "Cannot read properties of null" and "x is not a function", C#'s
OverflowException, and the RE/WA verdict words (执行出错, 部分正确, NA (score:60%)). .NET's "Stack overflow." +
"Repeat N times:" and Rust's "has overflowed its stack" cannot be fixed by documents (the judge parser keeps only
part of them, and the second names no language).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from quest.plan import plan, retrieve
from quest.request import Request
from quest.retrieval.retriever import Retriever, build_retriever
from quest.settings import Settings

ROOT = Path(__file__).resolve().parents[1]
TOP = 3

# (programming language, the student's question, the message as the runtime prints it, the expected topic: a
# general document's id without its -zh / -en suffix)
ROWS: list[tuple[str, str, str, str]] = [
    (
        "cpp",
        "my vector code crashes on the judge",
        "terminate called after throwing an instance of 'std::out_of_range'\n"
        "  what():  vector::_M_range_check: __n (which is 5) >= this->size() (which is 5)\nAborted (core dumped)",
        "pitfall-cpp-uncaught-exception",
    ),
    (
        "cpp",
        "substr 报错了",
        "terminate called after throwing an instance of 'std::out_of_range'\n"
        "  what():  basic_string::substr: __pos (which is 7) > this->size() (which is 5)",
        "pitfall-cpp-uncaught-exception",
    ),
    (
        "cpp",
        "开了一个数组就崩了",
        "terminate called after throwing an instance of 'std::bad_alloc'\n  what():  std::bad_alloc",
        "pitfall-cpp-uncaught-exception",
    ),
    (
        "cpp",
        "why does creating the vector fail",
        "terminate called after throwing an instance of 'std::length_error'\n"
        "  what():  cannot create std::vector larger than max_size()",
        "pitfall-cpp-uncaught-exception",
    ),
    (
        "cpp",
        "stoi crashes when reading the line",
        "terminate called after throwing an instance of 'std::invalid_argument'\n  what():  stoi",
        "pitfall-cpp-uncaught-exception",
    ),
    ("cpp", "程序结束的时候崩了", "free(): invalid pointer\nAborted (core dumped)", "pitfall-glibc-invalid-free"),
    (
        "cpp",
        "crash at the end of main",
        "double free or corruption (out)\nAborted (core dumped)",
        "pitfall-glibc-invalid-free",
    ),
    ("cpp", "crash when my function returns", "munmap_chunk(): invalid pointer", "pitfall-glibc-invalid-free"),
    (
        "cpp",
        "I have no floating point at all",
        "Floating point exception (core dumped)",
        "pitfall-division-by-zero-sigfpe",
    ),
    (
        "cpp",
        "Windows 上跑完返回了这个值",
        "Process returned -1073741819 (0xC0000005)   execution time : 0.512 s",
        "pitfall-exit-codes-and-signals",
    ),
    (
        "cpp",
        "my program ends with this exit code on Windows",
        "Process exited with return value 3221225477",
        "pitfall-exit-codes-and-signals",
    ),
    (
        "cpp",
        "程序没有输出，只显示",
        "Segmentation fault (core dumped)",
        "pitfall-cpp-out-of-bounds",
    ),
    ("cpp", "Visual Studio 里变量输出 -858993460 是什么", "-858993460", "pitfall-cpp-uninitialized"),
    ("cpp", "字符数组打印出来是一串烫烫烫", "烫烫烫烫烫烫烫烫烫烫烫烫", "pitfall-cpp-uninitialized"),
    (
        "cpp",
        "g++ warns about sum",
        "warning: 'sum' is used uninitialized [-Wuninitialized]",
        "pitfall-cpp-uninitialized",
    ),
    (
        "cpp",
        "LeetCode says this about my linked list",
        "Line 15: Char 21: runtime error: member access within null pointer of type 'ListNode' (solution.cpp)",
        "pitfall-asan-segv-null",
    ),
    (
        "cpp",
        "what is this on LeetCode",
        "runtime error: load of null pointer of type 'int' (solution.cpp)",
        "pitfall-asan-segv-null",
    ),
    (
        "cpp",
        "out of bounds on a plain array",
        "runtime error: index 10 out of bounds for type 'int [10]'",
        "pitfall-cpp-out-of-bounds",
    ),
    (
        "cpp",
        "LeetCode overflow",
        "runtime error: signed integer overflow: 2147483647 + 1 cannot be represented in type 'int'",
        "pitfall-ubsan-signed-integer-overflow",
    ),
    (
        "cpp",
        "LeetCode heap overflow",
        "==31==ERROR: AddressSanitizer: heap-buffer-overflow on address 0x602000000054",
        "pitfall-asan-heap-buffer-overflow",
    ),
    (
        "cpp",
        "after erase it crashed",
        "ERROR: AddressSanitizer: heap-use-after-free on address 0x6030000000f0",
        "pitfall-asan-heap-use-after-free",
    ),
    (
        "java",
        "my loop crashes",
        'Exception in thread "main" java.lang.ArrayIndexOutOfBoundsException: '
        "Index 5 out of bounds for length 5\n\tat Main.main(Main.java:12)",
        "pitfall-java-exceptions",
    ),
    (
        "java",
        "charAt 越界了",
        'Exception in thread "main" java.lang.StringIndexOutOfBoundsException: '
        "index 5, length 5\n\tat java.base/java.lang.String.checkIndex(String.java:4563)",
        "pitfall-java-exceptions",
    ),
    (
        "java",
        "substring crashed",
        "java.lang.StringIndexOutOfBoundsException: begin 2, end 9, length 6",
        "pitfall-java-exceptions",
    ),
    (
        "java",
        "removing from the list inside for-each",
        'Exception in thread "main" java.util.ConcurrentModificationException\n'
        "\tat java.base/java.util.ArrayList$Itr.checkForComodification(ArrayList.java:1013)",
        "pitfall-java-exceptions",
    ),
    (
        "java",
        "Scanner throws when I read the numbers",
        'Exception in thread "main" java.util.InputMismatchException\n'
        "\tat java.base/java.util.Scanner.throwFor(Scanner.java:939)\n"
        "\tat java.base/java.util.Scanner.nextInt(Scanner.java:2258)",
        "pitfall-java-exceptions",
    ),
    ("java", "parseInt fails", 'java.lang.NumberFormatException: For input string: "12 7"', "pitfall-java-exceptions"),
    (
        "java",
        "the judge says memory",
        'Exception in thread "main" java.lang.OutOfMemoryError: Java heap space',
        "faq-verdict-mle",
    ),
    (
        "java",
        "map get and then add one",
        'Exception in thread "main" java.lang.NullPointerException: Cannot invoke '
        '"java.lang.Integer.intValue()" because the return value of "java.util.Map.get(Object)" is null',
        "pitfall-java-exceptions",
    ),
    (
        "java",
        "dfs on a big tree",
        'Exception in thread "main" java.lang.StackOverflowError\n\tat Main.dfs(Main.java:20)',
        "pitfall-java-stack-overflow",
    ),
    (
        "java",
        "average of an empty group",
        'Exception in thread "main" java.lang.ArithmeticException: / by zero',
        "pitfall-division-by-zero-sigfpe",
    ),
    (
        "kotlin",
        "readLine on Codeforces",
        'Exception in thread "main" java.lang.NullPointerException\n\tat MainKt.main(Main.kt:3)',
        "pitfall-kotlin-exceptions",
    ),
    (
        "kotlin",
        "lateinit crash",
        "kotlin.UninitializedPropertyAccessException: lateinit property graph has not been initialized",
        "pitfall-kotlin-exceptions",
    ),
    ("kotlin", "first() on my list", "java.util.NoSuchElementException: List is empty.", "pitfall-kotlin-exceptions"),
    (
        "kotlin",
        "toInt fails",
        'Exception in thread "main" java.lang.NumberFormatException: For input string: "3 4"\n'
        "\tat java.lang.Integer.parseInt(Integer.java:652)\n\tat MainKt.main(Main.kt:5)",
        "pitfall-kotlin-exceptions",
    ),
    ("python", "字符串下标报错", "IndexError: string index out of range", "pitfall-python-traceback-reading"),
    (
        "python",
        "assigning to ans[i] fails",
        "IndexError: list assignment index out of range",
        "pitfall-python-traceback-reading",
    ),
    ("python", "counting words with a dict", "KeyError: 'apple'", "pitfall-python-traceback-reading"),
    (
        "python",
        "reading the input",
        "ValueError: invalid literal for int() with base 10: '3 4'",
        "pitfall-python-traceback-reading",
    ),
    (
        "python",
        "my function returns nothing?",
        "TypeError: 'NoneType' object is not subscriptable",
        "pitfall-python-traceback-reading",
    ),
    (
        "python",
        "tree node crash",
        "AttributeError: 'NoneType' object has no attribute 'val'",
        "pitfall-python-traceback-reading",
    ),
    (
        "python",
        "counter in a nested function",
        "UnboundLocalError: cannot access local variable 'count' where it is not associated with a value",
        "pitfall-python-traceback-reading",
    ),
    ("python", "input() at the end", "EOFError: EOF when reading a line", "pitfall-read-until-eof"),
    ("python", "a big list of lists", "MemoryError", "faq-verdict-mle"),
    ("python", "average", "ZeroDivisionError: division by zero", "pitfall-division-by-zero-sigfpe"),
    (
        "go",
        "slice index",
        "panic: runtime error: index out of range [5] with length 5\n\ngoroutine 1 [running]:",
        "pitfall-go-panic",
    ),
    ("go", "map write panics", "panic: assignment to entry in nil map", "pitfall-go-panic"),
    (
        "go",
        "tree pointer",
        "panic: runtime error: invalid memory address or nil pointer dereference\n"
        "[signal SIGSEGV: segmentation violation code=0x1 addr=0x0 pc=0x48f0a5]",
        "pitfall-go-panic",
    ),
    ("go", "channel program hangs", "fatal error: all goroutines are asleep - deadlock!", "pitfall-go-panic"),
    (
        "go",
        "modulo",
        "panic: runtime error: integer divide by zero",
        "pitfall-division-by-zero-sigfpe",
    ),
    (
        "rust",
        "usize minus one",
        "thread 'main' panicked at src/main.rs:6:20:\nattempt to subtract with overflow",
        "pitfall-rust-panic",
    ),
    (
        "rust",
        "i - start 變成負的",
        "thread 'main' panicked at 'attempt to subtract with overflow', src/main.rs:6:20",
        "pitfall-rust-panic",
    ),
    (
        "rust",
        "unwrap",
        "thread 'main' panicked at src/main.rs:4:31:\ncalled `Option::unwrap()` on a `None` value",
        "pitfall-rust-panic",
    ),
    (
        "rust",
        "RefCell in my tree",
        "thread 'main' panicked at src/main.rs:14:30:\nalready borrowed: BorrowMutError",
        "pitfall-rust-panic",
    ),
    (
        "rust",
        "slicing a string",
        "thread 'main' panicked at src/main.rs:3:14:\nbyte index 1 is not a char boundary; "
        "it is inside '中' (bytes 0..3) of `中文`",
        "pitfall-rust-panic",
    ),
    ("javascript", "recursion in node", "RangeError: Maximum call stack size exceeded", "pitfall-js-runtime-errors"),
    (
        "javascript",
        "grid walk",
        "TypeError: Cannot read properties of undefined (reading '0')",
        "pitfall-js-runtime-errors",
    ),
    (
        "javascript",
        "old node on the judge",
        "TypeError: Cannot read property 'length' of undefined",
        "pitfall-js-runtime-errors",
    ),
    (
        "javascript",
        "big array in node",
        "FATAL ERROR: Reached heap limit Allocation failed - JavaScript heap out of memory",
        "pitfall-js-runtime-errors",
    ),
    ("javascript", "new Array fails", "RangeError: Invalid array length", "pitfall-js-runtime-errors"),
    (
        "csharp",
        "Substring(i, i + 13) crashes",
        "Unhandled exception. System.ArgumentOutOfRangeException: Index and "
        "length must refer to a location within the string. (Parameter 'length')",
        "pitfall-csharp-exceptions",
    ),
    (
        "csharp",
        "List index",
        "System.ArgumentOutOfRangeException: Index was out of range. Must be non-negative and "
        "less than the size of the collection. (Parameter 'index')",
        "pitfall-csharp-exceptions",
    ),
    (
        "csharp",
        "array loop",
        "Unhandled exception. System.IndexOutOfRangeException: Index was outside the bounds of the array.",
        "pitfall-csharp-exceptions",
    ),
    (
        "csharp",
        "ReadLine null",
        "Unhandled exception. System.NullReferenceException: Object reference not set to an instance of an object.",
        "pitfall-csharp-exceptions",
    ),
    (
        "csharp",
        "Dictionary lookup",
        "System.Collections.Generic.KeyNotFoundException: The given key '7' was not present in the dictionary.",
        "pitfall-csharp-exceptions",
    ),
    (
        "csharp",
        "int.Parse",
        "Unhandled exception. System.FormatException: The input string '3 4' was not in a correct format.",
        "pitfall-csharp-exceptions",
    ),
    (
        "csharp",
        "old .NET int.Parse",
        "System.FormatException: Input string was not in a correct format.",
        "pitfall-csharp-exceptions",
    ),
    ("csharp", "Stack Pop", "System.InvalidOperationException: Stack empty.", "pitfall-csharp-exceptions"),
    (
        "csharp",
        "Max of an empty list",
        "System.InvalidOperationException: Sequence contains no elements",
        "pitfall-csharp-exceptions",
    ),
    (
        "cpp",
        "PTA 上测试点 3 显示非零返回是什么意思",
        "非零返回",
        "pitfall-exit-codes-and-signals",
    ),
    ("cpp", "PTA 测试点 2 浮点错误，我没有用浮点数", "浮点错误", "pitfall-division-by-zero-sigfpe"),
    ("cpp", "上傳之後一直是這個", "時間超過限制 (TLE)", "faq-verdict-tle"),
    ("cpp", "這是什麼意思", "輸出超過限制 (OLE)", "faq-verdict-ole"),
    ("cpp", "明明在本機可以編譯", "編譯錯誤 (CE)", "faq-verdict-ce"),
    ("cpp", "只差空白而已", "Presentation Error", "faq-verdict-pe"),
    ("cpp", "LeetCode 上提交", "解答错误", "faq-verdict-wa"),
    ("cpp", "LeetCode 上提交", "超出时间限制", "faq-verdict-tle"),
    ("cpp", "Codeforces verdict", "Memory limit exceeded on test 12", "faq-verdict-mle"),
    ("cpp", "Codeforces verdict", "Runtime error on test 4", "faq-verdict-re"),
    ("cpp", "Codeforces verdict", "Wrong answer on test 2", "faq-verdict-wa"),
    ("cpp", "Codeforces says", "Exit code is -1073741571 (STATUS_STACK_OVERFLOW)", "pitfall-exit-codes-and-signals"),
    ("cpp", "這是什麼意思", "記憶體超過限制 (MLE)", "faq-verdict-mle"),
    ("cpp", "本機正確 但是", "執行時期錯誤 (RE)", "faq-verdict-re"),
    ("cpp", "提交之後顯示", "答案錯誤 WA (line:3)", "faq-verdict-wa"),
    ("cpp", "提交后显示", "超出内存限制", "faq-verdict-mle"),
    ("cpp", "Codeforces says", "Idleness limit exceeded on test 1", "faq-verdict-tle"),
    # The JVM's launcher could not start the program (a `package` line, another class name, no main): round 18.
    (
        "java",
        "my java code runs fine in eclipse but the judge says runtime error on test 1",
        "Error: Could not find or load main class Main\nCaused by: java.lang.ClassNotFoundException: Main",
        "pitfall-java-main-class",
    ),
    (
        "java",
        "提交 Java 一直运行错误，本地没问题",
        "错误: 在类 Main 中找不到 main 方法, 请将 main 方法定义为:\n   public static void main(String[] args)",
        "pitfall-java-main-class",
    ),
    # Windows' loader could not start the program (MinGW's runtime DLLs not on PATH): the setup, round 19.
    ("cpp", "my program prints nothing in vs code", "[Done] exited with code=3221225781 in 0.2 seconds",
     "pitfall-windows-dll-not-found"),
    ("cpp", "Dev-C++ 运行一闪就没了", "Process exited after 0.04 seconds with return value 3221225781",
     "pitfall-windows-dll-not-found"),
    ("cpp", "双击 exe 弹窗", "由于找不到 libstdc++-6.dll，无法继续执行代码。重新安装程序可能会解决此问题。",
     "pitfall-windows-dll-not-found"),
    ("cpp", "CLion run fails", "Process finished with exit code -1073741511 (0xC0000139)",
     "pitfall-windows-dll-not-found"),
    # Visual Studio's debug checks, Go's out-of-memory, glibc's other allocator checks: round 19 (before: no kind, or
    # no verdict, and the page was not among the first three).
    ("cpp", "visual studio pops this up when main returns",
     "Run-Time Check Failure #2 - Stack around the variable 'arr' was corrupted.", "pitfall-cpp-out-of-bounds"),
    ("cpp", "VS 调试时弹出这个",
     "Run-Time Check Failure #3 - The variable 'sum' is being used without being initialized.",
     "pitfall-cpp-uninitialized"),
    ("cpp", "vs2022 debug assertion", "Debug Assertion Failed!\n\nExpression: vector subscript out of range",
     "pitfall-cpp-out-of-bounds"),
    ("go", "my go program dies", "fatal error: runtime: out of memory", "faq-verdict-mle"),
    ("cpp", "程序结束时崩溃", "malloc(): memory corruption\nAborted (core dumped)", "pitfall-glibc-invalid-free"),
]


def _topic(doc_id: str) -> str:
    return re.sub(r"-(zh|en)$", "", doc_id)


@pytest.fixture(scope="session")
def kb_retriever(tmp_path_factory: pytest.TempPathFactory) -> Retriever:
    data = tmp_path_factory.mktemp("kb-error-coverage")
    return build_retriever(
        Settings(kb_dir=ROOT / "knowledge", data_dir=data, embedding_model="none", show_progress=False)
    )


def top_topics(retriever: Retriever, language: str, question: str, error: str) -> list[str]:
    request = Request(question=question, error=error, language=language)
    hits = retrieve(retriever, plan(request, retriever))[1].hits
    topics: list[str] = []
    for hit in hits:
        topic = _topic(hit.chunk.doc_id)
        if topic not in topics:
            topics.append(topic)
    return topics[:TOP]


def _general_ids() -> set[str]:
    ids = set()
    for path in (ROOT / "knowledge" / "general").glob("*.md"):
        found = re.search(r"^id:\s*(\S+)", path.read_text(encoding="utf-8"), re.M)
        assert found, path
        ids.add(found.group(1))
    return ids


def test_every_expected_topic_is_a_general_document_in_both_languages():
    ids = _general_ids()
    assert len(ROWS) >= 40
    for row in ROWS:
        assert {f"{row[3]}-en", f"{row[3]}-zh"} <= ids, row[3]


@pytest.mark.parametrize("row", ROWS, ids=[f"{i:02d}-{row[3].split('-', 1)[1]}" for i, row in enumerate(ROWS)])
def test_the_message_finds_its_document(kb_retriever, row):
    language, question, error, expected = row
    topics = top_topics(kb_retriever, language, question, error)
    assert expected in topics, (question, error, topics)
