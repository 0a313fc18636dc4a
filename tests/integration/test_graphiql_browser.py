"""GraphiQL in a real browser, offline: headless Chromium (Debian's chromium + chromedriver, installed by
scripts/browser-setup.sh) opens /graphql of a real `graphmem serve`, runs the pre-filled query with the
pre-filled token, and sees the memory in the result pane. Every host but 127.0.0.1 is unresolvable for the
browser, so a page that still needed a CDN would stay blank."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from urllib.parse import quote

import httpx
import pytest
from selenium import webdriver
from selenium.webdriver.chrome.options import Options
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions
from selenium.webdriver.support.ui import WebDriverWait

from graphmem.api.graphiql import missing
from graphmem.config import Settings
from graphmem.models import MemoryDraft, MemoryKind
from graphmem.neo4j_local.tools import free_port
from graphmem.security import add_token_entry, make_entry, new_token
from graphmem.service import MemoryService
from tests.integration.serve_support import serve_env, start, stop, wait_ready

CHROMIUM, CHROMEDRIVER = Path("/usr/bin/chromium"), Path("/usr/bin/chromedriver")
CONTENT = "Caroline researched adoption agencies in Boston last spring."


@pytest.fixture
def browser() -> Iterator[webdriver.Chrome]:
    if not (CHROMIUM.exists() and CHROMEDRIVER.exists()):
        pytest.fail("Chromium is not installed: run scripts/browser-setup.sh (the test command does)")
    options = Options()
    options.binary_location = str(CHROMIUM)
    for flag in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu",
                 "--host-resolver-rules=MAP * ~NOTFOUND , EXCLUDE 127.0.0.1", "--window-size=1400,1000"):
        options.add_argument(flag)
    driver = webdriver.Chrome(options=options, service=Service(str(CHROMEDRIVER)))
    try:
        yield driver
    finally:
        driver.quit()


@pytest.fixture
def server(migrated: Settings, tmp_path: Path, namespace: str) -> Iterator[tuple[str, str]]:
    """A real `graphmem serve` with a token for ``namespace`` that GraphiQL pre-fills; (url, token)."""
    if gaps := missing(migrated.graphiql_dir):
        pytest.fail(f"GraphiQL assets missing under {migrated.graphiql_dir}: {gaps} (scripts/setup.sh fetches them)")
    token, sha = new_token()
    tokens = tmp_path / "tokens.yaml"
    add_token_entry(tokens, make_entry("browser", sha, read=[namespace], write=[namespace]))
    port = free_port()
    log = tmp_path / "serve.log"
    proc = start(["graphmem", "serve"], serve_env(migrated, tokens, port, GRAPHMEM_GRAPHIQL_TOKEN=token), log)
    url = f"http://127.0.0.1:{port}"
    try:
        wait_ready(proc, url, log, timeout_s=120)
        yield url, token
    finally:
        stop([proc])


async def test_graphiql_runs_a_query_offline_with_the_prefilled_token(
        service: MemoryService, namespace: str, server: tuple[str, str], browser: webdriver.Chrome) -> None:
    await service.write_memories([MemoryDraft(namespace=namespace, kind=MemoryKind.EPISODIC, content=CONTENT)])
    url, token = server
    page = httpx.get(f"{url}/graphql", headers={"Accept": "text/html"}, timeout=10).text
    assert "unpkg.com" not in page
    assert token in page
    query = f'{{ search(query: "Where did Caroline look for adoption agencies?", namespaces: ["{namespace}"], ' \
            'k: 3) { results { memory { content } } } }'
    browser.get(f"{url}/graphql?q={quote(query)}")
    wait = WebDriverWait(browser, 60)
    wait.until(expected_conditions.element_to_be_clickable((By.CSS_SELECTOR, ".graphiql-execute-button"))).click()
    wait.until(lambda d: CONTENT in d.find_element(By.CSS_SELECTOR, ".result-window").text)
    result = browser.find_element(By.CSS_SELECTOR, ".result-window").text
    assert '"errors"' not in result  # without the pre-filled header the answer is UNAUTHENTICATED, not data
