"""The 28 agent events of agentscope 2.0, and the records they carry.

Events are tagged by ``type`` with agentscope's UPPER_SNAKE strings (the
values of :class:`EventType`). The tag is written first; agentscope writes
``id, created_at, metadata`` before it, and readers on both sides accept any
key order. Events are frozen (they are facts; the reducer copies what it keeps)
and ``gc=False``: they hold scalars, bytes, blocks and decoded dicts, so they
cannot form a reference cycle unless a caller puts an event inside its own
metadata (such a cycle would never be collected). Decoding then skips the
garbage collector's bookkeeping for every event.

``Usage``, ``ErrorInfo`` and ``ConfirmResult`` live here because events carry
them; ``wire.messages`` re-uses them for ``Msg``.
"""

from __future__ import annotations

import enum
from typing import Any, ClassVar, Literal, TypeAlias

from msgspec import Struct, field

from wire._portable import check as _check_portable
from wire._portable import check_int
from wire.blocks import DataBlock, PermissionRule, TextBlock, ToolCallBlock, ToolResultBlock, ToolResultState
from wire.clock import new_id, now

# In the order the module defines them: the vocabularies, the records, the
# 28 events as a reply streams them, their union.
__all__ = (
    "Role",
    "EventType",
    "ReplyFinishedReason",
    "FinishedReason",
    "ErrorType",
    "ErrorInfo",
    "Usage",
    "ConfirmResult",
    "ReplyStartEvent",
    "ReplyEndEvent",
    "ModelCallStartEvent",
    "ModelCallEndEvent",
    "TextBlockStartEvent",
    "TextBlockDeltaEvent",
    "TextBlockEndEvent",
    "DataBlockStartEvent",
    "DataBlockDeltaEvent",
    "DataBlockEndEvent",
    "ThinkingBlockStartEvent",
    "ThinkingBlockDeltaEvent",
    "ThinkingBlockEndEvent",
    "HintBlockEvent",
    "ToolCallStartEvent",
    "ToolCallDeltaEvent",
    "ToolCallEndEvent",
    "ToolResultStartEvent",
    "ToolResultTextDeltaEvent",
    "ToolResultDataDeltaEvent",
    "ToolResultEndEvent",
    "ExceedMaxItersEvent",
    "RequireUserConfirmEvent",
    "RequireExternalExecutionEvent",
    "UserConfirmResultEvent",
    "UserInterruptEvent",
    "ExternalExecutionResultEvent",
    "CustomEvent",
    "AgentEvent",
    "UnknownEvent",
)

Role: TypeAlias = Literal["user", "assistant", "system"]


class EventType(enum.StrEnum):
    REPLY_START = "REPLY_START"
    REPLY_END = "REPLY_END"
    MODEL_CALL_START = "MODEL_CALL_START"
    MODEL_CALL_END = "MODEL_CALL_END"
    TEXT_BLOCK_START = "TEXT_BLOCK_START"
    TEXT_BLOCK_DELTA = "TEXT_BLOCK_DELTA"
    TEXT_BLOCK_END = "TEXT_BLOCK_END"
    DATA_BLOCK_START = "DATA_BLOCK_START"
    DATA_BLOCK_DELTA = "DATA_BLOCK_DELTA"
    DATA_BLOCK_END = "DATA_BLOCK_END"
    THINKING_BLOCK_START = "THINKING_BLOCK_START"
    THINKING_BLOCK_DELTA = "THINKING_BLOCK_DELTA"
    THINKING_BLOCK_END = "THINKING_BLOCK_END"
    HINT_BLOCK = "HINT_BLOCK"
    TOOL_CALL_START = "TOOL_CALL_START"
    TOOL_CALL_DELTA = "TOOL_CALL_DELTA"
    TOOL_CALL_END = "TOOL_CALL_END"
    TOOL_RESULT_START = "TOOL_RESULT_START"
    TOOL_RESULT_TEXT_DELTA = "TOOL_RESULT_TEXT_DELTA"
    TOOL_RESULT_DATA_DELTA = "TOOL_RESULT_DATA_DELTA"
    TOOL_RESULT_END = "TOOL_RESULT_END"
    EXCEED_MAX_ITERS = "EXCEED_MAX_ITERS"
    REQUIRE_USER_CONFIRM = "REQUIRE_USER_CONFIRM"
    REQUIRE_EXTERNAL_EXECUTION = "REQUIRE_EXTERNAL_EXECUTION"
    USER_CONFIRM_RESULT = "USER_CONFIRM_RESULT"
    USER_INTERRUPT = "USER_INTERRUPT"
    EXTERNAL_EXECUTION_RESULT = "EXTERNAL_EXECUTION_RESULT"
    CUSTOM = "CUSTOM"


