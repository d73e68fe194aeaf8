"""A session's turns and replies as the Vercel AI SDK's requests see them,
for every door that serves ``useChat`` (no server framework here): the
POST and GET of ``wire.bridges.vercel_http`` and the socket of
``wire.bridges.vercel_ws`` take a chat's input and serve a reply through
these, so the two transports mean the same.

* :func:`user_input`, :func:`take_chat`: a
  :class:`~wire.bridges.vercel.ChatBody` as the session's input: a new user
  message is a new turn; an assistant message whose tool parts the user
  answered answers the parked reply of that id. It goes through ``wire.transports.inputs.take_input`` (the one agent
  hook), and the result is the :class:`Turn`: the reply the request
  carries, from the entry written.
* :func:`resumed`: what a resume request carries: the reply running in the
  session (from its start: ai's transports treat a resumed stream as a
  replay), or the reply of a turn still waiting for it to begin; None when
  no reply runs.
* :func:`reply_chunks`: that reply's UI message chunks, read from the log,
  up to and including the first ``finish`` (the reply ended or parked).
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable, Iterable
from contextlib import aclosing
from typing import Any, NamedTuple

from wire.bridges.vercel import ChatBody, Chunk, VercelBridge, chat_answer, user_msg
from wire.errors import DecodeError, StoreError
from wire.messages import Msg
from wire.session import ChatRequest, copy_msg, reply_of, waiting, withdrawn
from wire.stores import EventStore, StoredEvent
from wire.transports.inputs import Admit, OnInput, Refused, take_input

__all__ = ("MAX_BATCH", "WITHDRAWN", "Reply", "Turn", "bridges", "reply_chunks", "resumed", "take_chat", "user_input")

MAX_BATCH = 512
"""The most entries a reply's reader takes from the log at once."""

WITHDRAWN: Chunk = {"type": "error", "errorText": "the turn was interrupted before its reply began"}
"""The last chunk of a turn's reply when the turn was withdrawn (a
USER_INTERRUPT naming it) before its reply began."""


class Reply:
    """The one reply a response carries, read from a session's log after an
    entry: a bridge that already has the client's state, or (``known``) the
    first reply not among ``known`` to begin (a turn's reply)."""

    def __init__(self, make: Callable[[], VercelBridge], bridge: VercelBridge | None,
                 known: set[str] | None = None) -> None:
        self.make = make
        self.bridge = bridge
        self.known = known

    def feed(self, event: StoredEvent) -> list[Chunk] | None:
        """The chunks of ``event``; None when the response is over without a
        reply (the turn was withdrawn before its reply began)."""
        bridge = self.bridge
        if bridge is None:
            assert self.known is not None
            if withdrawn(event, self.known):
                return None  # no reply will begin
            reply_id = reply_of(event)
            if reply_id is None or reply_id in self.known:
                return []  # the session's other replies, CUSTOM events
            bridge = self.bridge = self.make()
        return bridge.feed(event)

    def close(self) -> list[Chunk]:
        return self.bridge.close() if self.bridge is not None else []


def bridges(dynamic_tools: bool, external_tools: Iterable[str]) -> Callable[[], VercelBridge]:
    """A maker of the bridges a door's responses use (``VercelBridge``'s options)."""
    tools = tuple(external_tools)
    return lambda: VercelBridge(None, dynamic_tools=dynamic_tools, external_tools=tools)


def _ends(chunks: list[Chunk]) -> int | None:
    """The length of ``chunks`` up to and including the first ``finish``, if any."""
    return next((i + 1 for i, chunk in enumerate(chunks) if chunk["type"] == "finish"), None)


async def reply_chunks(log: EventStore, reply: Reply, after: str | None, prelude: list[Chunk], *,
                       heartbeat: float | None, coalesce: bool | float) -> AsyncIterator[tuple[list[Chunk], bool]]:
    """One reply's chunks, each piece with whether it is the last:
    ``prelude``, then the reply's chunks from the entries after ``after``,
    up to and including the first ``finish`` (the reply ended or parked:
    nothing after it is this response's). A turn withdrawn before its reply
    began ends with :data:`WITHDRAWN`; a log that closes first ends with
    the bridge's ``close()``. No chunks after ``heartbeat`` idle seconds (a
    door's keep-alive)."""
    end = _ends(prelude)
    if end is not None:
        yield prelude[:end], True
        return
    if prelude:
        yield prelude, False
    batches = log.follow(after, heartbeat=heartbeat, max_batch=MAX_BATCH, coalesce=coalesce)
    async with aclosing(batches):  # type: ignore[type-var]  # a store's follow is an async generator
        async for batch in batches:
            if not batch:
                yield [], False
                continue
            chunks: list[Chunk] = []
            for _, event in batch:
                out = reply.feed(event)
                if out is None:
                    yield [*chunks, WITHDRAWN], True
                    return
                end = _ends(out)
                if end is not None:
                    yield [*chunks, *out[:end]], True
                    return
                chunks += out
            if chunks:
                yield chunks, False
    yield reply.close(), True


class Turn(NamedTuple):
    """What :func:`take_chat` took: the session's log, the reply the
    request carries, the entry it was written at (the reply is read after
    it), and the chunks that go first (an answer's own)."""

    log: EventStore
    reply: Reply
    entry_id: str
    prelude: list[Chunk]


