"""What the JSON and MessagePack codecs share: one set of verbs over a msgspec
encoder/decoder pair, error translation at the boundary, and the ThinkingBlock
provider keys that msgspec's Structs cannot hold as fields.

The hot paths (events) are one msgspec call each. Messages take a second,
cheap pass only when they hold a ThinkingBlock: msgspec drops unknown keys, so
provider keys (``signature``...) are read from the raw content items and put
back when encoding.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol, TypeVar

import msgspec

from wire._portable import problem
from wire.blocks import ThinkingBlock, settle
from wire.errors import DecodeError, EncodeError, decode_error_from_msgspec
from wire.events import AgentEvent, UnknownEvent
from wire.messages import Msg

T = TypeVar("T", covariant=True)

# What msgspec raises on bad input: its own errors, UnicodeDecodeError for
# invalid UTF-8 inside a string, and RecursionError for very deep nesting.
DECODE_ERRORS = (msgspec.DecodeError, UnicodeDecodeError, RecursionError)

_THINKING_FIELDS = frozenset(ThinkingBlock.__struct_fields__) | {"type"}
# Events are frozen and join any growing block they carry when made, so they
# go to msgspec as they are (settling costs more than encoding a small event).
_EVENT_TYPES = frozenset(AgentEvent.__args__)


class _Decoder(Protocol[T]):  # msgspec.json.Decoder and msgspec.msgpack.Decoder
    def decode(self, buf: Any, /) -> T: ...


class _RawContent(msgspec.Struct):
    content: list[msgspec.Raw] = []


class Codec:
    """One wire format: encoder, typed decoders and the verbs built on them."""

    def __init__(self, *, encoder: Any, event_decoder: _Decoder[AgentEvent],
                 msg_decoder: _Decoder[Msg], raw_content_decoder: _Decoder[_RawContent],
                 dict_decoder: _Decoder[dict[str, Any]], builtin_types: tuple[type, ...] = ()) -> None:
        self._encode: Callable[[Any], bytes] = encoder.encode
        self.encoder = encoder
        self._event = event_decoder
        self._msg = msg_decoder
        self._raw_content = raw_content_decoder
        self._dict = dict_decoder
        self._builtin_types = builtin_types

    def encode(self, obj: Any) -> bytes:
        """Encode an event, a Msg, a block or any wire object. An UnknownEvent
        is written as the bytes it was read from."""
        try:
            if type(obj) in _EVENT_TYPES:  # the hot path: events never grow
                return self._encode(obj)
            return self._encode(self._prepared(obj))
        except ENCODE_ERRORS as exc:
            raise encode_error(obj, exc) from exc

    def encode_many(self, events: list[Any], encode: Callable[[list[Any]], bytes]) -> bytes:
        """``encode`` (a batch method of the encoder) over events, with
        errors translated; events are frozen and need no settling."""
        try:
            return encode(events)
        except ENCODE_ERRORS as exc:
            raise encode_error(events, exc) from exc

    def _prepared(self, obj: Any) -> Any:
        """What msgspec must see: growing blocks joined, and ThinkingBlocks'
        provider keys (which no Struct field holds) written after the fields."""
        if type(obj) is Msg:
            obj.settle()
            if any(type(b) is ThinkingBlock and vars(b) for b in obj.content):
                out: dict[str, Any] = msgspec.to_builtins(obj, builtin_types=self._builtin_types)
                for block, item in zip(obj.content, out["content"], strict=True):
                    if type(block) is ThinkingBlock:
                        item.update(vars(block))
                return out
        elif type(obj) is ThinkingBlock and vars(obj):
            settle(obj)
            return {**msgspec.to_builtins(obj, builtin_types=self._builtin_types), **vars(obj)}
        else:
            settle(obj)
        return obj

    def decode_event(self, buf: Any) -> AgentEvent:
        """One event; bad input raises DecodeError naming the path."""
        try:
            return self._event.decode(buf)
        except DECODE_ERRORS as exc:
            raise decode_error_from_msgspec(exc) from exc

    def decode_msg(self, buf: Any) -> Msg:
        """One Msg, role rules checked; bad input raises DecodeError."""
        try:
            msg = self._msg.decode(buf)
        except DECODE_ERRORS as exc:
            raise decode_error_from_msgspec(exc) from exc
        if any(type(b) is ThinkingBlock for b in msg.content):
            self._restore_provider_keys(msg, buf)
        return msg

    def _restore_provider_keys(self, msg: Msg, buf: Any) -> None:
        raw = self._raw_content.decode(buf).content
        for i, (block, item) in enumerate(zip(msg.content, raw, strict=True)):
            if type(block) is ThinkingBlock:
                for key, value in self._dict.decode(item).items():
                    if key not in _THINKING_FIELDS:
                        if (why := problem(value, f"$.content[{i}].{key[:64]}")) is not None:
                            reason, _, path = why.rpartition(" - in ")  # as the structs check theirs
                            raise DecodeError(reason, path=path.strip("`"))
                        # Into __dict__, not setattr: a key such as "_pending"
                        # or "__class__" must stay data, as agentscope keeps it.
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


def encode_error(obj: Any, exc: BaseException) -> EncodeError:
    """msgspec's encode errors as EncodeError (an EncodeError from a hook as is)."""
    if isinstance(exc, EncodeError):
        return exc
    err = EncodeError(f"cannot encode {type(obj).__name__}: {exc}")
    err.__cause__ = exc
    return err


ENCODE_ERRORS = (TypeError, ValueError, OverflowError, UnicodeEncodeError, EncodeError)


