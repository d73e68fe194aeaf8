"""Imports run downward only: each module's imports under ``wire/``, read
with ``ast``, must name modules of a lower layer, and only the modules that
own an optional dependency may import it.

Modules are named by their dotted path under ``wire`` (``framing.sse``); a
package's ``__init__`` by the package's name (``framing``), and wire's own as
``__init__``. The layers, lowest first (``LAYERS``; modules of one level are
siblings and must not import each other):

* leaves: ``errors``, ``clock``, ``_url``, ``_portable`` (the values both
  codecs carry); then ``partial_json`` (on errors,
  under the model, so that blocks may use it)
* the model: ``blocks`` -> ``events`` -> ``reducer`` -> ``messages`` (messages
  sits on top because ``Msg.append_event`` uses the reducer)
* the codecs: ``_codec`` (every msgspec decoder, the one error translation),
  ``peek``, then ``json``, ``msgpack`` and ``zerocopy``
* the package (``__init__``): the leaves, the model and the codecs only
* ``resume`` (checkpoints), then the framings: ``framing._base`` (the
  decoder contract) and ``framing._sse_spec`` (the SSE spec parser), the three
  framings, the ``framing`` registry
* ``schema``; the stores (``stores``, the contract; the sessions and
  coalescing it shares; the Redis log's parts; ``stores.memory``,
  ``stores.redis``; ``stores.conformance``, the suite every store runs); the
  transports (``transports.streams``, ``transports.http``)
* the bridges to other frontends' protocols (``bridges.*``, their Starlette
  helpers above the transports) and the converters of other message models
  (``compat.*``)
* the bridges' Starlette helpers, then the edges: ``demo``, ``cli``,
  ``__main__``

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
    ("leaves", {"errors", "clock", "_url", "_portable"}),
    ("model: partial JSON", {"partial_json"}),
    ("model: blocks", {"blocks"}),
    ("model: events", {"events"}),
    ("model: reducer", {"reducer"}),
    ("model: messages", {"messages"}),
    ("codecs: shared", {"_codec"}),
    ("codecs: peek", {"peek"}),
    ("codecs", {"json", "msgpack", "zerocopy"}),
    ("package", {"__init__"}),
    ("session: checkpoints and rules", {"session.checkpoints", "session.rules"}),
    ("session: the chat body and the state", {"session.chat", "session.state"}),
    ("session", {"session"}),
    ("checkpoints (old names)", {"resume"}),
    ("framing: receive buffer", {"framing._buffer"}),
    ("framing: shared", {"framing._base", "framing._sse_spec"}),
    ("framings", {"framing.ndjson", "framing.lengthprefix", "framing.sse"}),
    ("framing: registry", {"framing"}),
    ("schema", {"schema"}),
    ("stores: the contract", {"stores"}),
    ("stores: coalescing", {"stores._coalesce"}),
    ("stores: the redis log's parts", {"stores.redis._common", "stores.redis._dump"}),
    ("stores: the redis log's session", {"stores.redis._session"}),
    ("stores: the redis log's halves", {"stores.redis._producer", "stores.redis._reader"}),
    ("stores", {"stores.memory", "stores.redis"}),
    ("stores: the contract's test suite", {"stores.conformance"}),
    ("transports: the chat body, the agent hook", {"transports.chat", "transports.inputs"}),
    ("transports", {"transports", "transports.streams", "transports.http"}),
    ("transports: what every socket shares", {"transports.ws_base"}),
    ("transports: the clients, the socket", {"transports.client", "transports.ws"}),
    ("transports: the socket's client", {"transports.ws_client"}),
    ("bridges: what both bridges share", {"bridges._skeleton"}),
    ("bridges and converters", {"bridges", "bridges.agui", "bridges.vercel",
                                "compat", "compat.agentscope1", "compat.agentx", "compat.agentscope_app"}),
    ("bridges: a Vercel session's turns and replies", {"bridges.vercel_session"}),
    ("bridges: http and sockets", {"bridges.agui_http", "bridges.vercel_http", "bridges.vercel_ws"}),
    ("edges: the demo agent", {"demo"}),
    ("edges: the web demo", {"demo_web"}),
    ("edges: cli", {"cli"}),
    ("edges: entry point", {"__main__"}),
]
LEVEL = {module: i for i, (_, modules) in enumerate(LAYERS) for module in modules}
INIT_MAY_IMPORT = {m for _, modules in LAYERS[:LEVEL["__init__"]] for m in modules}

# The packages beyond msgspec and the standard library that a module may
# import, each owned by the modules of its extra; nothing else imports them.
OPTIONAL: dict[str, set[str]] = {
    "stores.memory": {"anyio"},
    "stores.redis": {"anyio", "redis"},
    "stores.redis._common": {"redis"},
    "stores.redis._producer": {"redis"},
    "stores.redis._reader": {"anyio", "redis"},
    "stores.conformance": {"anyio", "pytest"},  # the test suite a store runs
    "transports.streams": {"anyio"},
    "transports.http": {"starlette", "anyio"},
    "transports.client": {"anyio", "httpx"},
    "transports.ws_base": {"starlette", "anyio"},
    "transports.ws": {"starlette", "anyio"},
    "transports.ws_client": {"anyio", "websockets"},
    "compat.agentscope_app": {"agentscope"},  # imported when an AgentscopeHistory is made
    "bridges.agui_http": {"starlette"},
    "bridges.vercel_http": {"starlette"},
    "bridges.vercel_ws": {"starlette", "anyio"},
    "demo": {"anyio", "httpx", "uvicorn", "starlette"},
    "demo_web": {"anyio", "uvicorn", "starlette"},
}

# Known upward imports, each a bug to fix (in wire/ or, if the design changed, here).
KNOWN_UPWARD: dict[str, str] = {}


def _name(path: Path) -> str:
    parts = list(path.relative_to(WIRE).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts) or "__init__"


def modules_on_disk() -> dict[str, Path]:
    return {_name(p): p for p in sorted(WIRE.rglob("*.py"))}


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def wire_imports(source: str, module: str, modules: set[str] | None = None) -> set[str]:
    """The wire modules ``module`` imports when it runs: ``wire.a.b`` -> ``a.b``,
    ``from wire.a import b`` -> ``a.b`` for a submodule or ``a`` for a name of
    the package, relative imports resolved; ``if TYPE_CHECKING:`` skipped."""
    known = set(modules_on_disk()) if modules is None else modules
    is_package = module == "__init__" or (WIRE / module.replace(".", "/") / "__init__.py").exists()
    package = [] if module == "__init__" else module.split(".") if is_package else module.split(".")[:-1]
    found: set[str] = set()

    def resolve(parts: list[str]) -> str:
        """The module that ``wire.<parts>`` names: the longest known prefix
        (a name imported from a package belongs to the package)."""
        while parts and ".".join(parts) not in known:
            parts = parts[:-1]
        return ".".join(parts) or "__init__"

    def visit(node: ast.AST) -> None:
        if isinstance(node, ast.If) and _is_type_checking(node.test):
            for branch in node.orelse:
                visit(branch)
            return
        if isinstance(node, ast.Import):
            for alias in node.names:
                parts = alias.name.split(".")
                if parts[0] == "wire":
                    found.add(resolve(parts[1:]))
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                up = node.level - 1
                if up > len(package):
                    raise AssertionError(f"{module}: imports from above the package")
                base = package[:len(package) - up] + (node.module.split(".") if node.module else [])
            else:
                parts = (node.module or "").split(".")
                if parts[0] != "wire":
                    return
                base = parts[1:]
            for alias in node.names:
                found.add(resolve([*base, alias.name]))
        for child in ast.iter_child_nodes(node):
            visit(child)

    visit(ast.parse(source))
    found.discard(module)
    return found


def imports_of(module: str) -> set[str]:
    return wire_imports(modules_on_disk()[module].read_text(encoding="utf-8"), module)


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


def _foreign(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    tops = {a.name.split(".")[0] for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}
    tops |= {n.module.split(".")[0] for n in ast.walk(tree)
             if isinstance(n, ast.ImportFrom) and n.level == 0 and n.module}
    return tops - set(sys.stdlib_module_names) - {"msgspec", "wire", "__future__"}


@pytest.mark.parametrize("module", sorted(modules_on_disk()))
def test_only_the_owner_of_an_optional_dependency_imports_it(module: str) -> None:
    foreign = _foreign(modules_on_disk()[module])
    allowed = OPTIONAL.get(module, set())
    assert foreign <= allowed, f"{module} imports {sorted(foreign - allowed)}: give it an owner in OPTIONAL"


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


MODULES = {"__init__", "events", "blocks", "errors", "clock", "json", "reducer", "schema", "messages",
           "framing", "framing.sse", "framing._base"}


def test_the_reader_finds_every_kind_of_import() -> None:
    assert wire_imports(SAMPLE, "sample", MODULES) == {"events", "blocks", "__init__", "errors", "clock", "json",
                                                       "reducer", "schema"}


def test_the_reader_resolves_subpackages() -> None:
    source = "from wire.framing import sse, FRAMINGS\nfrom ._base import RawFrame\nimport wire.framing.sse\n"
    assert wire_imports(source, "framing.ndjson", MODULES) == {"framing.sse", "framing", "framing._base"}
    assert wire_imports("from .sse import X\nfrom .. import json\n", "framing", MODULES) == {"framing.sse", "json"}


def test_an_upward_import_fails() -> None:
    source = "from wire.messages import Msg\n"
    assert LEVEL["messages"] > LEVEL["blocks"]
    assert not all(LEVEL[t] < LEVEL["blocks"] for t in wire_imports(source, "blocks", MODULES))


def test_no_test_module_imports_another() -> None:
    """Shared test code lives in helper modules (tests/helpers.py,
    tests/strategies.py, tests/bridges/agui_client.py...), so that a test
    module can be read, run and changed alone, in any folder of tests/."""
    tests = WIRE.parent / "tests"
    offenders = []
    for path in sorted(tests.rglob("test_*.py")):
        if "node_modules" in path.parts:
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] == "tests":
                names = [f"{node.module}.{a.name}" for a in node.names]
            else:
                names = []
            offenders += [f"{path.relative_to(tests)} imports {n}" for n in names
                          if n.startswith("tests.") and any(part.startswith("test_") for part in n.split("."))]
    assert not offenders, offenders
