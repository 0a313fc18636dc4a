"""Every notebook in notebooks/ runs top to bottom against the real Neo4j (and, for reflection, the real local LLM),
in a real Jupyter kernel (nbclient), importing its own LoCoMo data, and draws at least one plot. CI runs them on the
first sessions of the conversation (GRAPHMEM_NOTEBOOK_SESSIONS); a person runs them on all of it."""

from __future__ import annotations

from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

from graphmem.config import Settings

NOTEBOOKS = sorted((Path(__file__).resolve().parents[2] / "notebooks").glob("*.ipynb"))


def test_there_are_notebooks() -> None:
    assert len(NOTEBOOKS) >= 3


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_the_notebook_runs_and_plots(path: Path, migrated: Settings, llm_base_url: str,
                                     monkeypatch: pytest.MonkeyPatch) -> None:
    for name, value in {"GRAPHMEM_NEO4J_URI": migrated.neo4j_uri, "GRAPHMEM_NEO4J_USER": migrated.neo4j_user,
                        "GRAPHMEM_NEO4J_PASSWORD": migrated.neo4j_password.get_secret_value(),
                        "GRAPHMEM_CACHE_DIR": str(migrated.cache_dir), "GRAPHMEM_LLM_BASE_URL": llm_base_url,
                        "GRAPHMEM_NOTEBOOK_SESSIONS": "3", "MPLBACKEND": "module://matplotlib_inline.backend_inline",
                        }.items():
        monkeypatch.setenv(name, value)  # the kernel inherits this process's environment (signing key included)
    notebook = nbformat.read(path, as_version=4)  # type: ignore[no-untyped-call]  # nbformat.read has no annotations
    NotebookClient(notebook, timeout=900, kernel_name="python3",
                   resources={"metadata": {"path": str(path.parent)}}).execute()
    outputs = [o for cell in notebook.cells if cell.cell_type == "code" for o in cell.get("outputs", [])]
    assert not [o for o in outputs if o.get("output_type") == "error"]
    images = [o for o in outputs if "image/png" in o.get("data", {})]
    assert images, f"{path.name} drew no plot"
    printed = "".join(o.get("text", "") for o in outputs if o.get("output_type") == "stream")
    assert "Traceback" not in printed
