"""agentscope events to AG-UI events (the protocol of CopilotKit and ``@ag-ui/client``).

:class:`AGUIBridge` is a sans-IO fold over one reply: feed it agentscope
events, it returns the AG-UI events (dicts, camelCase, insertion-ordered) that
``@ag-ui/client`` 1.0.0 accepts and reduces into the same content. The
encoders write the bytes ``@ag-ui/encoder`` 1.0.0 writes for the same events:
``data: <JSON.stringify(event)>\\n\\n``. Nothing here does I/O; the Starlette
helper that serves an :class:`wire.stores.memory.EventLog` this way is
``wire.bridges.agui_http``. The mapping, lossy spots and deviations are
described in ``wire/bridges/README.md`` (section "AG-UI").

>>> import wire
>>> from wire.bridges.agui import AGUIBridge, encode_sse
>>> bridge = AGUIBridge()
>>> out = bridge.feed(wire.ReplyStartEvent(session_id="s1", reply_id="r1", name="Friday"))
>>> out += bridge.feed(wire.TextBlockStartEvent(reply_id="r1", block_id="b1"))
>>> out += bridge.feed(wire.TextBlockDeltaEvent(reply_id="r1", block_id="b1", delta="Hi"))
>>> out += bridge.feed(wire.ReplyEndEvent(session_id="s1", reply_id="r1"))
>>> [event["type"] for event in out]
['RUN_STARTED', 'TEXT_MESSAGE_START', 'TEXT_MESSAGE_CONTENT', 'TEXT_MESSAGE_END', 'RUN_FINISHED']
>>> encode_sse(out[2])
b'data: {"type":"TEXT_MESSAGE_CONTENT","messageId":"b1","delta":"Hi"}\\n\\n'
"""

from __future__ import annotations

import base64
from collections.abc import Callable, Iterable
from typing import Any, TypeAlias

import msgspec

import wire.json
from wire import blocks as bk
from wire import events as ev
from wire._codec import DECODE_ERRORS, ENCODE_ERRORS, decode_error
from wire.bridges._skeleton import gained, js_value
from wire.errors import DecodeError, EncodeError, LocalProtocolError, RemoteProtocolError
from wire.messages import AssistantMsg, Msg, UserMsg
from wire.session import CHECKPOINT, Session, blocks_once, read_checkpoint, waiting

__all__ = (
    "CONTENT_TYPE",
    "INCOMPLETE_CODE",
    "AGUIBridge",
    "AGUIEvent",
    "InputMessage",
    "ResumeEntry",
    "RunInput",
    "answer_of",
    "answered_ids",
    "encode_sse",
    "encode_sse_batch",
    "encode_sse_into",
    "parse_run_input",
    "to_agui",
    "to_agui_sse",
    "to_sse",
    "user_msgs",
)

AGUIEvent: TypeAlias = dict[str, Any]
"""One AG-UI event: a JSON object with a ``type``; absent fields are left out, never null."""

CONTENT_TYPE = "text/event-stream"
"""The media type ``@ag-ui/encoder`` answers with when the client does not ask for protobuf."""

INCOMPLETE_CODE = "agentscope.incomplete"
"""``RUN_ERROR.code`` of a run the input stopped inside (no REPLY_END, no park)."""

# The answer a confirmation interrupt expects (AG-UI Interrupt.responseSchema,
# a JSON Schema): approve or not, optionally with edited tool arguments.
_CONFIRM_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"approved": {"type": "boolean"}, "editedArgs": {"type": "object"}},
    "required": ["approved"],
}


# -- encoding ------------------------------------------------------------------------------------

_encoder = msgspec.json.Encoder()


# Events that carry free-form values (metadata, CUSTOM values, tool input):
# their numbers and keys are written the JavaScript way (``wire.bridges._skeleton.js_value``). The others
# hold only strings and integers the bridge made, and skip the walk.
_FREE_FORM = frozenset({"CUSTOM", "RAW", "TOOL_CALL_RESULT", "RUN_STARTED", "RUN_FINISHED", "RUN_ERROR",
                        "ACTIVITY_SNAPSHOT", "TEXT_MESSAGE_END", "STEP_FINISHED"})


def encode_sse(event: AGUIEvent) -> bytes:
    """One AG-UI event as ``@ag-ui/encoder``'s ``EventEncoder.encode`` writes it."""
    buf = bytearray()
    encode_sse_into(event, buf)
    return bytes(buf)


def encode_sse_into(event: AGUIEvent, buf: bytearray) -> None:
    """Append one event's SSE frame to ``buf`` (no intermediate bytes object)."""
    start = len(buf)
    try:
        buf += b"data: "
        _encoder.encode_into(js_value(event) if event.get("type") in _FREE_FORM else event, buf, -1)
    except _ENCODE_ERRORS as exc:
        del buf[start:]
        raise _encode_error(event, exc) from exc
    buf += b"\n\n"


# What encoding raises on a value JSON cannot hold: a lone surrogate in a str
# (JSON.stringify would escape it; wire refuses, as its own codecs do), a
# non-str key, an object of another type, nesting too deep.
_ENCODE_ERRORS = (*ENCODE_ERRORS, RecursionError)


def _encode_error(event: Any, exc: BaseException) -> EncodeError:
    kind = event.get("type") if isinstance(event, dict) else type(event).__name__
    return EncodeError(f"cannot encode the AG-UI event {kind!r}: {exc}")


def encode_sse_batch(events: Iterable[AGUIEvent]) -> bytes:
    """Several events' SSE frames, concatenated."""
    buf = bytearray()
    encode_into = _encoder.encode_into
    free_form = _FREE_FORM
    event: Any = None
    try:
        for event in events:  # encode_sse_into, inlined: this loop is most of the time
            buf += b"data: "
            encode_into(js_value(event) if event["type"] in free_form else event, buf, -1)
            buf += b"\n\n"
    except (*_ENCODE_ERRORS, KeyError) as exc:
        raise _encode_error(event, exc) from exc
    return bytes(buf)


def _builtins(obj: Any) -> Any:
    """A wire Struct (blocks, rules) as agentscope's JSON, as plain objects."""
    return msgspec.json.decode(wire.json.encode(obj))


# -- the bridge ----------------------------------------------------------------------------------


