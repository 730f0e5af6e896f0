"""compose.yaml and docs/deploy.md: parsed and checked against what Quest actually reads.

Docker is not available here, so this is the check `docker compose config` would do for the
parts that matter, plus Quest's own: every QUEST_* variable is a real setting, the settings load,
every URL points at a service of the file, replicas only read the shared index, secrets come
from the operator's environment, nginx keeps sessions sticky.
"""

from __future__ import annotations

import dataclasses
import itertools
import re
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest
import yaml

from quest.hosts import split_hosts
from quest.settings import Settings

REPO = Path(__file__).resolve().parents[1]
TOP_LEVEL = {"name", "services", "volumes", "configs", "networks", "secrets"}
CONDITIONS = {"service_started", "service_healthy", "service_completed_successfully"}
SUBSTITUTION = re.compile(r"\$\{([A-Z_]+)(?::?[-?][^}]*)?\}")
SETTINGS_FIELDS = {f.name for f in dataclasses.fields(Settings)}


@pytest.fixture(scope="module")
def compose() -> dict[str, Any]:
    data = yaml.safe_load((REPO / "compose.yaml").read_text(encoding="utf-8"))  # anchors and merge keys resolved
    assert isinstance(data, dict)
    return data


def substitute(value: str, env: dict[str, str]) -> str:
    """Compose's ${VAR}, ${VAR:-default}, ${VAR:?error} with the given environment."""
    return SUBSTITUTION.sub(lambda m: env[m.group(1)], value)


OPERATOR = {"POSTGRES_PASSWORD": "pw-from-env", "VLLM_API_KEY": "key-from-env", "QUEST_AUTH": "course:pw"}


