"""Neo4j Browser, made for people: graphmem's style (GraSS) and a guide of saved queries, served by the API.

The saved queries are ``cypher/browser/*.cypher``; :mod:`graphmem.browser.guide` renders them into the guide's
slides, :mod:`graphmem.browser.routes` serves the guide and the style (with CORS: Browser fetches them from its
own origin), and :mod:`graphmem.browser.links` names the URLs and the Neo4j settings that load both after login.
"""

from graphmem.browser.guide import DEFAULT_PARAMS, SavedQuery, guide_html, saved_queries
from graphmem.browser.links import GUIDE_PATH, STYLE_PATH, BrowserLinks
from graphmem.browser.routes import STYLE_FILE, browser_routes

__all__ = ["DEFAULT_PARAMS", "GUIDE_PATH", "STYLE_FILE", "STYLE_PATH", "BrowserLinks", "SavedQuery",
           "browser_routes", "guide_html", "saved_queries"]
