"""agentscope events to the Vercel AI SDK's UI message stream (``ai`` 7.x).

:class:`VercelBridge` is a sans-IO transcoder for one reply: feed it the
reply's events in order, get back UI message chunks (plain dicts, the
``UIMessageChunk`` objects of ``ai``'s ``ui-message-stream/ui-message-chunks.ts``),
which ``useChat`` and ``readUIMessageStream`` fold into one assistant
``UIMessage``. :func:`encode_chunks` writes chunks as the ``data:`` frames of
``ai``'s ``JsonToSseTransformStream``, byte for byte (numbers spelled as
``JSON.stringify`` spells them), and :data:`DONE` is the frame that ends
a response; :func:`to_sse` does both for a whole capture. A server sends the
bytes with :data:`HEADERS` (``wire.bridges.vercel_http`` does it for a
``wire.stores.memory.EventLog``).

The mapping, event by event, and what the target cannot carry are listed in
``wire/bridges/README.md``. In short: one reply is one message (``start``
carries ``messageId = reply_id``), a model call is a step, text and thinking
blocks are ``text`` and ``reasoning`` parts, a data block is a ``file`` part
sent whole at its END, a hint is a ``data-agentscope-hint`` part, a tool call
and its result share one tool part whose state moves from ``input-streaming``
to an output, HITL confirmation uses the tool approval chunks, and CUSTOM
events become transient ``data-<name>`` chunks.

The values the chunks carry (text, tool input, tool output, data bytes,
usage) come from a :class:`~wire.messages.Msg` the bridge builds with
``append_event``, so they follow agentscope's own folding rules exactly;
what the bridge adds is the order the client's reducer needs (a part is
started before it grows, ended once, never regressed).
"""

from __future__ import annotations

import base64
import enum
from collections.abc import Callable, Iterable, Sequence
from typing import Any, Final, Literal, TypeVar, get_args

import msgspec

from wire import blocks as bk
from wire import events as ev
from wire._codec import DECODE_ERRORS, ENCODE_ERRORS, decode_error
from wire.bridges._skeleton import gained, js_value
from wire.errors import DecodeError, EncodeError
from wire.messages import Msg, UserMsg
from wire.session import CHECKPOINT, Waiting, blocks_once, join_reply, read_checkpoint, waiting

__all__ = ("DONE", "HEADERS", "ChatBody", "Chunk", "VercelBridge", "approval_answers", "chat_answer", "chat_body",
           "encode_chunks", "js_chunk", "parse_chat_body", "to_chunks", "to_sse", "user_msg")

Chunk = dict[str, Any]
"""One UI message chunk: a JSON object with a ``type``."""

# ai's ui-message-stream-headers.ts (UI_MESSAGE_STREAM_HEADERS): the client
# checks none of them, but proxies and the SDK's own tooling read the last two.
HEADERS: Final[dict[str, str]] = {
    "content-type": "text/event-stream",
    "cache-control": "no-cache",
    "connection": "keep-alive",
    "x-vercel-ai-ui-message-stream": "v1",
    "x-accel-buffering": "no",
}

DONE: Final = b"data: [DONE]\n\n"
"""The frame ai's JsonToSseTransformStream writes when a response ends."""

_FINISH_REASONS: Final = {
    ev.ReplyFinishedReason.COMPLETED: "stop",
    ev.ReplyFinishedReason.INTERRUPTED: "interrupted",
    ev.ReplyFinishedReason.EXCEED_MAX_ITERS: "other",
    ev.ReplyFinishedReason.ERROR: "error",
}


# Events whose handler needs nothing of the Msg: applied to it in runs, later.
_DELTAS: Final = frozenset({ev.TextBlockDeltaEvent, ev.ThinkingBlockDeltaEvent, ev.ToolCallDeltaEvent,
                            ev.DataBlockDeltaEvent, ev.ToolResultTextDeltaEvent, ev.ToolResultDataDeltaEvent})

_B = TypeVar("_B", bk.TextBlock, bk.ThinkingBlock, bk.DataBlock, bk.ToolCallBlock, bk.ToolResultBlock)


class _Phase(enum.Enum):
    STREAMING = 1  # tool-input-start sent: the part is input-streaming
    AVAILABLE = 2  # tool-input-available (or -error) sent: later input deltas are dropped
    DONE = 3  # an output (available, error or denied) sent


class _Call:
    """What the client's tool part looks like, for one tool_call_id."""

    __slots__ = ("approval", "block", "name", "phase", "step")

    def __init__(self, block: bk.ToolCallBlock | None, name: str, phase: _Phase, step: int) -> None:
        self.block = block
        self.name = name
        self.phase = phase
        # The client updates a tool part in place only within the step that made it
        # (process-ui-message-stream.ts, updateToolPart): later it would push a copy.
        self.step = step
        # None, "requested", or the answer sent: "approved" / "denied"
        self.approval: str | None = None


def _data_url(source: Any) -> tuple[str, str]:
    """The (url, media type) of a DataBlock's source, as a file part holds them:
    inline bytes become a base64 data URL, as ai's own producer writes them."""
    if isinstance(source, bk.Base64Source):
        data = base64.b64encode(source.data).decode("ascii")
        return f"data:{source.media_type};base64,{data}", source.media_type
    return source.url, source.media_type


def _parse_input(raw: str) -> tuple[bool, Any]:
    """(ok, value) of a tool call's raw JSON input; "" is the empty object, as
    agentscope's tools read it. Strict JSON (no NaN), as the client's own
    JSON.parse would need."""
    if not raw.strip():
        return True, {}
    try:
        return True, msgspec.json.decode(raw)
    except DECODE_ERRORS:
        return False, raw


