"""A session's state: its replies in the order they began, what each waits
for, the turn pending, and why an input is refused now.

A log holds a session: any number of replies, one after another (or
interleaved, when several agents write), each beginning at its REPLY_START
and ending at REPLY_END or parking at REQUIRE_USER_CONFIRM /
REQUIRE_EXTERNAL_EXECUTION, from where the answer (USER_CONFIRM_RESULT,
EXTERNAL_EXECUTION_RESULT, then a REPLY_START with the same reply id, as
agentscope's ``ChatService`` writes it) takes it on. A reply is *open* from
its start (or the answer that takes it on) to its end or park; the replies
open at a checkpoint are the ones it must snapshot, so that a checkpoint is
a cut through the whole session: every reply's Msg as of one entry.

:class:`Session` is sans-IO, like h11's connection state machine: the
stores feed it what they write, readers what they read, and endpoints ask it
whether an input may be taken. Every one of them keeps a session this way,
so none re-derives a rule of its own.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import NamedTuple

from wire.events import (
    AgentEvent,
    CustomEvent,
    ExternalExecutionResultEvent,
    ReplyEndEvent,
    ReplyStartEvent,
    RequireExternalExecutionEvent,
    RequireUserConfirmEvent,
    UnknownEvent,
    UserConfirmResultEvent,
    UserInterruptEvent,
)
from wire.messages import Msg
from wire.session.checkpoints import CHECKPOINT, RESTART, TURN, begin_reply, copy_msg, join_reply, read_checkpoint
from wire.session.rules import ANSWERS, ChatInput, waiting

__all__ = ("Changed", "Session")

# The events after which a reply waits or is over (agentscope.app.channel._stream).
TERMINAL = (ReplyEndEvent, RequireUserConfirmEvent, RequireExternalExecutionEvent)
# The events with which a reply begins, or is taken on after its park.
OPENING = (ReplyStartEvent, UserConfirmResultEvent, ExternalExecutionResultEvent)


class Changed(NamedTuple):
    """What a batch applied to a :class:`Session` changed."""

    replies: list[str]
    """The replies it touched, in the order it first touched them; a
    checkpoint counts only when it changed its reply's Msg."""
    turned: bool
    """Whether a reply began, was taken on, ended or parked in it, or a
    restart dropped everything (a store then takes a checkpoint)."""


