import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import quest.retrieval.retriever as retriever_module
from quest.cli import build_parser, main
from quest.policy import code_blocks
from tests.fakes.ollama_server import FakeOllama
from tests.fakes.retriever import FakeRetriever
from tests.fakes.samples import TLE_CODE

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture
def fake_kb(monkeypatch: pytest.MonkeyPatch) -> FakeRetriever:
    retriever = FakeRetriever()

    def build(settings, *, progress=None, embedder=None):
        return retriever

    monkeypatch.setattr(retriever_module, "build_retriever", build)
    monkeypatch.delenv("QUEST_CONTEST_LOCK_FILE", raising=False)
    return retriever


@pytest.fixture
def code_file(tmp_path: Path) -> Path:
    path = tmp_path / "solution.py"
    path.write_text(TLE_CODE, encoding="utf-8")
    return path


def ask_argv(fake: FakeOllama, code_file: Path, *extra: str) -> list[str]:
    return ["ask", "Why TLE?", "--problem", "239", "--code", str(code_file), "--error",
            "Time Limit Exceeded on test 12", "--ollama-host", fake.url, "--lang", "en", *extra]


def test_ask_streams_the_answer_and_lists_sources(fake_ollama: FakeOllama, fake_kb: FakeRetriever, code_file: Path,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    assert main(ask_argv(fake_ollama, code_file)) == 0
    out = capsys.readouterr().out
    answer, sources = out.split("\nSources:\n")
    assert answer == "Use a deque [1].\n"
    assert sources.splitlines()[0].startswith("* [1] ")
    assert len(fake_ollama.chat_bodies) == 1
    assert "w.pop(0)" in fake_ollama.chat_bodies[0]["messages"][-1]["content"]


def test_ask_reads_the_language_from_the_code_unless_given(fake_ollama: FakeOllama, fake_kb: FakeRetriever,
                                                          tmp_path: Path) -> None:
    assert build_parser().parse_args(["ask", "why"]).language == "auto"
    cpp = tmp_path / "main.cpp"
    cpp.write_text("#include <iostream>\nusing namespace std;\nint main() { int n; cin >> n; }\n", encoding="utf-8")
    assert main(ask_argv(fake_ollama, cpp)) == 0
    assert '<student_code language="cpp">' in fake_ollama.chat_bodies[-1]["messages"][-1]["content"]
    assert main(ask_argv(fake_ollama, cpp, "--language", "c")) == 0
    assert '<student_code language="c">' in fake_ollama.chat_bodies[-1]["messages"][-1]["content"]


def test_ask_falls_back_with_the_server_stopped(fake_ollama: FakeOllama, fake_kb: FakeRetriever, code_file: Path,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    fake_ollama.stop()
    assert main(ask_argv(fake_ollama, code_file, "--tier", "hint")) == 0
    captured = capsys.readouterr()
    assert captured.out.startswith(f"Ollama is not reachable at {fake_ollama.url}")
    assert "list.pop(0) shifts every remaining element" in captured.out
    assert "[warning] Ollama is not reachable" in captured.err and "`ollama serve`" in captured.err
    assert "(mode fallback, tier hint)" in captured.err


def test_ask_json(fake_ollama: FakeOllama, fake_kb: FakeRetriever, code_file: Path,
                  capsys: pytest.CaptureFixture[str]) -> None:
    assert main(ask_argv(fake_ollama, code_file, "--json", "--tier", "solution")) == 0
    payload = json.loads(capsys.readouterr().out)
    assert payload["answer"] == "Use a deque [1]." and payload["cited"] == [1]
    assert payload["stats"]["tokens_per_second"] == 50.0 and payload["stats"]["tier"] == "solution"
    assert payload["sources"][0]["number"] == 1 and payload["fallback"] is False


def test_ask_refuses_a_locked_problem(fake_ollama: FakeOllama, fake_kb: FakeRetriever, code_file: Path,
                                      tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                      capsys: pytest.CaptureFixture[str]) -> None:
    lock = tmp_path / "lock.yaml"
    lock.write_text("problems: [239]\n", encoding="utf-8")
    monkeypatch.setenv("QUEST_CONTEST_LOCK_FILE", str(lock))
    assert main(ask_argv(fake_ollama, code_file)) == 3
    assert "paused" in capsys.readouterr().out
    assert fake_ollama.requests == [] and fake_kb.searches == []


@pytest.mark.slow
def test_python_m_quest_ask_with_the_real_knowledge_base(fake_ollama: FakeOllama, code_file: Path,
                                                         tmp_path: Path) -> None:
    """The sliding-window TLE example end to end: real index (BM25 only), real CLI, fake Ollama."""
    fake_ollama.tokens = ["第 7 行的 `w.pop(0)` 是 O(k) [1]", "，整体 O(nk) [9]。"]
    env = {k: v for k, v in os.environ.items() if not k.startswith(("QUEST_", "OLLAMA_"))}
    base = [sys.executable, "-m", "quest", "--kb", str(ROOT / "knowledge"), "--data-dir", str(tmp_path / "data"),
            "--embedding-model", "none", "ask", "为什么超时？", "--problem", "239", "--code", str(code_file),
            "--error", "Time Limit Exceeded on test 12", "--tier", "hint"]
    run = subprocess.run([*base, "--ollama-host", fake_ollama.url], capture_output=True, text=True, timeout=240,
                         cwd=ROOT, env=env)
    assert run.returncode == 0, run.stderr
    assert run.stdout.startswith("第 7 行的 `w.pop(0)` 是 O(k) [1]，整体 O(nk) [9]。")  # as streamed
    assert "--- revised answer (citations) ---\n第 7 行的 `w.pop(0)` 是 O(k) [1]，整体 O(nk)。" in run.stdout
    assert "\nSources:\n* [1] 常见错误" in run.stdout
    sent = fake_ollama.chat_text()
    official = [d for d in (ROOT / "knowledge" / "problems" / "239-sliding-window-maximum").glob("official.*.md")]
    assert official
    checked = 0
    for path in official:
        for block in code_blocks(path.read_text(encoding="utf-8")):
            for line in block.splitlines():
                if len(line.strip()) > 15 and line.strip() not in TLE_CODE:  # the student's own lines may match
                    checked += 1
                    assert line.strip() not in sent, line
    assert checked >= 10
    # The same request with Ollama stopped: the fallback, from the same (now loaded) index.
    fake_ollama.stop()
    run = subprocess.run([*base, "--ollama-host", fake_ollama.url], capture_output=True, text=True, timeout=240,
                         cwd=ROOT, env=env)
    assert run.returncode == 0, run.stderr
    assert run.stdout.startswith(f"无法连接 Ollama（{fake_ollama.url}）")
    assert "pop(0)" in run.stdout and "```" not in run.stdout.split("\nSources:\n")[0]
