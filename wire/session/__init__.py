"""A conversation's rules in one place, with no IO.

* :class:`Session` (``state``): the replies in the order they began, what
  each waits for, the pending turn, and :meth:`Session.refusal`: why an input
  cannot be taken now. Stores, readers (``wire.transports.client.Follower``),
  endpoints, bridges and converters all keep a session this way.
* ``checkpoints``: the events a log carries besides the agent's
  (``wire.checkpoint``, ``wire.restart``, ``wire.turn``) and how a reply's
  Msg begins (``begin_reply``, ``join_reply``).
* ``rules``: what a reply waits for, read from its Msg (``waiting``), and the
  confirmation that answers it.
* ``chat``: agentscope's chat body (``ChatRequest``), decoded and encoded.
"""

from __future__ import annotations

from wire.session.chat import ChatRequest, decode_chat_request, encode_chat_request
from wire.session.checkpoints import (
    CHECKPOINT,
    RESTART,
    TURN,
    begin_reply,
    blocks_once,
    checkpoint,
    checkpoint_payload,
    copy_msg,
    join_reply,
    read_checkpoint,
    read_turn,
    reply_of,
    restart,
    turn,
    withdrawn,
)
from wire.session.rules import ANSWERS, Answer, ChatInput, Waiting, confirmation, waiting
from wire.session.state import Changed, Session

__all__ = (
    "ANSWERS",
    "CHECKPOINT",
    "RESTART",
    "TURN",
    "Answer",
    "Changed",
    "ChatInput",
    "ChatRequest",
    "Session",
    "Waiting",
    "begin_reply",
    "blocks_once",
    "checkpoint",
    "checkpoint_payload",
    "confirmation",
    "copy_msg",
    "decode_chat_request",
    "encode_chat_request",
    "join_reply",
    "read_checkpoint",
    "read_turn",
    "reply_of",
    "restart",
    "turn",
    "waiting",
    "withdrawn",
)
