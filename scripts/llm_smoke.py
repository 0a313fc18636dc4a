"""Smoke test for the local LLM server started by scripts/llm-server.sh (llama-cpp-python + Qwen2.5-Coder-1.5B).

Runs with the project venv (needs only httpx):

    scripts/llm-server.sh start
    .venv/bin/python scripts/llm_smoke.py            # JSON-mode check + json_schema rejection check
    .venv/bin/python scripts/llm_smoke.py --bench    # also a 200-token JSON completion: latency and tokens/s

What it checks:
1. GET /v1/models answers and lists the model.
2. A chat completion with response_format {"type": "json_object", "schema": {...}} returns JSON that parses
   and fits the schema (llama-cpp-python turns the schema into a grammar, so the output is constrained).
3. response_format {"type": "json_schema", ...} (the OpenAI structured-output form) is rejected by this
   server: its request model only allows "text" and "json_object". llama-cpp-python 0.3.36 answers
   HTTP 500 {"error": {"message": "1 validation error: ... Input should be 'text' or 'json_object'",
   "type": "internal_server_error"}} (not 422). Clients talking to it must send json_object + schema.
   If a future server accepts it, this is reported, not failed.

Exit status 0 when 1 and 2 pass.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from typing import Any

import httpx

DEFAULT_BASE_URL = f"http://127.0.0.1:{os.environ.get('GRAPHMEM_LLM_PORT', '8088')}/v1"

# graphmem's own use case: pull entities and relations out of a sentence for the knowledge graph.
EXTRACTION_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "entities": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {
                    "name": {"type": "string"},
                    "type": {"type": "string", "enum": ["person", "organization", "place", "technology"]},
                },
                "required": ["name", "type"],
            },
        },
        "relations": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {
                    "source": {"type": "string"},
                    "relation": {"type": "string"},
                    "target": {"type": "string"},
                },
                "required": ["source", "relation", "target"],
            },
        },
    },
    "required": ["entities", "relations"],
}

SMOKE_TEXT = "Ada Lovelace worked with Charles Babbage in London on the Analytical Engine."

BENCH_TEXT = (
    "Neo4j, a graph database company founded in Malmo, was used by Alice Chen at Acme Corp in Berlin to build "
    "a knowledge graph. Bob Martinez from Globex in Madrid connected it to Kafka and Python. Carol Singh at "
    "Initech in Toronto added Grafana dashboards, and Dave Kim of Umbrella Labs in Seoul wrote the Rust loader."
)


def fits(obj: Any, schema: dict[str, Any], path: str = "$") -> list[str]:
    """A minimal JSON-schema check (type, properties, required, items, enum): returns the problems found."""
    problems: list[str] = []
    kind = schema.get("type")
    types: dict[str, type | tuple[type, ...]] = {
        "object": dict,
        "array": list,
        "string": str,
        "integer": int,
        "number": (int, float),
        "boolean": bool,
    }
    if kind in types and not isinstance(obj, types[kind]):
        return [f"{path}: expected {kind}, got {type(obj).__name__}"]
    if "enum" in schema and obj not in schema["enum"]:
        problems.append(f"{path}: {obj!r} not in {schema['enum']}")
    if kind == "object":
        for key in schema.get("required", []):
            if key not in obj:
                problems.append(f"{path}: missing required {key!r}")
        for key, sub in schema.get("properties", {}).items():
            if key in obj:
                problems.extend(fits(obj[key], sub, f"{path}.{key}"))
    if kind == "array" and "items" in schema:
        for i, item in enumerate(obj):
            problems.extend(fits(item, schema["items"], f"{path}[{i}]"))
    return problems


def messages_for(text: str) -> list[dict[str, str]]:
    return [
        {
            "role": "system",
            "content": "You extract a knowledge graph from text. Answer only with a JSON object with "
            "'entities' (name, type: person|organization|place|technology) and 'relations' "
            "(source, relation, target).",
        },
        {"role": "user", "content": text},
    ]


def chat(client: httpx.Client, payload: dict[str, Any]) -> tuple[httpx.Response, float]:
    t0 = time.perf_counter()
    response = client.post("/chat/completions", json=payload)
    return response, time.perf_counter() - t0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base-url", default=os.environ.get("GRAPHMEM_LLM_BASE_URL", DEFAULT_BASE_URL))
    parser.add_argument("--bench", action="store_true", help="also time a 200-token JSON completion")
    parser.add_argument("--timeout", type=float, default=600.0)
    args = parser.parse_args()

    ok = True
    with httpx.Client(base_url=args.base_url, timeout=args.timeout) as client:
        # 1. models
        models = client.get("/models")
        models.raise_for_status()
        model_ids = [m["id"] for m in models.json()["data"]]
        print(f"[models] {args.base_url}/models -> {model_ids}")
        model = model_ids[0]

        # 2. json_object + schema
        payload = {
            "model": model,
            "messages": messages_for(SMOKE_TEXT),
            "response_format": {"type": "json_object", "schema": EXTRACTION_SCHEMA},
            "temperature": 0,
            "max_tokens": 400,
        }
        response, elapsed = chat(client, payload)
        if response.status_code != 200:
            print(f"[json_object] FAIL: HTTP {response.status_code}: {response.text[:500]}")
            return 1
        body = response.json()
        content = body["choices"][0]["message"]["content"]
        usage = body.get("usage", {})
        print(f"[json_object] {elapsed:.2f} s, usage {usage}, finish_reason {body['choices'][0]['finish_reason']}")
        print(f"[json_object] content: {content}")
        try:
            parsed = json.loads(content)
        except json.JSONDecodeError as exc:
            print(f"[json_object] FAIL: content does not parse as JSON: {exc}")
            return 1
        problems = fits(parsed, EXTRACTION_SCHEMA)
        names = {e["name"] for e in parsed.get("entities", []) if isinstance(e, dict)}
        if not parsed.get("entities"):
            problems.append("no entities extracted")
        if problems:
            ok = False
            print(f"[json_object] FAIL: does not fit the schema: {problems}")
        else:
            print(f"[json_object] OK: parses and fits the schema; entities {sorted(names)}")

        # 3. json_schema (OpenAI structured outputs) must be rejected by this server
        payload = {
            "model": model,
            "messages": messages_for(SMOKE_TEXT),
            "response_format": {
                "type": "json_schema",
                "json_schema": {"name": "extraction", "schema": EXTRACTION_SCHEMA, "strict": True},
            },
            "temperature": 0,
            "max_tokens": 50,
        }
        response, elapsed = chat(client, payload)
        if response.status_code == 200:
            print(
                "[json_schema] NOTE: accepted (HTTP 200) by this server, contrary to the developers' guide; "
                f"content: {response.json()['choices'][0]['message']['content'][:200]!r}"
            )
        else:
            print(f"[json_schema] rejected as expected: HTTP {response.status_code} in {elapsed:.2f} s")
            print(f"[json_schema] error: {response.text[:1000]}")

        # 4. benchmark: exactly 200 generated tokens of JSON (max_tokens cuts it; the input asks for more)
        if args.bench:
            payload = {
                "model": model,
                "messages": messages_for(BENCH_TEXT),
                "response_format": {"type": "json_object", "schema": EXTRACTION_SCHEMA},
                "temperature": 0,
                "max_tokens": 200,
            }
            response, elapsed = chat(client, payload)
            response.raise_for_status()
            body = response.json()
            usage = body["usage"]
            done = usage["completion_tokens"]
            print(
                f"[bench] 200-token JSON completion: latency {elapsed:.2f} s, usage {usage}, "
                f"finish_reason {body['choices'][0]['finish_reason']}"
            )
            print(
                f"[bench] {done / elapsed:.1f} completion tokens/s end to end "
                f"(incl. {usage['prompt_tokens']} prompt tokens of prompt processing)"
            )
            print(f"[bench] content (first 300 chars): {body['choices'][0]['message']['content'][:300]}")
            # Same request streamed: time to first token vs. the decode rate after it.
            t0 = time.perf_counter()
            first = last = 0.0
            chunks = 0
            with client.stream("POST", "/chat/completions", json={**payload, "stream": True}) as stream:
                stream.raise_for_status()
                for line in stream.iter_lines():
                    if not line.startswith("data: ") or line == "data: [DONE]":
                        continue
                    delta = json.loads(line[6:])["choices"][0].get("delta", {})
                    if delta.get("content"):
                        last = time.perf_counter() - t0
                        first = first or last
                        chunks += 1
            if chunks > 1:
                print(
                    f"[bench] streamed: first token after {first:.2f} s, {chunks} content chunks by {last:.2f} s, "
                    f"decode {(chunks - 1) / (last - first):.1f} tokens/s"
                )

    print("llm smoke: OK" if ok else "llm smoke: FAILED")
    return 0 if ok else 1


if __name__ == "__main__":
    try:
        sys.exit(main())
    except httpx.HTTPError as exc:
        cache = os.environ.get("GRAPHMEM_CACHE_DIR", os.path.expanduser("~/.cache/graphmem"))
        print(f"llm smoke: FAILED: {type(exc).__name__}: {exc} (server log: {cache}/llm/server.log)")
        sys.exit(1)
