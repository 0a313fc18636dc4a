"""Bearer tokens and the principals they stand for.

Only SHA-256 hashes of tokens are stored. The token file (YAML, or JSON) looks like::

    tokens:
      - name: alice                # unique; the rate-limit key and what logs show
        sha256: 9f86d081...        # 64 hex digits: sha256 of the token (``graphmem token create`` prints both)
        read: [alice-notes]        # namespaces it may read
        write: [alice]             # namespaces it may write (writing implies reading)
        shared: true               # may read Settings.shared_namespace
        admin: false               # reads and writes every namespace
        trust: 1.0                 # 0..1, default 1: stamped (signed) on every memory it writes, weighs in ranking

Rights in short: ``write`` implies read; the shared namespace is readable by ``shared`` tokens and writable only
by admins and tokens that list it in ``write``; admins may do anything but must name the namespaces they read.
``trust`` is provenance, not a right: what it writes is stamped ``writer = name, trust = trust``, signed with the
memory, and a search weighs it (``graphmem.retrieval.ranking``) or keeps it apart (``SearchOptions.min_trust``).
A refusal never says whether the namespace exists: it is decided from the token alone.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import re
import secrets
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from graphmem.errors import ConfigError, ForbiddenError, UnauthenticatedError
from graphmem.models import check_namespace

if TYPE_CHECKING:
    from graphmem.config import Settings

TOKEN_PREFIX = "gm_"  # noqa: S105 - a prefix, not a secret
NAME_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.@-]{0,63}$")
SHA256_RE = re.compile(r"^[0-9a-fA-F]{64}$")
_ENTRY_KEYS = frozenset({"name", "sha256", "read", "write", "shared", "admin", "trust"})
_MAX_TOKEN_CHARS = 512


def _show(ns: str) -> str:
    text = repr(ns)
    return text if len(text) <= 80 else text[:77] + "..."


@dataclass(frozen=True)
class Principal:
    """Who a request acts for, and the namespaces it may touch."""

    name: str
    read: frozenset[str] = frozenset()
    write: frozenset[str] = frozenset()
    shared: bool = False
    """May read the shared namespace."""
    admin: bool = False
    """Reads and writes every namespace."""
    shared_namespace: str = "shared"
    """The name of the shared namespace (Settings.shared_namespace)."""
    trust: float = 1.0
    """How far what it writes is trusted (0..1): stamped on each memory it writes (``Memory.trust``)."""

    def _can_read(self, ns: str, shared_ns: str) -> bool:
        return self.admin or ns in self.read or ns in self.write or (self.shared and ns == shared_ns)

    def can_read(self, ns: str) -> bool:
        return self._can_read(ns, self.shared_namespace)

    def can_write(self, ns: str) -> bool:
        return self.admin or ns in self.write

    def _denied(self, action: str, ns: str) -> str:
        return f"token {self.name!r} may not {action} namespace {_show(ns)}"

    def require_read(self, ns: str) -> None:
        if not self.can_read(ns):
            raise ForbiddenError(self._denied("read", ns))

    def require_admin(self) -> None:
        if not self.admin:
            raise ForbiddenError(f"token {self.name!r} is not an admin token")

    def require_write(self, ns: str) -> None:
        if not self.can_write(ns):
            raise ForbiddenError(self._denied("write", ns))

    def readable(self, requested: Sequence[str] | None = None, shared_ns: str | None = None) -> tuple[str, ...]:
        """The namespaces a read should cover.

        ``None``: every namespace of the principal's own (sorted), then the shared one when allowed; an admin must
        name them instead. Otherwise each requested namespace must be readable (ForbiddenError names the first
        that is not); order is kept and duplicates dropped. ``shared_ns`` defaults to ``self.shared_namespace``.
        """
        shared = self.shared_namespace if shared_ns is None else shared_ns
        if isinstance(requested, str):
            raise TypeError("requested must be a sequence of namespaces, not a str")
        if requested is None:
            if self.admin:
                raise ForbiddenError(f"token {self.name!r} is an admin token: name the namespaces to read")
            own = sorted(self.read | self.write)
            if self.shared and shared not in own:
                own.append(shared)
            return tuple(own)
        out: dict[str, None] = {}
        for ns in requested:
            if not self._can_read(ns, shared):
                raise ForbiddenError(self._denied("read", ns))
            out.setdefault(ns, None)
        return tuple(out)


@dataclass(frozen=True)
class TokenEntry:
    """One validated line of the token file (build it with :func:`make_entry` or :func:`parse_token_entries`)."""

    name: str
    sha256: str
    read: tuple[str, ...] = ()
    write: tuple[str, ...] = ()
    shared: bool = False
    admin: bool = False
    trust: float = 1.0

    def principal(self, shared_namespace: str = "shared") -> Principal:
        return Principal(self.name, frozenset(self.read), frozenset(self.write), self.shared, self.admin,
                         shared_namespace, self.trust)

    def to_dict(self) -> dict[str, object]:
        return {"name": self.name, "sha256": self.sha256, "read": list(self.read), "write": list(self.write),
                "shared": self.shared, "admin": self.admin, "trust": self.trust}


def hash_token(token: str) -> str:
    """The hex SHA-256 of a token, as stored in the token file."""
    return hashlib.sha256(token.encode("utf-8", "surrogatepass")).hexdigest()


def new_token() -> tuple[str, str]:
    """A fresh token (``gm_`` + 43 url-safe chars, 256 bits) and its SHA-256 hex digest."""
    token = TOKEN_PREFIX + secrets.token_urlsafe(32)
    return token, hash_token(token)


# --- validation ------------------------------------------------------------------------------------------------


def _namespaces(value: object, where: str, key: str) -> tuple[str, ...]:
    if value is None:
        return ()
    if not isinstance(value, list | tuple):
        raise ConfigError(f"{where}: {key!r} must be a list of namespaces, got {type(value).__name__}")
    out: dict[str, None] = {}
    for item in value:
        if not isinstance(item, str):
            raise ConfigError(f"{where}: {key!r} holds a {type(item).__name__}, namespaces are strings")
        try:
            out.setdefault(check_namespace(item), None)
        except ValueError as exc:
            raise ConfigError(f"{where}: {key!r}: {exc}") from None
    return tuple(out)


def _flag(raw: Mapping[str, object], key: str, where: str) -> bool:
    value = raw.get(key, False)
    if not isinstance(value, bool):
        raise ConfigError(f"{where}: {key!r} must be true or false, got {value!r}")
    return value


def _trust(raw: Mapping[str, object], where: str) -> float:
    value = raw.get("trust", 1.0)
    if isinstance(value, bool) or not isinstance(value, int | float) or not 0.0 <= float(value) <= 1.0:
        raise ConfigError(f"{where}: 'trust' must be a number from 0 to 1, got {value!r}")
    return float(value)


def _entry(raw: object, where: str) -> TokenEntry:
    if not isinstance(raw, dict):
        raise ConfigError(f"{where}: must be a mapping with name, sha256, read, write, shared, admin, trust")
    if unknown := sorted(str(k) for k in set(raw) - _ENTRY_KEYS):
        raise ConfigError(f"{where}: unknown keys {unknown} (allowed: {sorted(_ENTRY_KEYS)})")
    name, digest = raw.get("name"), raw.get("sha256")
    if not isinstance(name, str) or not NAME_RE.fullmatch(name):
        raise ConfigError(f"{where}: 'name' must be 1-64 chars of letters, digits, '_', '.', '@', '-', "
                          f"got {name!r}")
    if not isinstance(digest, str) or not SHA256_RE.fullmatch(digest):
        raise ConfigError(f"{where}: 'sha256' must be 64 hex digits (the hash, never the token itself)")
    return TokenEntry(name=name, sha256=digest.lower(), read=_namespaces(raw.get("read"), where, "read"),
                      write=_namespaces(raw.get("write"), where, "write"), shared=_flag(raw, "shared", where),
                      admin=_flag(raw, "admin", where), trust=_trust(raw, where))


def make_entry(name: str, sha256: str, *, read: Iterable[str] = (), write: Iterable[str] = (),
               shared: bool = False, admin: bool = False, trust: float = 1.0) -> TokenEntry:
    """A validated entry (ConfigError when a name, hash, namespace or trust is bad)."""
    raw = {"name": name, "sha256": sha256, "read": list(read), "write": list(write), "shared": shared,
           "admin": admin, "trust": trust}
    return _entry(raw, f"token {name!r}")


def _unique(entries: Sequence[TokenEntry], source: str) -> None:
    names: dict[str, int] = {}
    digests: dict[str, int] = {}
    for i, e in enumerate(entries):
        if e.name in names:
            raise ConfigError(f"{source}: tokens[{i}]: duplicate name {e.name!r} (also tokens[{names[e.name]}])")
        if e.sha256 in digests:
            raise ConfigError(f"{source}: tokens[{i}]: same sha256 as tokens[{digests[e.sha256]}]")
        names[e.name] = i
        digests[e.sha256] = i


def _load_text(text: str, source: str) -> object:
    if text.lstrip().startswith(("{", "[")):
        try:
            return json.loads(text)
        except json.JSONDecodeError as exc:
            raise ConfigError(f"{source}: not valid JSON: {exc}") from None
    try:
        import yaml
    except ImportError:  # pragma: no cover - pyyaml is installed wherever YAML token files are used
        raise ConfigError(f"{source}: reading YAML needs pyyaml (pip install pyyaml), or write JSON") from None
    try:
        return yaml.safe_load(text)
    except yaml.YAMLError as exc:
        raise ConfigError(f"{source}: not valid YAML: {exc}") from None


def parse_token_entries(text: str, *, source: str = "<tokens>") -> list[TokenEntry]:
    """Validate token-file content (YAML, or JSON); ConfigError names the source and the bad entry's index."""
    data = _load_text(text, source)
    if data is None:
        data = {"tokens": []}
    if not isinstance(data, dict) or set(data) != {"tokens"}:
        raise ConfigError(f"{source}: expected a mapping with one key, 'tokens' (a list)")
    raw_entries = data["tokens"]
    if raw_entries is None:
        raw_entries = []
    if not isinstance(raw_entries, list):
        raise ConfigError(f"{source}: 'tokens' must be a list")
    entries = [_entry(raw, f"{source}: tokens[{i}]") for i, raw in enumerate(raw_entries)]
    _unique(entries, source)
    return entries


