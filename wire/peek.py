"""Envelope peeking: an event's type and ids, without decoding the rest.

A router, a fan-out, a proxy or a raw-frame framing often needs only where an
event belongs (its type, reply, session, block or tool call) and forwards the
frame's bytes untouched. Decoding the whole event for that builds every string,
decodes base64 and validates nested blocks only to throw them away. A peek
decodes into an :class:`Envelope`, a Struct that declares nothing but those
fields; msgspec skips every other key while it tokenises. On the benchmark
reply a peek of every line takes about half the time of
``wire.json.decode_events`` (benchmarks/bench_peek.py; figures in
benchmarks/README.md).

What an envelope holds, and what it does not:

* ``type`` is always an :class:`~wire.events.EventType`. An unknown tag raises
  :class:`~wire.errors.DecodeError` at ``$.type`` by default, exactly as full
  decoding does: a peek never accepts an event type that ``decode_event``
  would reject, so a router does not forward what its consumers will fail on.
  A proxy that passes newer peers' events through peeks with
  ``unknown="keep"`` (the streaming decoders' word for the same choice) and
  gets an :class:`UnknownEnvelope` for them, whose ``type`` is the tag as sent
  (a str): a separate class, so ``Envelope.type`` stays an EventType.
* ``reply_id``: every event but CUSTOM has one (None for CUSTOM).
* ``session_id``: REPLY_START and REPLY_END only.
* ``block_id``: text, thinking, data and hint events, and TOOL_RESULT_DATA_DELTA,
  where it is optional on the wire: a peek gives None when it is absent, while
  full decoding generates a fresh id then (which a peek cannot know).
* ``tool_call_id``: the TOOL_CALL_* and TOOL_RESULT_* events.

Ids the event does not have are None. Envelope fields are validated as full decoding
validates them, with the same messages and paths: no ``type`` is a DecodeError
at ``$``, a ``reply_id`` that is not a string one at ``$.reply_id``, a missing
required id one at ``$``. The other fields are skipped, not validated (bad JSON
syntax is still an error): whenever full decoding succeeds a peek succeeds and
agrees with it, and whenever a peek fails full decoding fails too.

Each event type has its own private Envelope subclass, derived here from the
event classes themselves (so they cannot drift), that declares exactly the
envelope fields that event has, required where the event requires them. The
tagged union of those subclasses lets msgspec check the tag, the required ids
and their types in C, in one call, and return the envelope itself: no second
object, no Python per event.

This module sits beside the codecs' building blocks (it imports the model,
``wire.errors`` and msgspec only); ``wire.json.peek`` and ``wire.msgpack.peek``
re-export its functions. The streaming decoders made with ``raw=True,
peek=True`` map this module's decoders over each chunk's payloads and put the
envelope on each frame (``RawFrame.envelope``), with the same checks and the
same errors as :func:`peek_json` and :func:`peek_msgpack`.
"""

from __future__ import annotations

import functools
import operator
from typing import Any, ClassVar, Literal, Protocol, TypeAlias, cast, overload

import msgspec
from msgspec import Struct

from wire._codec import DECODE_ERRORS, UNKNOWN_TYPE, decode_error
from wire.events import AgentEvent, EventType

__all__ = ("Envelope", "Unknown", "UnknownEnvelope", "envelope_of", "peek_json", "peek_json_lines", "peek_msgpack")

# The ids an envelope carries; each subclass declares them in its event's order.
_ENVELOPE_FIELDS = ("session_id", "reply_id", "block_id", "tool_call_id")


class Envelope(Struct, tag_field="type", kw_only=True, frozen=True, gc=False):
    """The routing fields of one event: ``type``, ``reply_id``, ``session_id``,
    ``block_id``, ``tool_call_id`` (None where the event has no such field).

    Made by :func:`peek_json`, :func:`peek_msgpack`, :func:`peek_json_lines`
    and :func:`envelope_of`; two envelopes are equal when their type and ids
    are. Frozen and hashable, so it can key a dict of routes.
    """

    event_type: ClassVar[EventType]

    @property
    def type(self) -> EventType:
        """The event's type, as ``event.type`` of the decoded event."""
        return self.event_type

    # Each subclass declares as fields the ids its event has; a field's slot
    # in the subclass shadows these properties, which answer None for the rest.
    @property
    def session_id(self) -> str | None:
        return None

    @property
    def reply_id(self) -> str | None:
        return None

    @property
    def block_id(self) -> str | None:
        return None

    @property
    def tool_call_id(self) -> str | None:
        return None

    def __repr__(self) -> str:
        fields = "".join(f", {name}={getattr(self, name)!r}" for name in self.__struct_fields__)
        return f"Envelope(type={self.event_type.value!r}{fields})"

    def __rich_repr__(self) -> Any:  # msgspec's own would name the private subclass
        yield "type", self.event_type.value
        for name in self.__struct_fields__:
            yield name, getattr(self, name)