class AGUIBridge:
    """One reply's agentscope events to AG-UI events, as ``@ag-ui/client`` 1.0.0
    reduces them (``wire/bridges/README.md``, "AG-UI", has the whole mapping).

    :meth:`feed` takes the reply's events in order and returns the AG-UI
    events each one produces (often none or one, sometimes several: a park
    closes everything open first). :meth:`close` ends the input: a run still
    open then ends with ``RUN_ERROR`` coded :data:`INCOMPLETE_CODE`.

    The reply is the one named by ``reply_id``, or by the first event that
    names one; events of other replies are dropped, as ``Msg.append_event``
    drops them. ``CUSTOM`` events have no reply and always pass.

    Runs: the reply's first REPLY_START opens a run (``runId`` = the reply id,
    ``threadId`` = the session id). A park (REQUIRE_USER_CONFIRM: a run ending
    with an interrupt outcome; REQUIRE_EXTERNAL_EXECUTION: success with
    ``pendingToolCallIds``) ends it, and the continuation's REPLY_START opens
    ``f"{reply_id}.{k}"``, whose ``input.resume`` answers the interrupts from
    USER_CONFIRM_RESULT. Events that arrive between runs are held and sent
    right after the next RUN_STARTED (``pending`` shows them).
    """

    def __init__(self, *, reply_id: str | None = None, thread_id: str | None = None) -> None:
        self.reply_id = reply_id
        self.thread_id = thread_id
        self.run_id: str | None = None
        self.runs = 0
        self.pending: list[AGUIEvent] = []
        """Events held for the next run (produced while no run was open)."""
        self._run_open = False
        self._started: AGUIEvent = {}  # the open run's RUN_STARTED
        self._name: str | None = None
        self._role = "assistant"
        # Open constructs, in the order they opened (dicts keep it).
        self._texts: dict[str, list[str]] = {}  # every text block seen -> its streamed parts
        self._open_texts: dict[str, None] = {}
        self._thinking: dict[str, list[str]] = {}  # every thinking block seen -> its streamed parts
        self._open_thinking: dict[str, None] = {}
        self._calls: dict[str, tuple[str, str]] = {}  # id -> (name, parentMessageId)
        self._args: dict[str, list[str]] = {}  # id -> the argument fragments sent
        self._open_calls: dict[str, None] = {}
        self._hints: dict[str, AGUIEvent] = {}  # id -> the content of its last activity snapshot
        self._step: str | None = None
        self._model: str | None = None
        self._model_calls = 0
        self._parent: str | None = None  # last assistant text block of this model call
        self._usage: dict[str | None, list[int]] = {}  # this run's usage per model
        self._reported = [0, 0, 0, 0]  # the usage the runs that ended have reported
        self._finished = False  # REPLY_END sent: the client has the whole reply
        self._parked: set[str] = set()  # calls a run's outcome has left to the client
        # Tool results and data blocks are folded by wire's own reducer (the
        # exact merge rules of append_event); only their events go into it.
        self._fold: Msg | None = None
        self._results: dict[str, bk.ToolResultBlock] = {}
        self._sent_results: set[str] = set()
        self._data: dict[str, bk.DataBlock] = {}
        self._data_done: set[str] = set()
        # The park the next run continues from.
        self._interrupts: list[str] = []
        self._resume: dict[str, AGUIEvent] = {}
        self._handlers: dict[type, Callable[[Any, list[AGUIEvent]], None]] = {
            ev.ReplyStartEvent: self._reply_start,
            ev.ReplyEndEvent: self._reply_end,
            ev.ModelCallStartEvent: self._model_call_start,
            ev.ModelCallEndEvent: self._model_call_end,
            ev.TextBlockStartEvent: self._text_start,
            ev.TextBlockDeltaEvent: self._text_delta,
            ev.TextBlockEndEvent: self._text_end,
            ev.ThinkingBlockStartEvent: self._thinking_start,
            ev.ThinkingBlockDeltaEvent: self._thinking_delta,
            ev.ThinkingBlockEndEvent: self._thinking_end,
            ev.DataBlockStartEvent: self._data_start,
            ev.DataBlockDeltaEvent: self._data_delta,
            ev.DataBlockEndEvent: self._data_end,
            ev.HintBlockEvent: self._hint,
            ev.ToolCallStartEvent: self._call_start,
            ev.ToolCallDeltaEvent: self._call_delta,
            ev.ToolCallEndEvent: self._call_end,
            ev.ToolResultStartEvent: self._result_start,
            ev.ToolResultTextDeltaEvent: self._result_fold,
            ev.ToolResultDataDeltaEvent: self._result_fold,
            ev.ToolResultEndEvent: self._result_end,
            ev.ExceedMaxItersEvent: self._exceed_max_iters,
            ev.RequireUserConfirmEvent: self._require_confirm,
            ev.RequireExternalExecutionEvent: self._require_external,
            ev.UserConfirmResultEvent: self._confirm_result,
            ev.UserInterruptEvent: self._user_interrupt,
            ev.ExternalExecutionResultEvent: self._external_result,
            ev.CustomEvent: self._custom,
        }

    # -- driving -------------------------------------------------------------------------------

    def feed(self, event: ev.AgentEvent | ev.UnknownEvent) -> list[AGUIEvent]:
        """The AG-UI events that ``event`` produces, in order."""
        out: list[AGUIEvent] = []
        self._feed_into(event, out)
        return out

    def feed_all(self, events: Iterable[ev.AgentEvent | ev.UnknownEvent]) -> list[AGUIEvent]:
        """The AG-UI events that ``events`` produce, in order (the name
        ``VercelBridge`` gives it too; ``feed_many`` is the older name)."""
        out: list[AGUIEvent] = []
        feed = self._feed_into
        texts, open_texts = self._texts, self._open_texts
        for event in events:
            # Text deltas are most of a reply: the common case (an open block
            # of this reply, inside a run) of _text_delta, without two calls.
            if type(event) is ev.TextBlockDeltaEvent and self._run_open and event.reply_id == self.reply_id:
                id = event.block_id
                parts = texts.get(id)
                if parts is not None and id in open_texts:
                    delta = event.delta
                    parts.append(delta)
                    out.append({"type": "TEXT_MESSAGE_CONTENT", "messageId": id, "delta": delta})
                    continue
            feed(event, out)
        return out

    feed_many = feed_all

    def _feed_into(self, event: ev.AgentEvent | ev.UnknownEvent, out: list[AGUIEvent]) -> None:
        cls = type(event)
        if cls is ev.UnknownEvent:
            self._unknown(event, out)  # type: ignore[arg-type]
            return
        handler = self._handlers.get(cls)
        if handler is None:
            raise LocalProtocolError(f"AGUIBridge.feed() takes agentscope events, not {cls.__name__}")
        if cls is not ev.CustomEvent:  # every other event names its reply
            reply_id = event.reply_id  # type: ignore[union-attr]
            if reply_id != self.reply_id:
                if self.reply_id is not None:
                    return
                self.reply_id = reply_id
        handler(event, out)

    def close(self) -> list[AGUIEvent]:
        """End of input. A run still open is closed and ends with ``RUN_ERROR``
        (:data:`INCOMPLETE_CODE`); so do events held for a continuation that
        never started, after a run that delivers them."""
        out: list[AGUIEvent] = []
        if not self._run_open and self.pending:
            self._open_run(out)
        if self._run_open:
            self._close_all(out)
            error: AGUIEvent = {"type": "RUN_ERROR",
                                "message": "the agentscope event stream ended before REPLY_END",
                                "code": INCOMPLETE_CODE}
            self._add_usage(error)
            self._run_open = False
            out.append(error)
        return out

    # -- runs ----------------------------------------------------------------------------------

    def _emit(self, out: list[AGUIEvent], event: AGUIEvent) -> None:
        """Send ``event`` now, or hold it for the next run if none is open."""
        (out if self._run_open else self.pending).append(event)

    def _open_run(self, out: list[AGUIEvent]) -> None:
        reply_id = self.reply_id or ""
        run_id = reply_id if self.runs == 0 else f"{reply_id}.{self.runs}"
        self.runs += 1
        self.run_id = run_id
        thread_id = self.thread_id or ""
        started: AGUIEvent = {"type": "RUN_STARTED", "threadId": thread_id, "runId": run_id}
        if self._interrupts:
            resume = [self._resume.get(id) or {"interruptId": id, "status": "cancelled"}
                      for id in self._interrupts]
            started["input"] = {"threadId": thread_id, "runId": run_id, "messages": [], "resume": resume}
        self._interrupts = []
        self._resume = {}
        self._run_open = True
        self._started = started
        out.append(started)
        out += self.pending
        self.pending = []

    def _close_all(self, out: list[AGUIEvent]) -> None:
        """End everything open: AG-UI rejects RUN_FINISHED while anything is."""
        for id in self._open_texts:
            out.append({"type": "TEXT_MESSAGE_END", "messageId": id})
        self._open_texts.clear()
        for id in self._open_thinking:
            out.append({"type": "REASONING_MESSAGE_END", "messageId": id})
            out.append({"type": "REASONING_END", "messageId": id})
        self._open_thinking.clear()
        for id in self._open_calls:
            out.append({"type": "TOOL_CALL_END", "toolCallId": id})
        self._open_calls.clear()
        if self._step is not None:
            out.append({"type": "STEP_FINISHED", "stepName": self._step})
            self._step = None

    def _add_usage(self, event: AGUIEvent) -> None:
        """Put the run's usage on the event that ends it, and start counting
        the next run's (calls that end between runs count in the next one)."""
        if not self._usage:
            return
        usage = []
        for model, counts in self._usage.items():
            self._reported = [r + c for r, c in zip(self._reported, counts, strict=True)]
            inp, outp, cached, written = counts
            entry: AGUIEvent = {} if model is None else {"model": model}
            entry.update(inputTokens=inp, outputTokens=outp, totalTokens=inp + outp,
                         cachedInputTokens=cached, cacheWriteInputTokens=written)
            usage.append(entry)
        event["usage"] = usage
        self._usage = {}

    def _finish_run(self, out: list[AGUIEvent], outcome: AGUIEvent, agentscope: AGUIEvent) -> None:
        self._close_all(out)
        finished: AGUIEvent = {"type": "RUN_FINISHED", "metadata": {"agentscope": agentscope},
                               "threadId": self.thread_id or "", "runId": self.run_id or "", "outcome": outcome}
        self._add_usage(finished)
        self._run_open = False
        out.append(finished)

    # -- lifecycle -----------------------------------------------------------------------------

    def _reply_start(self, e: ev.ReplyStartEvent, out: list[AGUIEvent]) -> None:
        self._name = e.name
        self._role = e.role
        if self.thread_id is None:
            self.thread_id = e.session_id
        if not self._run_open:
            self._open_run(out)

    def _reply_end(self, e: ev.ReplyEndEvent, out: list[AGUIEvent]) -> None:
        self._finished = True
        if self.thread_id is None:
            self.thread_id = e.session_id
        if not self._run_open:
            self._open_run(out)  # a parked reply that ends without a continuation
        reason = e.finished_reason
        if reason == ev.ReplyFinishedReason.ERROR:
            self._close_all(out)
            error: AGUIEvent = {"type": "RUN_ERROR", "metadata": {"agentscope": {"finished_reason": str(reason)}},
                                "message": e.error.message if e.error else "the agent reported an error"}
            if e.error is not None:
                error["code"] = str(e.error.type)
            self._add_usage(error)
            self._run_open = False
            out.append(error)
            return
        outcome = {"type": "cancelled" if reason == ev.ReplyFinishedReason.INTERRUPTED else "success"}
        self._finish_run(out, outcome, {"finished_reason": str(reason)})

    def _model_call_start(self, e: ev.ModelCallStartEvent, out: list[AGUIEvent]) -> None:
        if self._step is not None:
            self._emit(out, {"type": "STEP_FINISHED", "stepName": self._step})
        self._step = self._model = e.model_name
        self._model_calls += 1
        self._parent = None
        self._emit(out, {"type": "STEP_STARTED", "stepName": e.model_name})

    def _model_call_end(self, e: ev.ModelCallEndEvent, out: list[AGUIEvent]) -> None:
        counts = self._usage.setdefault(self._model, [0, 0, 0, 0])
        counts[0] += e.input_tokens
        counts[1] += e.output_tokens
        counts[2] += e.cache_input_tokens
        counts[3] += e.cache_creation_input_tokens
        if self._step is None:
            return  # no open step to finish (END without START, or held between runs)
        self._emit(out, {"type": "STEP_FINISHED", "metadata": {"agentscope": {
            "input_tokens": e.input_tokens, "output_tokens": e.output_tokens,
            "cache_input_tokens": e.cache_input_tokens,
            "cache_creation_input_tokens": e.cache_creation_input_tokens,
            "finished_reason": str(e.finished_reason)}}, "stepName": self._step})
        self._step = None

    # -- text and thinking ---------------------------------------------------------------------

    def _text_message_start(self, id: str) -> AGUIEvent:
        start: AGUIEvent = {"type": "TEXT_MESSAGE_START", "messageId": id, "role": self._role}
        if self._name is not None:
            start["name"] = self._name
        return start

    def _text_start(self, e: ev.TextBlockStartEvent, out: list[AGUIEvent]) -> None:
        id = e.block_id
        if id in self._texts:
            return  # duplicate START: agentscope keeps the first block
        self._texts[id] = []
        self._open_texts[id] = None
        if self._role == "assistant":
            self._parent = id
        self._emit(out, self._text_message_start(id))

    def _text_delta(self, e: ev.TextBlockDeltaEvent, out: list[AGUIEvent]) -> None:
        id = e.block_id
        parts = self._texts.get(id)
        if parts is None:
            return  # before its START: agentscope drops it too
        delta = e.delta
        parts.append(delta)
        if id not in self._open_texts:  # after END: agentscope still appends, so re-open
            self._open_texts[id] = None
            self._emit(out, self._text_message_start(id))
        # The hot path (most events of a reply): _emit inlined.
        (out if self._run_open else self.pending).append(
            {"type": "TEXT_MESSAGE_CONTENT", "messageId": id, "delta": delta})

    def _text_end(self, e: ev.TextBlockEndEvent, out: list[AGUIEvent]) -> None:
        id = e.block_id
        parts = self._texts.get(id)
        if parts is None:
            return
        end: AGUIEvent = {"type": "TEXT_MESSAGE_END", "messageId": id}
        if e.text is not None:
            rest = gained("".join(parts), e.text)
            if rest != "":
                if rest is not None:  # an extension: send the rest as content
                    self._text_delta(ev.TextBlockDeltaEvent(reply_id=e.reply_id, block_id=id, delta=rest), out)
                else:  # AG-UI cannot replace a message's content: carried in metadata
                    end = {"type": "TEXT_MESSAGE_END", "metadata": {"agentscope": {"text": e.text}},
                           "messageId": id}
                    if id not in self._open_texts:
                        self._open_texts[id] = None
                        self._emit(out, self._text_message_start(id))
                parts[:] = [e.text]
        if id in self._open_texts:
            del self._open_texts[id]
            self._emit(out, end)

    def _thinking_open(self, id: str, out: list[AGUIEvent]) -> None:
        self._open_thinking[id] = None
        self._emit(out, {"type": "REASONING_START", "messageId": id})
        self._emit(out, {"type": "REASONING_MESSAGE_START", "messageId": id, "role": "reasoning"})

    def _thinking_start(self, e: ev.ThinkingBlockStartEvent, out: list[AGUIEvent]) -> None:
        if e.block_id in self._thinking:
            return
        self._thinking[e.block_id] = []
        self._thinking_open(e.block_id, out)

    def _thinking_delta(self, e: ev.ThinkingBlockDeltaEvent, out: list[AGUIEvent]) -> None:
        id = e.block_id
        parts = self._thinking.get(id)
        if parts is None:
            return
        parts.append(e.delta)
        if id not in self._open_thinking:
            self._thinking_open(id, out)
        self._emit(out, {"type": "REASONING_MESSAGE_CONTENT", "messageId": id, "delta": e.delta})

    def _thinking_end(self, e: ev.ThinkingBlockEndEvent, out: list[AGUIEvent]) -> None:
        id = e.block_id
        if id in self._open_thinking:
            del self._open_thinking[id]
            self._emit(out, {"type": "REASONING_MESSAGE_END", "messageId": id})
            self._emit(out, {"type": "REASONING_END", "messageId": id})

    # -- data blocks and hints -----------------------------------------------------------------

    def _folded(self, event: ev.AgentEvent) -> Msg:
        """Apply ``event`` to the private Msg that folds results and data blocks."""
        if self._fold is None:
            self._fold = AssistantMsg(self._name or "", [], id=self.reply_id)
        self._fold.append_event(event)
        return self._fold

    def _data_start(self, e: ev.DataBlockStartEvent, out: list[AGUIEvent]) -> None:
        if e.block_id in self._data:
            return
        content = self._folded(e).content
        block = content[-1] if content else None
        if not isinstance(block, bk.DataBlock) or block.id != e.block_id:
            return
        self._data[e.block_id] = block
        body: AGUIEvent = {"status": "streaming", "mediaType": e.media_type}
        if e.name is not None:
            body["name"] = e.name
        self._emit(out, {"type": "ACTIVITY_SNAPSHOT", "messageId": e.block_id,
                         "activityType": "agentscope.data", "content": body})

    def _data_delta(self, e: ev.DataBlockDeltaEvent, out: list[AGUIEvent]) -> None:
        if e.block_id not in self._data:
            return
        self._folded(e)
        if e.block_id in self._data_done:  # after END (agentscope still applies it): send it again
            self._emit(out, self._data_snapshot(self._data[e.block_id]))

    def _data_end(self, e: ev.DataBlockEndEvent, out: list[AGUIEvent]) -> None:
        block = self._data.get(e.block_id)
        if block is None or e.block_id in self._data_done:
            return
        self._folded(e)
        self._data_done.add(e.block_id)
        self._emit(out, self._data_snapshot(block))

    @staticmethod
    def _source(block: bk.DataBlock) -> AGUIEvent:
        """A DataBlock's source as AG-UI's PartSource (DataSource or UrlSource)."""
        source = block.source
        if isinstance(source, bk.Base64Source):
            return {"type": "data", "value": base64.b64encode(source.data).decode("ascii"),
                    "mimeType": source.media_type}
        return {"type": "url", "value": source.url, "mimeType": source.media_type}

    def _data_snapshot(self, block: bk.DataBlock) -> AGUIEvent:
        body: AGUIEvent = {"status": "done", "mediaType": block.source.media_type}
        if block.name is not None:
            body["name"] = block.name
        body["source"] = self._source(block)
        return {"type": "ACTIVITY_SNAPSHOT", "messageId": block.id, "activityType": "agentscope.data",
                "content": body}

    def _hint(self, e: ev.HintBlockEvent, out: list[AGUIEvent]) -> None:
        body: AGUIEvent = {"hint": e.hint if isinstance(e.hint, str) else _builtins(e.hint)}
        if e.source is not None:
            body["source"] = e.source
        self._hints[e.block_id] = body
        self._emit(out, {"type": "ACTIVITY_SNAPSHOT", "messageId": e.block_id,
                         "activityType": "agentscope.hint", "content": body})

    # -- tool calls and results ----------------------------------------------------------------

    def _call_start_event(self, id: str) -> AGUIEvent:
        name, parent = self._calls[id]
        return {"type": "TOOL_CALL_START", "toolCallId": id, "toolCallName": name, "parentMessageId": parent}

    def _call_start(self, e: ev.ToolCallStartEvent, out: list[AGUIEvent]) -> None:
        id = e.tool_call_id
        if id in self._calls:
            return
        # Calls of one model call share one assistant message, as providers send them.
        parent = self._parent or f"{self.reply_id}.call{self._model_calls}"
        self._calls[id] = (e.tool_call_name, parent)
        self._args[id] = []
        self._open_calls[id] = None
        self._emit(out, self._call_start_event(id))

    def _call_delta(self, e: ev.ToolCallDeltaEvent, out: list[AGUIEvent]) -> None:
        id = e.tool_call_id
        if id not in self._calls:
            return
        if id not in self._open_calls:  # after END: agentscope appends, the client re-opens
            self._open_calls[id] = None
            self._emit(out, self._call_start_event(id))
        self._args[id].append(e.delta)
        self._emit(out, {"type": "TOOL_CALL_ARGS", "toolCallId": id, "delta": e.delta})

    def _call_end(self, e: ev.ToolCallEndEvent, out: list[AGUIEvent]) -> None:
        if e.tool_call_id in self._open_calls:
            del self._open_calls[e.tool_call_id]
            self._emit(out, {"type": "TOOL_CALL_END", "toolCallId": e.tool_call_id})

    def _result_start(self, e: ev.ToolResultStartEvent, out: list[AGUIEvent]) -> None:
        if e.tool_call_id in self._results:
            return
        content = self._folded(e).content
        block = content[-1] if content else None
        if isinstance(block, bk.ToolResultBlock) and block.id == e.tool_call_id:
            self._results[e.tool_call_id] = block

    def _result_fold(self, e: ev.ToolResultTextDeltaEvent | ev.ToolResultDataDeltaEvent, out: list[AGUIEvent]) -> None:
        if e.tool_call_id in self._results:
            self._folded(e)

    def _result_end(self, e: ev.ToolResultEndEvent, out: list[AGUIEvent]) -> None:
        id = e.tool_call_id
        block = self._results.get(id)
        if block is None or id in self._sent_results:
            return  # no START (agentscope ignores the END), or already sent once
        self._folded(e)
        if id in self._open_calls:
            del self._open_calls[id]
            self._emit(out, {"type": "TOOL_CALL_END", "toolCallId": id})
        self._emit(out, self._tool_result(block))

    def _tool_result(self, block: bk.ToolResultBlock) -> AGUIEvent:
        """TOOL_CALL_RESULT for a finished result; its state has no field in the event."""
        self._sent_results.add(block.id)
        output = block.output
        content: str | list[AGUIEvent]
        if isinstance(output, str):
            content = output
        elif len(output) == 1 and isinstance(output[0], bk.TextBlock):
            content = output[0].text
        else:
            content = []
            for part in output:
                if isinstance(part, bk.TextBlock):
                    content.append({"type": "text", "text": part.text})
                else:
                    kind = part.source.media_type.partition("/")[0]
                    content.append({"type": kind if kind in ("image", "audio", "video") else "document",
                                    "id": part.id, "source": self._source(part)})
        return {"type": "TOOL_CALL_RESULT",
                "metadata": {"agentscope": {"state": str(block.state), "name": block.name,
                                            "metadata": block.metadata}},
                "messageId": f"{block.id}.result", "toolCallId": block.id, "content": content, "role": "tool"}

    # -- human in the loop ---------------------------------------------------------------------

    def _park_calls(self, calls: list[bk.ToolCallBlock]) -> list[bk.ToolCallBlock]:
        """The calls of a park the client knows; all of them if it knows none."""
        known = [call for call in calls if call.id in self._calls]
        return known or calls

    def _require_confirm(self, e: ev.RequireUserConfirmEvent, out: list[AGUIEvent]) -> None:
        calls = self._park_calls(e.tool_calls)
        if not calls:  # an interrupt outcome needs at least one interrupt
            self._custom_named("agentscope.require_user_confirm", e, out)
            return
        interrupts: list[AGUIEvent] = []
        for call in calls:
            interrupts.append({
                "id": f"{call.id}.confirm", "reason": "tool_call", "message": f"Allow the call to {call.name}?",
                "toolCallId": call.id, "responseSchema": _CONFIRM_SCHEMA,
                "metadata": {"agentscope": {"tool_name": call.name, "input": call.input,
                                            "suggested_rules": _builtins(call.suggested_rules)}}})
        if not self._run_open:
            self._open_run(out)
        self._finish_run(out, {"type": "interrupt", "interrupts": interrupts}, {"parked": "user_confirm"})
        self._interrupts = [f"{call.id}.confirm" for call in calls]
        self._parked.update(call.id for call in calls)

    def _require_external(self, e: ev.RequireExternalExecutionEvent, out: list[AGUIEvent]) -> None:
        calls = self._park_calls(e.tool_calls)
        if not self._run_open:
            self._open_run(out)
        outcome: AGUIEvent = {"type": "success", "pendingToolCallIds": [call.id for call in calls]}
        self._finish_run(out, outcome, {"parked": "external_execution"})
        self._parked.update(call.id for call in calls)

    def _confirm_result(self, e: ev.UserConfirmResultEvent, out: list[AGUIEvent]) -> None:
        for result in e.confirm_results:
            interrupt = f"{result.tool_call.id}.confirm"
            payload: AGUIEvent = {"approved": result.confirmed}
            try:
                args = msgspec.json.decode(result.tool_call.input or "{}")
            except DECODE_ERRORS:
                args = None
            if isinstance(args, dict):
                payload["editedArgs"] = args
            entry: AGUIEvent = {"interruptId": interrupt, "status": "resolved", "payload": payload}
            if result.rules is not None:
                entry["metadata"] = {"agentscope": {"rules": _builtins(result.rules)}}
            self._resume[interrupt] = entry
        self._custom_named("agentscope.user_confirm_result", e, out)

    def _user_interrupt(self, e: ev.UserInterruptEvent, out: list[AGUIEvent]) -> None:
        self._emit(out, {"type": "CUSTOM", "name": "agentscope.user_interrupt", "value": {"reply_id": e.reply_id}})

    def _external_result(self, e: ev.ExternalExecutionResultEvent, out: list[AGUIEvent]) -> None:
        fresh = [result for result in e.execution_results
                 if result.id not in self._results and result.id not in self._sent_results]
        self._folded(e)
        for result in fresh:
            if result.id not in self._sent_results:  # one tool message per call
                self._emit(out, self._tool_result(result))
        self._custom_named("agentscope.external_execution_result", e, out)

    # -- one-shot ------------------------------------------------------------------------------

    def _custom_named(self, name: str, e: ev.AgentEvent, out: list[AGUIEvent]) -> None:
        """A CUSTOM event carrying ``e`` whole, as agentscope's JSON."""
        value = msgspec.json.decode(wire.json.encode(e))
        self._emit(out, {"type": "CUSTOM", "name": name, "value": value})

    def _exceed_max_iters(self, e: ev.ExceedMaxItersEvent, out: list[AGUIEvent]) -> None:
        self._emit(out, {"type": "CUSTOM", "name": "agentscope.exceed_max_iters", "value": {"name": e.name}})

    def _custom(self, e: ev.CustomEvent, out: list[AGUIEvent]) -> None:
        if e.name == CHECKPOINT:
            msg = read_checkpoint(e)
            if msg is not None:
                self._checkpoint(msg, out)
            return
        self._emit(out, {"type": "CUSTOM", "name": e.name, "value": e.value})

    # -- checkpoints -----------------------------------------------------------------------------

    def join(self, msg: Msg) -> list[AGUIEvent]:
        """The AG-UI events that bring a client from what this bridge has sent
        to ``msg`` (the reply so far, e.g. a checkpoint's Msg); on a new bridge,
        the join prelude of a client that arrives mid-run: RUN_STARTED, the
        reply's content so far, a START left open for every block that has
        not ended (the deltas that follow continue it), and the run's end if
        the reply has ended or parked. Feeding a ``wire.checkpoint`` event
        does the same."""
        out: list[AGUIEvent] = []
        self._checkpoint(msg, out)
        return out

    def rejoin(self) -> list[AGUIEvent]:
        """The join prelude of a client that reconnects mid-run (``Last-Event-ID``)
        and has everything this bridge has produced so far: feed the bridge the
        events up to the client's last one (dropping what it returns), then send
        this and go on with the events after it. AG-UI checks each request's
        events on their own, so the new response opens the run again
        (RUN_STARTED, same ``runId``) and re-STARTs every message, reasoning
        message and tool call still open (the client reuses the message of a
        known id and appends to it), and the open step. A continuation's
        RUN_STARTED carries the ``resume`` entries again: the client clears its
        pending interrupts only when a run ends. Empty when no run is open (the
        reply ended or parked: the next request asks for the next run)."""
        if not self._run_open:
            return []
        # The run's own RUN_STARTED again, with the resume entries it answered a park with.
        out: list[AGUIEvent] = [dict(self._started)]
        if self._step is not None:
            out.append({"type": "STEP_STARTED", "stepName": self._step})
        out += [self._text_message_start(id) for id in self._open_texts]
        for id in self._open_thinking:
            out.append({"type": "REASONING_START", "messageId": id})
            out.append({"type": "REASONING_MESSAGE_START", "messageId": id, "role": "reasoning"})
        out += [self._call_start_event(id) for id in self._open_calls]
        return out

    def results_known(self, tool_call_ids: Iterable[str]) -> None:
        """The client holds these calls' results already (it sent them, as the
        tool messages that answered an external execution): no
        ``TOOL_CALL_RESULT`` is sent for them, as the client would hold two
        tool messages for one call."""
        self._sent_results.update(tool_call_ids)

    def _checkpoint(self, msg: Msg, out: list[AGUIEvent]) -> None:
        """Catch the client up with ``msg``, the reply as a checkpoint has it:
        what the client lacks of each block is sent as the events the live
        stream would have sent (a new block: its START, its content so far,
        its END if it ended; a known one: the content it missed), then the
        run's state (ended, parked, or going on)."""
        if self.reply_id is None:
            self.reply_id = msg.id
        elif msg.id != self.reply_id:
            return  # another reply's checkpoint, as append_event drops its events
        if self._finished:
            return  # the client has the whole reply already
        self._name, self._role = msg.name, msg.role
        if self.thread_id is None:
            self.thread_id = ""  # a checkpoint has no session id; the REPLY_START's would come too late
        # The checkpoint's Msg becomes the fold of results and data blocks.
        self._fold = msg
        if not self._run_open and self.runs == 0:
            self._open_run(out)
        calls: list[bk.ToolCallBlock] = []
        parent = self._parent
        held = len(self.pending)
        for block in blocks_once(msg):
            if isinstance(block, bk.TextBlock):
                self._catch_up_text(block, out)
                if self._role == "assistant":
                    parent = block.id
            elif isinstance(block, bk.ThinkingBlock):
                self._catch_up_thinking(block, out)
            elif isinstance(block, bk.ToolCallBlock):
                calls.append(block)
                if block.id in self._calls:
                    parent = self._calls[block.id][1]
                else:
                    if parent is None:  # the calls of one model call share a message
                        self._model_calls += 1
                        parent = f"{self.reply_id}.call{self._model_calls}"
                    self._calls[block.id] = (block.name, parent)
                    self._args[block.id] = []
                    self._open_calls[block.id] = None
                    self._emit(out, self._call_start_event(block.id))
                self._catch_up_call(block, out)
            elif isinstance(block, bk.ToolResultBlock):
                parent = None  # results end a model call: its next calls get a new message
                self._results[block.id] = block
                if block.finished_at is not None and block.id not in self._sent_results:
                    if block.id in self._open_calls:
                        del self._open_calls[block.id]
                        self._emit(out, {"type": "TOOL_CALL_END", "toolCallId": block.id})
                    self._emit(out, self._tool_result(block))
            elif isinstance(block, bk.DataBlock):
                self._catch_up_data(block, out)
            elif isinstance(block, bk.HintBlock):
                body: AGUIEvent = {"hint": block.hint if isinstance(block.hint, str) else _builtins(block.hint)}
                if block.source is not None:
                    body["source"] = block.source
                if self._hints.get(block.id) != body:
                    self._hints[block.id] = body
                    self._emit(out, {"type": "ACTIVITY_SNAPSHOT", "messageId": block.id,
                                     "activityType": "agentscope.hint", "content": body})
        self._parent = parent
        self._catch_up_usage(msg)
        if msg.finished_reason is not None:
            self._reply_end(ev.ReplyEndEvent(session_id=self.thread_id, reply_id=msg.id,
                                          finished_reason=msg.finished_reason, error=msg.error), out)
            return
        parked = waiting(msg)
        asking, handed = parked.confirm, parked.external
        if new := [c for c in asking if c.id not in self._parked]:
            self._require_confirm(ev.RequireUserConfirmEvent(reply_id=msg.id, tool_calls=new), out)
        elif new := [c for c in handed if c.id not in self._parked]:
            self._require_external(ev.RequireExternalExecutionEvent(reply_id=msg.id, tool_calls=new), out)
        elif not asking and not handed and not self._run_open and len(self.pending) > held:
            # The reply went on after a park the client has, and the checkpoint
            # has content for it: the continuation run (else its REPLY_START opens
            # it), answering the park's interrupts from the calls' states where
            # no USER_CONFIRM_RESULT came.
            states = {c.id: c.state for c in calls}
            for interrupt in self._interrupts:
                state = states.get(interrupt.removesuffix(".confirm"))
                if interrupt not in self._resume and state in (bk.ToolCallState.ALLOWED, bk.ToolCallState.FINISHED):
                    self._resume[interrupt] = {"interruptId": interrupt, "status": "resolved",
                                               "payload": {"approved": state == bk.ToolCallState.ALLOWED}}
            self._open_run(out)

    def _catch_up_text(self, block: bk.TextBlock, out: list[AGUIEvent]) -> None:
        id = block.id
        parts = self._texts.get(id)
        if parts is None:
            parts = self._texts[id] = []
            self._open_texts[id] = None
            if self._role == "assistant":
                self._parent = id
            self._emit(out, self._text_message_start(id))
        rest = gained("".join(parts), block.text)
        end: AGUIEvent = {"type": "TEXT_MESSAGE_END", "messageId": id}
        if rest != "":
            if id not in self._open_texts:
                self._open_texts[id] = None
                self._emit(out, self._text_message_start(id))
            if rest is not None:
                self._emit(out, {"type": "TEXT_MESSAGE_CONTENT", "messageId": id, "delta": rest})
            else:  # as a TEXT_BLOCK_END text that replaces: the message's content cannot be replaced
                end = {"type": "TEXT_MESSAGE_END", "metadata": {"agentscope": {"text": block.text}}, "messageId": id}
                if block.finished_at is None:
                    self._emit(out, end)
                    self._emit(out, self._text_message_start(id))
            parts[:] = [block.text]
        if block.finished_at is not None and id in self._open_texts:
            del self._open_texts[id]
            self._emit(out, end)

    def _catch_up_thinking(self, block: bk.ThinkingBlock, out: list[AGUIEvent]) -> None:
        id = block.id
        parts = self._thinking.get(id)
        if parts is None:
            parts = self._thinking[id] = []
            self._thinking_open(id, out)
        if rest := gained("".join(parts), block.thinking):
            if id not in self._open_thinking:
                self._thinking_open(id, out)
            self._emit(out, {"type": "REASONING_MESSAGE_CONTENT", "messageId": id, "delta": rest})
            parts[:] = [block.thinking]
        if block.finished_at is not None and id in self._open_thinking:
            self._thinking_end(ev.ThinkingBlockEndEvent(reply_id=self.reply_id or "", block_id=id), out)

    def _catch_up_call(self, block: bk.ToolCallBlock, out: list[AGUIEvent]) -> None:
        id = block.id
        if rest := gained("".join(self._args[id]), block.input):
            if id not in self._open_calls:
                self._open_calls[id] = None
                self._emit(out, self._call_start_event(id))
            self._emit(out, {"type": "TOOL_CALL_ARGS", "toolCallId": id, "delta": rest})
            self._args[id][:] = [block.input]
        if block.finished_at is not None and id in self._open_calls:
            del self._open_calls[id]
            self._emit(out, {"type": "TOOL_CALL_END", "toolCallId": id})

    def _catch_up_data(self, block: bk.DataBlock, out: list[AGUIEvent]) -> None:
        id = block.id
        known = id in self._data
        self._data[id] = block
        if block.finished_at is not None:
            if id not in self._data_done:
                self._data_done.add(id)
                self._emit(out, self._data_snapshot(block))
        elif not known:
            body: AGUIEvent = {"status": "streaming", "mediaType": block.source.media_type}
            if block.name is not None:
                body["name"] = block.name
            self._emit(out, {"type": "ACTIVITY_SNAPSHOT", "messageId": id, "activityType": "agentscope.data",
                             "content": body})

    def _catch_up_usage(self, msg: Msg) -> None:
        """The run's usage, so that the runs' usage adds up to the Msg's; a gap
        the client missed is counted under no model."""
        u = msg.usage
        total = [0, 0, 0, 0] if u is None else [u.input_tokens, u.output_tokens, u.cache_input_tokens,
                                                  u.cache_creation_input_tokens]
        have = list(self._reported)
        for counts in self._usage.values():
            have = [h + c for h, c in zip(have, counts, strict=True)]
        if have != total:
            rest = [t - r for t, r in zip(total, self._reported, strict=True)]
            self._usage = {None: rest} if any(rest) else {}

    def _unknown(self, e: ev.UnknownEvent, out: list[AGUIEvent]) -> None:
        """An event this version of wire does not know, passed on as AG-UI RAW."""
        decode = msgspec.json.decode if e.format == "json" else msgspec.msgpack.decode
        self._emit(out, {"type": "RAW", "event": decode(e.raw), "source": "agentscope"})


