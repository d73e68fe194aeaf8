"""pydantic v2 models of the same shapes as wire's, as the benchmark's peer.

The 28 events and the blocks they carry, field for field as in ``wire.events``
and ``wire.blocks`` (same names, types, defaults and order, ``type`` first),
discriminated on ``type``; bytes are ``Base64Bytes``, standard padded base64
in JSON as in wire (pydantic's ``ser_json_bytes="base64"`` writes the URL-safe
alphabet, which agentscope's ``b64decode`` would silently drop). This
is what a careful pydantic user would write, so the comparison is between the
libraries and not between two schemas. agentscope's own models (the real
peer) differ in small ways: data is a base64 ``str`` there, never decoded.
"""

from __future__ import annotations

import enum
import uuid
from datetime import UTC, datetime
from typing import Annotated, Any, Literal

from pydantic import Base64Bytes, BaseModel, Field, TypeAdapter

__all__ = ("EventAdapter", "EventListAdapter", "EventModel")


def _id() -> str:
    return uuid.uuid4().hex


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="microseconds")


class _Model(BaseModel):
    pass


class ToolCallState(enum.StrEnum):
    PENDING = "pending"
    ASKING = "asking"
    ALLOWED = "allowed"
    SUBMITTED = "submitted"
    FINISHED = "finished"


class ToolResultState(enum.StrEnum):
    SUCCESS = "success"
    ERROR = "error"
    INTERRUPTED = "interrupted"
    DENIED = "denied"
    RUNNING = "running"


class PermissionBehavior(enum.StrEnum):
    ALLOW = "allow"
    DENY = "deny"
    ASK = "ask"
    PASSTHROUGH = "passthrough"


class ReplyFinishedReason(enum.StrEnum):
    COMPLETED = "completed"
    INTERRUPTED = "interrupted"
    EXCEED_MAX_ITERS = "exceed_max_iters"
    ERROR = "error"


class FinishedReason(enum.StrEnum):
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


# -- blocks ----------------------------------------------------------------------------


class Base64Source(_Model):
    type: Literal["base64"] = "base64"
    data: Base64Bytes
    media_type: str


class URLSource(_Model):
    type: Literal["url"] = "url"
    url: str
    media_type: str


class TextBlock(_Model):
    type: Literal["text"] = "text"
    text: str
    id: str = Field(default_factory=_id)
    created_at: str = Field(default_factory=_now)
    finished_at: str | None = None


class DataBlock(_Model):
    type: Literal["data"] = "data"
    id: str = Field(default_factory=_id)
    source: Annotated[Base64Source | URLSource, Field(discriminator="type")]
    name: str | None = None
    created_at: str = Field(default_factory=_now)
    finished_at: str | None = None


_Part = Annotated[TextBlock | DataBlock, Field(discriminator="type")]


class PermissionRule(_Model):
    tool_name: str
    rule_content: str | None
    behavior: PermissionBehavior
    source: str


class ToolCallBlock(_Model):
    type: Literal["tool_call"] = "tool_call"
    id: str
    name: str
    input: str
    state: ToolCallState = ToolCallState.PENDING
    suggested_rules: list[PermissionRule] = []
    created_at: str = Field(default_factory=_now)
    finished_at: str | None = None


class ToolResultBlock(_Model):
    type: Literal["tool_result"] = "tool_result"
    id: str
    name: str
    output: str | list[_Part]
    state: ToolResultState = ToolResultState.RUNNING
    metadata: dict[str, Any] = {}
    created_at: str = Field(default_factory=_now)
    finished_at: str | None = None


class ErrorInfo(_Model):
    type: ErrorType = ErrorType.UNKNOWN
    message: str


class ConfirmResult(_Model):
    confirmed: bool
    tool_call: ToolCallBlock
    rules: list[PermissionRule] | None = None


# -- events ----------------------------------------------------------------------------


class _Event(_Model):
    # Overridden by each event with its Literal tag; a field keeps its parent's
    # position, so ``type`` is written first, as wire writes it.
    type: str
    id: str = Field(default_factory=_id)
    created_at: str = Field(default_factory=_now)
    metadata: dict[str, Any] = {}


class ReplyStart(_Event):
    type: Literal["REPLY_START"] = "REPLY_START"
    session_id: str
    reply_id: str
    name: str
    role: Literal["user", "assistant", "system"] = "assistant"


class ReplyEnd(_Event):
    type: Literal["REPLY_END"] = "REPLY_END"
    session_id: str
    reply_id: str
    finished_reason: ReplyFinishedReason = ReplyFinishedReason.COMPLETED
    error: ErrorInfo | None = None


class ModelCallStart(_Event):
    type: Literal["MODEL_CALL_START"] = "MODEL_CALL_START"
    reply_id: str
    model_name: str


class ModelCallEnd(_Event):
    type: Literal["MODEL_CALL_END"] = "MODEL_CALL_END"
    reply_id: str
    input_tokens: int
    output_tokens: int
    cache_input_tokens: int = 0
    cache_creation_input_tokens: int = 0
    finished_reason: FinishedReason = FinishedReason.COMPLETED


class TextBlockStart(_Event):
    type: Literal["TEXT_BLOCK_START"] = "TEXT_BLOCK_START"
    reply_id: str
    block_id: str


class TextBlockDelta(_Event):
    type: Literal["TEXT_BLOCK_DELTA"] = "TEXT_BLOCK_DELTA"
    reply_id: str
    block_id: str
    delta: str