def _envelope_class(event_cls: type[Struct]) -> type[Envelope]:
    """The Envelope subclass of one event class: its tag, and those of its
    fields that are envelope fields, in its order, required as it requires them."""
    fields: list[tuple[str, type] | tuple[str, type, None]] = []
    for info in msgspec.structs.fields(event_cls):
        if info.name in _ENVELOPE_FIELDS:
            if info.type is not str:  # pragma: no cover - guards a change in wire.events
                raise TypeError(f"{event_cls.__name__}.{info.name} is not a str")
            # A field that is optional in the event is typed str with a None
            # default (not ``str | None``): null on the wire is an error in
            # full decoding, so it must be one here too.
            fields.append((info.name, str) if info.required else (info.name, str, None))
    name = event_cls.__name__.removesuffix("Event") + "Envelope"
    cls = msgspec.defstruct(name, fields, bases=(Envelope,), module=__name__,
                            tag=event_cls.__struct_config__.tag,
                            kw_only=True, frozen=True, gc=False)
    cls.event_type = event_cls.event_type  # type: ignore[attr-defined]
    return cast(type[Envelope], cls)


_BY_EVENT: dict[type[Any], type[Envelope]] = {cls: _envelope_class(cls) for cls in AgentEvent.__args__}
# Module attributes under their own names, so envelopes pickle.
globals().update({cls.__name__: cls for cls in _BY_EVENT.values()})
_FIELDS: dict[type[Any], tuple[str, ...]] = {
    cls: env.__struct_fields__ for cls, env in _BY_EVENT.items()
}
_ENVELOPE_UNION: Any = functools.reduce(operator.or_, _BY_EVENT.values())

class UnknownEnvelope(Struct, kw_only=True, frozen=True, gc=False, repr_omit_defaults=True):
    """The envelope of an event whose ``type`` this version of wire does not
    know (a newer peer), from a peek with ``unknown="keep"``: ``type`` is the
    tag as sent and each id is read where the event has one, None elsewhere.
    With no schema to go by, the ids are only required to be strings or null
    (anything else is a DecodeError at its path); nothing is required."""

    type: str
    session_id: str | None = None
    reply_id: str | None = None
    block_id: str | None = None
    tool_call_id: str | None = None


Unknown: TypeAlias = Literal["raise", "keep"]
_JSONInput: TypeAlias = bytes | bytearray | memoryview | str


_json_decoder: msgspec.json.Decoder[Envelope] = msgspec.json.Decoder(_ENVELOPE_UNION)
_msgpack_decoder: msgspec.msgpack.Decoder[Envelope] = msgspec.msgpack.Decoder(_ENVELOPE_UNION)
_json_unknown = msgspec.json.Decoder(UnknownEnvelope)
_msgpack_unknown = msgspec.msgpack.Decoder(UnknownEnvelope)


def _not_an_event(exc: Exception, buf: Any, unknown: Unknown, decoder: _Decoder,
                  index: int | None = None, offset: int | None = None,
                  events: list[Any] | None = None) -> UnknownEnvelope:
    """The error for ``buf``, raised; or, with ``unknown="keep"`` and an
    unknown tag as the only problem, its UnknownEnvelope. Only failures get
    here, so keeping unknown events costs known ones nothing."""
    err = decode_error(exc, index=index, offset=offset, events=events, data=buf)
    if unknown != "raise":
        if unknown != "keep":
            raise ValueError(f"unknown must be 'raise' or 'keep', not {unknown!r}")
        # A tag outside the union (wire._codec names it "unknown event type");
        # a tag that is not a string fails at $.type with "Expected `str`".
        if err.path == "$.type" and err.reason.startswith(UNKNOWN_TYPE):
            try:
                return decoder.decode(buf)
            except DECODE_ERRORS as again:
                raise decode_error(again, index=index, offset=offset, events=events, data=buf) from again
    raise err from exc


