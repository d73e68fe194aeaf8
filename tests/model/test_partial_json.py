"""wire.partial_json: the shared vectors (the TypeScript runtime runs the same
files), json.loads as the oracle for any split of any JSON text, and the view
of every prefix consistent with the final value."""

from __future__ import annotations

import copy
import json
import math
from collections.abc import Callable
from typing import Any

import msgspec
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import wire
from tests.helpers import ROOT, expect, growth_ratio
from tests.strategies import damaged_texts, json_texts, splits
from wire.errors import DecodeError, LocalProtocolError
from wire.partial_json import PartialJSON, PartialJSONError

VECTORS = ROOT / "tests" / "vectors" / "partial-json"
CASES = [(path.stem, case) for path in sorted(VECTORS.glob("*.json"))
         for case in json.loads(path.read_text(encoding="utf-8"))["cases"]]


def _same(a: Any, b: Any) -> bool:
    """Equal as JSON values: json.dumps keeps key order and tells 1 from 1.0
    and from true, and -0.0 from 0.0."""
    return json.dumps(a) == json.dumps(b)


def _check_view(parser: PartialJSON, step: dict[str, Any], where: str) -> None:
    assert parser.started == ("value" in step), where
    if "value" in step:
        assert _same(parser.value, step["value"]), f"{where}: {parser.value!r} != {step['value']!r}"
    assert parser.complete == step.get("complete", False), where


@pytest.mark.parametrize(("file", "case"), CASES, ids=[f"{f}: {c['name']}" for f, c in CASES])
def test_vector(file: str, case: dict[str, Any]) -> None:
    parser = PartialJSON()
    for number, step in enumerate(case["steps"]):
        where = f"step {number} ({step['feed']!r})"
        if "error" in step:
            with pytest.raises(PartialJSONError) as caught:
                parser.feed(step["feed"])
            assert (caught.value.position, caught.value.path) == (step["error"]["position"], step["error"]["path"])
            _check_view(parser, step, where)
            with pytest.raises(LocalProtocolError):
                parser.feed("")
            return
        parser.feed(step["feed"])
        _check_view(parser, step, where)
    close = case["close"]
    if "error" in close:
        with pytest.raises(PartialJSONError) as caught:
            parser.close()
        assert (caught.value.position, caught.value.path) == (close["error"]["position"], close["error"]["path"])
    else:
        assert _same(parser.close(), close["value"])
        with pytest.raises(LocalProtocolError):
            parser.feed("x")


def test_error_is_a_decode_error_that_names_the_character() -> None:
    parser = PartialJSON()
    with pytest.raises(DecodeError, match=r"expected ':' after an object key, not '1' \(character 5, at \$\.a\)"):
        parser.feed('{"a" 1}')


def test_huge_integer_is_an_error_not_a_value_error() -> None:
    parser = PartialJSON()
    with pytest.raises(PartialJSONError, match="too long") as caught:
        parser.feed("[" + "7" * 5000 + "]")
    assert caught.value.position == 1


# -- properties ---------------------------------------------------------------------------

def consistent(partial: Any, final: Any) -> bool:
    """Whether ``partial`` can be the view of a prefix of ``final``'s text:
    containers hold a prefix of the final items (keys in order) whose last
    item may itself be partial, and strings a prefix of the final string;
    anything else is final already."""
    if isinstance(partial, dict):
        keys = list(partial)
        if not isinstance(final, dict) or keys != list(final)[:len(keys)]:
            return False
        return all(_same(partial[k], final[k]) for k in keys[:-1]) and (
            not keys or consistent(partial[keys[-1]], final[keys[-1]]))
    if isinstance(partial, list):
        if not isinstance(final, list) or len(partial) > len(final):
            return False
        last = len(partial) - 1
        return all(map(_same, partial[:-1], final)) and (not partial or consistent(partial[last], final[last]))
    if isinstance(partial, str):
        return isinstance(final, str) and final.startswith(partial)
    return _same(partial, final)


