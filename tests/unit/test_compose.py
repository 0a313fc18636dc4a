"""Static checks of docker-compose.yml, the Dockerfile and .dockerignore (no Docker engine needed).

They keep the Docker setup in step with the rest of the repo: the Neo4j image is the patch that
graphmem.config.NEO4J_VERSION and graphmem/neo4j_local/pom.xml pin, ports stay on localhost, the password
comes from the environment, and the Dockerfile copies what the wheel build needs and exposes what compose maps.
"""

from __future__ import annotations

import fnmatch
import json
import os
import re
import shlex
import tomllib
import xml.etree.ElementTree as ET
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest
import yaml

from graphmem.cli.serve import DEMO_TOKEN_ENV, DEMO_TOKEN_NAME, with_demo_token
from graphmem.config import NEO4J_VERSION, Settings
from graphmem.security import TokenStore

ROOT = Path(__file__).resolve().parents[2]
COMPOSE_FILE = ROOT / "docker-compose.yml"
POM_FILE = ROOT / "graphmem" / "neo4j_local" / "pom.xml"
PASSWORD_VAR = "GRAPHMEM_NEO4J_PASSWORD"
REQUIRED_PASSWORD = re.compile(r"\$\{" + PASSWORD_VAR + r":\?[^}]*\}")
SIGNING_VAR = "GRAPHMEM_SIGNING_KEYS"
REQUIRED_SIGNING = re.compile(r"\$\{" + SIGNING_VAR + r":\?[^}]*\}")
VERSION_RE = re.compile(r"^(\d+)\.(\d+)\.(\d+)$")
COMPOSE_VARIABLE = re.compile(r"\$\$|\$\{(\w+)(?:(:?)([-?])([^}]*))?\}")


# --------------------------------------------------------------------------------------------- helpers


def _version(text: str) -> tuple[int, int, int]:
    match = VERSION_RE.match(text)
    assert match, f"not a major.minor.patch version: {text!r}"
    major, minor, patch = (int(g) for g in match.groups())
    return major, minor, patch


def _environment(service: dict[str, Any]) -> dict[str, str]:
    """A service's environment as a dict, whichever of the two Compose syntaxes it uses."""
    env = service.get("environment") or {}
    if isinstance(env, list):
        pairs = (item.split("=", 1) if "=" in item else (item, "") for item in env)
        return {k: v for k, v in pairs}
    return {str(k): "" if v is None else str(v) for k, v in env.items()}


def interpolate(value: str, env: Mapping[str, str]) -> str:
    """A Compose value with ``${VAR}``, ``${VAR:-default}``, ``${VAR-default}``, ``${VAR:?error}``, ``${VAR?error}``
    and ``$$`` resolved against ``env`` as `docker compose` does; a required variable that is missing fails."""

    def one(match: re.Match[str]) -> str:
        if match.group(0) == "$$":
            return "$"
        name, colon, op, arg = match.groups()
        found = env.get(name)
        missing = found is None or (colon == ":" and found == "")
        if op == "-":
            return arg if missing else str(found)
        if op == "?":
            assert not missing, f"docker compose refuses to start without {name}: {arg}"
        return found or ""

    return COMPOSE_VARIABLE.sub(one, value)


def service_environment(service: dict[str, Any], env: Mapping[str, str]) -> dict[str, str]:
    """The environment Compose gives a service's container when the shell running it has ``env``."""
    return {key: interpolate(value, env) for key, value in _environment(service).items()}


def command_words(service: dict[str, Any]) -> list[str]:
    command = service.get("command")
    return [str(w) for w in command] if isinstance(command, list) else shlex.split(str(command))


def _published_ports(service: dict[str, Any]) -> list[tuple[str | None, int]]:
    """(host ip, container port) for each published port, short or long syntax."""
    result: list[tuple[str | None, int]] = []
    for entry in service.get("ports") or []:
        if isinstance(entry, dict):
            result.append((entry.get("host_ip"), int(str(entry["target"]).split("/")[0])))
            continue
        text = str(entry).split("/")[0]
        if text.startswith("["):  # [::1]:8000:8000
            ip, _, rest = text[1:].partition("]:")
            parts = [ip, *rest.split(":")]
        else:
            parts = text.split(":")
        host_ip = parts[0] if len(parts) == 3 else None
        result.append((host_ip, int(parts[-1].split("-")[0])))
    return result


