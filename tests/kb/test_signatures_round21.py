"""Round 21: the base's error-pattern signatures cover each pattern's bug as students also write it, and still do not
hold for the correct code (docs/retrieval.md, round 21). Every snippet here is written for the test: a typical buggy
attempt per pattern and language, and a correct version in the manner of the problem's official solution."""

from __future__ import annotations

from pathlib import Path

import pytest

from quest.kb.markdown import load_knowledge_base
from quest.kb.signatures import for_attempt, matches

BASE = Path(__file__).resolve().parents[2] / "knowledge"


@pytest.fixture(scope="module")
def patterns() -> dict:
    kb = load_knowledge_base(BASE, strict=True)
    return {d.id: d for d in kb.documents if d.kind == "error_pattern" and d.problem_id}


def holds(doc, language: str, verdict: str | None, code: str) -> bool:
    own = for_attempt(doc.signatures, language, verdict, doc.verdicts)
    assert own, f"{doc.id} lists no signature for {language} / {verdict}"
    return matches(own, code)


# (pattern, language, verdict, buggy code, correct code)
CASES = [
    ("p56-error-assign-right-end-zh", "python", "WA",
     # no sort: the max() is right, the order is not
     "out = []\nfor a, b in spans:\n    if out and a <= out[-1][1]:\n        out[-1][1] = max(out[-1][1], b)\n"
     "    else:\n        out.append([a, b])\n",
     "spans.sort(key=lambda p: p[0])\nout = []\nfor a, b in spans:\n    if out and a <= out[-1][1]:\n"
     "        out[-1][1] = max(out[-1][1], b)\n    else:\n        out.append([a, b])\n"),
    ("p56-error-assign-right-end-zh", "python", "WA",
     # touching intervals missed by a strict compare
     "spans.sort()\nout = []\nfor a, b in spans:\n    if out and a < out[-1][1]:\n"
     "        out[-1][1] = max(out[-1][1], b)\n    else:\n        out.append([a, b])\n",
     "spans.sort()\nout = []\nfor a, b in spans:\n    if out and out[-1][1] >= a:\n"
     "        out[-1][1] = max(out[-1][1], b)\n    else:\n        out.append([a, b])\n"),
    ("p56-error-assign-right-end-zh", "cpp", "WA",
     "vector<vector<int>> out;\nfor (auto& v : in) {\n    if (!out.empty() && v[0] <= out.back()[1])\n"
     "        out.back()[1] = max(out.back()[1], v[1]);\n    else out.push_back(v);\n}\n",
     "sort(in.begin(), in.end());\nvector<vector<int>> out;\nfor (auto& v : in) {\n"
     "    if (!out.empty() && v[0] <= out.back()[1])\n        out.back()[1] = max(out.back()[1], v[1]);\n"
     "    else out.push_back(v);\n}\n"),
    ("p102-error-level-boundary-en", "python", "WA",
     "dq = deque([root])\nrow = []\nwhile dq:\n    cur = dq.popleft()\n    row.append(cur.val)\n"
     "    if cur.left: dq.append(cur.left)\n    if cur.right: dq.append(cur.right)\nans.append(row)\n",
     "dq = deque([root])\nwhile dq:\n    row = []\n    for _ in range(len(dq)):\n        cur = dq.popleft()\n"
     "        row.append(cur.val)\n        if cur.left: dq.append(cur.left)\n"
     "        if cur.right: dq.append(cur.right)\n    ans.append(row)\n"),
    ("p207-error-two-state-visited-zh", "python", "WA",
     "seen = set()\ndef dfs(u):\n    if u in seen: return False\n    seen.add(u)\n"
     "    return all(dfs(v) for v in g[u])\n",
     "state = [0] * n\ndef dfs(u):\n    state[u] = 1\n    for v in g[u]:\n        if state[v] == 1: return False\n"
     "        if state[v] == 0 and not dfs(v): return False\n    state[u] = 2\n    return True\n"),
    ("p42-error-quadratic-scan-tle-zh", "python", "TLE",
     # a walk to each side from every bar
     "for i in range(n):\n    j = i\n    while j >= 0:\n        lmax = max(lmax, h[j])\n        j -= 1\n",
     "l, r = 0, len(h) - 1\nlmax = rmax = total = 0\nwhile l < r:\n    if h[l] < h[r]:\n"
     "        lmax = max(lmax, h[l]); total += lmax - h[l]; l += 1\n"
     "    else:\n        rmax = max(rmax, h[r]); total += rmax - h[r]; r -= 1\n"),
    ("p42-error-quadratic-scan-tle-zh", "python", "TLE",
     "for i in range(1, n - 1):\n    best_l = 0\n    for j in range(i):\n        best_l = max(best_l, h[j])\n",
     "stack, total = [], 0\nfor i, x in enumerate(h):\n"
     "    while stack and h[stack[-1]] < x:\n        low = stack.pop()\n"),
    ("p560-error-sliding-window-zh", "python", "WA",
     "lo = s = cnt = 0\nfor hi, x in enumerate(nums):\n    s += x\n    while s >= k and lo <= hi:\n"
     "        cnt += s == k\n        s -= nums[lo]; lo += 1\n",
     "seen = {0: 1}\ns = cnt = 0\nfor x in nums:\n    s += x\n    cnt += seen.get(s - k, 0)\n"
     "    seen[s] = seen.get(s, 0) + 1\n"),
    ("p560-error-sliding-window-zh", "cpp", "WA",
     "for (int i = 0; i < n; i++) {\n    int s = 0;\n    for (int j = i; j < n; j++) {\n        s += a[j];\n"
     "        if (s == k) cnt++;\n        if (s > k)\n            break;\n    }\n}\n",
     "unordered_map<int, int> seen{{0, 1}};\nint s = 0, cnt = 0;\nfor (int x : a) {\n    s += x;\n"
     "    if (seen.count(s - k)) cnt += seen[s - k];\n    seen[s]++;\n}\n"),
    ("p560-error-sliding-window-zh", "python", "WA",
     "for i in range(n):\n    s = 0\n    for j in range(i, n):\n        s += nums[j]\n        if s > k:\n"
     "            break\n",
     "seen = {0: 1}\ns = cnt = 0\nfor x in nums:\n    s += x\n    cnt += seen.get(s - k, 0)\n"
     "    seen[s] = seen.get(s, 0) + 1\n"),
    ("p146-error-no-refresh-zh", "python", "WA",
     "def get(self, key):\n    if key in self.table:\n        return self.table[key].val\n    return -1\n",
     "def get(self, key):\n    if key not in self.table:\n        return -1\n    node = self.table[key]\n"
     "    self._unlink(node)\n    self._push_front(node)\n    return node.val\n"),
    ("p146-error-no-refresh-zh", "python", "WA",
     "def get(self, key):\n    if key not in self.od:\n        return -1\n    return self.od[key]\n",
     "def get(self, key):\n    if key not in self.od:\n        return -1\n    self.od.move_to_end(key)\n"
     "    return self.od[key]\n"),
    ("p146-error-no-refresh-zh", "python", "WA",
     "def put(self, key, value):\n    if key in self.table:\n        self.table[key].val = value\n        return\n",
     "def put(self, key, value):\n    if key in self.table:\n        node = self.table[key]\n"
     "        node.val = value\n        self._unlink(node)\n        self._push_front(node)\n        return\n"),
    ("p20-error-pop-empty-stack-en", "python", "RE",
     "for c in s:\n    if c in close:\n        if st[-1] != close[c]:\n            return False\n        st.pop()\n"
     "    else:\n        st.append(c)\n",
     "for c in s:\n    if c in close:\n        if not st or st[-1] != close[c]:\n            return False\n"
     "        st.pop()\n    else:\n        st.append(c)\nreturn not st\n"),
    ("p20-error-pop-empty-stack-en", "python", "WA",
     "return s.count('(') == s.count(')') and s.count('[') == s.count(']')\n",
     "for c in s:\n    if c in close:\n        if not st or st.pop() != close[c]:\n            return False\n"
     "    else:\n        st.append(c)\nreturn not st\n"),
    ("p20-error-pop-empty-stack-en", "cpp", "RE",
     "for (char c : s) {\n    if (c == ')' || c == ']' || c == '}') {\n        if (st.top() != open(c)) return false;\n"
     "        st.pop();\n    } else st.push(c);\n}\n",
     "for (char c : s) {\n    if (c == ')' || c == ']' || c == '}') {\n"
     "        if (st.empty() || st.top() != open(c)) return false;\n        st.pop();\n    } else st.push(c);\n}\n"
     "return st.empty();\n"),
    ("p215-error-fixed-pivot-zh", "python", "TLE",
     # a random pivot, but a two-way partition: all-equal input is still quadratic
     "p = random.randint(lo, hi)\na[p], a[hi] = a[hi], a[p]\nstore = lo\nfor i in range(lo, hi):\n"
     "    if a[i] < a[hi]:\n        a[store], a[i] = a[i], a[store]\n        store += 1\n",
     "while True:\n    pv = random.choice(nums)\n    big = [x for x in nums if x > pv]\n    eq = nums.count(pv)\n"
     "    if k <= len(big):\n        nums = big\n    elif k <= len(big) + eq:\n        return pv\n"
     "    else:\n        k -= len(big) + eq\n        nums = [x for x in nums if x < pv]\n"),
    ("p215-error-fixed-pivot-zh", "cpp", "TLE",
     "swap(a[(lo + hi) / 2], a[hi]);\nint p = a[hi], i = lo;\nfor (int j = lo; j < hi; j++)\n"
     "    if (a[j] > p) swap(a[i++], a[j]);\nswap(a[i], a[hi]);\n",
     "int lt = lo, i = lo, gt = hi;\nwhile (i <= gt) {\n    if (a[i] > pv) swap(a[lt++], a[i++]);\n"
     "    else if (a[i] < pv) swap(a[i], a[gt--]);\n    else ++i;\n}\n"),
    ("p94-error-mutable-default-argument-en", "python", "WA",
     "class Solution:\n    out = []\n    def inorderTraversal(self, root):\n        if root:\n"
     "            self.inorderTraversal(root.left)\n            self.out.append(root.val)\n"
     "            self.inorderTraversal(root.right)\n        return self.out\n",
     # a tuple of empty lists is no default argument (the official solution starts so)
     "class Solution:\n    def inorderTraversal(self, root):\n        out, st, cur = [], [], root\n"
     "        while st or cur:\n            while cur:\n                st.append(cur); cur = cur.left\n"
     "            cur = st.pop(); out.append(cur.val); cur = cur.right\n        return out\n"),
    ("p94-error-mutable-default-argument-en", "python", "WA",
     "def inorderTraversal(self, root, acc=[]):\n    if root:\n        self.inorderTraversal(root.left, acc)\n"
     "        acc.append(root.val)\n        self.inorderTraversal(root.right, acc)\n    return acc\n",
     "def inorderTraversal(self, root, acc=None):\n    if acc is None:\n        acc = []\n    return acc\n"),
    ("p1143-error-recursion-index-en", "python", "TLE",
     "def go(i, j):\n    if i < 0 or j < 0:\n        return 0\n"
     "    if x[i] == y[j]:\n        return 1 + go(i - 1, j - 1)\n"
     "    return max(go(i - 1, j), go(i, j - 1))\n",
     "dp = [[0] * (n + 1) for _ in range(m + 1)]\nfor i in range(1, m + 1):\n    for j in range(1, n + 1):\n"
     "        dp[i][j] = dp[i - 1][j - 1] + 1 if x[i - 1] == y[j - 1] else max(dp[i - 1][j], dp[i][j - 1])\n"),
    # Other languages than the pattern's own, written the same way.
    ("p33-error-strict-compare-wa-en", "javascript", "WA",
     "while (lo <= hi) {\n  const mid = (lo + hi) >> 1;\n  if (a[mid] === t) return mid;\n"
     "  if (a[lo] < a[mid]) {\n    if (a[lo] <= t && t < a[mid]) hi = mid - 1; else lo = mid + 1;\n"
     "  } else {\n    if (a[mid] < t && t <= a[hi]) lo = mid + 1; else hi = mid - 1;\n  }\n}\n",
     "while (lo <= hi) {\n  const mid = (lo + hi) >> 1;\n  if (a[mid] === t) return mid;\n"
     "  if (a[lo] <= a[mid]) {\n    if (a[lo] <= t && t < a[mid]) hi = mid - 1; else lo = mid + 1;\n"
     "  } else {\n    if (a[mid] < t && t <= a[hi]) lo = mid + 1; else hi = mid - 1;\n  }\n}\n"),
    ("p33-error-strict-compare-wa-en", "cpp", "TLE",
     "for (int i = 0; i < nums.size(); i++)\n    if (nums[i] == target) return i;\nreturn -1;\n",
     "int lo = 0, hi = nums.size() - 1;\nwhile (lo <= hi) {\n    int mid = lo + (hi - lo) / 2;\n"
     "    if (nums[mid] == target) return mid;\n    if (nums[lo] <= nums[mid]) {\n"
     "        if (nums[lo] <= target && target < nums[mid]) hi = mid - 1; else lo = mid + 1;\n"
     "    } else {\n        if (nums[mid] < target && target <= nums[hi]) lo = mid + 1; else hi = mid - 1;\n"
     "    }\n}\nreturn -1;\n"),
    ("p560-error-sliding-window-zh", "java", "WA",
     "int l = 0, s = 0, cnt = 0;\nfor (int r = 0; r < a.length; r++) {\n    s += a[r];\n"
     "    while (s > k && l <= r) s -= a[l++];\n    if (s == k) cnt++;\n}\n",
     "Map<Integer, Integer> seen = new HashMap<>();\nseen.put(0, 1);\nint s = 0, cnt = 0;\n"
     "for (int x : a) {\n    s += x;\n    cnt += seen.getOrDefault(s - k, 0);\n"
     "    seen.merge(s, 1, Integer::sum);\n}\n"),
    ("p206-error-lost-next-en", "cpp", "WA",
     "ListNode* prev = nullptr;\nListNode* cur = head;\nwhile (cur) {\n    cur->next = prev;\n    prev = cur;\n"
     "    cur = cur->next;\n}\nreturn head;\n",
     "ListNode* prev = nullptr;\nListNode* cur = head;\nwhile (cur) {\n    ListNode* nxt = cur->next;\n"
     "    cur->next = prev;\n    prev = cur;\n    cur = nxt;\n}\nreturn prev;\n"),
    ("p206-error-lost-next-en", "java", "WA",
     "ListNode prev = null, cur = head;\nwhile (cur != null) {\n    cur.next = prev;\n    prev = cur;\n"
     "    cur = cur.next;\n}\nreturn prev;\n",
     "ListNode prev = null, cur = head;\nwhile (cur != null) {\n    ListNode nxt = cur.next;\n"
     "    cur.next = prev;\n    prev = cur;\n    cur = nxt;\n}\nreturn prev;\n"),
    ("p206-error-lost-next-en", "cpp", "WA",
     # the pointers are saved, but the walking pointer (null after the loop) is returned
     "ListNode *prev = nullptr, *cur = head;\nwhile (cur) {\n    ListNode* nxt = cur->next;\n"
     "    cur->next = prev;\n    prev = cur;\n    cur = nxt;\n}\nreturn cur;\n",
     "ListNode *prev = nullptr, *cur = head;\nwhile (cur) {\n    ListNode* nxt = cur->next;\n"
     "    cur->next = prev;\n    prev = cur;\n    cur = nxt;\n}\nreturn prev;\n"),
    ("p206-error-lost-next-en", "python", "WA",
     "prev, cur = None, head\nwhile cur:\n    cur.next, prev, cur = prev, cur, cur.next\nreturn cur\n",
     "prev, cur = None, head\nwhile cur:\n    cur.next, prev, cur = prev, cur, cur.next\nreturn prev\n"),
    ("p560-error-sliding-window-zh", "java", "WA",
     # the empty prefix is never counted: a subarray starting at index 0 is missed
     "Map<Integer, Integer> pre = new HashMap<>();\nint s = 0, cnt = 0;\nfor (int x : a) {\n    s += x;\n"
     "    cnt += pre.getOrDefault(s - k, 0);\n    pre.merge(s, 1, Integer::sum);\n}\n",
     "Map<Integer, Integer> pre = new HashMap<>();\npre.put(0, 1);\nint s = 0, cnt = 0;\nfor (int x : a) {\n"
     "    s += x;\n    cnt += pre.getOrDefault(s - k, 0);\n    pre.merge(s, 1, Integer::sum);\n}\n"),
    ("p560-error-sliding-window-zh", "python", "WA",
     "cnt = defaultdict(int)\ns = ans = 0\nfor x in nums:\n    s += x\n    ans += cnt[s - k]\n    cnt[s] += 1\n",
     "cnt = defaultdict(int)\ncnt[0] = 1\ns = ans = 0\nfor x in nums:\n    s += x\n    ans += cnt[s - k]\n"
     "    cnt[s] += 1\n"),
    ("p560-error-sliding-window-zh", "cpp", "WA",
     "unordered_map<int, int> pre;\nint s = 0, cnt = 0;\nfor (int x : a) {\n    s += x;\n"
     "    if (pre.count(s - k)) cnt += pre[s - k];\n    pre[s]++;\n}\n",
     "unordered_map<int, int> pre{{0, 1}};\nint s = 0, cnt = 0;\nfor (int x : a) {\n    s += x;\n"
     "    if (pre.count(s - k)) cnt += pre[s - k];\n    pre[s]++;\n}\n"),
]


@pytest.mark.parametrize(("pattern", "language", "verdict", "buggy", "correct"), CASES,
                         ids=[f"{c[0]}-{c[1]}-{i}" for i, c in enumerate(CASES)])
def test_signatures_hold_for_the_bug_and_not_for_the_correct_code(patterns, pattern, language, verdict, buggy,
                                                                   correct):
    doc = patterns[pattern]
    assert holds(doc, language, verdict, buggy)
    assert not holds(doc, language, verdict, correct)
