"""Quest's web app: `python app.py [--port 7860] [--share] ...` (also the Hugging Face Space entry point).

Settings come from the environment (QUEST_*, OLLAMA_HOST) and these flags; the assistant and
its index are built in the background while the page shows the progress in its status line.
"""

from __future__ import annotations

import argparse
import logging
import os
from collections.abc import Sequence

from quest.settings import TIERS, Settings


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description="Quest: an OJ help desk in the browser.")
    p.add_argument("--host", help="address to bind (default 127.0.0.1; 0.0.0.0 in a Hugging Face Space)")
    p.add_argument("--port", type=int, help="port (default 7860)")
    p.add_argument("--share", action="store_true", default=None, help="also publish a public Gradio share link")
    p.add_argument("--kb", dest="kb_dir", help="knowledge folder (default: knowledge)")
    p.add_argument("--data-dir", help="index and feedback folder (default: .quest)")
    p.add_argument("--model", dest="ollama_model", help="Ollama model (default: qwen2.5-coder:1.5b)")
    p.add_argument("--embedding-model", help="embedding model name or path; 'none' for BM25 only")
    p.add_argument("--ollama-host", help="Ollama address (default: OLLAMA_HOST or http://localhost:11434)")
    p.add_argument("--max-tier", choices=TIERS, help="the most help students may ask for")
    p.add_argument("--lang", dest="ui_lang", choices=("auto", "zh", "en"), help="interface language (default: auto)")
    return p.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> None:
    args = parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    settings = Settings.from_env(**vars(args))

    from quest.ui.app import create_app
    from quest.ui.layout import launch_options

    demo, _ = create_app(settings)
    demo.launch(**launch_options(settings, os.environ))


if __name__ == "__main__":
    main()
