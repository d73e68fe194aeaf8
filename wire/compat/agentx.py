"""AgentX messages and packet streams to and from 2.0 ``Msg`` and agent events.

AgentX's communication model: a ``Message{id, role: user|assistant, parts}``
whose parts are ``TextPart{text}``, ``ToolCallPart{tool_call_id, tool_name,
args}``, ``ToolResultPart{tool_call_id, result}`` and ``ToolErrorPart{
tool_call_id, error_type: VALIDATION|EXECUTION, message}``. A turn streams as
a sequence of partial Messages ("packets"): text parts are increments of the
text, tool calls and results arrive whole. The models are here as msgspec
Structs (:class:`Message` and the parts); like AgentX's pydantic models they
ignore keys they do not define and fill in a missing ``id`` or
``tool_call_id`` (with wire's id factory).

Messages (:func:`from_agentx`, :func:`to_agentx`)
--------------------------------------------------

Each part is one block: text -> TextBlock; tool_call -> ToolCallBlock with
``args`` as compact JSON text (``finished`` when the message also holds its
result, else ``pending``); tool_result -> ToolResultBlock in state
``success`` whose output is ``result`` when it is a string, else its compact
JSON; tool_error -> ToolResultBlock in state ``error`` whose output is the
message. A result's ``name`` is its call's (in the same message, or given in
``tool_names``), else empty. The Msg's ``name`` is its role unless given.

What 2.0 has no field for is kept in metadata under the key ``"agentx"``
(:data:`METADATA_KEY`): in a ToolResultBlock's own ``metadata``,
``{"result": "json"}`` when the result was not a string and
``{"error_type": ...}`` for a tool error (block metadata travels in the
TOOL_RESULT_END event, so it survives streaming too); in the Msg's metadata,
``{"role": "user"}`` when a user message held tool parts, which 2.0 allows
only in assistant messages, so the Msg is an assistant one.

:func:`to_agentx` drops: thinking, hint and data blocks; the Msg's name,
timestamps, usage, finish fields and metadata; block ids and states; tool
results still ``running`` (AgentX has no partial result). An ``error``,
``interrupted`` or ``denied`` result becomes a ToolErrorPart (``EXECUTION``
unless the record says otherwise); a result whose output holds data blocks
has as ``result`` the list of its blocks as 2.0 JSON. A system message or a
tool input that is not a JSON object raises EncodeError.

Streams (:func:`packets_to_events`, :func:`events_to_packets`)
--------------------------------------------------------------

Packets to events: a packet continues the current message when it has its
``id``, or no ``id`` and the same role (the document's streamed text packets
carry none); otherwise it starts a new reply (REPLY_START, with the role and
``name``; the previous one gets its REPLY_END). Text parts are deltas of one
TextBlock until another part comes between; a tool call is
START/DELTA/END with its JSON, a result or error START/TEXT_DELTA/END.
``append_event`` rebuilds the Msg. Unlike :func:`from_agentx`, consecutive
text parts of a stream are one block. A user message in a stream that holds
tool parts is an assistant reply when its first packet shows them, and a
DecodeError when they come after its text.

Events to packets: every TEXT_BLOCK_DELTA is a text packet; a tool call is
sent at its TOOL_CALL_END, a result or error at its TOOL_RESULT_END (and the
results of EXTERNAL_EXECUTION_RESULT); each packet has one part and the
reply's id and role. Everything else is dropped: thinking, data and hint
blocks, model calls, usage, confirmations, reply ends and errors, and a
TEXT_BLOCK_END that rewrites the text other than by extending it.

:class:`AgentXDecoder` reads packets from NDJSON or SSE bytes with wire's
streaming decoders and returns events; :func:`decode_agentx` reads a whole
capture (NDJSON, SSE or a JSON array) and :func:`events_to_ndjson` writes
packets as NDJSON, for ``python -m wire convert --from/--to agentx``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, Literal, TypeAlias

import msgspec
from msgspec import Struct, field

from wire._codec import DECODE_ERRORS, decode_error
from wire.blocks import (
    ContentBlock,
    TextBlock,
    ToolCallBlock,
    ToolCallState,
    ToolResultBlock,
    ToolResultState,
)
from wire.clock import new_id, now
from wire.errors import DecodeError, EncodeError, RemoteProtocolError
from wire.events import (
    AgentEvent,
    ExternalExecutionResultEvent,
    ReplyEndEvent,
    ReplyStartEvent,
    Role,
    TextBlockDeltaEvent,
    TextBlockEndEvent,
    TextBlockStartEvent,
    ToolCallDeltaEvent,
    ToolCallEndEvent,
    ToolCallStartEvent,
    ToolResultEndEvent,
    ToolResultStartEvent,
    ToolResultTextDeltaEvent,
    UnknownEvent,
)
from wire.framing import NDJSONDecoder, SSEDecoder
from wire.messages import Msg

__all__ = (
    "METADATA_KEY",
    "AgentXDecoder",
    "EventsToPackets",
    "Message",
    "PacketsToEvents",
    "Part",
    "TextPart",
    "ToolCallPart",
    "ToolErrorPart",
    "ToolResultPart",
    "decode_agentx",
    "events_to_ndjson",
    "events_to_packets",
    "from_agentx",
    "packets_to_events",
    "to_agentx",
)

METADATA_KEY = "agentx"
"""The metadata key (of a Msg, or of a ToolResultBlock) holding what 2.0 has no field for."""


# -- AgentX's models ---------------------------------------------------------------------


class _Part(Struct, tag_field="type", kw_only=True):
    pass


class TextPart(_Part, tag="text", kw_only=True):
    text: str


class ToolCallPart(_Part, tag="tool_call", kw_only=True):
    tool_call_id: str = field(default_factory=new_id)
    tool_name: str
    args: dict[str, Any]


class ToolResultPart(_Part, tag="tool_result", kw_only=True):
    tool_call_id: str
    result: Any


class ToolErrorPart(_Part, tag="tool_error", kw_only=True):
    tool_call_id: str
    error_type: Literal["VALIDATION", "EXECUTION"]
    message: str


Part: TypeAlias = TextPart | ToolCallPart | ToolResultPart | ToolErrorPart


class Message(Struct, kw_only=True):
    """An AgentX message, or one packet of a streamed one. ``id`` is None
    when the packet had none."""

    id: str | None = None
    role: Literal["user", "assistant"]
    parts: list[Part]


_json_decoder = msgspec.json.Decoder(Message)
_encoder = msgspec.json.Encoder()


def _message(value: Mapping[str, Any] | Message, index: int | None = None) -> Message:
    if isinstance(value, Message):
        return value
    try:
        return msgspec.convert(value, Message)
    except DECODE_ERRORS as exc:
        raise decode_error(exc, index=index) from exc


def _result_output(result: Any) -> tuple[str, dict[str, Any]]:
    """The 2.0 output of a ToolResultPart's result, and the block metadata
    that brings a non-string result back."""
    if isinstance(result, str):
        return result, {}
    return _encoder.encode(result).decode(), {METADATA_KEY: {"result": "json"}}


def _args_text(args: dict[str, Any], path: str, index: int | None = None) -> str:
    try:
        return _encoder.encode(args).decode()
    except (TypeError, ValueError, OverflowError) as exc:
        raise DecodeError(f"the tool arguments are not JSON: {exc}", path=path, index=index) from exc


# -- Message <-> Msg -------------------------------------------------------------------------


def from_agentx(message: Mapping[str, Any] | Message, *, name: str | None = None,
                tool_names: Mapping[str, str] | None = None) -> Msg:
    """The 2.0 Msg of one whole AgentX Message (a dict as AgentX writes it).

    Bad input raises DecodeError naming its path (``$.parts[1].tool_name``)."""
    m = _message(message)
    msg_id = m.id if m.id is not None else new_id()
    created = now()
    names = dict(tool_names or {})
    names.update((p.tool_call_id, p.tool_name) for p in m.parts if isinstance(p, ToolCallPart))
    answered = {p.tool_call_id for p in m.parts if isinstance(p, (ToolResultPart, ToolErrorPart))}
    blocks: list[ContentBlock] = []
    for i, part in enumerate(m.parts):
        if isinstance(part, TextPart):
            blocks.append(TextBlock(text=part.text, id=f"{msg_id}-{i}", created_at=created, finished_at=created))
        elif isinstance(part, ToolCallPart):
            state = ToolCallState.FINISHED if part.tool_call_id in answered else ToolCallState.PENDING
            blocks.append(ToolCallBlock(id=part.tool_call_id, name=part.tool_name, state=state,
                                        input=_args_text(part.args, f"$.parts[{i}].args"),
                                        created_at=created, finished_at=created))
        elif isinstance(part, ToolResultPart):
            output, record = _result_output(part.result)
            blocks.append(ToolResultBlock(id=part.tool_call_id, name=names.get(part.tool_call_id, ""),
                                          output=output, state=ToolResultState.SUCCESS, metadata=record,
                                          created_at=created, finished_at=created))
        else:
            blocks.append(ToolResultBlock(id=part.tool_call_id, name=names.get(part.tool_call_id, ""),
                                          output=part.message, state=ToolResultState.ERROR,
                                          metadata={METADATA_KEY: {"error_type": part.error_type}},
                                          created_at=created, finished_at=created))
    role: Role = m.role
    metadata: dict[str, Any] = {}
    if role == "user" and not all(isinstance(b, TextBlock) for b in blocks):
        role, metadata = "assistant", {METADATA_KEY: {"role": "user"}}
    return Msg(name=name if name is not None else m.role, content=blocks, role=role, id=msg_id,
               metadata=metadata, created_at=created, finished_at=created)


def to_agentx(msg: Msg) -> dict[str, Any]:
    """The AgentX Message of a 2.0 Msg, as a dict ready for JSON; what it
    drops is listed in the module docstring."""
    parts = []
    for i, block in enumerate(msg.content):
        part = _part(block, f"$.content[{i}]")
        if part is not None:
            parts.append(part)
    return {"id": msg.id, "role": _agentx_role(msg.role, msg.metadata), "parts": parts}


def _agentx_role(role: str, metadata: Mapping[str, Any]) -> str:
    record = metadata.get(METADATA_KEY)
    if isinstance(record, dict) and record.get("role") == "user":
        return "user"
    if role == "system":
        raise EncodeError("AgentX messages have no system role (at $.role)")
    return role


def _part(block: ContentBlock, path: str) -> dict[str, Any] | None:
    if isinstance(block, TextBlock):
        return {"type": "text", "text": block.text}
    if isinstance(block, ToolCallBlock):
        return {"type": "tool_call", "tool_call_id": block.id, "tool_name": block.name,
                "args": _args(block.input, f"{path}.input")}
    if isinstance(block, ToolResultBlock):
        return _result_part(block)
    return None  # thinking, hint and data: AgentX has no such part


def _args(text: str, path: str) -> dict[str, Any]:
    if not text.strip():  # providers stream nothing for a call without arguments
        return {}
    try:
        args = msgspec.json.decode(text)
    except DECODE_ERRORS as exc:
        raise EncodeError(f"the tool input is not JSON, which AgentX's args must be: {exc} (at {path})") from exc
    if not isinstance(args, dict):
        raise EncodeError(f"the tool input is not a JSON object, which AgentX's args must be (at {path})")
    return args


def _result_part(block: ToolResultBlock) -> dict[str, Any] | None:
    record = block.metadata.get(METADATA_KEY)
    record = record if isinstance(record, dict) else {}
    output = block.output
    if isinstance(output, list) and all(isinstance(p, TextBlock) for p in output):
        output = "".join(p.text for p in output)  # type: ignore[union-attr]
    if block.state == ToolResultState.RUNNING:
        return None
    if block.state != ToolResultState.SUCCESS:
        message = output if isinstance(output, str) else _encoder.encode(output).decode()
        error_type = record.get("error_type")
        return {"type": "tool_error", "tool_call_id": block.id,
                "error_type": error_type if error_type in ("VALIDATION", "EXECUTION") else "EXECUTION",
                "message": message}
    result: Any
    if isinstance(output, str):
        result = output
        if record.get("result") == "json":
            try:
                result = msgspec.json.decode(output)
            except DECODE_ERRORS:
                result = output
    else:
        result = msgspec.to_builtins(output)
    return {"type": "tool_result", "tool_call_id": block.id, "result": result}


# -- packets -> events -------------------------------------------------------------------------


class PacketsToEvents:
    """AgentX packets in, agent events out, one packet at a time (sans-IO).

    ``session_id`` and ``name`` go into each REPLY_START (AgentX has neither;
    ``name`` defaults to the role). Call :meth:`close` at the end of the
    stream for the last reply's end. A bad packet raises DecodeError whose
    ``index`` is the packet's and ``path`` is inside it."""

    def __init__(self, *, session_id: str = "", name: str | None = None) -> None:
        self.session_id = session_id
        self.name = name
        self.index = 0
        self._reply: str | None = None
        self._role: str = ""
        self._packet_role: str = ""
        self._text: str | None = None
        self._names: dict[str, str] = {}

    def feed(self, packet: Mapping[str, Any] | Message) -> list[AgentEvent]:
        index = self.index
        self.index += 1
        m = _message(packet, index)
        out: list[AgentEvent] = []
        tools = [i for i, p in enumerate(m.parts) if not isinstance(p, TextPart)]
        same = self._reply is not None and (m.id == self._reply or (m.id is None and m.role == self._packet_role))
        if not same:
            self._end(out)
            reply = m.id if m.id is not None else new_id()
            role: Role = "assistant" if tools else m.role
            self._reply, self._role, self._packet_role = reply, role, m.role
            out.append(ReplyStartEvent(session_id=self.session_id, reply_id=reply,
                                       name=self.name if self.name is not None else m.role, role=role))
        elif tools and self._role == "user":
            raise DecodeError("a user message that began with text cannot hold tool parts in 2.0",
                              path=f"$.parts[{tools[0]}]", index=index)
        reply_id = self._reply
        assert reply_id is not None
        for i, part in enumerate(m.parts):
            if isinstance(part, TextPart):
                if self._text is None:
                    self._text = new_id()
                    out.append(TextBlockStartEvent(reply_id=reply_id, block_id=self._text))
                out.append(TextBlockDeltaEvent(reply_id=reply_id, block_id=self._text, delta=part.text))
                continue
            self._close_text(out)
            call_id = part.tool_call_id
            if isinstance(part, ToolCallPart):
                self._names[call_id] = part.tool_name
                out += [ToolCallStartEvent(reply_id=reply_id, tool_call_id=call_id, tool_call_name=part.tool_name),
                        ToolCallDeltaEvent(reply_id=reply_id, tool_call_id=call_id,
                                           delta=_args_text(part.args, f"$.parts[{i}].args", index)),
                        ToolCallEndEvent(reply_id=reply_id, tool_call_id=call_id)]
                continue
            if isinstance(part, ToolResultPart):
                text, metadata = _result_output(part.result)
                state = ToolResultState.SUCCESS
            else:
                text, metadata = part.message, {METADATA_KEY: {"error_type": part.error_type}}
                state = ToolResultState.ERROR
            out.append(ToolResultStartEvent(reply_id=reply_id, tool_call_id=call_id,
                                            tool_call_name=self._names.get(call_id, "")))
            if text:
                out.append(ToolResultTextDeltaEvent(reply_id=reply_id, tool_call_id=call_id, delta=text))
            out.append(ToolResultEndEvent(reply_id=reply_id, tool_call_id=call_id, state=state, metadata=metadata))
        return out

    def close(self) -> list[AgentEvent]:
        """The events that end the stream: the open text block's end and the
        last reply's REPLY_END."""
        out: list[AgentEvent] = []
        self._end(out)
        return out

    def _close_text(self, out: list[AgentEvent]) -> None:
        if self._text is not None:
            assert self._reply is not None
            out.append(TextBlockEndEvent(reply_id=self._reply, block_id=self._text))
            self._text = None

    def _end(self, out: list[AgentEvent]) -> None:
        if self._reply is not None:
            self._close_text(out)
            out.append(ReplyEndEvent(session_id=self.session_id, reply_id=self._reply))
            self._reply = None