def load_token_file(path: str | os.PathLike[str]) -> list[TokenEntry]:
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ConfigError(f"tokens file {p} does not exist (create it with `graphmem token create`)") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"tokens file {p} cannot be read: {exc}") from None
    return parse_token_entries(text, source=str(p))


def _dump(entries: Sequence[TokenEntry], *, as_json: bool) -> str:
    data = {"tokens": [e.to_dict() for e in entries]}
    if as_json:
        return json.dumps(data, indent=2) + "\n"
    import yaml

    header = "# graphmem API tokens: SHA-256 hashes only, never the tokens (`graphmem token create`)\n"
    return header + yaml.safe_dump(data, sort_keys=False, default_flow_style=None)


def add_token_entry(path: str | os.PathLike[str], entry: TokenEntry) -> None:
    """Append ``entry`` to the token file (created with its folder when missing; JSON when it ends in .json).

    The file is validated first and replaced atomically; a name or hash already there is a ConfigError.
    """
    p = Path(path)
    entries = load_token_file(p) if p.exists() else []
    _unique([*entries, entry], str(p))
    p.parent.mkdir(parents=True, exist_ok=True)
    tmp = p.with_name(f".{p.name}.{os.getpid()}.tmp")
    try:
        tmp.write_text(_dump([*entries, entry], as_json=p.suffix.lower() == ".json"), encoding="utf-8")
        os.replace(tmp, p)
    finally:
        tmp.unlink(missing_ok=True)