class VercelBridge:
    """One reply's events in, UI message chunks out.

    ``feed(event)`` returns the chunks that event produces (often one, never
    shared between calls); ``close()`` the chunks that end a stream whose
    reply neither ended nor parked. Events of another reply are dropped, as
    ``Msg.append_event`` drops them; the reply is the one of ``reply_id``,
    else of the first event that names one.

    Options:

    * ``dynamic_tools``: tool parts of type ``dynamic-tool`` (for apps whose
      tools are not declared in the frontend) instead of ``tool-<name>``.
    * ``external_tools``: names of tools the frontend runs. Their calls are
      marked ``providerExecuted: false`` from the start, so ``useChat``'s
      ``onToolCall`` fires when their input is complete. Calls of other tools
      become client-run only when REQUIRE_EXTERNAL_EXECUTION names them.
    """

    def __init__(self, reply_id: str | None = None, *, dynamic_tools: bool = False,
                 external_tools: Iterable[str] = ()) -> None:
        self._msg: Msg | None = join_reply(reply_id) if reply_id else None
        # Deltas not yet applied to the Msg: no handler needs them there, and
        # Msg.extend_events applies a run of them faster than one at a time.
        self._deltas: list[ev.AgentEvent] = []
        self._dynamic = dynamic_tools
        self._external = frozenset(external_tools)
        self._text: dict[str, bk.TextBlock] = {}
        self._thinking: dict[str, bk.ThinkingBlock] = {}
        self._data: dict[str, bk.DataBlock | None] = {}  # None once its file part is sent
        self._calls: dict[str, _Call] = {}
        self._results: dict[str, bk.ToolResultBlock | None] = {}  # None once delivered
        # ids of the text and reasoning parts the client has open, in the order
        # they were opened (dicts, not sets: the chunks that close them must
        # come out in the same order on every run)
        self._open_text: dict[str, None] = {}
        self._open_reasoning: dict[str, None] = {}
        self._step_open = False
        self._steps = 0  # start-step chunks sent
        self._started = False
        self._ended = False  # REPLY_END seen, or a park (REQUIRE_*) ended the response
        self.parked = False
        """True from a REQUIRE_USER_CONFIRM or REQUIRE_EXTERNAL_EXECUTION (whose
        chunks end with ``finish{finishReason: "tool-calls"}``) until the reply
        goes on: ``useChat`` expects the response to end there."""
        self._streamed = ""  # a text block's streamed text, read before its END replaces it
        self._handlers: dict[type, Callable[[Any], list[Chunk]]] = {
            cls: getattr(self, "_" + cls.__name__) for cls in get_args(ev.AgentEvent)}

    # -- entry points ---------------------------------------------------------------

    @property
    def msg(self) -> Msg | None:
        """The reply as agentscope would build it from the events so far."""
        if self._deltas:
            self._apply_deltas()
        return self._msg

    def _apply_deltas(self) -> None:
        assert self._msg is not None
        self._msg.extend_events(self._deltas)
        self._deltas.clear()

    def feed(self, event: ev.AgentEvent | ev.UnknownEvent) -> list[Chunk]:
        """The chunks one event produces, in order. A ``wire.checkpoint``
        event (``wire.resume``) is not passed on: the bridge catches the
        client up with its Msg (:meth:`join`)."""
        cls = type(event)
        if cls is ev.CustomEvent and event.name == CHECKPOINT:  # type: ignore[union-attr]
            msg = read_checkpoint(event)
            return self.join(msg) if msg is not None else []
        handler = self._handlers.get(cls)
        if handler is None:
            # A newer peer's event type: the UI stream has nothing to carry it
            # in (an unknown chunk type is fatal to the client), so it is dropped.
            return []
        if cls is not ev.CustomEvent:
            reply_id: str = event.reply_id  # type: ignore[union-attr]
            msg = self._msg
            if msg is None:
                start = event if isinstance(event, ev.ReplyStartEvent) else None
                msg = self._msg = Msg(name=start.name if start else "", content=[],
                                      role=start.role if start else "assistant", id=reply_id)
            elif reply_id != msg.id:
                return []
            if cls in _DELTAS:
                self._deltas.append(event)  # type: ignore[arg-type]
            else:
                if self._deltas:
                    self._apply_deltas()
                if isinstance(event, ev.TextBlockEndEvent) and event.text is not None and \
                        event.block_id in self._open_text:
                    self._streamed = self._text[event.block_id].text
                msg.append_event(event)
        chunks: list[Chunk] = handler(event)
        return chunks

    def feed_all(self, events: Iterable[ev.AgentEvent | ev.UnknownEvent]) -> list[Chunk]:
        """The chunks of every event, in order: ``feed`` for each, with a
        shortcut for most of a reply's events, a delta to an open text or
        reasoning part (the same chunk as ``feed`` makes, without its lookups)."""
        out: list[Chunk] = []
        append = out.append
        deltas = self._deltas
        open_text, open_reasoning = self._open_text, self._open_reasoning
        for event in events:
            if isinstance(event, ev.TextBlockDeltaEvent) and event.block_id in open_text and \
                    self._msg is not None and event.reply_id == self._msg.id:
                deltas.append(event)
                append({"type": "text-delta", "id": event.block_id, "delta": event.delta})
            elif isinstance(event, ev.ThinkingBlockDeltaEvent) and event.block_id in open_reasoning and \
                    self._msg is not None and event.reply_id == self._msg.id:
                deltas.append(event)
                append({"type": "reasoning-delta", "id": event.block_id, "delta": event.delta})
            else:
                out += self.feed(event)
        return out

    def close(self) -> list[Chunk]:
        """No more events. A reply that is still running (no REPLY_END, no
        park) gets its open parts closed and ``finish{finishReason:
        "interrupted"}``, ai's reason for "ended without a completion signal"."""
        if not self._started or self._ended:
            return []
        self._ended = True
        return [*self._close_open(), {"type": "finish", "finishReason": "interrupted"}]

    def join(self, msg: Msg) -> list[Chunk]:
        """The chunks that bring the client from what this bridge has sent to
        ``msg``, the reply so far (a checkpoint's Msg), after which the events
        that follow ``msg`` go on. On a new bridge (a client that joins
        mid-reply, or a log whose start was trimmed): ``start``, then every
        part so far, a part whose block has not ended left open so the deltas
        that follow continue it, the usage, and the reply's end or park if it
        has one. On a bridge that has sent part of the reply: only what the
        client lacks (a gap in the events is filled). The bridge's Msg
        becomes ``msg``."""
        old = self.msg
        if old is not None and msg.id != old.id:
            return []  # another reply's checkpoint, as append_event drops its events
        if self._ended and not self.parked:
            return []  # the client has the whole reply
        out: list[Chunk] = []
        old_hints: dict[str, Any] = {}
        if old is not None:
            old_hints = {b.id: msgspec.to_builtins(b) for b in old.content if isinstance(b, bk.HintBlock)}
        self._msg = msg
        parked = waiting(msg)
        results = {b.id: b for b in msg.content if type(b) is bk.ToolResultBlock}
        # The reply went on after the park the client holds:
        went_on = msg.finished_reason is None and parked.state != "parked" and self._ended
        if not self._started:
            out.append(self._start_chunk(msg))
        self._started = True
        for block in blocks_once(msg):
            if isinstance(block, bk.TextBlock):
                out += self._catch_up_text(block)
            elif isinstance(block, bk.ThinkingBlock):
                out += self._catch_up_reasoning(block)
            elif isinstance(block, bk.DataBlock):
                if self._data.get(block.id, block) is None:
                    continue  # its file part is sent
                if block.finished_at is None:
                    self._data[block.id] = block
                else:
                    self._data[block.id] = None
                    out.append(self._file(block))
            elif isinstance(block, bk.HintBlock):
                if old_hints.get(block.id) != msgspec.to_builtins(block):
                    out += self._HintBlockEvent(ev.HintBlockEvent(reply_id=msg.id, block_id=block.id, hint=block.hint,
                                                               source=block.source))
            elif isinstance(block, bk.ToolCallBlock):
                out += self._catch_up_call(block, results.get(block.id))
            elif isinstance(block, bk.ToolResultBlock):
                if block.id in self._results and self._results[block.id] is None:
                    continue  # delivered
                if block.finished_at is None:
                    self._results[block.id] = block
                    continue
                if block.state != bk.ToolResultState.RUNNING:
                    self._results[block.id] = None
                out += self._deliver(block)
        if went_on and out:  # the continuation's start, as its REPLY_START would send it
            self._ended = self.parked = False
            out.insert(0, self._start_chunk(msg))
        if msg.finished_reason is not None:
            return out + self._ReplyEndEvent(ev.ReplyEndEvent(session_id="", reply_id=msg.id,
                                                           finished_reason=msg.finished_reason, error=msg.error))
        usage = self._usage()
        if usage is not None:
            out.append({"type": "message-metadata", "messageMetadata": {"agentscope": {"usage": usage}}})
        if parked.state == "parked" and not self.parked:
            out += self._park_for(parked)
        return out

    def _start_chunk(self, msg: Msg) -> Chunk:
        # A checkpoint has no session id: the metadata holds what the Msg has.
        meta = {"name": msg.name, "role": msg.role, "reply_id": msg.id}
        return {"type": "start", "messageId": msg.id, "messageMetadata": {"agentscope": meta}}

    def _catch_up_text(self, block: bk.TextBlock) -> list[Chunk]:
        id = block.id
        old = self._text.get(id)
        self._text[id] = block
        out: list[Chunk] = []
        sent = ""
        if old is None:
            self._open_text[id] = None
            out.append({"type": "text-start", "id": id, "providerMetadata": {"agentscope": {"block_id": id}}})
        else:
            sent = old.text
        if rest := gained(sent, block.text):
            if id not in self._open_text:  # as a delta after END: a new part
                self._open_text[id] = None
                out.append({"type": "text-start", "id": id, "providerMetadata": {"agentscope": {"block_id": id}}})
            out.append({"type": "text-delta", "id": id, "delta": rest})
        if block.finished_at is not None and id in self._open_text:
            del self._open_text[id]
            out.append({"type": "text-end", "id": id})
        return out

    def _catch_up_reasoning(self, block: bk.ThinkingBlock) -> list[Chunk]:
        id = block.id
        old = self._thinking.get(id)
        self._thinking[id] = block
        out: list[Chunk] = []
        sent = ""
        if old is None:
            self._open_reasoning[id] = None
            out.append({"type": "reasoning-start", "id": id})
        else:
            sent = old.thinking
        if rest := gained(sent, block.thinking):
            if id not in self._open_reasoning:
                self._open_reasoning[id] = None
                out.append({"type": "reasoning-start", "id": id})
            out.append({"type": "reasoning-delta", "id": id, "delta": rest})
        if block.finished_at is not None and id in self._open_reasoning:
            del self._open_reasoning[id]
            out.append({"type": "reasoning-end", "id": id})
        return out

    def _catch_up_call(self, block: bk.ToolCallBlock, result: bk.ToolResultBlock | None) -> list[Chunk]:
        id = block.id
        call = self._calls.get(id)
        out: list[Chunk] = []
        sent = ""
        if call is None:
            call = self._calls[id] = _Call(block, block.name, _Phase.STREAMING, self._steps)
            out.append({"type": "tool-input-start", **self._tool_fields(id, block.name),
                        "providerExecuted": block.name not in self._external})
        else:
            sent = call.block.input if call.block is not None else ""
            call.block = block
        if call.phase is _Phase.STREAMING:
            if rest := gained(sent, block.input):
                out.append({"type": "tool-input-delta", "toolCallId": id, "inputTextDelta": rest})
            if block.finished_at is not None:
                out.append(self._input_available(id, call))
        if call.phase is _Phase.DONE or call.approval in ("approved", "denied"):
            return out
        # A call the user was asked about and answered: ALLOWED (running, or
        # not yet run), or FINISHED after the question, which the Msg records
        # only by the suggested rules REQUIRE_USER_CONFIRM left on it (a
        # question with no rules leaves no trace), unless this bridge sent the
        # question itself. Its approval goes out as
        # the live stream sent it: the request, with its descriptor, then the
        # answer (for a denied result, the result's own delivery refuses).
        asked = block.state == bk.ToolCallState.ALLOWED or (
            block.state == bk.ToolCallState.FINISHED and (bool(block.suggested_rules) or call.approval == "requested"))
        if not asked:
            return out
        if call.phase is _Phase.STREAMING:
            out.append(self._input_available(id, call))
        if call.approval is None:
            out.append(self._approval_request(block))
        call.approval = "requested"
        denied = block.state == bk.ToolCallState.FINISHED and (
            result is None or bk.ToolResultState(result.state) is bk.ToolResultState.DENIED)
        if result is None or not denied:
            call.approval = "denied" if denied else "approved"
            out.append({"type": "tool-approval-response", "approvalId": f"{id}.confirm", "approved": not denied})
        return out

    @staticmethod
    def _approval_request(call: bk.ToolCallBlock) -> Chunk:
        """The approval request of a call REQUIRE_USER_CONFIRM asked about, with
        the rules agentscope suggests (the live stream's and a catch-up's)."""
        return {"type": "tool-approval-request", "approvalId": f"{call.id}.confirm", "toolCallId": call.id,
                "approvalDescriptor": {"agentscope": {"suggested_rules": msgspec.to_builtins(call.suggested_rules)}}}

    def _park_for(self, parked: Waiting) -> list[Chunk]:
        """The chunks of the park the reply is in (``wire.session.waiting``:
        the approval requests of the calls asking, else the hand-over of the
        calls submitted to the app), then the response's end."""
        if parked.confirm:
            return self._RequireUserConfirmEvent(ev.RequireUserConfirmEvent(reply_id=parked.reply_id,
                                                                         tool_calls=parked.confirm))
        return self._RequireExternalExecutionEvent(ev.RequireExternalExecutionEvent(
            reply_id=parked.reply_id, tool_calls=parked.external))

    # -- helpers ----------------------------------------------------------------------

    def _close_open(self) -> list[Chunk]:
        """End every part the client has open, and the step: before a finish."""
        out: list[Chunk] = [{"type": "text-end", "id": id} for id in self._open_text]
        out += [{"type": "reasoning-end", "id": id} for id in self._open_reasoning]
        self._open_text.clear()
        self._open_reasoning.clear()
        if self._step_open:
            self._step_open = False
            out.append({"type": "finish-step"})
        return out

    def _new_block(self, cls: type[_B], id: str) -> _B | None:
        """The block a START just added to the Msg (None if the reducer
        refused it, e.g. a block the Msg's role does not allow)."""
        content = self._msg.content if self._msg is not None else []
        if content and type(last := content[-1]) is cls and last.id == id:
            return last
        return None

    def _usage(self) -> dict[str, int] | None:
        usage = self._msg.usage if self._msg is not None else None
        return msgspec.structs.asdict(usage) if usage is not None else None

    def _tool_fields(self, call_id: str, name: str) -> Chunk:
        if self._dynamic:
            return {"toolCallId": call_id, "toolName": name, "dynamic": True}
        return {"toolCallId": call_id, "toolName": name}

    def _input_available(self, call_id: str, call: _Call) -> Chunk:
        """The chunk that ends a call's input: ``tool-input-available`` with the
        parsed input (and the raw text in providerMetadata, which the client
        keeps as ``callProviderMetadata``), or ``tool-input-error`` when the
        raw text is not JSON."""
        call.phase = _Phase.AVAILABLE
        raw = call.block.input if call.block is not None else ""
        ok, value = _parse_input(raw)
        chunk = {"type": "tool-input-available" if ok else "tool-input-error", **self._tool_fields(call_id, call.name),
                 "input": value, "providerExecuted": call.name not in self._external,
                 "providerMetadata": {"agentscope": {"raw_input": raw}}}
        if not ok:
            chunk["errorText"] = "the tool call's input is not valid JSON"
        return chunk

    def _deliver(self, result: bk.ToolResultBlock) -> list[Chunk]:
        """The chunks that give a tool part its final state from a result."""
        out: list[Chunk] = []
        call_id = result.id
        call = self._calls.get(call_id)
        if call is None:
            # A result whose call the stream never showed: the client throws on
            # an output for a part it does not have, so the part is made first.
            call = self._calls[call_id] = _Call(None, result.name, _Phase.STREAMING, self._steps)
        if call.phase is _Phase.STREAMING:
            out.append(self._input_available(call_id, call))
        state = bk.ToolResultState(result.state)  # a Struct built in code may hold the plain str
        if state is bk.ToolResultState.RUNNING:
            return out  # not an end: the part stays input-available
        text, output, has_data = _output(result.output)
        meta = {"agentscope": {"state": state.value, "name": result.name, "metadata": result.metadata}}
        approval_pending = call.approval == "requested"
        if state is bk.ToolResultState.DENIED or (approval_pending and state is not bk.ToolResultState.SUCCESS):
            # validateUIMessages accepts output-denied only with an answered,
            # refused approval: ask (automatically) and refuse first if needed.
            approval_id = f"{call_id}.confirm"
            if call.approval is None:
                out.append({"type": "tool-approval-request", "approvalId": approval_id, "toolCallId": call_id,
                            "isAutomatic": True})
            if call.approval != "denied" or text:  # (again, to carry the result's text as the reason)
                refusal: Chunk = {"type": "tool-approval-response", "approvalId": approval_id, "approved": False}
                if text:
                    refusal["reason"] = text
                out.append(refusal)
            call.approval = "denied"
            out.append({"type": "tool-output-denied", "toolCallId": call_id})
        else:
            if approval_pending:  # ran without an answer on the stream: it was allowed
                out.append({"type": "tool-approval-response", "approvalId": f"{call_id}.confirm", "approved": True})
                call.approval = "approved"
            if state is bk.ToolResultState.SUCCESS:
                out.append({"type": "tool-output-available", "toolCallId": call_id, "output": output,
                            "providerMetadata": meta})
            else:  # error, or interrupted while running
                if has_data:
                    meta["agentscope"]["output"] = output
                out.append({"type": "tool-output-error", "toolCallId": call_id, "errorText": text,
                            "providerMetadata": meta})
        call.phase = _Phase.DONE
        return out

    def _park(self) -> list[Chunk]:
        """The reply waits for the user: this response ends (the continuation
        is a new response on the same message)."""
        self._ended = True
        self.parked = True
        return [*self._close_open(), {"type": "finish", "finishReason": "tool-calls"}]

    # -- one handler per event type (named after the event class) -----------------------

    def _ReplyStartEvent(self, e: ev.ReplyStartEvent) -> list[Chunk]:
        self._started = True
        self._ended = False
        self.parked = False
        meta = {"name": e.name, "role": e.role, "session_id": e.session_id, "reply_id": e.reply_id}
        return [{"type": "start", "messageId": e.reply_id, "messageMetadata": {"agentscope": meta}}]

    def _ReplyEndEvent(self, e: ev.ReplyEndEvent) -> list[Chunk]:
        self._ended = True
        out = self._close_open()
        reason = ev.ReplyFinishedReason(e.finished_reason)
        meta: dict[str, Any] = {"finished_reason": reason.value}
        usage = self._usage()
        if usage is not None:
            meta["usage"] = usage
        if reason is ev.ReplyFinishedReason.ERROR:
            # useChat stops applying chunks at an error chunk: the metadata goes first.
            error = e.error
            if error is not None:
                meta["error"] = {"type": error.type.value, "message": error.message}
            out.append({"type": "message-metadata", "messageMetadata": {"agentscope": meta}})
            text = f"{error.type.value}: {error.message}" if error is not None else "error"
            out.append({"type": "error", "errorText": text})
            out.append({"type": "finish", "finishReason": "error"})
            return out
        out.append({"type": "finish", "finishReason": _FINISH_REASONS[reason],
                    "messageMetadata": {"agentscope": meta}})
        return out

    def _ModelCallStartEvent(self, e: ev.ModelCallStartEvent) -> list[Chunk]:
        out: list[Chunk] = [{"type": "finish-step"}] if self._step_open else []
        self._step_open = True
        self._steps += 1
        out.append({"type": "start-step"})
        return out

    def _ModelCallEndEvent(self, e: ev.ModelCallEndEvent) -> list[Chunk]:
        out: list[Chunk] = [{"type": "finish-step"}] if self._step_open else []
        self._step_open = False
        # message metadata is deep-merged by the client: the running sum replaces the last.
        usage = self._usage()
        if usage is not None:
            out.append({"type": "message-metadata", "messageMetadata": {"agentscope": {"usage": usage}}})
        return out

    def _TextBlockStartEvent(self, e: ev.TextBlockStartEvent) -> list[Chunk]:
        id = e.block_id
        if id in self._text:
            return []  # a second text-start would open a second part and take the deltas
        block = self._new_block(bk.TextBlock, id)
        if block is None:
            return []
        self._text[id] = block
        self._open_text[id] = None
        return [{"type": "text-start", "id": id, "providerMetadata": {"agentscope": {"block_id": id}}}]

    def _TextBlockDeltaEvent(self, e: ev.TextBlockDeltaEvent) -> list[Chunk]:
        id = e.block_id
        if id not in self._text:
            return []  # agentscope drops it too
        delta: Chunk = {"type": "text-delta", "id": id, "delta": e.delta}
        if id in self._open_text:
            return [delta]
        # After the END agentscope still appends; the client can only open a new part.
        self._open_text[id] = None
        return [{"type": "text-start", "id": id, "providerMetadata": {"agentscope": {"block_id": id}}}, delta]

    def _TextBlockEndEvent(self, e: ev.TextBlockEndEvent) -> list[Chunk]:
        id = e.block_id
        block = self._text.get(id)
        if block is None or id not in self._open_text:
            return []
        self._open_text.pop(id, None)
        end: Chunk = {"type": "text-end", "id": id}
        out: list[Chunk] = []
        if e.text is not None:
            # The Msg already holds END's text; the streamed text is what the client has.
            streamed = self._streamed
            self._streamed = ""
            rest = gained(streamed, e.text)
            if rest:
                out.append({"type": "text-delta", "id": id, "delta": rest})
            elif rest is None:  # the client cannot replace a part's text: the final text rides along
                end["providerMetadata"] = {"agentscope": {"block_id": id, "text": e.text}}
        out.append(end)
        return out

    def _ThinkingBlockStartEvent(self, e: ev.ThinkingBlockStartEvent) -> list[Chunk]:
        id = e.block_id
        if id in self._thinking:
            return []
        block = self._new_block(bk.ThinkingBlock, id)
        if block is None:
            return []
        self._thinking[id] = block
        self._open_reasoning[id] = None
        return [{"type": "reasoning-start", "id": id}]

    def _ThinkingBlockDeltaEvent(self, e: ev.ThinkingBlockDeltaEvent) -> list[Chunk]:
        id = e.block_id
        if id not in self._thinking:
            return []
        delta: Chunk = {"type": "reasoning-delta", "id": id, "delta": e.delta}
        if id in self._open_reasoning:
            return [delta]
        self._open_reasoning[id] = None
        return [{"type": "reasoning-start", "id": id}, delta]

    def _ThinkingBlockEndEvent(self, e: ev.ThinkingBlockEndEvent) -> list[Chunk]:
        if e.block_id not in self._open_reasoning:
            return []
        self._open_reasoning.pop(e.block_id, None)
        return [{"type": "reasoning-end", "id": e.block_id}]

    def _DataBlockStartEvent(self, e: ev.DataBlockStartEvent) -> list[Chunk]:
        if e.block_id not in self._data:
            block = self._new_block(bk.DataBlock, e.block_id)
            if block is not None:
                self._data[e.block_id] = block
        return []  # a file part is whole: it is sent at the END

    def _DataBlockDeltaEvent(self, e: ev.DataBlockDeltaEvent) -> list[Chunk]:
        return []  # the Msg's reducer gathers the bytes (or the URL)

    def _DataBlockEndEvent(self, e: ev.DataBlockEndEvent) -> list[Chunk]:
        block = self._data.get(e.block_id)
        if block is None:
            return []
        self._data[e.block_id] = None
        return [self._file(block)]

    @staticmethod
    def _file(block: bk.DataBlock) -> Chunk:
        url, media_type = _data_url(block.source)
        meta: dict[str, Any] = {"block_id": block.id}
        if block.name is not None:
            meta["name"] = block.name
        return {"type": "file", "url": url, "mediaType": media_type, "providerMetadata": {"agentscope": meta}}

    def _HintBlockEvent(self, e: ev.HintBlockEvent) -> list[Chunk]:
        data: dict[str, Any] = {"hint": e.hint if isinstance(e.hint, str) else msgspec.to_builtins(e.hint)}
        if e.source is not None:
            data["source"] = e.source
        return [{"type": "data-agentscope-hint", "id": e.block_id, "data": data}]

    def _ToolCallStartEvent(self, e: ev.ToolCallStartEvent) -> list[Chunk]:
        id = e.tool_call_id
        if id in self._calls:
            return []
        block = self._new_block(bk.ToolCallBlock, id)
        if block is None:
            return []
        self._calls[id] = _Call(block, e.tool_call_name, _Phase.STREAMING, self._steps)
        return [{"type": "tool-input-start", **self._tool_fields(id, e.tool_call_name),
                 "providerExecuted": e.tool_call_name not in self._external}]

    def _ToolCallDeltaEvent(self, e: ev.ToolCallDeltaEvent) -> list[Chunk]:
        call = self._calls.get(e.tool_call_id)
        if call is None or call.phase is not _Phase.STREAMING:
            # After tool-input-available a delta would drag the part back to
            # input-streaming and drop its output (the Msg still gets it).
            return []
        return [{"type": "tool-input-delta", "toolCallId": e.tool_call_id, "inputTextDelta": e.delta}]

    def _ToolCallEndEvent(self, e: ev.ToolCallEndEvent) -> list[Chunk]:
        call = self._calls.get(e.tool_call_id)
        if call is None or call.phase is not _Phase.STREAMING:
            return []
        return [self._input_available(e.tool_call_id, call)]

    def _ToolResultStartEvent(self, e: ev.ToolResultStartEvent) -> list[Chunk]:
        if e.tool_call_id not in self._results:
            block = self._new_block(bk.ToolResultBlock, e.tool_call_id)
            if block is not None:
                self._results[e.tool_call_id] = block
        return []  # outputs are whole: sent at the END

    def _ToolResultTextDeltaEvent(self, e: ev.ToolResultTextDeltaEvent) -> list[Chunk]:
        return []

    def _ToolResultDataDeltaEvent(self, e: ev.ToolResultDataDeltaEvent) -> list[Chunk]:
        return []

    def _ToolResultEndEvent(self, e: ev.ToolResultEndEvent) -> list[Chunk]:
        result = self._results.get(e.tool_call_id)
        if result is None:
            return []
        if e.state != bk.ToolResultState.RUNNING:
            self._results[e.tool_call_id] = None
        return self._deliver(result)

    def _ExceedMaxItersEvent(self, e: ev.ExceedMaxItersEvent) -> list[Chunk]:
        return [{"type": "data-agentscope-exceed-max-iters", "id": e.id, "data": {"name": e.name}, "transient": True}]

    def _RequireUserConfirmEvent(self, e: ev.RequireUserConfirmEvent) -> list[Chunk]:
        out: list[Chunk] = []
        for asked in e.tool_calls:
            call = self._calls.get(asked.id)
            if call is None or call.phase is _Phase.DONE or call.approval is not None:
                continue  # the client throws on an approval for a part it does not have
            if call.phase is _Phase.STREAMING:
                out.append(self._input_available(asked.id, call))
            call.approval = "requested"
            out.append(self._approval_request(asked))
        return [*out, *self._park()]

    def _UserConfirmResultEvent(self, e: ev.UserConfirmResultEvent) -> list[Chunk]:
        out: list[Chunk] = []
        for answer in e.confirm_results:
            id = answer.tool_call.id
            call = self._calls.get(id)
            if call is None or call.approval != "requested":
                continue  # agentscope applies an answer only to a call that is asking
            call.approval = "approved" if answer.confirmed else "denied"
            out.append({"type": "tool-approval-response", "approvalId": f"{id}.confirm", "approved": answer.confirmed})
        return out

    def _RequireExternalExecutionEvent(self, e: ev.RequireExternalExecutionEvent) -> list[Chunk]:
        # Every call, for onData (lossless, and the only notice for calls of an
        # earlier model call), then the native hand-over where the client allows it.
        calls = [{"id": c.id, "name": c.name, "input": c.input} for c in e.tool_calls]
        out: list[Chunk] = [{"type": "data-agentscope-require-external-execution", "id": e.id,
                             "data": {"tool_calls": calls}, "transient": True}]
        for asked in e.tool_calls:
            call = self._calls.get(asked.id)
            if call is None or call.phase is _Phase.DONE or call.step != self._steps:
                continue
            if call.phase is _Phase.AVAILABLE and call.name in self._external:
                continue  # handed over at its END already: onToolCall must not fire twice
            call.phase = _Phase.AVAILABLE
            _, value = _parse_input(asked.input)
            # providerExecuted false: useChat's onToolCall fires, the app runs the tool.
            out.append({"type": "tool-input-available", **self._tool_fields(asked.id, call.name), "input": value,
                        "providerExecuted": False, "providerMetadata": {"agentscope": {"raw_input": asked.input}}})
        return [*out, *self._park()]

    def _ExternalExecutionResultEvent(self, e: ev.ExternalExecutionResultEvent) -> list[Chunk]:
        out: list[Chunk] = []
        for result in e.execution_results:
            if result.id in self._results:
                continue  # the agent streams this result itself (or already did)
            self._results[result.id] = None
            out += self._deliver(result)
        return out

    def _UserInterruptEvent(self, e: ev.UserInterruptEvent) -> list[Chunk]:
        return [{"type": "data-agentscope-user-interrupt", "id": e.id, "data": {"reply_id": e.reply_id},
                 "transient": True}]

    def _CustomEvent(self, e: ev.CustomEvent) -> list[Chunk]:
        # Transient: onData sees it, the message does not keep it (append_event ignores CUSTOM).
        return [{"type": f"data-{e.name}", "id": e.id, "data": e.value, "transient": True}]


