"""Regressions found by reviewing round 14's language detection (branch lang14): a browser's saved form from before
"auto" forcing Python on a returning student's code, patterns that backtracked for seconds on a pasted line, and
realistic student snippets read as the wrong language."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from quest.code_language import SIGNALS, detect
from quest.settings import Settings
from quest.ui.form import FORM_VERSION, FormValues
from quest.ui.session import Session, TurnRecord
from tests.fakes.assistant import FakeAssistant

REPO = Path(__file__).resolve().parents[1]
CPP = "class Solution {\npublic:\n    int f(vector<int>& a) {\n        return a.size();\n    }\n};"


# --------------------------------------------------------------------------- a form saved before "auto"


def _old_store(language: str) -> dict:
    """The browser's copy as a round-13 page wrote it: no form version, the dropdown's value as it was."""
    old_form = {"question": "why WA?", "problem": "", "language": language, "code": CPP, "verdict": "", "error": "",
                "tier": "explain", "reasoning": False}  # fmt: skip
    turn = {"question": "q0", "answer": "a0", "messages": [{"role": "user", "content": "q0"},
                                                           {"role": "assistant", "content": "a0"}],
            "sources": [], "cited": [], "form": dict(old_form)}  # fmt: skip
    return {"version": 1, "current": "c1", "conversations": [{"id": "c1", "title": "q0", "turns": [turn]}],
            "form": old_form}  # fmt: skip


def test_an_old_saved_python_is_the_old_default_and_reads_as_auto():
    # Round 13's dropdown started on "python": a saved "python" without a version may be a field never touched.
    assert FormValues.from_mapping({"language": "python", "code": CPP}).language == "auto"
    # Any other saved language was a choice, and a version-2 "python" was chosen over "auto": both stay.
    assert FormValues.from_mapping({"language": "cpp"}).language == "cpp"
    assert FormValues.from_mapping({"language": "python", "form_version": 2}).language == "python"
    assert FormValues.from_mapping({"language": "python", "form_version": "junk"}).language == "auto"
    # What the page saves now carries the version, so a Python choice survives the next reload.
    saved = FormValues(language="python").to_dict()
    assert saved["form_version"] == FORM_VERSION == 2
    assert FormValues.from_mapping(saved).language == "python"


def test_a_returning_student_with_an_old_form_gets_detection_in_the_form_and_the_kept_turns():
    session = Session()
    form = session.restore(_old_store("python"))
    assert form.language == "auto"
    assert session.turns[0].form.language == "auto"  # Regenerate / Edit put this turn's form back
    assert Session().restore(_old_store("java")).language == "java"


def test_the_page_restores_an_old_form_as_auto_and_edit_puts_back_auto(tmp_path):
    from quest.ui.desk import HelpDesk
    from quest.ui.page import QuestPage
    from quest.ui.startup import Startup

    settings = Settings(data_dir=tmp_path, kb_dir=tmp_path / "none")
    page = QuestPage(settings, HelpDesk(settings, Startup.ready(FakeAssistant())), {})
    page.build()
    session = Session()
    _, _, _, form, _ = page.restore_page(_old_store("python"), "en", session)
    assert form == ["why WA?", None, "auto", CPP, "", "", "explain", False]
    taken = page.take_back_last("en", session)  # Edit of the kept turn: its form goes back into the fields
    assert taken[2:] == ("why WA?", None, "auto", CPP, "", "", "explain", False)


def test_a_turn_record_round_trips_its_chosen_python():
    record = TurnRecord("q", "a", [{"role": "user", "content": "q"}], form=FormValues(language="python", code=CPP))
    assert TurnRecord.from_browser(record.to_browser()).form.language == "python"


# --------------------------------------------------------------------------- the chat's summary line


TRACEBACK = ('Traceback (most recent call last):\n  File "main.py", line 3, in <module>\n'
             "IndexError: list index out of range")


def test_the_summary_line_names_the_language_the_answer_is_given_in():
    from quest.request import Request, validate_request
    from quest.ui.layout import user_bubble

    # One line of code that says nothing, a Python traceback: the answer is for Python, so is the summary line.
    request = Request(question="why?", code="x = a[i]", error=TRACEBACK)
    assert validate_request(request, Settings()).language == "python"
    assert user_bubble(request, "en", {}) == "why?\n\n<sub>Python · code, 1 line · judge's message</sub>"
    # Nothing tells: "Other" in the interface's language (it read "Other / 其他" in both).
    assert user_bubble(Request(question="why?", code="x = 1"), "zh", {}) == "why?\n\n<sub>其他 · 代码 1 行</sub>"
    assert user_bubble(Request(question="why?", code="x = 1"), "en", {}) == "why?\n\n<sub>Other · code, 1 line</sub>"
    assert user_bubble(Request(question="why?", code="x = 1\ny = 2"), "en", {}) == (
        "why?\n\n<sub>Other · code, 2 lines</sub>")


# --------------------------------------------------------------------------- every entry point, one rule


@pytest.mark.parametrize("field,code,error,language", [
    (None, CPP, "", "cpp"), ("auto", "x = a[i]", TRACEBACK, "python"), ("C++17", "x = 1", "", "cpp"),
    ("python", CPP, "", "python"), ("cobol", CPP, "", "cpp"), ("other", CPP, "", "other"), (None, "", "", "other"),
])  # fmt: skip
def test_the_form_the_api_the_cli_and_the_eval_loader_resolve_the_same_language(field, code, error, language,
                                                                                tmp_path):  # fmt: skip
    from quest.cli import build_parser
    from quest.commands.ask import _request_from
    from quest.evaluation import parse_query
    from quest.request import Request, validate_request

    settings = Settings()
    # The page and /ask: the form's values (an untouched dropdown may come as None).
    form = FormValues.from_fields("why?", "", field, code, "", error, "")
    from_form = form.to_request(default_tier="explain", ui_lang="en", resolve_problem=lambda text: None)
    # The CLI: `ask` and `search` share these arguments; no --language is its default.
    path = tmp_path / "main.txt"
    path.write_text(code, encoding="utf-8")
    argv = ["ask", "why?", "--code", str(path), "--error", error] + ([] if field is None else ["--language", field])
    from_cli = _request_from(build_parser().parse_args(argv), settings)
    # The eval loader: a query without a language field is unset.
    record = {"id": "x", "question": "why?", "lang": "en", "relevant": {}, "answerable": False, "code": code,
              "error": error}
    query = parse_query(record if field is None else {**record, "language": field})
    from_eval = Request(question=query.question, language=query.language, code=query.code, error=query.error)
    resolved = [validate_request(r, settings).language for r in (from_form, from_cli, from_eval)]
    assert resolved == [language] * 3


# --------------------------------------------------------------------------- bounded work on hostile lines


#: Every signal's pattern searched over a long line, in a child process: a regex search holds the GIL until it ends,
#: so only a process can be stopped. The bound is generous (not a speed test): on these lines the old patterns were
#: cubic in the line's length (minutes; a 300-character line took 0.2 s), the fixed ones take milliseconds.
SEARCH_EVERY_SIGNAL = """
import sys
from quest.code_language import SIGNALS
line = sys.stdin.read()
print(sum(s.pattern.search(line) is not None for s in SIGNALS))
"""


@pytest.mark.parametrize("line", [
    "public" + " " * 6000 + "x", "public static" + " " * 6000 + "(", "private" + "\t" * 6000 + ":",
    "[for" + " " * 6000 + "x", "public" + "\n" * 60_000 + "x", "a" + " \n" * 30_000 + ":",
], ids=["public", "public-static", "private-tabs", "comprehension", "blank-lines", "spaced-lines"])  # fmt: skip
def test_every_signal_reads_a_long_line_of_spaces_without_backtracking(line):
    # The detector cuts lines at 300 characters, but a pattern must not rely on that alone: the page runs it on
    # every change of the code box, and 20 such lines cost seconds per call. Blank lines are not cut at all: a
    # line-start `^\s*` ran on over all of them from every line (quadratic: 6,000 newlines took 3-5 s per paste).
    done = subprocess.run([sys.executable, "-c", SEARCH_EVERY_SIGNAL], input=line, capture_output=True, text=True,
                          timeout=120, cwd=REPO, check=True)  # fmt: skip
    assert done.stdout.split() == ["0"]  # none of them matches: a run of spaces is no code


def test_the_method_and_comprehension_patterns_still_match_what_they_did():
    by_name = {s.name: s.pattern for s in SIGNALS}
    java, csharp, comprehension = by_name["Java method"], by_name["C# method"], by_name["comprehension"]
    assert java.search("    public Map<Character, Integer> count(String s) {")
    assert java.search("    public static List<List<Integer>> threeSum(int[] nums) {")
    assert java.search("    private int[][] grid(int n) {")
    assert csharp.search("    public IList<IList<int>> ThreeSum(int[] nums) {")
    assert csharp.search("    static void Main() {") and not java.search("    static void Main() {")
    assert comprehension.search("best = max([x for x in a])")
    assert comprehension.search("pairs = [(i, x) for i, x in enumerate(a)]")
    assert comprehension.search("pairs = [(i, x) for i , x in enumerate(a)]")
    assert not comprehension.search("int a[n]; for (i = 0; i < n; i++)")
    assert detect("public" + " " * 295 + "\n" + CPP) == "cpp"


# --------------------------------------------------------------------------- realistic student snippets

# Written for this review: what students paste, by pairs the detector must tell apart (C / C++, Java / C#,
# JavaScript / TypeScript, Kotlin / Java / Swift) and Go, Rust, Python; whole solutions and one-line pieces.
# Four were read wrongly or not at all before this review's rules (qsort, `constructor(`, `until`/`downTo`,
# `repeating:`); pasted non-code (HTML, a verdict line) stays undecided.
STUDENT_SNIPPETS = [
    ("c", """#include <stdio.h>
