"""What the JSON and MessagePack codecs share: every msgspec decoder of the
model, built once per format; the one place where msgspec's errors become
wire's; one set of verbs over an encoder/decoder pair; and the ThinkingBlock
provider keys that msgspec's Structs cannot hold as fields.

Every module that decodes the model (``wire.json``, ``wire.msgpack``, the
framings, ``wire.peek``, ``wire.zerocopy``) takes its decoders from
:data:`JSON` and :data:`MSGPACK` and turns failures into
:class:`~wire.errors.DecodeError` with :func:`decode_error`, catching
:data:`DECODE_ERRORS`; encoders catch :data:`ENCODE_ERRORS` and raise
:func:`encode_error`. Nothing else in wire names a msgspec exception.

The hot paths (events) are one msgspec call each. Messages take a second,
cheap pass only when they hold a ThinkingBlock: msgspec drops unknown keys, so
provider keys (``signature``...) are read from the raw content items and put
back when encoding.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Callable
from functools import cache
from typing import Any, Literal, Protocol, TypeVar

import msgspec

from wire._portable import offender
from wire.blocks import ThinkingBlock
from wire.errors import DecodeError, EncodeError
from wire.events import AgentEvent, UnknownEvent
from wire.messages import Msg

Format = Literal["json", "msgpack"]

# What msgspec raises on bad input: its own errors, UnicodeDecodeError for
# invalid UTF-8 inside a string, and RecursionError for very deep nesting.
DECODE_ERRORS = (msgspec.DecodeError, UnicodeDecodeError, RecursionError)
ENCODE_ERRORS = (TypeError, ValueError, OverflowError, UnicodeEncodeError, EncodeError)

_THINKING_FIELDS = frozenset(ThinkingBlock.__struct_fields__) | {"type"}
_EVENT_TYPES = frozenset(AgentEvent.__args__)
KNOWN_TAGS = frozenset(cls.__struct_config__.tag for cls in AgentEvent.__args__)


class _RawContent(msgspec.Struct):
    content: list[msgspec.Raw] = []


class Head(msgspec.Struct):
    """Just the tag, to tell an event of an unknown type from a broken one."""

    type: str


T = TypeVar("T", covariant=True)


class Decoder(Protocol[T]):  # msgspec.json.Decoder and msgspec.msgpack.Decoder
    def decode(self, buf: Any, /) -> T: ...


class Decoders:
    """Every decoder of the model for one format, built once at import."""

    def __init__(self, format: Format) -> None:
        module: Any = msgspec.json if format == "json" else msgspec.msgpack
        self.format = format
        self.event: Decoder[AgentEvent] = module.Decoder(AgentEvent)
        self.event_list: Decoder[list[AgentEvent]] = module.Decoder(list[AgentEvent])
        self.raw_list: Decoder[list[msgspec.Raw]] = module.Decoder(list[msgspec.Raw])
        self.msg: Decoder[Msg] = module.Decoder(Msg)
        self.raw_content: Decoder[_RawContent] = module.Decoder(_RawContent)
        self.dict: Decoder[dict[str, Any]] = module.Decoder(dict[str, Any])
        self.head: Decoder[Head] = module.Decoder(Head)


JSON = Decoders("json")
MSGPACK = Decoders("msgpack")


# -- errors ----------------------------------------------------------------------------

_AT_PATH = re.compile(r" - at `(\$[^`]*)`$")
_AT_BYTE = re.compile(r" \(byte (\d+)\)$")
_JSON_TRAILING = "JSON is malformed: trailing characters"
# A RoleError names its block first (messages.py); msgspec reports it at the
# Msg, so the block's own path is the Msg's path plus that name.
_ROLE_BLOCK = re.compile(r"^(content\[\d+\]) is a ")
# A value only one codec can carry (wire._portable) names its field the same way.
_IN_FIELD = re.compile(r" - in `([^`]*)`$")
# msgspec's words for a tag outside the event union, at $.type.
_INVALID_TAG = re.compile(r"^Invalid value '(.*)'$", re.DOTALL)
UNKNOWN_TYPE = "unknown event type"
"""How a DecodeError's reason begins when the event's type is not one wire
knows (``unknown event type 'X'``, with the nearest known type when one is
close: ``: did you mean 'TEXT_BLOCK_DELTA'?``)."""


def _unknown_type(tag: str) -> str:
    """The reason for an unknown event type, naming the nearest known one.
    Only the error path runs this."""
    text = f"{UNKNOWN_TYPE} {tag[:64]!r}"
    upper = {known.upper(): known for known in KNOWN_TAGS}
    if (close := difflib.get_close_matches(tag[:64].upper(), list(upper), n=1, cutoff=0.75)):
        text += f": did you mean {upper[close[0]]!r}?"
    return text


def _bad_utf8_at(exc: UnicodeDecodeError, data: Any) -> int | None:
    """Where in ``data`` the bytes are that failed to decode as UTF-8, or None
    when that cannot be told for sure. msgspec counts ``exc.start`` from the
    start of the string it was reading (``exc.object``, its content with any
    JSON escapes undone), not from the start of ``data``. That content is
    found in ``data`` as it is when the string holds no escape (every
    MessagePack str, and most JSON ones), and it is the string that failed
    only if it occurs once: an earlier copy could sit in a field msgspec
    skipped without reading it."""
    if isinstance(data, str):  # encoded by msgspec itself: any bad bytes are not the caller's
        return None
    content = exc.object
    raw = data if isinstance(data, (bytes, bytearray)) else bytes(data)
    at = raw.find(content) if content else -1
    if at < 0 or raw.find(content, at + 1) >= 0:
        return None
    return at + exc.start


@cache
def _json_trailing_shift() -> int:
    """How far past the first trailing byte msgspec's JSON decoder names it
    (one byte in msgspec 0.22): measured once, so that a msgspec that names
    the byte itself needs no change here."""
    try:
        msgspec.json.decode(b"0x")
    except msgspec.DecodeError as exc:
        if match := _AT_BYTE.search(str(exc)):
            return int(match.group(1)) - 1  # "x" is byte 1
    return 0


def decode_error(exc: BaseException, *, index: int | None = None, offset: int | None = None,
                 events: list[Any] | None = None, exact: bool = True, data: Any = None) -> DecodeError:
    """One of :data:`DECODE_ERRORS` as a DecodeError, with the original as
    ``__cause__``. msgspec's ``- at `$...``` suffix becomes ``path`` (``$``
    when a validation error names none) and its ``(byte N)`` suffix is added
    to ``offset`` when ``exact`` (the decoded bytes are contiguous in the
    stream from ``offset``); invalid UTF-8 and too deep nesting get a reason
    of their own. ``data``, the bytes that were decoded, lets invalid UTF-8
    name its byte too (``_bad_utf8_at``)."""
    if isinstance(exc, UnicodeDecodeError):
        if exact and data is not None and (at := _bad_utf8_at(exc, data)) is not None:
            offset = (offset or 0) + at
        err = DecodeError(f"invalid UTF-8 ({exc.reason})", index=index, offset=offset, events=events)
    elif isinstance(exc, RecursionError):
        err = DecodeError("nesting too deep", index=index, offset=offset, events=events)
    else:
        text = str(exc)
        path = None
        if match := _AT_PATH.search(text):
            path, text = match.group(1), text[: match.start()]
        elif isinstance(exc, msgspec.ValidationError):
            path = "$"
        if path is not None and (match := _ROLE_BLOCK.match(text)):
            path = f"{path}.{match.group(1)}"
        if path is not None and (match := _IN_FIELD.search(text)):
            path, text = f"{path}.{match.group(1)}", text[: match.start()]
        if path == "$.type" and (match := _INVALID_TAG.match(text)):
            text = _unknown_type(match.group(1))
        if match := _AT_BYTE.search(text):
            at = int(match.group(1))
            if text.startswith(_JSON_TRAILING):
                at -= _json_trailing_shift()
            if exact:
                offset = (offset or 0) + at
            text = text[: match.start()]
        err = DecodeError(text, path=path, index=index, offset=offset, events=events)
    err.__cause__ = exc
    return err


def encode_error(obj: Any, exc: BaseException) -> EncodeError:
    """msgspec's encode errors as EncodeError (an EncodeError from a hook as is)."""
    if isinstance(exc, EncodeError):
        return exc
    err = EncodeError(f"cannot encode {type(obj).__name__}: {exc}")
    err.__cause__ = exc
    return err


