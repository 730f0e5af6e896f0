"""Rules ``field`` and ``id``: the problem field, or an id or judge URL in the question, the error or a code comment
(a marked number, a slug, a leading number before its title, a Chinese ordinal after LeetCode's name), minding whose
numbering it is in: another judge's, a contest's, or a test's or stack frame's number that names no problem."""

from __future__ import annotations

import re
import unicodedata

from quest.kb.catalogue import resolve_problem
from quest.kb.documents import normalize_problem_id
from quest.leading_ids import leading_title
from quest.request import Request
from quest.resolution.catalogue import Catalogue
from quest.resolution.result import Resolution
from quest.resolution.words import squash, without_lead_in
from quest.zh_numbers import ordinal_ids

# Ids with a marker that says "this is a problem number". Group 1 is the id.
_ID_PATTERNS: tuple[re.Pattern[str], ...] = tuple(re.compile(p, re.I) for p in (
    r"problem\.php\?(?:[^\s#]*&)?(?:id|pid)=(\w+)",
    r"/p/([A-Za-z]*\d+)\b",
    r"/problem/(\d+)\b",
    r"(?:codeforces|cf)\s*(?:problem\s*)?(\d+\s*[A-Za-z]\d?)\b",
    r"(?<![a-z])(?:leetcode|lc|力扣|领扣|lintcode|luogu|洛谷|hdu|poj|zoj|uva|acwing|problem|题目|题号)(?:\s*|[-_.])(?:no\.?|#|:|：)?\s*"
    r"([A-Za-z]?\d+)\b",
    r"(?:牛客网?|nowcoder)\s*(?:题号|#|:|：)?\s*([A-Za-z]{1,3}\d+)\b",  # NC78, BM1
    r"第\s*(\d+)\s*[题題]",  # and in traditional characters: "第 283 題"
    r"(?<![\d.])(\d+)\s*[题題](?!目)",
    # "316和1081 这两题", "70、746 两道题": ids listed before a count of problems (round 10).
    r"(?<![\d.])(\d+)\s*(?:和|与|跟|、|,|，|/)\s*\d+\s*(?:这|那)?\s*[两二几三]\s*[道个]?\s*[题題]",
    r"(?:^|\s)#(\d+)\b",
    r"^\s*(\d+)\s*[.、．:：]\s*(?=\D)",
))
_CONTEST = re.compile(r"(?:bi)?weekly\s+contest\s*\d*|contest\s*\d+|round\s*#?\s*\d+|div\.?\s*[1-4]|"
                      r"(?:双)?周赛\s*(?:第?\s*\d+\s*场)?|比赛|模拟赛", re.I)
_GENERIC_MARKER = re.compile(r"\s*(?:problem|题目|题号|第|#|\d)", re.I)
_OTHER_JUDGE = re.compile(r"\s*(?:luogu|洛谷|hdu|poj|zoj|uva|acwing|牛客|nowcoder|codeforces|cf)", re.I)
_SLUG = re.compile(r"leetcode(?:-cn)?\.(?:com|cn)/problems/([a-z0-9-]+)", re.I)
_LONGEST_ID = 7  # judges number problems with at most 5 digits and a letter or two ("P10001", "1899D")
_WHOLE_ID = re.compile(r"^\s*(?:#|p|lc)?\s*0*(\d+)\s*$", re.I)
_COMMENT = re.compile(r"^\s*(?://|#|/\*|\*|--)(.*)$", re.M)


def _named(raw: str | None, rule: str, evidence: str, cat: Catalogue) -> Resolution | None:
    """The problem an id names: a starter id, a qualified `source:id`, or an imported judge's own
    number when only one problem set has it (several: the resolution lists them, to ask)."""
    pid = normalize_problem_id(raw)
    if pid is None:
        return None
    found = resolve_problem(raw, cat.problems)
    if found.problem is not None:
        return Resolution(found.problem.id, rule, evidence)
    if found.ambiguous:
        return Resolution(None, rule, evidence, candidates=tuple(p.id for p in found.candidates))
    return Resolution(None, rule, evidence, missing_id=pid)


def by_field(request: Request, cat: Catalogue) -> Resolution | None:
    return _named(request.problem_id, "field", normalize_problem_id(request.problem_id) or "", cat)


