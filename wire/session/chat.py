"""agentscope's chat body: what a client sends a session (a turn, an answer, an interrupt).

agentscope 2.0.11's app starts and resumes runs with ``POST /chat`` and the
body ``{"agent_id", "session_id", "input"}`` (``agentscope/app/_router/_schema/_chat.py``),
``input`` being a Msg or a list of Msgs (a new turn), a
``UserConfirmResultEvent`` or ``ExternalExecutionResultEvent`` (the answer to
a reply parked at REQUIRE_USER_CONFIRM / REQUIRE_EXTERNAL_EXECUTION, with
that reply's id) or null (go on from where the agent is). wire also takes a
``UserInterruptEvent`` there, which agentscope's app takes at
``POST /sessions/{id}/interrupt``.

This module is sans-IO: :class:`ChatRequest` is the body, :func:`decode_chat_request`
reads it (a DecodeError naming the JSON path, ``$.input.confirm_results[0]...``)
and :func:`encode_chat_request` writes it. Whether the session can take it
now is ``wire.session.Session.refusal``'s to say.
``wire.transports.http.answer_endpoint`` serves it and
``wire.transports.client.answer`` sends it.
"""

from __future__ import annotations

from typing import Any

import msgspec

from wire import json as wire_json
from wire._codec import DECODE_ERRORS, KNOWN_TAGS, decode_error
from wire.errors import DecodeError
from wire.messages import Msg
from wire.session.rules import ANSWERS, Answer, ChatInput

__all__ = ("ChatRequest", "decode_chat_request", "encode_chat_request")

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
