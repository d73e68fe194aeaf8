"""Msg: one message of a conversation, its factories, role rules and helpers.

``Msg`` has agentscope 2.0's eleven fields in its wire order. Role rules hold
whenever a Msg is constructed or decoded: a user message holds only text and
data blocks, a system message only text blocks. ``append_event`` folds an
event stream into the Msg (see ``wire.reducer``); it sits above the events, so
``Msg`` lives in this module at the top of the model layer.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any, overload

from msgspec import Struct, field

from wire._portable import check as check_portable
from wire.blocks import ROLE_BLOCKS, ContentBlock, TextBlock, ToolResultBlock
from wire.clock import new_id, now
from wire.errors import RoleError
from wire.events import AgentEvent, ErrorInfo, ReplyFinishedReason, Role, UnknownEvent, Usage
from wire.reducer import Anomaly, Reducer

__all__ = ("AssistantMsg", "Msg", "SystemMsg", "UserMsg")

class _ReducerSlot:
    """Mixin: the reducer state, made on the first ``append_event``; not on the wire."""

    __slots__ = ("_reducer",)


class Msg(Struct, _ReducerSlot, kw_only=True, omit_defaults=True):
    """A message: who said it, in which role, and its content blocks."""

    name: str
    content: list[ContentBlock]
    role: Role
    id: str = field(default_factory=new_id)
    metadata: dict[str, Any] = {}
    created_at: str = field(default_factory=now)
    usage: Usage | None = None
    finished_at: str | None = None
    finished_reason: ReplyFinishedReason | None = None
    structured_output: dict[str, Any] | None = None
    error: ErrorInfo | None = None

    def __post_init__(self) -> None:
        # Free-form values must be ones both codecs write (wire._portable).
        if self.metadata:
            check_portable(self.metadata, "metadata")
        if self.structured_output:
            check_portable(self.structured_output, "structured_output")
        for i, block in enumerate(self.content):
            if type(block) is ToolResultBlock and block.metadata:
                check_portable(block.metadata, f"content[{i}].metadata")
        rule = ROLE_BLOCKS.get(self.role)
        if rule is None:
            return
        allowed, words = rule
        for i, block in enumerate(self.content):
            if type(block) not in allowed:
                raise RoleError(
                    f"content[{i}] is a {block.type!r} block, "
                    f"but a {self.role} message can only contain {words}"
                )

    # -- agentscope's helpers -------------------------------------------------------

    def get_text_content(self, separator: str = "\n") -> str | None:
        """The text of the top-level text blocks joined by ``separator``; None
        when there are none (hint and tool-result text are not included)."""
        texts = [b.text for b in self.content if type(b) is TextBlock]
        return separator.join(texts) if texts else None

    @overload
    def get_content_blocks(self, block_type: None = None) -> list[ContentBlock]: ...
    @overload
    def get_content_blocks(self, block_type: str | Sequence[str]) -> list[ContentBlock]: ...

    def get_content_blocks(self, block_type: str | Sequence[str] | None = None) -> list[ContentBlock]:
        """The blocks of the given type(s); with None, ``self.content`` itself
        (not a copy, as in agentscope)."""
        if block_type is None:
            return self.content
        wanted = {block_type} if isinstance(block_type, str) else set(block_type)
        return [b for b in self.content if b.type in wanted]

    def has_content_blocks(self, block_type: str | Sequence[str] | None = None) -> bool:
        """Whether any block has the given type(s); with None, whether there is
        any block at all."""
        if block_type is None:
            return bool(self.content)
        wanted = {block_type} if isinstance(block_type, str) else set(block_type)
        return any(b.type in wanted for b in self.content)

    # -- the reducer -------------------------------------------------------------

    def append_event(self, event: AgentEvent | UnknownEvent, *, strict: bool = False) -> Msg:
        """Apply one event of this reply to the Msg in place and return it.

        Events for another reply, deltas for unknown blocks and the other
        anomalies listed in ``wire.reducer`` are recorded in ``anomalies``
        and handled as agentscope does; with ``strict=True`` the first one
        raises ``StreamOrderError`` and leaves the Msg unchanged."""
        try:  # _state(), inline: one call less per event
            reducer = self._reducer
        except AttributeError:
            reducer = self._state()
        # Nearly every event continues the run of deltas the previous one
        # began (Reducer.apply): the same delta type to the same open block
        # of this reply, which can only append to it. Applied here without
        # apply's Python calls (handler, find, checks: most of the cost per
        # event); anything else, an anomaly included, goes through apply.
        if type(event) is reducer.run_type and type(delta := event.delta) is str and (  # type: ignore[union-attr]
                event.tool_call_id if reducer.run_by_call else event.block_id) == reducer.run_id and (  # type: ignore[union-attr]
                event.reply_id == self.id) and (block := reducer.run_block).finished_at is None:  # type: ignore[union-attr]
            if type(block) is TextBlock:  # the hottest grower, inline: wire.reducer._grow_text
                text = block.text
                block.text = ""
                text += delta
                block.text = text
            else:
                reducer.run_grow(block, delta)
            reducer.index += 1
            return self
        reducer.strict = strict
        reducer.apply(event)
        return self

    def extend_events(self, events: Iterable[AgentEvent | UnknownEvent], *, strict: bool = False) -> Msg:
        """``append_event`` for every event, with less overhead per event."""
        reducer = self._state()
        reducer.strict = strict
        reducer.apply_all(events)
        return self

    @property
    def anomalies(self) -> list[Anomaly]:
        """What ``append_event`` found wrong with the stream so far, in order."""
        reducer = getattr(self, "_reducer", None)
        return reducer.anomalies if reducer is not None else []

    @property
    def anomalies_dropped(self) -> int:
        """How many anomalies came after the first ``wire.reducer.MAX_ANOMALIES``
        and were counted, not kept."""
        reducer = getattr(self, "_reducer", None)
        return reducer.anomalies_dropped if reducer is not None else 0

    def _state(self) -> Reducer:
        reducer: Reducer | None = getattr(self, "_reducer", None)
        if reducer is None:
            reducer = self._reducer = Reducer(self)
        return reducer


def _blocks(content: str | list[ContentBlock]) -> list[ContentBlock]:
    return [TextBlock(text=content)] if isinstance(content, str) else content


def UserMsg(
    name: str,
    content: str | list[ContentBlock],
    metadata: dict[str, Any] | None = None,
    created_at: str | None = None,
    finished_at: str | None = None,
    finished_reason: ReplyFinishedReason | None = None,
    id: str | None = None,
) -> Msg:
    """A user message; a str becomes one TextBlock, and ``finished_at``
    defaults to ``created_at``."""
    return _finished_msg("user", name, content, metadata, created_at, finished_at,
                         finished_reason, id)


def SystemMsg(
    name: str,
    content: str | list[ContentBlock],
    metadata: dict[str, Any] | None = None,
    created_at: str | None = None,
    finished_at: str | None = None,
    finished_reason: ReplyFinishedReason | None = None,
    id: str | None = None,
) -> Msg:
    """A system message; the same rules as ``UserMsg``."""
    return _finished_msg("system", name, content, metadata, created_at, finished_at,
                         finished_reason, id)


def _finished_msg(role: Role, name: str, content: str | list[ContentBlock],
                  metadata: dict[str, Any] | None, created_at: str | None,
                  finished_at: str | None, finished_reason: ReplyFinishedReason | None,
                  id: str | None) -> Msg:
    # agentscope stamps the Msg before it builds the wrapped TextBlock; keep the
    # order so deterministic factories give the same values.
    created = created_at if created_at is not None else now()
    return Msg(
        name=name, content=_blocks(content), role=role,
        id=id if id is not None else new_id(), metadata=metadata or {},
        created_at=created, finished_at=finished_at if finished_at is not None else created,
        finished_reason=finished_reason,
    )


def AssistantMsg(
    name: str,
    content: str | list[ContentBlock],
    metadata: dict[str, Any] | None = None,
    created_at: str | None = None,
    finished_at: str | None = None,
    finished_reason: ReplyFinishedReason | None = None,
    structured_output: dict[str, Any] | None = None,
    id: str | None = None,
    usage: Usage | None = None,
) -> Msg:
    """An assistant message; a str becomes one TextBlock, ``finished_at``
    stays null unless given."""
    blocks = _blocks(content)  # built before the Msg is stamped, as in agentscope
    return Msg(
        name=name, content=blocks, role="assistant",
        id=id if id is not None else new_id(), metadata=metadata or {},
        created_at=created_at if created_at is not None else now(),
        finished_at=finished_at, finished_reason=finished_reason,
        structured_output=structured_output, usage=usage,
    )