@settings(max_examples=300, deadline=None)
@given(st.data())
def test_any_split_gives_json_loads_and_every_view_is_consistent(data: st.DataObject) -> None:
    text = data.draw(json_texts())
    final = json.loads(text)
    parser = PartialJSON()
    for fragment in data.draw(splits(text)):
        parser.feed(fragment)
        if parser.started:
            assert consistent(parser.value, final), (text, parser.value)
            if parser.complete:
                assert _same(parser.value, final)
    assert _same(parser.close(), final)


@settings(max_examples=200, deadline=None)
@given(st.data())
def test_every_prefix_one_character_at_a_time(data: st.DataObject) -> None:
    """The view after each character is consistent, and grows: each view is
    consistent with the next one too."""
    text = data.draw(json_texts())
    final = json.loads(text)
    parser = PartialJSON()
    previous: Any = None
    for char in text:
        parser.feed(char)
        if parser.started:
            view = json.loads(json.dumps(parser.value))  # a copy: the parser's containers grow in place
            assert consistent(view, final)
            if previous is not None:
                assert consistent(previous, view)
            previous = view
    assert _same(parser.close(), final)


def _reject_constant(name: str) -> Any:
    raise ValueError(name)  # json.loads takes NaN and Infinity; JSON (and PartialJSON) does not


@settings(max_examples=400, deadline=None)
@given(st.data())
def test_accepts_exactly_what_json_loads_accepts(data: st.DataObject) -> None:
    text = data.draw(damaged_texts())
    try:
        expected = json.loads(text, parse_constant=_reject_constant)
    except ValueError:
        expected = PartialJSONError
    parser = PartialJSON()
    try:
        for fragment in data.draw(splits(text)):
            parser.feed(fragment)
        got = parser.close()
    except PartialJSONError as exc:
        assert expected is PartialJSONError, (text, exc)
        assert 0 <= exc.position <= len(text)
    else:
        assert expected is not PartialJSONError, (text, got)
        assert _same(got, expected)


def test_floats_match_json_loads_bit_for_bit() -> None:
    for text in ["0.1", "1e400", "-1e-400", "123456789012345678901234567890.5", "2.5E-3", "-0.0", "1E+2"]:
        parser = PartialJSON()
        parser.feed(f"[{text}]")
        got, want = parser.value[0], json.loads(text)
        assert got == want and math.copysign(1, got) == math.copysign(1, want) and type(got) is type(want)


def test_module_example() -> None:
    import doctest

    import wire.partial_json

    result = doctest.testmod(wire.partial_json)
    assert result.attempted > 0 and result.failed == 0


# -- ToolCallBlock.partial_input ------------------------------------------------------------------


def call_with(deltas: list[str]) -> wire.ToolCallBlock:
    msg = wire.AssistantMsg("a", [], id="r")
    msg.append_event(wire.ToolCallStartEvent(reply_id="r", tool_call_id="c", tool_call_name="f"))
    for delta in deltas:
        msg.append_event(wire.ToolCallDeltaEvent(reply_id="r", tool_call_id="c", delta=delta))
    return expect(wire.ToolCallBlock, msg.content[0])


def test_a_tool_calls_partial_input_follows_its_deltas() -> None:
    msg = wire.AssistantMsg("a", [], id="r")
    msg.append_event(wire.ToolCallStartEvent(reply_id="r", tool_call_id="c", tool_call_name="f"))
    call = expect(wire.ToolCallBlock, msg.content[0])
    assert call.partial_input is None
    views: list[Any] = []
    for delta in ['{"city": "Par', 'is", "days": [1, ', "2, 3", "]}"]:
        msg.append_event(wire.ToolCallDeltaEvent(reply_id="r", tool_call_id="c", delta=delta))
        views.append(copy.deepcopy(call.partial_input))
    assert views == [{"city": "Par"}, {"city": "Paris", "days": [1]}, {"city": "Paris", "days": [1, 2]},
                     {"city": "Paris", "days": [1, 2, 3]}]
    plain = msgspec.structs.replace(call_with(['{"city": "Paris", "days": [1, 2, 3]}']), created_at=call.created_at)
    assert wire.json.encode(call) == wire.json.encode(plain)  # the view is not on the wire
    assert call == plain


