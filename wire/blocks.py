"""Content blocks: the typed parts of a Msg, and the sources of a DataBlock.

Each block is a msgspec Struct tagged by ``type`` with agentscope 2.0's tag
strings; tags are written first, which also makes decoding faster. Fields keep
agentscope's names, order and defaults. ``omit_defaults`` leaves out fields
that hold their default (``finished_at: null``, ``metadata: {}``), which
agentscope reads back as the same default.

Binary data is ``bytes`` in memory: standard padded base64 in JSON (exactly
what agentscope writes) and a MessagePack ``bin`` with no base64 at all.

Streamed fields. The reducer grows ``TextBlock.text``, ``ThinkingBlock.thinking``,
``ToolCallBlock.input`` and ``Base64Source.data`` one delta at a time; how it
does so in linear time without ever leaving a block half-written is
``wire.reducer``'s business. Here they are plain fields: what msgspec encodes,
copies and compares is always the whole value.
"""

from __future__ import annotations

import enum
from typing import Any, TypeAlias

from msgspec import Struct, field

from wire._url import normalize_url
from wire.clock import new_id, now
from wire.partial_json import PartialJSON

__all__ = (
    "Base64Source",
    "ContentBlock",
    "DataBlock",
    "DataSource",
    "HintBlock",
    "PermissionBehavior",
    "PermissionRule",
    "ROLE_BLOCKS",
    "TextBlock",
    "ThinkingBlock",
    "ToolCallBlock",
    "ToolCallState",
    "ToolResultBlock",
    "ToolResultState",
    "URLSource",
    "normalize_url",
)


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


class _Tagged(Struct, tag_field="type", kw_only=True, omit_defaults=True, gc=False):
    """Shared config of blocks and sources. Not frozen: the reducer updates
    blocks in place, as agentscope's ``append_event`` does. ``gc=False``:
    a block holds data only (strings, sources, other blocks, JSON values) and
    never refers back to its Msg, so it can be in no cycle; untracked, a
    session of hundreds of replies no longer makes every full collection walk
    each of their blocks (a full collection during a store's ``session()``
    took 25 ms at 200 replies). ThinkingBlock keeps its ``__dict__`` (its
    provider keys), which msgspec allows only on tracked structs."""

    @property
    def type(self) -> str:
        """The wire tag (``"text"``, ``"tool_call"``...), as agentscope's
        ``block.type``."""
        return type(self).__struct_config__.tag  # type: ignore[return-value]


class Base64Source(_Tagged, tag="base64", kw_only=True):
    """Inline binary data; ``data`` is the decoded bytes. While the reducer
    is still growing an open data block, ``data`` is a ``bytearray`` (encoded
    exactly as bytes); it becomes ``bytes`` at the block's END."""

    data: bytes
    media_type: str


class URLSource(_Tagged, tag="url", kw_only=True):
    """Data at a URL, normalized on construction and decoding as agentscope's
    pydantic ``AnyUrl`` does (see ``wire._url``); a relative or malformed URL
    is an error."""

    url: str
    media_type: str

    def __post_init__(self) -> None:
        self.url = normalize_url(self.url)


DataSource: TypeAlias = Base64Source | URLSource


class TextBlock(_Tagged, tag="text", kw_only=True):
    text: str
    id: str = field(default_factory=new_id)
    created_at: str = field(default_factory=now)
    finished_at: str | None = None


class ThinkingBlock(_Tagged, tag="thinking", kw_only=True, dict=True, gc=True):
    """A model's reasoning. Provider keys that agentscope keeps beside the
    fields (Anthropic's ``signature``, ``redacted_thinking_data``) are kept as
    attributes: ``block.signature``, all of them in ``vars(block)``; they are
    written after the fields and compared by ``==``."""

    thinking: str
    id: str = field(default_factory=new_id)
    created_at: str = field(default_factory=now)
    finished_at: str | None = None


class DataBlock(_Tagged, tag="data", kw_only=True):
    id: str = field(default_factory=new_id)
    source: DataSource
    name: str | None = None
    created_at: str = field(default_factory=now)
    finished_at: str | None = None