def packets_to_events(packets: Iterable[Mapping[str, Any] | Message], *, session_id: str = "",
                      name: str | None = None) -> list[AgentEvent]:
    """The agent events of a whole AgentX packet stream (or of whole
    Messages, which are packets too); each message is one reply, which
    ``append_event`` rebuilds. On a bad packet the DecodeError's ``events``
    holds the events of the packets before it."""
    reader = PacketsToEvents(session_id=session_id, name=name)
    out: list[AgentEvent] = []
    for packet in packets:
        try:
            out += reader.feed(packet)
        except RemoteProtocolError as exc:
            exc.events = out
            raise
    return out + reader.close()


def decode_agentx(data: bytes) -> tuple[list[AgentEvent], RemoteProtocolError | None]:
    """The events of a whole AgentX capture: a JSON array of packets (or of
    whole messages), NDJSON or SSE (told by the first bytes), and the error
    that stopped it, if any, with the events before it returned."""
    head = data.removeprefix(b"\xef\xbb\xbf").lstrip(b" \t\r\n")
    try:
        if head.startswith(b"["):
            try:
                raws = msgspec.json.decode(data, type=list[msgspec.Raw])
            except DECODE_ERRORS as exc:
                raise decode_error(exc, data=data) from exc
            reader = PacketsToEvents()
            events: list[AgentEvent] = []
            for index, raw in enumerate(raws):
                try:
                    packet = _json_decoder.decode(raw)
                except DECODE_ERRORS as exc:
                    raise decode_error(exc, index=index, events=events) from exc
                try:
                    events += reader.feed(packet)
                except RemoteProtocolError as exc:
                    exc.events = events
                    raise
            return events + reader.close(), None
        decoder = AgentXDecoder("ndjson" if head.startswith(b"{") else "sse")
        events = decoder.feed(data)
        try:
            return events + decoder.close(), None
        except RemoteProtocolError as exc:  # keep what feed already gave
            exc.events = events + exc.events
            raise
    except RemoteProtocolError as exc:
        return list(exc.events), exc