def _output(output: str | list[bk.TextBlock | bk.DataBlock]) -> tuple[str, Any, bool]:
    """(text, output, has data) of a tool result: the output is the text when
    the result is text only, else a list of text and file items."""
    if isinstance(output, str):
        return output, output, False
    text = "".join(part.text for part in output if isinstance(part, bk.TextBlock))
    if all(isinstance(part, bk.TextBlock) for part in output) and len(output) <= 1:
        return text, text, False
    items: list[dict[str, str]] = []
    for part in output:
        if isinstance(part, bk.TextBlock):
            items.append({"type": "text", "text": part.text})
        else:
            url, media_type = _data_url(part.source)
            items.append({"type": "file", "mediaType": media_type, "url": url})
    return text, items, True


_ENCODER = msgspec.json.Encoder()


def encode_chunks(chunks: Iterable[Chunk]) -> bytes:
    """Chunks as ai's JsonToSseTransformStream writes them: one
    ``data: <JSON>\n\n`` frame each, compact JSON with non-ASCII text as
    UTF-8 (JSON.stringify's output). Add :data:`DONE` at the end of a response.
    A value JSON cannot hold raises EncodeError."""
    buf = bytearray()
    _encode_into(chunks, buf)
    return bytes(buf)


# Chunks that hold only strings the bridge made: written as they are. Every
# other chunk may carry free-form values (a tool's input or output, a data
# part, metadata), whose floats and integer-like keys are written the
# JavaScript way (``wire.bridges._skeleton.js_value``), as ai's
# JsonToSseTransformStream writes them with JSON.stringify (1e+21, not 1e21).
_PLAIN: Final = frozenset({"text-start", "text-delta", "text-end", "reasoning-start", "reasoning-delta",
                           "reasoning-end", "tool-input-delta", "start-step", "finish-step"})


