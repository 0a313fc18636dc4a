"""Loading the embedder on a machine without CUDA keeps triton out of the process: nothing can use it there, and its
nanobind bindings print a leak report of some 30 lines at every interpreter exit (seen after ``graphmem import``
and every stop of the service). Run in a fresh interpreter: the check changes ``sys.modules``."""

from __future__ import annotations

import json
import subprocess
import sys

PROBE = """
import json, sys
from graphmem.config import Settings
from graphmem.embed import make_embedder
import torch
embedder = make_embedder(Settings(signing_disabled=True))
import torch.utils._triton as t
print(json.dumps({"cuda": torch.cuda.is_available(), "triton": "triton._C" in sys.modules,
                  "has_triton": t.has_triton_package(), "dim": embedder.dimension,
                  "vector": len(embedder.embed_documents(["Caroline went to the support group."])[0])}))
"""


def test_the_embedder_loads_and_works_without_triton_where_there_is_no_cuda() -> None:
    done = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True, timeout=300, check=True)
    probe = json.loads(done.stdout.strip().splitlines()[-1])
    assert probe["dim"] == probe["vector"] == 384
    if not probe["cuda"]:
        assert probe["triton"] is False
        assert probe["has_triton"] is False
        assert "nanobind" not in done.stderr
