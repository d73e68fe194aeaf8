"""Resuming a reply: the names of ``wire.session`` this module held before
the session package took them over, kept so that existing imports work.
``Conversation`` is ``wire.session.Session``."""

from __future__ import annotations

from wire.session import (
    CHECKPOINT,
    RESTART,
    begin_reply,
    blocks_once,
    checkpoint,
    checkpoint_payload,
    read_checkpoint,
    restart,
)
from wire.session import Session as Conversation

__all__ = ("CHECKPOINT", "RESTART", "Conversation", "begin_reply", "blocks_once", "checkpoint",
           "checkpoint_payload", "read_checkpoint", "restart")