def js_chunk(chunk: Chunk) -> Chunk:
    """``chunk`` as msgspec must be given it to write JSON.stringify's text
    (what :func:`encode_chunks` writes after ``data: ``): its free-form
    values with JavaScript's floats and key order. A socket frame that
    carries a chunk embeds this, so a chunk is the same text on every door."""
    return chunk if chunk.get("type") in _PLAIN else js_value(chunk)


def _encode_into(chunks: Iterable[Chunk], buf: bytearray) -> None:
    plain = _PLAIN
    for chunk in chunks:
        buf += b"data: "
        try:  # js_chunk, inlined: a function call per chunk costs ~10% here
            _ENCODER.encode_into(chunk if chunk.get("type") in plain else js_value(chunk), buf, -1)
        except (*ENCODE_ERRORS, RecursionError) as exc:
            raise EncodeError(f"cannot encode a {chunk.get('type')!r} chunk: {exc}") from exc
        buf += b"\n\n"


def to_chunks(events: Iterable[ev.AgentEvent | ev.UnknownEvent], *, reply_id: str | None = None,
              dynamic_tools: bool = False, external_tools: Iterable[str] = ()) -> list[Chunk]:
    """Every chunk of one reply's events, the stream closed at the end."""
    bridge = VercelBridge(reply_id, dynamic_tools=dynamic_tools, external_tools=external_tools)
    chunks = bridge.feed_all(events)
    chunks += bridge.close()
    return chunks


