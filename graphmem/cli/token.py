"""``graphmem token``: create, list and revoke API tokens.

A token is a random secret (``gm_`` + 256 bits); the token file (GRAPHMEM_TOKENS_FILE) holds only its SHA-256
with its name and rights, and GRAPHMEM_TOKENS may hold more entries inline. So listing shows names, rights and a
hash prefix (there is no secret to show), and revoking removes the entry from the token file. ``graphmem serve``
reads the tokens when it starts: a revoked token keeps working on a running server until it is restarted.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import click

from graphmem.cli.errors import CommandError
from graphmem.config import Settings
from graphmem.errors import GraphmemError
from graphmem.security.tokens import (
    TokenEntry,
    add_token_entry,
    load_token_file,
    make_entry,
    new_token,
    parse_token_entries,
)

INLINE = "GRAPHMEM_TOKENS"
_FILE_HEADER = "# graphmem API tokens: SHA-256 hashes only, never the tokens (`graphmem token create`)\n"
_FILE_OPTION = click.option("--file", "path", type=click.Path(dir_okay=False), default=None,
                            help="The token file. Default: GRAPHMEM_TOKENS_FILE.")


@click.group()
def token() -> None:
    """API tokens. Only their SHA-256 is stored; a token is shown once, when it is created."""


def _namespace_list(value: str) -> list[str]:
    return [ns.strip() for ns in value.split(",") if ns.strip()]


def _token_file(path: str | None, settings: Settings) -> Path:
    target = path or settings.tokens_file
    if target is None:
        raise click.UsageError("give --file or set GRAPHMEM_TOKENS_FILE")
    return Path(target)


@token.command("create")
@click.option("--name", required=True, help="Unique name of the caller (rate-limit key, shown in logs).")
@click.option("--read", "read_", default="", help="Comma-separated namespaces it may read.")
@click.option("--write", default="", help="Comma-separated namespaces it may write (writing implies reading).")
@click.option("--shared", is_flag=True, help="May read the shared namespace (GRAPHMEM_SHARED_NAMESPACE).")
@click.option("--admin", is_flag=True, help="May read and write every namespace.")
@click.option("--trust", type=click.FloatRange(0.0, 1.0), default=1.0, show_default=True,
              help="How far what it writes is trusted: stamped on and signed with its memories, weighed by search.")
@click.option("--file", "path", type=click.Path(dir_okay=False), default=None,
              help="Token file to append to (created if missing). Default: GRAPHMEM_TOKENS_FILE.")
def token_create(name: str, read_: str, write: str, shared: bool, admin: bool, trust: float,
                 path: str | None) -> None:
    """Create a token, append its hashed entry to the token file and print the token (once) on stdout."""
    settings = Settings()
    target = _token_file(path, settings)
    reads, writes = _namespace_list(read_), _namespace_list(write)
    if not (reads or writes or shared or admin):
        raise click.UsageError("a token needs at least one of --read, --write, --shared, --admin")
    _check_new_name(name, target, settings.tokens if path is None else None)
    secret, digest = new_token()
    try:
        add_token_entry(target, make_entry(name, digest, read=reads, write=writes, shared=shared, admin=admin,
                                              trust=trust))
    except GraphmemError as exc:
        raise CommandError.of(exc) from None
    click.echo(secret)
    click.echo(f"token {name!r} added to {target}; it is shown only now, store it safely", err=True)


def _check_new_name(name: str, target: Path, inline: str | None) -> None:
    """CONFLICT when a token of that name is in the token file (or in GRAPHMEM_TOKENS, which `graphmem serve` reads
    beside it); the file is left untouched. A token file that does not parse is INVALID_CONFIG."""
    try:
        taken = target.exists() and any(e.name == name for e in load_token_file(target))
        where = str(target)
        if not taken and inline is not None and inline.strip():
            taken, where = any(e.name == name for e in parse_token_entries(inline, source=INLINE)), INLINE
    except GraphmemError as exc:
        raise CommandError.of(exc) from None
    if taken:
        fix = "remove it there" if where == INLINE else f"revoke it first (graphmem token revoke {name})"
        raise CommandError("CONFLICT", f"a token named {name!r} exists in {where}; {fix} or pick another name")


def _rights(entry: TokenEntry) -> str:
    if entry.admin:
        return "admin (reads and writes every namespace)"
    parts = [f"read {','.join(entry.read)}" if entry.read else "", f"write {','.join(entry.write)}" if entry.write
             else "", "shared" if entry.shared else ""]
    if entry.trust < 1.0:
        parts.append(f"trust {entry.trust:g}")
    return "; ".join(p for p in parts if p)


@token.command("list")
@_FILE_OPTION
@click.option("--json", "as_json", is_flag=True, help="One JSON object per token instead of a table.")
def token_list(path: str | None, as_json: bool) -> None:
    """List the configured tokens: name, rights, the first 12 hex digits of the hash, and where each is defined
    (the token file, or GRAPHMEM_TOKENS when --file is not given). Secrets are never stored, so never shown."""
    settings = Settings()
    sources: list[tuple[str, list[TokenEntry]]] = []
    try:
        if path is not None or settings.tokens_file is not None:
            target = _token_file(path, settings)
            sources.append((str(target), load_token_file(target)))
        if path is None and settings.tokens is not None and settings.tokens.strip():
            sources.append((INLINE, parse_token_entries(settings.tokens, source=INLINE)))
    except GraphmemError as exc:
        raise CommandError.of(exc) from None
    if not sources:
        raise CommandError("INVALID_CONFIG", "no tokens configured: give --file, or set GRAPHMEM_TOKENS_FILE or "
                                             "GRAPHMEM_TOKENS")
    rows = [(e, source) for source, entries in sources for e in entries]
    if as_json:
        for entry, source in rows:
            data = {k: v for k, v in entry.to_dict().items() if k != "sha256"}
            click.echo(json.dumps({**data, "sha256_prefix": entry.sha256[:12], "source": source}))
        return
    if not rows:
        click.echo(f"no tokens in {', '.join(s for s, _ in sources)}", err=True)
        return
    width = max(len("NAME"), *(len(e.name) for e, _ in rows))
    click.echo(f"{'NAME':<{width}}  SHA256        SOURCE  RIGHTS")
    for entry, source in rows:
        click.echo(f"{entry.name:<{width}}  {entry.sha256[:12]}  {source}  {_rights(entry)}")


def remove_token_entry(path: Path, name: str) -> TokenEntry:
    """Remove the entry called ``name`` from the token file (validated first, replaced atomically, YAML or JSON as
    before). NotFound as a CommandError when no entry has that name."""
    try:
        entries = load_token_file(path)
    except GraphmemError as exc:
        raise CommandError.of(exc) from None
    removed = [e for e in entries if e.name == name]
    if not removed:
        raise CommandError("NOT_FOUND", f"no token named {name!r} in {path} (graphmem token list shows them)")
    data = {"tokens": [e.to_dict() for e in entries if e.name != name]}
    if path.suffix.lower() == ".json":
        text = json.dumps(data, indent=2) + "\n"
    else:
        import yaml

        text = _FILE_HEADER + yaml.safe_dump(data, sort_keys=False, default_flow_style=None)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        tmp.write_text(text, encoding="utf-8")
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)
    return removed[0]


@token.command("revoke")
@click.argument("name")
@_FILE_OPTION
def token_revoke(name: str, path: str | None) -> None:
    """Revoke the token NAME: remove its entry from the token file. A running `graphmem serve` read the file when it
    started and accepts the token until it is restarted. Entries in GRAPHMEM_TOKENS are removed there, by hand."""
    settings = Settings()
    target = _token_file(path, settings)
    try:
        remove_token_entry(target, name)
    except CommandError as exc:
        inline = settings.tokens if path is None and settings.tokens else ""
        if exc.code == "NOT_FOUND" and inline.strip() and any(
                e.name == name for e in parse_token_entries(inline, source=INLINE)):
            raise CommandError("INVALID_INPUT", f"token {name!r} is defined in {INLINE}, not in {target}: "
                                                f"remove it from {INLINE}") from None
        raise
    click.echo(f"token {name!r} revoked: removed from {target}; restart `graphmem serve` for it to take effect",
               err=True)
