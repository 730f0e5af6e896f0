"""Many students at once: the Gradio app with a fake Ollama, driven through `gradio_client`.

A child process runs the real app (real assistant and index over a small copy of the sample
knowledge base, tiny bge-m3 test model) with Ollama pointed at the fake server the tests use
too (quest/testing/ollama_server.py), which streams
`tokens` pieces at `rate` per second. The app keeps its default settings (queue concurrency
limit, queue size, rate limit: each gradio_client has its own session, as each browser does).

This process then starts N clients, lets them all submit one `/ask` at the same moment, and
records per client: time to the first streamed answer text, total time, and errors (an
exception, or a final status other than "done"). The ideal is the stream's own duration,
tokens / rate.

Needs the app (quest/ui) and gradio_client to be importable; otherwise the
result is {"skipped": reason}.
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
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

REPO = Path(__file__).resolve().parents[2]

_SERVER = r"""
import json, os, sys
from pathlib import Path
os.environ.setdefault("GRADIO_ANALYTICS_ENABLED", "False")
os.environ.setdefault("HF_HUB_OFFLINE", "1")
root, tokens, rate, tiny = Path(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3]), sys.argv[4]
from quest.testing.app_server import free_port, small_knowledge_base
from quest.settings import Settings
from quest.ui.app import create_app
from quest.ui.layout import launch_options
# The fake Ollama runs in a process of its own, as a real Ollama would: in the app's process
# its 50 streaming threads would compete with the app for the interpreter lock.
import subprocess
fake = subprocess.Popen(
    [sys.executable, "-c", "import sys, time; from quest.testing.ollama_server import FakeOllama; "
     f"f = FakeOllama(tokens=[f'word{{i}} ' for i in range({tokens})], delay={1.0 / rate!r}).start(); "
     "print(f.url, flush=True); sys.stdin.read(); f.stop()"],
    stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, cwd=os.getcwd())
fake_url = fake.stdout.readline().strip()
overrides = json.loads(sys.argv[5]) if len(sys.argv) > 5 else {}
settings = Settings(kb_dir=small_knowledge_base(root / "knowledge"), data_dir=root / "data",
                    embedding_model=tiny, show_progress=False, ollama_host=fake_url, port=free_port(),
                    **overrides)
demo, desk = create_app(settings, background=False)
if desk.startup.assistant is None:
    print(json.dumps({"error": str(desk.startup.failed)}), flush=True)
    sys.exit(1)
options = launch_options(settings, {})
options.update(prevent_thread_lock=True, quiet=True)
_, url, _ = demo.launch(**options)
print(json.dumps({"url": url.rstrip("/"), "concurrency_limit": settings.concurrency_limit,
                  "max_queue_size": settings.max_queue_size}), flush=True)
