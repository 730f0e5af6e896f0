"""Soak test: many students over many minutes against the app and a misbehaving Ollama (issue 11).

`python -m quest bench --soak --students 200 --minutes 10 --out docs/soak` starts the real app
in a child process (real assistant and index over a small copy of the sample knowledge base,
the tiny bge-m3 test model) with Ollama pointed at the fake server from the tests
(quest/testing/ollama_server.py), which a chaos thread switches every few seconds between
answering normally, stalling past the first-token timeout, dropping the stream halfway, and
refusing connections altogether.

Each simulated student is a `gradio_client` session that asks `questions` questions at random
moments of the run through `/ask`, and rates about half of its answers. The like button is a
private UI event, so the child app adds a soak-only endpoint that stores the rating through the
same `FeedbackStore` the button uses; every acknowledged rating must be a row at the end.

Reported: requests, final statuses, unhandled errors (client exceptions, unexpected error
answers, tracebacks in the app's log), p50/p95 latency, the app's resident memory at the start
(after a warm-up) and the end, and feedback rows written vs expected. Goals: 0 unhandled
errors, memory growth < 10 %, no lost feedback.
"""

from __future__ import annotations

import contextlib
import json
import random
import sqlite3
import subprocess
import tempfile
import threading
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from quest.bench.concurrency import start_app_process, stop_child, tiny_model_in

_APP = r"""
import json, os, random, subprocess, sys, threading, time
from pathlib import Path
os.environ.setdefault("GRADIO_ANALYTICS_ENABLED", "False")
os.environ.setdefault("HF_HUB_OFFLINE", "1")
root, tiny, chaos_json = Path(sys.argv[1]), sys.argv[2], sys.argv[3]
import gradio as gr
from quest.testing.app_server import free_port, small_knowledge_base
from quest.feedback import FeedbackRecord
from quest.settings import Settings
from quest.ui.app import create_app
from quest.ui.layout import launch_options
# The fake Ollama runs in its own process, as a real one would, with a chaos thread in it.
fake = subprocess.Popen([sys.executable, "-c", sys.argv[4], chaos_json], stdin=subprocess.PIPE,
                        stdout=subprocess.PIPE, text=True, cwd=os.getcwd())
fake_url = fake.stdout.readline().strip()
chaos = json.loads(chaos_json)
settings = Settings(kb_dir=small_knowledge_base(root / "knowledge"), data_dir=root / "data",
                    embedding_model=tiny, show_progress=False, ollama_host=fake_url, port=free_port(),
                    first_token_timeout=chaos["first_token_timeout"], total_timeout=chaos["total_timeout"],
                    connect_timeout=2.0)
demo, desk = create_app(settings, background=False)
if desk.startup.assistant is None:
    print(json.dumps({"error": str(desk.startup.failed)}), flush=True)
    sys.exit(1)

def soak_feedback(session: str, turn: int, liked: bool, question: str, answer: str) -> str:
    # What the like button stores, minus the page's session state (see quest/bench/soak.py).
    desk.feedback.record(FeedbackRecord(session=session, turn=int(turn), rating=1 if liked else -1,
                                        question=question, answer=answer, problem_id="239", tier="explain"))
    return "ok"

with demo:
    gr.api(soak_feedback, api_name="soak_feedback")
options = launch_options(settings, {})
options.update(prevent_thread_lock=True, quiet=True)
_, url, _ = demo.launch(**options)
print(json.dumps({"url": url.rstrip("/"), "pid": os.getpid(),
                  "feedback_db": str(desk.feedback.path) if desk.feedback else None}), flush=True)
sys.stdin.read()  # until the benchmark closes our stdin
demo.close()
fake.stdin.close()
fake.wait(timeout=10)
"""