def test_partial_input_that_is_not_json_raises_at_every_read() -> None:
    call = call_with(['{"a": tru', "x}"])
    for _ in range(2):
        with pytest.raises(PartialJSONError) as caught:
            _ = call.partial_input
        assert caught.value.path == "$.a"


def test_a_replaced_input_is_read_again_from_the_start() -> None:
    call = call_with(['{"a": [1, 2', "]}"])
    assert call.partial_input == {"a": [1, 2]}
    call.input = '{"b": "x'
    assert call.partial_input == {"b": "x"}
    call.input = '{"b": "xyz"}'
    assert call.partial_input == {"b": "xyz"}


def test_reading_after_every_delta_is_linear() -> None:
    """Each read parses only the new deltas."""

    def cost(n: int) -> Callable[[], None]:
        deltas = ['{"values": ['] + ["1, "] * n + ["2]}"]

        def run() -> None:
            msg = wire.AssistantMsg("a", [], id="r")
            msg.append_event(wire.ToolCallStartEvent(reply_id="r", tool_call_id="c", tool_call_name="f"))
            call = msg.content[0]
            for delta in deltas:
                msg.append_event(wire.ToolCallDeltaEvent(reply_id="r", tool_call_id="c", delta=delta))
                call.partial_input  # type: ignore[union-attr]  # noqa: B018

        return run

    assert growth_ratio(cost, 5_000) < 8


def test_a_long_number_fed_in_small_fragments_is_linear() -> None:
    """The number's text was grown by ``+=`` on an attribute: a copy of all
    of it per fragment."""

    def cost(n: int) -> Callable[[], None]:
        def run() -> None:
            view = PartialJSON()
            view.feed("[0.")
            for _ in range(n):
                view.feed("1234567890")
            view.feed("]")
            assert view.complete

        return run

    assert growth_ratio(cost, 20_000) < 8


def test_reading_value_after_every_fragment_of_a_long_string_is_linear() -> None:
    """The open string grows in place once the view lets go of it: a read
    costs the fragments since the last read, not the whole string."""

    def cost(n: int) -> Callable[[], None]:
        def run() -> None:
            view = PartialJSON()
            view.feed('{"path": "a.txt", "content": "')
            for _ in range(n):
                view.feed("0123456789")
                view.value  # noqa: B018
            assert len(view.value["content"]) == 10 * n

        return run

    assert growth_ratio(cost, 10_000) < 8


def test_reading_a_long_tool_call_input_after_every_delta_is_linear() -> None:
    def cost(n: int) -> Callable[[], None]:
        def run() -> None:
            msg = wire.AssistantMsg("a", [], id="r")
            msg.append_event(wire.ToolCallStartEvent(reply_id="r", tool_call_id="c", tool_call_name="f"))
            call = msg.content[0]
            msg.append_event(wire.ToolCallDeltaEvent(reply_id="r", tool_call_id="c", delta='{"content": "'))
            for _ in range(n):
                msg.append_event(wire.ToolCallDeltaEvent(reply_id="r", tool_call_id="c", delta=_HUNDRED))
                call.partial_input  # type: ignore[union-attr]  # noqa: B018

        return run

    # 500 and 2,000 deltas of 100 characters: the longer input (200 KB) stays in the
    # caches, so the other xdist worker's load inflates neither size more than the
    # other (at 2,000 and 8,000 deltas a linear 4x read 9-11x in two CI runs).
    assert growth_ratio(cost, 500) < 8


_HUNDRED = "0123456789" * 10


def test_a_string_the_caller_kept_never_changes() -> None:
    view = PartialJSON()
    view.feed('["ab')
    kept = view.value[0]
    view.feed("cd")
    assert view.value == ["abcd"] and kept == "ab"
    whole = view.value
    view.feed('e"]')
    assert whole == ["abcde"] and view.close() == ["abcde"]
