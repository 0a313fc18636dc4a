"""``graphmem integrity``: signed memories (check every signature, re-sign after a key rotation, make a key)."""

from __future__ import annotations

import asyncio
import json
import secrets

import click

from graphmem.config import Settings


def _cursor(value: str | None) -> tuple[str, str]:
    if not value:
        return ("", "")
    namespace, sep, memory_id = value.partition("/")
    if not sep:
        raise click.BadParameter("a cursor is NAMESPACE/ID, as the last run printed it", param_hint="--after")
    return namespace, memory_id


def _signing_settings() -> Settings:
    """The settings, refused (``INVALID_CONFIG``) before Neo4j is reached when signing is disabled: with no key,
    every memory would pass, tampered or not."""
    from graphmem.errors import ConfigError
    from graphmem.service.integrity_ops import NO_SIGNER

    settings = Settings()
    if settings.signing_disabled:
        raise ConfigError(NO_SIGNER)
    return settings


@click.group()
def integrity() -> None:
    """Signed memories: check, re-sign, new key."""


@integrity.command("new-key")
@click.option("--id", "key_id", default=None,
              help="Key id (default: k, today's date and 6 random hex digits, e.g. k20261208-3f9a1c).")
def new_key(key_id: str | None) -> None:
    """Print a fresh 'keyid:secret' for GRAPHMEM_SIGNING_KEYS (put it first to make it the signing key)."""
    import datetime as dt

    from graphmem.errors import ConfigError
    from graphmem.security.signing import parse_keys

    kid = key_id or f"k{dt.date.today():%Y%m%d}-{secrets.token_hex(3)}"  # two keys of one day may be listed together
    line = f"{kid}:{secrets.token_urlsafe(32)}"
    try:  # the key is printed only if GRAPHMEM_SIGNING_KEYS would accept it, under the id asked for
        usable = [k.id for k in parse_keys(line)] == [kid]
    except ConfigError:
        usable = False
    if not usable:
        raise click.BadParameter(f"{kid!r}: a key id is 1-32 of letters, digits, '_', '.', '-'", param_hint="--id")
    click.echo(line)


@integrity.command("check")
@click.option("--namespace", default=None, help="Only this namespace (default: all).")
@click.option("--after", default=None, help="Resume after this NAMESPACE/ID.")
@click.option("--json", "as_json", is_flag=True, help="One JSON object instead of lines.")
def check_cmd(namespace: str | None, after: str | None, as_json: bool) -> None:
    """Verify every memory's signature; list those that fail. Exits 1 when any fails, or when signing is disabled
    (nothing to verify with)."""
    from graphmem.service.integrity_ops import check
    from graphmem.store import Store

    settings = _signing_settings()

    async def run() -> int:
        async with Store.connect(settings) as store:
            tally = await check(store, namespace=namespace, after=_cursor(after))
        if as_json:
            click.echo(json.dumps({"checked": tally.checked, "failed": [
                {"namespace": f.namespace, "id": f.id, "verdict": f.verdict.value} for f in tally.failures]}))
        else:
            for f in tally.failures:
                click.echo(f"FAILED {f.namespace}/{f.id}: {f.verdict.value}")
            click.echo(f"checked {tally.checked} memories, {len(tally.failures)} failed")
        return 1 if tally.failures else 0

    raise SystemExit(asyncio.run(run()))


@integrity.command("resign")
@click.option("--namespace", default=None, help="Only this namespace (default: all).")
@click.option("--unsigned", is_flag=True, help="Also sign unsigned memories (written before signing was on).")
@click.option("--page", type=click.IntRange(min=1), default=500, show_default=True, help="Memories per transaction.")
@click.option("--after", default=None, help="Resume after this NAMESPACE/ID (printed after every page).")
def resign_cmd(namespace: str | None, unsigned: bool, page: int, after: str | None) -> None:
    """Re-sign with the current (first) key every memory that verifies with an older listed key. Memories that
    fail verification are listed and left alone. Safe to interrupt and run again."""
    from graphmem.service.integrity_ops import Tally, resign
    from graphmem.store import Store

    settings = _signing_settings()

    async def run() -> Tally:
        last = Tally(cursor=_cursor(after))
        async with Store.connect(settings) as store:
            async for tally in resign(store, namespace=namespace, page=page, unsigned=unsigned,
                                      after=_cursor(after)):
                last = tally
                click.echo(f"resign: {tally.checked} checked, {tally.resigned} re-signed, "
                           f"cursor {tally.cursor[0]}/{tally.cursor[1]}", err=True)
        return last

    tally = asyncio.run(run())
    for f in tally.failures:
        click.echo(f"FAILED {f.namespace}/{f.id}: {f.verdict.value} (not re-signed)")
    click.echo(f"checked {tally.checked}, re-signed {tally.resigned}, {len(tally.failures)} failed")
