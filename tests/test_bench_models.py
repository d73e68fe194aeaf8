"""The benchmarks' pydantic peer (``benchmarks/pydantic_models.py``) is a hand
copy of wire's model; these tests keep it from drifting: every Struct an
event can hold has a model of the same name (events: of the same tag), with
the same fields in the same order, the same required fields and defaults, the
same tags, and the same enums. A drifted copy would make the benchmarks
compare two different schemas."""

from __future__ import annotations

import enum
import inspect
from typing import Any

import msgspec
import msgspec.inspect as mi
import pytest

import wire
from tests.helpers import field_default

pytest.importorskip("pydantic")
from pydantic import BaseModel

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


def drift(ours: type[msgspec.Struct], theirs: type[BaseModel]) -> list[str]:
    """Every way ``theirs`` differs from ``ours``: fields (names, order,
    required, defaults) and the tag. Empty when they agree."""
    found = []
    tag = ours.__struct_config__.tag
    their_fields = dict(theirs.model_fields)
    if tag is not None:  # the tag is a field in pydantic, a Struct option in wire
        if ours.__struct_config__.tag_field != "type" or "type" not in their_fields:
            found.append("no type tag")
        elif their_fields.pop("type").default != tag:
            found.append(f"tag {theirs.model_fields['type'].default!r}, wire's is {tag!r}")
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
            default = field.default_factory() if field.default_factory is not None else field.default
            if json_value(default) != json_value(mine) or type(json_value(default)) is not type(json_value(mine)):
                found.append(f"{info.name}: default {default!r}, wire's is {mine!r}")
    return found


def test_every_struct_an_event_holds_has_a_model_and_nothing_else_does() -> None:
    assert len(EVENTS) == 28
    missing = sorted(s.__name__ for s in STRUCTS if counterpart(s) is None)
    assert not missing, f"no pydantic model for {missing}"
    extra = sorted({m.__name__ for m in MODELS} - {c.__name__ for s in STRUCTS if (c := counterpart(s))})
    assert not extra, f"pydantic models wire does not have: {extra}"


@pytest.mark.parametrize("ours", sorted(STRUCTS, key=lambda s: s.__name__), ids=lambda s: s.__name__)
def test_the_model_has_wires_fields_order_defaults_and_tag(ours: type[msgspec.Struct]) -> None:
    theirs = counterpart(ours)
    assert theirs is not None
    assert drift(ours, theirs) == []


def test_the_enums_are_wires() -> None:
    assert {e.__name__ for e in MODEL_ENUMS} == {e.__name__ for e in ENUMS}
    for theirs in MODEL_ENUMS:
        ours = getattr(wire, theirs.__name__)
        assert [(m.name, m.value) for m in theirs] == [(m.name, m.value) for m in ours], theirs.__name__


def test_the_union_holds_every_event_model() -> None:
    adapter_tags = {tag_of(m) for m in pydantic_models.EventModel.__origin__.__args__}
    assert adapter_tags == {e.__struct_config__.tag for e in EVENTS}


def test_drift_is_seen() -> None:
    """The comparison can fail: a renamed field, a field moved, a changed
    default, a changed tag and a field made optional are each reported."""
    from pydantic import create_model

    def doctored(**fields: Any) -> type[BaseModel]:
        base = {name: (f.annotation, f) for name, f in pydantic_models.TextBlockEnd.model_fields.items()}
        model: type[BaseModel] = create_model("TextBlockEnd", **{**base, **fields})  # type: ignore[call-overload]
        return model

    assert drift(wire.TextBlockEndEvent, pydantic_models.TextBlockEnd) == []
    renamed = {n: (f.annotation, f) for n, f in pydantic_models.TextBlockEnd.model_fields.items() if n != "text"}
    renamed["full_text"] = (str | None, None)
    assert drift(wire.TextBlockEndEvent, create_model("X", **renamed)) != []  # type: ignore[call-overload]
    assert drift(wire.TextBlockEndEvent, doctored(text=(str | None, "x"))) != []
    assert drift(wire.TextBlockEndEvent, doctored(type=(str, "TEXT_BLOCK_STOP"))) != []
    assert drift(wire.TextBlockEndEvent, doctored(reply_id=(str | None, None))) != []
    assert drift(wire.TextBlockEndEvent, doctored(id=(str, "fixed"))) != []
    moved = dict(reversed(list(pydantic_models.TextBlockEnd.model_fields.items())))
    assert drift(wire.TextBlockEndEvent, create_model(  # type: ignore[call-overload]
        "Y", **{n: (f.annotation, f) for n, f in moved.items()})) != []
