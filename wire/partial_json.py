"""The JSON value of a text that is still arriving: a streaming tool call's
input, parsed as its fragments come, in time linear in its length.

A model streams a tool call's arguments as fragments of one JSON text
(TOOL_CALL_DELTA events). :class:`PartialJSON` reads each fragment once and
keeps the value parsed so far, with what is still open closed::

    >>> view = PartialJSON()
    >>> for fragment in ['{"city": "Par', 'is", "days": [1, ', '2, 3', ']}']:
    ...     view.feed(fragment)
    ...     print(view.value)
    {'city': 'Par'}
    {'city': 'Paris', 'days': [1]}
    {'city': 'Paris', 'days': [1, 2]}
    {'city': 'Paris', 'days': [1, 2, 3]}

The value only ever grows towards the final one, never shows what the rest
of the text could contradict:

* strings appear as soon as they open and grow as they stream (``"Par"``);
  an escape split between fragments waits for its last character, and a
  ``\\uD83D`` escape for the low surrogate that may follow it;
* objects and arrays appear when they open; an object member appears once
  its key is complete and its value has begun;
* numbers, ``true``, ``false`` and ``null`` appear once complete: ``12`` may
  still become ``123``, so a number waits for the character after it (for a
  number alone at the top level, that is :meth:`close`).

Each fragment costs time proportional to its length: containers are updated
in place, a number's characters are kept as pieces joined at its end, and the
string being streamed is kept as pieces joined onto it when ``value`` is read,
growing the string in place as long as the caller has not kept that string
itself (then the read copies it once, so what the caller kept never changes).
Reading ``value`` after every fragment of a long string is linear too.

To show a text kept elsewhere as it grows (a ``ToolCallBlock``'s ``input``),
feed the view only what it has not seen: ``view.feed(text[view.length:])``.

The grammar is RFC 8259's, as strict as ``json.loads`` with NaN and Infinity
refused (JavaScript's ``JSON.parse`` refuses them too): bad text raises
:class:`PartialJSONError` naming the character and the JSON path. The same
parser exists in the TypeScript runtime (``schemas/src/partial.ts``); both
run the shared vectors in ``tests/vectors/partial-json/``.
"""

from __future__ import annotations

import json
import re
from typing import Any

from wire.errors import DecodeError, LocalProtocolError

__all__ = ("PartialJSON", "PartialJSONError")

_WHITESPACE = re.compile(r"[ \t\n\r]*")
_PLAIN = re.compile(r'[^"\\\x00-\x1f]+')  # string characters that need no decoding
_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_ESCAPES = {'"': '"', "\\": "\\", "/": "/", "b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t"}
_HEX = frozenset("0123456789abcdefABCDEF")
_LITERALS: dict[str, Any] = {"true": True, "false": False, "null": None}
_LITERAL_STARTS = {"t": "true", "f": "false", "n": "null"}

# What the parser expects next.
_VALUE = 0          # a value (top level, after ':' or after ',' in an array)
_VALUE_OR_END = 1   # a value or ']' (just after '[')
_KEY_OR_END = 2     # a key or '}' (just after '{')
_KEY = 3            # a key (after ',' in an object)
_COLON = 4          # ':' after a key
_AFTER = 5          # ',' or the container's closing bracket, after a value
_DONE = 6           # the top-level value is complete: only whitespace may follow
_STRING = 7         # inside a string
_ESCAPE = 8         # inside a string's escape sequence (self._escape holds it so far)
_NUMBER = 9         # inside a number (self._number holds it so far)
_LITERAL = 10       # inside true, false or null (self._literal names it)

# A number's grammar (RFC 8259 section 6) as states: what each character
# class leads to; a missing entry is an error. The states in _NUMBER_ENDS
# may end the number.
_N_START, _N_MINUS, _N_ZERO, _N_INT, _N_DOT, _N_FRAC, _N_E, _N_E_SIGN, _N_EXP = range(9)
_NUMBER_MOVES: dict[tuple[int, str], int] = {
    (_N_START, "-"): _N_MINUS, (_N_START, "0"): _N_ZERO, (_N_START, "1"): _N_INT,
    (_N_MINUS, "0"): _N_ZERO, (_N_MINUS, "1"): _N_INT,
    (_N_ZERO, "."): _N_DOT, (_N_ZERO, "e"): _N_E,
    (_N_INT, "0"): _N_INT, (_N_INT, "1"): _N_INT, (_N_INT, "."): _N_DOT, (_N_INT, "e"): _N_E,
    (_N_DOT, "0"): _N_FRAC, (_N_DOT, "1"): _N_FRAC,
    (_N_FRAC, "0"): _N_FRAC, (_N_FRAC, "1"): _N_FRAC, (_N_FRAC, "e"): _N_E,
    (_N_E, "-"): _N_E_SIGN, (_N_E, "+"): _N_E_SIGN, (_N_E, "0"): _N_EXP, (_N_E, "1"): _N_EXP,
    (_N_E_SIGN, "0"): _N_EXP, (_N_E_SIGN, "1"): _N_EXP,
    (_N_EXP, "0"): _N_EXP, (_N_EXP, "1"): _N_EXP,
}
_NUMBER_CLASS = {**{d: "1" for d in "123456789"}, "0": "0", "-": "-", "+": "+", ".": ".", "e": "e", "E": "e"}
_NUMBER_ENDS = frozenset({_N_ZERO, _N_INT, _N_FRAC, _N_EXP})


