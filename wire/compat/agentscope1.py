"""AgentScope 1.x messages to and from 2.0 ``Msg``.

AgentScope 1.x (``agentscope`` 1.0.x) writes a message with ``Msg.to_dict()``
as ``{id, name, role, content, metadata, timestamp}``; ``content`` is a str or
a list of dict blocks (``text``, ``thinking``, ``image``/``audio``/``video``
with a ``base64`` or ``url`` source, ``tool_use``, ``tool_result``), and
memories save lists of these dicts (``InMemoryMemory.state_dict()`` saves
``[dict, marks]`` pairs). See ``agentscope/message/_message_block.py`` and
``_message_base.py`` of agentscope 1.0.21.

1.x -> 2.0 (:func:`from_agentscope1`, :func:`from_agentscope1_history`)
------------------------------------------------------------------------

* ``text`` -> TextBlock, ``thinking`` -> ThinkingBlock; a str content is one
  TextBlock.
* ``image``/``audio``/``video`` -> DataBlock. A ``base64`` source keeps its
  media type and its data as bytes (a ``data:`` URI in ``data`` is read too);
  a ``url`` source gets a media type guessed from the URL's extension, or
  ``image/*``, ``audio/*``, ``video/*``; a local file path becomes a
  ``file:`` URL.
* ``tool_use`` -> ToolCallBlock with ``input`` as compact JSON text. Its state
  is ``finished`` when a ``tool_result`` with its id is in the same message
  (or, for a history, anywhere in it), else ``pending``: 2.0 agents execute a
  pending call they find unanswered, so convert histories with the list form.
* ``tool_result`` -> ToolResultBlock in state ``success`` with the same output.
* Role. 2.0 allows a user message only text and data blocks and a system
  message only text. 1.x agents store tool results in ``system`` messages
  (ReActAgent's ``Msg("system", [tool_result], "system")``) and users may send
  anything; such a message becomes an **assistant** message (in 2.0 a reply
  holds its tool calls and results), and its 1.x role is kept (below).
* ``timestamp`` (``YYYY-MM-DD HH:MM:SS.mmm``, naive local time) -> ``created_at``
  in the ISO form agentscope 2.0 writes (``YYYY-MM-DDTHH:MM:SS.ffffff``, still
  naive); a timestamp in another form is kept as it is. Blocks take the
  message's ``created_at`` and are finished at it, and so is the message.
  Block ids are ``<message id>-<index>`` (``-<index>`` again for the parts of
  a tool result), so converting the same history twice gives the same JSON.

What 2.0 has no field for is kept in ``msg.metadata["agentscope1"]`` (the key
:data:`METADATA_KEY`), present only when needed, so that
``to_agentscope1(from_agentscope1(d))`` gives back ``d``:

* ``"fields"``: top-level keys whose 1.x value would not come back: the role
  when it was changed, a timestamp not in 1.x's form, ``invocation_id``, keys
  1.x does not define;
* ``"content": "list"``: the content was a list holding one text block (a
  single TextBlock otherwise comes back as a str);
* ``"blocks"``: per block (``"2"``, or ``"2.1"`` for part 1 of a tool result's
  output), the 1.x keys to lay over the rebuilt block: ``raw_input``, keys
  1.x blocks do not define, base64 text or URLs that 2.0 normalizes, a media
  block whose kind its media type does not tell;
* ``"marks"``: the memory marks of a ``[dict, marks]`` pair;
* ``"compressed_summary": true``: the message is a memory's
  ``_compressed_summary``, which the command line puts first as the user
  message 1.x's memories hand out for it;
* ``"whole": true``: an assistant message holding tool results, when nothing
  else is recorded: it came from 1.x as one message, so the history form
  does not split it (see :func:`to_agentscope1_history`).

The round trip is exact for what 1.x itself writes: a missing ``metadata``,
``timestamp`` or ``id``, or a null one, is filled in as 1.x's ``from_dict``
does (with wire's clock for the last two).

2.0 -> 1.x (:func:`to_agentscope1`, :func:`to_agentscope1_history`) drops
------------------------------------------------------------------------

* hint blocks; data blocks whose media type is not image, audio or video;
* block ids, block timestamps, ``DataBlock.name``, tool-call states and
  suggested rules, tool-result states and metadata;
* ``usage``, ``finished_at``, ``finished_reason``, ``error``, and the
  precision of ``created_at`` below a millisecond; an aware ``created_at`` is
  written in the machine's local time, as 1.x stamps messages;
* ``structured_output`` is merged into ``metadata`` (where 1.x agents put
  it), the message's own metadata keys winning.

The history form also splits a 2.0 reply that holds tool results into 1.x's
layout (an assistant message, then a ``system`` message per result), which
1.x's formatters need; see :func:`to_agentscope1_history`.

A tool call whose ``input`` is not a JSON object is written as 1.x's model
wrappers write an unparsable one: ``input: {}`` and the text in ``raw_input``.
"""

