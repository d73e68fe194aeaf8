"""Import purity: ``import wire`` loads nothing beyond msgspec, what msgspec
itself loads, and the standard library; and none of the modules that are
imported on demand (anyio adapters, CLI, schema export, framings).

msgspec imports some packages opportunistically when they are installed
(``typing_extensions``, for one). Those are msgspec's dependencies, not
wire's, so the allowance is measured, not guessed: whatever a bare ``import
msgspec`` loads in the same interpreter is allowed, and nothing more.
"""

from __future__ import annotations

import json
import subprocess
import sys

from tests.helpers import ROOT

# Prints the modules that importing the argument adds to sys.modules, measured
# inside the fresh interpreter after its own startup (site, .pth hooks).
_PROBE = """
import sys
before = set(sys.modules)
import importlib
importlib.import_module(sys.argv[1])
added = sorted(set(sys.modules) - before)
import json
print(json.dumps(added))
"""


def modules_added_by(name: str) -> set[str]:
    result = subprocess.run([sys.executable, "-W", "error", "-c", _PROBE, name], cwd=ROOT, capture_output=True,
                            text=True, timeout=60, check=False)
    assert result.returncode == 0, result.stderr
    assert result.stderr == "", f"importing {name} printed: {result.stderr}"  # no warnings, no noise
    return set(json.loads(result.stdout))


def top(name: str) -> str:
    return name.split(".")[0]


def foreign_modules(name: str) -> set[str]:
    """What importing ``name`` loads beyond wire, msgspec, what msgspec loads
    by itself, and the standard library."""
    allowed = modules_added_by("msgspec")
    return {m for m in modules_added_by(name) - allowed
            if top(m) not in sys.stdlib_module_names and top(m) not in ("wire", "msgspec")}


def test_import_wire_loads_only_msgspec_and_the_standard_library() -> None:
    assert "msgspec" in modules_added_by("wire")
    foreign = foreign_modules("wire")
    assert not foreign, f"import wire loads {sorted(foreign)}"


def test_import_wire_leaves_the_on_demand_modules_alone() -> None:
    loaded = modules_added_by("wire")
    on_demand = {"wire.aio", "wire.cli", "wire.__main__", "wire.schema", "wire.framing", "wire.sse"}
    assert not loaded & on_demand
    assert {"wire.json", "wire.msgpack", "wire.messages", "wire.events", "wire.blocks"} <= loaded


def test_the_check_sees_a_third_party_import() -> None:
    """The check can fail: a package outside the standard library shows up."""
    assert "pytest" in foreign_modules("pytest")