sys.stdin.read()  # until the benchmark closes our stdin
demo.close()
fake.stdin.close()
fake.wait(timeout=10)
"""

QUESTION = dict(question="Why is my sliding window too slow?", problem="239", language="python",
                code="def maxSlidingWindow(nums, k):\n    w = []\n    for x in nums:\n        w.append(x)\n"
                     "        w.pop(0)\n", verdict="TLE", error="Time Limit Exceeded on test 14", tier="explain")


def available() -> str | None:
    """None when the app and gradio_client can be imported, else why not."""
    try:
        import gradio_client  # noqa: F401

        import quest.ui.app
        import quest.ui.layout  # noqa: F401
    except ImportError as exc:
        return f"the app is not importable ({type(exc).__name__}: {exc})"
    return None


def _client_run(url: str, start: threading.Event, out: dict[str, Any]) -> None:
    from gradio_client import Client

    try:
        client = Client(url, verbose=False, download_files=False)
    except Exception as exc:
        out["error"] = f"connect: {type(exc).__name__}: {exc}"
        return
    out["ready"] = True
    start.wait()
    t0 = time.perf_counter()
    try:
        job = client.submit(api_name="/ask", **QUESTION)
        status = None
        for answer, _sources, status in job:
            if "first" not in out and answer and status == "streaming":
                out["first"] = time.perf_counter() - t0
        final = job.result()
        status = final[2] if final else status
        out["total"] = time.perf_counter() - t0
        out["status"] = status
        if status != "done":
            out["error"] = f"final status {status!r}: {str(final[0])[:120] if final else ''}"
    except Exception as exc:
        out["total"] = time.perf_counter() - t0
        out["error"] = f"{type(exc).__name__}: {str(exc)[:160]}"


def run_level(url: str, clients: int, ideal: float) -> dict[str, Any]:
    start = threading.Event()
    results: list[dict[str, Any]] = [{} for _ in range(clients)]
    threads = [threading.Thread(target=_client_run, args=(url, start, r), daemon=True) for r in results]
    for th in threads:
        th.start()
    deadline = time.time() + 120
    while time.time() < deadline and not all(r.get("ready") or r.get("error") for r in results):
        time.sleep(0.05)
    t0 = time.perf_counter()
    start.set()
    for th in threads:
        th.join(timeout=ideal * clients + 120)
    wall = time.perf_counter() - t0
    errors, firsts, totals = split_outcomes(results)

    def pct(values: list[float], q: float) -> float | None:
        return percentile(values, q, 3)

    median_total = statistics.median(totals) if totals else None
    return {
        "clients": clients, "errors": len(errors), "error_samples": sorted(set(errors))[:3],
        "ttft_p50": pct(firsts, 50), "ttft_p95": pct(firsts, 95),
        "total_p50": pct(totals, 50), "total_p95": pct(totals, 95), "total_max": pct(totals, 100),
        "ideal": round(ideal, 3),
        "median_total_over_ideal": round(median_total / ideal, 2) if median_total else None,
        "wall": round(wall, 2),
    }


def run(levels: Sequence[int], *, workdir: Path, progress=print, tokens: int = 200, rate: float = 50.0,
        app_settings: dict[str, Any] | None = None) -> dict[str, Any]:
    reason = available()
    if reason:
        progress(f"concurrency skipped: {reason}")
        return {"skipped": reason}
    tiny = tiny_model_in(workdir)
    root = Path(tempfile.mkdtemp(prefix="app-", dir=workdir))  # a fresh knowledge copy and index per run
    proc, info, _ = start_app_process(_SERVER, [str(root), str(tokens), str(rate), str(tiny),
                                                json.dumps(app_settings or {})], root)
    try:
        if "url" not in info:
            progress(f"concurrency skipped: {info.get('error')}")
            return {"skipped": info.get("error", "the app did not start")}
        ideal = tokens / rate
        out = {
            "setup": ("App in a child process with "
                      + ("settings overridden for this run" if app_settings else "its default settings")
                      + f" (queue concurrency limit {info['concurrency_limit']}, queue size "
                      f"{info['max_queue_size']}); fake Ollama streams "
                      f"{tokens} tokens at {rate:g} tokens/s (ideal {ideal:.1f} s); one /ask per client, all "
                      "submitted at once; clients are gradio_client instances in threads of the benchmark "
                      "process. Time to first token = first streamed answer text."),
            "tokens": tokens, "rate": rate, "app": info, "levels": [],
        }
        run_level(info["url"], 1, ideal)  # warm-up: first request loads lazily created parts
        for n in levels:
            progress(f"  {n} simultaneous clients...")
            out["levels"].append(run_level(info["url"], n, ideal))
        return out
    finally:
        stop_child(proc)


def split_outcomes(results: Sequence[dict[str, Any]]) -> tuple[list[str], list[float], list[float]]:
    """Students' results as (errors, seconds to first text, total seconds of the answered)."""
    errors = [r.get("error", "no result") for r in results if r.get("error") or "total" not in r]
    firsts = [r["first"] for r in results if "first" in r]
    totals = [r["total"] for r in results if "total" in r and not r.get("error")]
    return errors, firsts, totals


def percentile(values: Sequence[float], q: float, digits: int) -> float | None:
    return round(float(np.percentile(values, q)), digits) if values else None


def stop_child(proc: subprocess.Popen) -> None:
    """End a child started by `start_app_process`: close its stdin (it exits), kill it if it lingers."""
    if proc.stdin:
        with contextlib.suppress(OSError):
            proc.stdin.close()
    try:
        proc.wait(timeout=20)
    except subprocess.TimeoutExpired:
        proc.kill()


def tiny_model_in(workdir: Path) -> Path:
    """The tiny bge-m3 the app children load, built once per work folder (no download)."""
    tiny = workdir / "tiny-bge-m3"
    if not (tiny / "config.json").exists():
        os.environ.setdefault("HF_HUB_OFFLINE", "1")
        from quest.testing.tiny_model import build_tiny_bge_m3

        build_tiny_bge_m3(tiny)
    return tiny


def start_app_process(code: str, argv: Sequence[str], root: Path) -> tuple[subprocess.Popen, dict[str, Any], Path]:
    """Run `python -c code *argv` from the repository, its stderr in root/app.log, and read the JSON
    line it prints once it listens (its URL, ...); when it prints none, say why from the log's tail."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")])),
           "GRADIO_ANALYTICS_ENABLED": "False", "HF_HUB_OFFLINE": "1"}
    log_path = root / "app.log"
    with log_path.open("w", encoding="utf-8") as log_file:
        proc = subprocess.Popen([sys.executable, "-c", code, *argv], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                stderr=log_file, text=True, cwd=str(REPO), env=env)
    line = proc.stdout.readline() if proc.stdout else ""
    try:
        info = json.loads(line)
    except ValueError:
        with contextlib.suppress(subprocess.TimeoutExpired):
            proc.wait(timeout=5)
        tail = log_path.read_text(encoding="utf-8", errors="replace").strip().splitlines()[-3:]
        info = {"error": f"the app did not start (exit {proc.poll()}): {' | '.join(tail)[:400]}"}
    return proc, info, log_path
