"""The TypeScript runtime's PartialJSON against wire.partial_json on the same
generated texts and splits: the same view after every fragment, the same
final value, the same error at the same character and path.

Needs node and the built runtime (``npm run build`` in schemas/), as CI has."""

from __future__ import annotations

import copy
import json
import subprocess
from typing import Any

from hypothesis import Phase, given, settings
from hypothesis import strategies as st

from tests.helpers import ROOT, needs_npm, require_npm
from tests.strategies import damaged_texts, json_texts, splits
from wire.partial_json import PartialJSON, PartialJSONError

SCRIPT = ROOT / "tests" / "ts" / "partial-views.mjs"

pytestmark = needs_npm("schemas")


def python_views(fragments: list[str]) -> dict[str, Any]:
    parser = PartialJSON()
    views: list[Any] = []
    try:
        for fragment in fragments:
            parser.feed(fragment)
            # A snapshot: the parser's containers keep growing in place.
            view = {"value": copy.deepcopy(parser.value), "complete": parser.complete}
            views.append(view if parser.started else None)
        return {"views": views, "closed": parser.close()}
    except PartialJSONError as exc:
        return {"views": views, "error": {"position": exc.position, "path": exc.path}}


def utf16_position(fragments: list[str], position: int) -> int:
    """A Python position (code points) as JavaScript counts it (UTF-16 code units)."""
    text = "".join(fragments)
    return position + sum(1 for char in text[:position] if ord(char) > 0xFFFF)


def as_js(value: Any) -> Any:
    """What a value becomes in JavaScript: every number a double (1 and 1.0
    are one Number; integers past 2**53 round, as JSON.parse rounds them),
    infinities named as partial-views.mjs names them."""
    return json.loads(json.dumps(value), parse_int=float, parse_constant=str)


@st.composite
def cases(draw: st.DrawFn) -> list[str]:
    text = draw(json_texts() | damaged_texts())
    return draw(splits(text))


# One node process per batch of 60 cases. Shrinking would rerun node for every
# smaller batch; a mismatch names its own case instead.
@settings(max_examples=6, deadline=None, phases=(Phase.explicit, Phase.generate))
@given(st.lists(cases(), min_size=60, max_size=60))
def test_typescript_views_equal_python_views(batch: list[list[str]]) -> None:
    out = subprocess.run([require_npm("schemas"), str(SCRIPT)], input=json.dumps(batch), capture_output=True, text=True,
                         check=True, timeout=60).stdout
    for fragments, got in zip(batch, json.loads(out), strict=True):
        expected = python_views(fragments)
        if "error" in expected:
            expected["error"]["position"] = utf16_position(fragments, expected["error"]["position"])
        assert as_js(got) == as_js(expected), f"fragments {fragments!r}: node {got!r}, python {expected!r}"
