"""What the AG-UI and Vercel bridges share (``wire.bridges.agui``,
``wire.bridges.vercel``): both write JSON that JavaScript's clients and
servers write, and both catch a client up from a checkpoint's Msg.

* :func:`gained`: what a block's text, reasoning or tool-call arguments
  gained since the client was last sent them (the prefix-diff of a
  checkpoint catch-up, and of a TEXT_BLOCK_END's final text).
* :func:`js_value`: a free-form JSON value (metadata, a CUSTOM value, a
  tool's input or output) with every float spelled as ``JSON.stringify``
  spells it and integer-like keys first, so a bridge's bytes equal those of
  the JavaScript encoder its frontend ships (``@ag-ui/encoder``, ai's
  ``JsonToSseTransformStream``).
"""

from __future__ import annotations

import math
from typing import Any

import msgspec

__all__ = ("gained", "js_number", "js_value")


def gained(held: str, now: str) -> str | None:
    """What ``now`` adds to ``held`` (what the client has of a block): the
    rest of ``now`` when it goes on from ``held`` (``""`` when they are
    equal), None when it replaces it (it does not start with ``held``: each
    bridge says that its own way, as its client cannot take it back)."""
    if now.startswith(held):
        return now[len(held):]
    return None


def js_number(value: float) -> msgspec.Raw:
    """``value`` spelled as JavaScript's ``JSON.stringify`` spells it (Python
    writes ``1.0``, ``1e16`` and ``1e-07``; JavaScript ``1``, ``10000000000000000``
    and ``1e-7``): ECMA-262 Number::toString, from Python's shortest digits."""
    if not math.isfinite(value):
        return msgspec.Raw(b"null")  # JSON.stringify(NaN) is null
    if value == 0:
        return msgspec.Raw(b"0")  # -0 too
    sign = "-" if value < 0 else ""
    mantissa, _, exp = repr(abs(value)).partition("e")
    whole, _, frac = mantissa.partition(".")
    if frac == "0":
        frac = ""
    digits = (whole + frac).lstrip("0")
    point = len(whole) + (int(exp) if exp else 0)  # value = 0.<digits> * 10**point, before stripping
    point -= len(whole + frac) - len((whole + frac).lstrip("0"))
    digits = digits.rstrip("0") or "0"
    k, n = len(digits), point
    if k <= n <= 21:
        text = digits + "0" * (n - k)
    elif 0 < n <= 21:
        text = digits[:n] + "." + digits[n:]
    elif -6 < n <= 0:
        text = "0." + "0" * -n + digits
    else:
        e = n - 1
        text = digits[0] + ("." + digits[1:] if k > 1 else "") + "e" + ("+" if e >= 0 else "-") + str(abs(e))
    return msgspec.Raw((sign + text).encode())


def js_value(value: Any) -> Any:
    """A free-form JSON value with every float in JavaScript's spelling and,
    in every object, integer-like keys first, so the bytes msgspec writes of
    it equal ``JSON.stringify``'s."""
    if isinstance(value, dict):
        items = {key: js_value(item) for key, item in value.items()}
        index_keys = [key for key in items if _is_array_index(key)]
        if not index_keys:
            return items
        # JavaScript objects list integer-like keys first, ascending (ECMA-262
        # OrdinaryOwnPropertyKeys), and JSON.stringify writes them in that order.
        ordered = {key: items[key] for key in sorted(index_keys, key=int)}
        ordered.update(items)
        return ordered
    if isinstance(value, list | tuple):
        return [js_value(item) for item in value]
    if isinstance(value, float):
        return js_number(value)
    return value


def _is_array_index(key: object) -> bool:
    """``key`` is a canonical array index: "0", "7", never "07" or "-1"."""
    return (isinstance(key, str) and key.isascii() and key.isdigit() and (key == "0" or key[0] != "0")
            and int(key) < 2**32 - 1)
