"""Follow a session over HTTP, resuming where a dropped connection left off,
and post answers back: the Python client of ``wire.transports.http``.

Needs the ``http`` extra (httpx and anyio). Both calls are async and take an
``httpx.AsyncClient`` of the application's (its auth headers, proxies,
limits) or make their own::

    from wire.transports.client import Follower, answer
    from wire.transports.chat import confirmation, waiting

    follower = Follower("http://127.0.0.1:8000/sessions/s1/stream")
    conversation = await follower.run(turn=True)      # up to the end or park of the reply under way
    msg = conversation.last
    if waiting(msg).confirm:                          # the agent asks before running a tool
        await answer("http://127.0.0.1:8000/chat", agent_id="a1", session_id="s1",
                     input=confirmation(msg, True))
        await follower.run(turn=True)                 # the same follower reads on: answer, then the rest

A :class:`Follower` reads an SSE endpoint (``wire.transports.http.sse_endpoint``,
any store, any replica; or agentscope's own ``/sessions/{id}/stream``) into a
``wire.resume.Conversation``: every reply's Msg. When the connection drops
it reconnects with the last entry id it read, as ``Last-Event-ID`` (or as
``?after=``, the form agentscope's endpoint takes), after a backoff that
doubles up to ``max_backoff``, giving up after ``retries`` failed attempts in
a row (:class:`ConnectionFailed`). The server resumes it from a checkpoint or
by replay; either way the Conversation ends with the same Msg bytes as a
reader that never dropped (each reply's Msg begins at its REPLY_START;
checkpoints replace a reply's Msg; a ``wire.restart`` drops what it had).

Every response is checked before a byte of it is decoded: 204 No Content is
the end of a closed session (what ``sse_endpoint`` answers a reader that
has it all); another status than 200, or a body that is not
``text/event-stream`` (a proxy's HTML error page, a login page), raises
:class:`HTTPStatusError` naming both, at once for a client error (a 404
never comes right by retrying) and after the retries for 408, 429, 502, 503
and 504.
"""

from __future__ import annotations

import json
import random
from collections.abc import AsyncGenerator, Mapping
from contextlib import AsyncExitStack, aclosing
from dataclasses import dataclass
from typing import Literal

import anyio
import httpx

from wire.errors import RemoteProtocolError, WireError
from wire.events import ExternalExecutionResultEvent, UserConfirmResultEvent
from wire.framing import SSEDecoder
from wire.messages import Msg
from wire.resume import Conversation
from wire.stores import StoredEvent
from wire.transports.chat import ChatRequest, encode_chat_request, waiting

__all__ = ("RETRYABLE", "Answered", "ConnectionFailed", "Follower", "HTTPStatusError", "answer", "finished")

RETRYABLE = frozenset({408, 425, 429, 502, 503, 504})
"""Statuses a follower retries (a replica restarting behind its balancer);
any other status but 200 is raised at once."""

_SNIPPET = 300


class HTTPStatusError(RemoteProtocolError):
    """The server answered with a status, or a content type, that is not what
    was asked for: ``status``, ``content_type`` and the first bytes of the
    body (``text``) say what came instead."""

    def __init__(self, method: str, url: str, status: int, content_type: str, text: str, *, expected: str) -> None:
        self.method = method
        self.url = url
        self.status = status
        self.content_type = content_type
        self.text = text
        shown = f": {text}" if text else ""
        super().__init__(f"{method} {url} answered {status} with {content_type or 'no content type'}, "
                         f"not {expected}{shown}")


class ConnectionFailed(WireError):
    """The follower gave up: ``attempts`` connections in a row failed. The
    last failure is the ``__cause__``."""

    def __init__(self, url: str, attempts: int, last: BaseException) -> None:
        self.url = url
        self.attempts = attempts
        super().__init__(f"GET {url}: {attempts} attempts in a row failed; the last: {last}")


def _media_type(response: httpx.Response) -> str:
    content_type: str = response.headers.get("content-type", "")
    return content_type.split(";")[0].strip().lower()


async def _refusal(response: httpx.Response, method: str, expected: str) -> HTTPStatusError:
    """What came instead, with the first bytes of its body (never all of a
    large page)."""
    head = b""
    async for chunk in response.aiter_bytes():
        head += chunk
        if len(head) >= _SNIPPET:
            break
    text = head[:_SNIPPET].decode("utf-8", "replace").strip()
    return HTTPStatusError(method, str(response.url), response.status_code,
                           response.headers.get("content-type", ""), text, expected=expected)