def _healthcheck_command(service: dict[str, Any]) -> str:
    check = service.get("healthcheck") or {}
    assert not check.get("disable"), "healthcheck is disabled"
    test = check.get("test")
    if isinstance(test, str):
        return test.strip()
    assert isinstance(test, list), f"healthcheck.test must be a string or list, got {test!r}"
    assert test, "healthcheck.test is empty"
    assert test[0] in {"CMD", "CMD-SHELL"}, f"healthcheck.test must start with CMD or CMD-SHELL: {test!r}"
    return " ".join(str(part) for part in test[1:]).strip()


def _dockerfile_instructions(path: Path) -> list[tuple[str, str]]:
    """(INSTRUCTION, arguments) with comments dropped and continuation lines joined."""
    instructions: list[tuple[str, str]] = []
    pending = ""
    for raw in path.read_text().splitlines():
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        if line.endswith("\\"):
            pending += line[:-1] + " "
            continue
        full = (pending + line).strip()
        pending = ""
        keyword, _, args = full.partition(" ")
        instructions.append((keyword.upper(), args.strip()))
    assert not pending, "Dockerfile ends inside a continued line"
    return instructions


def _exec_form_or_words(args: str) -> list[str]:
    if args.startswith("["):
        parsed = json.loads(args)
        assert isinstance(parsed, list)
        return [str(p) for p in parsed]
    return shlex.split(args)


def _copy_sources(args: str) -> tuple[list[str], bool]:
    """Sources of one COPY/ADD, and whether it copies from another stage or image (--from)."""
    words = _exec_form_or_words(args)
    flags = [w for w in words if w.startswith("--")]
    paths = [w for w in words if not w.startswith("--")]
    assert len(paths) >= 2, f"COPY needs a source and a destination: {args!r}"
    return paths[:-1], any(f.startswith("--from=") for f in flags)


def _dockerignore_patterns(context: Path) -> list[str]:
    ignore = context / ".dockerignore"
    if not ignore.is_file():
        return []
    lines = (line.strip() for line in ignore.read_text().splitlines())
    return [line.rstrip("/") for line in lines if line and not line.startswith("#")]


def _ignored(relative: str, patterns: list[str]) -> bool:
    """Good enough for this repo: last match wins, '!' re-includes, a pattern also covers what lies below it."""
    relative = relative.strip("/").removeprefix("./")
    ignored = False
    for pattern in patterns:
        negate = pattern.startswith("!")
        pat = pattern[1:] if negate else pattern
        pat = pat.strip("/").removeprefix("./")
        if fnmatch.fnmatch(relative, pat) or relative.startswith(pat + "/"):
            ignored = not negate
    return ignored


# -------------------------------------------------------------------------------------------- fixtures


@pytest.fixture(scope="module")
def compose() -> dict[str, Any]:
    assert COMPOSE_FILE.is_file(), f"missing {COMPOSE_FILE.name}"
    data = yaml.safe_load(COMPOSE_FILE.read_text())
    assert isinstance(data, dict), "docker-compose.yml must be a mapping"
    return data


@pytest.fixture(scope="module")
def services(compose: dict[str, Any]) -> dict[str, dict[str, Any]]:
    svc = compose.get("services")
    assert isinstance(svc, dict), "docker-compose.yml has no services mapping"
    return svc


@pytest.fixture(scope="module")
def build_paths(services: dict[str, dict[str, Any]]) -> tuple[Path, Path]:
    """(build context, Dockerfile) of the graphmem service, resolved like Compose does."""
    build = services["graphmem"].get("build")
    assert build, "graphmem service has no build section"
    if isinstance(build, str):
        context_rel, dockerfile_rel = build, "Dockerfile"
    else:
        context_rel, dockerfile_rel = build.get("context", "."), build.get("dockerfile", "Dockerfile")
    context = (COMPOSE_FILE.parent / context_rel).resolve()
    return context, (context / dockerfile_rel).resolve()


@pytest.fixture(scope="module")
def dockerfile(build_paths: tuple[Path, Path]) -> list[tuple[str, str]]:
    _, path = build_paths
    assert path.is_file(), f"Dockerfile named by docker-compose.yml not found: {path}"
    return _dockerfile_instructions(path)


# ------------------------------------------------------------------------------------------------ tests


def test_both_services_exist(services: dict[str, dict[str, Any]]) -> None:
    assert {"neo4j", "graphmem"} <= set(services), f"services: {sorted(services)}"


def test_neo4j_image_is_the_pinned_community_patch(services: dict[str, dict[str, Any]]) -> None:
    image = str(services["neo4j"].get("image", ""))
    name, sep, tag = image.rpartition(":")
    assert sep, f"neo4j image has no tag: {image!r}"
    assert name.split("/")[-1] == "neo4j", f"not the neo4j image: {image!r}"
    version, _, variant = tag.partition("-")
    assert _version(version) == _version(NEO4J_VERSION), f"{image} does not match NEO4J_VERSION {NEO4J_VERSION}"
    assert "community" in variant.split("-"), f"{image} is not the community edition"
    assert "enterprise" not in tag