def _id_in(text: str, cat: Catalogue) -> Resolution | None:
    m = _SLUG.search(text)
    if m:
        pid = cat.slugs.get(m.group(1).strip("-").lower())
        return Resolution(pid, "id", m.group(0), missing_id=None if pid else m.group(1))
    m = _first_id(text)
    if m is not None:
        return _id_named(m, text, cat)
    return _leading_number_with_title(text, cat)


def _first_id(text: str) -> re.Match[str] | None:
    """The id the text names first. A post names its own problem before the ones it compares it with
    ("407. 接雨水 II 是二维版，42 题那种双指针用不上", "LeetCode 213 … 198 题的做法"), so the earliest marked
    id wins, whichever pattern marks it; at one position the more explicit pattern (listed first) does."""
    found = []
    for order, pattern in enumerate(_ID_PATTERNS):
        m = next((m for m in pattern.finditer(text) if not _test_or_frame_number(m, text)), None)
        if m and len(m.group(1)) <= _LONGEST_ID:  # "problem: 1534236469 should give 0" is input, not an id
            found.append((m.start(), order, m))
    return min(found, key=lambda f: f[:2])[2] if found else None


# "#5" is a test number after "test"/"case"/"用例" ("Wrong answer on test #5") and a stack frame before an
# address ("#0 0x55d1 in main" in every sanitizer report): neither names a problem.
# Codeforces' per-test report writes "Test: #7, time: …".
_TEST_BEFORE = re.compile(
    r"(?:test(?:\s*case)?|case|sample|example|input|output|line|用例|测试点|样例|数据)\s*[:：]?\s*$", re.I)

# gdb prints "#0  main () at a.cc:23" (no address for the innermost frame).
_FRAME_AFTER = re.compile(r"\s+(?:0x[0-9a-f]+|in\s|[\w:~<>]+\s*\([^)\n]*\)\s+at\s)", re.I)

# A judge that lists each test's result numbers the tests: ZeroJudge prints "#3: WA (line:1)" and "#0: 20% AC (2ms,
# 316KB)" under the overall "NA (score:40%)". A "#N:" followed by a verdict's abbreviation or a score is a test.
# Luogu's and Hydro's tables have no colon but give the test's time after its result ("#2 WA 4ms/648.00KB", "#3 Wrong
# Answer 5ms 1.2 MiB"): a "#N" with a result and a time is a test; "#15 TLE" alone may still be a problem.
_TEST_RESULT_AFTER = re.compile(
    r"\s*[:：]\s*(?:\d{1,3}\s*%\s*)?(?:AC|WA|TLE|MLE|OLE|RE|CE|PE|SE|NA)\b|"
    r"[ \t]+(?:AC|WA|TLE|MLE|OLE|RE|RTE|CE|PE|SE|IR|(?i:accepted|wrong answer|time limit exceeded|"
    r"memory limit exceeded|output limit exceeded|runtime error|compile error|time exceeded|memory exceeded|"
    r"output exceeded))"
    r"[ \t]+[<>]?\d{1,6}(?:\.\d{1,3})?[ \t]*(?:ms|s)\b")


def _test_or_frame_number(m: re.Match[str], text: str) -> bool:
    if not m.group(0).lstrip().startswith("#"):
        return False
    return bool(_TEST_BEFORE.search(text[:m.start(1) - 1]) or _FRAME_AFTER.match(text, m.end()) or
                _TEST_RESULT_AFTER.match(text, m.end()))


def _id_named(m: re.Match[str], text: str, cat: Catalogue) -> Resolution | None:
    """The problem an id pattern's match names, minding whose numbering the id is in."""
    contest = _CONTEST.search(text)
    if contest and _GENERIC_MARKER.match(m.group(0)) and not re.search(r"[/?]", m.group(0)):
        # "weekly contest 380 problem 3", "周赛第3题": a contest's problem, not the starter problem 3.
        named = f"{contest.group(0).strip()} {m.group(0).strip()}"
        return Resolution(None, "id", named, missing_id=named)
    found = _named(m.group(1), "id", m.group(0).strip(), cat)
    url = _other_judge_url(text, m.start())
    if found is not None and found.problem_id is not None and url and not cat.problems[found.problem_id].source_name:
        # "codeforces.com/problemset/problem/1143/A" or HDU's "showproblem.php?pid=1143" is that judge's
        # problem 1143, not the starter problem numbered 1143 (imported problems carry their source).
        return Resolution(None, "id", url, missing_id=url)
    if found is None or not _OTHER_JUDGE.match(m.group(0)) or found.candidates:
        return found
    if found.problem_id is None or not cat.problems[found.problem_id].source_name:
        # The starter problems carry LeetCode's numbers: "AcWing 1" or "POJ 1000" is another
        # problem, and it is reported with its judge's name ("洛谷 P1001", not "1001").
        return Resolution(None, "id", found.evidence, missing_id=found.evidence)
    return found


