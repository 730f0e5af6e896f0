"""`python -m quest index`: an edit becomes a delta segment; `--compact` merges it into a new base."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from tests.test_search_command import ROOT, run_quest


def test_an_edit_appends_a_delta_and_compact_merges_it(tmp_path: Path):
    kb = tmp_path / "knowledge"
    shutil.copytree(ROOT / "knowledge", kb)
    data = tmp_path / "d"
    first = json.loads(run_quest("index", "--json", data_dir=data, kb=kb).stdout)
    assert (first["action"], first["segments"], first["deleted_rows"]) == ("built", 1, 0)

    doc = next(p for p in sorted(kb.rglob("*.md")) if p.read_text(encoding="utf-8").startswith("---\nid:"))
    doc.write_text(doc.read_text(encoding="utf-8") + "\n\nOne more paragraph about fast input.\n", encoding="utf-8")
    second = json.loads(run_quest("index", "--json", data_dir=data, kb=kb).stdout)
    assert (second["action"], second["segments"], second["embedded_documents"]) == ("updated", 2, 1)
    assert second["deleted_rows"] > 0 and second["chunks"] >= first["chunks"]

    out = run_quest("index", "--compact", "--json", data_dir=data, kb=kb)
    assert out.returncode == 0, out.stderr
    third = json.loads(out.stdout)
    assert (third["action"], third["segments"], third["deleted_rows"]) == ("compacted", 1, 0)
    assert third["chunks"] == second["chunks"]
    folder = Path(third["folder"])
    names = {p.name.split(".")[0] for p in folder.iterdir()}
    hashes = {n for n in names if n.startswith("documents-")}  # the document hashes, one file (doc_hashes.py)
    assert len(hashes) == 1 and sorted(names - hashes) == ["manifest", "s000003"]


def test_verify_hashes_every_file_and_names_a_damaged_one(tmp_path: Path):
    kb = tmp_path / "knowledge"
    shutil.copytree(ROOT / "knowledge", kb)
    data = tmp_path / "d"
    folder = Path(json.loads(run_quest("index", "--json", data_dir=data, kb=kb).stdout)["folder"])
    ok = run_quest("index", "--verify", data_dir=data, kb=kb)
    assert ok.returncode == 0, ok.stderr
    assert ok.stdout.startswith(f"ok: {folder} (") and "every file matches its SHA-256" in ok.stdout

    records = folder / "s000001.chunks.jsonl"
    body = bytearray(records.read_bytes())
    body[len(body) // 2] ^= 0x01  # same size: only the checksum can tell
    records.write_bytes(bytes(body))
    bad = run_quest("index", "--verify", data_dir=data, kb=kb)
    assert bad.returncode == 1
    assert f"damaged: {records} does not match its checksum" in bad.stderr and "Traceback" not in bad.stderr