def to_sse(events: Iterable[ev.AgentEvent | ev.UnknownEvent], *, reply_id: str | None = None,
           dynamic_tools: bool = False, external_tools: Iterable[str] = ()) -> bytes:
    """One reply's events as the whole body of a UI message stream response,
    ``data: [DONE]`` included (what ``python -m wire convert --to vercel`` writes)."""
    bridge = VercelBridge(reply_id, dynamic_tools=dynamic_tools, external_tools=external_tools)
    buf = bytearray()
    batch: list[ev.AgentEvent | ev.UnknownEvent] = []
    for event in events:  # in batches: each batch's chunks are written and freed before the next
        batch.append(event)
        if len(batch) == 256:
            _encode_into(bridge.feed_all(batch), buf)
            batch.clear()
    _encode_into(bridge.feed_all(batch), buf)
    _encode_into(bridge.close(), buf)
    buf += DONE
    return bytes(buf)


def approval_answers(message: Any) -> dict[str, bool]:
    """The user's answers in a UIMessage that ``useChat`` posted back after
    ``addToolApprovalResponse``: ``{tool_call_id: approved}`` for each tool
    part in state ``approval-responded``. This is what a server turns into
    agentscope's USER_CONFIRM_RESULT to let a parked reply go on.

    The message comes from a client, so it is checked: parts that are not
    answers (text, other tool states, types this version does not know) are
    skipped, but a message that is not an object, ``parts`` that is not a
    list, a part that is not an object, or an answer without a string
    ``toolCallId`` and a boolean ``approval.approved`` raises
    :class:`~wire.errors.DecodeError` naming the JSON path (a malformed answer
    skipped silently would leave the reply parked with no error)."""
    if not isinstance(message, dict):
        raise DecodeError("a UIMessage must be an object", path="$")
    parts = message.get("parts", [])
    if not isinstance(parts, list):
        raise DecodeError("parts must be an array", path="$.parts")
    answers: dict[str, bool] = {}
    for i, part in enumerate(parts):
        if not isinstance(part, dict):
            raise DecodeError("a part must be an object", path=f"$.parts[{i}]")
        kind = part.get("type")
        if not isinstance(kind, str) or not (kind.startswith("tool-") or kind == "dynamic-tool") \
                or part.get("state") != "approval-responded":
            continue
        call_id = part.get("toolCallId")
        if not isinstance(call_id, str):
            raise DecodeError("an answered tool part needs a string toolCallId", path=f"$.parts[{i}].toolCallId")
        approval = part.get("approval")
        if not isinstance(approval, dict):
            raise DecodeError("an answered tool part needs an approval object", path=f"$.parts[{i}].approval")
        approved = approval.get("approved")
        if not isinstance(approved, bool):
            raise DecodeError("approval.approved must be a boolean", path=f"$.parts[{i}].approval.approved")
        answers[call_id] = approved
    return answers


