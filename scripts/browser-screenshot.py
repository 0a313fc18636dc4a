"""A screenshot of graphmem's memory graph in the real Neo4j Browser, styled by graphmem's GraSS file.

Headless Chromium (scripts/browser-setup.sh) logs into the Browser of the Neo4j that the GRAPHMEM_* settings name,
applies the style, plays the guide, runs one of the guide's saved queries (a memory's neighbourhood unless
``--query`` names another) on a namespace and saves a PNG of its frame. The guide and
the style are served from this process (the same routes the API mounts under /browser), on localhost, which
Browser's default remote-content allowlist accepts: the script needs Neo4j and nothing else running.

    .venv/bin/python scripts/browser-screenshot.py --namespace locomo-conv-26 --out graphmem-browser.png
"""

from __future__ import annotations

import argparse
import threading
import time
from pathlib import Path

import uvicorn
from selenium import webdriver
from selenium.webdriver.chrome.options import Options
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.remote.webdriver import WebDriver
from selenium.webdriver.support import expected_conditions
from selenium.webdriver.support.ui import WebDriverWait
from starlette.applications import Starlette

from graphmem.browser.routes import browser_routes
from graphmem.config import Settings
from graphmem.neo4j_local.tools import free_port


def serve_guide() -> str:
    """The guide and style on a free localhost port, in a daemon thread; its base URL."""
    port = free_port()
    server = uvicorn.Server(uvicorn.Config(Starlette(routes=[browser_routes()]), host="127.0.0.1", port=port,
                                           log_level="warning"))
    threading.Thread(target=server.run, daemon=True).start()
    while not server.started:
        time.sleep(0.05)
    return f"http://localhost:{port}"


def chromium() -> WebDriver:
    options = Options()
    options.binary_location = "/usr/bin/chromium"
    for flag in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu",
                 "--window-size=1600,1100"):
        options.add_argument(flag)
    return webdriver.Chrome(options=options, service=Service("/usr/bin/chromedriver"))


def run_command(driver: WebDriver, command: str) -> None:
    """Type a command into Browser's editor and run it (Ctrl+Enter)."""
    editor = WebDriverWait(driver, 60).until(expected_conditions.element_to_be_clickable(
        (By.CSS_SELECTOR, "#monaco-main-editor, .monaco-editor")))
    editor.click()
    area = driver.switch_to.active_element
    area.send_keys(Keys.CONTROL, "a")
    area.send_keys(Keys.DELETE)
    area.send_keys(command)
    area.send_keys(Keys.CONTROL, Keys.ENTER)
    time.sleep(3)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--namespace", default="locomo-conv-26")
    parser.add_argument("--limit", type=int, default=5)
    parser.add_argument("--query", default="05_neighbourhood", help="a saved query of cypher/browser/ (its stem)")
    parser.add_argument("--out", type=Path, default=Path("graphmem-browser.png"))
    args = parser.parse_args()
    settings = Settings()
    base = serve_guide()
    bolt = settings.neo4j_uri
    driver = chromium()
    try:
        driver.get(f"http://127.0.0.1:{settings.neo4j_http_port}/browser/?dbms={bolt}&preselectAuthMethod=NATIVE")
        wait = WebDriverWait(driver, 90)
        user = wait.until(expected_conditions.presence_of_element_located(
            (By.CSS_SELECTOR, "[data-testid='username']")))
        user.clear()
        user.send_keys(settings.neo4j_user)
        password = driver.find_element(By.CSS_SELECTOR, "[data-testid='password']")
        password.send_keys(settings.neo4j_password.get_secret_value())
        driver.find_element(By.CSS_SELECTOR, "[data-testid='connect']").click()
        wait.until(expected_conditions.presence_of_element_located((By.CSS_SELECTOR, ".monaco-editor")))
        time.sleep(2)
        for close in driver.find_elements(By.CSS_SELECTOR, "[data-testid='dismissConsentBanner'], .fa-times"):
            if close.is_displayed():
                close.click()  # the usage-data banner
                break
        run_command(driver, f":style {base}/browser/graphmem.grass")
        run_command(driver, f":play {base}/browser/guide.html")
        run_command(driver, f':params {{"namespace": "{args.namespace}", "limit": {args.limit}, "memory": null, '
                            '"task": null}')
        query = (Path(__file__).resolve().parents[1] / "cypher" / "browser" / f"{args.query}.cypher").read_text()
        body = " ".join(line for line in query.splitlines() if not line.startswith("//"))
        run_command(driver, body)
        time.sleep(10)  # the force layout settles
        for fit in driver.find_elements(By.CSS_SELECTOR, "[aria-label*='fit' i], [title*='fit' i]"):
            if fit.is_displayed():
                fit.click()  # zoom to fit the whole graph
                time.sleep(3)
                break
        frames = driver.find_elements(By.CSS_SELECTOR, "[data-testid='frame']")
        (frames[0] if frames else driver).screenshot(str(args.out))  # type: ignore[union-attr]
        print(args.out.resolve())
    finally:
        driver.quit()


if __name__ == "__main__":
    main()
