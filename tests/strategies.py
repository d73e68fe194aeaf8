"""Hypothesis strategies for valid wire objects (blocks, messages and all 28
events), for well-formed reply streams, and for cutting and damaging bytes.

Import them from any test module (``tests`` is a package, see ``tests/__init__.py``)::

    from tests.strategies import events, msgs, content_blocks

Every strategy draws objects that are *valid*: they satisfy wire's invariants
and agentscope 2.0.11 accepts them, so a JSON or MessagePack round trip must
give an equal object, and agentscope must read them back unchanged.

What "valid" means here:

* Strings are arbitrary Unicode without lone surrogates (which no UTF-8 codec
  can carry): emoji, non-BMP characters, C0/C1 controls, U+2028, NUL. The
  fixed examples in ``tricky_text`` are mixed in so every run meets them.
* Ids and timestamps are opaque strings; timestamps are drawn from
  agentscope's naive local form (with and without the fraction), wire's UTC
  form and arbitrary text, since both sides treat them as opaque.
* Binary payloads are ``bytes`` (wire's in-memory form).
* ``DataBlockDeltaEvent`` and ``ToolResultDataDeltaEvent`` carry exactly one
  of ``data``/``url``; ``url`` in those events is an opaque string.
* ``URLSource.url`` is drawn from ``urls``: absolute URLs with a special scheme
  (http, https, ws, wss, ftp) or a few non-special ones, with mixed case,
  default and other ports, non-ASCII and spaces in path, query and fragment.
  It leaves out forms where wire's normalization is known to differ from
  pydantic's ``AnyUrl`` (dot segments, IDN hosts, userinfo, port 0...); those
  are pinned one by one in ``test_url.py``.
* Metadata and other free-form dicts hold JSON values only (no NaN or
  infinity, ints within 64 bits), so JSON and MessagePack agree on them.
* Msgs respect the role rules: a user Msg holds text and data blocks, a
  system Msg text blocks only, an assistant Msg anything.
* ThinkingBlocks may carry provider keys (``signature``...) set as attributes,
  as decoding does; pass ``provider_keys=False`` to leave them out.

Public names. Scalars are strategies (values): ``texts``, ``tricky_text``,
``ids``, ``timestamps``, ``payloads``, ``names``, ``media_types``, ``roles``,
``json_values``, ``json_objects``, ``urls``. Everything that builds a wire
object is a function returning a strategy, as Hypothesis's own are:

* blocks: ``text_blocks()``, ``thinking_blocks(provider_keys=True)``,
  ``hint_blocks()``, ``data_blocks()``, ``base64_sources()``,
  ``url_sources()``, ``tool_call_blocks()``, ``tool_result_blocks()``,
  ``block_strategy(cls)``, ``content_blocks(role="assistant")``;
  ``ROLE_BLOCKS`` maps each role to the block classes it may hold;
* records: ``permission_rules()``, ``usages()``, ``error_infos()``,
  ``confirm_results()``;
* ``msgs(role=None, provider_keys=True)``: a Msg of the given or any role;
* ``events(*classes)``: any of the 28 events, or of the classes given;
  ``EVENT_STRATEGIES`` maps every event class to its strategy;
* ``reply_streams(max_blocks=5)``: the events of one well-formed reply
  (``tests.helpers.REPLY``), blocks interleaved;
* ``session_streams()``: a session log's events in any order a store may
  hold them, malformed ones included (replies of any role interleaved,
  events dropped, repeated and moved, checkpoints, a ``wire.restart``);
* ``points`` and ``edits``: where to cut a byte stream and how to damage it
  (for ``tests.helpers.cut`` and ``mutate``).

Sizes are small (a few blocks, short strings) so that hundreds of examples
run in well under a second; reducer and stream tests can build longer
sequences with ``st.lists(events(...))``.
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Callable
from datetime import UTC
from typing import Any, Literal

from hypothesis import strategies as st
from msgspec.structs import replace

import wire
from tests.helpers import REPLY

__all__ = (
    "EVENT_STRATEGIES",
    "ROLE_BLOCKS",
    "base64_sources",
    "block_strategy",
    "confirm_results",
    "content_blocks",
    "data_blocks",
    "error_infos",
    "edits",
    "events",
    "hint_blocks",
    "ids",
    "json_objects",
    "json_values",
    "media_types",
    "msgs",
    "names",
    "payloads",
    "permission_rules",
    "points",
    "reply_streams",
    "roles",
    "session_streams",
    "text_blocks",
    "texts",
    "thinking_blocks",
    "timestamps",
    "tool_call_blocks",
    "tool_result_blocks",
    "tricky_text",
    "url_sources",
    "urls",
    "usages",
)

# -- scalars -------------------------------------------------------------------

#: Strings a careless codec gets wrong: escapes, controls, non-BMP, separators.
tricky_text = st.sampled_from([
    "", " ", "Hi", "😀", "👩‍💻 ok", "𝄞 music", "\x00", "\x01\x1f\x7f", "\x80\x9f", "tab\there",
    "line\nbreak\r\n", '"quoted" \\ back/slash', "\u2028\u2029", "</script>", "日本語テキスト",
    "\ufeffbom", "\U0010ffff",
])
_chars = st.characters(codec="utf-8")  # every code point but surrogates
texts = st.one_of(tricky_text, st.text(_chars, max_size=40))
ids = st.one_of(
    st.uuids().map(lambda u: u.hex),
    st.from_regex(r"call_[A-Za-z0-9]{1,24}", fullmatch=True),
    st.text(_chars, min_size=1, max_size=12),
)
timestamps = st.one_of(
    st.datetimes().map(lambda d: d.isoformat()),  # agentscope: naive local, fraction dropped at 0
    st.datetimes(timezones=st.just(UTC)).map(lambda d: d.isoformat(timespec="microseconds")),  # wire
    st.text(_chars, max_size=12),  # opaque on both sides
)
payloads = st.one_of(st.binary(max_size=64), st.sampled_from([b"", b"\x00", b"\xfb\xff\xbf", b"RIFF\x00\x00WAVE"]))
names = st.one_of(st.sampled_from(["Friday", "Bash", "user", "图片.png"]), st.text(_chars, max_size=12))
media_types = st.sampled_from(["image/png", "audio/wav", "application/octet-stream", "text/plain", ""])

_ints = st.integers(-(2**63), 2**63 - 1)
_floats = st.floats(allow_nan=False, allow_infinity=False)
json_values: st.SearchStrategy[Any] = st.recursive(
    st.none() | st.booleans() | _ints | _floats | texts,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(texts, inner, max_size=4),
    max_leaves=12,
)
json_objects = st.dictionaries(texts, json_values, max_size=4)

# -- URLs ------------------------------------------------------------------------

_label = st.from_regex(r"[A-Za-z0-9]([A-Za-z0-9-]{0,6}[A-Za-z0-9])?", fullmatch=True).filter(
    lambda s: not s.lower().startswith("xn--"))  # punycode labels are validated by pydantic
_tld = st.from_regex(r"[A-Za-z][A-Za-z0-9]{0,5}", fullmatch=True)  # never numeric: no IPv4 reading
_no_controls: tuple[Literal["Cs"], Literal["Cc"]] = ("Cs", "Cc")
_segment = st.text(st.characters(codec="utf-8", exclude_categories=_no_controls, exclude_characters="/?#\\"),
                   max_size=8).filter(lambda s: s.lower().replace("%2e", ".") not in {".", ".."})
_query = st.text(st.characters(codec="utf-8", exclude_categories=_no_controls, exclude_characters="#"), max_size=10)
_fragment = st.text(st.characters(codec="utf-8", exclude_categories=_no_controls), max_size=10)


@st.composite
def _web_urls(draw: st.DrawFn) -> str:
    scheme = draw(st.sampled_from(["http", "https", "HTTPS", "Http", "ws", "wss", "ftp"]))
    host = ".".join([*draw(st.lists(_label, max_size=2)), draw(_tld)])
    port = draw(st.none() | st.integers(1, 65535).map(str) | st.sampled_from(["80", "443", "21", "0443"]))
    url = f"{scheme}://{host}" + (f":{port}" if port is not None else "")
    url += "".join("/" + s for s in draw(st.lists(_segment, max_size=3)))
    if (query := draw(st.none() | _query)) is not None:
        url += "?" + query
    if (fragment := draw(st.none() | _fragment)) is not None:
        url += "#" + fragment
    return url.strip()  # surrounding spaces are stripped by both sides, so leave them out


urls = st.one_of(
    _web_urls(),
    st.sampled_from(["https://example.com/n.png", "data:image/png;base64,iVBORw0KGgo=",
                     "s3://bucket/key%20x", "mailto:a@b.c", "urn:isbn:0451450523"]),
)

# -- blocks ------------------------------------------------------------------------


def _finished_at() -> st.SearchStrategy[str | None]:
    return st.none() | timestamps


def base64_sources() -> st.SearchStrategy[wire.Base64Source]:
    return st.builds(wire.Base64Source, data=payloads, media_type=media_types)


def url_sources() -> st.SearchStrategy[wire.URLSource]:
    return st.builds(wire.URLSource, url=urls, media_type=media_types)


def text_blocks() -> st.SearchStrategy[wire.TextBlock]:
    return st.builds(wire.TextBlock, text=texts, id=ids, created_at=timestamps, finished_at=_finished_at())


def data_blocks() -> st.SearchStrategy[wire.DataBlock]:
    return st.builds(wire.DataBlock, source=base64_sources() | url_sources(), id=ids, name=st.none() | names,
                     created_at=timestamps, finished_at=_finished_at())


_THINKING_ATTRS = set(dir(wire.ThinkingBlock))
_provider_key_names = st.one_of(
    st.sampled_from(["signature", "redacted_thinking_data", "provider"]),
    st.from_regex(r"[a-z][a-z0-9_]{0,10}", fullmatch=True),
).filter(lambda k: k not in _THINKING_ATTRS)


@st.composite
def thinking_blocks(draw: st.DrawFn, provider_keys: bool = True) -> wire.ThinkingBlock:
    """A ThinkingBlock, with provider keys set as attributes unless told not to."""
    block = wire.ThinkingBlock(thinking=draw(texts), id=draw(ids), created_at=draw(timestamps),
                               finished_at=draw(_finished_at()))
    if provider_keys:
        for key, value in draw(st.dictionaries(_provider_key_names, json_values, max_size=3)).items():
            setattr(block, key, value)
    return block


def _text_or_data() -> st.SearchStrategy[list[Any]]:
    """The list form of a hint or a tool result's output."""
    return st.lists(text_blocks() | data_blocks(), max_size=3)