def user_input(body: ChatBody, user_name: str = "user") -> Msg | None:
    """The user's Msg a chat body brings (a new turn, with the UI message's
    id), or None for an assistant message (an answer, which
    :func:`take_chat` reads against the parked reply). :class:`Refused` 400
    for a ``regenerate-message`` (agentscope has no such input), a last
    message that is a system message, or a user message agentscope cannot
    take (the reason names the JSON path)."""
    try:
        if body.trigger != "submit-message":
            raise DecodeError("a session cannot regenerate a reply (agentscope has no such input): "
                              "send a new message", path="$.trigger")
        if body.role == "system":
            raise DecodeError("the last message is a system message", path="$.messages[-1].role")
        return user_msg(body.message, user_name) if body.role == "user" else None
    except DecodeError as exc:
        raise Refused(400, f"the request body is not valid: {exc}") from exc


async def take_chat(body: ChatBody, message: Msg | None, locate: Callable[[ChatRequest], Awaitable[EventStore | None]],
                    connection: Any, on_input: OnInput, make: Callable[[], VercelBridge], *, agent_id: str = "",
                    admit: Admit | None = None) -> Turn:
    """Take ``body`` as the session's input (``message``, its
    :func:`user_input`; the body's session already asked about), or raise
    :class:`Refused`, having written nothing:

    * ``locate(chat)``: the session's log (``chat`` is the
      :class:`~wire.session.ChatRequest`: ``session_id`` the body's ``id``,
      ``input`` the user's Msg, or None for an answer); None is 404;
    * for an assistant message (the user answered its tool parts): 409 when
      the session has no reply of that id or the message answers nothing it
      waits for; 400 for an answer of the wrong shape;
    * ``wire.transports.inputs.take_input``: 409 when the session cannot
      take the input now, ``admit``'s refusal, 503 for a session that kept
      changing; then the input is written and ``on_input(chat, log,
      connection)`` is called;
    * 503 for a failing store.

    The turn's reply is, for a new message, the first reply to begin after
    it; for an answer, the parked reply's continuation (the client has the
    reply up to its park, where the bridge starts)."""
    try:
        chat = ChatRequest(agent_id=agent_id, session_id=body.id, input=message)
        log = await locate(chat)
        if log is None:
            raise Refused(404, "no such session")
        if message is None:
            session = await log.session()
            parked = session.replies.get(str(body.message["id"]))
            if parked is None:
                raise Refused(409, f"the session has no reply {body.message['id']!r} to answer")
            try:
                answer = chat_answer(body.message, parked)
            except DecodeError as exc:
                exc.path = f"$.messages[-1]{(exc.path or '$')[1:]}"
                raise Refused(400, f"the request body is not valid: {exc}") from exc
            if answer is None:
                raise Refused(409, f"the message answers no tool call reply {parked.id!r} waits for")
            chat = ChatRequest(agent_id=agent_id, session_id=body.id, input=answer)
            # The client has the reply up to its park (a parked reply does not
            # change until it is answered): the bridge starts from there.
            bridge = make()
            bridge.join(copy_msg(parked))
            reply = Reply(make, bridge)
        else:
            reply = Reply(make, None, set((await log.session()).replies))
        entry_id = await take_input(log, chat, connection, on_input, admit=admit)
    except StoreError as exc:
        raise Refused(503, f"the store failed: {exc}") from exc
    prelude = reply.bridge.feed(chat.input) if reply.bridge is not None else []  # type: ignore[arg-type]  # the answer
    return Turn(log, reply, entry_id, prelude)


def _running(replies: Iterable[Msg]) -> Msg | None:
    """The reply that began last of those still running (neither ended nor parked)."""
    running = [msg for msg in replies if waiting(msg).state == "running"]
    return running[-1] if running else None


async def resumed(log: EventStore, make: Callable[[], VercelBridge], *, finished: bool = False,
                  parked: bool = False) -> tuple[Reply, str | None, list[Chunk]] | None:
    """What a resume request carries, as ``(reply, after, prelude)`` for
    :func:`reply_chunks`: the reply running in the session (the last to
    begin of those neither ended nor parked), from its start (the Msg so
    far as a catch-up, every part a live reader was sent, those still
    growing left open), then live; with ``parked``, else the last reply to
    begin if it is parked for the user (whole, up to its park: a client cut
    off mid-reply gets the question it must answer); while a turn waits for
    its reply to begin, that reply. None when no reply runs (every reply
    ended or parked, or the session is closed), unless ``finished``: then
    the reply that began last, whole. A failing store raises
    :class:`~wire.errors.StoreError`."""
    session = await log.session()
    # A closed session runs nothing: a reply it cut short is over too.
    msg = _running(session.replies.values()) if not session.closed else None
    if msg is None and parked and not session.closed and session.last is not None \
            and waiting(session.last).state == "parked":
        msg = session.last
    after = session.last_id or None
    if msg is not None or (finished and session.last is not None and session.turn is None):
        bridge = make()
        target = msg if msg is not None else session.last
        assert target is not None
        # The session is this call's own copy (EventStore.session): the bridge takes its Msg as it is.
        return Reply(make, bridge), after, bridge.join(target)
    if session.turn is not None and not session.closed:
        return Reply(make, None, set(session.replies)), after, []
    return None
