"""Capacity of a course deployment: N app replicas, M model hosts with S parallel slots each.

`python -m quest bench --fleet` runs, on this machine:

* one child process with M fake model hosts (the fake OpenAI-compatible server of
  quest/testing, or the fake Ollama), each streaming `tokens` pieces at `rate` per second and
  answering at most S chats at once (as a GPU server's batch slots or OLLAMA_NUM_PARALLEL; the
  others wait, as on a real server);
* N child processes with the real app (real assistant, tiny bge-m3 test model, a small copy
  of the knowledge base), all reading ONE index built by the first replica, all writing one
  feedback database, each given the M hosts as a comma-separated list;
* many simulated students, split round-robin over the replicas (as a load balancer with sticky
  sessions would), all asking at the same moment. Each is a thread speaking Gradio's HTTP call
  API (`POST /gradio_api/call/ask`, then the event stream); gradio_client instances, as in the
  50-client benchmark, cost too much of this 2-core machine at 200 and stalled in a trial run.

Per scenario it records throughput (answers per second), time to first answer text (p50, p95),
the queueing delay (time to first text beyond what an idle host needs), total time, and errors
(no answer, or a fallback/incomplete answer). A scenario may break one host mid-run: from then
on it answers every new chat with HTTP 503 / refuses, and the replicas' routers must move
the students elsewhere.
"""

from __future__ import annotations

import contextlib
import json
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from quest.bench.concurrency import QUESTION, REPO, available, percentile, split_outcomes, stop_child

# The model hosts, in one child process: prints their URLs as one JSON line, then obeys
# "break I" lines on stdin (host I fails every new chat from then on) until stdin closes.
_HOSTS = r"""
import json, sys
backend, count, tokens = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
delay, slots = float(sys.argv[4]), int(sys.argv[5])
words = [f"word{i} " for i in range(tokens)]
if backend == "openai":
    from quest.testing.openai_server import FakeOpenAI
    hosts = [FakeOpenAI(tokens=words, delay=delay, slots=slots or None).start() for _ in range(count)]
else:
    from quest.testing.ollama_server import FakeOllama
    hosts = [FakeOllama(tokens=words, delay=delay).start() for _ in range(count)]
print(json.dumps([h.url for h in hosts]), flush=True)
for line in sys.stdin:
    if line.startswith("break "):
        host = hosts[int(line.split()[1])]
        if backend == "openai":
            host.mode, host.status = "status", 503
        else:
            host.stop()
for h in hosts:
    h.stop()
"""

# One app replica: prints {"url": ...} when it serves.
_REPLICA = r"""
import json, os, sys
from pathlib import Path
os.environ.setdefault("GRADIO_ANALYTICS_ENABLED", "False")
os.environ.setdefault("HF_HUB_OFFLINE", "1")
kb, data, tiny, overrides = Path(sys.argv[1]), Path(sys.argv[2]), sys.argv[3], json.loads(sys.argv[4])
from quest.testing.app_server import free_port
from quest.settings import Settings
from quest.ui.app import create_app
from quest.ui.layout import launch_options
settings = Settings(kb_dir=kb, data_dir=data, embedding_model=tiny, show_progress=False, port=free_port(), **overrides)
demo, desk = create_app(settings, background=False)
if desk.startup.assistant is None:
    print(json.dumps({"error": str(desk.startup.failed)}), flush=True)
    sys.exit(1)
options = launch_options(settings, {})
options.update(prevent_thread_lock=True, quiet=True)
_, url, _ = demo.launch(**options)
print(json.dumps({"url": url.rstrip("/")}), flush=True)
sys.stdin.read()
demo.close()
"""


@dataclass(frozen=True)
class Scenario:
    name: str
    replicas: int
    hosts: int
    slots: int  # 0: unlimited
    students: int
    backend: str = "openai"
    break_host_after: float | None = None  # seconds into the run; host 0 breaks
    tokens: int = 0  # 0: the run's default stream
    rate: float = 0.0

    def describe(self) -> str:
        slots = f"{self.slots} slots" if self.slots else "unlimited slots"
        broken = f", host 1 fails after {self.break_host_after:g} s" if self.break_host_after is not None else ""
        return (f"{self.replicas} replica(s), {self.hosts} host(s) x {slots}, {self.students} students, "
                f"{self.backend} protocol{broken}")