_FAKE = r"""
import json, random, sys, threading, time
from quest.testing.ollama_server import FakeOllama
chaos = json.loads(sys.argv[1])
fake = FakeOllama(tokens=[f"word{i} " for i in range(chaos["tokens"])], delay=1.0 / chaos["rate"],
                  stall_seconds=chaos["first_token_timeout"] + 2, drop_after=chaos["tokens"] // 2).start()
print(fake.url, flush=True)
log = []

def weather():
    rng = random.Random(chaos["seed"])
    modes, weights = zip(*chaos["modes"].items())
    while True:
        mode = rng.choices(modes, weights)[0]
        log.append((round(time.time(), 1), mode))
        if mode == "refuse":
            fake.stop()
            time.sleep(chaos["period"])
            fake.start()  # on the same port
        else:
            fake.mode = mode
            time.sleep(chaos["period"])
        fake.mode = "normal"

threading.Thread(target=weather, daemon=True).start()
sys.stdin.read()
fake.stop()
"""

QUESTIONS = [
    dict(question="Why is my sliding window too slow?", problem="239", language="python",
         code="def f(nums, k):\n    w = []\n    for x in nums:\n        w.append(x)\n        w.pop(0)\n",
         verdict="TLE", error="Time Limit Exceeded on test 14", tier="explain", lang="en"),
    dict(question="为什么我的滑动窗口超时了？", problem="239", language="python", code="w.pop(0)\n",
         verdict="TLE", error="运行超时", tier="hint", lang="zh"),
    dict(question="What does RecursionError mean here?", problem="200", language="python",
         code="def dfs(i, j):\n    dfs(i + 1, j)\n", verdict="RE",
         error="RecursionError: maximum recursion depth exceeded", tier="explain", lang="en"),
    dict(question="coin change gives wrong answer", problem="322", language="cpp", code="int dp[10001];\n",
         verdict="WA", error="Wrong Answer on test 3", tier="solution", lang="en"),
    dict(question="two sum", problem="1", language="python", code="", verdict="", error="", tier="explain",
         lang="en"),
]
EMPTY = dict(question="", problem="", language="python", code="", verdict="", error="", tier="explain", lang="en")
FINAL_STATUSES = ("done", "incomplete", "fallback", "refused")


@dataclass
class Outcome:
    student: int
    status: str = ""
    total: float | None = None
    first: float | None = None
    error: str = ""  # an unhandled error, if any
    expected_error: bool = False  # an empty question: the "error" answer is the right one
    rated: bool = False


@dataclass
class Student:
    number: int
    url: str
    client: Any = None
    lock: threading.Lock = field(default_factory=threading.Lock)
    turns: int = 0

    def connect(self) -> Any:
        from gradio_client import Client

        with self.lock:
            if self.client is None:
                self.client = Client(self.url, verbose=False, download_files=False)
            return self.client


def _ask(student: Student, payload: dict[str, Any], rate: bool, out: Outcome) -> None:
    t0 = time.perf_counter()
    try:
        client = student.connect()
        job = client.submit(api_name="/ask", **payload)
        final = None
        for final in job:
            if out.first is None and final[0] and final[2] == "streaming":
                out.first = time.perf_counter() - t0
        final = job.result() or final
        out.total = time.perf_counter() - t0
        out.status = str(final[2]) if final else "none"
        answer = str(final[0]) if final else ""
    except Exception as exc:
        out.total = time.perf_counter() - t0
        out.error = f"{type(exc).__name__}: {str(exc)[:160]}"
        return
    if out.status not in FINAL_STATUSES and not (out.expected_error and out.status == "error"):
        out.error = f"status {out.status!r}: {answer[:160]}"
        return
    if rate and out.status in FINAL_STATUSES and out.status != "refused":
        with student.lock:
            student.turns += 1
            turn = student.turns
        try:
            ack = client.predict(f"soak-{student.number}", turn, turn % 2 == 0, payload["question"], answer[:200],
                                 api_name="/soak_feedback")
            out.rated = ack == "ok"
        except Exception as exc:
            out.error = f"feedback {type(exc).__name__}: {str(exc)[:160]}"


def _rss_bytes(pid: int) -> int | None:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
    except OSError:
        return None
    return None


def _schedule(students: int, questions: int, seconds: float, seed: int) -> list[tuple[float, int, dict, bool]]:
    rng = random.Random(seed)
    plan = []
    for s in range(students):
        for _ in range(questions):
            payload = EMPTY if rng.random() < 0.03 else rng.choice(QUESTIONS)
            plan.append((rng.uniform(0, seconds), s, payload, rng.random() < 0.5))
    return sorted(plan, key=lambda p: p[0])


