"""A session as its producer writes it: the Msg of every reply, built as the
events go into the log, and which replies a checkpoint must cover.

A log holds a session: any number of replies, one after another, each
beginning at its REPLY_START and ending at REPLY_END or parking at
REQUIRE_USER_CONFIRM / REQUIRE_EXTERNAL_EXECUTION, from where the answer
(USER_CONFIRM_RESULT, EXTERNAL_EXECUTION_RESULT, then a REPLY_START with the
same reply id) takes it on. A reply is *open* from its start (or the answer
that takes it on) to its end or park; the replies open at a checkpoint are
the ones it must snapshot, so that a checkpoint is a cut through the whole
session: every reply's Msg as of one entry.
"""

from __future__ import annotations

from wire.events import (
    AgentEvent,
    ExternalExecutionResultEvent,
    ReplyEndEvent,
    ReplyStartEvent,
    RequireExternalExecutionEvent,
    RequireUserConfirmEvent,
    UserConfirmResultEvent,
)
from wire.messages import Msg
from wire.resume import begin_reply

# The events after which a reply waits or is over (agentscope.app.channel._stream).
TERMINAL = (ReplyEndEvent, RequireUserConfirmEvent, RequireExternalExecutionEvent)
# The events with which a reply begins, or is taken on after its park.
OPENING = (ReplyStartEvent, UserConfirmResultEvent, ExternalExecutionResultEvent)


class Replies:
    """The replies of one session, in the order they began."""

    __slots__ = ("msgs", "open", "touched")

    def __init__(self, first: Msg | None = None) -> None:
        self.msgs: dict[str, Msg] = {first.id: first} if first is not None else {}
        self.open: set[str] = set()
        """Replies between their start (or answer) and their end or park."""
        self.touched: dict[str, int] = {}
        """Each reply's last event: its index among all events applied."""

    @property
    def last(self) -> Msg | None:
        """The Msg of the reply that began last."""
        return next(reversed(self.msgs.values()), None)

    def adopt(self, msg: Msg, events: list[AgentEvent]) -> None:
        """Take on a reply another producer began: its Msg as last
        checkpointed, and its events written after that checkpoint."""
        self.msgs[msg.id] = msg
        if events:
            self._run(msg.id, events)
        self.open.discard(msg.id)

    def apply(self, events: list[AgentEvent], start: int) -> tuple[set[str], bool]:
        """Apply ``events`` (the first at index ``start``) to their replies'
        Msgs; the replies they touched, and whether a reply opened, ended
        or parked among them (then a checkpoint is due)."""
        touched: set[str] = set()
        turned = False
        run: list[AgentEvent] = []
        run_id: str | None = None
        for i, event in enumerate(events, start):
            reply_id: str | None = getattr(event, "reply_id", None)  # CUSTOM has none: no reply's
            if reply_id is None:
                continue
            if reply_id != run_id:
                if run_id is not None:
                    turned |= self._run(run_id, run)
                run, run_id = [], reply_id
                touched.add(reply_id)
            run.append(event)
            self.touched[reply_id] = i
        if run_id is not None:
            turned |= self._run(run_id, run)
        return touched, turned

    def _run(self, reply_id: str, run: list[AgentEvent]) -> bool:
        msg = self.msgs.get(reply_id)
        if msg is None:
            first = run[0]
            # A reply joined without its start is begun as a reader begins it (wire.resume.Conversation).
            msg = begin_reply(first) if type(first) is ReplyStartEvent else Msg(
                name="", role="assistant", content=[], id=reply_id)
            self.msgs[reply_id] = msg
        msg.extend_events(run)
        turned = False
        for event in run:
            if isinstance(event, TERMINAL):
                # Even for a reply not open here (one taken on from a checkpoint and ended
                # at once, as an interrupted park is): the end or park is what snapshot() reads.
                turned = True
                self.open.discard(reply_id)
            elif isinstance(event, OPENING) and reply_id not in self.open:
                self.open.add(reply_id)
                turned = True
        return turned