def test_pom_pins_the_same_neo4j_version() -> None:
    root = ET.parse(POM_FILE).getroot()  # noqa: S314 - our own file, not untrusted input
    ns = {"m": "http://maven.apache.org/POM/4.0.0"}
    prop = root.find("m:properties/m:neo4j.version", ns)
    assert prop is not None, "pom.xml has no <neo4j.version> property"
    assert prop.text, "pom.xml's <neo4j.version> is empty"
    assert _version(prop.text.strip()) == _version(NEO4J_VERSION)


@pytest.mark.parametrize(("service", "required"), [("neo4j", {7474, 7687}), ("graphmem", {8000})])
def test_ports_only_on_localhost(services: dict[str, dict[str, Any]], service: str, required: set[int]) -> None:
    ports = _published_ports(services[service])
    assert ports, f"{service} publishes no ports"
    for host_ip, target in ports:
        assert host_ip == "127.0.0.1", f"{service} port {target} is published on {host_ip or 'all interfaces'}"
    missing = required - {target for _, target in ports}
    assert not missing, f"{service} does not publish {sorted(missing)}"


def test_no_service_uses_host_network(services: dict[str, dict[str, Any]]) -> None:
    for name, service in services.items():
        assert service.get("network_mode") != "host", f"{name} bypasses the 127.0.0.1 port bindings"


@pytest.mark.parametrize("service", ["neo4j", "graphmem"])
def test_each_service_has_a_healthcheck(services: dict[str, dict[str, Any]], service: str) -> None:
    assert _healthcheck_command(services[service]), f"{service} healthcheck has no command"


def test_graphmem_healthcheck_probes_healthz_on_its_port(services: dict[str, dict[str, Any]]) -> None:
    command = _healthcheck_command(services["graphmem"])
    assert "/healthz" in command
    assert ":8000" in command


def test_graphmem_waits_for_healthy_neo4j(services: dict[str, dict[str, Any]]) -> None:
    depends = services["graphmem"].get("depends_on")
    assert isinstance(depends, dict), "depends_on must use the long form to carry a condition"
    assert (depends.get("neo4j") or {}).get("condition") == "service_healthy"


def test_graphmem_talks_to_the_neo4j_service(services: dict[str, dict[str, Any]]) -> None:
    env = _environment(services["graphmem"])
    assert env.get("GRAPHMEM_NEO4J_URI") == "bolt://neo4j:7687"


def test_graphmem_serves_on_the_port_compose_maps(services: dict[str, dict[str, Any]]) -> None:
    words = command_words(services["graphmem"])
    assert words[:2] == ["graphmem", "serve"], f"unexpected command {words}"
    assert words[words.index("--port") + 1] == "8000"
    assert words[words.index("--host") + 1] == "0.0.0.0"  # noqa: S104 - inside the container; published on 127.0.0.1


def test_password_is_required_from_env(services: dict[str, dict[str, Any]]) -> None:
    neo4j_auth = _environment(services["neo4j"]).get("NEO4J_AUTH", "")
    assert neo4j_auth.startswith("neo4j/"), f"NEO4J_AUTH must set the neo4j user's password, got {neo4j_auth!r}"
    assert REQUIRED_PASSWORD.fullmatch(neo4j_auth.removeprefix("neo4j/")), (
        f"NEO4J_AUTH must be neo4j/${{{PASSWORD_VAR}:?...}}, got {neo4j_auth!r}"
    )
    graphmem_password = _environment(services["graphmem"]).get(PASSWORD_VAR, "")
    assert REQUIRED_PASSWORD.fullmatch(graphmem_password), (
        f"graphmem's {PASSWORD_VAR} must be ${{{PASSWORD_VAR}:?...}}, got {graphmem_password!r}"
    )


def test_no_literal_password_anywhere(services: dict[str, dict[str, Any]]) -> None:
    dev_default = Settings.model_fields["neo4j_password"].default.get_secret_value()
    assert dev_default not in COMPOSE_FILE.read_text()
    for name, service in services.items():
        for key, value in _environment(service).items():
            if "PASSWORD" in key or key == "NEO4J_AUTH":
                secret = value.removeprefix("neo4j/") if key == "NEO4J_AUTH" else value
                assert REQUIRED_PASSWORD.fullmatch(secret), f"{name}.{key} holds a literal or optional password"