# -- what useChat sends -------------------------------------------------------------------------


class _UIMessage(msgspec.Struct):
    # ai's UIMessage: the fields a server reads (metadata and the rest pass unread).
    id: str
    role: Literal["system", "user", "assistant"]
    parts: list[Any] = []


class _Body(msgspec.Struct):
    # DefaultChatTransport's body (http-chat-transport.ts, sendMessages); the
    # app's own fields (its `body` option) are allowed, not kept.
    id: str
    messages: list[msgspec.Raw]
    trigger: Literal["submit-message", "regenerate-message"] = "submit-message"
    messageId: str | None = None


class ChatBody(msgspec.Struct, kw_only=True, frozen=True):
    """What ``useChat`` POSTs (ai's ``DefaultChatTransport``), as a server
    reads it: the chat (``id``, a session for wire), the ``trigger``, the
    ``messageId`` it names, and the last message of the history it sends,
    which is the new one (a user message) or the assistant message the user
    answered (``approval-responded`` tool parts, or outputs of tools the
    frontend ran)."""

    id: str
    trigger: str
    message_id: str | None
    message: dict[str, Any]
    """The last message, as posted (``approval_answers`` reads it)."""
    role: str
    """The last message's role: ``user`` (a new turn) or ``assistant`` (an answer)."""