# Judges whose problem pages are never the starter base's: a numeric id in their URLs is their own.
_OTHER_JUDGE_HOST = re.compile(
    r"(?:^|\.)(?:codeforces\.com|hdu\.edu\.cn|poj\.org|luogu\.com\.cn|acwing\.com|nowcoder\.com|atcoder\.jp|"
    r"vjudge\.net|zoj\.pintia\.cn|pintia\.cn|onlinejudge\.org|spoj\.com|kattis\.com|hackerrank\.com)$", re.I)
_URL = re.compile(r"https?://([^/\s?#]+)[^\s]*", re.I)


def _other_judge_url(text: str, at: int) -> str | None:
    """The URL (without its scheme) around position `at` when it is on another judge's site."""
    for url in _URL.finditer(text):
        if url.start() <= at < url.end() and _OTHER_JUDGE_HOST.search(url.group(1).split(":")[0]):
            return url.group(0).split("://", 1)[1].rstrip("/.,;:)）。，")[:80]
    return None


def _leading_number_with_title(text: str, cat: Catalogue) -> Resolution | None:
    """'146 LRU缓存机制 ...': a bare leading number counts when that problem's title follows it."""
    m = re.match(r"^\s*(?:No\.\s*)?(\d+)\s+(\S.*)", text, re.S)  # "No. 11 盛水…": a problem list's numbering
    if m and m.group(1) not in cat.problems:  # "371 sum of two integers in C: …" (`quest.leading_ids`)
        named = leading_title(text)
        return Resolution(None, "id", f"{named[0]} {named[1]}", missing_id=named[0]) if named else None
    if not m:
        return None
    p = cat.problems[m.group(1)]
    rest = squash(m.group(2))
    if any(t and squash(t)[:4] and rest.startswith(squash(t)[:4]) for t in (p.title_zh, p.title_en)):
        return Resolution(p.id, "id", m.group(0)[:40].strip())
    return None


def by_id(request: Request, cat: Catalogue) -> Resolution | None:
    question = unicodedata.normalize("NFKC", request.question)  # full-width "２３９．" is 239.
    if _WHOLE_ID.match(question):
        return _named(question, "id", question.strip(), cat)
    comments = "\n".join(m.group(1) for m in _COMMENT.finditer(request.code or ""))
    for text in (question, unicodedata.normalize("NFKC", request.error), comments):
        found = _id_in(text, cat) if text else None
        if found is not None:
            return found
    led = without_lead_in(question)
    found = _id_in(led, cat) if led != question else None  # "做 27. 移除元素 的时候", "Solving 371 Sum of …: …"
    return found if found is not None else _zh_ordinal(question, cat)


_LEETCODE_BEFORE = re.compile(r"(?:leetcode|lc|力扣|领扣)\s*(?:上的?|的)?\s*$", re.I)


def _zh_ordinal(question: str, cat: Catalogue) -> Resolution | None:
    """"力扣第一题", "第一题两数之和": a number in Chinese numerals after LeetCode's name or beside that
    problem's title (alone, "第一题" is just the first problem of some set; `quest.zh_numbers`)."""
    for m, number in ordinal_ids(question):
        problem = cat.problems.get(number)
        titled = problem is not None and any(t and squash(t) in squash(question) for t in (problem.title_zh,
                                                                                            problem.title_en))
        if titled or _LEETCODE_BEFORE.search(question[:m.start()]):
            return Resolution(number, "id", m.group(0)) if problem else Resolution(None, "id", m.group(0),
                                                                                    missing_id=number)
    return None