def default_scenarios(students: int = 200) -> list[Scenario]:
    return [
        Scenario("one app, one host", 1, 1, 4, students),
        Scenario("one app, three hosts", 1, 3, 4, students),
        Scenario("two apps, three hosts", 2, 3, 4, students),
        Scenario("two apps, three hosts, one fails", 2, 3, 4, students, break_host_after=2.0),
        # The target, with the stream of the older concurrency benchmark (200 tokens, 50/s).
        Scenario("50 students, one app, Ollama protocol", 1, 1, 0, 50, backend="ollama", tokens=200, rate=50.0),
        Scenario("50 students, one app, OpenAI protocol", 1, 1, 0, 50, backend="openai", tokens=200, rate=50.0),
    ]


def _env() -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")])),
            "GRADIO_ANALYTICS_ENABLED": "False", "HF_HUB_OFFLINE": "1"}


def _start(args: list[str], log_path: Path) -> tuple[subprocess.Popen, Any]:
    with log_path.open("w", encoding="utf-8") as log_file:
        proc = subprocess.Popen([sys.executable, "-c", *args], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                stderr=log_file, text=True, cwd=str(REPO), env=_env())
    line = proc.stdout.readline() if proc.stdout else ""
    try:
        return proc, json.loads(line)
    except ValueError:
        with contextlib.suppress(subprocess.TimeoutExpired):
            proc.wait(timeout=5)
        tail = log_path.read_text(encoding="utf-8", errors="replace").strip().splitlines()[-3:]
        return proc, {"error": f"exit {proc.poll()}: {' | '.join(tail)[:400]}"}


ASK = [QUESTION[k] for k in ("question", "problem", "language", "code", "verdict", "error", "tier")] + ["en"]


def _student(client: Any, url: str, start: threading.Event, out: dict[str, Any]) -> None:
    """One student: submit /ask when `start` fires, read the stream; record first text, total, status."""
    out["ready"] = True
    start.wait()
    t0 = time.perf_counter()
    try:
        event_id = client.post(f"{url}/gradio_api/call/ask", json={"data": ASK}).json()["event_id"]
        event, status, answer = "", None, ""
        with client.stream("GET", f"{url}/gradio_api/call/ask/{event_id}") as stream:
            for line in stream.iter_lines():
                if line.startswith("event:"):
                    event = line[6:].strip()
                elif line.startswith("data:") and event in ("generating", "complete"):
                    data = json.loads(line[5:])
                    if data:  # the /ask outputs: answer, sources (JSON), status
                        answer, _sources, status = data if len(data) == 3 else data[0]
                        if answer and "first" not in out:
                            out["first"] = time.perf_counter() - t0
                elif line.startswith("data:") and event == "error":
                    status = f"error event {line[5:].strip()[:80]}"
        out["total"] = time.perf_counter() - t0
        if status != "done":
            out["error"] = f"final status {status!r}: {str(answer)[:120]}"
    except Exception as exc:
        out["total"] = time.perf_counter() - t0
        out["error"] = f"{type(exc).__name__}: {str(exc)[:160]}"


def _students(urls: Sequence[str], count: int, on_start: Callable[[], None]) -> tuple[list[dict[str, Any]], float]:
    """`count` students split round-robin over `urls`, all asking at once; (results, wall seconds)."""
    import httpx

    start = threading.Event()
    results: list[dict[str, Any]] = [{} for _ in range(count)]
    limits = httpx.Limits(max_connections=4 * count + 8, max_keepalive_connections=2 * count + 8)
    with httpx.Client(timeout=httpx.Timeout(30.0, read=600.0), limits=limits) as client:
        threads = [threading.Thread(target=_student, args=(client, urls[i % len(urls)], start, r), daemon=True)
                   for i, r in enumerate(results)]
        for th in threads:
            th.start()
        while not all(r.get("ready") for r in results):
            time.sleep(0.01)
        t0 = time.perf_counter()
        start.set()
        on_start()
        for th in threads:
            th.join(timeout=600)
        return results, time.perf_counter() - t0