_body_decoder = msgspec.json.Decoder(_Body)


def parse_chat_body(body: bytes | bytearray | memoryview) -> ChatBody:
    """The POST body of ``useChat`` as a :class:`ChatBody`. Invalid UTF-8
    anywhere in it (unknown keys included), a body that is not a JSON
    object with a string ``id``, a ``messages`` array whose last item is a
    UIMessage (a string ``id``, a ``role`` of system, user or assistant, a
    ``parts`` array), or a ``trigger`` ai does not send raise
    :class:`~wire.errors.DecodeError` with the JSON path."""
    data = bytes(body)
    try:
        data.decode("utf-8")  # a key the decoder skips is not checked by it
    except UnicodeDecodeError as exc:
        raise decode_error(exc, data=data) from exc
    try:
        raw = _body_decoder.decode(data)
    except DECODE_ERRORS as exc:
        raise decode_error(exc, data=data) from exc
    return chat_body(raw.id, raw.trigger, raw.messageId, raw.messages)


def chat_body(id: str, trigger: str, message_id: str | None, messages: Sequence[msgspec.Raw]) -> ChatBody:
    """A :class:`ChatBody` from the fields of a body already decoded (ai's
    ``WebSocketChatTransport`` sends them in its ``send`` frame): the last
    of ``messages`` must be a UIMessage; else :class:`~wire.errors.DecodeError`
    with the JSON path."""
    if not messages:
        raise DecodeError("messages must hold the history, the new message last", path="$.messages")
    where = f"$.messages[{len(messages) - 1}]"
    last = bytes(messages[-1])
    try:
        typed = msgspec.json.decode(last, type=_UIMessage)
        message = msgspec.json.decode(last)
    except DECODE_ERRORS as exc:
        err = decode_error(exc, data=last, exact=False)
        err.path = where + (err.path or "$")[1:]
        raise err from exc
    return ChatBody(id=id, trigger=trigger, message_id=message_id, message=message, role=typed.role)