def _start_app(workdir: Path, chaos: dict[str, Any]) -> tuple[subprocess.Popen, dict[str, Any], Path]:
    tiny = tiny_model_in(workdir)
    root = Path(tempfile.mkdtemp(prefix="soak-", dir=workdir))
    return start_app_process(_APP, [str(root), str(tiny), json.dumps(chaos), _FAKE], root)


def _drive(url: str, pid: int, plan: list, workers: int, progress: Any) -> tuple[list[Outcome], list]:
    students: dict[int, Student] = {}
    outcomes: list[Outcome] = []
    memory: list[tuple[float, int | None]] = []
    begin = time.monotonic()
    with ThreadPoolExecutor(max_workers=workers) as pool:
        next_sample = 0.0
        for at, number, payload, rate in plan:
            while (now := time.monotonic() - begin) < at:
                if now >= next_sample:
                    memory.append((round(now, 1), _rss_bytes(pid)))
                    next_sample = now + 10
                time.sleep(min(0.2, at - now))
            student = students.setdefault(number, Student(number, url))
            out = Outcome(number, expected_error=payload is EMPTY)
            outcomes.append(out)
            pool.submit(_ask, student, payload, rate, out)
            if len(outcomes) % 100 == 0:
                progress(f"  soak: {len(outcomes)}/{len(plan)} requests sent at {now:.0f} s")
    memory.append((round(time.monotonic() - begin, 1), _rss_bytes(pid)))
    return outcomes, memory


def _pct(values: list[float], q: float) -> float | None:
    return round(float(np.percentile(values, q)), 3) if values else None


def _feedback_rows(db: str | None) -> int | None:
    if not db or not Path(db).exists():
        return 0
    with contextlib.closing(sqlite3.connect(db)) as conn:
        return int(conn.execute("SELECT COUNT(*) FROM feedback WHERE session LIKE 'soak-%'").fetchone()[0])


def _app_log_errors(log_path: Path) -> list[str]:
    text = log_path.read_text(encoding="utf-8", errors="replace")
    lines = text.splitlines()
    return [ln for ln in lines if ln.startswith("Traceback") or " ERROR " in f" {ln} " or "Exception in" in ln]


def run(*, students: int = 200, minutes: float = 10.0, questions: int = 3, workdir: Path, seed: int = 11,
        tokens: int = 40, rate: float = 20.0, workers: int = 64, progress: Any = print) -> dict[str, Any]:
    """Run the soak and return its results (see the module docstring)."""
    chaos = {"seed": seed, "tokens": tokens, "rate": rate, "period": 3.0, "first_token_timeout": 4.0,
             "total_timeout": 30.0, "modes": {"normal": 70, "stall": 10, "drop": 10, "refuse": 10}}
    proc, info, log_path = _start_app(workdir, chaos)
    try:
        if "url" not in info:
            return {"skipped": info.get("error", "the app did not start")}
        warm = Outcome(-1)
        _ask(Student(-1, info["url"]), QUESTIONS[0], False, warm)  # lazily built parts load here
        plan = _schedule(students, questions, minutes * 60, seed)
        progress(f"soak: {students} students, {len(plan)} requests over {minutes:g} min against {info['url']}")
        t0 = time.monotonic()
        outcomes, memory = _drive(info["url"], info["pid"], plan, workers, progress)
        wall = time.monotonic() - t0
        rows = _feedback_rows(info.get("feedback_db"))
    finally:
        stop_child(proc)
    return _summary(outcomes, memory, rows, _app_log_errors(log_path), wall,
                    dict(students=students, minutes=minutes, questions=questions, seed=seed, chaos=chaos,
                         workers=workers))


