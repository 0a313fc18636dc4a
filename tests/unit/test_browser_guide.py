"""The guide's saved queries, its page, the style and the neo4j.conf lines, without a server."""

from __future__ import annotations

import json
import re
from html.parser import HTMLParser
from pathlib import Path

import pytest
from starlette.applications import Starlette
from starlette.testclient import TestClient

from graphmem.browser import DEFAULT_PARAMS, STYLE_FILE, BrowserLinks, browser_routes, guide_html, saved_queries
from graphmem.browser.guide import FOLDER
from graphmem.config import Settings
from graphmem.errors import ConfigError
from graphmem.neo4j_local.manager import LocalNeo4j
from graphmem.store.cypher import CypherLoader


class Runnables(HTMLParser):
    """The text of each ``<pre class="... runnable">`` (what a click puts in Browser's editor)."""

    def __init__(self) -> None:
        super().__init__()
        self.blocks: list[str] = []
        self._inside = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "pre" and "runnable" in (dict(attrs).get("class") or "").split():
            self._inside = True
            self.blocks.append("")

    def handle_endtag(self, tag: str) -> None:
        if tag == "pre":
            self._inside = False

    def handle_data(self, data: str) -> None:
        if self._inside:
            self.blocks[-1] += data


def runnables(html: str) -> list[str]:
    parser = Runnables()
    parser.feed(html)
    return [b.strip() for b in parser.blocks]


def test_every_saved_query_is_a_runnable_block_of_the_guide() -> None:
    queries = saved_queries()
    assert len(queries) >= 10
    blocks = runnables(guide_html())
    assert json.loads(blocks[0].removeprefix(":params ")) == DEFAULT_PARAMS
    assert blocks[1:] == [q.statement for q in queries]
    assert guide_html().count("<slide") == len(queries) + 1
    titles = " ".join(q.title for q in queries).lower()
    for topic in ("overview", "neighbourhood", "task", "superseded", "hubs", "similar_to"):
        assert topic in titles, topic


def test_a_query_whose_header_misses_a_parameter_is_refused(tmp_path: Path) -> None:
    (tmp_path / FOLDER).mkdir()
    (tmp_path / FOLDER / "x.cypher").write_text("// Title: x\n// Shows: y\n// Parameters: $namespace.\n"
                                                "// Returns: n.\nMATCH (m:Memory {namespace: $namespace}) "
                                                "RETURN m LIMIT $limit\n")
    with pytest.raises(ConfigError, match="limit"):
        saved_queries(CypherLoader(tmp_path))


def test_style_captions_each_label_by_its_property() -> None:
    style = STYLE_FILE.read_text()
    rules = dict(re.findall(r"(\S+) \{([^}]*)\}", style.replace("{title}", "<title>").replace(
        "{name}", "<name>").replace("{content}", "<content>").replace("{type}", "<type>")))
    assert '"<title>"' in rules["node.Memory"]
    assert '"<name>"' in rules["node.Entity"]
    assert '"<title>"' in rules["node.Task"]
    assert '"<content>"' in rules["node.Turn"]
    assert '"<type>"' in rules["relationship"]
    for body in rules.values():  # Browser's GraSS parser keeps only "key: value" with exactly one colon
        for declaration in filter(str.strip, body.split(";")):
            assert declaration.count(":") == 1, declaration


def test_guide_and_style_are_served_with_cors() -> None:
    client = TestClient(Starlette(routes=[browser_routes()]))
    origin = {"Origin": "http://127.0.0.1:7474"}
    guide = client.get("/browser/guide.html", headers=origin)
    assert guide.status_code == 200
    assert guide.headers["access-control-allow-origin"] == "*"
    assert '<article class="guide">' in guide.text
    style = client.get("/browser/graphmem.grass", headers=origin)
    assert style.headers["access-control-allow-origin"] == "*"
    assert style.text == STYLE_FILE.read_text()
    preflight = client.options("/browser/guide.html", headers={
        **origin, "Access-Control-Request-Method": "GET", "Access-Control-Request-Headers": "pragma,cache-control"})
    assert preflight.status_code == 200
    assert "pragma" in preflight.headers["access-control-allow-headers"].lower()


def test_neo4j_conf_allows_the_api_host_and_loads_style_and_guide(tmp_path: Path) -> None:
    conf = LocalNeo4j(Settings(cache_dir=tmp_path, api_port=8123)).write_config().read_text().splitlines()
    assert "browser.remote_content_hostname_whitelist=localhost,127.0.0.1" in conf
    assert ("browser.post_connect_cmd=style http://127.0.0.1:8123/browser/graphmem.grass; "
            "play http://127.0.0.1:8123/browser/guide.html") in conf
    off = LocalNeo4j(Settings(cache_dir=tmp_path, browser_guide=False)).write_config().read_text()
    assert "browser." not in off


def test_links_for_an_api_on_every_interface() -> None:
    links = BrowserLinks.from_settings(Settings(api_host="0.0.0.0", api_port=9000))  # noqa: S104
    assert links.play_command == ":play http://127.0.0.1:9000/browser/guide.html"
    assert BrowserLinks.from_settings(Settings(api_host="gm.local")).hostname_allowlist == \
        "localhost,127.0.0.1,gm.local"
