"""Every test run signs memories with a key of its own (the store refuses to start without one), unless the
environment already names keys: the processes the tests start inherit it."""

from __future__ import annotations

import os
import secrets

os.environ.setdefault("GRAPHMEM_SIGNING_KEYS", f"test:{secrets.token_urlsafe(24)}")