class _Decoder(Protocol):
    def decode(self, buf: Any, /) -> UnknownEnvelope: ...


@overload
def peek_json(buf: _JSONInput, *, unknown: Literal["raise"] = "raise") -> Envelope: ...
@overload
def peek_json(buf: _JSONInput, *, unknown: Literal["keep"]) -> Envelope | UnknownEnvelope: ...


def peek_json(buf: _JSONInput, *, unknown: Unknown = "raise") -> Envelope | UnknownEnvelope:
    """The envelope of one JSON event; bad input raises DecodeError with ``path``.

    An unknown ``type`` raises too, unless ``unknown="keep"``: then it gives an
    :class:`UnknownEnvelope`."""
    try:
        return _json_decoder.decode(buf)
    except DECODE_ERRORS as exc:
        return _not_an_event(exc, buf, unknown, _json_unknown)


@overload
def peek_msgpack(buf: bytes | bytearray | memoryview, *,
                 unknown: Literal["raise"] = "raise") -> Envelope: ...
@overload
def peek_msgpack(buf: bytes | bytearray | memoryview, *,
                 unknown: Literal["keep"]) -> Envelope | UnknownEnvelope: ...


def peek_msgpack(buf: bytes | bytearray | memoryview, *, unknown: Unknown = "raise") -> Envelope | UnknownEnvelope:
    """The envelope of one MessagePack event; bad input raises DecodeError with
    ``path``, and an unknown ``type`` too unless ``unknown="keep"``.

    Skipping a ``bin`` is a pointer move, so peeking a data chunk costs the
    same whatever its size."""
    try:
        return _msgpack_decoder.decode(buf)
    except DECODE_ERRORS as exc:
        return _not_an_event(exc, buf, unknown, _msgpack_unknown)


@overload
def peek_json_lines(ndjson: _JSONInput, *, unknown: Literal["raise"] = "raise") -> list[Envelope]: ...
@overload
def peek_json_lines(ndjson: _JSONInput, *,
                    unknown: Literal["keep"]) -> list[Envelope | UnknownEnvelope]: ...


def peek_json_lines(ndjson: _JSONInput, *,
                    unknown: Unknown = "raise") -> list[Envelope] | list[Envelope | UnknownEnvelope]:
    """The envelope of every event of an NDJSON buffer (blank lines are skipped).

    Bad input raises DecodeError as ``wire.json.decode_events`` does: ``index``
    is the bad line's event index, ``offset`` the byte where that line starts,
    ``path`` the place inside it and ``events`` the envelopes of the lines
    before it. ``unknown="keep"`` as in :func:`peek_json`; one unknown event
    makes the whole buffer go line by line (an unknown tag fails msgspec's
    whole ``decode_lines`` call)."""
    try:
        return _json_decoder.decode_lines(ndjson)
    except DECODE_ERRORS:
        pass
    # One msgspec call failed for the whole buffer: go again one line at a
    # time, to keep unknown events or to say where the first bad line is.
    data = ndjson.encode() if isinstance(ndjson, str) else bytes(ndjson)
    envelopes: list[Envelope | UnknownEnvelope] = []
    offset = 0
    for line in data.split(b"\n"):
        # Blank means JSON whitespace only, as decode_lines skips it; bytes.strip()
        # would also drop \x0b and \x0c, which decode_lines rejects, and then
        # no line would fail here.
        if line.strip(b" \t\r"):
            try:
                envelopes.append(_json_decoder.decode(line))
            except DECODE_ERRORS as exc:
                envelopes.append(_not_an_event(exc, line, unknown, _json_unknown, index=len(envelopes),
                                               offset=offset, events=envelopes))
        offset += len(line) + 1
    if unknown == "raise":  # pragma: no cover - decode_lines failed, so some line did
        raise AssertionError("decode_lines failed but every line decodes")
    return envelopes


def envelope_of(event: AgentEvent) -> Envelope:
    """The envelope of an event already in memory: what a peek at its encoding
    gives (except a TOOL_RESULT_DATA_DELTA's generated ``block_id``, which this
    includes). For producers that frame events with an envelope beside them."""
    cls = type(event)
    try:
        env = _BY_EVENT[cls]
    except KeyError:
        raise TypeError(f"not an AgentEvent: {cls.__name__}") from None
    return env(**{name: getattr(event, name) for name in _FIELDS[cls]})
