"""Imports run downward only: each ``wire/*.py`` module's imports, read with
``ast``, must name modules of a lower layer.

The layers, lowest first (``LAYERS``; one entry per level, modules of one
level are siblings and must not import each other):

* leaves: ``errors``, ``clock``, ``_url``
* model: ``blocks`` -> ``events`` -> ``reducer`` -> ``messages`` (messages sits
  on top of the model because ``Msg.append_event`` uses the reducer)
* codecs: ``_codec``, then ``json`` and ``msgpack``
* the package (``__init__``): it may import the leaves, the model and the
  codecs, never a tool or an edge
* tools: ``_streaming`` (what the framings share), then the siblings
  ``framing``, ``sse``, ``peek``, ``schema``, ``zerocopy``
* edges: ``aio``, an HTTP helper and ``demo``, then ``cli``, then ``__main__``

The test is data-driven: a new module must be placed in ``LAYERS`` before it
passes, so the picture stays true as the code grows. Imports under ``if
TYPE_CHECKING:`` are for type checkers only and never run, so they are not
counted; imports inside functions run and are counted.
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import pytest

WIRE = Path(__file__).resolve().parent.parent / "wire"

LAYERS: list[tuple[str, set[str]]] = [
    ("leaves", {"errors", "clock", "_url"}),
    ("model: blocks", {"blocks"}),
    ("model: events", {"events"}),
    ("model: reducer", {"reducer"}),
    ("model: messages", {"messages"}),
    ("codecs: shared", {"_codec", "peek"}),
    ("codecs", {"json", "msgpack"}),
    ("package", {"__init__"}),
    ("tools: shared", {"_streaming"}),
    ("tools", {"framing", "sse", "schema", "zerocopy"}),
    ("edges", {"aio", "http", "demo", "stores"}),
    ("edges: cli", {"cli", "redis"}),
    ("edges: entry point", {"__main__"}),
]
LEVEL = {module: i for i, (_, modules) in enumerate(LAYERS) for module in modules}
INIT_MAY_IMPORT = {m for _, modules in LAYERS[:LEVEL["__init__"]] for m in modules}
EDGES = {m for _, modules in LAYERS[LEVEL["aio"]:] for m in modules}

# Known upward imports, each a bug to fix (in wire/ or, if the design changed, here).
KNOWN_UPWARD: dict[str, str] = {}


def modules_on_disk() -> list[str]:
    return sorted(p.stem for p in WIRE.glob("*.py"))


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def wire_imports(source: str, module: str) -> set[str]:
    """The wire modules ``module`` imports when it runs: ``wire.x`` -> ``x``,
    ``from wire import x`` -> ``x`` for a submodule or ``__init__`` for a name
    of the package, relative imports resolved; ``if TYPE_CHECKING:`` skipped."""
    submodules = set(modules_on_disk())
    found: set[str] = set()

    def visit(node: ast.AST) -> None:
        if isinstance(node, ast.If) and _is_type_checking(node.test):
            for child in node.orelse:
                visit(child)
            return
        if isinstance(node, ast.Import):
            for alias in node.names:
                parts = alias.name.split(".")
                if parts[0] == "wire":
                    found.add(parts[1] if len(parts) > 1 else "__init__")
        elif isinstance(node, ast.ImportFrom):
            if node.level > 1:
                raise AssertionError(f"{module}: imports from above the package")
            base = node.module or ""
            parts = base.split(".") if base else []
            if node.level == 0 and (not parts or parts[0] != "wire"):
                return
            rest = parts[1:] if node.level == 0 else parts
            if rest:
                found.add(rest[0])
            else:  # from wire import x / from . import x
                found.update(a.name if a.name in submodules else "__init__" for a in node.names)
        for child in ast.iter_child_nodes(node):
            visit(child)

    visit(ast.parse(source))
    found.discard(module)
    return found


def imports_of(module: str) -> set[str]:
    return wire_imports((WIRE / f"{module}.py").read_text(encoding="utf-8"), module)


def test_every_module_is_placed_in_a_layer() -> None:
    unplaced = set(modules_on_disk()) - set(LEVEL)
    assert not unplaced, f"place these modules in LAYERS (tests/test_layering.py): {sorted(unplaced)}"


def test_no_module_is_placed_twice() -> None:
    names = [m for _, modules in LAYERS for m in modules]
    assert len(names) == len(set(names))


def _module_params() -> list[object]:
    return [pytest.param(m, marks=pytest.mark.xfail(strict=True, raises=AssertionError, reason=KNOWN_UPWARD[m])
                         if m in KNOWN_UPWARD else ()) for m in modules_on_disk() if m in LEVEL]


@pytest.mark.parametrize("module", _module_params())
def test_imports_run_downward(module: str) -> None:
    for target in sorted(imports_of(module)):
        assert target in LEVEL, f"{module} imports wire.{target}, which has no layer"
        assert LEVEL[target] < LEVEL[module], (
            f"{module} ({LAYERS[LEVEL[module]][0]}) imports {target} ({LAYERS[LEVEL[target]][0]}): "
            "an import that does not run downward")


def test_the_package_imports_only_the_model_and_the_codecs() -> None:
    assert imports_of("__init__") <= INIT_MAY_IMPORT
    assert {"json", "msgpack", "messages", "events", "blocks"} <= imports_of("__init__")


@pytest.mark.parametrize("module", [m for m in modules_on_disk() if m not in EDGES and m in LEVEL])
def test_below_the_edges_only_msgspec_and_the_standard_library_are_imported(module: str) -> None:
    tree = ast.parse((WIRE / f"{module}.py").read_text(encoding="utf-8"))
    tops = {a.name.split(".")[0] for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}
    tops |= {n.module.split(".")[0] for n in ast.walk(tree)
             if isinstance(n, ast.ImportFrom) and n.level == 0 and n.module}
    foreign = tops - set(sys.stdlib_module_names) - {"msgspec", "wire", "__future__"}
    assert not foreign, f"{module} imports {sorted(foreign)}: only the edges may use other packages"


# -- the reader itself ---------------------------------------------------------------------------------

SAMPLE = '''
from __future__ import annotations
import json
import wire.events
from wire import blocks, Msg
from wire.errors import DecodeError
from . import clock
from .json import encode
from typing import TYPE_CHECKING
if TYPE_CHECKING:
    from wire.messages import Msg
else:
    from wire import reducer
def later():
    from wire.schema import rendered
'''


def test_the_reader_finds_every_kind_of_import() -> None:
    assert wire_imports(SAMPLE, "sample") == {"events", "blocks", "__init__", "errors", "clock", "json", "reducer",
                                              "schema"}


def test_an_upward_import_fails() -> None:
    source = "from wire.messages import Msg\n"
    assert LEVEL["messages"] > LEVEL["blocks"]
    assert not all(LEVEL[t] < LEVEL["blocks"] for t in wire_imports(source, "blocks"))
