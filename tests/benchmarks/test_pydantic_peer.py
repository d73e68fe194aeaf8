"""The benchmarks' pydantic peer (``benchmarks/pydantic_models.py``) is a hand
copy of wire's model; these tests keep it from drifting: every Struct an
event can hold has a model of the same name (events: of the same tag), with
the same fields in the same order, the same required fields and defaults, the
same tags, and the same enums. A drifted copy would make the benchmarks
compare two different schemas."""

from __future__ import annotations

import enum
import inspect
from collections.abc import Mapping
from typing import Any, get_args

import msgspec
import msgspec.inspect as mi
import pytest

import wire
from tests.helpers import field_default

pytest.importorskip("pydantic")
from pydantic import BaseModel
from pydantic.fields import FieldInfo

from benchmarks import pydantic_models


def reachable(tp: Any) -> tuple[set[type[msgspec.Struct]], set[type[enum.Enum]]]:
    """The Struct classes and enums a value of type ``tp`` can hold, at any depth."""
    structs: set[type[msgspec.Struct]] = set()
    enums: set[type[enum.Enum]] = set()

    def visit(node: object) -> None:
        if isinstance(node, tuple):
            for item in node:
                visit(item)
        elif isinstance(node, mi.StructType):
            if node.cls not in structs:
                structs.add(node.cls)
                visit(node.fields)
        elif isinstance(node, mi.EnumType):
            enums.add(node.cls)
        elif isinstance(node, mi.Type | mi.Field):
            for name in node.__struct_fields__:
                visit(getattr(node, name))

    visit(mi.type_info(tp))
    return structs, enums


STRUCTS, ENUMS = reachable(wire.AgentEvent)
BY_NAME = sorted(STRUCTS, key=lambda cls: cls.__name__)
EVENTS = set(wire.AgentEvent.__args__)


def is_model(value: object) -> bool:
    return (inspect.isclass(value) and issubclass(value, BaseModel) and value.__module__ == pydantic_models.__name__
            and not value.__name__.startswith("_"))


MODELS: list[type[BaseModel]] = [v for v in vars(pydantic_models).values() if is_model(v)]
MODEL_ENUMS: list[type[enum.Enum]] = [v for v in vars(pydantic_models).values()
                                      if inspect.isclass(v) and issubclass(v, enum.Enum)]


def tag_of(model: type[BaseModel]) -> Any:
    field = model.model_fields.get("type")
    return None if field is None else field.default


def counterpart(ours: type[msgspec.Struct]) -> type[BaseModel] | None:
    """The model of an event is the one with its tag; of anything else, the one with its name."""
    if ours in EVENTS:
        return next((m for m in MODELS if tag_of(m) == ours.__struct_config__.tag), None)
    return next((m for m in MODELS if m.__name__ == ours.__name__), None)


def json_value(value: Any) -> Any:
    return value.value if isinstance(value, enum.Enum) else value


def drift(ours: type[msgspec.Struct], theirs: Mapping[str, FieldInfo]) -> list[str]:
    """Every way a model's fields (``theirs``, its ``model_fields``) differ
    from ``ours``: names, order, required, defaults, and the tag. Empty when
    they agree."""
    found = []
    tag = ours.__struct_config__.tag
    their_fields = dict(theirs)
    if tag is not None:  # the tag is a field in pydantic, a Struct option in wire
        if ours.__struct_config__.tag_field != "type" or "type" not in their_fields:
            found.append("no type tag")
        elif (their_tag := their_fields.pop("type").default) != tag:
            found.append(f"tag {their_tag!r}, wire's is {tag!r}")
    our_fields = msgspec.structs.fields(ours)
    if [f.encode_name for f in our_fields] != list(their_fields):
        found.append(f"fields {list(their_fields)}, wire's are {[f.encode_name for f in our_fields]}")
        return found
    for info in our_fields:
        mine, field = field_default(info), their_fields[info.encode_name]
        generated = field.default_factory is not None and field.default_factory not in (list, dict)
        if field.is_required() != (info.default is msgspec.NODEFAULT and info.default_factory is msgspec.NODEFAULT):
            found.append(f"{info.name}: required is {field.is_required()}")
        elif generated != (not info.required and mine is msgspec.NODEFAULT):
            found.append(f"{info.name}: generated is {generated}")
        elif not field.is_required() and not generated:
            default = field.get_default(call_default_factory=True)
            if json_value(default) != json_value(mine) or type(json_value(default)) is not type(json_value(mine)):
                found.append(f"{info.name}: default {default!r}, wire's is {mine!r}")
    return found


def test_every_struct_an_event_holds_has_a_model_and_nothing_else_does() -> None:
    assert len(EVENTS) == 28
    missing = sorted(s.__name__ for s in STRUCTS if counterpart(s) is None)
    assert not missing, f"no pydantic model for {missing}"
    extra = sorted({m.__name__ for m in MODELS} - {c.__name__ for s in STRUCTS if (c := counterpart(s))})
    assert not extra, f"pydantic models wire does not have: {extra}"


@pytest.mark.parametrize("ours", BY_NAME, ids=[s.__name__ for s in BY_NAME])
def test_the_model_has_wires_fields_order_defaults_and_tag(ours: type[msgspec.Struct]) -> None:
    theirs = counterpart(ours)
    assert theirs is not None
    assert drift(ours, theirs.model_fields) == []


def test_the_enums_are_wires() -> None:
    assert {e.__name__ for e in MODEL_ENUMS} == {e.__name__ for e in ENUMS}
    for theirs in MODEL_ENUMS:
        ours = getattr(wire, theirs.__name__)
        assert [(m.name, m.value) for m in theirs] == [(m.name, m.value) for m in ours], theirs.__name__


def test_the_union_holds_every_event_model() -> None:
    union, _discriminator = get_args(pydantic_models.EventModel)  # Annotated[A | B | ..., Field(...)]
    adapter_tags = {tag_of(m) for m in get_args(union)}
    assert adapter_tags == {e.__struct_config__.tag for e in EVENTS}


def test_drift_is_seen() -> None:
    """The comparison can fail: a renamed field, fields reordered, a changed
    default, a changed tag, a required field made optional and a generated
    field given a fixed default are each reported."""
    fields = pydantic_models.TextBlockEnd.model_fields

    def changed(name: str, field: FieldInfo) -> dict[str, FieldInfo]:
        return {**fields, name: field}

    assert drift(wire.TextBlockEndEvent, fields) == []
    assert drift(wire.TextBlockEndEvent, {("full_text" if n == "text" else n): f for n, f in fields.items()}) != []
    assert drift(wire.TextBlockEndEvent, dict(reversed(fields.items()))) != []
    assert drift(wire.TextBlockEndEvent, changed("text", FieldInfo(annotation=str, default="x"))) != []
    assert drift(wire.TextBlockEndEvent, changed("type", FieldInfo(annotation=str, default="TEXT_BLOCK_STOP"))) != []
    assert drift(wire.TextBlockEndEvent, changed("reply_id", FieldInfo(annotation=str, default=None))) != []
    assert drift(wire.TextBlockEndEvent, changed("id", FieldInfo(annotation=str, default="fixed"))) != []