class ReplyFinishedReason(enum.StrEnum):
    """Why a reply ended (``Msg.finished_reason``, ``ReplyEndEvent``)."""

    COMPLETED = "completed"
    INTERRUPTED = "interrupted"
    EXCEED_MAX_ITERS = "exceed_max_iters"
    ERROR = "error"


class FinishedReason(enum.StrEnum):
    """Why one model call ended (``ModelCallEndEvent``)."""

    INTERRUPTED = "interrupted"
    COMPLETED = "completed"


class ErrorType(enum.StrEnum):
    AUTHENTICATION = "authentication"
    PERMISSION = "permission"
    RATE_LIMIT = "rate_limit"
    INVALID_REQUEST = "invalid_request"
    UPSTREAM = "upstream"
    CONNECTION = "connection"
    INTERNAL = "internal"
    SETUP = "setup"
    UNKNOWN = "unknown"


class ErrorInfo(Struct, kw_only=True, omit_defaults=True, gc=False):
    type: ErrorType = ErrorType.UNKNOWN
    message: str


class Usage(Struct, kw_only=True, omit_defaults=True, gc=False):
    """Token counts; ``Msg.usage`` sums every model call of a reply."""

    # The reducer's sums saturate at 2**64-1, the most MessagePack can write.

    input_tokens: int
    output_tokens: int
    cache_input_tokens: int = 0
    cache_creation_input_tokens: int = 0

    def __post_init__(self) -> None:
        _check_tokens(self)


def _check_tokens(counts: Usage | ModelCallEndEvent) -> None:
    for name in ("input_tokens", "output_tokens", "cache_input_tokens", "cache_creation_input_tokens"):
        check_int(getattr(counts, name), name)


class ConfirmResult(Struct, kw_only=True, omit_defaults=True, gc=False):
    """The user's answer to one tool call of a REQUIRE_USER_CONFIRM."""

    confirmed: bool
    tool_call: ToolCallBlock
    rules: list[PermissionRule] | None = None


class _Event(Struct, tag_field="type", kw_only=True, omit_defaults=True, frozen=True, gc=False):
    """Fields every event has. ``event.type`` is its EventType, as in agentscope."""

    id: str = field(default_factory=new_id)
    created_at: str = field(default_factory=now)
    metadata: dict[str, Any] = {}

    event_type: ClassVar[EventType]

    def __post_init__(self) -> None:
        if self.metadata:
            _check_portable(self.metadata, "metadata")

    @property
    def type(self) -> EventType:
        return self.event_type


class ReplyStartEvent(_Event, tag="REPLY_START", kw_only=True, frozen=True):
    session_id: str
    reply_id: str
    name: str
    role: Role = "assistant"


class ReplyEndEvent(_Event, tag="REPLY_END", kw_only=True, frozen=True):
    session_id: str
    reply_id: str
    finished_reason: ReplyFinishedReason = ReplyFinishedReason.COMPLETED
    error: ErrorInfo | None = None


class ModelCallStartEvent(_Event, tag="MODEL_CALL_START", kw_only=True, frozen=True):
    reply_id: str
    model_name: str


class ModelCallEndEvent(_Event, tag="MODEL_CALL_END", kw_only=True, frozen=True):
    reply_id: str
    input_tokens: int
    output_tokens: int
    cache_input_tokens: int = 0
    cache_creation_input_tokens: int = 0
    finished_reason: FinishedReason = FinishedReason.COMPLETED

    def __post_init__(self) -> None:
        super().__post_init__()
        _check_tokens(self)


class TextBlockStartEvent(_Event, tag="TEXT_BLOCK_START", kw_only=True, frozen=True):
    reply_id: str
    block_id: str