# --- the store -----------------------------------------------------------------------------------------------------


def _check_ns_setting(value: str, setting: str) -> str:
    try:
        return check_namespace(value)
    except ValueError as exc:
        raise ConfigError(f"GRAPHMEM_{setting.upper()}: {exc}") from None


def demo_principal(settings: Settings) -> Principal:
    """The principal of header-less requests in demo mode: reads and writes ``demo_namespaces``, reads shared."""
    namespaces = frozenset(_check_ns_setting(ns, "demo_namespaces") for ns in settings.demo_namespaces)
    shared = _check_ns_setting(settings.shared_namespace, "shared_namespace")
    return Principal("demo", read=namespaces, write=namespaces, shared=True, admin=False, shared_namespace=shared)


class TokenStore:
    """Turns an ``Authorization`` header into a :class:`Principal`."""

    def __init__(self, entries: Iterable[TokenEntry] = (), *, shared_namespace: str = "shared",
                 demo: Principal | None = None) -> None:
        listed = list(entries)
        _unique(listed, "tokens")
        if demo is not None and any(e.name == demo.name for e in listed):
            raise ConfigError(f"token name {demo.name!r} is taken by the demo principal in demo mode")
        self._entries = tuple((bytes.fromhex(e.sha256), e.principal(shared_namespace)) for e in listed)
        self._demo = demo

    @classmethod
    def from_file(cls, path: str | os.PathLike[str], *, shared_namespace: str = "shared") -> TokenStore:
        return cls(load_token_file(path), shared_namespace=shared_namespace)

    @classmethod
    def from_settings(cls, settings: Settings) -> TokenStore:
        """Entries of ``tokens_file`` and ``tokens`` (GRAPHMEM_TOKENS) together; a demo principal in demo mode.

        ConfigError when no token is configured and demo mode is off: nobody could call the API.
        """
        shared = _check_ns_setting(settings.shared_namespace, "shared_namespace")
        entries: list[TokenEntry] = []
        if settings.tokens_file is not None:
            entries += load_token_file(settings.tokens_file)
        if settings.tokens is not None and settings.tokens.strip():
            entries += parse_token_entries(settings.tokens, source="GRAPHMEM_TOKENS")
        demo = demo_principal(settings) if settings.demo_mode else None
        if not entries and demo is None:
            raise ConfigError("no API tokens configured: set GRAPHMEM_TOKENS_FILE (see `graphmem token create`) "
                              "or GRAPHMEM_TOKENS, or GRAPHMEM_DEMO_MODE=true")
        return cls(entries, shared_namespace=shared, demo=demo)

    @property
    def principals(self) -> tuple[Principal, ...]:
        return tuple(p for _, p in self._entries)

    @property
    def demo(self) -> Principal | None:
        return self._demo

    def authenticate(self, authorization_header: str | None) -> Principal:
        """The principal of ``Bearer <token>``; without a header, the demo principal in demo mode.

        Every stored hash is compared (constant time each, no early exit), so timing does not tell which entry
        matched or how far the search went. A wrong token is refused even in demo mode.
        """
        if authorization_header is None or not authorization_header.strip():
            if self._demo is not None:
                return self._demo
            raise UnauthenticatedError("missing bearer token")
        parts = authorization_header.split()
        if len(parts) != 2 or parts[0].lower() != "bearer":
            raise UnauthenticatedError("missing bearer token (expected 'Authorization: Bearer <token>')")
        token = parts[1]
        if len(token) > _MAX_TOKEN_CHARS:
            raise UnauthenticatedError("invalid token")
        digest = hashlib.sha256(token.encode("utf-8", "surrogatepass")).digest()
        found: Principal | None = None
        for stored, principal in self._entries:
            if hmac.compare_digest(digest, stored) and found is None:
                found = principal
        if found is None:
            raise UnauthenticatedError("invalid token")
        return found