class Session:
    """The state of one session, built from its log's events in order.

    * :attr:`replies`: every reply's Msg by reply id, in the order the
      replies began. A REPLY_START of a new reply begins its Msg
      (``begin_reply``); an event of a reply never begun here joins it
      (``join_reply``); a checkpoint replaces its reply's Msg (or adds it);
      a ``wire.restart`` drops everything.
    * :attr:`open`: the replies between their start (or answer) and their
      end or park.
    * :attr:`turn`: the ``wire.turn`` written whose reply has not begun yet.
    * :attr:`interrupted`: replies a USER_INTERRUPT named that have not
      ended since: their wait is over, so nothing more is taken for them.
    * :attr:`custom`: CUSTOM events of no reply, in order (turns included),
      unless made with ``keep_custom=False`` (a store: its log holds them).
    * :attr:`last_id` and :attr:`closed` are a store's: the newest entry this
      state covers ("" for none) and whether the log is closed.
    """

    __slots__ = ("_count", "closed", "custom", "interrupted", "keep_custom", "last_id", "open", "positions",
                 "replies", "turn")

    def __init__(self, *msgs: Msg, keep_custom: bool = True) -> None:
        self.keep_custom = keep_custom
        self.replies: dict[str, Msg] = {msg.id: msg for msg in msgs}
        self.open: set[str] = set()
        self.turn: CustomEvent | None = None
        self.interrupted: set[str] = set()
        self.custom: list[CustomEvent] = []
        self.positions: dict[str, int] = {}
        """Each reply's last event: its index among all events applied."""
        self.last_id = ""
        self.closed = False
        self._count = 0

    def __repr__(self) -> str:
        return f"<Session {len(self.replies)} replies{' closed' if self.closed else ''} at {self.last_id!r}>"

    @property
    def last(self) -> Msg | None:
        """The Msg of the reply that began last."""
        return next(reversed(self.replies.values()), None)

    def copy(self) -> Session:
        """This state, sharing no Msg with it (what a store hands out)."""
        other = Session(*map(copy_msg, self.replies.values()), keep_custom=self.keep_custom)
        other.open = set(self.open)
        other.turn = self.turn
        other.interrupted = set(self.interrupted)
        other.custom = list(self.custom)
        other.positions = dict(self.positions)
        other.last_id = self.last_id
        other.closed = self.closed
        other._count = self._count
        return other

    # -- applying events -------------------------------------------------------------------

    def apply(self, events: Iterable[AgentEvent | UnknownEvent]) -> Changed:
        """Apply ``events`` in order; what they changed. Runs of one reply's
        events go to its Msg in one ``extend_events`` call."""
        touched: dict[str, None] = {}
        turned = False
        run: list[AgentEvent] = []
        run_id: str | None = None
        for event in events:
            index = self._count
            self._count += 1
            reply_id: str | None = getattr(event, "reply_id", None)
            if reply_id is None:  # CUSTOM, or an event of a type wire does not know
                if run_id is not None:
                    turned |= self._run(run_id, run)
                    run, run_id = [], None
                if type(event) is CustomEvent:
                    changed = self._custom(event)
                    if changed is RESTART:
                        touched.clear()
                        turned = True
                    elif changed is not None:
                        touched[changed] = None
                        self.positions[changed] = index
                continue
            if type(event) is UserInterruptEvent and self.turn is not None:
                # The run so far may begin the turn's reply, which ends the turn: apply it first,
                # so that the state does not depend on how the events were batched.
                if run_id is not None:
                    turned |= self._run(run_id, run)
                    run, run_id = [], None
                if self.turn is not None and self.turn.id == reply_id:
                    # The interrupt of a turn whose reply never began (its agent failed to
                    # start): the turn is withdrawn, and no reply is made of its id.
                    self.turn = None
                    turned = True
                    continue
            if reply_id != run_id:
                if run_id is not None:
                    turned |= self._run(run_id, run)
                run, run_id = [], reply_id
            touched[reply_id] = None
            self.positions[reply_id] = index
            run.append(event)  # type: ignore[arg-type]  # an event with a reply_id is an AgentEvent
        if run_id is not None:
            turned |= self._run(run_id, run)
        return Changed(list(touched), turned)

    extend = apply  # the name wire.resume.Conversation had

    def _custom(self, event: CustomEvent) -> str | None:
        """A CUSTOM event: the reply a checkpoint changed, RESTART, or None."""
        if event.name == CHECKPOINT:
            msg = read_checkpoint(event)
            assert msg is not None
            if self.replies.get(msg.id) == msg:
                return None  # a reconnect's checkpoint of what this session holds already: no news
            self.replies[msg.id] = msg
            return msg.id
        if event.name == RESTART:
            self.replies.clear()
            self.open.clear()
            self.interrupted.clear()
            self.custom.clear()
            self.positions.clear()
            self.turn = None
            return RESTART
        if event.name == TURN:
            self.turn = event
        if self.keep_custom:
            self.custom.append(event)
        return None

    def _run(self, reply_id: str, run: list[AgentEvent]) -> bool:
        msg = self.replies.get(reply_id)
        first = run[0]
        if msg is None:
            msg = begin_reply(first) if type(first) is ReplyStartEvent else join_reply(reply_id)
            self.replies[reply_id] = msg
            if type(first) is ReplyStartEvent:
                self.turn = None  # the pending turn's reply has begun
        msg.extend_events(run)
        turned = False
        for event in run:
            if isinstance(event, TERMINAL):
                # Even for a reply not open here (one taken on from a checkpoint and ended
                # at once, as an interrupted park is): a store checkpoints the end or park.
                turned = True
                self.open.discard(reply_id)
                if type(event) is ReplyEndEvent:
                    self.interrupted.discard(reply_id)
            elif isinstance(event, OPENING) and reply_id not in self.open:
                self.open.add(reply_id)
                turned = True
            elif type(event) is UserInterruptEvent:
                self.interrupted.add(reply_id)
        return turned

    def adopt(self, msg: Msg, events: list[AgentEvent]) -> None:
        """Take on a reply another writer began: its Msg as last
        checkpointed, and its events written after that checkpoint."""
        self.replies[msg.id] = msg
        if events:
            self._run(msg.id, events)
        self.open.discard(msg.id)

    # -- what may be taken -----------------------------------------------------------------

    def finished(self, reply_id: str | None, *, turn: bool, news: set[str]) -> bool:
        """Whether a reader's run is over: the reply ``reply_id`` (or, with
        ``turn``, the latest reply, once the reader had news of it: ``news``
        holds the replies it had news of) has ended or parked. Where
        ``Follower.run`` and the socket client stop."""
        if reply_id is None and turn:
            last = self.last
            if last is None or last.id not in news:
                return False
            reply_id = last.id
        if reply_id is None or (msg := self.replies.get(reply_id)) is None:
            return False
        return waiting(msg).state != "running"

    def refusal(self, value: ChatInput) -> str | None:
        """Why the session cannot take ``value`` now, or None when it can:

        * nothing is taken once the session is closed;
        * an answer must name a reply of the session that waits for that kind
          of answer; a confirmation must name only calls that await one, each
          once (a call answered before awaits none: answering twice is
          refused); an external result likewise. Answering some of the
          waiting calls is taken, as agentscope's agent takes it (the others
          keep waiting). A reply that was interrupted waits for nothing more;
        * an interrupt must name a reply that is running or parked (and not
          interrupted already), or the pending turn;
        * a new turn (a Msg, a list of them, or null) is refused while a turn
          is pending (its reply has not begun: a double submit), or a reply
          is parked (answer or interrupt it first; agentscope's agent
          raises) or running.
        """
        if self.closed:
            return "the session is closed"
        if isinstance(value, ANSWERS):
            return self._answer_refusal(value)
        if self.turn is not None:
            return (f"turn {self.turn.id!r} is waiting for its reply to begin: "
                    "wait for it, or interrupt it (a USER_INTERRUPT naming the turn's id)")
        for msg in self.replies.values():  # any reply, not only the latest: interleaved replies
            state = waiting(msg)
            if state.state == "parked" and msg.id not in self.interrupted:
                calls = ", ".join(call.id for call in state.confirm + state.external)
                return f"reply {msg.id!r} waits for an answer about {calls}: answer or interrupt it first"
            if state.state != "ended":
                return f"reply {msg.id!r} is still running"
        return None

    def _answer_refusal(self, value: UserConfirmResultEvent | ExternalExecutionResultEvent
                        | UserInterruptEvent) -> str | None:
        if type(value) is UserInterruptEvent and self.turn is not None and self.turn.id == value.reply_id:
            return None
        msg = self.replies.get(value.reply_id)
        if msg is None:
            return f"the session has no reply {value.reply_id!r}"
        state = waiting(msg)
        if state.state == "ended":
            return f"reply {msg.id!r} is over: it waits for nothing"
        if msg.id in self.interrupted:
            return f"reply {msg.id!r} was interrupted: it waits for nothing more"
        if isinstance(value, UserInterruptEvent):
            return None
        if isinstance(value, UserConfirmResultEvent):
            kind, pending = "confirmation", state.confirm
            named = [result.tool_call.id for result in value.confirm_results]
        else:
            kind, pending = "external result", state.external
            named = [result.id for result in value.execution_results]
        if not pending:
            return f"reply {msg.id!r} waits for no {kind}"
        if (problem := _twice(named, kind)) is not None:
            return problem
        awaited = {call.id for call in pending}
        if stray := [call_id for call_id in named if call_id not in awaited]:
            return (f"tool call {stray[0]!r} awaits no {kind} (reply {msg.id!r} waits for "
                    f"{', '.join(sorted(awaited))})")
        return None


def _twice(named: list[str], kind: str) -> str | None:
    seen: set[str] = set()
    for call_id in named:
        if call_id in seen:
            return f"the {kind} names tool call {call_id!r} twice"
        seen.add(call_id)
    return None if named else f"the {kind} answers no tool call"