int main() {
    int n, a[100];
    scanf("%d", &n);
    for (int i = 0; i < n; i++) scanf("%d", &a[i]);
    int mx = a[0];
    for (int i = 1; i <= n; i++) if (a[i] > mx) mx = a[i];
    printf("%d\\n", mx);
    return 0;
}"""),
    ("cpp", """#include <cstdio>
#include <algorithm>
int a[200005];
int main() {
    int n; scanf("%d", &n);
    for (int i = 0; i < n; i++) scanf("%d", &a[i]);
    std::sort(a, a + n);
    printf("%d\\n", a[n / 2]);
}"""),
    ("c", """bool isValid(char* s) {
    int n = strlen(s);
    char* st = (char*)malloc(n + 1);
    int top = 0;
    for (int i = 0; i < n; i++) {
        if (s[i] == '(') st[top++] = s[i];
        else if (top == 0 || st[--top] != '(') return false;
    }
    return top == 0;
}"""),
    ("cpp", """class Solution {
public:
    bool isValid(string s) {
        stack<char> st;
        for (char c : s) {
            if (c == '(') st.push(c);
            else { if (st.empty()) return false; st.pop(); }
        }
        return st.empty();
    }
};"""),
    ("c", """struct ListNode* reverseList(struct ListNode* head) {
    struct ListNode *prev = NULL, *cur = head;
    while (cur) {
        struct ListNode* next = cur->next;
        cur->next = prev;
        prev = cur;
        cur = next;
    }
    return prev;
}"""),
    ("cpp", """long long dp[5005][5005];
