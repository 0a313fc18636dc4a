"""Every test run signs memories with a key of its own (the store refuses to start without one), unless the
environment already names keys: the processes the tests start inherit it."""

from __future__ import annotations

import os
import secrets

os.environ.setdefault("GRAPHMEM_SIGNING_KEYS", f"test:{secrets.token_urlsafe(24)}")
# A test process builds many services; freezing the heap as each one starts (graphmem.heap) would keep every
# earlier test's garbage cycles for the rest of the run. The tests that check the freeze turn it on themselves.
os.environ.setdefault("GRAPHMEM_GC_FREEZE", "false")