class AgentXDecoder:
    """Agent events from AgentX packets framed as NDJSON (one JSON Message
    per line) or SSE (one per event's ``data``), fed as bytes arrive.

    It cuts frames with wire's own decoders (``raw=True``) and reads each
    payload as a packet; errors are theirs (FrameError) or DecodeError with
    the packet index and the JSON path, with the events before it in
    ``events``. Call :meth:`close` at the end of the stream."""

    def __init__(self, framing: Literal["ndjson", "sse"] = "ndjson", *, session_id: str = "",
                 name: str | None = None) -> None:
        if framing not in ("ndjson", "sse"):
            raise ValueError(f"framing must be 'ndjson' or 'sse', not {framing!r}")
        self._frames: NDJSONDecoder[Any] | SSEDecoder[Any] = (
            NDJSONDecoder(raw=True) if framing == "ndjson" else SSEDecoder(raw=True))
        self._packets = PacketsToEvents(session_id=session_id, name=name)

    def feed(self, data: bytes | bytearray | memoryview) -> list[AgentEvent]:
        return self._run(lambda: self._frames.feed(data), end=False)

    def close(self) -> list[AgentEvent]:
        return self._run(self._frames.close, end=True)

    def _run(self, cut: Any, *, end: bool) -> list[AgentEvent]:
        out: list[AgentEvent] = []
        try:
            frames = cut()
        except RemoteProtocolError as exc:
            self._packets_of(exc.events, out)
            exc.events = out
            raise
        self._packets_of(frames, out)
        if end:
            out += self._packets.close()
        return out

    def _packets_of(self, frames: list[Any], out: list[AgentEvent]) -> None:
        for frame in frames:
            index = self._packets.index
            try:
                packet = _json_decoder.decode(frame.payload)
            except DECODE_ERRORS as exc:
                self._packets.index += 1
                raise decode_error(exc, index=index, events=out) from exc
            try:
                out += self._packets.feed(packet)
            except RemoteProtocolError as exc:
                exc.events = out
                raise


