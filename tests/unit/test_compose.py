"""Static checks of docker-compose.yml (no Docker engine needed).

They keep the Docker setup in step with the rest of the repo: the Neo4j image is the patch that
graphmem.config.NEO4J_VERSION and graphmem/neo4j_local/pom.xml pin, ports stay on localhost, the services wait for
each other's health checks, and the Neo4j container gets the managed server's settings. The secrets are checked in
test_compose_secrets.py, the Dockerfile and .dockerignore in test_dockerfile.py.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest

from graphmem.config import NEO4J_VERSION, Settings
from tests.unit.compose_support import (
    POM_FILE,
    _docker_setting_name,
    _environment,
    _healthcheck_command,
    _published_ports,
    _version,
    command_words,
)


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