def summarize(results: Sequence[dict[str, Any]], wall: float, ideal: float, first_ideal: float) -> dict[str, Any]:
    errors, firsts, totals = split_outcomes(results)

    def pct(values: list[float], q: float) -> float | None:
        return percentile(values, q, 2)

    median_total = statistics.median(totals) if totals else None
    return {
        "students": len(results), "answered": len(totals), "errors": len(errors),
        "error_samples": sorted(set(errors))[:3],
        "throughput_per_s": round(len(totals) / wall, 2) if wall else None,
        "ttft_p50": pct(firsts, 50), "ttft_p95": pct(firsts, 95),
        "queue_delay_p50": round(max(0.0, pct(firsts, 50) - first_ideal), 2) if firsts else None,
        "queue_delay_p95": round(max(0.0, pct(firsts, 95) - first_ideal), 2) if firsts else None,
        "total_p50": pct(totals, 50), "total_p95": pct(totals, 95),
        "median_total_over_stream": round(median_total / ideal, 2) if median_total else None,
        "wall_s": round(wall, 1),
    }


def run_scenario(sc: Scenario, *, workdir: Path, kb: Path, tiny: Path, tokens: int, rate: float,
                 progress: Callable[[str], None] = print) -> dict[str, Any]:
    tokens, rate = sc.tokens or tokens, sc.rate or rate
    root = Path(tempfile.mkdtemp(prefix="fleet-", dir=workdir))
    procs: list[subprocess.Popen] = []
    try:
        hosts_proc, urls = _start([_HOSTS, sc.backend, str(sc.hosts), str(tokens), str(1.0 / rate), str(sc.slots)],
                                  root / "hosts.log")
        procs.append(hosts_proc)
        if isinstance(urls, dict):
            return {"scenario": sc.name, "skipped": f"model hosts did not start: {urls['error']}"}
        key = "openai_base_url" if sc.backend == "openai" else "ollama_host"
        overrides = {"llm_backend": sc.backend, key: ",".join(urls), "host_backoff": 30.0,
                     "concurrency_limit": 256, "max_queue_size": 512, "first_token_timeout": 300.0,
                     "database_url": f"sqlite:///{root / 'feedback.sqlite3'}"}
        replica_urls = []
        for i in range(sc.replicas):  # one after another: the first builds the shared index, the rest load it
            proc, info = _start([_REPLICA, str(kb), str(root / "data"), str(tiny), json.dumps(overrides)],
                                root / f"replica{i}.log")
            procs.append(proc)
            if "url" not in info:
                return {"scenario": sc.name, "skipped": f"replica {i} did not start: {info.get('error')}"}
            replica_urls.append(info["url"])
        _students(replica_urls, 1, lambda: None)  # warm-up: lazily created parts

        def breaker() -> None:
            if sc.break_host_after is not None and hosts_proc.stdin:
                timer = threading.Timer(sc.break_host_after, lambda: _send(hosts_proc, "break 0\n"))
                timer.daemon = True
                timer.start()

        progress(f"  {sc.name}: {sc.describe()}...")
        results, wall = _students(replica_urls, sc.students, breaker)
        out = summarize(results, wall, ideal=tokens / rate, first_ideal=1.0 / rate)
        return {"scenario": sc.name, "setup": sc.describe(), **sc.__dict__, "tokens": tokens, "rate": rate,
                "stream_s": round(tokens / rate, 2), **out}
    finally:
        for proc in reversed(procs):
            stop_child(proc)


def _send(proc: subprocess.Popen, line: str) -> None:
    with contextlib.suppress(OSError, ValueError):
        proc.stdin.write(line)
        proc.stdin.flush()