def quest_services(compose: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {name: s for name, s in compose["services"].items() if name.startswith("quest-")}


def test_top_level_and_services_are_well_formed(compose: dict[str, Any]) -> None:
    assert {k for k in compose if not k.startswith("x-")} <= TOP_LEVEL
    services = compose["services"]
    assert {"postgres", "vllm-a", "vllm-b", "index", "quest-1", "quest-2", "proxy"} <= set(services)
    for name, service in services.items():
        assert "image" in service or "build" in service, name
        deps = service.get("depends_on", {})
        for dep, spec in (deps.items() if isinstance(deps, dict) else ((d, {}) for d in deps)):
            assert dep in services, f"{name} depends on unknown {dep}"
            condition = spec.get("condition", "service_started")
            assert condition in CONDITIONS
            if condition == "service_healthy":
                assert "healthcheck" in services[dep], f"{dep} has no healthcheck"
        for volume in service.get("volumes", []):
            source = volume.split(":")[0]
            if not source.startswith((".", "/")):
                assert source in compose["volumes"], f"{name} mounts undeclared volume {source}"
        for config in service.get("configs", []):
            assert config["source"] in compose["configs"]


def test_quest_environment_is_real_settings_that_load(compose: dict[str, Any]) -> None:
    for name, service in {**quest_services(compose), "index": compose["services"]["index"]}.items():
        env = {k: substitute(str(v), OPERATOR) for k, v in service["environment"].items()}
        for key in env:
            if key.startswith("QUEST_"):
                assert key.removeprefix("QUEST_").lower() in SETTINGS_FIELDS, f"{name}: {key} is not a setting"
        settings = Settings.from_env(env)
        assert settings.llm_backend == "openai" and settings.host == "0.0.0.0"
        for url in split_hosts(settings.openai_base_url):
            assert urlsplit(url).hostname in compose["services"] and urlsplit(url).path == "/v1"
        db = urlsplit(settings.database_url)
        assert db.scheme == "postgresql+psycopg" and db.hostname == "postgres" and db.password == "pw-from-env"


def test_secrets_come_from_the_operators_environment(compose: dict[str, Any]) -> None:
    text = (REPO / "compose.yaml").read_text(encoding="utf-8")
    assert "${POSTGRES_PASSWORD:?" in text and "${VLLM_API_KEY:?" in text
    env = compose["services"]["quest-1"]["environment"]
    assert env["QUEST_OPENAI_API_KEY"].startswith("${") and compose["services"]["postgres"]["environment"][
        "POSTGRES_PASSWORD"].startswith("${")


def test_index_is_built_once_and_only_read_by_replicas(compose: dict[str, Any]) -> None:
    index = compose["services"]["index"]
    assert index["command"] == ["python", "-m", "quest", "index"]
    assert "index:/data" in index["volumes"]
    for name, service in quest_services(compose).items():
        assert "index:/data:ro" in service["volumes"], name
        assert service["depends_on"]["index"]["condition"] == "service_completed_successfully"
        assert service["environment"]["QUEST_DATA_DIR"] == "/data"


def test_proxy_is_sticky_and_lists_every_replica(compose: dict[str, Any]) -> None:
    conf = compose["configs"]["nginx"]["content"]
    assert "ip_hash;" in conf and "proxy_buffering off;" in conf
    upstreams = set(re.findall(r"server (quest-\d+):7860;", conf))
    assert upstreams == set(quest_services(compose))
    assert "$$http_upgrade" in conf  # compose would otherwise substitute nginx's own variables


def test_deploy_doc_names_only_real_settings() -> None:
    doc = (REPO / "docs" / "deploy.md").read_text(encoding="utf-8")
    names = set(re.findall(r"QUEST_([A-Z_]+[A-Z])", doc))
    assert names, "docs/deploy.md names no settings"
    unknown = {n for n in names if n.lower() not in SETTINGS_FIELDS and n != "TEST_DATABASE_URL"}
    assert unknown == set()
    for topology in ("## 1. One machine", "## 2. One app, several model hosts", "## 3. Several app replicas",
                     "## Hugging Face Space"):
        assert topology in doc


def _dockerfile() -> list[tuple[str, str]]:
    """(instruction, arguments) of the Dockerfile, continuation lines joined, comments dropped."""
    text = (REPO / "Dockerfile").read_text(encoding="utf-8")
    lines = [line for line in text.replace("\\\n", " ").splitlines() if line.strip() and not line.startswith("#")]
    return [(line.split(None, 1)[0].upper(), line.split(None, 1)[1]) for line in lines]


def test_every_pip_install_in_the_dockerfile_has_what_it_reads() -> None:
    """Docker is not here to build the image, so the build is walked: each `pip install` runs after the files it
    reads were copied in, and `-e .` (requirements.txt installs Quest itself) only once the project is there. An
    image that copied requirements.txt alone and installed it failed on `-e .`: no pyproject.toml yet."""
    copied: set[str] = set()
    installs = 0
    for instruction, args in _dockerfile():
        if instruction == "COPY":
            copied.update(args.split()[:-1])
        elif instruction == "RUN" and "pip install" in args:
            installs += 1
            tokens = args.replace(";", " ").replace("&&", " ").split()
            for flag, value in itertools.pairwise(tokens):
                if flag == "-r" and not value.startswith("/") and (REPO / value).is_file():
                    assert value in copied or "." in copied, f"{value} installed before it is copied"
                    editable = any(line.strip().startswith("-e ") for line in (REPO / value).read_text().splitlines())
                    assert not editable or "." in copied, f"{value} installs the project before it is copied"
                if flag == "-e":
                    assert "." in copied, "the project is installed before it is copied"
    assert installs >= 2


def test_the_image_can_add_the_fast_extra() -> None:
    """`docker build --build-arg WITH_NUMBA=1` installs the pinned numba (requirements-fast.txt); the default image
    does not (the README: below 100k chunks it is never used)."""
    steps = _dockerfile()
    assert ("ARG", "WITH_NUMBA=0") in steps
    fast = [args for instruction, args in steps if instruction == "RUN" and "requirements-fast.txt" in args]
    assert fast == ['if [ "$WITH_NUMBA" = 1 ]; then pip install --no-cache-dir -r requirements-fast.txt; fi']
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    assert "--build-arg WITH_NUMBA=1" in readme and "requirements-fast.txt" in readme


def test_the_image_leaves_out_history_caches_and_local_data() -> None:
    """`COPY . .` copies the build context: without .dockerignore the image would carry .git and a developer's
    local index and feedback database (.quest, students' questions), which the image must never ship."""
    patterns = {line.strip() for line in (REPO / ".dockerignore").read_text().splitlines()
                if line.strip() and not line.startswith("#")}
    assert {".git", ".quest", "**/__pycache__", "bench-out"} <= patterns
    assert ("COPY", ". .") in _dockerfile()
