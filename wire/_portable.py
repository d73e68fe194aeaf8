"""Values both codecs carry exactly: what free-form fields (``metadata``,
``CustomEvent.value``, ``structured_output``) and token counts may hold.

A value one codec decodes and the other cannot write would poison every Msg
and log that holds it: a MessagePack ``Ext`` or timestamp (JSON has neither),
NaN or infinity (JSON has neither; msgspec would write ``null``), an integer
outside -2**63 .. 2**64-1 (MessagePack has none; JSON text may spell one),
a map key that is not a string. So free-form fields hold the JSON data model
with MessagePack's integer range: null, booleans, those integers, finite
floats, strings, lists and string-keyed maps. Bytes are refused too: JSON
would turn them into a base64 string, so the value would change on the way.

The structs call :func:`check` from ``__post_init__``, so every decoder of
wire (whole buffers and streams, both codecs) refuses such a value with a
DecodeError naming its path, and so does a constructor (as a ValueError).
The price is one Python call per decoded event, about 25-30 ns (the walk
itself runs only for non-empty fields): on the benchmark reply, 3% on
``wire.json.decode_events`` and 8-14% on the stream decoders, measured on a
shared machine. msgspec cannot check a recursive type such as "a JSON
value", and its ``dec_hook`` (which would run only for a present field) needs
a custom type and every decoder configured with the hook; ``__post_init__``
is the one place every decoder already calls.
"""

from __future__ import annotations

import math
from typing import Any

__all__ = ("INT_MAX", "INT_MIN", "check", "check_int", "offender", "problem", "saturated")

INT_MIN = -(2**63)  # the range of MessagePack's integers
INT_MAX = 2**64 - 1


def problem(value: Any, path: str) -> str | None:
    """Why ``value`` (the field ``path`` of a struct, e.g. ``metadata``) is
    no portable value, as "what - in `path.inside`", or None when it is one."""
    found = offender(value, path)
    return None if found is None else _at(found[1], found[0])


def offender(value: Any, path: str) -> tuple[str, str] | None:
    """:func:`problem`'s answer as (what, path), for a caller that raises an
    error of its own with the path apart (``$.metadata.n``).

    Linear in the size of the value, with no stack depth: a first walk keeps
    no paths (the common case, a portable value, ends there); only when it
    finds an offender does :func:`_locate` walk again, in document order,
    keeping the keys that lead to where it is, so the path is written once,
    for the first offender."""
    cls = type(value)
    if cls is str or cls is bool or value is None:
        return None
    stack: list[Any] = [value]
    pop, extend = stack.pop, stack.extend
    while stack:
        item = pop()
        cls = type(item)
        if cls is str or cls is bool or item is None:
            continue
        if cls is dict:
            for key in item:
                if type(key) is not str:
                    return _locate(value, path)
            extend(item.values())
        elif cls is list:
            extend(item)
        elif cls is int:
            if not INT_MIN <= item <= INT_MAX:
                return _locate(value, path)
        elif cls is not float or not math.isfinite(item):
            return _locate(value, path)
    return None


def _locate(value: Any, path: str) -> tuple[str, str] | None:
    """:func:`offender`'s answer for a value known to hold one: the first
    in document order, with its path."""
    # keys[i] is the key, in the container whose items iters[i] yields, of
    # the item being looked at; the path is built from them only once.
    iters: list[Any] = []
    maps: list[bool] = []  # whether iters[i] walks a map (else a list)
    keys: list[Any] = []
    item = value
    while True:
        cls = type(item)
        if cls is dict:
            iters.append(iter(item.items()))
            maps.append(True)
            keys.append(None)
        elif cls is list:
            iters.append(enumerate(item))
            maps.append(False)
            keys.append(None)
        elif cls is int:
            if not INT_MIN <= item <= INT_MAX:
                return _OUT_OF_RANGE, _path(path, keys)
        elif cls is float:
            if not math.isfinite(item):
                return f"the float {item!r}, which JSON cannot carry", _path(path, keys)
        elif not (cls is str or cls is bool or item is None):
            return f"a value of type {cls.__name__}, which JSON and MessagePack do not both carry", _path(path, keys)
        while iters:
            pair = next(iters[-1], None)
            if pair is None:
                iters.pop()
                maps.pop()
                keys.pop()
                continue
            key, item = pair
            if maps[-1] and type(key) is not str:
                keys.pop()
                return f"a map key of type {type(key).__name__}; keys must be strings", _path(path, keys)
            keys[-1] = key
            break
        else:
            return None


def _path(path: str, keys: list[Any]) -> str:
    parts = [path]
    for key in keys:
        parts.append(f"[{key}]" if type(key) is int else f".{key}" if key.isidentifier() else f"[{key[:64]!r}]")
    return "".join(parts)


def check(value: Any, path: str) -> None:
    """Raise ValueError (which msgspec reports with the struct's path) when
    ``value`` is no portable value."""
    if (found := offender(value, path)) is not None:
        raise ValueError(_at(found[1], found[0]))


def check_int(value: int, path: str) -> None:
    """Raise ValueError when ``value`` (the field ``path``) is outside
    MessagePack's integer range."""
    if not INT_MIN <= value <= INT_MAX:
        raise ValueError(_at(path, _OUT_OF_RANGE))


_OUT_OF_RANGE = "an integer outside -2**63 .. 2**64-1, which MessagePack cannot carry"


def _at(path: str, what: str) -> str:
    # The form wire.errors reads to add the field's path to the struct's.
    return f"{what} - in `{path}`"


def saturated(total: int) -> int:
    """A sum of token counts held to the range both codecs can write."""
    return INT_MIN if total < INT_MIN else INT_MAX if total > INT_MAX else total
