"""Static checks of the Dockerfile and .dockerignore (no Docker engine needed): the image exposes what compose
maps, runs compose's command as a non-root user, copies what the wheel build needs, and the build context stays
small."""

from __future__ import annotations

import re
import shlex
import tomllib
from pathlib import Path
from typing import Any

from tests.unit.compose_support import (
    ROOT,
    _copy_sources,
    _dockerignore_patterns,
    _exec_form_or_words,
    _ignored,
    _published_ports,
    command_words,
)


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


def test_the_image_runs_the_same_command_as_compose(
    services: dict[str, dict[str, Any]], dockerfile: list[tuple[str, str]]
) -> None:
    cmd = [_exec_form_or_words(args) for kw, args in dockerfile if kw == "CMD"]
    assert cmd, "the Dockerfile has no CMD"
    assert cmd[-1] == command_words(services["graphmem"])
