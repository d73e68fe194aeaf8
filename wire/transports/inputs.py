"""What every door does with an input: the one agent hook.

wire's answer endpoint, the AG-UI and Vercel endpoints and the WebSocket
endpoints each turn their frontend's body into agentscope's chat request
(``wire.session.ChatRequest``) and hand it to :func:`take_input`, which
checks it against the session (``wire.session.Session.refusal``), writes it
with ``expect=`` the entry it read (reading and checking again if another
writer got in first), and calls the application's ``on_input(chat, log,
connection)``. An application writes its agent once and serves it through
every door.

No server framework is imported here: ``connection`` is whatever the door
has (a Starlette ``Request`` or ``WebSocket``), passed on to the hooks.
"""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable
from typing import Any, TypeAlias

from wire.errors import Conflict, LocalProtocolError
from wire.events import AgentEvent, UserInterruptEvent
from wire.session import ANSWERS, ChatRequest, Session, turn
from wire.stores import EventStore

__all__ = ("ATTEMPTS", "Admit", "OnInput", "Refused", "take_input")

OnInput: TypeAlias = Callable[[ChatRequest, EventStore, Any], "Awaitable[None] | None"]
"""The application's agent hook, ``on_input(chat, log, connection)`` (sync
or async): ``chat`` is the typed input, already written to ``log``; it
starts the agent (a task, a queue) and returns. Refusals belong in
:data:`Admit`, before the write."""

Admit: TypeAlias = Callable[[ChatRequest, Session, Any], "Awaitable[None] | None"]
"""The application's own check of an input, ``admit(chat, session,
connection)`` (sync or async), asked after the session's rules and before
anything is written: it raises :class:`Refused` (a quota, a moderation
rule, an agent it will not start) and the log stays as it was."""

ATTEMPTS = 16
"""How many times :func:`take_input` reads and checks the session again
after losing a race: a reply streaming into the session moves it on
between the read and the write, so one conflict is no reason to give up."""


class Refused(Exception):
    """A request refused with a status of the refuser's choice: the
    application's ``authorize``, ``admit`` or ``on_input`` raises it (401 for
    a caller it does not know, 429 for a quota), and :func:`take_input`
    raises it for the session's own refusal (409) or a session that kept
    changing (503). Each door answers with ``status`` and ``reason``."""

    def __init__(self, status: int, reason: str) -> None:
        if not 400 <= status <= 599:
            raise ValueError(f"a refusal's status is 4xx or 5xx, not {status}")
        self.status = status
        self.reason = reason
        super().__init__(f"{status}: {reason}")


async def _call(hook: Callable[..., Any], *args: Any) -> None:
    done = hook(*args)
    if inspect.isawaitable(done):
        await done


async def take_input(log: EventStore, chat: ChatRequest, connection: Any, on_input: OnInput, *,
                     admit: Admit | None = None) -> str:
    """Check ``chat.input`` against the session in ``log``, write it (an
    answer or interrupt as itself, a turn as a ``wire.turn`` event) on the
    condition that the log has not moved on since the check, and call
    ``on_input``; the entry id of what was written.

    Raises :class:`Refused`: 409 with the session's reason (nothing
    written), 503 when the session moved on through :data:`ATTEMPTS` reads,
    or whatever ``admit`` (nothing written) or ``on_input`` raise. A turn
    that ``on_input`` refuses is withdrawn (a USER_INTERRUPT naming it), so
    the session takes the next one. A failing store raises
    :class:`wire.errors.StoreError`."""
    event: AgentEvent
    for _ in range(ATTEMPTS):
        session = await log.session()
        problem = session.refusal(chat.input)
        if problem is not None:
            raise Refused(409, problem)
        if admit is not None:
            await _call(admit, chat, session, connection)
        event = chat.input if isinstance(chat.input, ANSWERS) else turn(chat.input)
        try:
            entry_id = await log.append(event, expect=session.last_id)
            break
        except Conflict:
            continue
        except LocalProtocolError as exc:  # a log closed by a writer elsewhere in this process
            raise Refused(409, f"the session is closed: {exc}") from exc
    else:
        raise Refused(503, "the session kept changing: try again")
    try:
        await _call(on_input, chat, log, connection)
    except Refused:
        if not isinstance(chat.input, ANSWERS):
            await log.append(UserInterruptEvent(reply_id=event.id))
        raise
    return entry_id
