"""GraphiQL without a CDN: strawberry's own page, its scripts and styles served by the app.

Strawberry's GraphiQL page loads React, GraphiQL and the explorer plugin from unpkg.com, which many networks (and
this project's CI) cannot reach: the page stays a blank "Loading...". ``fetch_assets`` (run by scripts/setup.sh)
takes the very files the page names, at the versions it pins, from the npm registry with ``npm pack``, and checks
each against the page's own ``integrity`` (sha384) hash before keeping it. ``page`` rewrites the page to load them
from ``ASSETS_PATH``; the browser checks the same hashes again. With ``token`` (the demo), the headers editor
starts with ``Authorization: Bearer <token>``."""

from __future__ import annotations

import argparse
import base64
import hashlib
import json
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
from dataclasses import dataclass
from pathlib import Path

from starlette.responses import HTMLResponse
from starlette.routing import Mount
from starlette.staticfiles import StaticFiles
from strawberry.http.ides import get_graphql_ide_html

from graphmem.config import Settings

ASSETS_PATH = "/graphiql-assets"
_CDN = "https://unpkg.com/"
_ASSET = re.compile(r'(?:src|href)="https://unpkg\.com/(?P<path>[^"]+)"\s+integrity="(?P<integrity>[^"]+)"')
_PACKAGE = re.compile(r"^(?P<name>(?:@[^/@]+/)?[^/@]+)@(?P<version>[^/]+)/(?P<file>.+)$")
EXAMPLE_QUERY = """# graphmem: search the memories your token may read (the token is in the Headers tab below).
# Each result says why: its score parts, and the edges that led to it from a seed.
query Search {
  search(query: "What did Caroline research?", k: 5) {
    results {
      score
      memory { id kind content }
      parts { similarity fused expansion recency }
      path { sourceId type targetId }
    }
  }
}
"""


@dataclass(frozen=True)
class Asset:
    package: str
    version: str
    file: str  # inside the package
    integrity: str  # "sha384-<base64>"

    @property
    def path(self) -> str:
        """Where the page asks for it, under the CDN or ``ASSETS_PATH``: ``<package>@<version>/<file>``."""
        return f"{self.package}@{self.version}/{self.file}"


def strawberry_page() -> str:
    return get_graphql_ide_html(graphql_ide="graphiql")


def assets(html: str | None = None) -> list[Asset]:
    """The scripts and styles the page loads, with the hashes it pins."""
    found = []
    for m in _ASSET.finditer(html if html is not None else strawberry_page()):
        p = _PACKAGE.match(m["path"])
        if p is None:
            raise ValueError(f"unexpected asset path {m['path']!r}")
        found.append(Asset(p["name"], p["version"], p["file"], m["integrity"]))
    return found


def integrity_of(data: bytes) -> str:
    return "sha384-" + base64.b64encode(hashlib.sha384(data).digest()).decode()


def missing(directory: Path) -> list[str]:
    """The assets not (or not correctly) under ``directory``; empty when the page can be served offline."""
    return [a.path for a in assets() if not (directory / a.path).is_file()
            or integrity_of((directory / a.path).read_bytes()) != a.integrity]


def page(*, token: str | None = None, example: str = EXAMPLE_QUERY) -> str:
    """Strawberry's GraphiQL page, loading its assets from ``ASSETS_PATH``; ``token`` pre-fills the headers."""
    html = strawberry_page().replace(_CDN, f"{ASSETS_PATH}/")
    if _CDN.rstrip("/") in html:
        raise ValueError("the GraphiQL page still names the CDN")
    headers = json.dumps(json.dumps({"Authorization": f"Bearer {token}"}, indent=2)) if token else "undefined"
    html = html.replace("React.useState(parameters.headers)",
                        f"React.useState(parameters.headers || {headers})", 1)
    return re.sub(r"const EXAMPLE_QUERY = `.*?`;", lambda _: f"const EXAMPLE_QUERY = {json.dumps(example)};",
                  html, count=1, flags=re.S)


_NO_ASSETS = """<!doctype html><meta charset="utf-8"><title>graphmem: GraphiQL assets missing</title>
<h1>GraphiQL cannot load: its scripts are not installed</h1>
<p>The API works (POST JSON to this URL with <code>Authorization: Bearer &lt;token&gt;</code>). To use GraphiQL,
fetch its scripts and styles once with <code>./scripts/setup.sh</code> (or
<code>python -m graphmem.api.graphiql --into {directory}</code>) and reload. Missing: {missing}.</p>"""


class GraphiQLPage:
    """The page and its assets route for one app; the page is built once the assets are in place."""

    def __init__(self, settings: Settings) -> None:
        self.directory = settings.graphiql_dir
        self.token = settings.graphiql_token.get_secret_value() if settings.graphiql_token else None
        self._html: str | None = None

    def response(self) -> HTMLResponse:
        if self._html is None:
            if gaps := missing(self.directory):
                return HTMLResponse(_NO_ASSETS.format(directory=self.directory, missing=", ".join(gaps)), 503)
            self._html = page(token=self.token)
        return HTMLResponse(self._html)

    def assets(self) -> Mount:
        return Mount(ASSETS_PATH, app=StaticFiles(directory=self.directory, check_dir=False))


def fetch_assets(directory: Path, *, npm: str = "npm") -> list[Asset]:
    """Put every asset the page needs under ``directory`` (``npm pack`` from the registry), hash-checked.
    Files already there with the right hash are kept; raises RuntimeError on a hash mismatch."""
    wanted = [a for a in assets() if a.path in set(missing(directory))]
    packages = sorted({(a.package, a.version) for a in wanted})
    with tempfile.TemporaryDirectory() as tmp:
        for name, version in packages:
            out = subprocess.run([npm, "pack", f"{name}@{version}", "--silent", "--pack-destination", tmp],
                                 capture_output=True, text=True, check=False)
            if out.returncode != 0:
                raise RuntimeError(f"npm pack {name}@{version} failed: {out.stderr.strip()[-500:]}")
            tarball = Path(tmp) / out.stdout.strip().splitlines()[-1]
            with tarfile.open(tarball) as tar:
                for a in (a for a in wanted if (a.package, a.version) == (name, version)):
                    member = tar.extractfile(f"package/{a.file}")
                    if member is None:
                        raise RuntimeError(f"{name}@{version} has no {a.file}")
                    data = member.read()
                    if integrity_of(data) != a.integrity:
                        raise RuntimeError(f"{a.path}: hash {integrity_of(data)} is not the pinned {a.integrity}")
                    target = directory / a.path
                    target.parent.mkdir(parents=True, exist_ok=True)
                    target.write_bytes(data)
    return wanted


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Fetch GraphiQL's assets for offline serving.")
    parser.add_argument("--into", type=Path, required=True)
    args = parser.parse_args(argv)
    if shutil.which("npm") is None:
        print("graphiql: npm not found; GraphiQL will not load offline (the API works)", file=sys.stderr)
        return 1
    try:
        fetched = fetch_assets(args.into)
    except RuntimeError as e:
        print(f"graphiql: {e}", file=sys.stderr)
        return 1
    print(f"graphiql: {len(fetched)} assets fetched, {len(assets()) - len(fetched)} already in {args.into}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