# -- the request: RunAgentInput -----------------------------------------------------------------


class InputMessage(msgspec.Struct, rename="camel", kw_only=True):
    """One message of ``RunAgentInput.messages``, as far as a server reads it:
    a user message's ``content`` (a string, or AG-UI ContentParts) and
    ``name``; a tool message (``role: "tool"``) answers the call
    ``tool_call_id`` names. Other fields (and roles) are allowed and not kept."""

    role: str
    id: str | None = None
    name: str | None = None
    tool_call_id: str | None = None
    content: Any = None
    error: str | None = None


class ResumeEntry(msgspec.Struct, rename="camel", kw_only=True):
    """One answer of ``RunAgentInput.resume``: the interrupt it answers,
    ``status`` (AG-UI says ``resolved`` or ``cancelled``) and the payload
    (for wire's confirmations, ``{approved, editedArgs?}``)."""

    interrupt_id: str
    status: str | None = None
    payload: Any = None


class RunInput(msgspec.Struct, rename="camel", kw_only=True):
    """What an AG-UI endpoint reads of the ``RunAgentInput`` that
    ``HttpAgent.runAgent`` POSTs: every field typed, unknown fields
    (``state``, ``tools``, ``context``, ``forwardedProps``...) allowed and
    not kept. Made by :func:`parse_run_input`."""

    thread_id: str | None = None
    run_id: str | None = None
    messages: list[InputMessage] | None = None
    resume: list[ResumeEntry] | None = None