def hint_blocks() -> st.SearchStrategy[wire.HintBlock]:
    return st.builds(wire.HintBlock, hint=texts | _text_or_data(), id=ids, source=st.none() | texts,
                     created_at=timestamps, finished_at=_finished_at())


def permission_rules() -> st.SearchStrategy[wire.PermissionRule]:
    return st.builds(wire.PermissionRule, tool_name=names, rule_content=st.none() | texts,
                     behavior=st.sampled_from(wire.PermissionBehavior), source=texts)


def tool_call_blocks() -> st.SearchStrategy[wire.ToolCallBlock]:
    return st.builds(wire.ToolCallBlock, id=ids, name=names, input=texts, state=st.sampled_from(wire.ToolCallState),
                     suggested_rules=st.lists(permission_rules(), max_size=2),
                     created_at=timestamps, finished_at=_finished_at())


def tool_result_blocks() -> st.SearchStrategy[wire.ToolResultBlock]:
    return st.builds(wire.ToolResultBlock, id=ids, name=names, output=texts | _text_or_data(),
                     state=st.sampled_from(wire.ToolResultState), metadata=json_objects,
                     created_at=timestamps, finished_at=_finished_at())


#: The block types each role's Msg may hold, as agentscope's validator states them.
ROLE_BLOCKS: dict[str, tuple[type[Any], ...]] = {
    "system": (wire.TextBlock,),
    "user": (wire.TextBlock, wire.DataBlock),
    "assistant": (wire.TextBlock, wire.ThinkingBlock, wire.HintBlock, wire.DataBlock, wire.ToolCallBlock,
                  wire.ToolResultBlock),
}


