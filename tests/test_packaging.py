"""The package stands alone: what quest/ imports is declared, pinned, and never the test suite."""

from __future__ import annotations

import ast
import sys
from importlib.metadata import packages_distributions
from pathlib import Path

import tomllib
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

REPO = Path(__file__).resolve().parents[1]


def _pins(path: Path) -> dict[str, str]:
    """{canonical name: pinned version} from a requirements file's `name[extras]==version  # why` lines."""
    pins = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        line = line.split("#", 1)[0].strip()
        if not line or line.startswith("-"):
            continue
        req = Requirement(line)
        (spec,) = req.specifier  # exactly one pin per line
        assert spec.operator == "==", f"{path.name}: {line!r} is not pinned with =="
        pins[canonicalize_name(req.name)] = spec.version
    return pins


def _project() -> dict:
    return tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]


def _declared(requirements: list[str]) -> dict[str, Requirement]:
    return {canonicalize_name(r.name): r for r in map(Requirement, requirements)}


def _imported_top_level(folder: Path) -> set[str]:
    return set().union(*(_imported_top_level_of(path) for path in folder.rglob("*.py")))


def test_every_runtime_pin_is_a_declared_dependency_and_fits_its_range():
    pins = _pins(REPO / "requirements.txt")
    declared = _declared(_project()["dependencies"])
    # A pin added to requirements.txt also goes into pyproject.toml's dependencies, as "name>=version,<next major".
    assert sorted(set(pins) - set(declared)) == [], "pinned in requirements.txt but not in pyproject dependencies"
    assert sorted(set(declared) - set(pins)) == [], "declared in pyproject but not pinned in requirements.txt"
    outside = {name: pins[name] for name, req in declared.items() if not req.specifier.contains(pins[name])}
    assert outside == {}


def test_requirements_txt_installs_the_package_itself():
    lines = [line.strip() for line in (REPO / "requirements.txt").read_text(encoding="utf-8").splitlines()]
    assert "-e ." in lines


def test_dev_and_bench_groups_are_pinned_in_requirements_dev():
    extras = _project()["optional-dependencies"]
    dev_pins = _pins(REPO / "requirements-dev.txt")
    for group in ("dev", "bench"):
        for name, req in _declared(extras[group]).items():
            assert name in dev_pins, f"{group}: {name} missing from requirements-dev.txt"
            assert req.specifier.contains(dev_pins[name]), f"{group}: {name}=={dev_pins[name]} outside {req}"


def test_the_milvus_group_matches_requirements_milvus():
    extras = _declared(_project()["optional-dependencies"]["milvus"])
    pins = _pins(REPO / "requirements-milvus.txt")
    assert set(extras) == set(pins)
    assert all(req.specifier.contains(pins[name]) for name, req in extras.items())


def test_the_fast_group_matches_requirements_fast_which_dev_and_ci_install():
    """The Dockerfile's WITH_NUMBA=1 and an operator install the pinned numba from requirements-fast.txt; the tests
    (CI installs requirements-dev.txt) run against that same pin."""
    extras = _declared(_project()["optional-dependencies"]["fast"])
    pins = _pins(REPO / "requirements-fast.txt")
    assert set(extras) <= set(pins) and set(pins) <= {*extras, "llvmlite"}  # llvmlite: numba's own dependency
    assert all(req.specifier.contains(pins[name]) for name, req in extras.items())
    dev_lines = [line.strip() for line in (REPO / "requirements-dev.txt").read_text(encoding="utf-8").splitlines()]
    assert "-r requirements-fast.txt" in dev_lines
    assert not {"numba", "llvmlite"} & set(_pins(REPO / "requirements-dev.txt"))  # one pin, in one file


def test_bench_only_packages_are_not_runtime_dependencies():
    runtime = set(_pins(REPO / "requirements.txt"))
    assert {"matplotlib", "rank-bm25", "pytest"} & runtime == set()


def test_the_fast_extra_stays_optional():
    """numba is an accelerator: never in the default install, and quest/ imports it in one module only."""
    runtime = set(_pins(REPO / "requirements.txt")) | set(_declared(_project()["dependencies"]))
    assert {"numba", "llvmlite"} & runtime == set()
    importers = sorted(path.name for path in (REPO / "quest").rglob("*.py") if "numba" in _imported_top_level_of(path))
    assert importers == ["_sparse_numba.py"]


def _imported_top_level_of(path: Path) -> set[str]:
    names = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module.split(".")[0])
    return names


def test_every_third_party_import_in_quest_is_declared():
    distributions = packages_distributions()
    declared = set(_declared(_project()["dependencies"]))
    bench_only = {"matplotlib", "rank_bm25"}  # imported lazily by quest/bench, which skips without them
    # Imported lazily by quest/retrieval/milvus.py, only when QUEST_VECTOR_STORE names Milvus.
    declared |= set(_declared(_project()["optional-dependencies"]["milvus"]))
    # Imported lazily by quest/retrieval/kernels.py, which falls back to numpy without it.
    declared |= set(_declared(_project()["optional-dependencies"]["fast"]))
    missing = {}
    for module in sorted(_imported_top_level(REPO / "quest") - set(sys.stdlib_module_names) - bench_only):
        if module == "quest":
            continue
        dists = {canonicalize_name(d) for d in distributions.get(module, [module])}
        if not dists & declared:
            missing[module] = sorted(dists)
    assert missing == {}


def test_quest_never_imports_the_test_suite():
    assert "tests" not in _imported_top_level(REPO / "quest")
    assert "pytest" not in _imported_top_level(REPO / "quest")


def test_the_console_command_points_at_the_cli():
    from quest import cli

    assert _project()["scripts"] == {"quest": "quest.cli:main"}
    assert callable(cli.main)