def run(workdir: Path, *, scenarios: Sequence[Scenario] | None = None, tokens: int = 40, rate: float = 40.0,
        progress: Callable[[str], None] = print) -> dict[str, Any]:
    reason = available()
    if reason:
        progress(f"fleet skipped: {reason}")
        return {"skipped": reason}
    workdir.mkdir(parents=True, exist_ok=True)
    tiny = workdir / "tiny-bge-m3"
    if not (tiny / "config.json").exists():
        os.environ.setdefault("HF_HUB_OFFLINE", "1")
        from quest.testing.tiny_model import build_tiny_bge_m3

        build_tiny_bge_m3(tiny)
    from quest.testing.app_server import small_knowledge_base

    kb = workdir / "knowledge"
    if not kb.exists():
        small_knowledge_base(kb)
    results: dict[str, Any] = {"tokens": tokens, "rate": rate, "stream_s": round(tokens / rate, 2), "scenarios": []}
    for sc in scenarios or default_scenarios():
        row = run_scenario(sc, workdir=workdir, kb=kb, tiny=tiny, tokens=tokens, rate=rate, progress=progress)
        results["scenarios"].append(row)
        progress(f"    {json.dumps({k: row.get(k) for k in ('errors', 'throughput_per_s', 'ttft_p95', 'total_p50')})}")
        # Kept after every scenario: a long run cut short still leaves its numbers.
        (workdir / "fleet-partial.json").write_text(json.dumps(results, indent=1), encoding="utf-8")
    return results


COLUMNS = (("scenario", "scenario"), ("answered", "answered"), ("errors", "errors"),
           ("throughput_per_s", "answers/s"), ("ttft_p50", "first text p50 s"), ("ttft_p95", "first text p95 s"),
           ("queue_delay_p95", "queueing p95 s"), ("total_p50", "total p50 s"),
           ("median_total_over_stream", "median / stream"))


def table(rows: Sequence[dict[str, Any]]) -> str:
    lines = ["| " + " | ".join(title for _, title in COLUMNS) + " |", "|" + "---|" * len(COLUMNS)]
    for row in rows:
        if "skipped" in row:
            lines.append(f"| {row['scenario']} | skipped: {row['skipped']} |" + " |" * (len(COLUMNS) - 2))
            continue
        lines.append("| " + " | ".join("" if row.get(key) is None else str(row[key]) for key, _ in COLUMNS) + " |")
    return "\n".join(lines)


def write_report(results: dict[str, Any], out: Path) -> list[Path]:
    """fleet.md (setup and table), fleet.json, fleet.png (time to first text and total, per scenario)."""
    out.mkdir(parents=True, exist_ok=True)
    rows = [r for r in results.get("scenarios", []) if "skipped" not in r]
    (out / "fleet.json").write_text(json.dumps(results, indent=1, ensure_ascii=False), encoding="utf-8")
    text = ["# Fleet capacity", "",
            f"Fake model hosts stream {results.get('tokens')} pieces at {results.get('rate')}/s "
            f"({results.get('stream_s')} s per answer) unless a scenario says otherwise; all students ask at once, "
            "split round-robin over the replicas. Setup per scenario:", ""]
    text += [f"- **{r['scenario']}**: {r.get('setup', '')} (stream {r.get('stream_s')} s)" for r in rows]
    text += ["", table(results.get("scenarios", [])), ""]
    (out / "fleet.md").write_text("\n".join(text), encoding="utf-8")
    written = [out / "fleet.md", out / "fleet.json"]
    if rows:
        written.append(_chart(rows, out / "fleet.png"))
    return written


def _chart(rows: Sequence[dict[str, Any]], path: Path) -> Path:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    names = [r["scenario"] for r in rows]
    y = np.arange(len(rows))
    fig, ax = plt.subplots(figsize=(9, 0.6 * len(rows) + 1.5))
    ax.barh(y - 0.2, [r.get("ttft_p95") or 0 for r in rows], height=0.4, label="first text, p95")
    ax.barh(y + 0.2, [r.get("total_p50") or 0 for r in rows], height=0.4, label="whole answer, median")
    ax.set_yticks(y, names)
    ax.invert_yaxis()
    ax.set_xlabel("seconds")
    ax.set_title("Students asking at once: waiting time per deployment")
    ax.legend(loc="lower right")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path