def block_strategy(cls: type[Any], provider_keys: bool = True) -> st.SearchStrategy[Any]:
    """The strategy for one block class."""
    if cls is wire.ThinkingBlock:
        return thinking_blocks(provider_keys=provider_keys)
    builders: dict[type[Any], Callable[[], st.SearchStrategy[Any]]] = {
        wire.TextBlock: text_blocks, wire.HintBlock: hint_blocks, wire.DataBlock: data_blocks,
        wire.ToolCallBlock: tool_call_blocks, wire.ToolResultBlock: tool_result_blocks}
    return builders[cls]()


def content_blocks(role: str = "assistant", provider_keys: bool = True) -> st.SearchStrategy[Any]:
    """Any block a Msg of ``role`` may hold."""
    return st.one_of([block_strategy(cls, provider_keys) for cls in ROLE_BLOCKS[role]])


# -- records and messages ---------------------------------------------------------

_counts = st.integers(0, 2**53)


def usages() -> st.SearchStrategy[wire.Usage]:
    return st.builds(wire.Usage, input_tokens=_counts, output_tokens=_counts,
                     cache_input_tokens=_counts, cache_creation_input_tokens=_counts)


def error_infos() -> st.SearchStrategy[wire.ErrorInfo]:
    return st.builds(wire.ErrorInfo, type=st.sampled_from(wire.ErrorType), message=texts)


