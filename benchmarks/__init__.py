"""Benchmarks: each prints its figures and writes them to ``benchmarks/results/``.

The store refuses to start without a signing key (graphmem.security.signing); a benchmark's throwaway server gets a
throwaway key unless ``GRAPHMEM_SIGNING_KEYS`` names one (a benchmark run is a command line, like the tests).
"""

from __future__ import annotations

import os
import secrets

os.environ.setdefault("GRAPHMEM_SIGNING_KEYS", f"bench:{secrets.token_urlsafe(24)}")
