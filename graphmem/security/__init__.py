"""Who may call the API and how often: bearer tokens (stored as SHA-256 only), namespace rights, rate limits.

Pure logic and file loading; the API layer turns a header into a :class:`Principal` with
:meth:`TokenStore.authenticate`, asks it ``require_read`` / ``require_write`` / ``readable``, and calls
:meth:`RateLimiter.check` with the principal's name.
"""

from __future__ import annotations

from graphmem.security.ratelimit import RateLimiter, TokenBucket
from graphmem.security.tokens import (
    Principal,
    TokenEntry,
    TokenStore,
    add_token_entry,
    demo_principal,
    hash_token,
    load_token_file,
    make_entry,
    new_token,
    parse_token_entries,
)

__all__ = [
    "Principal",
    "RateLimiter",
    "TokenBucket",
    "TokenEntry",
    "TokenStore",
    "add_token_entry",
    "demo_principal",
    "hash_token",
    "load_token_file",
    "make_entry",
    "new_token",
    "parse_token_entries",
]