def confirm_results() -> st.SearchStrategy[wire.ConfirmResult]:
    return st.builds(wire.ConfirmResult, confirmed=st.booleans(), tool_call=tool_call_blocks(),
                     rules=st.none() | st.lists(permission_rules(), max_size=2))


roles = st.sampled_from(["user", "assistant", "system"])


@st.composite
def msgs(draw: st.DrawFn, role: str | None = None, provider_keys: bool = True) -> wire.Msg:
    """A Msg whose content respects its role; every optional field sometimes set."""
    role = role if role is not None else draw(roles)
    return wire.Msg(
        name=draw(names),
        content=draw(st.lists(content_blocks(role, provider_keys), max_size=5)),
        role=role,  # type: ignore[arg-type]
        id=draw(ids),
        metadata=draw(json_objects),
        created_at=draw(timestamps),
        usage=draw(st.none() | usages()),
        finished_at=draw(_finished_at()),
        finished_reason=draw(st.none() | st.sampled_from(wire.ReplyFinishedReason)),
        structured_output=draw(st.none() | json_objects),
        error=draw(st.none() | error_infos()),
    )


# -- events -------------------------------------------------------------------------


def _event(cls: type[Any], **fields: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    """``cls`` with the envelope every event has, and its own fields."""
    return st.builds(cls, id=ids, created_at=timestamps, metadata=json_objects, **fields)


@st.composite
def _data_or_url(draw: st.DrawFn) -> dict[str, Any]:
    """Exactly one of ``data`` and ``url``; the event's url is an opaque str."""
    if draw(st.booleans()):
        return {"data": draw(payloads)}
    return {"url": draw(urls | texts)}


def _with_data_or_url(cls: type[Any], **fields: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    return st.tuples(st.fixed_dictionaries({"id": ids, "created_at": timestamps, "metadata": json_objects,
                                            **fields}), _data_or_url()).map(lambda t: cls(**t[0], **t[1]))


_reply = {"reply_id": ids}
_block = {"reply_id": ids, "block_id": ids}
_call = {"reply_id": ids, "tool_call_id": ids}

#: One strategy per event class: every one of the 28 is here (checked by the tests).
EVENT_STRATEGIES: dict[type[Any], st.SearchStrategy[Any]] = {
    wire.ReplyStartEvent: _event(wire.ReplyStartEvent, session_id=ids, name=names, role=roles, **_reply),
    wire.ReplyEndEvent: _event(wire.ReplyEndEvent, session_id=ids,
                               finished_reason=st.sampled_from(wire.ReplyFinishedReason),
                               error=st.none() | error_infos(), **_reply),
    wire.ModelCallStartEvent: _event(wire.ModelCallStartEvent, model_name=names, **_reply),
    wire.ModelCallEndEvent: _event(wire.ModelCallEndEvent, input_tokens=_counts, output_tokens=_counts,
                                   cache_input_tokens=_counts, cache_creation_input_tokens=_counts,
                                   finished_reason=st.sampled_from(wire.FinishedReason), **_reply),
    wire.TextBlockStartEvent: _event(wire.TextBlockStartEvent, **_block),
    wire.TextBlockDeltaEvent: _event(wire.TextBlockDeltaEvent, delta=texts, **_block),
    wire.TextBlockEndEvent: _event(wire.TextBlockEndEvent, text=st.none() | texts, **_block),
    wire.DataBlockStartEvent: _event(wire.DataBlockStartEvent, media_type=media_types,
                                     name=st.none() | names, **_block),
    wire.DataBlockDeltaEvent: _with_data_or_url(wire.DataBlockDeltaEvent, media_type=media_types, **_block),
    wire.DataBlockEndEvent: _event(wire.DataBlockEndEvent, **_block),
    wire.ThinkingBlockStartEvent: _event(wire.ThinkingBlockStartEvent, **_block),
    wire.ThinkingBlockDeltaEvent: _event(wire.ThinkingBlockDeltaEvent, delta=texts, **_block),
    wire.ThinkingBlockEndEvent: _event(wire.ThinkingBlockEndEvent, **_block),
    wire.HintBlockEvent: _event(wire.HintBlockEvent, source=st.none() | texts, hint=texts | _text_or_data(),
                                **_block),
    wire.ToolCallStartEvent: _event(wire.ToolCallStartEvent, tool_call_name=names, **_call),
    wire.ToolCallDeltaEvent: _event(wire.ToolCallDeltaEvent, delta=texts, **_call),
    wire.ToolCallEndEvent: _event(wire.ToolCallEndEvent, **_call),
    wire.ToolResultStartEvent: _event(wire.ToolResultStartEvent, tool_call_name=names, **_call),
    wire.ToolResultTextDeltaEvent: _event(wire.ToolResultTextDeltaEvent, delta=texts, **_call),
    wire.ToolResultDataDeltaEvent: _with_data_or_url(wire.ToolResultDataDeltaEvent, block_id=ids,
                                                     media_type=media_types, **_call),
    wire.ToolResultEndEvent: _event(wire.ToolResultEndEvent, state=st.sampled_from(wire.ToolResultState), **_call),
    wire.ExceedMaxItersEvent: _event(wire.ExceedMaxItersEvent, name=names, **_reply),
    wire.RequireUserConfirmEvent: _event(wire.RequireUserConfirmEvent,
                                         tool_calls=st.lists(tool_call_blocks(), max_size=3), **_reply),
    wire.RequireExternalExecutionEvent: _event(wire.RequireExternalExecutionEvent,
                                               tool_calls=st.lists(tool_call_blocks(), max_size=3), **_reply),
    wire.UserConfirmResultEvent: _event(wire.UserConfirmResultEvent,
                                        confirm_results=st.lists(confirm_results(), max_size=3), **_reply),
    wire.UserInterruptEvent: _event(wire.UserInterruptEvent, **_reply),
    wire.ExternalExecutionResultEvent: _event(wire.ExternalExecutionResultEvent,
                                              execution_results=st.lists(tool_result_blocks(), max_size=3), **_reply),
    wire.CustomEvent: _event(wire.CustomEvent, name=names, value=json_objects),
}


def events(*classes: type[Any]) -> st.SearchStrategy[Any]:
    """Any of the 28 events, or of the given event classes only."""
    return st.one_of([EVENT_STRATEGIES[cls] for cls in classes or EVENT_STRATEGIES])


# -- well-formed reply streams, for the reducer and the framings ----------------
#
# A stream is a set of blocks (text, thinking, base64 data, URL data, tool call
# with its result, hint) whose START/delta/END events are interleaved at random,
# each block's own events staying in order, with model-call usage in between
# and a REPLY_END at the close, all of reply ``REPLY``. Event ids and
# timestamps are unique and increasing, as a real producer writes them.
_no_surrogates: tuple[Literal["Cs"]] = ("Cs",)
_short_texts = st.text(st.characters(codec="utf-8", exclude_categories=_no_surrogates), max_size=12)
_short_chunks = st.binary(max_size=24)


@st.composite
def _block_program(draw: st.DrawFn, n: int) -> list[tuple[str, dict[str, Any]]]:
    """The events of block number ``n`` as (event class name, fields) pairs."""
    kind = draw(st.sampled_from(["text", "thinking", "data", "url", "tool", "hint"]))
    bid = f"b{n}"
    ops: list[tuple[str, dict[str, Any]]]
    if kind in ("text", "thinking"):
        cls = "TextBlock" if kind == "text" else "ThinkingBlock"
        ops = [(f"{cls}StartEvent", {"block_id": bid})]
        ops += [(f"{cls}DeltaEvent", {"block_id": bid, "delta": d}) for d in draw(st.lists(_short_texts, max_size=6))]
        end: dict[str, Any] = {"block_id": bid}
        if kind == "text" and draw(st.booleans()):
            end["text"] = draw(_short_texts)
        ops.append((f"{cls}EndEvent", end))
        return ops
    if kind in ("data", "url"):
        ops = [("DataBlockStartEvent", {"block_id": bid, "media_type": "image/png",
                                        "name": draw(st.none() | st.just("x.png"))})]
        ops += [("DataBlockDeltaEvent", {"block_id": bid, "media_type": "image/png", "data": c})
                for c in draw(st.lists(_short_chunks, max_size=5))]
        if kind == "url":
            ops.append(("DataBlockDeltaEvent", {"block_id": bid, "media_type": "image/jpeg",
                                                "url": f"https://example.com/{n}.jpg"}))
        ops.append(("DataBlockEndEvent", {"block_id": bid}))
        return ops
    if kind == "hint":
        hint: Any = draw(_short_texts | st.just([wire.TextBlock(text="note", id=f"h{n}", created_at="t0")]))
        return [("HintBlockEvent", {"block_id": bid, "hint": hint, "source": draw(st.none() | _short_texts)})]
    call = f"call_{n}"
    ops = [("ToolCallStartEvent", {"tool_call_id": call, "tool_call_name": "Bash"})]
    ops += [("ToolCallDeltaEvent", {"tool_call_id": call, "delta": d})
            for d in draw(st.lists(_short_texts, max_size=4))]
    ops.append(("ToolCallEndEvent", {"tool_call_id": call}))
    ops.append(("ToolResultStartEvent", {"tool_call_id": call, "tool_call_name": "Bash"}))
    parts = st.tuples(st.booleans(), _short_texts, _short_chunks, st.sampled_from(["d1", "d2"]))
    for part in draw(st.lists(parts, max_size=5)):
        is_text, text, data, data_id = part
        if is_text:
            ops.append(("ToolResultTextDeltaEvent", {"tool_call_id": call, "delta": text}))
        else:
            ops.append(("ToolResultDataDeltaEvent", {"tool_call_id": call, "block_id": f"{call}-{data_id}",
                                                     "media_type": "image/png", "data": data}))
    state = draw(st.sampled_from(list(wire.ToolResultState)))
    ops.append(("ToolResultEndEvent", {"tool_call_id": call, "state": state,
                                       "metadata": draw(st.just({}) | st.just({"exit_code": 0}))}))
    return ops


@st.composite
def reply_streams(draw: st.DrawFn, max_blocks: int = 5) -> list[wire.AgentEvent]:
    """A well-formed reply: REPLY_START, interleaved block events, usage, REPLY_END."""
    programs = [draw(_block_program(n)) for n in range(draw(st.integers(0, max_blocks)))]
    for _ in range(draw(st.integers(0, 2))):
        programs.append([("ModelCallEndEvent", {"input_tokens": draw(st.integers(0, 99)),
                                                "output_tokens": draw(st.integers(0, 99))})])
    ops: list[tuple[str, dict[str, Any]]] = []
    cursors = [0] * len(programs)
    while any(c < len(p) for c, p in zip(cursors, programs, strict=True)):
        live = [i for i, (c, p) in enumerate(zip(cursors, programs, strict=True)) if c < len(p)]
        i = draw(st.sampled_from(live))
        ops.append(programs[i][cursors[i]])
        cursors[i] += 1
    ops.insert(0, ("ReplyStartEvent", {"session_id": "s", "name": "Friday"}))
    ops.append(("ReplyEndEvent", {"session_id": "s"}))
    return [getattr(wire, cls)(id=f"e{i:05d}", created_at=f"2026-01-01T00:00:{i // 1000:02d}.{i % 1000:06d}",
                               reply_id=REPLY, **fields)
            for i, (cls, fields) in enumerate(ops)]


@st.composite
def session_streams(draw: st.DrawFn) -> list[Any]:
    """A session log's events, malformed orders included: one to three
    replies (``r0``...) of any role, interleaved (a user's or a system's
    reply starts blocks its role forbids); then a few events dropped,
    repeated (a START again after its END: a duplicate) or moved (a delta
    before its START, after its END); then checkpoints of what a plain reader
    holds at some points (with the orphan blocks of duplicate STARTs), and
    sometimes a ``wire.restart``."""
    from wire.resume import Conversation, checkpoint, restart  # the session's rules, for the checkpoints

    replies = []
    for k in range(draw(st.integers(1, 3))):
        role = draw(roles)
        reply = [replace(event, reply_id=f"r{k}") for event in draw(reply_streams(max_blocks=4))]
        reply[0] = replace(reply[0], role=role)
        replies.append(reply)
    out: list[Any] = []
    while any(replies):
        out.append(draw(st.sampled_from([r for r in replies if r])).pop(0))
    for _ in range(draw(st.integers(0, 4))):
        if len(out) < 2:
            break
        i, j = draw(st.integers(0, len(out) - 1)), draw(st.integers(0, len(out) - 1))
        op = draw(st.sampled_from(["drop", "repeat", "move"]))
        if op == "drop":
            del out[i]
        elif op == "repeat":
            out.insert(j, out[i])
        else:
            out.insert(j, out.pop(i))
    for at in sorted(draw(st.lists(st.integers(0, len(out)), max_size=3))):
        held = Conversation()
        held.apply(out[:at])
        if held.replies:
            msg = held.replies[draw(st.sampled_from(sorted(held.replies)))]
            out.insert(at, checkpoint(wire.json.decode_msg(wire.json.encode(msg))))
    if draw(st.booleans()) and out:
        out.insert(draw(st.integers(0, len(out))), restart("the log was made again"))
    return out


# -- bytes: where to cut a stream, and how to damage it -------------------------

#: Cut points for ``tests.helpers.cut`` (any ints: they are taken modulo the length).
points = st.lists(st.integers(0, 1 << 20), max_size=30)
#: Edits for ``tests.helpers.mutate``: (position, bytes to delete, bytes to insert).
edits = st.lists(st.tuples(st.integers(0, 1 << 20), st.integers(0, 3),
                           st.sampled_from([b"", b"\n", b"\r", b"\x00", b"{", b"}", b'"', b"\xff",
                                            b"\x00\x00\x00\x05", b"\x81", b" ", b"\xc3"])),
                 min_size=1, max_size=4)


# Edits that damage an SSE stream: (position, bytes deleted, bytes inserted).
damage = st.lists(st.tuples(st.integers(0, 1 << 20), st.integers(0, 3),
                            st.sampled_from([b"", b"\n", b"\n\n", b":", b"data: ", b"id: 1\n", b"{", b"}",
                                             b'"', b"\xff", b"\x00", b" ", b"retry: 5\n", b"data: {}\n\n"])),
                  min_size=1, max_size=4)

# Streams made of SSE's own tokens, to reach every rule of the spec parser.
sse_tokens = st.lists(st.sampled_from([
    b"\n", b"\r", b"\r\n", b":", b"data", b"data: ", b"data:", b"id: ", b"id", b"retry: 1", b"event: x", b" ",
    b"{}", b'{"type":"CUSTOM","name":"n"}', b'{"type":"X"}', b"\xef\xbb\xbf", b"\x00", b"\xff", b"}",
]), max_size=40).map(b"".join)


# -- JSON texts, for the partial JSON parser ---------------------------------------------------

# Any JSON value, unlike json_values (what wire's free-form fields may hold):
# integers past 64 bits, lone surrogates. Every character json.dumps may write raw (ensure_ascii=False) or escape,
# lone surrogates included, since JSON text can carry them as \u escapes.
_json_chars = st.characters() | st.sampled_from(["\ud83d", "\ude00", "\udbff", "\udc00"])
_json_scalars = (st.none() | st.booleans() | st.integers(-(10**20), 10**20)
            | st.floats(allow_nan=False, allow_infinity=False) | st.text(_json_chars, max_size=12))
any_json_values = st.recursive(
    _json_scalars,
    lambda inner: st.lists(inner, max_size=5) | st.dictionaries(st.text(_json_chars, max_size=6), inner, max_size=5),
    max_leaves=25,
)


@st.composite
def json_texts(draw: st.DrawFn) -> str:
    value = draw(any_json_values)
    return json.dumps(value, ensure_ascii=draw(st.booleans()), indent=draw(st.sampled_from([None, 0, 2])),
                      separators=draw(st.sampled_from([None, (",", ":"), (" , ", " : ")])))


@st.composite
def splits(draw: st.DrawFn, text: str) -> list[str]:
    cuts = sorted(draw(st.sets(st.integers(0, len(text)), max_size=min(len(text), 40))))
    bounds = [0, *cuts, len(text)]
    return [text[a:b] for a, b in itertools.pairwise(bounds)]


@st.composite
def damaged_texts(draw: st.DrawFn) -> str:
    """JSON texts with a character inserted, removed or replaced: some stay JSON."""
    text: str = draw(json_texts())
    at = draw(st.integers(0, len(text)))
    char: str = draw(st.sampled_from([*'{}[]:,"\\ 0-1.eE+tfnu\x00\n', "NaN"]))
    how = draw(st.sampled_from(["insert", "remove", "replace"]))
    if how == "insert":
        return text[:at] + char + text[at:]
    if how == "remove":
        return text[:at] + text[at + 1:]
    return text[:at] + char + text[at + 1:]