class Follower:
    """A session's stream, read into :attr:`conversation` across dropped
    connections.

    * ``url``: the SSE endpoint of one session (or one reply's log).
    * ``conversation``: what the reader has so far (a new one by default);
      ``after``: the id of the last entry it covers, if any.
    * ``client``: an ``httpx.AsyncClient`` to use (not closed here); by default
      one is made for each :meth:`batches` and closed after it. ``headers``
      go with every request (``X-User-ID``, ``Authorization``).
    * ``cursor``: send the position as ``Last-Event-ID`` (``"header"``) or as
      ``?after=`` (``"query"``).
    * ``retries``: failed attempts in a row before :class:`ConnectionFailed`;
      ``backoff`` the first wait in seconds, doubled (with jitter) up to
      ``max_backoff``. An attempt that delivers events starts the count over.
    * ``read_timeout``: seconds without a byte (events or the server's
      heartbeats) after which the connection counts as lost.

    :attr:`last_event_id` is where a new connection resumes; :attr:`closed`
    is True once the server ended the stream (the session is closed);
    :attr:`connections` counts the connections made.
    """

    def __init__(self, url: str, *, conversation: Conversation | None = None, after: str | None = None,
                 client: httpx.AsyncClient | None = None, headers: Mapping[str, str] | None = None,
                 cursor: Literal["header", "query"] = "header", retries: int = 5, backoff: float = 0.25,
                 max_backoff: float = 8.0, read_timeout: float = 60.0) -> None:
        if cursor not in ("header", "query"):
            raise ValueError(f"cursor must be 'header' or 'query', not {cursor!r}")
        if retries < 0 or backoff < 0 or max_backoff < 0:
            raise ValueError("retries, backoff and max_backoff must not be negative")
        self.url = url
        self.conversation = conversation if conversation is not None else Conversation()
        self.last_event_id = after or None
        self.client = client
        self.headers = dict(headers or {})
        self.cursor = cursor
        self.retries = retries
        self.backoff = backoff
        self.max_backoff = max_backoff
        self.timeout = httpx.Timeout(10.0, read=read_timeout)
        self.closed = False
        self.connections = 0

    def _request(self) -> tuple[httpx.URL, dict[str, str]]:
        """The URL and headers of the next connection: the position as a
        header, or as ``after`` among the URL's own query parameters."""
        url = httpx.URL(self.url)
        headers = {"accept": "text/event-stream", **self.headers}
        if self.last_event_id:
            if self.cursor == "header":
                headers["last-event-id"] = self.last_event_id
            else:
                url = url.copy_set_param("after", self.last_event_id)
        return url, headers

    def _done(self, reply_id: str | None, turn: bool, touched: set[str]) -> bool:
        return finished(self.conversation, reply_id, turn, touched)

    async def batches(self, reply_id: str | None = None, *,
                      turn: bool = False) -> AsyncGenerator[list[StoredEvent], None]:
        """The events as they come, a batch per chunk read, each applied to
        :attr:`conversation` before it is yielded (a checkpoint among them
        has replaced its reply's Msg), until the server ends the stream; or,
        with ``reply_id``, until that reply ends or parks; or, with ``turn``,
        until the latest reply does (once this call read an event of it, or
        a checkpoint that changed it). Call
        again after an answer to read on. Close it early with
        ``contextlib.aclosing``."""
        async with AsyncExitStack() as stack:
            client = self.client
            if client is None:
                client = await stack.enter_async_context(httpx.AsyncClient(timeout=self.timeout))
            failures = 0
            touched: set[str] = set()
            while True:
                try:
                    async with aclosing(self._connection(client, touched)) as connection:
                        async for batch in connection:
                            failures = 0
                            yield batch
                            if self._done(reply_id, turn, touched):
                                return
                    self.closed = True
                    return
                except (httpx.TransportError, _Retry) as exc:
                    failures += 1
                    cause = exc.error if isinstance(exc, _Retry) else exc
                    if failures > self.retries:
                        raise ConnectionFailed(self.url, failures, cause) from cause
                    delay = min(self.max_backoff, self.backoff * 2 ** (failures - 1))
                    await anyio.sleep(delay * random.uniform(0.5, 1.0))

    async def _connection(self, client: httpx.AsyncClient, touched: set[str]) -> AsyncGenerator[list[StoredEvent]]:
        url, headers = self._request()
        self.connections += 1
        async with client.stream("GET", url, headers=headers, timeout=self.timeout) as response:
            if response.status_code == 204:  # the session is closed, and this follower has read it all
                return
            if response.status_code != 200 or _media_type(response) != "text/event-stream":
                error = await _refusal(response, "GET", "200 with text/event-stream")
                if response.status_code in RETRYABLE:
                    raise _Retry(error)
                raise error
            decoder: SSEDecoder[StoredEvent] = SSEDecoder(unknown="keep", last_event_id=self.last_event_id or "")
            async for chunk in response.aiter_bytes():
                try:
                    events = decoder.feed(chunk)
                except RemoteProtocolError as exc:  # the events before the problem still count
                    self._apply(exc.events, decoder, touched)
                    raise
                if events:
                    self._apply(events, decoder, touched)
                    yield events
            events = decoder.close()
            if events:
                self._apply(events, decoder, touched)
                yield events

    def _apply(self, events: list[StoredEvent], decoder: SSEDecoder[StoredEvent], touched: set[str]) -> None:
        # A reconnect whose position was trimmed gets checkpoints of replies this
        # follower already holds as they are: the session counts no news of them,
        # so no turn ends on one.
        touched.update(self.conversation.apply(events).replies)
        # A wire.restart comes with an empty id: the next connection starts over.
        self.last_event_id = decoder.last_event_id or None

    async def run(self, reply_id: str | None = None, *, turn: bool = False) -> Conversation:
        """:meth:`batches` to its end; the conversation."""
        async with aclosing(self.batches(reply_id, turn=turn)) as batches:
            async for _ in batches:
                pass
        return self.conversation