_run_input_decoder = msgspec.json.Decoder(RunInput)


def parse_run_input(body: bytes | bytearray | memoryview) -> RunInput:
    """A request body as a :class:`RunInput`. The body comes from a client,
    so anything else (not JSON, invalid UTF-8 anywhere, nesting too deep, a
    field of the wrong type such as an object for ``threadId``) raises
    :class:`~wire.errors.DecodeError` with the JSON path of the problem
    (``$.resume[0].interruptId``) or the byte offset; nothing else escapes."""
    data = bytes(body)
    try:
        # msgspec skips the keys RunInput does not name without reading their
        # strings, so invalid UTF-8 there would pass unseen: the whole body is
        # checked first, as every other entry point of wire refuses it.
        data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise DecodeError(f"invalid UTF-8 ({exc.reason})", offset=exc.start) from None
    try:
        return _run_input_decoder.decode(data)
    except DECODE_ERRORS as exc:
        raise decode_error(exc, data=data) from None


def _trailing(run_input: RunInput, role: str) -> list[tuple[int, InputMessage]]:
    """The messages of ``role`` at the end of ``messages``, with their
    indexes: what the client added since its last run. ``HttpAgent`` sends
    its whole history with every run, so an earlier message of the same role
    is a resend, not news."""
    messages = run_input.messages or []
    start = len(messages)
    while start and messages[start - 1].role == role:
        start -= 1
    return list(enumerate(messages))[start:]


