"""The starter base's catalogue (its problems and the words of its general documents), as `quest.resolution`
resolves against it at run time. Read once per test session: several resolution test modules share it."""

from pathlib import Path

import pytest

from quest.kb.markdown import load_knowledge_base
from quest.request import Request
from quest.resolution import Catalogue, Resolution, resolve

ROOT = Path(__file__).resolve().parent.parent.parent


@pytest.fixture(scope="session")
def starter_catalogue() -> Catalogue:
    kb = load_knowledge_base(ROOT / "knowledge")
    return Catalogue(kb.problems, [f"{d.title}\n{d.text}" for d in kb.documents if d.problem_id is None])


@pytest.fixture
def base(starter_catalogue: Catalogue) -> Catalogue:
    """The starter catalogue under the name the resolution test modules use."""
    return starter_catalogue


def resolved(cat: Catalogue, question: str, **fields: object) -> Resolution:
    """How `quest.resolution` resolves `question` (with any other request fields) against `cat`."""
    return resolve(Request(question=question, **fields), cat)