def finished(conversation: Conversation, reply_id: str | None, turn: bool, touched: set[str]) -> bool:
    """Whether the reply asked for (or, for a turn, the latest reply, once
    the reader read news of it: an event, or a checkpoint that changed it;
    ``touched`` holds the replies it had news of) has ended or parked: where
    :meth:`Follower.batches` and ``wire.transports.ws_client`` stop."""
    replies = conversation.replies
    if reply_id is None and turn:
        last = conversation.last
        if last is None or last.id not in touched:
            return False
        reply_id = last.id
    if reply_id is None or (msg := replies.get(reply_id)) is None:
        return False
    return waiting(msg).state != "running"


class _Retry(Exception):
    """A status worth another attempt, carrying the error to raise if none is left."""

    def __init__(self, error: HTTPStatusError) -> None:
        self.error = error
        super().__init__(str(error))


@dataclass(frozen=True)
class Answered:
    """What the answer endpoint said: ``entry_id`` is the answer's entry in
    the session's log (None for a new turn, or from agentscope's app),
    from which a reader reads what follows it."""

    status: int
    session_id: str
    entry_id: str | None


async def answer(url: str, *, agent_id: str, session_id: str,
                 input: Msg | list[Msg] | UserConfirmResultEvent | ExternalExecutionResultEvent | None,
                 client: httpx.AsyncClient | None = None, headers: Mapping[str, str] | None = None,
                 timeout: float = 30.0) -> Answered:
    """Post agentscope's chat body ``{"agent_id", "session_id", "input"}`` to
    ``url`` (``wire.transports.http.answer_endpoint``, or agentscope's own
    ``/chat/``): a new turn, or the answer to a parked reply (build one with
    ``wire.transports.chat.confirmation``). Not retried: a post whose
    response was lost may have been taken (posting the same answer again is
    refused with 409). A status other than 2xx raises
    :class:`HTTPStatusError` with the server's reason; a lost connection
    :class:`ConnectionFailed`."""
    body = encode_chat_request(ChatRequest(agent_id=agent_id, session_id=session_id, input=input))
    sent = {"content-type": "application/json", **(headers or {})}
    async with AsyncExitStack() as stack:
        if client is None:
            client = await stack.enter_async_context(httpx.AsyncClient(timeout=timeout))
        try:
            async with client.stream("POST", url, content=body, headers=sent, timeout=timeout) as response:
                if not 200 <= response.status_code < 300 or _media_type(response) != "application/json":
                    raise await _refusal(response, "POST", "2xx with application/json")
                reply = await response.aread()
        except httpx.TransportError as exc:
            raise ConnectionFailed(url, 1, exc) from exc
    try:
        fields = json.loads(reply)
    except ValueError:
        fields = None
    if not isinstance(fields, dict):
        raise HTTPStatusError("POST", url, response.status_code, response.headers.get("content-type", ""),
                              reply[:_SNIPPET].decode("utf-8", "replace"), expected="a JSON object")
    entry_id = fields.get("entry_id")
    return Answered(response.status_code, str(fields.get("session_id", session_id)),
                    entry_id if isinstance(entry_id, str) else None)