int main() {
    ios::sync_with_stdio(false);
    int n, m; cin >> n >> m;
    dp[0][0] = 1;
    cout << dp[n][m] << "\\n";
}"""),
    ("java", """class Solution {
    public int climbStairs(int n) {
        int[] dp = new int[n + 1];
        dp[0] = 1; dp[1] = 1;
        for (int i = 2; i <= n; i++) dp[i] = dp[i - 1] + dp[i - 2];
        return dp[n];
    }
}"""),
    ("csharp", """public class Solution {
    public int ClimbStairs(int n) {
        int[] dp = new int[n + 1];
        dp[0] = 1; dp[1] = 1;
        for (int i = 2; i <= n; i++) dp[i] = dp[i - 1] + dp[i - 2];
        return dp[n];
    }
}"""),
    ("java", """import java.util.Scanner;
public class Main {
    public static void main(String[] args) {
        Scanner sc = new Scanner(System.in);
        long a = sc.nextLong(), b = sc.nextLong();
        System.out.println(a + b);
    }
}"""),
    ("csharp", """var parts = Console.ReadLine().Split(' ');
long a = long.Parse(parts[0]);
long b = long.Parse(parts[1]);
Console.WriteLine(a + b);"""),
    ("java", """public List<List<Integer>> levelOrder(TreeNode root) {
    List<List<Integer>> res = new ArrayList<>();
    Queue<TreeNode> q = new LinkedList<>();
    if (root != null) q.offer(root);
    while (!q.isEmpty()) {
        int size = q.size();
        List<Integer> level = new ArrayList<>();
        for (int i = 0; i < size; i++) {
            TreeNode node = q.poll();
            level.add(node.val);
        }
        res.add(level);
    }
    return res;
}"""),
    ("csharp", """public IList<IList<int>> LevelOrder(TreeNode root) {
    var res = new List<IList<int>>();
    var q = new Queue<TreeNode>();
    if (root != null) q.Enqueue(root);
    while (q.Count > 0) {
        var level = new List<int>();
        for (int i = q.Count; i > 0; i--) level.Add(q.Dequeue().val);
        res.Add(level);
    }
    return res;
}"""),
    ("javascript", """const lines = require('fs').readFileSync(0, 'utf8').trim().split('\\n');
