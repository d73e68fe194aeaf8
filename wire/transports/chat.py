"""What a client sends back to a session, and whether the session waits for it.

agentscope 2.0.11's app starts and resumes runs with ``POST /chat`` and the
body ``{"agent_id", "session_id", "input"}`` (``agentscope/app/_router/_schema/_chat.py``),
``input`` being a Msg or a list of Msgs (a new turn), a
``UserConfirmResultEvent`` or ``ExternalExecutionResultEvent`` (the answer to
a reply parked at REQUIRE_USER_CONFIRM / REQUIRE_EXTERNAL_EXECUTION, with
that reply's id) or null (go on from where the agent is). wire also takes a
``UserInterruptEvent`` there, which agentscope's app takes at
``POST /sessions/{id}/interrupt``.

This module is sans-IO: :class:`ChatRequest` is the body, :func:`decode_chat_request`
reads it (a DecodeError naming the JSON path, ``$.input.confirm_results[0]...``),
:func:`encode_chat_request` writes it, and :func:`refusal` says why the
session cannot take it now, from its replies' Msgs (a store's
``snapshot()``), or None. ``wire.transports.http.answer_endpoint`` serves it
and ``wire.transports.client.answer`` sends it.

What a reply waits for is read from its Msg, as agentscope's agent reads its
own state (``Agent._check_incoming_event``): a tool call in state ``asking``
awaits a confirmation, one in state ``submitted`` without a result block of
its id an external result, and a reply that ended (``finished_at``) awaits
nothing.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal, TypeAlias

import msgspec

from wire import json as wire_json
from wire._codec import DECODE_ERRORS, KNOWN_TAGS, decode_error
from wire.blocks import ToolCallBlock, ToolCallState, ToolResultBlock
from wire.errors import DecodeError
from wire.events import (
    ConfirmResult,
    ExternalExecutionResultEvent,
    UserConfirmResultEvent,
    UserInterruptEvent,
)
from wire.messages import Msg

__all__ = (
    "ANSWERS",
    "Answer",
    "ChatInput",
    "ChatRequest",
    "Waiting",
    "confirmation",
    "decode_chat_request",
    "encode_chat_request",
    "refusal",
    "waiting",
)

Answer: TypeAlias = UserConfirmResultEvent | ExternalExecutionResultEvent | UserInterruptEvent
"""An input that answers a reply: it names the reply and goes into the log."""

ANSWERS = (UserConfirmResultEvent, ExternalExecutionResultEvent, UserInterruptEvent)

ChatInput: TypeAlias = Msg | list[Msg] | Answer | None
"""What ``input`` holds: agentscope's ChatRequest's types, and an interrupt."""

_ANSWER_TAGS: dict[str, type[Answer]] = {str(cls.__struct_config__.tag): cls for cls in ANSWERS}


class ChatRequest(msgspec.Struct, kw_only=True):
    """agentscope's chat body: which agent, which session, and the input."""

    agent_id: str
    session_id: str
    input: ChatInput


class _Body(msgspec.Struct):
    # agentscope's pydantic model ignores keys it does not know; so does this.
    agent_id: str
    session_id: str
    input: msgspec.Raw  # required, may be null: read by its shape below


class _Head(msgspec.Struct):
    type: Any = None


_body = msgspec.json.Decoder(_Body)
_head = msgspec.json.Decoder(_Head)
_items = msgspec.json.Decoder(list[msgspec.Raw])
_answer = msgspec.json.Decoder(Answer)


def _inside(exc: DecodeError, prefix: str) -> DecodeError:
    """``exc`` with its path moved under ``prefix`` (``$.input``)."""
    exc.path = prefix + (exc.path or "$")[1:]
    return exc


def _decode(decoder: Any, buf: bytes, prefix: str) -> Any:
    try:
        return decoder.decode(buf)
    except DECODE_ERRORS as exc:
        raise _inside(decode_error(exc, data=buf), prefix) from exc


def _msg(buf: bytes, prefix: str) -> Msg:
    try:
        return wire_json.decode_msg(buf)
    except DecodeError as exc:
        raise _inside(exc, prefix) from exc


def decode_chat_request(body: bytes | bytearray | memoryview) -> ChatRequest:
    """The chat body, validated with wire's model. DecodeError names the
    JSON path of the first problem (``$.session_id``, ``$.input[1].role``,
    ``$.input.confirm_results[0].tool_call.id``)."""
    try:
        raw = _body.decode(body)
    except DECODE_ERRORS as exc:
        raise decode_error(exc, data=body) from exc
    data = bytes(raw.input).strip(b" \t\r\n")
    value: ChatInput
    if data == b"null":
        value = None
    elif data.startswith(b"["):
        value = [_msg(bytes(item), f"$.input[{i}]")
                 for i, item in enumerate(_decode(_items, data, "$.input"))]
    elif data.startswith(b"{"):
        tag = _decode(_head, data, "$.input").type
        if isinstance(tag, str) and tag in _ANSWER_TAGS:
            value = _decode(_answer, data, "$.input")
        elif isinstance(tag, str) and tag in KNOWN_TAGS:
            raise DecodeError(f"a {tag} event is no chat input (one of {', '.join(_ANSWER_TAGS)}, or a Msg)",
                              path="$.input.type")
        else:
            value = _msg(data, "$.input")
    else:
        raise DecodeError("expected a Msg, a list of Msgs, an answer event or null", path="$.input")
    return ChatRequest(agent_id=raw.agent_id, session_id=raw.session_id, input=value)


