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
``?after=``, the form agentscope's endpoint takes). The server resumes it
from a checkpoint or by replay; either way the Conversation ends with the
same Msg bytes as a reader that never dropped (each reply's Msg begins at
its REPLY_START; checkpoints replace a reply's Msg; a ``wire.restart`` drops
what it had).

The rules are those of the TypeScript runtime's one reconnect loop
(``schemas/src/follow.ts``), so that both clients always end, and say why:

* every response is checked before a byte of it is decoded: 204 No Content
  is the end of a closed session (what ``sse_endpoint`` answers a reader
  that has it all); another status than 200, or a body that is not
  ``text/event-stream`` (a proxy's HTML error page, a login page), raises
  :class:`HTTPStatusError` naming both, at once for a client error (a 404
  never comes right by retrying) and after the retries for those in
  :data:`RETRYABLE` (408, 425, 429, any 5xx);
* a network failure, a retryable status, or a body that ends inside a frame
  (a proxy cut it) is a dropped connection: the next one resumes from the
  last entry applied, after ``backoff`` seconds (or the server's SSE
  ``retry``), doubled per failed attempt up to ``max_backoff``, jittered; a
  429 or 503 waits at least its ``Retry-After``, up to
  :data:`MAX_RETRY_AFTER`;
* ``retries`` failed attempts in a row give up with
  :class:`ConnectionFailed`, whose message and ``__cause__`` say the last
  failure. A connection counts as a success only if it moved the position
  to a new entry id: a server that answers every reconnection with the same
  checkpoint and nothing after it, or with a ``wire.restart`` each time (its
  log cannot keep a position), is failing, and is given up on;
* a frame that is not an event, or a malformed checkpoint, raises its
  RemoteProtocolError (the events before it applied): the server would send
  the same bytes again.
"""

from __future__ import annotations

import json
import random
from collections.abc import AsyncGenerator, Mapping
from contextlib import AsyncExitStack, aclosing
from dataclasses import dataclass
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime
from typing import Literal

import anyio
import httpx

from wire.errors import FrameError, RemoteProtocolError, WireError
from wire.events import CustomEvent, ExternalExecutionResultEvent, UserConfirmResultEvent
from wire.framing import SSEDecoder
from wire.messages import Msg
from wire.resume import RESTART, Conversation
from wire.stores import StoredEvent
from wire.transports.chat import ChatRequest, encode_chat_request

__all__ = ("MAX_ANSWER_BYTES", "MAX_RETRY_AFTER", "RETRYABLE", "Answered", "Attempts", "ConnectionFailed", "Follower",
           "HTTPStatusError", "ResponseTooLarge", "answer", "finished", "retry_after")

RETRYABLE = frozenset({408, 425, 429, *range(500, 600)})
"""Statuses a follower retries (a replica restarting behind its balancer, a
busy server): 408, 425, 429 and every 5xx, as the TypeScript runtime does;
any other status but 200 is raised at once."""

_RETRY_AFTER = frozenset({429, 503})  # the statuses whose Retry-After is honoured

MAX_RETRY_AFTER = 300.0
"""The longest ``Retry-After`` a follower honours, in seconds (a longer one
is taken as this): a server cannot park a reader for hours."""

MAX_ANSWER_BYTES = 1 << 20
"""The longest response body :func:`answer` reads by default: the answer
endpoint's response is a small JSON object."""

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


class ResponseTooLarge(RemoteProtocolError):
    """A response body longer than the client reads (``limit`` bytes): what
    a misrouted request gets from a file server, say. Nothing past the
    limit is read."""

    def __init__(self, method: str, url: str, limit: int) -> None:
        self.method = method
        self.url = url
        self.limit = limit
        super().__init__(f"{method} {url}: the response body is longer than the limit of {limit} bytes "
                         "(max_bytes)")


def retry_after(value: str | None, now: datetime | None = None) -> float | None:
    """A ``Retry-After`` in seconds (delta-seconds or an HTTP date), at most
    :data:`MAX_RETRY_AFTER`; None when absent or unreadable."""
    if value is None:
        return None
    text = value.strip()
    if text.isascii() and text.isdigit():
        seconds = float(int(text))
    else:
        try:
            at = parsedate_to_datetime(text)
        except (TypeError, ValueError, IndexError):
            return None
        if at.tzinfo is None:
            at = at.replace(tzinfo=UTC)
        seconds = (at - (now or datetime.now(UTC))).total_seconds()
    return min(MAX_RETRY_AFTER, max(0.0, seconds))


async def _bounded(response: httpx.Response, method: str, url: str, limit: int) -> bytes:
    """The body, or ResponseTooLarge as soon as it is longer than ``limit``
    (a Content-Length that says so is believed before a byte is read)."""
    length = response.headers.get("content-length", "")
    if length.isascii() and length.isdigit() and int(length) > limit:
        raise ResponseTooLarge(method, url, limit)
    body = bytearray()
    async for chunk in response.aiter_bytes():
        body += chunk
        if len(body) > limit:
            raise ResponseTooLarge(method, url, limit)
    return bytes(body)


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
      ``backoff`` the first wait in seconds (unless the server sent an SSE
      ``retry``), doubled (with jitter) up to ``max_backoff``; a 429 or 503
      waits at least its ``Retry-After``. Only an attempt that moves the
      position to a new entry id (and brings no ``wire.restart``) starts
      the count over.
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
        self.attempts = Attempts(url, retries, backoff, max_backoff)
        self.url = url
        self.conversation = conversation if conversation is not None else Conversation()
        self.last_event_id = after or None
        self.client = client
        self.headers = dict(headers or {})
        self.cursor = cursor
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
        return self.conversation.finished(reply_id, turn=turn, news=touched)

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
            self.attempts.failures = 0
            restarts = 0  # connections in a row that brought a wire.restart
            retry_ms: int | None = None  # the server's SSE retry field, once sent
            touched: set[str] = set()
            while True:
                start = self.last_event_id
                attempt = _Attempt()
                try:
                    async with aclosing(self._connection(client, touched, attempt)) as connection:
                        async for batch in connection:
                            yield batch
                            if self._done(reply_id, turn, touched):
                                return
                    self.closed = True
                    return
                except (httpx.TransportError, _Retry) as exc:
                    cause: BaseException = exc.error if isinstance(exc, _Retry) else exc
                    wait = exc.wait if isinstance(exc, _Retry) else None
                if attempt.decoder is not None and attempt.decoder.retry is not None:
                    retry_ms = attempt.decoder.retry
                restarts = restarts + 1 if attempt.restart is not None else 0
                # Only a connection that moved the position on counts as a success: the
                # same checkpoint again, or the log started over, is no progress.
                moved = attempt.applied and self.last_event_id != start and attempt.restart is None
                if restarts:
                    cause = RemoteProtocolError(
                        f"the server restarted the stream (wire.restart: {attempt.restart}) on {restarts} "
                        f"connection{'s' if restarts > 1 else ''} in a row, then dropped it; the last drop: {cause}")
                await self.attempts.failed(cause, progressed=bool(moved),
                                           first=None if retry_ms is None else retry_ms / 1000, at_least=wait)

    async def _connection(self, client: httpx.AsyncClient, touched: set[str],
                          attempt: _Attempt) -> AsyncGenerator[list[StoredEvent]]:
        url, headers = self._request()
        self.connections += 1
        async with client.stream("GET", url, headers=headers, timeout=self.timeout) as response:
            if response.status_code == 204:  # the session is closed, and this follower has read it all
                return
            if response.status_code != 200 or _media_type(response) != "text/event-stream":
                error = await _refusal(response, "GET", "200 with text/event-stream")
                if response.status_code in RETRYABLE:
                    wait = None
                    if response.status_code in _RETRY_AFTER:
                        wait = retry_after(response.headers.get("retry-after"))
                    raise _Retry(error, wait)
                raise error
            decoder: SSEDecoder[StoredEvent] = SSEDecoder(unknown="keep", last_event_id=self.last_event_id or "")
            attempt.decoder = decoder
            async for chunk in response.aiter_bytes():
                try:
                    events = decoder.feed(chunk)
                except RemoteProtocolError as exc:  # the events before the problem still count
                    self._apply(exc.events, decoder, touched, attempt)
                    raise
                if events:
                    self._apply(events, decoder, touched, attempt)
                    yield events
            try:
                events = decoder.close()
            except FrameError as exc:
                # The body ended inside a frame, as a proxy cuts it: a dropped connection,
                # resumed from the last entry applied.
                self._apply(exc.events, decoder, touched, attempt)
                if exc.events:
                    yield exc.events
                raise _Retry(exc) from exc
            if events:
                self._apply(events, decoder, touched, attempt)
                yield events

    def _apply(self, events: list[StoredEvent], decoder: SSEDecoder[StoredEvent], touched: set[str],
               attempt: _Attempt) -> None:
        if not events:
            return
        if CustomEvent in map(type, events):  # one pass in C for the usual batch, which has none
            for event in events:
                if type(event) is CustomEvent and event.name == RESTART:
                    attempt.restart = str(event.value.get("reason", "")) or "no reason given"
        # A reconnect whose position was trimmed gets checkpoints of replies this
        # follower already holds as they are: the session counts no news of them,
        # so no turn ends on one.
        touched.update(self.conversation.apply(events).replies)
        attempt.applied = True
        # A wire.restart comes with an empty id: the next connection starts over.
        self.last_event_id = decoder.last_event_id or None

    async def run(self, reply_id: str | None = None, *, turn: bool = False) -> Conversation:
        """:meth:`batches` to its end; the conversation."""
        async with aclosing(self.batches(reply_id, turn=turn)) as batches:
            async for _ in batches:
                pass
        return self.conversation


def finished(conversation: Conversation, reply_id: str | None, turn: bool, touched: set[str]) -> bool:
    """:meth:`wire.session.Session.finished`, by its earlier name."""
    return conversation.finished(reply_id, turn=turn, news=touched)


class Attempts:
    """The budget of one reader's reconnections, whatever it reads over (SSE
    here, a socket in ``wire.transports.ws_client``): failed attempts in a
    row, given up past ``retries`` with :class:`ConnectionFailed`, and the
    wait before the next: ``backoff`` seconds (or the server's own first
    wait), doubled per failed attempt up to ``max_backoff``, jittered, and
    at least what a ``Retry-After`` asked for."""

    def __init__(self, url: str, retries: int, backoff: float, max_backoff: float) -> None:
        if retries < 0 or backoff < 0 or max_backoff < 0:
            raise ValueError("retries, backoff and max_backoff must not be negative")
        self.url = url
        self.retries = retries
        self.backoff = backoff
        self.max_backoff = max_backoff
        self.failures = 0

    async def failed(self, cause: BaseException, *, progressed: bool = False, first: float | None = None,
                     at_least: float | None = None) -> None:
        """An attempt failed for ``cause``: ConnectionFailed past the budget,
        else the wait before the next. An attempt that ``progressed`` (it
        brought something new) starts the count over."""
        self.failures = 1 if progressed else self.failures + 1
        if self.failures > self.retries:
            failures, self.failures = self.failures, 0
            raise ConnectionFailed(self.url, failures, cause) from cause
        start = self.backoff if first is None else first
        delay = min(self.max_backoff, start * 2 ** (self.failures - 1)) * random.uniform(0.5, 1.0)
        await anyio.sleep(max(delay, at_least or 0.0))


class _Retry(Exception):
    """A status worth another attempt, or a body cut inside a frame: the
    error to raise if no attempt is left, and the wait a Retry-After asked
    for (seconds)."""

    def __init__(self, error: RemoteProtocolError, wait: float | None = None) -> None:
        self.error = error
        self.wait = wait
        super().__init__(str(error))


class _Attempt:
    """What one connection brought: whether it applied events, the reason
    of a ``wire.restart`` among them, and its decoder (for the SSE ``retry``)."""

    __slots__ = ("applied", "decoder", "restart")

    def __init__(self) -> None:
        self.applied = False
        self.restart: str | None = None
        self.decoder: SSEDecoder[StoredEvent] | None = None


@dataclass(frozen=True)
class Answered:
    """What the answer endpoint said: ``entry_id`` is the input's entry in
    the session's log (a new turn's or an answer's; None from agentscope's
    app), from which a reader reads what follows it."""

    status: int
    session_id: str
    entry_id: str | None


async def answer(url: str, *, agent_id: str, session_id: str,
                 input: Msg | list[Msg] | UserConfirmResultEvent | ExternalExecutionResultEvent | None,
                 client: httpx.AsyncClient | None = None, headers: Mapping[str, str] | None = None,
                 timeout: float = 30.0, max_bytes: int = MAX_ANSWER_BYTES) -> Answered:
    """Post agentscope's chat body ``{"agent_id", "session_id", "input"}`` to
    ``url`` (``wire.transports.http.answer_endpoint``, or agentscope's own
    ``/chat/``): a new turn, or the answer to a parked reply (build one with
    ``wire.transports.chat.confirmation``). Not retried: a post whose
    response was lost may have been taken (posting the same answer again is
    refused with 409). A status other than 2xx raises
    :class:`HTTPStatusError` with the server's reason; a body longer than
    ``max_bytes`` :class:`ResponseTooLarge` (it is never held whole); a lost
    connection :class:`ConnectionFailed`."""
    if max_bytes < 1:
        raise ValueError(f"max_bytes must be positive, not {max_bytes}")
    body = encode_chat_request(ChatRequest(agent_id=agent_id, session_id=session_id, input=input))
    sent = {"content-type": "application/json", **(headers or {})}
    async with AsyncExitStack() as stack:
        if client is None:
            client = await stack.enter_async_context(httpx.AsyncClient(timeout=timeout))
        try:
            async with client.stream("POST", url, content=body, headers=sent, timeout=timeout) as response:
                if not 200 <= response.status_code < 300 or _media_type(response) != "application/json":
                    raise await _refusal(response, "POST", "2xx with application/json")
                reply = await _bounded(response, "POST", url, max_bytes)
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
