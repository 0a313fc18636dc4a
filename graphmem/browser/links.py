"""Where Browser finds graphmem's guide and style, and the Neo4j settings that load them after login.

Browser runs the post-connect command at each login, not when Neo4j starts: a server started alone
(`graphmem neo4j start`) points at the API of the same settings (``GRAPHMEM_API_PORT``), and the guide loads once
that API runs. When it does not, Browser shows a "Remote guide error" frame naming the URL and keeps its default
style; ``GRAPHMEM_BROWSER_GUIDE=false`` leaves both settings out."""

from __future__ import annotations

from dataclasses import dataclass

from graphmem.config import Settings

GUIDE_PATH = "/browser/guide.html"
STYLE_PATH = "/browser/graphmem.grass"
_ANY_HOST = {"0.0.0.0", "::", ""}  # noqa: S104 - a listen address, not a bind


@dataclass(frozen=True)
class BrowserLinks:
    """The API's URL as the person's web browser reaches it, and what Browser is told from there."""

    api_url: str

    @classmethod
    def from_settings(cls, settings: Settings) -> BrowserLinks:
        host = "127.0.0.1" if settings.api_host in _ANY_HOST else settings.api_host
        return cls(f"http://{host}:{settings.api_port}")

    @property
    def guide_url(self) -> str:
        return self.api_url + GUIDE_PATH

    @property
    def style_url(self) -> str:
        return self.api_url + STYLE_PATH

    @property
    def play_command(self) -> str:
        return f":play {self.guide_url}"

    @property
    def style_command(self) -> str:
        return f":style {self.style_url}"

    @property
    def post_connect_cmd(self) -> str:
        """``browser.post_connect_cmd``: Browser runs each ``;``-separated command with a ``:`` in front."""
        return f"style {self.style_url}; play {self.guide_url}"

    @property
    def hostname_allowlist(self) -> str:
        """``browser.remote_content_hostname_whitelist`` (Neo4j 5.26's name; 2025 releases call it ``_allowlist``
        and refuse this one): Browser compares host names only, not ports."""
        host = self.api_url.split("://", 1)[1].rsplit(":", 1)[0]
        return ",".join(dict.fromkeys(["localhost", "127.0.0.1", host]))

    def neo4j_conf_lines(self) -> list[str]:
        return [f"browser.remote_content_hostname_whitelist={self.hostname_allowlist}",
                f"browser.post_connect_cmd={self.post_connect_cmd}"]