from __future__ import annotations

import base64
import binascii
import mimetypes
import re
from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime
from pathlib import PurePosixPath
from typing import Any

import msgspec

from wire import blocks as bk
from wire._codec import DECODE_ERRORS, decode_error
from wire._portable import offender
from wire.clock import new_id, now
from wire.errors import DecodeError, EncodeError
from wire.json import decode_msg
from wire.json import encode as encode_json
from wire.messages import Msg

__all__ = (
    "METADATA_KEY",
    "convert_from_agentscope1",
    "convert_to_agentscope1",
    "from_agentscope1",
    "from_agentscope1_history",
    "to_agentscope1",
    "to_agentscope1_history",
)

METADATA_KEY = "agentscope1"
"""The key of ``Msg.metadata`` holding what 2.0 has no field for."""

_ROLES = ("user", "assistant", "system")
_MEDIA = ("image", "audio", "video")
_ALLOWED = {"user": (bk.TextBlock, bk.DataBlock), "system": (bk.TextBlock,)}
_TIMESTAMP = re.compile(r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{3}")
_DATA_URI = re.compile(r"data:([^,;]*)(?:;[^,;]*)*;base64,", re.IGNORECASE)
_json_encoder = msgspec.json.Encoder()


# -- 1.x -> 2.0 ----------------------------------------------------------------------


def from_agentscope1(message: Mapping[str, Any], *, path: str = "$",
                     finished_calls: Iterable[str] = ()) -> Msg:
    """The 2.0 Msg of one 1.x message dict (what 1.x's ``Msg.to_dict()`` writes).

    ``finished_calls`` names tool calls answered elsewhere (the history
    form passes every result id of the history). Bad input raises
    DecodeError whose ``path`` (starting at ``path``) says where."""
    if not isinstance(message, Mapping):
        raise DecodeError(f"a 1.x message is a JSON object, not {_kind(message)}", path=path)
    d = dict(message)
    name = _required(d, "name", str, path)
    role = _required(d, "role", str, path)
    if role not in _ROLES:
        raise DecodeError(f"role must be one of {', '.join(_ROLES)}, not {role!r}", path=f"{path}.role")
    content = _required(d, "content", (str, list), path)
    metadata = _optional(d, "metadata", dict, path) or {}
    if METADATA_KEY in metadata:
        raise DecodeError(f"the metadata key {METADATA_KEY!r} is wire's own record of a converted message",
                          path=f"{path}.metadata.{METADATA_KEY}")
    _portable(metadata, f"{path}.metadata")
    timestamp = _optional(d, "timestamp", str, path)
    msg_id = _optional(d, "id", str, path) or new_id()
    created_at = _iso(timestamp) if timestamp else now()

    blocks_1x: list[Any] = [{"type": "text", "text": content}] if isinstance(content, str) else content
    answered = set(finished_calls) | _result_ids(blocks_1x)
    blocks: list[bk.ContentBlock] = [
        _block_from_1x(b, f"{path}.content[{i}]", f"{msg_id}-{i}", created_at, answered)
        for i, b in enumerate(blocks_1x)]
    rule = _ALLOWED.get(role)
    msg_role = "assistant" if rule and not all(isinstance(b, rule) for b in blocks) else role
    msg = Msg(name=name, content=blocks, role=msg_role, id=msg_id, metadata=dict(metadata),  # type: ignore[arg-type]
              created_at=created_at, finished_at=created_at)

    # Keep what the plain 2.0 -> 1.x conversion would not give back.
    rebuilt = to_agentscope1(msg)
    record: dict[str, Any] = {}
    fields = {key: value for key, value in d.items()
              if key not in ("content", "metadata") and not (value is None and key == "timestamp")
              and (key not in rebuilt or rebuilt[key] != value)}
    if timestamp is None:
        fields.pop("timestamp", None)
    if "id" in fields and d.get("id") is None:
        del fields["id"]
    if fields:
        record["fields"] = fields
    if isinstance(content, list):
        if isinstance(rebuilt["content"], str):
            record["content"] = "list"
        patches = _block_patches(content, blocks)
        if patches:
            record["blocks"] = patches
    if not record and any(isinstance(b, bk.ToolResultBlock) for b in blocks):
        record["whole"] = True  # came as one 1.x message: the history form must not split it
    if record:
        msg.metadata[METADATA_KEY] = record
    return msg


def from_agentscope1_history(items: Iterable[Any], *, path: str = "$") -> list[Msg]:
    """The 2.0 Msgs of a 1.x history: message dicts, or the ``[dict, marks]``
    pairs ``InMemoryMemory.state_dict()["content"]`` holds (the marks are
    kept in the record). A tool call answered anywhere in the history is
    ``finished``."""
    if isinstance(items, (str, bytes, Mapping)) or not isinstance(items, Iterable):
        raise DecodeError(f"a 1.x history is a JSON array, not {_kind(items)}", path=path)
    entries: list[tuple[Any, Any, str]] = []
    for i, item in enumerate(items):
        at = f"{path}[{i}]"
        if isinstance(item, (list, tuple)):
            if len(item) != 2 or not isinstance(item[1], list):
                raise DecodeError("a memory entry is a message or a [message, marks] pair", path=at)
            entries.append((item[0], item[1], f"{at}[0]"))
        else:
            entries.append((item, None, at))
    answered = {id for d, _, _ in entries if isinstance(d, Mapping) and isinstance(d.get("content"), list)
                for id in _result_ids(d["content"])}
    msgs = []
    for d, marks, at in entries:
        msg = from_agentscope1(d, path=at, finished_calls=answered)
        if marks:  # no marks come back as none
            msg.metadata.setdefault(METADATA_KEY, {})["marks"] = marks
        msgs.append(msg)
    return msgs


def _result_ids(blocks: list[Any]) -> set[str]:
    """The ids of the tool results among 1.x blocks (a result whose id is no
    string is refused when its block is read)."""
    return {b["id"] for b in blocks
            if isinstance(b, dict) and b.get("type") == "tool_result" and isinstance(b.get("id"), str)}


def _portable(value: Any, path: str) -> None:
    """Refuse a value 2.0's codecs do not both carry (wire._portable), as
    the Msg constructor would, but as a DecodeError naming the path."""
    if (found := offender(value, path)) is not None:
        raise DecodeError(found[0], path=found[1])


def _block_from_1x(block: Any, path: str, block_id: str, created_at: str, answered: set[Any]) -> bk.ContentBlock:
    if not isinstance(block, dict):
        raise DecodeError(f"a content block is a JSON object, not {_kind(block)}", path=path)
    kind = _required(block, "type", str, path)
    stamps = {"id": block_id, "created_at": created_at, "finished_at": created_at}
    if kind == "text":
        return bk.TextBlock(text=_required(block, "text", str, path), **stamps)
    if kind == "thinking":
        return bk.ThinkingBlock(thinking=_required(block, "thinking", str, path), **stamps)
    if kind in _MEDIA:
        return _media_from_1x(block, kind, path, stamps)
    if kind == "tool_use":
        call_id = _required(block, "id", str, path)
        arguments = _required(block, "input", dict, path)
        try:
            text = _json_encoder.encode(arguments).decode()
        except (TypeError, ValueError, OverflowError) as exc:
            raise DecodeError(f"the tool input is not JSON: {exc}", path=f"{path}.input") from exc
        state = bk.ToolCallState.FINISHED if call_id in answered else bk.ToolCallState.PENDING
        return bk.ToolCallBlock(id=call_id, name=_required(block, "name", str, path), input=text, state=state,
                             created_at=created_at, finished_at=created_at)
    if kind == "tool_result":
        output = _required(block, "output", (str, list), path)
        if isinstance(output, list):
            parts: list[bk.TextBlock | bk.DataBlock] = []
            for j, part in enumerate(output):
                at = f"{path}.output[{j}]"
                converted = _block_from_1x(part, at, f"{block_id}-{j}", created_at, answered)
                if not isinstance(converted, (bk.TextBlock, bk.DataBlock)):
                    raise DecodeError(f"a tool result's output holds text, image, audio and video blocks, "
                                      f"not {converted.type!r}", path=f"{at}.type")
                parts.append(converted)
            output = parts
        return bk.ToolResultBlock(id=_required(block, "id", str, path), name=_required(block, "name", str, path),
                               output=output, state=bk.ToolResultState.SUCCESS,
                               created_at=created_at, finished_at=created_at)
    raise DecodeError(f"unknown 1.x block type {kind!r} (known: text, thinking, image, audio, video, "
                      "tool_use, tool_result)", path=f"{path}.type")


def _media_from_1x(block: dict[str, Any], kind: str, path: str, stamps: dict[str, str]) -> bk.DataBlock:
    source = _required(block, "source", dict, path)
    at = f"{path}.source"
    source_type = _required(source, "type", str, at)
    if source_type == "base64":
        media_type = _required(source, "media_type", str, at)
        text = _required(source, "data", str, at)
        if match := _DATA_URI.match(text):
            text = text[match.end():]
        try:
            data = base64.b64decode(text, validate=True)
        except (binascii.Error, ValueError) as exc:
            raise DecodeError(f"the data is not base64: {exc}", path=f"{at}.data") from exc
        return bk.DataBlock(source=bk.Base64Source(data=data, media_type=media_type), **stamps)
    if source_type == "url":
        url = _required(source, "url", str, at)
        try:
            normalized = bk.URLSource(url=_as_url(url), media_type=_guess_media_type(url, kind))
        except ValueError as exc:
            raise DecodeError(f"not a URL or an absolute file path: {exc}", path=f"{at}.url") from exc
        return bk.DataBlock(source=normalized, **stamps)
    raise DecodeError(f"a source's type is 'base64' or 'url', not {source_type!r}", path=f"{at}.type")


def _as_url(url: str) -> str:
    """1.x formatters also read local files named in a URL source; 2.0 wants
    an absolute URL, so an absolute POSIX path becomes a ``file:`` URL."""
    if url.startswith("/"):
        return PurePosixPath(url).as_uri()
    return url


def _guess_media_type(url: str, kind: str) -> str:
    guessed = mimetypes.guess_type(url.split("?", 1)[0].split("#", 1)[0], strict=False)[0]
    return guessed if guessed and guessed.startswith(f"{kind}/") else f"{kind}/*"


def _iso(timestamp: str) -> str:
    """1.x's ``YYYY-MM-DD HH:MM:SS.mmm`` as agentscope 2.0's naive ISO form;
    any other string unchanged (2.0 treats timestamps as opaque)."""
    if not _TIMESTAMP.fullmatch(timestamp):
        return timestamp
    try:  # fromisoformat reads this form too, in C: 5x faster than strptime
        return datetime.fromisoformat(timestamp).isoformat()
    except ValueError:
        return timestamp


def _block_patches(original: list[Any], blocks: Sequence[bk.ContentBlock]) -> dict[str, Any]:
    patches: dict[str, Any] = {}
    for i, (block, converted) in enumerate(zip(original, blocks, strict=True)):
        _diff_block(block, converted, str(i), patches)
    return patches


def _diff_block(original: dict[str, Any], block: bk.ContentBlock, key: str, patches: dict[str, Any]) -> None:
    """Record in ``patches[key]`` what rebuilding ``block`` as 1.x would not
    give back of ``original``; the parts of a tool result's output each under
    their own key."""
    own = dict(original)
    again = _block_to_1x(block, key, {})
    if isinstance(block, bk.ToolResultBlock) and isinstance(block.output, list):
        for j, (part, converted) in enumerate(zip(own.pop("output"), block.output, strict=True)):
            _diff_block(part, converted, f"{key}.{j}", patches)
        assert again is not None
        again.pop("output")
    patch: dict[str, Any]
    if again is None:  # a media block whose media type does not say its kind
        assert isinstance(block, bk.DataBlock)
        patch = {**_patch(own, _media_to_1x(block, own) or {}), "type": own["type"]}
    else:
        patch = _patch(own, again)
    if patch:
        patches[key] = patch


def _patch(original: dict[str, Any], rebuilt: dict[str, Any]) -> dict[str, Any]:
    """The keys of ``original`` that ``rebuilt`` lacks or holds differently;
    nested objects recursively (laid back by :func:`_apply`)."""
    patch: dict[str, Any] = {}
    for key, value in original.items():
        if key not in rebuilt:
            patch[key] = value
        elif rebuilt[key] != value or type(rebuilt[key]) is not type(value):
            if isinstance(value, dict) and isinstance(rebuilt[key], dict):
                patch[key] = _patch(value, rebuilt[key])
            else:
                patch[key] = value
    return patch


def _apply(target: dict[str, Any], patch: Mapping[str, Any]) -> None:
    for key, value in patch.items():
        if isinstance(value, dict) and isinstance(target.get(key), dict):
            target[key] = dict(target[key])
            _apply(target[key], value)
        else:
            target[key] = value


# -- 2.0 -> 1.x ----------------------------------------------------------------------


def to_agentscope1(msg: Msg) -> dict[str, Any]:
    """The 1.x message dict of a 2.0 Msg, as 1.x's ``Msg.to_dict()`` writes
    it (plus any key the record kept); ``Msg.from_dict`` of agentscope 1.x
    accepts it. What is dropped is listed in the module docstring."""
    record = _record(msg)
    patches: dict[str, Any] = record.get("blocks") or {}
    blocks: list[dict[str, Any]] = []
    for i, block in enumerate(msg.content):
        converted = _block_to_1x(block, str(i), patches)
        if converted is not None:
            blocks.append(converted)
    content: str | list[dict[str, Any]] = blocks
    if (len(blocks) == 1 and len(msg.content) == 1 and type(msg.content[0]) is bk.TextBlock
            and record.get("content") != "list" and "0" not in patches):
        content = blocks[0]["text"]
    metadata = {key: value for key, value in msg.metadata.items() if key != METADATA_KEY}
    if msg.structured_output is not None:
        metadata = {**msg.structured_output, **metadata}
    out: dict[str, Any] = {
        "id": msg.id,
        "name": msg.name,
        "role": msg.role,
        "content": content,
        "metadata": metadata,
        "timestamp": _timestamp_1x(msg.created_at),
    }
    out.update(record.get("fields") or {})
    return out


def to_agentscope1_history(msgs: Iterable[Msg], *, marks: bool = False) -> list[Any]:
    """The 1.x dicts of a history, in the layout 1.x agents keep.

    A 2.0 reply holds its tool calls and their results in one Msg; 1.x keeps
    each result in a ``system`` message after the assistant message that
    called it (ReActAgent's layout), and its formatters rely on that order.
    So a Msg not converted from 1.x that holds tool results is split: the
    blocks before each run of results stay an assistant message, and each
    result becomes a ``Msg("system", [tool_result], "system")`` with the id
    ``<id>-<n>``. A Msg converted from 1.x comes back as it was.

    With ``marks=True``, the ``[dict, marks]`` pairs of
    ``InMemoryMemory.state_dict()["content"]`` (marks from the record, else none)."""
    out: list[Any] = []
    for msg in msgs:
        parts = [to_agentscope1(msg)] if msg.metadata.get(METADATA_KEY) is not None else _split(msg)
        record = _record(msg)
        for d in parts:
            out.append([d, list(record.get("marks") or [])] if marks else d)
    return out


# What each key of the record holds, when present and not null.
_RECORD_KEYS: dict[str, type] = {"fields": dict, "blocks": dict, "marks": list}


def _record(msg: Msg) -> dict[str, Any]:
    """The record of a Msg converted from 1.x (``{}`` for none), its shape
    checked: it is metadata, which anyone may have changed on the way."""
    record = msg.metadata.get(METADATA_KEY) or {}
    where = f"$.metadata.{METADATA_KEY}"
    if not isinstance(record, dict):
        raise EncodeError(f"wire's record of a 1.x message must be an object, not {_kind(record)} (at {where})")
    for key, kind in _RECORD_KEYS.items():
        value = record.get(key)
        if value is not None and not isinstance(value, kind):
            raise EncodeError(f"expected {_kind(kind())}, got {_kind(value)} (at {where}.{key})")
    for key, patch in (record.get("blocks") or {}).items():
        if not isinstance(patch, dict):
            raise EncodeError(f"expected an object, got {_kind(patch)} (at {where}.blocks.{key})")
    return record


def _split(msg: Msg) -> list[dict[str, Any]]:
    if not any(isinstance(b, bk.ToolResultBlock) for b in msg.content):
        return [to_agentscope1(msg)]
    whole = to_agentscope1(msg)
    pieces: list[dict[str, Any]] = []
    segment: list[bk.ContentBlock] = []

    def next_id() -> str:
        return msg.id if not pieces else f"{msg.id}-{len(pieces)}"

    for block in [*msg.content, None]:
        if block is not None and not isinstance(block, bk.ToolResultBlock):
            segment.append(block)
            continue
        if segment:
            part = msgspec.structs.replace(msg, content=segment, metadata={}, structured_output=None, id=next_id())
            pieces.append({**to_agentscope1(part), "metadata": whole["metadata"]})
            segment = []
        if block is not None:
            pieces.append({"id": next_id(), "name": "system", "role": "system",
                           "content": [_block_to_1x(block, "0", {})], "metadata": {},
                           "timestamp": whole["timestamp"]})
    return pieces


def _block_to_1x(block: bk.ContentBlock, key: str, patches: Mapping[str, Any]) -> dict[str, Any] | None:
    out: dict[str, Any] | None
    if isinstance(block, bk.TextBlock):
        out = {"type": "text", "text": block.text}
    elif isinstance(block, bk.ThinkingBlock):
        out = {"type": "thinking", "thinking": block.thinking, **vars(block)}
    elif isinstance(block, bk.DataBlock):
        out = _media_to_1x(block, patches.get(key))
    elif isinstance(block, bk.ToolCallBlock):
        out = {"type": "tool_use", "id": block.id, "name": block.name}
        try:
            arguments = msgspec.json.decode(block.input) if block.input.strip() else {}
        except DECODE_ERRORS:
            arguments = None
        if isinstance(arguments, dict):
            out["input"] = arguments
        else:
            out["input"], out["raw_input"] = {}, block.input
    elif isinstance(block, bk.ToolResultBlock):
        output: Any = block.output
        if isinstance(output, list):
            parts = []
            for j, part in enumerate(output):
                converted = _block_to_1x(part, f"{key}.{j}", patches)
                if converted is not None:
                    parts.append(converted)
            output = parts
        out = {"type": "tool_result", "id": block.id, "name": block.name, "output": output}
    else:  # HintBlock: 1.x has no such block
        out = None
    if out is not None and key in patches:
        _apply(out, patches[key])
    return out


def _media_to_1x(block: bk.DataBlock, patch: Mapping[str, Any] | None) -> dict[str, Any] | None:
    source = block.source
    kind = source.media_type.partition("/")[0]
    if kind not in _MEDIA:
        if not patch or "type" not in patch:
            return None
        kind = patch["type"]
    if isinstance(source, bk.Base64Source):
        return {"type": kind, "source": {"type": "base64", "media_type": source.media_type,
                                         "data": base64.b64encode(source.data).decode("ascii")}}
    return {"type": kind, "source": {"type": "url", "url": source.url}}


def _timestamp_1x(created_at: str) -> str:
    try:
        moment = datetime.fromisoformat(created_at)
    except ValueError:
        return created_at
    if moment.tzinfo is not None:
        moment = moment.astimezone().replace(tzinfo=None)
    return moment.strftime("%Y-%m-%d %H:%M:%S.%f")[:-3]


# -- files: bytes to bytes (the command line) ---------------------------------------------


def _json_values(data: bytes) -> list[Any] | Any:
    """One JSON document, or the values of NDJSON lines (a list) when the
    data holds more than one."""
    try:
        return msgspec.json.decode(data)
    except DECODE_ERRORS as exc:
        lines = [line for line in data.splitlines() if line.strip()]
        if len(lines) < 2:
            raise decode_error(exc, data=data) from exc
    values = []
    for i, line in enumerate(lines):
        try:
            values.append(msgspec.json.decode(line))
        except DECODE_ERRORS as exc:
            raise decode_error(exc, index=i) from exc
    return values


def convert_from_agentscope1(data: bytes) -> bytes:
    """1.x JSON (a message, an array of messages or of ``[message, marks]``
    pairs, a memory's state dict ``{"content": [...]}``, or NDJSON lines of
    messages) as a JSON array of 2.0 Msgs."""
    value = _json_values(data)
    if isinstance(value, dict) and "role" not in value and isinstance(value.get("content"), list):
        msgs = from_agentscope1_history(value["content"], path="$.content")
        summary = value.get("_compressed_summary")
        if summary:  # 1.x memories hand it out first, as Msg("user", summary, "user")
            if not isinstance(summary, str):
                raise DecodeError(f"expected a string, got {_kind(summary)}", path="$._compressed_summary")
            created = now()
            msgs.insert(0, Msg(name="user", content=[bk.TextBlock(text=summary, created_at=created,
                                                                finished_at=created)],
                               role="user", metadata={METADATA_KEY: {"compressed_summary": True}},
                               created_at=created, finished_at=created))
    elif isinstance(value, list):
        msgs = from_agentscope1_history(value)
    else:
        msgs = [from_agentscope1(value)]
    return b"[" + b",".join(encode_json(m) for m in msgs) + b"]\n"


def convert_to_agentscope1(data: bytes) -> bytes:
    """2.0 Msg JSON (one Msg, an array of them, or NDJSON lines) as a JSON
    array of 1.x messages in 1.x's layout (:func:`to_agentscope1_history`)."""
    raw: msgspec.Raw | list[msgspec.Raw]
    try:
        raw = msgspec.json.decode(data, type=msgspec.Raw)  # one JSON document
        if data.lstrip()[:1] == b"[":
            raw = msgspec.json.decode(raw, type=list[msgspec.Raw])
    except DECODE_ERRORS as exc:
        lines = [line for line in data.splitlines() if line.strip()]
        if len(lines) < 2:
            raise decode_error(exc) from exc
        raw = [msgspec.Raw(line) for line in lines]
    items = raw if isinstance(raw, list) else [raw]
    msgs = []
    for i, item in enumerate(items):
        try:
            msgs.append(decode_msg(item))
        except DecodeError as exc:
            if isinstance(raw, list):
                exc.path = f"$[{i}]{(exc.path or '$')[1:]}"
                exc.offset = None
            raise
    return msgspec.json.encode(to_agentscope1_history(msgs)) + b"\n"


# -- checks ----------------------------------------------------------------------------


def _kind(value: object) -> str:
    names: dict[type, str] = {dict: "an object", list: "an array", str: "a string", bool: "a boolean",
                              type(None): "null", int: "a number", float: "a number"}
    return names.get(type(value), type(value).__name__)


def _required(d: Mapping[str, Any], key: str, types: type | tuple[type, ...], path: str) -> Any:
    if key not in d:
        raise DecodeError(f"missing required field {key!r}", path=path)
    return _checked(d[key], types, f"{path}.{key}")


def _optional(d: Mapping[str, Any], key: str, types: type | tuple[type, ...], path: str) -> Any:
    value = d.get(key)
    return None if value is None else _checked(value, types, f"{path}.{key}")


def _checked(value: Any, types: type | tuple[type, ...], path: str) -> Any:
    wanted: tuple[type, ...] = types if isinstance(types, tuple) else (types,)
    if not isinstance(value, wanted):
        words: dict[type, str] = {str: "a string", list: "an array", dict: "an object"}
        names = " or ".join(words.get(t, t.__name__) for t in wanted)
        raise DecodeError(f"expected {names}, got {_kind(value)}", path=path)
    return value