# -- the verbs ---------------------------------------------------------------------------


class Codec:
    """One wire format: encoder, typed decoders and the verbs built on them."""

    def __init__(self, *, encoder: Any, decoders: Decoders, builtin_types: tuple[type, ...] = ()) -> None:
        self._encode: Callable[[Any], bytes] = encoder.encode
        self.encoder = encoder
        self._event = decoders.event
        self._msg = decoders.msg
        self._raw_content = decoders.raw_content
        self._dict = decoders.dict
        self._builtin_types = builtin_types

    def encode(self, obj: Any) -> bytes:
        """Encode an event, a Msg, a block or any wire object. An UnknownEvent
        is written as the bytes it was read from."""
        try:
            if type(obj) in _EVENT_TYPES:  # the hot path
                return self._encode(obj)
            return self._encode(self._prepared(obj))
        except ENCODE_ERRORS as exc:
            raise encode_error(obj, exc) from exc

    def encode_many(self, events: list[Any], encode: Callable[[list[Any]], bytes]) -> bytes:
        """``encode`` (a batch method of the encoder) over events, with
        errors translated."""
        try:
            return encode(events)
        except ENCODE_ERRORS as exc:
            raise encode_error(events, exc) from exc

    def builtins(self, obj: Any) -> Any:
        """What decoding ``encode(obj)`` with a schemaless decoder gives
        (dicts, lists, str, ...), built without writing the bytes: every
        container is new, so changing ``obj`` afterwards never changes it.
        JSON's only (``wire.json._to_builtins``): MessagePack's builtin types
        would pass a growing data block's bytearray through, shared."""
        try:
            return msgspec.to_builtins(self._prepared(obj), builtin_types=self._builtin_types)
        except ENCODE_ERRORS as exc:
            raise encode_error(obj, exc) from exc

    def _prepared(self, obj: Any) -> Any:
        """What msgspec must see: ThinkingBlocks' provider keys (which no
        Struct field holds) written after the fields."""
        if type(obj) is Msg:
            if any(type(b) is ThinkingBlock and vars(b) for b in obj.content):
                out: dict[str, Any] = msgspec.to_builtins(obj, builtin_types=self._builtin_types)
                for block, item in zip(obj.content, out["content"], strict=True):
                    if type(block) is ThinkingBlock:
                        item.update(vars(block))
                return out
        elif type(obj) is ThinkingBlock and vars(obj):
            return {**msgspec.to_builtins(obj, builtin_types=self._builtin_types), **vars(obj)}
        return obj

    def decode_event(self, buf: Any) -> AgentEvent:
        """One event; bad input raises DecodeError naming the path."""
        try:
            return self._event.decode(buf)
        except DECODE_ERRORS as exc:
            raise decode_error(exc, data=buf) from exc

    def decode_msg(self, buf: Any) -> Msg:
        """One Msg, role rules checked; bad input raises DecodeError."""
        try:
            msg = self._msg.decode(buf)
        except DECODE_ERRORS as exc:
            raise decode_error(exc, data=buf) from exc
        if any(type(b) is ThinkingBlock for b in msg.content):
            self._restore_provider_keys(msg, buf)
        return msg

    def _restore_provider_keys(self, msg: Msg, buf: Any) -> None:
        raw = self._raw_content.decode(buf).content
        for i, (block, item) in enumerate(zip(msg.content, raw, strict=True)):
            if type(block) is ThinkingBlock:
                try:  # every key of a thinking block is kept, so each must be readable
                    keys = self._dict.decode(item)
                except DECODE_ERRORS as exc:
                    err = decode_error(exc)
                    err.path = f"$.content[{i}]"
                    raise err from exc
                for key, value in keys.items():
                    if key not in _THINKING_FIELDS:
                        if (found := offender(value, f"$.content[{i}].{key[:64]}")) is not None:
                            raise DecodeError(found[0], path=found[1])
                        # Into __dict__, not setattr: a key such as "__class__"
                        # must stay data, as agentscope keeps it.
                        vars(block)[key] = value


def unknown_event_hook(format: str) -> Callable[[Any], Any]:
    """An ``enc_hook`` that writes an UnknownEvent as the bytes it was read
    from: msgspec hands it over because it is no Struct."""

    def hook(obj: Any) -> Any:
        if type(obj) is UnknownEvent:
            if obj.format != format:
                raise EncodeError(f"an UnknownEvent read from {obj.format} cannot be written as {format}")
            return msgspec.Raw(obj.raw)
        raise TypeError(f"cannot encode {type(obj).__name__}")

    return hook