def user_msg(message: dict[str, Any], name: str = "user") -> Msg:
    """A user UIMessage as agentscope's user Msg, with the message's id: a
    ``text`` part is a TextBlock, a ``file`` part a DataBlock (a ``data:``
    URL's bytes inline, another URL as a URL); the other parts (sources,
    data parts, ``step-start``) are not the model's input and are left out.
    A text or file part of the wrong shape, or a URL agentscope would
    refuse, raises :class:`~wire.errors.DecodeError` with its path."""
    content: list[bk.TextBlock | bk.DataBlock] = []
    parts = message.get("parts", [])
    for i, part in enumerate(parts if isinstance(parts, list) else []):
        kind = part.get("type") if isinstance(part, dict) else None
        where = f"$.parts[{i}]"
        if kind == "text":
            text = part.get("text")
            if not isinstance(text, str):
                raise DecodeError("a text part needs a string text", path=where + ".text")
            content.append(bk.TextBlock(text=text))
        elif kind == "file":
            url, media_type, filename = part.get("url"), part.get("mediaType"), part.get("filename")
            if not isinstance(url, str) or not isinstance(media_type, str):
                raise DecodeError("a file part needs a string url and mediaType", path=where)
            content.append(bk.DataBlock(source=_source(url, media_type, where),
                                        name=filename if isinstance(filename, str) else None))
    return UserMsg(name, list(content), id=str(message.get("id")))


def _source(url: str, media_type: str, where: str) -> bk.Base64Source | bk.URLSource:
    if url.startswith("data:"):
        head, sep, payload = url.partition(",")
        if not sep or not head.endswith(";base64"):
            raise DecodeError("a data URL of a file part must be base64", path=where + ".url")
        try:
            return bk.Base64Source(data=base64.b64decode(payload, validate=True), media_type=media_type)
        except ValueError as exc:
            raise DecodeError(f"the data URL's base64 is not valid: {exc}", path=where + ".url") from exc
    try:
        return bk.URLSource(url=url, media_type=media_type)
    except (ValueError, DecodeError) as exc:
        raise DecodeError(f"not a URL agentscope takes: {exc}", path=where + ".url") from exc


def chat_answer(message: dict[str, Any], reply: Msg) -> ev.UserConfirmResultEvent | ev.ExternalExecutionResultEvent \
        | None:
    """The answer the assistant UIMessage ``message`` carries for the parked
    reply ``reply`` (its Msg, read from the session), or None when it
    answers nothing:

    * its ``approval-responded`` tool parts (:func:`approval_answers`): a
      USER_CONFIRM_RESULT with a ConfirmResult per answer, each holding the
      reply's own call (a call the reply does not have is named as it is, so
      that the session refuses it by name);
    * else the outputs of calls the reply handed to the frontend and still
      waits for (``output-available`` / ``output-error`` parts of those ids;
      the parts of earlier hand-overs the client sends again are not
      answers): an EXTERNAL_EXECUTION_RESULT (``success`` with the output,
      text as is, any other value as its JSON; ``error`` with ``errorText``).
    """
    calls = {b.id: b for b in reply.content if type(b) is bk.ToolCallBlock}
    answers = approval_answers(message)
    if answers:
        results = [ev.ConfirmResult(confirmed=approved,
                                    tool_call=calls.get(call_id) or bk.ToolCallBlock(id=call_id, name="", input=""))
                   for call_id, approved in answers.items()]
        return ev.UserConfirmResultEvent(reply_id=reply.id, confirm_results=results)
    awaited = {call.id for call in waiting(reply).external}
    outputs: list[bk.ToolResultBlock] = []
    for i, part in enumerate(message.get("parts", [])):
        if not isinstance(part, dict) or part.get("toolCallId") not in awaited:
            continue
        state, call_id = part.get("state"), part["toolCallId"]
        if state == "output-available":
            value = part.get("output")
            try:
                text = value if isinstance(value, str) else msgspec.json.encode(value).decode()
            except ENCODE_ERRORS as exc:
                raise DecodeError(f"a tool output JSON cannot hold: {exc}", path=f"$.parts[{i}].output") from exc
            outputs.append(bk.ToolResultBlock(id=call_id, name=calls[call_id].name, output=text,
                                              state=bk.ToolResultState.SUCCESS))
        elif state == "output-error":
            error = part.get("errorText")
            if not isinstance(error, str):
                raise DecodeError("an output-error part needs a string errorText", path=f"$.parts[{i}].errorText")
            outputs.append(bk.ToolResultBlock(id=call_id, name=calls[call_id].name, output=error,
                                              state=bk.ToolResultState.ERROR))
    if outputs:
        return ev.ExternalExecutionResultEvent(reply_id=reply.id, execution_results=outputs)
    return None
