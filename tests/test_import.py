"""Import purity: ``import wire`` loads nothing beyond msgspec, what msgspec
itself loads, and the standard library; and none of the modules that are
imported on demand (anyio adapters, CLI, schema export, framings).

msgspec imports some packages opportunistically when they are installed
(``typing_extensions``, for one). Those are msgspec's dependencies, not
wire's, so the allowance is measured, not guessed: whatever a bare ``import
msgspec`` loads in the same interpreter is allowed, and nothing more.
"""

from __future__ import annotations

from tests.helpers import foreign_modules, modules_added_by


def test_import_wire_loads_only_msgspec_and_the_standard_library() -> None:
    assert "msgspec" in modules_added_by("wire")
    foreign = foreign_modules("wire")
    assert not foreign, f"import wire loads {sorted(foreign)}"


def test_import_wire_leaves_the_on_demand_modules_alone() -> None:
    loaded = modules_added_by("wire")
    on_demand = {"wire.transports.streams", "wire.stores.memory", "wire.cli", "wire.__main__", "wire.schema",
                 "wire.framing", "wire.framing.sse", "wire.resume"}
    assert not loaded & on_demand
    assert {"wire.json", "wire.msgpack", "wire.messages", "wire.events", "wire.blocks"} <= loaded


def test_the_check_sees_a_third_party_import() -> None:
    """The check can fail: a package outside the standard library shows up."""
    assert "pytest" in foreign_modules("pytest")
