"""Input items as the API and MCP parse them: the bad item is named in a batch, not in a one-object operation."""

from __future__ import annotations

import pytest

from graphmem.errors import ValidationError
from graphmem.models import MAX_TAGS, MemoryDraft, Task
from graphmem.service import parse_items


def raw(content: str = "Dave lives in Paris.", **extra: object) -> dict[str, object]:
    return {"namespace": "ns", "kind": "semantic", "content": content, **extra}


def test_a_bad_item_of_a_batch_is_named_with_its_index() -> None:
    with pytest.raises(ValidationError, match=r"^item 1: tags: .*at most 32 tags") as caught:
        parse_items(MemoryDraft, [raw(), raw(tags=[f"t{i}" for i in range(MAX_TAGS + 1)])])
    assert (caught.value.item, caught.value.field) == (1, "tags")
    with pytest.raises(ValidationError, match=r"^item 0: tags: .*longer than 64"):
        parse_items(MemoryDraft, [raw(tags=["x" * 65])])


def test_draft_tags_are_cleaned_as_stored() -> None:
    (draft,) = parse_items(MemoryDraft, [raw(tags=[" Home ", "home", "", "Work"])])
    assert draft.tags == ("home", "work")


def test_a_one_object_operation_names_no_item() -> None:
    with pytest.raises(ValidationError, match=r"^agent: ") as caught:
        parse_items(Task, [{"namespace": "ns", "agent": ""}], single=True)
    assert caught.value.item is None