# -- events -> packets -------------------------------------------------------------------------


class EventsToPackets:
    """Agent events in, AgentX packets (dicts ready for JSON) out, one event at
    a time. It folds each reply with ``append_event`` to know the whole tool
    calls and results it sends; what it drops is in the module docstring."""

    def __init__(self) -> None:
        self._replies: dict[str, Msg] = {}
        self._roles: dict[str, str] = {}

    def feed(self, event: AgentEvent | UnknownEvent) -> list[dict[str, Any]]:
        reply_id = getattr(event, "reply_id", None)
        if isinstance(event, UnknownEvent) or reply_id is None:
            return []
        if isinstance(event, ReplyStartEvent) and reply_id not in self._replies:
            self._roles[reply_id] = _agentx_role(event.role, event.metadata)
            self._replies[reply_id] = Msg(name=event.name, content=[], role=event.role, id=reply_id)
        msg = self._replies.get(reply_id)
        if msg is None:  # a reply joined after its start
            msg = self._replies[reply_id] = Msg(name="", content=[], role="assistant", id=reply_id)
            self._roles[reply_id] = "assistant"
        before = _text_of(msg, event.block_id) if isinstance(event, TextBlockEndEvent) else None
        results = {b.id for b in msg.content if isinstance(b, ToolResultBlock)} \
            if isinstance(event, ExternalExecutionResultEvent) else set()
        anomalies = len(msg.anomalies)
        msg.append_event(event)
        if len(msg.anomalies) != anomalies:
            return []  # an event the reply could not take sends nothing
        parts: list[dict[str, Any] | None] = []
        if isinstance(event, TextBlockDeltaEvent):
            parts.append({"type": "text", "text": event.delta})
        elif isinstance(event, TextBlockEndEvent) and event.text is not None and before is not None:
            if event.text.startswith(before) and event.text != before:
                parts.append({"type": "text", "text": event.text[len(before):]})
        elif isinstance(event, ToolCallEndEvent):
            call = _find(msg, ToolCallBlock, event.tool_call_id)
            parts.append(_part(call, "$") if call is not None else None)
        elif isinstance(event, ToolResultEndEvent):
            result = _find(msg, ToolResultBlock, event.tool_call_id)
            parts.append(_result_part(result) if result is not None else None)
        elif isinstance(event, ExternalExecutionResultEvent):
            parts += [_result_part(b) for b in msg.content if isinstance(b, ToolResultBlock) and b.id not in results]
        role = self._roles[reply_id]
        if isinstance(event, ReplyEndEvent):  # a continuation starts afresh
            del self._replies[reply_id], self._roles[reply_id]
        return [{"id": reply_id, "role": role, "parts": [part]} for part in parts if part is not None]


def _text_of(msg: Msg, block_id: str) -> str | None:
    block = _find(msg, TextBlock, block_id)
    return block.text if block is not None else None


def _find(msg: Msg, cls: type[Any], id: str) -> Any:
    for block in msg.content:
        if type(block) is cls and block.id == id:
            return block
    return None


def events_to_ndjson(events: Iterable[AgentEvent | UnknownEvent]) -> bytes:
    """The AgentX packets of an event stream as NDJSON, one packet per line."""
    return b"".join(_encoder.encode(packet) + b"\n" for packet in events_to_packets(events))


def events_to_packets(events: Iterable[AgentEvent | UnknownEvent]) -> list[dict[str, Any]]:
    """The AgentX packets of an event stream: text deltas as text packets,
    tool calls when complete, results and errors when they end."""
    writer = EventsToPackets()
    return [packet for event in events for packet in writer.feed(event)]
