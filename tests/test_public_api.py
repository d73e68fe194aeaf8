"""The public surface: ``wire.__all__`` is exactly what ``wire`` exports, and
every module's ``__all__`` names things that exist."""

from __future__ import annotations

import importlib
import tomllib
import types
from pathlib import Path
from typing import Any

import pytest

import wire

ROOT = Path(__file__).resolve().parent.parent
MODULES = sorted(p.stem for p in (ROOT / "wire").glob("*.py") if p.stem not in ("__init__", "__main__"))
CODEC_MODULES = {"json", "msgpack"}  # the only submodules exported by name


def test_all_is_a_tuple_without_duplicates() -> None:
    assert isinstance(wire.__all__, tuple)
    assert len(set(wire.__all__)) == len(wire.__all__)


def test_every_name_in_all_exists() -> None:
    missing = [name for name in wire.__all__ if not hasattr(wire, name)]
    assert not missing


def test_every_public_name_of_the_package_is_in_all() -> None:
    """Names the package holds without listing them: forgotten exports, or
    imports that leaked. Submodules are attributes once imported; only the
    codecs are exported."""
    public = {name for name, value in vars(wire).items()
              if not name.startswith("_") and not (isinstance(value, types.ModuleType) and name not in CODEC_MODULES)}
    assert public == set(wire.__all__) - {"__version__"}


def test_exported_codecs_are_the_codec_modules() -> None:
    assert wire.json is importlib.import_module("wire.json")
    assert wire.msgpack is importlib.import_module("wire.msgpack")


def test_the_version_is_the_projects() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    assert wire.__version__ == project["version"]


def _import(name: str) -> Any:
    try:
        return importlib.import_module(f"wire.{name}")
    except ModuleNotFoundError as exc:  # an optional dependency of an edge module (anyio, starlette...)
        if exc.name and not exc.name.startswith("wire"):
            pytest.skip(f"wire.{name} needs {exc.name}")
        raise


@pytest.mark.parametrize("name", MODULES)
def test_each_modules_all_names_exist(name: str) -> None:
    module = _import(name)
    if name.startswith("_") and not hasattr(module, "__all__"):
        return  # a private module need not declare a public surface
    assert isinstance(module.__all__, (tuple, list))
    assert len(set(module.__all__)) == len(module.__all__), f"wire.{name}.__all__ repeats a name"
    missing = [n for n in module.__all__ if not hasattr(module, n)]
    assert not missing, f"wire.{name}.__all__ names what does not exist: {missing}"


def test_every_export_of_the_package_comes_from_a_modules_all() -> None:
    """A re-export is the very object its home module lists, so the two
    surfaces cannot drift apart."""
    homes = [importlib.import_module(f"wire.{m}") for m in
             ("errors", "clock", "blocks", "events", "reducer", "messages")]
    for name in set(wire.__all__) - CODEC_MODULES - {"__version__"}:
        owners = [m for m in homes if name in getattr(m, "__all__", ()) and getattr(m, name) is getattr(wire, name)]
        assert owners, f"wire.{name} is in no model module's __all__"