class TextBlockEnd(_Event):
    type: Literal["TEXT_BLOCK_END"] = "TEXT_BLOCK_END"
    reply_id: str
    block_id: str
    text: str | None = None


class DataBlockStart(_Event):
    type: Literal["DATA_BLOCK_START"] = "DATA_BLOCK_START"
    reply_id: str
    block_id: str
    media_type: str
    name: str | None = None


class DataBlockDelta(_Event):
    type: Literal["DATA_BLOCK_DELTA"] = "DATA_BLOCK_DELTA"
    reply_id: str
    block_id: str
    media_type: str
    data: Base64Bytes | None = None
    url: str | None = None


class DataBlockEnd(_Event):
    type: Literal["DATA_BLOCK_END"] = "DATA_BLOCK_END"
    reply_id: str
    block_id: str


class ThinkingBlockStart(_Event):
    type: Literal["THINKING_BLOCK_START"] = "THINKING_BLOCK_START"
    reply_id: str
    block_id: str


class ThinkingBlockDelta(_Event):
    type: Literal["THINKING_BLOCK_DELTA"] = "THINKING_BLOCK_DELTA"
    reply_id: str
    block_id: str
    delta: str


class ThinkingBlockEnd(_Event):
    type: Literal["THINKING_BLOCK_END"] = "THINKING_BLOCK_END"
    reply_id: str
    block_id: str


class HintBlock(_Event):
    type: Literal["HINT_BLOCK"] = "HINT_BLOCK"
    reply_id: str
    block_id: str
    source: str | None = None
    hint: str | list[_Part]


class ToolCallStart(_Event):
    type: Literal["TOOL_CALL_START"] = "TOOL_CALL_START"
    reply_id: str
    tool_call_id: str
    tool_call_name: str


class ToolCallDelta(_Event):
    type: Literal["TOOL_CALL_DELTA"] = "TOOL_CALL_DELTA"
    reply_id: str
    tool_call_id: str
    delta: str


class ToolCallEnd(_Event):
    type: Literal["TOOL_CALL_END"] = "TOOL_CALL_END"
    reply_id: str
    tool_call_id: str


class ToolResultStart(_Event):
    type: Literal["TOOL_RESULT_START"] = "TOOL_RESULT_START"
    reply_id: str
    tool_call_id: str
    tool_call_name: str


class ToolResultTextDelta(_Event):
    type: Literal["TOOL_RESULT_TEXT_DELTA"] = "TOOL_RESULT_TEXT_DELTA"
    reply_id: str
    tool_call_id: str
    delta: str


class ToolResultDataDelta(_Event):
    type: Literal["TOOL_RESULT_DATA_DELTA"] = "TOOL_RESULT_DATA_DELTA"
    reply_id: str
    tool_call_id: str
    block_id: str = Field(default_factory=_id)
    media_type: str
    data: Base64Bytes | None = None
    url: str | None = None


class ToolResultEnd(_Event):
    type: Literal["TOOL_RESULT_END"] = "TOOL_RESULT_END"
    reply_id: str
    tool_call_id: str
    state: ToolResultState


class ExceedMaxIters(_Event):
    type: Literal["EXCEED_MAX_ITERS"] = "EXCEED_MAX_ITERS"
    reply_id: str
    name: str


class RequireUserConfirm(_Event):
    type: Literal["REQUIRE_USER_CONFIRM"] = "REQUIRE_USER_CONFIRM"
    reply_id: str
    tool_calls: list[ToolCallBlock]


class RequireExternalExecution(_Event):
    type: Literal["REQUIRE_EXTERNAL_EXECUTION"] = "REQUIRE_EXTERNAL_EXECUTION"
    reply_id: str
    tool_calls: list[ToolCallBlock]


class UserConfirmResult(_Event):
    type: Literal["USER_CONFIRM_RESULT"] = "USER_CONFIRM_RESULT"
    reply_id: str
    confirm_results: list[ConfirmResult]


class UserInterrupt(_Event):
    type: Literal["USER_INTERRUPT"] = "USER_INTERRUPT"
    reply_id: str


class ExternalExecutionResult(_Event):
    type: Literal["EXTERNAL_EXECUTION_RESULT"] = "EXTERNAL_EXECUTION_RESULT"
    reply_id: str
    execution_results: list[ToolResultBlock]


class Custom(_Event):
    type: Literal["CUSTOM"] = "CUSTOM"
    name: str
    value: dict[str, Any] = {}


EventModel = Annotated[
    ReplyStart | ReplyEnd | ModelCallStart | ModelCallEnd
    | TextBlockStart | TextBlockDelta | TextBlockEnd
    | DataBlockStart | DataBlockDelta | DataBlockEnd
    | ThinkingBlockStart | ThinkingBlockDelta | ThinkingBlockEnd
    | HintBlock
    | ToolCallStart | ToolCallDelta | ToolCallEnd
    | ToolResultStart | ToolResultTextDelta | ToolResultDataDelta | ToolResultEnd
    | ExceedMaxIters | RequireUserConfirm | RequireExternalExecution
    | UserConfirmResult | UserInterrupt | ExternalExecutionResult | Custom,
    Field(discriminator="type"),
]

EventAdapter: TypeAdapter[Any] = TypeAdapter(EventModel)
EventListAdapter: TypeAdapter[list[Any]] = TypeAdapter(list[EventModel])
