"""Errors cross one boundary: msgspec's exception classes are named only in
``wire/_codec.py``, which turns them into wire's own (``decode_error``,
``encode_error``) and offers ``DECODE_ERRORS``/``ENCODE_ERRORS`` to catch.
Every other module under ``wire/`` is read with ``ast``; naming one of the
classes there (``msgspec.DecodeError``, ``from msgspec import
ValidationError``, an alias of either) fails the test with its file and line,
as tests/test_layering.py does for imports."""

from __future__ import annotations

import ast
from pathlib import Path

WIRE = Path(__file__).resolve().parent.parent / "wire"
BOUNDARY = WIRE / "_codec.py"
MSGSPEC_ERRORS = frozenset({"DecodeError", "ValidationError", "EncodeError", "MsgspecError"})

# Modules that still name msgspec's exceptions, each until its owner moves it
# behind wire._codec. Empty it as they do; a listed module that no longer
# names one fails the test too, so the list cannot go stale.
NOT_YET: dict[str, str] = {}


def _offences(path: Path) -> list[str]:
    return _offences_in(path.read_text(encoding="utf-8"), str(path.relative_to(WIRE.parent)))


def _offences_in(source: str, name: str) -> list[str]:
    tree = ast.parse(source, filename=name)
    modules = {"msgspec"}  # names bound to the msgspec module
    classes: set[str] = set()  # names bound to one of its exception classes
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            modules |= {alias.asname or alias.name for alias in node.names if alias.name == "msgspec"}
        elif isinstance(node, ast.ImportFrom) and node.module == "msgspec":
            classes |= {alias.asname or alias.name for alias in node.names if alias.name in MSGSPEC_ERRORS}
    found = []
    for node in ast.walk(tree):
        named = None
        if isinstance(node, ast.Attribute) and node.attr in MSGSPEC_ERRORS:
            base = node.value
            while isinstance(base, ast.Attribute):  # msgspec.json.DecodeError would count too
                base = base.value
            if isinstance(base, ast.Name) and base.id in modules:
                named = ast.unparse(node)
        elif isinstance(node, ast.ImportFrom) and node.module == "msgspec":
            names = [alias.name for alias in node.names if alias.name in MSGSPEC_ERRORS]
            if names:
                named = f"from msgspec import {', '.join(names)}"
        elif isinstance(node, ast.Name) and node.id in classes:
            named = node.id
        if named is not None:
            found.append(f"{name}:{getattr(node, 'lineno', 0)}: {named}")
    return found


def _modules() -> list[Path]:
    return sorted(p for p in WIRE.rglob("*.py") if p != BOUNDARY)


def test_only_the_codec_boundary_names_msgspec_exceptions() -> None:
    offences = [line for path in _modules() if str(path.relative_to(WIRE.parent)) not in NOT_YET
                for line in _offences(path)]
    assert not offences, ("msgspec's exceptions are named outside wire/_codec.py; catch "
                          "wire._codec.DECODE_ERRORS / ENCODE_ERRORS and raise wire's errors instead:\n"
                          + "\n".join(offences))


def test_the_allow_list_names_only_modules_that_still_need_it() -> None:
    stale = [name for name in NOT_YET if not _offences(WIRE.parent / name)]
    assert not stale, f"these modules no longer name msgspec's exceptions; remove them from NOT_YET: {stale}"


def test_the_check_sees_every_spelling() -> None:
    """The reader itself: each spelling is caught, and catching wire's tuple is not."""
    source = ("import msgspec\nimport msgspec as m\nfrom msgspec import ValidationError as VE\n"
              "try:\n    pass\nexcept (msgspec.DecodeError, m.EncodeError, msgspec.json.DecodeError, VE):\n    pass\n"
              "from wire._codec import DECODE_ERRORS\n")
    found = _offences_in(source, "probe.py")
    assert sorted(line.split(": ", 1)[1] for line in found) == sorted([
        "from msgspec import ValidationError", "msgspec.DecodeError", "m.EncodeError", "msgspec.json.DecodeError",
        "VE"])
    assert all(line.startswith(("probe.py:3:", "probe.py:6:")) for line in found)


def test_the_boundary_itself_still_names_them() -> None:
    assert _offences(BOUNDARY), "wire/_codec.py is where msgspec's exceptions are caught"
