"""Reading docker-compose.yml, the Dockerfile and .dockerignore the way `docker compose` and Docker do, for the
static checks of the Docker setup (test_compose.py, test_compose_secrets.py, test_dockerfile.py; their fixtures are
in conftest.py) and for tests/integration/test_compose_command.py."""

from __future__ import annotations

import fnmatch
import json
import re
import shlex
from collections.abc import Mapping
from pathlib import Path
from typing import Any

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


def _docker_setting_name(variable: str) -> str:
    # The neo4j image's rule: drop NEO4J_, then "__" is a literal underscore and "_" a dot.
    return variable.removeprefix("NEO4J_").replace("__", "\0").replace("_", ".").replace("\0", "_")