const n = parseInt(lines[0]);
const a = lines[1].split(' ').map(Number);
let sum = 0;
for (const x of a) sum += x;
console.log(sum);"""),
    ("typescript", """function maxDepth(root: TreeNode | null): number {
    if (root === null) return 0;
    return Math.max(maxDepth(root.left), maxDepth(root.right)) + 1;
}"""),
    ("javascript", """var maxDepth = function(root) {
    if (!root) return 0;
    return Math.max(maxDepth(root.left), maxDepth(root.right)) + 1;
};"""),
    ("typescript", """const memo = new Map<number, number>();
const fib = (n: number): number => {
    if (n < 2) return n;
    if (memo.has(n)) return memo.get(n)!;
    const v = fib(n - 1) + fib(n - 2);
    memo.set(n, v);
    return v;
};"""),
    ("javascript", """const twoSum = (nums, target) => {
  const seen = new Map();
  for (let i = 0; i < nums.length; i++) {
    if (seen.has(target - nums[i])) return [seen.get(target - nums[i]), i];
    seen.set(nums[i], i);
  }
};"""),
    ("kotlin", """fun main() {
    val n = readLine()!!.trim().toInt()
    val a = readLine()!!.split(" ").map { it.toLong() }
    println(a.sum())
}"""),
    ("kotlin", """class Solution {
    fun maxProfit(prices: IntArray): Int {
        var lo = Int.MAX_VALUE
        var best = 0
        for (p in prices) {
            lo = minOf(lo, p)
            best = maxOf(best, p - lo)
        }
        return best
    }
}"""),
    ("swift", """class Solution {
    func maxProfit(_ prices: [Int]) -> Int {
        var lo = Int.max
        var best = 0
        for p in prices {
            lo = min(lo, p)
            best = max(best, p - lo)
        }
        return best
    }
}"""),
    ("swift", """let n = Int(readLine()!)!
var total = 0
for _ in 0..<n {
    let x = Int(readLine()!)!
    total += x
}
print(total)"""),
    ("java", """class Solution {
    public int maxProfit(int[] prices) {
        int lo = Integer.MAX_VALUE, best = 0;
        for (int p : prices) {
            lo = Math.min(lo, p);
            best = Math.max(best, p - lo);
        }
        return best;
    }
}"""),
    ("go", """func twoSum(nums []int, target int) []int {
    seen := map[int]int{}
    for i, x := range nums {
        if j, ok := seen[target-x]; ok {
            return []int{j, i}
        }
        seen[x] = i
    }
    return nil
}"""),
    ("go", """package main