def test_neo4j_memory_settings_and_volumes(compose: dict[str, Any], services: dict[str, dict[str, Any]]) -> None:
    env = _environment(services["neo4j"])
    for key in ("NEO4J_server_memory_heap_max__size", "NEO4J_server_memory_pagecache_size"):
        assert env.get(key), f"neo4j service does not set {key}"
    mounts = {str(v).split(":")[1] if ":" in str(v) else str(v) for v in services["neo4j"].get("volumes") or []}
    assert {"/data", "/logs"} <= mounts
    named = set(compose.get("volumes") or {})
    for volume in services["neo4j"]["volumes"]:
        source = str(volume).split(":")[0]
        assert source in named, f"{source} is not a named volume"


def test_dockerfile_exposes_the_mapped_port(
    services: dict[str, dict[str, Any]], dockerfile: list[tuple[str, str]]
) -> None:
    exposed = {int(word.split("/")[0]) for kw, args in dockerfile if kw == "EXPOSE" for word in args.split()}
    mapped = {target for _, target in _published_ports(services["graphmem"])}
    assert mapped, "graphmem publishes no ports"
    assert mapped <= exposed, f"compose maps {sorted(mapped)} but the Dockerfile exposes {sorted(exposed)}"


def test_dockerfile_basics(dockerfile: list[tuple[str, str]]) -> None:
    froms = [args.split()[0] for kw, args in dockerfile if kw == "FROM"]
    build_args = {a.partition("=")[0]: a.partition("=")[2] for kw, a in dockerfile if kw == "ARG"}
    resolved = [re.sub(r"\$\{?(\w+)\}?", lambda m: build_args.get(m.group(1), m.group(0)), f) for f in froms]
    assert resolved, "no FROM"
    assert resolved[-1].startswith("python:3.11-slim"), f"runtime stage is {resolved[-1]}"

    users = [a.split(":")[0] for kw, a in dockerfile if kw == "USER"]
    assert users, "the Dockerfile never sets USER"
    assert users[-1] not in {"root", "0"}, "the image must run as a non-root user"

    assert any(kw == "HEALTHCHECK" and "NONE" not in a.upper().split() for kw, a in dockerfile)

    env: dict[str, str] = {}
    for kw, a in dockerfile:
        if kw == "ENV":
            env.update(word.partition("=")[::2] for word in shlex.split(a) if "=" in word)
    assert env.get("HF_HUB_OFFLINE") == "1"

    installs = " ".join(a for kw, a in dockerfile if kw == "RUN" and "pip install" in a)
    assert "--no-cache-dir" in installs
    assert ".[embed]" in installs


def test_dockerfile_copy_sources_exist_in_the_build_context(
    build_paths: tuple[Path, Path], dockerfile: list[tuple[str, str]]
) -> None:
    context, _ = build_paths
    patterns = _dockerignore_patterns(context)
    copied: list[str] = []
    for kw, args in dockerfile:
        if kw not in {"COPY", "ADD"}:
            continue
        sources, from_elsewhere = _copy_sources(args)
        if from_elsewhere:
            continue
        for source in sources:
            assert (context / source).exists(), f"COPY source {source} is missing from the build context"
            assert not _ignored(source, patterns), f"COPY source {source} is excluded by .dockerignore"
            copied.append(source.strip("/").removeprefix("./"))
    assert "pyproject.toml" in copied
    assert "graphmem" in copied