def answered_ids(run_input: RunInput) -> frozenset[str]:
    """The ids a request answers: the interrupt ids of its ``resume`` entries
    and the ``toolCallId`` of the tool messages the client added since its
    last run (those at the end of ``messages``; the ones it resends with its
    history answered a park before). An endpoint serves the run after the
    last park whose interrupts or pending calls these name."""
    ids = {entry.interrupt_id for entry in run_input.resume or ()}
    ids.update(m.tool_call_id for _, m in _trailing(run_input, "tool") if m.tool_call_id is not None)
    return frozenset(ids)


def user_msgs(run_input: RunInput) -> list[Msg]:
    """The user messages the client added since its last run (those at the
    end of ``messages``), as wire's Msgs: the AG-UI message's id and
    ``name`` (``"user"`` without one), its text, and its media parts as data
    blocks. DecodeError names the path of a part wire cannot take
    (``$.messages[3].content[1].source``)."""
    msgs = []
    for i, m in _trailing(run_input, "user"):
        content: list[bk.ContentBlock] = [*_blocks(m.content, f"$.messages[{i}].content")]
        msgs.append(UserMsg(m.name or "user", content, id=m.id))
    return msgs


_PART_KINDS = ("image", "audio", "video", "document")


def _blocks(content: Any, path: str) -> list[bk.TextBlock | bk.DataBlock]:
    """AG-UI content (a string, or ContentParts) as wire's blocks."""
    if isinstance(content, str):
        return [bk.TextBlock(text=content)]
    if not isinstance(content, list):
        raise DecodeError("expected a string or a list of content parts", path=path)
    blocks: list[bk.TextBlock | bk.DataBlock] = []
    for j, part in enumerate(content):
        at = f"{path}[{j}]"
        kind = part.get("type") if isinstance(part, dict) else None
        if kind == "text" and isinstance(part.get("text"), str):
            blocks.append(bk.TextBlock(text=part["text"], **({"id": part["id"]} if isinstance(part.get("id"), str)
                                                           else {})))
        elif kind in _PART_KINDS:
            source = part.get("source")
            blocks.append(bk.DataBlock(source=_source_of(source, f"{at}.source"),
                                       **({"id": part["id"]} if isinstance(part.get("id"), str) else {})))
        else:
            raise DecodeError("expected a text, image, audio, video or document part", path=at)
    return blocks


