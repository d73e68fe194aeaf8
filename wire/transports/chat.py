"""The chat body and the answer rules: the names of ``wire.session`` this
module held before the session package took them over, kept so that
existing imports work. ``refusal(value, replies)`` asks a
``wire.session.Session`` of those replies."""

from __future__ import annotations

from collections.abc import Mapping

from wire.messages import Msg
from wire.session import (
    ANSWERS,
    Answer,
    ChatInput,
    ChatRequest,
    Session,
    Waiting,
    confirmation,
    decode_chat_request,
    encode_chat_request,
    waiting,
)

__all__ = ("ANSWERS", "Answer", "ChatInput", "ChatRequest", "Waiting", "confirmation", "decode_chat_request",
           "encode_chat_request", "refusal", "waiting")


def refusal(value: ChatInput, replies: Mapping[str, Msg]) -> str | None:
    """Why a session whose replies are ``replies`` cannot take ``value``
    now, or None (``wire.session.Session.refusal``)."""
    return Session(*replies.values()).refusal(value)
