"""Requests for the HTTP fuzz (test_http_fuzz.py). Not a test module.

- :func:`operations`: queries and mutations valid against the exported schema (hypothesis-graphql), whose strings
  are mostly the tenants' namespaces and ids or hostile text; then reshaped: arguments hoisted into variables
  (sometimes of the wrong type), aliases, duplicated fields, a named fragment, an operation name (right or wrong).
- :func:`hostile_bodies`: what is no valid request: random bytes, huge and deeply nested bodies and documents,
  batches, unknown operations, bad members.
"""

from __future__ import annotations

import json
import string
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import hypothesis_graphql as hg
from hypothesis import strategies as st
from hypothesis_graphql import nodes

import graphql
from graphql import (
    ArgumentNode,
    DocumentNode,
    FieldNode,
    FragmentDefinitionNode,
    FragmentSpreadNode,
    NamedTypeNode,
    NameNode,
    OperationDefinitionNode,
    SelectionNode,
    SelectionSetNode,
    TypeInfo,
    TypeInfoVisitor,
    VariableDefinitionNode,
    VariableNode,
    Visitor,
)

ROOT = Path(__file__).resolve().parents[2]
SDL = (ROOT / "graphql" / "schema.graphql").read_text(encoding="utf-8")
SCHEMA = graphql.build_schema(SDL)
EXAMPLES = sorted(p.read_text(encoding="utf-8") for p in (ROOT / "graphql" / "operations").glob("*.graphql"))
HOSTILE = [
    "", " ", "\n\t", "\x00", "null", "undefined", "__proto__", "' OR 1=1 --", '" OR ""="', "MATCH (n) DETACH DELETE n",
    "}) RETURN 1 //", "`x`", "$(x)", "${x}", "{{7*7}}", "%s%n%x", "../../../../etc/passwd", "\\", "\\u0000",
    "<script>alert(1)</script>", "\u202e\u200b\ufeff", "😀" * 50, "ǅ" * 10, "a" * 64, "a" * 65, "a" * 8001,
    "x" * 40_000, "SEMANTIC", "RELATES_TO", "2024-02-30T25:61:00Z", "-1", "1e309", "NaN",
]
"""Strings that break naive code: injection, escapes, controls, limits of the models' fields."""
TEXT = st.text(st.characters(codec="utf-8", exclude_categories=["Cs"]), max_size=30)
JSON_LEAVES = (st.none() | st.booleans() | st.integers(-(2**70), 2**70) | st.floats() | TEXT
               | st.sampled_from(["SEMANTIC", "USER", "FORMULA", "2024-01-01T00:00:00Z"]))
JSON_VALUES = st.recursive(JSON_LEAVES, lambda inner: st.lists(inner, max_size=4)
                           | st.dictionaries(TEXT, inner, max_size=4), max_leaves=10)
WRITE = "mutation($memories: [MemoryInput!]!) { writeMemories(memories: $memories) { items { id action } } }"
NAMES = st.text(string.ascii_letters + "_", min_size=1, max_size=12).filter(lambda s: not s[0].isdigit())


def strings(known: list[str]) -> st.SearchStrategy[str]:
    """Mostly the tenants' namespaces and ids (``known``: namespaces first, repeated to weigh them), else hostile
    or random text."""
    return st.integers(0, 9).flatmap(lambda n: st.sampled_from(known) if n < 6 else st.sampled_from(HOSTILE)
                                     if n < 8 else TEXT)


