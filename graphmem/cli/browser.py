"""``graphmem browser``: where Neo4j Browser is, how to log in, and the first command to type."""

from __future__ import annotations

import click

from graphmem.browser import BrowserLinks
from graphmem.config import Settings
from graphmem.neo4j_local import LocalNeo4j


@click.command("browser")
@click.option("--show-password", is_flag=True, help="Print the Neo4j password too (else: where it comes from).")
def browser(show_password: bool) -> None:
    """Print Neo4j Browser's URL, the login, and the command that opens graphmem's guide."""
    settings = Settings()
    status = LocalNeo4j(settings).status()
    links = BrowserLinks.from_settings(settings)
    password = settings.neo4j_password.get_secret_value() if show_password else "$GRAPHMEM_NEO4J_PASSWORD"
    state = f"running (pid {status.pid})" if status.running else "not running here: `graphmem neo4j start`"
    click.echo(f"Neo4j Browser:  {status.browser_url}   ({state})\n"
               f"  connect URL:  {status.bolt_uri}\n"
               f"  user:         {settings.neo4j_user}   password: {password}\n"
               f"  first command (the guide of saved queries; needs `graphmem serve`):\n"
               f"    {links.play_command}\n"
               f"  graphmem's style (loaded after login when the API runs; to load it by hand):\n"
               f"    {links.style_command}")