def _source_of(source: Any, path: str) -> bk.Base64Source | bk.URLSource:
    """An AG-UI PartSource as wire's: data (base64) or a URL with its media
    type. A file reference names a file only the client's provider holds."""
    kind = source.get("type") if isinstance(source, dict) else None
    value = source.get("value") if isinstance(source, dict) else None
    media_type = source.get("mimeType") if isinstance(source, dict) else None
    if kind not in ("data", "url") or not isinstance(value, str):
        raise DecodeError("expected a data or url source with a string value", path=path)
    if not isinstance(media_type, str) or not media_type:
        raise DecodeError("a source without its mimeType", path=f"{path}.mimeType")
    if kind == "url":
        return bk.URLSource(url=value, media_type=media_type)
    try:
        data = base64.b64decode(value, validate=True)
    except ValueError:
        raise DecodeError("the data source's value is not base64", path=f"{path}.value") from None
    return bk.Base64Source(data=data, media_type=media_type)


def _calls(session: Session) -> dict[str, tuple[Msg, bk.ToolCallBlock]]:
    """Every tool call of the session by its id, with its reply."""
    return {block.id: (msg, block) for msg in session.replies.values() for block in msg.content
            if type(block) is bk.ToolCallBlock}


def answer_of(run_input: RunInput,
              session: Session) -> ev.UserConfirmResultEvent | ev.ExternalExecutionResultEvent | None:
    """The answer a request carries to a reply of ``session``, or None when it
    carries none: its ``resume`` entries (``"{tool_call_id}.confirm"``, as
    :class:`AGUIBridge` names a confirmation's interrupt) as a
    USER_CONFIRM_RESULT, else the tool messages the client added since its
    last run as an EXTERNAL_EXECUTION_RESULT. ``resolved`` with
    ``payload.approved`` confirms or denies the call (``editedArgs``, when
    they differ from its input, become its input); ``cancelled`` denies it.

    Whether the reply waits for that answer now is the session's to say
    (``Session.refusal``). DecodeError names the path of a payload that is
    not an answer; RemoteProtocolError, an interrupt or call no reply of the
    session made, or an answer to two replies at once."""
    calls = _calls(session)
    if run_input.resume:
        results: list[ev.ConfirmResult] = []
        replies: set[str] = set()
        for i, entry in enumerate(run_input.resume):
            call_id = entry.interrupt_id.removesuffix(".confirm")
            found = calls.get(call_id) if entry.interrupt_id.endswith(".confirm") else None
            if found is None:
                raise RemoteProtocolError(f"$.resume[{i}] answers {entry.interrupt_id!r}, an interrupt no reply of "
                                          "the session made")
            msg, call = found
            replies.add(msg.id)
            approved = _approved(entry, call, f"$.resume[{i}]")
            results.append(ev.ConfirmResult(confirmed=approved,
                                            tool_call=_edited(entry, call, f"$.resume[{i}]") if approved else call))
        reply_id = _one_reply(replies)
        return ev.UserConfirmResultEvent(reply_id=reply_id, confirm_results=results)
    tools = _trailing(run_input, "tool")
    if not tools:
        return None
    outputs: list[bk.ToolResultBlock] = []
    replies = set()
    for i, m in tools:
        found = calls.get(m.tool_call_id or "")
        if m.tool_call_id is None:
            raise DecodeError("a tool message without its toolCallId", path=f"$.messages[{i}].toolCallId")
        if found is None:
            raise RemoteProtocolError(f"$.messages[{i}] answers tool call {m.tool_call_id!r}, which no reply of the "
                                      "session made")
        msg, call = found
        replies.add(msg.id)
        output = m.content if isinstance(m.content, str) else _blocks(m.content, f"$.messages[{i}].content")
        outputs.append(bk.ToolResultBlock(id=call.id, name=call.name, output=output,
                                          state=bk.ToolResultState.ERROR if m.error else bk.ToolResultState.SUCCESS))
    return ev.ExternalExecutionResultEvent(reply_id=_one_reply(replies), execution_results=outputs)