def _mostly(usual: st.SearchStrategy[Any], rare: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    """``usual`` nine times in ten."""
    return st.integers(0, 9).flatmap(lambda n: rare if n == 0 else usual)


def scalars(known: list[str]) -> dict[str, st.SearchStrategy[graphql.ValueNode]]:
    """Value nodes for hypothesis-graphql: String and ID from :func:`strings`; DateTime, Int and Float in range nine
    times in ten (an operation has many: out of range each time, hardly one would run)."""
    text = strings(known)
    valid = st.datetimes(timezones=st.none() | st.timezones()).map(lambda d: d.isoformat())
    edges = st.sampled_from(["0001-01-01T00:00:00", "9999-12-31T23:59:59.999999+14:00", "2024-01-01"])
    invalid = st.one_of(st.sampled_from(["yesterday", "", "2024-13-01T00:00:00Z"]).map(nodes.String), TEXT.map(
        nodes.String), st.integers(-(2**40), 2**40).map(nodes.Int))
    dates = st.integers(0, 9).flatmap(lambda n: invalid if n == 0 else (valid | edges).map(nodes.String))
    ints = _mostly(st.integers(1, 3), st.integers(-(2**31), 2**31 - 1) | st.sampled_from([-1, 0, 4, 200, 201]))
    floats = _mostly(st.floats(0, 1), st.floats(allow_nan=False, allow_infinity=False))
    return {"String": text.map(nodes.String), "ID": text.map(nodes.String) | st.integers().map(nodes.Int),
            "DateTime": dates, "Int": ints.map(nodes.Int), "Float": floats.map(nodes.Float)}


@dataclass(frozen=True)
class Operation:
    body: dict[str, Any]
    """The JSON request: query, and variables and operationName when drawn."""
    mutation: bool


class _Hoist(Visitor):
    """Moves the chosen arguments' literal values into variables of the argument's type."""

    def __init__(self, types: TypeInfo, choose: Callable[[], bool]) -> None:
        super().__init__()
        self.types = types
        self.choose = choose
        self.definitions: list[VariableDefinitionNode] = []
        self.values: dict[str, Any] = {}

    def enter_argument(self, node: ArgumentNode, *_: object) -> ArgumentNode | None:
        argument = self.types.get_argument()
        if argument is None or not self.choose():
            return None
        name = f"v{len(self.definitions)}"
        self.values[name] = graphql.value_from_ast_untyped(node.value)
        variable = VariableNode(name=NameNode(value=name))
        self.definitions.append(VariableDefinitionNode(variable=variable,
                                                       type=graphql.parse_type(str(argument.type))))
        return replace(node, value=variable)


def operations(known: list[str]) -> st.SearchStrategy[Operation]:
    """A valid operation of the schema (invalid in one place at times), reshaped; its variables sometimes of the
    wrong type."""
    custom = scalars(known)
    roots = {False: SCHEMA.query_type, True: SCHEMA.mutation_type}
    built: dict[tuple[bool, hg.Mode, str | None], st.SearchStrategy[str]] = {}
    for mutation, root in roots.items():
        assert root is not None
        build = hg.mutations if mutation else hg.queries
        for mode in (hg.Mode.POSITIVE, hg.Mode.NEGATIVE):
            for name in (None, *root.fields):  # None: any subset of the root fields
                built[mutation, mode, name] = build(SCHEMA, custom_scalars=custom, mode=mode,
                                                    fields=None if name is None else [name])
    return _operations(built, {mutation: sorted(root.fields) for mutation, root in roots.items() if root})


@st.composite
def _operations(draw: st.DrawFn, built: dict[tuple[bool, hg.Mode, str | None], st.SearchStrategy[str]],
                fields: dict[bool, list[str]]) -> Operation:
    mutation = draw(st.booleans())
    mode = hg.Mode.NEGATIVE if draw(st.integers(0, 5)) == 0 else hg.Mode.POSITIVE
    field = draw(st.sampled_from(fields[mutation])) if draw(st.integers(0, 3)) else None  # mostly one root field
    printed = draw(built[mutation, mode, field])
    hoist = _Hoist(TypeInfo(SCHEMA), lambda: draw(st.integers(0, 2)) == 0)
    document = graphql.visit(graphql.parse(printed), TypeInfoVisitor(hoist.types, hoist))
    (operation,) = document.definitions
    assert isinstance(operation, OperationDefinitionNode)
    operation = replace(operation, variable_definitions=tuple(hoist.definitions))
    variables = dict(hoist.values)
    if variables and draw(st.integers(0, 7)) == 0:  # one variable of any JSON value: mostly the wrong type
        variables[draw(st.sampled_from(sorted(variables)))] = draw(JSON_VALUES)
    operation, fragments = reshape(draw, operation, mutation)
    body: dict[str, Any] = {"query": graphql.print_ast(DocumentNode(definitions=(operation, *fragments)))}
    if bool(variables) or draw(st.booleans()):
        body["variables"] = variables
    if operation.name is not None and draw(st.booleans()):
        body["operationName"] = draw(st.just(operation.name.value) | NAMES)
    return Operation(body, mutation)


def reshape(draw: st.DrawFn, operation: OperationDefinitionNode,
            mutation: bool) -> tuple[OperationDefinitionNode, tuple[FragmentDefinitionNode, ...]]:
    """Aliases, duplicated root fields (past the alias limit at times), a named fragment, an operation name."""
    selections: list[SelectionNode] = list(operation.selection_set.selections)
    if draw(st.integers(0, 3)) == 0:
        alias = draw(NAMES)
        selections = [replace(node, alias=NameNode(value=f"{alias}{i}")) if isinstance(node, FieldNode) else node
                      for i, node in enumerate(selections)]
    first = selections[0]
    if isinstance(first, FieldNode) and draw(st.integers(0, 4)) == 0:
        copies = draw(st.sampled_from([2, 3, 22]))
        selections += [replace(first, alias=NameNode(value=f"copy{i}")) for i in range(copies)]
    selection_set = SelectionSetNode(selections=tuple(selections))
    fragments: tuple[FragmentDefinitionNode, ...] = ()
    if draw(st.integers(0, 3)) == 0:
        root = "Mutation" if mutation else "Query"
        fragments = (FragmentDefinitionNode(name=NameNode(value="Fields"), type_condition=NamedTypeNode(
            name=NameNode(value=root)), directives=(), selection_set=selection_set),)
        selection_set = SelectionSetNode(selections=(FragmentSpreadNode(name=NameNode(value="Fields"),
                                                                        directives=()),))
    name = NameNode(value=draw(NAMES)) if draw(st.booleans()) else None
    return replace(operation, selection_set=selection_set, name=name), fragments


def _nested(depth: int, inner: str) -> str:
    return "[" * depth + inner + "]" * depth


@st.composite
def hostile_bodies(draw: st.DrawFn, known: list[str]) -> bytes:
    """A body that is no valid request, or one whose document or variables are hostile."""
    kind = draw(st.sampled_from(["bytes", "json", "batch", "deep-json", "deep-document", "deep-list", "huge",
                                 "members", "unknown-operation", "several-operations", "example"]))
    if kind == "bytes":
        return draw(st.binary(max_size=300))
    if kind == "json":
        return json.dumps(draw(JSON_VALUES)).encode()
    if kind == "batch":
        return json.dumps([{"query": draw(st.sampled_from(EXAMPLES))} for _ in range(draw(st.integers(0, 3)))]).encode()
    if kind == "deep-json":
        depth = draw(st.sampled_from([63, 64, 65, 1000, 50_000]))
        return ('{"query": "{ __typename }", "variables": {"v": ' + _nested(depth, "1") + "}}").encode()
    if kind == "deep-document":
        depth = draw(st.sampled_from([7, 8, 9, 50, 400]))
        query = "{ task(namespace: \"x\", id: \"y\") { " + "memories { " * depth + "id" + " }" * depth + " } }"
        return json.dumps({"query": query}).encode()
    if kind == "deep-list":
        depth = draw(st.sampled_from([2, 30, 200, 1000]))
        literal = _nested(depth, json.dumps(draw(st.sampled_from(known))))
        return json.dumps({"query": f"{{ search(query: \"x\", namespaces: {literal}) {{ query }} }}"}).encode()
    if kind == "huge":
        size = draw(st.sampled_from([10_000, 1_000_000, 1_999_000, 2_100_000]))
        where = draw(st.sampled_from(["query", "content", "name"]))
        filler = "y" * size
        if where == "query":
            return json.dumps({"query": "{ __typename }" + " " * size}).encode()
        if where == "name":
            return json.dumps({"query": f"query {filler} {{ __typename }}"}).encode()
        memory = {"namespace": known[0], "kind": "SEMANTIC", "content": filler}
        return json.dumps({"query": WRITE, "variables": {"memories": [memory]}}).encode()
    if kind == "members":
        body = {key: draw(JSON_VALUES) for key in draw(st.lists(st.sampled_from(
            ["query", "variables", "operationName", "extensions", "id", "__proto__"]), unique=True))}
        return json.dumps(body).encode()
    if kind == "unknown-operation":
        return json.dumps({"query": "query A { __typename } query B { __typename }",
                           "operationName": draw(st.sampled_from([None, "", "C", "a", "A "]))}).encode()
    if kind == "several-operations":
        return json.dumps({"query": "query A { __typename } mutation A { reflect(namespace: \"x\", taskId: \"y\") "
                                    "{ taskId } }", "operationName": "A"}).encode()
    example = draw(st.sampled_from(EXAMPLES))
    names = sorted({token[1:].rstrip(":,)") for token in example.split() if token.startswith("$")})
    variables = {name: draw(st.sampled_from(known) | JSON_VALUES) for name in names if draw(st.booleans())}
    return json.dumps({"query": example, "variables": variables}).encode()