class HintBlock(_Tagged, tag="hint", kw_only=True):
    """A reminder injected into the conversation. Unlike other blocks it is
    finished when made: ``finished_at`` defaults to now, not to null."""

    hint: str | list[TextBlock | DataBlock]
    id: str = field(default_factory=new_id)
    source: str | None = None
    created_at: str = field(default_factory=now)
    finished_at: str | None = field(default_factory=now)


class PermissionRule(Struct, kw_only=True):
    """A permission a tool call suggests; ``rule_content`` is required but may
    be null, so it is always written."""

    tool_name: str
    rule_content: str | None
    behavior: PermissionBehavior
    source: str


class _InputView:
    """Mixin: the state of a tool call's partial input view, made on the first
    read of ``partial_input``; not on the wire."""

    __slots__ = ("_view",)


class ToolCallBlock(_Tagged, _InputView, tag="tool_call", kw_only=True):
    """A tool call; ``id`` comes from the model provider and ``input`` is the
    raw JSON text of the arguments, streamed in fragments."""

    id: str
    name: str
    input: str
    state: ToolCallState = ToolCallState.PENDING
    suggested_rules: list[PermissionRule] = []
    created_at: str = field(default_factory=now)
    finished_at: str | None = None

    @property
    def partial_input(self) -> Any:
        """The JSON value of ``input`` so far, with what is still open closed
        (``wire.partial_json``): ``{"city": "Par"}`` while the arguments
        stream. Each read parses only what arrived since the previous read, so
        reading after every delta costs time linear in the input's length, not
        a parse of the whole buffer each time. Input that is not JSON raises
        ``PartialJSONError`` (a DecodeError), at every read until it changes.

        The view assumes ``input`` grows by appends, as the reducer grows it;
        an input that no longer starts with what was read (its last 16
        characters are compared) is read again from the start."""
        text = self.input
        state: tuple[PartialJSON, str] | None = getattr(self, "_view", None)
        if state is not None:
            view, tail = state
            read = view.length
            if len(text) < read or not text.startswith(tail, read - len(tail)):
                state = None
        if state is None:
            view, read = PartialJSON(), 0
        if view.error is not None:
            raise view.error
        if len(text) > read:
            view.feed(text[read:])  # raises PartialJSONError, kept in view.error
        # A copy of the last characters read, not a reference to the input:
        # the reducer grows the input in place only while nothing else holds it.
        self._view = (view, text[max(0, view.length - 16):view.length])
        return view.value


class ToolResultBlock(_Tagged, tag="tool_result", kw_only=True):
    """The result of a tool call; ``id`` equals the call's id."""

    id: str
    name: str
    output: str | list[TextBlock | DataBlock]
    state: ToolResultState = ToolResultState.RUNNING
    metadata: dict[str, Any] = {}
    created_at: str = field(default_factory=now)
    finished_at: str | None = None


ContentBlock: TypeAlias = (
    TextBlock | ThinkingBlock | HintBlock | DataBlock | ToolCallBlock | ToolResultBlock
)

ROLE_BLOCKS: dict[str, tuple[frozenset[type], str] | None] = {
    "user": (frozenset({TextBlock, DataBlock}), "text and data blocks"),
    "system": (frozenset({TextBlock}), "text blocks"),
    "assistant": None,
}
"""The role table: which block types a Msg of each role may hold (None: any),
and how an error says it, as agentscope's ``Msg`` validator states them.
``Msg`` checks it and the reducer keeps a Msg it builds within it."""

# ThinkingBlock's provider keys live in the instance __dict__, which msgspec's
# __eq__ does not see; compare them too, so a decoded block with a signature
# differs from one without.
_thinking_eq = ThinkingBlock.__eq__


def _thinking_block_eq(self: object, other: object) -> Any:
    result = _thinking_eq(self, other)
    if result is True and type(other) is ThinkingBlock:
        return vars(self) == vars(other)
    return result


def _thinking_block_ne(self: object, other: object) -> Any:
    result = _thinking_block_eq(self, other)
    return result if result is NotImplemented else not result


ThinkingBlock.__eq__ = _thinking_block_eq  # type: ignore[method-assign]
ThinkingBlock.__ne__ = _thinking_block_ne  # type: ignore[method-assign]