def _summary(outcomes: list[Outcome], memory: list, rows: int | None, log_errors: list[str], wall: float,
             params: dict[str, Any]) -> dict[str, Any]:
    unhandled = [o.error for o in outcomes if o.error]
    totals = [o.total for o in outcomes if o.total is not None and not o.error]
    firsts = [o.first for o in outcomes if o.first is not None]
    rss = [m for _, m in memory if m]
    start, end = (rss[0], rss[-1]) if rss else (None, None)
    growth = round((end - start) / start * 100, 1) if start and end else None
    expected = sum(o.rated for o in outcomes)
    results = {
        "params": params, "wall_seconds": round(wall, 1), "requests": len(outcomes),
        "statuses": dict(Counter(o.status or "exception" for o in outcomes)),
        "unhandled_errors": len(unhandled) + len(log_errors),
        "unhandled_samples": sorted(set(unhandled))[:5], "app_log_errors": log_errors[:5],
        "latency_p50": _pct(totals, 50), "latency_p95": _pct(totals, 95), "latency_max": _pct(totals, 100),
        "first_text_p50": _pct(firsts, 50), "first_text_p95": _pct(firsts, 95),
        "memory_start_mb": round(start / 2**20, 1) if start else None,
        "memory_end_mb": round(end / 2**20, 1) if end else None, "memory_growth_percent": growth,
        "memory_samples": [(t, round(m / 2**20, 1)) for t, m in memory if m],
        "feedback_expected": expected, "feedback_written": rows,
    }
    results["goals"] = [
        {"goal": "0 unhandled errors", "value": results["unhandled_errors"], "met": results["unhandled_errors"] == 0},
        {"goal": "memory growth < 10 %", "value": growth, "met": growth is not None and growth < 10},
        {"goal": "no lost feedback", "value": f"{rows} of {expected}", "met": rows == expected},
    ]
    return results


def write_report(results: dict[str, Any], out: Path, *, note: str = "") -> Path:
    """results.json and report.md in `out`."""
    out.mkdir(parents=True, exist_ok=True)
    (out / "results.json").write_text(json.dumps(results, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    if "skipped" in results:
        text = f"# Soak test\n\nSkipped: {results['skipped']}\n"
    else:
        text = _report_markdown(results, note)
    (out / "report.md").write_text(text, encoding="utf-8")
    return out / "report.md"


def _report_markdown(r: dict[str, Any], note: str) -> str:
    p = r["params"]
    chaos = p["chaos"]
    lines = [
        "# Soak test", "",
        f"{p['students']} simulated students, {p['questions']} questions each at random moments of "
        f"{p['minutes']:g} minutes (seed {p['seed']}), against the real app in a child process with the tiny "
        f"test embedding model. The fake Ollama streams {chaos['tokens']} tokens at {chaos['rate']:g}/s; every "
        f"{chaos['period']:g} s it switches between "
        + ", ".join(f"{k} {v} %" for k, v in chaos["modes"].items())
        + f" (stall = nothing for longer than the app's {chaos['first_token_timeout']:g} s first-token timeout; "
        "drop = the stream is cut halfway; refuse = the port is closed). About half the answers are rated; "
        "3 % of the questions are empty (the right answer is a friendly error).", "",
    ]
    if note:
        lines += [note, ""]
    lines += ["| goal | value | met |", "| --- | --- | --- |"]
    lines += [f"| {g['goal']} | {g['value']} | {'yes' if g['met'] else '**no**'} |" for g in r["goals"]]
    lines += ["", "| measure | value |", "| --- | --- |",
              f"| requests | {r['requests']} in {r['wall_seconds']} s |",
              f"| final statuses | {', '.join(f'{k} {v}' for k, v in sorted(r['statuses'].items()))} |",
              f"| latency p50 / p95 / max | {r['latency_p50']} / {r['latency_p95']} / {r['latency_max']} s |",
              f"| first answer text p50 / p95 | {r['first_text_p50']} / {r['first_text_p95']} s |",
              f"| app memory (RSS) start / end | {r['memory_start_mb']} / {r['memory_end_mb']} MB "
              f"({r['memory_growth_percent']} %) |",
              f"| feedback rows written / expected | {r['feedback_written']} / {r['feedback_expected']} |", ""]
    if r["unhandled_samples"] or r["app_log_errors"]:
        lines += ["Unhandled errors (samples):", ""]
        lines += [f"- `{e}`" for e in r["unhandled_samples"] + r["app_log_errors"]] + [""]
    lines += ["Memory over the run (s, MB): " + ", ".join(f"{t:g}: {m}" for t, m in r["memory_samples"]), "",
              "Run again: `python -m quest bench --soak --students 200 --minutes 10 --out docs/soak`.", ""]
    return "\n".join(lines)
