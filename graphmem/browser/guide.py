"""The guide: ``cypher/browser/*.cypher`` rendered as Neo4j Browser slides (``:play <url>``).

Each file is one saved query with a header: ``// Title:``, ``// Shows:`` (may run on over several lines),
``// Parameters:`` and ``// Returns:``. The first slide sets every parameter at once with ``:params``; each
other slide holds one query in a ``<pre class="runnable">`` (a click puts it in Browser's editor). The test
(tests/integration/test_browser_guide.py) parses the served page and runs exactly these blocks."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from html import escape
from typing import Any

from graphmem.errors import ConfigError
from graphmem.store.cypher import CypherLoader

FOLDER = "browser"
DEFAULT_PARAMS: dict[str, Any] = {"namespace": "locomo-conv-26", "memory": None, "task": None, "limit": 25}
"""What the first slide sets: the LoCoMo demo conversation that scripts/run.sh imports; no memory or task
picked (each query then takes the best-connected one); at most 25 rows or seeds."""
_PARAM = re.compile(r"\$(\w+)")
_KEY = re.compile(r"^//\s*(Title|Shows|Parameters|Returns):\s*(.*)$")


@dataclass(frozen=True)
class SavedQuery:
    name: str  # e.g. "browser/04_overview_graph"
    title: str
    shows: str
    parameters: tuple[str, ...]
    returns: str
    statement: str


def _header(text: str) -> dict[str, str]:
    fields: dict[str, str] = {}
    key = ""
    for line in text.splitlines():
        if not line.startswith("//"):
            break
        if m := _KEY.match(line):
            key = m[1]
            fields[key] = m[2].strip()
        elif key:
            fields[key] += " " + line.removeprefix("//").strip()
    return fields


def saved_queries(loader: CypherLoader | None = None) -> list[SavedQuery]:
    """The guide's queries in file order; a header that misses a field or a parameter fails loudly."""
    load = loader or CypherLoader()
    queries = []
    for name in load.names(FOLDER):
        fields = _header((load.root / f"{name}.cypher").read_text(encoding="utf-8"))
        missing = {"Title", "Shows", "Parameters", "Returns"} - set(fields)
        if missing:
            raise ConfigError(f"cypher {name}: header lacks {sorted(missing)}")
        statement = str(load(name))
        declared = tuple(_PARAM.findall(fields["Parameters"]))
        used = set(_PARAM.findall(statement))
        if used != set(declared) or not used <= set(DEFAULT_PARAMS):
            raise ConfigError(f"cypher {name}: uses {sorted(used)}, header says {list(declared)}, the guide "
                              f"sets {sorted(DEFAULT_PARAMS)}")
        queries.append(SavedQuery(name, fields["Title"], fields["Shows"], declared, fields["Returns"], statement))
    return queries


def params_command(params: dict[str, Any] | None = None) -> str:
    """Browser's ``:params {...}`` (JSON is one form it parses), replacing every parameter."""
    return ":params " + json.dumps(DEFAULT_PARAMS if params is None else params)


def _slide(title: str, body: str) -> str:
    return f'<slide class="row-fluid">\n<div class="col-sm-12">\n<h3>{escape(title)}</h3>\n{body}\n</div>\n</slide>'


def _runnable(text: str) -> str:
    return f'<figure><pre mode="cypher" class="pre-scrollable code runnable">{escape(text)}</pre></figure>'


def _intro(queries: list[SavedQuery]) -> str:
    items = "\n".join(f"<li>{escape(q.title)}</li>" for q in queries)
    return _slide("graphmem: the memory graph", f"""<p class="lead">Memories (blue, captioned by their title;
a task's summary pink), the entities they are about (orange), tasks (green) and their turns (beige), joined by typed
edges. Click a
block to put it in the editor, then run it (Ctrl-Enter).</p>
<p>First set the parameters every query uses: <code>namespace</code> (the next slide lists them),
<code>memory</code> (an id or a word of a memory's content; null: the best-connected one), <code>task</code>
(an id or title; null: the latest) and <code>limit</code>.</p>
{_runnable(params_command())}
<p>Change one later with e.g. <code>:param namespace =&gt; 'demo'</code>. The slides:</p>
<ol>{items}</ol>
<p>Kind and status are properties, not labels, so the colours tell the node's type; the tables show kinds
and statuses. The graph model: docs/graph.md.</p>""")


def guide_html(queries: list[SavedQuery] | None = None) -> str:
    """The whole guide page (``<article class="guide">`` of ``<slide>`` elements)."""
    chosen = saved_queries() if queries is None else queries
    slides = [_intro(chosen)]
    for q in chosen:
        params = ", ".join(f"<code>${p}</code>" for p in q.parameters) or "none"
        slides.append(_slide(q.title, f"<p>{escape(q.shows)}</p>\n{_runnable(q.statement)}\n"
                                      f"<p><small>Parameters: {params}. Returns: {escape(q.returns.rstrip('.'))}. "
                                      f"Source: <code>cypher/{escape(q.name)}.cypher</code></small></p>"))
    body = "\n".join(slides)
    return (f'<!doctype html>\n<html><head><meta charset="utf-8"><title>graphmem</title></head><body>\n'
            f'<article class="guide">\n<carousel class="deck container-fluid">\n{body}\n</carousel>\n'
            f"</article>\n</body></html>\n")