import (
    "bufio"
    "os"
    "strconv"
)

func main() {
    reader := bufio.NewReader(os.Stdin)
    var n int
    fmt.Fscan(reader, &n)
    _ = strconv.Itoa(n)
}"""),
    ("rust", """use std::io::{self, Read};

fn main() {
    let mut input = String::new();
    io::stdin().read_to_string(&mut input).unwrap();
    let nums: Vec<i64> = input.split_whitespace().map(|x| x.parse().unwrap()).collect();
    println!("{}", nums.iter().sum::<i64>());
}"""),
    ("rust", """impl Solution {
    pub fn is_palindrome(x: i32) -> bool {
        let s = x.to_string();
        s.chars().rev().collect::<String>() == s
    }
}"""),
    ("python", """import sys
input = sys.stdin.readline
n, m = map(int, input().split())
g = [[] for _ in range(n)]
for _ in range(m):
    u, v = map(int, input().split())
    g[u - 1].append(v - 1)
print(len(g))"""),
    ("python", """class Solution:
    def climbStairs(self, n: int) -> int:
        a, b = 1, 1
        for _ in range(n):
            a, b = b, a + b
        return a"""),
    ("python", """def dfs(i, j):
    if i < 0 or j < 0 or grid[i][j] == '0':
        return
    grid[i][j] = '0'
    dfs(i + 1, j); dfs(i - 1, j)"""),
    ("cpp", "for (int i = 0; i < v.size(); i++) sum += v[i];"),
    ("java", """int[] dp = new int[n + 1];
Arrays.fill(dp, Integer.MAX_VALUE);"""),
    ("go", """for i := 0; i < n; i++ {
    sum += a[i]
}"""),
    ("kotlin", "val dp = IntArray(n + 1) { 0 }"),
    ("rust", "let n: usize = line.trim().parse().unwrap();"),
    ("swift", "var dp = [Int](repeating: 0, count: n + 1)"),
    ("python", """for i in range(n):
    ans += a[i]"""),
    ("c", """int cmp(const void* a, const void* b) { return *(int*)a - *(int*)b; }
qsort(a, n, sizeof(int), cmp);"""),
    ("cpp", """#include <bits/stdc++.h>
int main() {
    int n; scanf("%d", &n);
    long long s = 0;
    for (int i = 0; i < n; i++) { int x; scanf("%d", &x); s += x; }
    printf("%lld\\n", s);
}"""),
    ("c", """#include <stdio.h>
#include <string.h>
#include <stdbool.h>
char s[1005];
int main() {
    scanf("%s", s);
    int n = strlen(s);
    bool ok = true;
    for (int i = 0; i < n / 2; i++) if (s[i] != s[n - 1 - i]) ok = false;
    puts(ok ? "Yes" : "No");
}"""),
    ("java", """import java.io.*;
import java.util.*;
public class Main {
    public static void main(String[] args) throws IOException {
        BufferedReader br = new BufferedReader(new InputStreamReader(System.in));
        int n = Integer.parseInt(br.readLine().trim());
        StringTokenizer st = new StringTokenizer(br.readLine());
        long sum = 0;
        for (int i = 0; i < n; i++) sum += Long.parseLong(st.nextToken());
        System.out.println(sum);
    }
}"""),
    ("csharp", """using System;
using System.Collections.Generic;
using System.Linq;
class Program {
    static void Main() {
        int n = int.Parse(Console.ReadLine());
        var a = Console.ReadLine().Split().Select(long.Parse).ToArray();
        Console.WriteLine(a.Sum());
    }
}"""),
    ("typescript", """class MinStack {
    private stack: number[] = [];
    private mins: number[] = [];
    push(val: number): void {
        this.stack.push(val);
        this.mins.push(Math.min(val, this.mins.length ? this.mins[this.mins.length - 1] : val));
    }
}"""),
    ("go", """func main() {
    var n int
    fmt.Scan(&n)
    a := make([]int, n)
    for i := range a {
        fmt.Scan(&a[i])
    }
    fmt.Println(a[n-1])
}"""),
    ("swift", """import Foundation
