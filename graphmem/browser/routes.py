"""The guide and the style, served by the API with the CORS headers Browser's cross-origin fetch needs.

Browser (on Neo4j's port) fetches the guide with ``Pragma`` and ``Cache-Control`` request headers, so the web
browser sends a preflight OPTIONS first; both files are public and carry no credentials (any origin may read)."""

from __future__ import annotations

from pathlib import Path

from starlette.middleware.cors import CORSMiddleware
from starlette.requests import Request
from starlette.responses import HTMLResponse, PlainTextResponse, Response
from starlette.routing import Mount, Route, Router

from graphmem.browser.guide import guide_html

STYLE_FILE = Path(__file__).with_name("graphmem.grass")


def browser_routes() -> Mount:
    """``/browser/guide.html`` and ``/browser/graphmem.grass`` (rendered and read once, at app creation)."""
    guide = guide_html()
    style = STYLE_FILE.read_text(encoding="utf-8")

    async def guide_page(request: Request) -> Response:
        return HTMLResponse(guide)

    async def style_file(request: Request) -> Response:
        return PlainTextResponse(style)

    router = Router(routes=[Route("/guide.html", guide_page), Route("/graphmem.grass", style_file)])
    app = CORSMiddleware(router, allow_origins=["*"], allow_methods=["GET"], allow_headers=["*"], max_age=600)
    return Mount("/browser", app=app)