def encode_chat_request(request: ChatRequest) -> bytes:
    """The body as JSON, each part written by ``wire.json`` (agentscope's
    JSON, fields at their default left out: its pydantic model fills them)."""
    value = request.input
    if value is None:
        input_json = b"null"
    elif isinstance(value, list):
        input_json = b"[" + b",".join(wire_json.encode(msg) for msg in value) + b"]"
    else:
        input_json = wire_json.encode(value)
    head = msgspec.json.encode({"agent_id": request.agent_id, "session_id": request.session_id})
    return head[:-1] + b',"input":' + input_json + b"}"


@dataclass
class Waiting:
    """Where a reply stands, read from its Msg."""

    reply_id: str
    state: Literal["running", "parked", "ended"]
    confirm: list[ToolCallBlock] = field(default_factory=list)
    """Tool calls awaiting a confirmation (state ``asking``)."""
    external: list[ToolCallBlock] = field(default_factory=list)
    """Tool calls awaiting an external result (``submitted``, no result yet)."""


def waiting(msg: Msg) -> Waiting:
    """What the reply ``msg`` waits for."""
    if msg.finished_at is not None:
        return Waiting(msg.id, "ended")
    results = {block.id for block in msg.content if type(block) is ToolResultBlock}
    confirm: list[ToolCallBlock] = []
    external: list[ToolCallBlock] = []
    for block in msg.content:
        if type(block) is ToolCallBlock:
            if block.state == ToolCallState.ASKING:
                confirm.append(block)
            elif block.state == ToolCallState.SUBMITTED and block.id not in results:
                external.append(block)
    return Waiting(msg.id, "parked" if confirm or external else "running", confirm, external)


def confirmation(msg: Msg, confirmed: bool | Mapping[str, bool]) -> UserConfirmResultEvent:
    """The answer to every call of ``msg`` that awaits a confirmation: all
    allowed or all denied, or each by its id (``{"call-1": True}``)."""
    results = [ConfirmResult(confirmed=confirmed if isinstance(confirmed, bool) else confirmed[call.id],
                             tool_call=call) for call in waiting(msg).confirm]
    return UserConfirmResultEvent(reply_id=msg.id, confirm_results=results)


def _ids(named: list[str], kind: str) -> str | None:
    seen: set[str] = set()
    for call_id in named:
        if call_id in seen:
            return f"the {kind} names tool call {call_id!r} twice"
        seen.add(call_id)
    return None if named else f"the {kind} answers no tool call"


def refusal(value: ChatInput, replies: Mapping[str, Msg]) -> str | None:
    """Why a session whose replies are ``replies`` (in the order they began)
    cannot take ``value`` now, or None when it can:

    * an answer must name a reply of the session that waits for that kind of
      answer; a confirmation must name only calls that await one, each once
      (a call answered before awaits none: answering twice is refused); an
      external result likewise. Answering some of the waiting calls is
      taken, as agentscope's agent takes it (the others keep waiting);
    * an interrupt must name a reply that is running or parked;
    * a new turn (a Msg, a list of them, or null) is refused while a reply
      is parked (answer or interrupt it first; agentscope's agent raises) or
      running.
    """
    if isinstance(value, ANSWERS):
        msg = replies.get(value.reply_id)
        if msg is None:
            return f"the session has no reply {value.reply_id!r}"
        state = waiting(msg)
        if state.state == "ended":
            return f"reply {msg.id!r} is over: it waits for nothing"
        if isinstance(value, UserInterruptEvent):
            return None
        if isinstance(value, UserConfirmResultEvent):
            kind, pending = "confirmation", state.confirm
            named = [result.tool_call.id for result in value.confirm_results]
        else:
            kind, pending = "external result", state.external
            named = [result.id for result in value.execution_results]
        if not pending:
            return f"reply {msg.id!r} waits for no {kind}"
        if (problem := _ids(named, kind)) is not None:
            return problem
        awaited = {call.id for call in pending}
        if stray := [call_id for call_id in named if call_id not in awaited]:
            return (f"tool call {stray[0]!r} awaits no {kind} (reply {msg.id!r} waits for "
                    f"{', '.join(sorted(awaited))})")
        return None
    for msg in replies.values():  # any reply, not only the latest: a store may list them in another order
        state = waiting(msg)
        if state.state == "parked":
            calls = ", ".join(call.id for call in state.confirm + state.external)
            return f"reply {msg.id!r} waits for an answer about {calls}: answer or interrupt it first"
        if state.state == "running":
            return f"reply {msg.id!r} is still running"
    return None
