"""A session of replies that ask before deleting a file: what the session
tests of the Vercel doors (HTTP and socket) write as their agent."""

from __future__ import annotations

import json

import wire
from wire.blocks import PermissionRule, ToolCallBlock, ToolCallState, ToolResultState

S = "chat-1"


def asked(reply: str, call: str, path: str, rules: list[PermissionRule] | None = None) -> list[wire.AgentEvent]:
    """A reply's first half: a sentence, a call to delete ``path``, parked for the user's confirmation."""
    block = ToolCallBlock(id=call, name="delete_file", input=json.dumps({"path": path}), state=ToolCallState.ASKING,
                          suggested_rules=rules or [])
    return [wire.ReplyStartEvent(session_id=S, reply_id=reply, name="Friday"),
            wire.TextBlockStartEvent(reply_id=reply, block_id=f"{reply}-t1"),
            wire.TextBlockDeltaEvent(reply_id=reply, block_id=f"{reply}-t1", delta=f"I will delete {path}."),
            wire.TextBlockEndEvent(reply_id=reply, block_id=f"{reply}-t1"),
            wire.ToolCallStartEvent(reply_id=reply, tool_call_id=call, tool_call_name="delete_file"),
            wire.ToolCallDeltaEvent(reply_id=reply, tool_call_id=call, delta=block.input),
            wire.ToolCallEndEvent(reply_id=reply, tool_call_id=call),
            wire.RequireUserConfirmEvent(reply_id=reply, tool_calls=[block])]


def went_on(reply: str, call: str, allowed: bool) -> list[wire.AgentEvent]:
    """The same reply after the answer: the tool ran (or was denied), then a sentence."""
    said = "Deleted." if allowed else "Kept it."
    state = ToolResultState.SUCCESS if allowed else ToolResultState.DENIED
    return [wire.ReplyStartEvent(session_id=S, reply_id=reply, name="Friday"),
            wire.ToolResultStartEvent(reply_id=reply, tool_call_id=call, tool_call_name="delete_file"),
            wire.ToolResultTextDeltaEvent(reply_id=reply, tool_call_id=call,
                                          delta="removed" if allowed else "the user said no"),
            wire.ToolResultEndEvent(reply_id=reply, tool_call_id=call, state=state),
            wire.TextBlockStartEvent(reply_id=reply, block_id=f"{reply}-t2"),
            wire.TextBlockDeltaEvent(reply_id=reply, block_id=f"{reply}-t2", delta=said),
            wire.TextBlockEndEvent(reply_id=reply, block_id=f"{reply}-t2"),
            wire.ReplyEndEvent(session_id=S, reply_id=reply)]