def _one_reply(replies: set[str]) -> str:
    if len(replies) > 1:
        raise RemoteProtocolError(f"one request answers replies {', '.join(sorted(replies))}: answer one at a time")
    return next(iter(replies))


def _approved(entry: ResumeEntry, call: bk.ToolCallBlock, path: str) -> bool:
    if entry.status == "cancelled":
        return False
    if entry.status not in (None, "resolved"):
        raise DecodeError(f"expected 'resolved' or 'cancelled', not {entry.status!r}", path=f"{path}.status")
    approved = entry.payload.get("approved") if isinstance(entry.payload, dict) else None
    if not isinstance(approved, bool):
        raise DecodeError(f"the answer to the call to {call.name} needs approved: true or false",
                          path=f"{path}.payload.approved")
    return approved


def _edited(entry: ResumeEntry, call: bk.ToolCallBlock, path: str) -> bk.ToolCallBlock:
    """The call as confirmed: its input replaced by ``editedArgs`` when the
    user changed them (the interrupt offers the call's own arguments, which
    come back equal but maybe spelled otherwise: the call's bytes then stay)."""
    edited = entry.payload.get("editedArgs") if isinstance(entry.payload, dict) else None
    if edited is None:
        return call
    if not isinstance(edited, dict):
        raise DecodeError("editedArgs must be an object", path=f"{path}.payload.editedArgs")
    try:
        same = msgspec.json.decode(call.input or "{}") == edited
    except DECODE_ERRORS:
        same = False
    return call if same else msgspec.structs.replace(call, input=msgspec.json.encode(edited).decode())