class PartialJSONError(DecodeError):
    """Text that is not JSON, or not JSON yet when :meth:`PartialJSON.close`
    says it has ended.

    ``position`` is the index of the offending character in the whole text
    fed so far (characters, not bytes: fragments are ``str``); ``path`` is
    where in the value, as a JSON path (``$.days[2]``)."""

    def __init__(self, message: str, *, position: int, path: str) -> None:
        self.position = position
        super().__init__(message, path=path)

    def _render(self) -> str:
        return f"{self.reason} (character {self.position}, at {self.path})"


class PartialJSON:
    """An incremental JSON parser whose :attr:`value` is the value parsed so
    far: ``feed(fragment)`` as fragments come, read ``value`` whenever the
    view is needed, ``close()`` when the text has ended.

    One instance per text (per tool call). After an error, or after close,
    ``feed`` raises LocalProtocolError.
    """

    __slots__ = (
        "_closed", "_error", "_escape", "_has_value", "_high", "_keys", "_literal", "_matched", "_mode",
        "_number", "_number_state", "_offset", "_pieces", "_root", "_stack", "_string", "_string_is_key",
    )

    def __init__(self) -> None:
        self._mode = _VALUE
        self._offset = 0  # characters fed before the current fragment
        self._root: Any = None
        self._has_value = False
        # Open containers, outermost first, and for each its current key
        # (objects) or None (arrays).
        self._stack: list[dict[str, Any] | list[Any]] = []
        self._keys: list[str | None] = []
        # The open string: its text so far is _string + "".join(_pieces).
        self._string = ""
        self._pieces: list[str] = []
        self._string_is_key = False
        self._escape = ""
        self._high: int | None = None  # a high surrogate escape waiting for its pair
        self._number: list[str] = []  # the number's text so far, in pieces (joined at its end)
        self._number_state = _N_START
        self._literal = ""  # the literal being read, of which _matched characters have come
        self._matched = 0
        self._closed = False
        self._error: PartialJSONError | None = None

    # -- reading the view ------------------------------------------------------------

    @property
    def value(self) -> Any:
        """The value parsed so far, open strings, arrays and objects closed;
        None before any value has begun (see :attr:`started` to tell that
        from a JSON ``null``). The containers are the parser's own and keep
        growing in place: read ``value`` again after each ``feed``."""
        if self._pieces and not self._string_is_key:
            # Grow the open string in place: once the value lets go of it,
            # the local name holds its only reference (unless the caller kept
            # the string itself) and CPython resizes it instead of copying,
            # so reading after every fragment costs the fragment, not the
            # string (wire.reducer grows a block's text the same way).
            self._place("")
            text = self._string
            self._string = ""
            text += "".join(self._pieces)
            self._pieces.clear()
            self._string = text
            self._place(text)
        return self._root

    @property
    def started(self) -> bool:
        """Whether :attr:`value` holds a value yet."""
        return self._has_value

    @property
    def complete(self) -> bool:
        """Whether the whole top-level value has been read (a top-level
        number only counts once a character after it, or close, ends it)."""
        return self._mode == _DONE

    @property
    def length(self) -> int:
        """The number of characters fed so far."""
        return self._offset

    @property
    def error(self) -> PartialJSONError | None:
        """The error that stopped the text, if it is not JSON."""
        return self._error

    # -- feeding ---------------------------------------------------------------------

    def feed(self, fragment: str) -> None:
        """Parse the next fragment of the text. Raises PartialJSONError at the
        first character that cannot be JSON; ``value`` then still holds what
        came before it."""
        if self._error is not None:
            raise LocalProtocolError("feed() after a PartialJSONError: the text is not JSON")
        if self._closed:
            raise LocalProtocolError("feed() after close()")
        if self._mode == _STRING and self._high is None and _PLAIN.fullmatch(fragment):
            # Most fragments are a piece of a string's plain text: keep it, nothing to parse.
            self._pieces.append(fragment)
            self._offset += len(fragment)
            return
        try:
            self._parse(fragment)
        except PartialJSONError as exc:
            self._error = exc
            raise
        self._offset += len(fragment)

    def close(self) -> Any:
        """End the text and return the complete value. Raises
        PartialJSONError if the text stopped inside a value (or held none)."""
        if self._error is not None:
            raise LocalProtocolError("close() after a PartialJSONError: the text is not JSON")
        if not self._closed:
            self._closed = True
            if self._mode == _NUMBER and self._number_state in _NUMBER_ENDS and not self._stack:
                self._end_number(self._offset)
            if self._mode != _DONE:
                empty = self._mode == _VALUE and not self._stack
                what = "no JSON value" if empty else "the JSON text ends inside a value"
                self._error = self._fail(what, self._offset)
                raise self._error
        return self._root

    # -- the parser --------------------------------------------------------------------

    def _parse(self, text: str) -> None:
        i = 0
        n = len(text)
        runs = (self._string_run, self._escape_run, self._number_run, self._literal_run)  # _STRING.._LITERAL
        while i < n:
            mode = self._mode
            if mode >= _STRING:  # inside a token: its own run reads as far as it goes
                i = runs[mode - _STRING](text, i, n)
                continue
            i = _WHITESPACE.match(text, i).end()  # type: ignore[union-attr]  # matches the empty string
            if i == n:
                break
            char = text[i]
            if mode == _AFTER:
                container = self._stack[-1]
                if char == ",":
                    self._mode = _KEY if type(container) is dict else _VALUE
                elif char == ("}" if type(container) is dict else "]"):
                    self._end_container()
                else:
                    closing = "'}'" if type(container) is dict else "']'"
                    raise self._fail(f"expected ',' or {closing} after a value, not {char!r}", self._offset + i)
                i += 1
            elif mode in (_VALUE, _VALUE_OR_END):
                if char == "]" and mode == _VALUE_OR_END:
                    self._end_container()
                    i += 1
                else:
                    i = self._begin_value(text, i)
            elif mode in (_KEY, _KEY_OR_END):
                if char == '"':
                    self._begin_string(is_key=True)
                elif char == "}" and mode == _KEY_OR_END:
                    self._end_container()
                else:
                    expected = "a key or '}'" if mode == _KEY_OR_END else "a key"
                    raise self._fail(f"expected {expected} (a string), not {char!r}", self._offset + i)
                i += 1
            elif mode == _COLON:
                if char != ":":
                    raise self._fail(f"expected ':' after an object key, not {char!r}", self._offset + i)
                self._mode = _VALUE
                i += 1
            else:  # _DONE
                raise self._fail(f"extra data after the JSON value: {char!r}", self._offset + i)

    def _begin_value(self, text: str, i: int) -> int:
        char = text[i]
        if char == '"':
            self._begin_string(is_key=False)
            self._place_new("")
            return i + 1
        if char == "{" or char == "[":
            container: dict[str, Any] | list[Any] = {} if char == "{" else []
            self._place_new(container)
            self._stack.append(container)
            self._keys.append(None)
            self._mode = _KEY_OR_END if char == "{" else _VALUE_OR_END
            return i + 1
        if char == "-" or "0" <= char <= "9":
            self._number = []
            self._number_state = _N_START
            self._mode = _NUMBER
            return i
        literal = _LITERAL_STARTS.get(char)
        if literal is not None:
            self._literal = literal
            self._matched = 0
            self._mode = _LITERAL
            return i
        raise self._fail(f"expected a JSON value, not {char!r}", self._offset + i)

    def _begin_string(self, *, is_key: bool) -> None:
        self._string = ""
        self._pieces = []
        self._string_is_key = is_key
        self._mode = _STRING

    def _string_run(self, text: str, i: int, n: int) -> int:
        plain = _PLAIN.match(text, i)
        if plain is not None:
            if self._high is not None:
                self._flush_high()
            self._pieces.append(plain.group())
            i = plain.end()
            if i == n:
                return i
        char = text[i]
        if char == '"':
            self._end_string()
        elif char == "\\":
            self._escape = "\\"
            self._mode = _ESCAPE
        else:
            raise self._fail(f"control character {char!r} in a string: it must be escaped", self._offset + i)
        return i + 1

    def _escape_run(self, text: str, i: int, n: int) -> int:
        escape = self._escape
        while i < n:
            char = text[i]
            if len(escape) == 1:
                if char == "u":
                    escape = "\\u"
                elif char in _ESCAPES:
                    if self._high is not None:
                        self._flush_high()
                    self._pieces.append(_ESCAPES[char])
                    self._mode = _STRING
                    return i + 1
                else:
                    raise self._fail(f"invalid escape '\\{char}' in a string", self._offset + i)
            else:
                if char not in _HEX:
                    raise self._fail(f"invalid \\u escape: {char!r} is not a hex digit", self._offset + i)
                escape += char
                if len(escape) == 6:
                    self._code_unit(int(escape[2:], 16))
                    self._mode = _STRING
                    return i + 1
            i += 1
        self._escape = escape
        return i

    def _code_unit(self, unit: int) -> None:
        """One \\uXXXX escape: a surrogate pair becomes one character, as in
        json.loads; a high surrogate waits to see whether its low one follows."""
        if self._high is not None:
            if 0xDC00 <= unit <= 0xDFFF:
                self._pieces.append(chr(0x10000 + ((self._high - 0xD800) << 10) + (unit - 0xDC00)))
                self._high = None
                return
            self._flush_high()
        if 0xD800 <= unit <= 0xDBFF:
            self._high = unit
        else:
            self._pieces.append(chr(unit))

    def _flush_high(self) -> None:
        assert self._high is not None
        self._pieces.append(chr(self._high))  # a lone surrogate, as json.loads keeps it
        self._high = None

    def _end_string(self) -> None:
        if self._high is not None:
            self._flush_high()
        text = self._string + "".join(self._pieces)
        self._pieces = []
        self._string = ""
        if self._string_is_key:
            self._keys[-1] = text
            self._mode = _COLON
        else:
            self._place(text)
            self._end_value()

    def _number_run(self, text: str, i: int, n: int) -> int:
        state = self._number_state
        start = i
        while i < n:
            cls = _NUMBER_CLASS.get(text[i])
            if cls is None:
                break
            moved = _NUMBER_MOVES.get((state, cls))
            if moved is None:
                before = "".join(self._number) + text[start:i]
                raise self._fail(f"invalid number: {text[i]!r} cannot follow {before!r}", self._offset + i)
            state = moved
            i += 1
        self._number.append(text[start:i])
        self._number_state = state
        if i < n:  # a character that is not part of a number ends it
            self._end_number(self._offset + i)
        return i

    def _end_number(self, at: int) -> None:
        number = "".join(self._number)
        if self._number_state not in _NUMBER_ENDS:
            raise self._fail(f"incomplete number {number!r}", at)
        try:
            value: int | float = float(number) if any(c in number for c in ".eE") else int(number)
        except ValueError as exc:  # more digits than int() converts (sys.set_int_max_str_digits)
            raise self._fail(f"number too long to convert: {exc}", at - len(number)) from exc
        self._place_new(value)
        self._end_value()

    def _literal_run(self, text: str, i: int, n: int) -> int:
        literal = self._literal
        want = literal[self._matched:]
        take = text[i:i + len(want)]
        if not want.startswith(take):
            bad = next(k for k, c in enumerate(take) if c != want[k])
            raise self._fail(f"invalid literal: expected {literal!r}", self._offset + i + bad)
        self._matched += len(take)
        if self._matched == len(literal):
            self._place_new(_LITERALS[literal])
            self._end_value()
        return i + len(take)

    # -- building the value --------------------------------------------------------------

    def _place_new(self, value: Any) -> None:
        """Put a value that has just begun where it belongs."""
        if not self._stack:
            self._root = value
            self._has_value = True
            return
        container = self._stack[-1]
        if type(container) is list:
            container.append(value)
        else:
            container[self._keys[-1]] = value  # type: ignore[index,call-overload]

    def _place(self, value: Any) -> None:
        """Replace the value being parsed (the open string) with ``value``."""
        if not self._stack:
            self._root = value
            return
        container = self._stack[-1]
        if type(container) is list:
            container[-1] = value
        else:
            container[self._keys[-1]] = value  # type: ignore[index,call-overload]

    def _end_value(self) -> None:
        self._mode = _AFTER if self._stack else _DONE

    def _end_container(self) -> None:
        self._stack.pop()
        self._keys.pop()
        self._end_value()

    def _fail(self, message: str, position: int) -> PartialJSONError:
        return PartialJSONError(message, position=position, path=self._path())

    def _reading_key(self) -> bool:
        return self._mode in (_KEY, _KEY_OR_END) or (self._string_is_key and self._mode in (_STRING, _ESCAPE))

    def _path(self) -> str:
        """Where the parser is, as a JSON path: the keys and indexes of the
        open containers down to the value being read."""
        path = "$"
        last = len(self._stack) - 1
        for depth, (container, key) in enumerate(zip(self._stack, self._keys, strict=True)):
            innermost = depth == last
            if type(container) is list:
                # The innermost array's next item has not been placed yet while
                # the parser waits for it or reads a number or literal.
                pending = innermost and self._mode in (_VALUE, _VALUE_OR_END, _NUMBER, _LITERAL)
                if container or pending:
                    path += f"[{len(container) if pending else len(container) - 1}]"
            elif key is not None and not (innermost and self._reading_key()):
                path += f".{key}" if _IDENTIFIER.fullmatch(key) else f"[{json.dumps(key)}]"
        return path