def test_dockerfile_copies_what_the_wheel_build_reads(dockerfile: list[tuple[str, str]]) -> None:
    """hatchling fails without README.md (the readme) or a force-included directory (e.g. cypher/)."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())
    wheel = project["tool"]["hatch"]["build"]["targets"]["wheel"]
    needed = {project["project"]["readme"], *wheel.get("packages", []), *wheel.get("force-include", {})}
    copied = {
        source.strip("/").removeprefix("./")
        for kw, args in dockerfile
        if kw in {"COPY", "ADD"}
        for source in _copy_sources(args)[0]
        if not _copy_sources(args)[1]
    }
    missing = {n.strip("/") for n in needed} - copied
    assert not missing, f"the Dockerfile does not copy {sorted(missing)}, which the wheel build needs"


def test_dockerignore_keeps_the_context_small(build_paths: tuple[Path, Path]) -> None:
    context, _ = build_paths
    patterns = _dockerignore_patterns(context)
    assert patterns, ".dockerignore is missing or empty"
    for path in (".venv", ".git", "tests", "notebooks", "benchmarks", "graphmem/__pycache__/x.pyc"):
        assert _ignored(path, patterns), f"{path} is sent to the Docker daemon"
    for path in ("pyproject.toml", "README.md", "graphmem/config.py", "cypher/schema"):
        assert not _ignored(path, patterns), f"{path} is excluded but the build needs it"


def _docker_setting_name(variable: str) -> str:
    # The neo4j image's rule: drop NEO4J_, then "__" is a literal underscore and "_" a dot.
    return variable.removeprefix("NEO4J_").replace("__", "\0").replace("_", ".").replace("\0", "_")


def test_neo4j_container_gets_the_managed_servers_index_settings(
    services: dict[str, dict[str, Any]], tmp_path: Path
) -> None:
    from graphmem.neo4j_local.manager import LocalNeo4j

    conf = LocalNeo4j(Settings(cache_dir=tmp_path)).write_config().read_text()
    managed = dict(line.split("=", 1) for line in conf.splitlines() if line.startswith("internal."))
    assert managed, "the managed server's config sets no internal.* index settings"
    env = _environment(services["neo4j"])
    in_container = {_docker_setting_name(k): v for k, v in env.items() if k.startswith("NEO4J_internal_")}
    assert set(in_container) == set(managed)
    default = str(Settings.model_fields["neo4j_vector_merge_factor"].default)
    for name, value in in_container.items():
        assert value == "${GRAPHMEM_NEO4J_VECTOR_MERGE_FACTOR:-" + default + "}", name


def test_interpolate_follows_compose_rules() -> None:
    env = {"SET": "x", "EMPTY": ""}
    assert interpolate("${SET:-d}/${EMPTY:-d}/${EMPTY-d}/${UNSET-d}/${SET}/${UNSET}/$$HOME", env) == "x/d//d/x//$HOME"
    assert interpolate("${SET:?needed}", env) == "x"
    with pytest.raises(AssertionError, match="without EMPTY: needed"):
        interpolate("${EMPTY:?needed}", env)


def test_graphmem_service_has_a_token_out_of_the_box(
    services: dict[str, dict[str, Any]], monkeypatch: pytest.MonkeyPatch
) -> None:
    """`graphmem serve` refuses to start when no token is configured: with nothing exported but the password, the
    service's command and environment must give it one (the demo token it prints)."""
    env = service_environment(services["graphmem"], {PASSWORD_VAR: "a-long-secret",
                                                      SIGNING_VAR: "k1:a-long-signing-secret"})
    for key in [k for k in os.environ if k.startswith("GRAPHMEM_")]:
        monkeypatch.delenv(key)
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    assert "--demo-token" in command_words(services["graphmem"]), "serve would refuse to start: no token configured"
    settings, line = with_demo_token(Settings(), env.get(DEMO_TOKEN_ENV))
    token = line.rsplit(": ", 1)[1]
    assert TokenStore.from_settings(settings).authenticate(f"Bearer {token}").name == DEMO_TOKEN_NAME


def test_signing_key_is_required_from_env(services: dict[str, dict[str, Any]]) -> None:
    """The store refuses to start without a signing key: compose must demand one, as it demands the password
    (a default key committed here would be everyone's key)."""
    value = _environment(services["graphmem"]).get(SIGNING_VAR, "")
    assert REQUIRED_SIGNING.fullmatch(value), f"{SIGNING_VAR} must be required from the environment, got {value!r}"
    with pytest.raises(AssertionError, match=SIGNING_VAR):
        service_environment(services["graphmem"], {PASSWORD_VAR: "a-long-secret"})


def test_the_image_runs_the_same_command_as_compose(
    services: dict[str, dict[str, Any]], dockerfile: list[tuple[str, str]]
) -> None:
    cmd = [_exec_form_or_words(args) for kw, args in dockerfile if kw == "CMD"]
    assert cmd, "the Dockerfile has no CMD"
    assert cmd[-1] == command_words(services["graphmem"])


def test_neo4j_container_gets_the_managed_servers_browser_settings(
    services: dict[str, dict[str, Any]], tmp_path: Path
) -> None:
    """Browser in Docker loads graphmem's style and guide from the published API port, as the local server does."""
    from graphmem.neo4j_local.manager import LocalNeo4j

    port = _published_ports(services["graphmem"])[0][1]
    conf = LocalNeo4j(Settings(cache_dir=tmp_path, api_port=port)).write_config().read_text()
    managed = dict(line.split("=", 1) for line in conf.splitlines() if line.startswith("browser."))
    assert set(managed) == {"browser.remote_content_hostname_whitelist", "browser.post_connect_cmd"}
    env = _environment(services["neo4j"])
    in_container = {_docker_setting_name(k): v for k, v in env.items() if k.startswith("NEO4J_browser_")}
    assert in_container == managed