# -- whole captures ------------------------------------------------------------------------------


def to_agui(events: Iterable[ev.AgentEvent | ev.UnknownEvent]) -> list[AGUIEvent]:
    """The AG-UI events of a capture: one bridge per reply, the replies' runs
    one after the other in the order the replies start (AG-UI allows several
    runs in a stream, not two at once). An event without a reply (CUSTOM, an
    unknown one) goes with the reply before it, or the first one."""
    events = list(events)
    named = {getattr(event, "reply_id", None) for event in events} - {None}
    if len(named) <= 1:  # the usual capture, one reply: no grouping needed
        bridge = AGUIBridge(reply_id=next(iter(named), None))
        return bridge.feed_many(events) + bridge.close()
    replies: dict[str | None, list[ev.AgentEvent | ev.UnknownEvent]] = {}
    current: str | None = None
    for event in events:
        reply_id = None if type(event) is ev.UnknownEvent else getattr(event, "reply_id", None)
        if reply_id is not None:
            current = reply_id
        elif current is None and replies:
            current = next(iter(replies))
        replies.setdefault(current, []).append(event)
    if None in replies and len(replies) > 1:  # replyless events before the first reply join it
        head = replies.pop(None)
        first = next(iter(replies))
        replies[first][:0] = head
    out: list[AGUIEvent] = []
    for reply_id, reply_events in replies.items():
        bridge = AGUIBridge(reply_id=reply_id)
        out += bridge.feed_many(reply_events)
        out += bridge.close()
    return out


def to_sse(events: Iterable[ev.AgentEvent | ev.UnknownEvent]) -> bytes:
    """A capture as the AG-UI SSE body ``@ag-ui/encoder`` would write
    (``to_agui``): the name ``wire.bridges.vercel`` gives it too;
    ``to_agui_sse`` is the older name."""
    return encode_sse_batch(to_agui(events))


to_agui_sse = to_sse