class TextBlockDeltaEvent(_Event, tag="TEXT_BLOCK_DELTA", kw_only=True, frozen=True):
    reply_id: str
    block_id: str
    delta: str


class TextBlockEndEvent(_Event, tag="TEXT_BLOCK_END", kw_only=True, frozen=True):
    """``text``, when not null, replaces the block's text (even with "")."""

    reply_id: str
    block_id: str
    text: str | None = None


def _check_data_or_url(data: object, url: str | None) -> None:
    if (data is None) == (url is None):
        raise ValueError("Exactly one of `data` or `url` must be provided.")


class DataBlockStartEvent(_Event, tag="DATA_BLOCK_START", kw_only=True, frozen=True):
    reply_id: str
    block_id: str
    media_type: str
    name: str | None = None


class DataBlockDeltaEvent(_Event, tag="DATA_BLOCK_DELTA", kw_only=True, frozen=True):
    """One chunk of a data block: bytes (base64 in JSON) or a URL, never both."""

    reply_id: str
    block_id: str
    media_type: str
    data: bytes | None = None
    url: str | None = None

    def __post_init__(self) -> None:
        super().__post_init__()
        _check_data_or_url(self.data, self.url)


class DataBlockEndEvent(_Event, tag="DATA_BLOCK_END", kw_only=True, frozen=True):
    reply_id: str
    block_id: str


class ThinkingBlockStartEvent(_Event, tag="THINKING_BLOCK_START", kw_only=True, frozen=True):
    reply_id: str
    block_id: str


class ThinkingBlockDeltaEvent(_Event, tag="THINKING_BLOCK_DELTA", kw_only=True, frozen=True):
    reply_id: str
    block_id: str
    delta: str


class ThinkingBlockEndEvent(_Event, tag="THINKING_BLOCK_END", kw_only=True, frozen=True):
    reply_id: str
    block_id: str


class HintBlockEvent(_Event, tag="HINT_BLOCK", kw_only=True, frozen=True):
    reply_id: str
    block_id: str
    source: str | None = None
    hint: str | list[TextBlock | DataBlock]


class ToolCallStartEvent(_Event, tag="TOOL_CALL_START", kw_only=True, frozen=True):
    reply_id: str
    tool_call_id: str
    tool_call_name: str


class ToolCallDeltaEvent(_Event, tag="TOOL_CALL_DELTA", kw_only=True, frozen=True):
    """A fragment of the call's JSON input; fragments may split escapes."""

    reply_id: str
    tool_call_id: str
    delta: str


class ToolCallEndEvent(_Event, tag="TOOL_CALL_END", kw_only=True, frozen=True):
    reply_id: str
    tool_call_id: str


class ToolResultStartEvent(_Event, tag="TOOL_RESULT_START", kw_only=True, frozen=True):
    reply_id: str
    tool_call_id: str
    tool_call_name: str


class ToolResultTextDeltaEvent(_Event, tag="TOOL_RESULT_TEXT_DELTA", kw_only=True, frozen=True):
    reply_id: str
    tool_call_id: str
    delta: str


class ToolResultDataDeltaEvent(_Event, tag="TOOL_RESULT_DATA_DELTA", kw_only=True, frozen=True):
    """Chunks with the same ``block_id`` merge into one DataBlock; an omitted
    ``block_id`` is generated, so such chunks never merge (as in agentscope)."""

    reply_id: str
    tool_call_id: str
    block_id: str = field(default_factory=new_id)
    media_type: str
    data: bytes | None = None
    url: str | None = None

    def __post_init__(self) -> None:
        super().__post_init__()
        _check_data_or_url(self.data, self.url)


class ToolResultEndEvent(_Event, tag="TOOL_RESULT_END", kw_only=True, frozen=True):
    """``metadata`` (the envelope field) is the tool result's metadata."""

    reply_id: str
    tool_call_id: str
    state: ToolResultState


class ExceedMaxItersEvent(_Event, tag="EXCEED_MAX_ITERS", kw_only=True, frozen=True):
    """Deprecated in agentscope (REPLY_END carries ``exceed_max_iters`` now),
    still sent by it for older front ends."""

    reply_id: str
    name: str