let n = Int(readLine()!)!
let a = readLine()!.split(separator: " ").map { Int($0)! }
print(a.reduce(0, +))"""),
    ("kotlin", """import java.util.*
fun main() {
    val sc = Scanner(System.`in`)
    val n = sc.nextInt()
    println(n * 2)
}"""),
    ("rust", """fn dfs(grid: &mut Vec<Vec<char>>, i: usize, j: usize) {
    if grid[i][j] == '0' { return; }
    grid[i][j] = '0';
    if i + 1 < grid.len() { dfs(grid, i + 1, j); }
}"""),
    ("python", """n = int(input())
dp = [0] * (n + 1)
dp[0] = 1
for i in range(1, n + 1):
    for c in coins:
        if i >= c:
            dp[i] += dp[i - c]
print(dp[n])"""),
    ("javascript", """function lengthOfLongestSubstring(s) {
    let best = 0, left = 0;
    const last = {};
    for (let i = 0; i < s.length; i++) {
        if (last[s[i]] !== undefined && last[s[i]] >= left) left = last[s[i]] + 1;
        last[s[i]] = i;
        best = Math.max(best, i - left + 1);
    }
    return best;
}"""),
    ("cpp", """struct Node { int val; Node* next; };
Node* build(vector<int>& a) {
    Node dummy{0, nullptr};
    Node* cur = &dummy;
    for (int x : a) { cur->next = new Node{x, nullptr}; cur = cur->next; }
    return dummy.next;
}"""),
    ("java", """for (int x : nums) {
    map.put(x, map.getOrDefault(x, 0) + 1);
}"""),
    ("kotlin", """fun twoSum(nums: IntArray, target: Int): IntArray {
    val seen = HashMap<Int, Int>()
    for ((i, x) in nums.withIndex()) {
        seen[target - x]?.let { return intArrayOf(it, i) }
        seen[x] = i
    }
    return intArrayOf()
}"""),
    ("csharp", """public int MaxProfit(int[] prices) {
    int lo = int.MaxValue, best = 0;
    foreach (var p in prices) {
        lo = Math.Min(lo, p);
        best = Math.Max(best, p - lo);
    }
    return best;
}"""),
    ("swift", """func twoSum(_ nums: [Int], _ target: Int) -> [Int] {
    var seen = [Int: Int]()
    for (i, x) in nums.enumerated() {
        if let j = seen[target - x] { return [j, i] }
        seen[x] = i
    }
    return []
}"""),
    (None, '<html><body><script>alert(1)</script><div class="x">hello</div></body></html>'),
    (None, "Time Limit Exceeded on test 3"),
    ("kotlin", """for (i in 0 until n) {
    sum += a[i]
}"""),
    ("kotlin", """var ans = 0L
for (i in n - 1 downTo 0) ans += a[i]"""),
    ("javascript", """class LRUCache {
  constructor(capacity) {
    this.cap = capacity;
    this.map = new Map();
  }
}"""),
    ("typescript", "let dp: number[] = new Array(n + 1).fill(0);"),
    ("go", """for _, v := range nums {
    sum += v
}"""),
    ("rust", """for i in 0..n {
    sum += a[i];
}"""),
    ("swift", """for i in 0..<n {
    sum += a[i]
}"""),
    ("cpp", """string s; cin >> s;
reverse(s.begin(), s.end());"""),
    ("csharp", "var cnt = new Dictionary<int, int>();"),
    ("java", "Map<Integer, Integer> cnt = new HashMap<>();"),
]  # fmt: skip


@pytest.mark.parametrize("language,code", STUDENT_SNIPPETS,
                         ids=[f"{i}-{language}" for i, (language, _) in enumerate(STUDENT_SNIPPETS)])
def test_student_snippets_are_read_as_their_language(language, code):
    assert detect(code) == language
