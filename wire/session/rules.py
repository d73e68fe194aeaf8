"""What a reply waits for, and what a client may answer.

What a reply waits for is read from its Msg, as agentscope's agent reads its
own state (``Agent._check_incoming_event``): a tool call in state ``asking``
awaits a confirmation, one in state ``submitted`` without a result block of
its id an external result, and a reply that ended (``finished_at``) awaits
nothing. Whether a session can take an input now also depends on what
happened since (an interrupt, a pending turn, the end of the session):
``wire.session.Session.refusal``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Literal, TypeAlias

from wire.blocks import ToolCallBlock, ToolCallState, ToolResultBlock
from wire.events import (
    ConfirmResult,
    ExternalExecutionResultEvent,
    UserConfirmResultEvent,
    UserInterruptEvent,
)
from wire.messages import Msg

__all__ = ("ANSWERS", "Answer", "ChatInput", "Waiting", "confirmation", "waiting")

Answer: TypeAlias = UserConfirmResultEvent | ExternalExecutionResultEvent | UserInterruptEvent
"""An input that answers a reply: it names the reply and goes into the log."""

ANSWERS = (UserConfirmResultEvent, ExternalExecutionResultEvent, UserInterruptEvent)

ChatInput: TypeAlias = Msg | list[Msg] | Answer | None
"""What ``input`` holds: agentscope's ChatRequest's types, and an interrupt."""


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
