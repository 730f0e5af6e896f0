"""Quest's web app: `python app.py [--port 7860] [--share] ...` (also the Hugging Face Space entry point).

Settings come from the environment (QUEST_*, OLLAMA_HOST) and these flags; the assistant and
its index are built in the background while the page shows the progress in its status line.
"""

from __future__ import annotations

import argparse
import logging
import os
from collections.abc import Sequence

from quest.flags import add_deprecated_alias, add_knowledge_flags, add_llm_flags
from quest.settings import TIERS, Settings


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description="Quest: an OJ help desk in the browser.")
    p.add_argument("--host", help="address to bind (default 127.0.0.1; 0.0.0.0 in a Hugging Face Space)")
    p.add_argument("--port", type=int, help="port (default 7860)")
    p.add_argument("--share", action="store_true", default=None, help="also publish a public Gradio share link")
    add_knowledge_flags(p)
    add_llm_flags(p)
    add_deprecated_alias(p, "--model", "--llm-model", "ollama_model")
    p.add_argument("--max-tier", choices=TIERS, help="the most help students may ask for")
    p.add_argument("--lang", dest="ui_lang", choices=("auto", "zh", "en"), help="interface language (default: auto)")
    return p.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> None:
    args = parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    try:
        settings = Settings.from_env(**vars(args))
    except ValueError as exc:  # a bad QUEST_* value: one line naming it, as the CLI prints, not a traceback
        raise SystemExit(f"error: {exc}") from None

    from quest.ui.app import create_app
    from quest.ui.layout import launch_options

    demo, _ = create_app(settings)
    demo.launch(**launch_options(settings, os.environ))


if __name__ == "__main__":
    main()