class RequireUserConfirmEvent(_Event, tag="REQUIRE_USER_CONFIRM", kw_only=True, frozen=True):
    reply_id: str
    tool_calls: list[ToolCallBlock]


class RequireExternalExecutionEvent(_Event, tag="REQUIRE_EXTERNAL_EXECUTION", kw_only=True, frozen=True):
    reply_id: str
    tool_calls: list[ToolCallBlock]


class UserConfirmResultEvent(_Event, tag="USER_CONFIRM_RESULT", kw_only=True, frozen=True):
    reply_id: str
    confirm_results: list[ConfirmResult]


class UserInterruptEvent(_Event, tag="USER_INTERRUPT", kw_only=True, frozen=True):
    reply_id: str


class ExternalExecutionResultEvent(_Event, tag="EXTERNAL_EXECUTION_RESULT", kw_only=True, frozen=True):
    reply_id: str
    execution_results: list[ToolResultBlock]

    def __post_init__(self) -> None:
        super().__post_init__()
        for i, result in enumerate(self.execution_results):
            if result.metadata:
                _check_portable(result.metadata, f"execution_results[{i}].metadata")


class CustomEvent(_Event, tag="CUSTOM", kw_only=True, frozen=True):
    """An application event; it has no ``reply_id`` and the reducer ignores it."""

    name: str
    value: dict[str, Any] = {}

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.value:
            _check_portable(self.value, "value")


AgentEvent: TypeAlias = (
    ReplyStartEvent
    | ReplyEndEvent
    | ModelCallStartEvent
    | ModelCallEndEvent
    | TextBlockStartEvent
    | TextBlockDeltaEvent
    | TextBlockEndEvent
    | DataBlockStartEvent
    | DataBlockDeltaEvent
    | DataBlockEndEvent
    | ThinkingBlockStartEvent
    | ThinkingBlockDeltaEvent
    | ThinkingBlockEndEvent
    | HintBlockEvent
    | ToolCallStartEvent
    | ToolCallDeltaEvent
    | ToolCallEndEvent
    | ToolResultStartEvent
    | ToolResultTextDeltaEvent
    | ToolResultDataDeltaEvent
    | ToolResultEndEvent
    | ExceedMaxItersEvent
    | RequireUserConfirmEvent
    | RequireExternalExecutionEvent
    | UserConfirmResultEvent
    | UserInterruptEvent
    | ExternalExecutionResultEvent
    | CustomEvent
)

for _cls in AgentEvent.__args__:
    _cls.event_type = EventType(_cls.__struct_config__.tag)
del _cls


class UnknownEvent:
    """An event whose ``type`` this version of wire does not know (a newer
    server), kept whole: the streaming decoders return one with
    ``unknown="keep"``. ``raw`` is the event's exact payload bytes and
    ``format`` says which codec wrote them, ``"json"`` or ``"msgpack"``.

    It is outside the AgentEvent union on purpose: the reducer does not take it
    and ``isinstance`` checks against the union keep meaning "known event".
    wire's encoders write ``raw`` unchanged, so a proxy forwards what it cannot
    read byte for byte; writing it in the other format raises EncodeError.

    A plain class rather than a Struct: msgspec encodes Structs itself, but
    hands unknown classes to an encoder's ``enc_hook``, which is how the
    streaming encoders splice ``raw`` in even in their batch paths.
    """

    __slots__ = ("format", "raw", "type")

    type: str
    raw: bytes
    format: Literal["json", "msgpack"]

    def __init__(self, type: str, raw: bytes, format: Literal["json", "msgpack"]) -> None:
        object.__setattr__(self, "type", type)
        object.__setattr__(self, "raw", bytes(raw))
        object.__setattr__(self, "format", format)

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(f"UnknownEvent is immutable; cannot set {name!r}")

    def __eq__(self, other: object) -> bool:
        if type(other) is not UnknownEvent:
            return NotImplemented
        return (self.type, self.raw, self.format) == (other.type, other.raw, other.format)

    def __hash__(self) -> int:
        return hash((self.type, self.raw, self.format))

    def __repr__(self) -> str:
        return f"UnknownEvent(type={self.type!r}, raw={self.raw!r}, format={self.format!r})"
